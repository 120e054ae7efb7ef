package jsonrpc_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/mcpi-dev/mcpi/jsonrpc"
)

// oneShot is a connection that carries one request, read by its owner, and records what
// is written to it; writes fail once failAfter of them have gone.
type oneShot struct {
	mu        sync.Mutex
	written   []jsonrpc.Message
	failAfter int
	closed    bool
}

var errGone = errors.New("the peer is gone")

func (c *oneShot) Read(ctx context.Context) (jsonrpc.Message, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func (c *oneShot) Write(ctx context.Context, m jsonrpc.Message) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.failAfter >= 0 && len(c.written) >= c.failAfter {
		return errGone
	}
	c.written = append(c.written, m)
	return nil
}

func (c *oneShot) Close() error {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	return nil
}

// A serving Conn runs the request it is handed on the caller's goroutine and writes the
// response before Serve returns; the handler's context carries the request.
func TestServingConnServes(t *testing.T) {
	conn := &oneShot{failAfter: -1}
	var onHandler bool
	var c *jsonrpc.Conn
	c = jsonrpc.NewServingConn(context.Background(), conn, jsonrpc.Options{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		got, _ := jsonrpc.RequestFromContext(ctx)
		onHandler = got == req
		if err := c.Notify(ctx, "note", nil); err != nil {
			t.Errorf("notify: %v", err)
		}
		return map[string]int{"n": 1}, nil
	})})
	c.Serve(&jsonrpc.Request{ID: jsonrpc.Int64ID(4), Method: "m"})
	if !onHandler {
		t.Error("the handler's context does not carry its request")
	}
	conn.mu.Lock()
	written := conn.written
	conn.mu.Unlock()
	if len(written) != 2 {
		t.Fatalf("%d messages written", len(written))
	}
	resp, ok := written[1].(*jsonrpc.Response)
	if !ok || resp.ID != jsonrpc.Int64ID(4) || string(resp.Result) != `{"n":1}` {
		t.Errorf("response %+v", written[1])
	}
	if err := c.Close(); err != nil {
		t.Error(err)
	}
	waitClosed(t, c.Done(), "the end of the Conn")
	if !conn.closed {
		t.Error("the connection is not closed")
	}
}

// The handler's context ends with the parent context, when the Conn is closed, and when
// a notification cannot be written (nothing reads the connection to notice it has
// ended); a call the connection refuses leaves it open.
func TestServingConnEnds(t *testing.T) {
	for _, tc := range []struct {
		name          string
		cancel, close bool
	}{{"parent context", true, false}, {"failed write", false, false}, {"closed", false, true}} {
		t.Run(tc.name, func(t *testing.T) {
			parent, cancel := context.WithCancel(context.Background())
			defer cancel()
			conn := &oneShot{failAfter: 0}
			var c *jsonrpc.Conn
			c = jsonrpc.NewServingConn(parent, conn, jsonrpc.Options{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
				if err := c.Call(ctx, "refused", nil, nil); err == nil || ctx.Err() != nil {
					t.Errorf("a refused call: %v, context %v", err, ctx.Err())
				}
				switch {
				case tc.cancel:
					cancel()
				case tc.close:
					go c.Close()
				default:
					if err := c.Notify(ctx, "note", nil); err == nil {
						t.Error("a notification written")
					}
				}
				<-ctx.Done()
				return nil, ctx.Err()
			})})
			c.Serve(&jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "m"})
			c.Close()
		})
	}
}
