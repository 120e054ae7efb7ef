package transport

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
)

// killServer stops ts as kill -9 would: nothing listens at its address any more, and
// every connection to it is closed.
func killServer(ts *testServer) {
	ts.Listener.Close()
	ts.CloseClientConnections()
}

// TestHTTPClientServerKilledDuringCall: the server dies while a call's answer is awaited
// on its event stream. Resuming the stream finds nothing listening, and the call fails at
// once with an error that matches ErrUnreachable, instead of waiting out five attempts
// with their growing delays (half a minute) and ending in a timeout of the caller's.
func TestHTTPClientServerKilledDuringCall(t *testing.T) {
	ts := newTestServer(t, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		// On the call's event stream, which the client then has open: killed before
		// the stream began, the POST itself fails (under load it did, with EOF).
		_ = connFromContext(ctx).Notify(ctx, "notifications/message", map[string]string{"data": "working"})
		<-ctx.Done() // a slow tool: it answers when the server goes
		return nil, ctx.Err()
	}, nil)
	streaming := make(chan struct{}, 1)
	// The waits before attempts to resume the call's stream, told from the standalone
	// stream's by the value the call's context carries.
	type callKey struct{}
	rs := &recordSleep{}
	sleep := func(ctx context.Context, d time.Duration) error {
		if ctx.Value(callKey{}) != nil {
			return rs.sleep(ctx, d)
		}
		return ctx.Err()
	}
	c, _ := dial(t, &HTTPClient{URL: ts.URL, sleep: sleep}, func(context.Context, *jsonrpc.Request) (any, error) {
		select {
		case streaming <- struct{}{}:
		default:
		}
		return nil, nil
	})
	errc := make(chan error, 1)
	go func() { errc <- c.Call(context.WithValue(callCtx(t), callKey{}, true), "tools/call", nil, nil) }()
	<-streaming
	killServer(ts)
	err := <-errc
	if !errors.Is(err, ErrUnreachable) {
		t.Fatalf("call: %v, want an error that matches ErrUnreachable", err)
	}
	if !strings.Contains(err.Error(), "can no longer be reached") {
		t.Errorf("call: %q does not say the server can no longer be reached", err)
	}
	if c.Err() != nil {
		t.Errorf("the connection ended (%v): the call's failure is the call's", c.Err())
	}
	// The wait before the first attempt (the stream's retry) is all there is: the refused
	// attempt ends the call.
	if d := rs.get(); len(d) != 1 {
		t.Errorf("waited %v before failing the call, want one wait and one attempt", d)
	}
}
