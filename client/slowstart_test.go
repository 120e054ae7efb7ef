package client_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/transport"
)

// slowStart is the server's end of a connection whose server begins to read only after
// a delay, as a stdio server that npx, uv or docker is still starting: what the client
// writes meanwhile waits in the pipe, as in an operating system's.
type slowStart struct {
	jsonrpc.Connection
	delay time.Duration
	start chan struct{}
	in    chan jsonrpc.Message
	mu    sync.Mutex
	read  []string // the methods the server read, in order
}

func newSlowStart(conn jsonrpc.Connection, delay time.Duration) *slowStart {
	c := &slowStart{Connection: conn, delay: delay, start: make(chan struct{}), in: make(chan jsonrpc.Message, 64)}
	go func() {
		defer close(c.in)
		for {
			m, err := conn.Read(context.Background())
			if err != nil {
				return
			}
			c.in <- m
		}
	}()
	go func() {
		time.Sleep(delay)
		close(c.start)
	}()
	return c
}

func (c *slowStart) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-c.start:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case m, ok := <-c.in:
		if !ok {
			return nil, jsonrpc.ErrClosed
		}
		if r, ok := m.(*jsonrpc.Request); ok && !r.IsNotification() {
			c.mu.Lock()
			c.read = append(c.read, r.Method)
			c.mu.Unlock()
		}
		return m, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// TestEraAutoSlowDualEraServer: mcpi's own server, which speaks both eras and settles a
// connection's era on its first request, starts reading only after the probe has timed
// out. It then reads server/discover first, which makes the connection one of
// 2026-07-28, and refuses the initialize that follows with -32601: the client asks
// server/discover again and speaks 2026-07-28 with it, rather than give up.
func TestEraAutoSlowDualEraServer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		srv := server.New(mcp.Implementation{Name: "dual", Version: "1"}, &server.Options{Modern: true})
		var conn *slowStart
		s, err := client.New(mcp.Implementation{Name: "t", Version: "1"}, &client.Options{ProbeTimeout: 2 * time.Second}).
			Connect(ctx, transport.PipeTransport{Serve: func(ctx context.Context, c jsonrpc.Connection) error {
				conn = newSlowStart(c, 6*time.Second)
				srv.Connect(context.Background(), conn)
				return nil
			}})
		if err != nil {
			t.Fatalf("Connect: %v", err)
		}
		defer s.Close()
		if !s.Modern() || s.ProtocolVersion() != mcp.ProtocolVersion20260728 {
			t.Errorf("the session speaks %s, want 2026-07-28", s.ProtocolVersion())
		}
		if s.ProbeTimedOut() {
			t.Error("ProbeTimedOut() is true for a session of 2026-07-28")
		}
		s.Close()
		synctest.Wait()
		conn.mu.Lock()
		defer conn.mu.Unlock()
		want := []string{mcp.MethodServerDiscover, mcp.MethodInitialize, mcp.MethodServerDiscover}
		if !slices.Equal(conn.read, want) {
			t.Errorf("the server read %v, want %v", conn.read, want)
		}
	})
}

// TestEraAutoHandshakeWithinRequestTimeout: RequestTimeout bounds the whole handshake of
// auto mode, the probe's time included, not each of its requests: a server that answers
// neither server/discover nor initialize is given up on once it has passed, and the
// error names both requests.
func TestEraAutoHandshakeWithinRequestTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		silent := func(ctx context.Context, _ *jsonrpc.Request) (any, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}
		f := newLegacy(t, silent)
		f.On(mcp.MethodInitialize, silent)
		start := time.Now()
		_, err := f.Connect(ctx, &client.Options{ProbeTimeout: 5 * time.Second, RequestTimeout: 8 * time.Second})
		if took := time.Since(start); took > 8*time.Second {
			t.Errorf("gave up after %s, past RequestTimeout", took)
		}
		var timeout *client.TimeoutError
		if !errors.As(err, &timeout) || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Connect: %v; want a *TimeoutError", err)
		}
		if want := "the server did not answer server/discover, nor then initialize, within 8s"; err.Error() != want {
			t.Errorf("Connect: %q, want %q", err, want)
		}
		if m := f.RequestMethods(); !slices.Equal(m, []string{mcp.MethodServerDiscover, mcp.MethodInitialize}) {
			t.Errorf("the server received %v", m)
		}
	})
}
