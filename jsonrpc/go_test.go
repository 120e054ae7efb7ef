package jsonrpc_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/mcpi-dev/mcpi/jsonrpc"
)

// goResult is what a continuation of Conn.Go was given.
type goResult struct {
	raw json.RawMessage
	err error
}

// goCall starts method with Go and returns where its continuation reports.
func goCall(t *testing.T, ctx context.Context, c *jsonrpc.Conn, method string, params any) <-chan goResult {
	t.Helper()
	ch := make(chan goResult, 2) // a second call of done would show
	if err := c.Go(ctx, method, params, func(raw json.RawMessage, err error) { ch <- goResult{raw, err} }); err != nil {
		t.Fatalf("Go(%s): %v", method, err)
	}
	return ch
}

func TestGoDeliversResultsAndErrors(t *testing.T) {
	server := mux{
		"echo": echo,
		"fail": func(context.Context, *jsonrpc.Request) (any, error) {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "no")
		},
	}
	c, _ := newPair(t, jsonrpc.Options{}, jsonrpc.Options{Handler: server})
	ctx := context.Background()

	r := recv(t, goCall(t, ctx, c, "echo", map[string]int{"a": 1}), "the echo")
	if r.err != nil || string(r.raw) != `{"a":1}` {
		t.Fatalf("echo: %s, %v", r.raw, r.err)
	}
	r = recv(t, goCall(t, ctx, c, "fail", nil), "the failure")
	if !errors.Is(r.err, jsonrpc.ErrInvalidParams) || r.raw != nil {
		t.Fatalf("fail: %s, %v; want -32602", r.raw, r.err)
	}
	// Params that cannot be encoded fail at once, and done is never called.
	called := false
	err := c.Go(ctx, "echo", make(chan int), func(json.RawMessage, error) { called = true })
	var ce *jsonrpc.CallError
	if !errors.As(err, &ce) || ce.Op != jsonrpc.OpEncode || called {
		t.Fatalf("bad params: %v (done called: %v)", err, called)
	}
	// Calls of both kinds share the ids and the connection.
	chs := make([]<-chan goResult, 10)
	for i := range chs {
		chs[i] = goCall(t, ctx, c, "echo", []int{i})
		var n []int
		if err := c.Call(ctx, "echo", []int{100 + i}, &n); err != nil || len(n) != 1 || n[0] != 100+i {
			t.Fatalf("Call between Go: %d, %v", n, err)
		}
	}
	for i, ch := range chs {
		var n []int
		r := recv(t, ch, "an echo")
		if r.err != nil || json.Unmarshal(r.raw, &n) != nil || len(n) != 1 || n[0] != i {
			t.Fatalf("echo %d: %s, %v", i, r.raw, r.err)
		}
	}
}

// The continuation runs where the response is read: the next message is read after it.
func TestGoRunsOnTheReadingGoroutine(t *testing.T) {
	noted := make(chan struct{})
	c, p := newRawPeer(t, jsonrpc.Options{Handler: mux{"ping": pingHandler["ping"], "note": func(context.Context, *jsonrpc.Request) (any, error) {
		close(noted)
		return nil, nil
	}}})
	release := make(chan struct{})
	got := make(chan string, 1)
	if err := c.Go(context.Background(), "x", nil, func(raw json.RawMessage, err error) {
		got <- string(raw)
		<-release
	}); err != nil {
		t.Fatal(err)
	}
	p.expect(`{"jsonrpc":"2.0","id":1,"method":"x"}`)
	// One write: the pipe takes no more while the continuation holds the reader.
	p.send(`{"jsonrpc":"2.0","id":1,"result":{"ok":true}}` + "\n" + `{"jsonrpc":"2.0","method":"note"}`)
	if r := recv(t, got, "the continuation"); r != `{"ok":true}` {
		t.Fatalf("continuation got %s", r)
	}
	select {
	case <-noted:
		t.Fatal("the notification after the response was handled while the continuation ran")
	default:
	}
	close(release)
	waitClosed(t, noted, "the notification")
	p.ping("after")
}

func TestGoCancelledByContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var clientLog msgLog
		started := make(chan jsonrpc.ID, 1)
		server := mux{"slow": func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			started <- req.ID
			<-ctx.Done()
			return "too late", nil
		}}
		c, _ := newPair(t, jsonrpc.Options{Tap: clientLog.tap}, jsonrpc.Options{Handler: server})
		ctx, cancel := context.WithCancelCause(context.Background())
		ch := goCall(t, ctx, c, "slow", nil)
		id := <-started
		cancel(errors.New("given up"))
		if r := <-ch; !errors.Is(r.err, context.Canceled) {
			t.Fatalf("done got %v, want context.Canceled", r.err)
		}
		synctest.Wait()
		_, out := clientLog.snapshot()
		if len(out) != 2 {
			t.Fatalf("client sent %d messages, want the request and its cancellation", len(out))
		}
		if reason, ok := isCancelFor(out[1], id); !ok || reason != "given up" {
			t.Fatalf("second message is not the cancellation of %v (reason %q)", id, reason)
		}
		if len(ch) != 0 {
			t.Fatal("done was called twice")
		}
		// A context that ends after the response changes nothing.
		ctx2, cancel2 := context.WithCancel(context.Background())
		ch2 := goCall(t, ctx2, c, "unknown", nil)
		if r := <-ch2; !errors.Is(r.err, jsonrpc.ErrMethodNotFound) {
			t.Fatalf("done got %v, want -32601", r.err)
		}
		cancel2()
		synctest.Wait()
		if len(ch2) != 0 {
			t.Fatal("done was called again when the context ended")
		}
		if _, out := clientLog.snapshot(); len(out) != 3 {
			t.Fatalf("client sent %d messages, want no cancellation of an answered call", len(out))
		}
	})
}

func TestGoFailedByTheConnectionsEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		started := make(chan struct{}, 3)
		server := mux{"hang": func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			started <- struct{}{}
			<-ctx.Done()
			return nil, ctx.Err()
		}}
		c, _ := newPair(t, jsonrpc.Options{}, jsonrpc.Options{Handler: server})
		chs := []<-chan goResult{
			goCall(t, context.Background(), c, "hang", nil),
			goCall(t, context.Background(), c, "hang", nil),
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		chs = append(chs, goCall(t, ctx, c, "hang", nil))
		for range chs {
			<-started
		}
		c.Close()
		for _, ch := range chs {
			if r := <-ch; !errors.Is(r.err, jsonrpc.ErrClosed) {
				t.Fatalf("done got %v, want ErrClosed", r.err)
			}
		}
		cancel()
		synctest.Wait()
		for _, ch := range chs {
			if len(ch) != 0 {
				t.Fatal("done was called twice")
			}
		}
		// After the end, Go refuses at once.
		err := c.Go(context.Background(), "hang", nil, func(json.RawMessage, error) { t.Error("done called after the end") })
		if !errors.Is(err, jsonrpc.ErrClosed) {
			t.Fatalf("Go after Close: %v", err)
		}
	})
}

// A request sent with a context of WithRequestID tells its id before it is written: the
// peer's first message about it (here a notification naming it, sent before the answer)
// finds the id known.
func TestWithRequestID(t *testing.T) {
	var mu sync.Mutex
	known := map[jsonrpc.ID]bool{}
	seen := make(chan bool, 2)
	var server *jsonrpc.Conn
	client, server := newPair(t, jsonrpc.Options{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		var p struct{ ID jsonrpc.ID }
		_ = json.Unmarshal(req.Params, &p)
		mu.Lock()
		seen <- known[p.ID]
		mu.Unlock()
		return nil, nil
	})}, jsonrpc.Options{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		_ = server.Notify(ctx, "about", map[string]any{"id": req.ID})
		return "ok", nil
	})})
	ctx := jsonrpc.WithRequestID(t.Context(), func(id jsonrpc.ID) {
		mu.Lock()
		known[id] = true
		mu.Unlock()
	})
	if err := client.Call(ctx, "a", nil, nil); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	if err := client.Go(ctx, "b", nil, func(_ json.RawMessage, err error) { done <- err }); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if !<-seen {
			t.Error("a notification naming the request came before its id was told")
		}
	}
}
