package jsonrpc_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/transport"
)

// GoNow returns without waiting on a write the connection cannot take at once: a
// goroutine writes the request, and the answer settles done as Go's would.
func TestGoNowNeverWaitsOnTheWrite(t *testing.T) {
	conn, p, ns := newQuickPeer(t, jsonrpc.Options{})
	got := make(chan string, 1)
	returned := make(chan error, 1)
	go func() {
		returned <- conn.GoNow(t.Context(), "work", nil, func(res json.RawMessage, err error) {
			if err != nil {
				got <- err.Error()
				return
			}
			got <- string(res)
		})
	}()
	select {
	case err := <-returned:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second): // a bound, not a measure
		t.Fatal("GoNow waited on a write the peer does not take")
	}
	close(ns.held) // the peer reads again
	if line := p.recv(); !strings.Contains(line, `"method":"work"`) {
		t.Fatalf("the peer read %s", line)
	}
	p.send(`{"jsonrpc":"2.0","id":1,"result":{"ok":true}}`)
	if r := <-got; r != `{"ok":true}` {
		t.Errorf("done got %s", r)
	}
}

// A request GoNow hands to a goroutine whose write then fails settles done with the
// write's error (Go would have returned it).
func TestGoNowWriteFailsToDone(t *testing.T) {
	conn, _, ns := newQuickPeer(t, jsonrpc.Options{})
	ctx, cancel := context.WithCancel(t.Context())
	got := make(chan error, 1)
	if err := conn.GoNow(ctx, "work", nil, func(_ json.RawMessage, err error) { got <- err }); err != nil {
		t.Fatal(err)
	}
	cancel() // the write, held, gives up with its context
	if err := <-got; err == nil {
		t.Fatal("done got no error")
	}
	select {
	case err := <-got:
		t.Errorf("done called again: %v", err)
	default:
	}
	// The request's write, handed to a goroutine, and perhaps the notifications/cancelled
	// of the withdrawn call.
	if n := ns.writes.Load(); n < 1 {
		t.Errorf("%d writes, want the request's at least", n)
	}
}

// Two connections over OS pipes, each reading goroutine writing: the bounded side's
// reading waits while the answers it has not written fill MaxInFlight
// (TestQuickUnreadAnswersBounded), and the other's reading sends a request for each
// answer it reads, as mcpi's client sends a task's second request. With Go the second
// side's reader could wait on its write to a pipe the first no longer read, while the
// first waited for it to read: each waiting on the other. With GoNow it never waits.
func TestGoNowFromTheReaderAgainstABoundedPeer(t *testing.T) {
	sr, cw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cr, sw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", 16<<10) // four answers fill a pipe
	server := jsonrpc.NewConn(transport.NewStream(sr, sw, 0), jsonrpc.Options{
		MaxInFlight: 32,
		Handler: jsonrpc.HandlerFunc(func(_ context.Context, req *jsonrpc.Request) (any, error) {
			if req.Method == "big" {
				return big, nil
			}
			return "small", nil
		}),
	})
	client := jsonrpc.NewConn(transport.NewStream(cr, cw, 0), jsonrpc.Options{})
	t.Cleanup(func() {
		client.Close()
		server.Close()
	})
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second) // a bound, not a measure
	defer cancel()
	const n = 400
	pad := map[string]string{"pad": strings.Repeat("y", 4<<10)} // 400 of them fill a pipe many times
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Add(1)
		go func() {
			err := client.Go(ctx, "big", pad, func(_ json.RawMessage, err error) {
				if err != nil {
					errs <- err
					wg.Done()
					return
				}
				// On the reading goroutine: the second request of the pair.
				if err := client.GoNow(ctx, "small", nil, func(_ json.RawMessage, err error) {
					if err != nil {
						errs <- err
					}
					wg.Done()
				}); err != nil {
					errs <- err
					wg.Done()
				}
			})
			if err != nil {
				errs <- err
				wg.Done()
			}
		}()
	}
	wg.Wait() // a deadlock ends with ctx, each call failing with it
	close(errs)
	for err := range errs {
		// A request past the bound while as many are handled is refused: an answer too.
		if e, ok := errors.AsType[*jsonrpc.Error](err); ok && e.Code == jsonrpc.CodeInvalidRequest {
			continue
		}
		t.Fatal(err)
	}
}
