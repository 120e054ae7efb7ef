package jsonrpc_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
)

type worded struct{ error }

func (worded) CancelReason() string { return "the client gave up after its timeout of 5s" }

// The notifications/cancelled of a withdrawn call gives a reason a server's author
// understands: the cause's CancelReason, else its message; Go's own "context canceled"
// and "context deadline exceeded" are worded. Both Call and Go.
func TestCancelReasonWorded(t *testing.T) {
	cases := []struct {
		name string
		// ctx returns the call's context and what ends it; one with a timeout ends by
		// itself, in the bubble's time, once everything waits.
		ctx     func() (context.Context, func())
		timeout bool
		want    string
	}{
		{"cancelled without a cause", func() (context.Context, func()) {
			ctx, cancel := context.WithCancel(context.Background())
			return ctx, cancel
		}, false, "the request was withdrawn"},
		{"timed out without a cause", func() (context.Context, func()) {
			return context.WithTimeout(context.Background(), time.Second)
		}, true, "the request timed out"},
		{"a cause", func() (context.Context, func()) {
			ctx, cancel := context.WithCancelCause(context.Background())
			return ctx, func() { cancel(errors.New("cancelled by the user")) }
		}, false, "cancelled by the user"},
		{"a cause with a reason", func() (context.Context, func()) {
			return context.WithTimeoutCause(context.Background(), time.Second, worded{context.DeadlineExceeded})
		}, true, "the client gave up after its timeout of 5s"},
	}
	for _, c := range cases {
		for _, viaGo := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/Go=%v", c.name, viaGo), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					var clientLog msgLog
					started := make(chan jsonrpc.ID, 1)
					server := mux{"slow": func(ctx context.Context, req *jsonrpc.Request) (any, error) {
						started <- req.ID
						<-ctx.Done()
						return nil, ctx.Err()
					}}
					cl, _ := newPair(t, jsonrpc.Options{Tap: clientLog.tap}, jsonrpc.Options{Handler: server})
					ctx, end := c.ctx()
					defer end()
					done := make(chan error, 1)
					if viaGo {
						if err := cl.Go(ctx, "slow", nil, func(_ json.RawMessage, err error) { done <- err }); err != nil {
							t.Fatal(err)
						}
					} else {
						go func() { done <- cl.Call(ctx, "slow", nil, nil) }()
					}
					id := <-started
					if !c.timeout {
						end()
					}
					if err := <-done; err == nil {
						t.Fatalf("%s (Go: %v): the call ended with no error", c.name, viaGo)
					}
					synctest.Wait()
					_, out := clientLog.snapshot()
					if len(out) != 2 {
						t.Fatalf("%s (Go: %v): the client sent %d messages, want the request and its cancellation", c.name, viaGo, len(out))
					}
					if reason, ok := isCancelFor(out[1], id); !ok || reason != c.want {
						t.Errorf("%s (Go: %v): the reason is %q, want %q", c.name, viaGo, reason, c.want)
					}
				})
			})
		}
	}
}
