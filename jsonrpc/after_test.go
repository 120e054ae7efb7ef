package jsonrpc_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/mcpi-dev/mcpi/jsonrpc"
)

// AfterResponse runs its function once the response is written, on the goroutine that
// ran the handler, which may then block without holding the connection up; it is
// refused to a notification's handler, a second time, and on a Conn that serves on its
// owner's goroutine.
func TestAfterResponse(t *testing.T) {
	{
		var written atomic.Bool
		release := make(chan struct{})
		defer close(release)
		ran := make(chan bool, 1)
		var refusedTwice, refusedNote atomic.Bool
		server := mux{
			"start": func(ctx context.Context, _ *jsonrpc.Request) (any, error) {
				if !jsonrpc.AfterResponse(ctx, func() {
					ran <- written.Load()
					<-ctx.Done() // the request's context has ended: this is the work's own time
					<-release
				}) {
					t.Error("AfterResponse refused in a request handler")
				}
				refusedTwice.Store(!jsonrpc.AfterResponse(ctx, func() { t.Error("a second function ran") }))
				return "started", nil
			},
			"ping": pingHandler["ping"],
			"note": func(ctx context.Context, _ *jsonrpc.Request) (any, error) {
				refusedNote.Store(!jsonrpc.AfterResponse(ctx, func() { t.Error("a notification's function ran") }))
				return nil, nil
			},
		}
		opts := jsonrpc.Options{Handler: server, Tap: func(dir jsonrpc.Direction, m jsonrpc.Message) {
			if _, ok := m.(*jsonrpc.Response); ok && dir == jsonrpc.Outbound {
				written.Store(true)
			}
		}}
		_, p := newRawPeer(t, opts)
		p.send(`{"jsonrpc":"2.0","method":"note"}`)
		p.send(`{"jsonrpc":"2.0","id":1,"method":"start"}`)
		p.expect(`{"jsonrpc":"2.0","id":1,"result":"started"}`)
		if !recv(t, ran, "the function") {
			t.Error("the function ran before the response was written")
		}
		if !refusedTwice.Load() || !refusedNote.Load() {
			t.Errorf("a second function refused %v, a notification's %v; want both refused", refusedTwice.Load(), refusedNote.Load())
		}
		p.ping("while the function runs") // it holds nothing up
	}
	if jsonrpc.AfterResponse(context.Background(), func() {}) {
		t.Error("AfterResponse accepted a context of no request")
	}
	conn := &oneShot{failAfter: -1}
	var accepted bool
	c := jsonrpc.NewServingConn(context.Background(), conn, jsonrpc.Options{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		accepted = jsonrpc.AfterResponse(ctx, func() {})
		return nil, nil
	})})
	c.Serve(&jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "m"})
	c.Close()
	if accepted {
		t.Error("a serving Conn accepted a function to run after its response")
	}
}
