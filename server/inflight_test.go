package server_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/transport"
)

// holdServer is a server whose tool "hold" tells started and waits for release.
func holdServer(t *testing.T, opts *server.Options) (srv *server.Server, started chan struct{}, release chan struct{}) {
	t.Helper()
	srv = server.New(mcp.Implementation{Name: "hold", Version: "1"}, opts)
	t.Cleanup(srv.Close)
	started, release = make(chan struct{}, 4096), make(chan struct{})
	srv.AddTool(&mcp.Tool{Name: "hold"}, func(ctx context.Context, _ *server.ToolRequest) (*mcp.CallToolResult, error) {
		started <- struct{}{}
		<-release
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("held")}}, nil
	})
	return srv, started, release
}

// holdCalls makes n calls of "hold" on c, each ending on errs, and waits until the server
// handles them all.
func holdCalls(t *testing.T, c *jsonrpc.Conn, started <-chan struct{}, n int) <-chan error {
	t.Helper()
	errs := make(chan error, n)
	for range n {
		go func() { errs <- c.Call(t.Context(), mcp.MethodToolsCall, &mcp.CallToolParams{Name: "hold"}, nil) }()
	}
	for i := range n {
		select {
		case <-started:
		case err := <-errs:
			t.Fatalf("call %d of %d ended with %v before the others were handled", i+1, n, err)
		}
	}
	return errs
}

// oneMore makes one more call of "hold" on c and returns its error, or fails when the
// server handles it.
func oneMore(t *testing.T, c *jsonrpc.Conn, started <-chan struct{}) error {
	t.Helper()
	err := make(chan error, 1)
	go func() { err <- c.Call(t.Context(), mcp.MethodToolsCall, &mcp.CallToolParams{Name: "hold"}, nil) }()
	select {
	case e := <-err:
		return e
	case <-started:
		t.Fatal("the call past the bound was handled")
		return nil
	}
}

// TestClientRequestsBounded: a client over stdio (here a pipe) has at most
// MaxClientRequests of its requests handled at once (DefaultMaxClientRequests unless
// set); one more is refused at once with -32600 and the sentence jsonrpc writes, and
// once the others are answered requests are taken again. Negative removes the bound.
func TestClientRequestsBounded(t *testing.T) {
	for _, tc := range []struct {
		name  string
		set   int
		bound int
	}{{"default", 0, server.DefaultMaxClientRequests}, {"set", 3, 3}} {
		t.Run(tc.name, func(t *testing.T) {
			srv, started, release := holdServer(t, &server.Options{MaxClientRequests: tc.set})
			c := rawSession(t, srv)
			errs := holdCalls(t, c, started, tc.bound)
			err := oneMore(t, c, started)
			var rerr *jsonrpc.Error
			if !errors.As(err, &rerr) || rerr.Code != jsonrpc.CodeInvalidRequest ||
				rerr.Message != fmt.Sprintf("too many requests: %d requests of yours are waiting for their response; send more once some are answered", tc.bound) {
				t.Fatalf("the call past the bound ended with %v, want the -32600 of too many requests", err)
			}
			close(release)
			for range tc.bound {
				if err := <-errs; err != nil {
					t.Fatalf("a held call ended with %v", err)
				}
			}
			if err := c.Call(t.Context(), mcp.MethodToolsCall, &mcp.CallToolParams{Name: "hold"}, nil); err != nil {
				t.Fatalf("a call once the others were answered: %v", err)
			}
		})
	}
	t.Run("off", func(t *testing.T) {
		srv, started, release := holdServer(t, &server.Options{MaxClientRequests: -1})
		c := rawSession(t, srv)
		errs := holdCalls(t, c, started, server.DefaultMaxClientRequests+1)
		close(release)
		for range server.DefaultMaxClientRequests + 1 {
			if err := <-errs; err != nil {
				t.Fatalf("a held call ended with %v", err)
			}
		}
	})
}

// TestClientRequestBytesBounded: past MaxClientRequestBytes of the params of the requests
// handled, one more is refused with -32600.
func TestClientRequestBytesBounded(t *testing.T) {
	srv, started, release := holdServer(t, &server.Options{MaxClientRequestBytes: 1})
	defer close(release)
	c := rawSession(t, srv)
	holdCalls(t, c, started, 1) // the first is taken whatever its size
	err := oneMore(t, c, started)
	var rerr *jsonrpc.Error
	if !errors.As(err, &rerr) || rerr.Code != jsonrpc.CodeInvalidRequest ||
		!strings.HasPrefix(rerr.Message, "too many requests: the params of the requests of yours waiting for their response come to ") {
		t.Fatalf("the call past the bound ended with %v, want the -32600 of too many requests", err)
	}
}

// TestClientRequestsBoundOverHTTPIsTheTransports: over Streamable HTTP the transport
// bounds a session (HTTPOptions.MaxInFlight): MaxClientRequests does not bound it again.
func TestClientRequestsBoundOverHTTPIsTheTransports(t *testing.T) {
	srv, started, release := holdServer(t, &server.Options{MaxClientRequests: 1})
	ts := serveHTTP(t, srv)
	conn, err := (&transport.HTTPClient{URL: ts.URL}).Connect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	c := initialized(t, conn)
	errs := holdCalls(t, c, started, 3)
	close(release)
	for range 3 {
		if err := <-errs; err != nil {
			t.Fatalf("a held call ended with %v", err)
		}
	}
}
