package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// A plain call the user cancels, and one the client gives up on after its request
// timeout, are withdrawn with a notifications/cancelled whose reason a server's author
// understands (it was Go's "context canceled" or "context deadline exceeded"), in both
// eras.
func TestCancelledCallReason(t *testing.T) {
	for _, era := range []string{"2025-11-25", "2026-07-28"} {
		for _, c := range []struct {
			name    string
			timeout time.Duration
			want    string
		}{
			{"cancelled by the user", 0, "cancelled by the user"},
			{"request timeout", 30 * time.Second, "the client gave up after its timeout of 30s"},
		} {
			t.Run(era+"/"+c.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					f := newFake(t)
					if era == "2025-11-25" {
						f = newLegacy(t, nil)
					}
					f.Answer(mcp.MethodToolsList, `{"tools":[{"name":"slow","inputSchema":{"type":"object"}}]}`)
					started := make(chan struct{}, 1)
					f.On(mcp.MethodToolsCall, func(ctx context.Context, _ *jsonrpc.Request) (any, error) {
						started <- struct{}{}
						<-ctx.Done()
						return nil, ctx.Err()
					})
					sess := f.MustConnect(bounded(t), &client.Options{RequestTimeout: c.timeout})
					ctx, cancel := context.WithCancelCause(bounded(t))
					defer cancel(nil)
					done := make(chan error, 1)
					go func() {
						_, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "slow"}, nil)
						done <- err
					}()
					select {
					case <-started:
					case err := <-done:
						t.Fatalf("the call ended before the server had it: %v", err)
					}
					if c.timeout == 0 {
						cancel(client.ErrCancelledByUser)
					}
					err := <-done
					if c.timeout == 0 && !errors.Is(err, context.Canceled) {
						t.Errorf("the cancelled call's error is %v, want context.Canceled", err)
					}
					synctest.Wait()
					notes := f.Notifications(jsonrpc.CancelledMethod)
					if len(notes) != 1 {
						t.Fatalf("%d notifications/cancelled, want 1", len(notes))
					}
					var p struct{ Reason string }
					if err := json.Unmarshal(notes[0].Params, &p); err != nil || p.Reason != c.want {
						t.Errorf("the reason is %q (%v), want %q", p.Reason, err, c.want)
					}
				})
			})
		}
	}
}
