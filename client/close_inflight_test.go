package client_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/transport"
)

// TestCallInFlightWhenClosed: a call still waiting for its answer when the session is
// closed fails with an error that matches jsonrpc.ErrClosed, over a stream (as stdio)
// and over Streamable HTTP in both eras, and does not say the request is being sent:
// it went out before. (Over HTTP of 2026-07-28, whose request waits for its answer in
// its POST, it failed with an error of the transport's own that matched nothing.)
func TestCallInFlightWhenClosed(t *testing.T) {
	for _, tc := range []struct {
		name    string
		version string
		http    bool
	}{
		{"stream", mcp.LatestProtocolVersion, false},
		{"http " + mcp.LatestProtocolVersion, mcp.LatestProtocolVersion, true},
		{"http " + mcp.ProtocolVersion20260728, mcp.ProtocolVersion20260728, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := server.New(mcp.Implementation{Name: "s", Version: "1"}, &server.Options{
				Modern: tc.version == mcp.ProtocolVersion20260728,
			})
			t.Cleanup(srv.Close)
			started := make(chan struct{}, 1)
			srv.AddTool(&mcp.Tool{Name: "block"}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
				started <- struct{}{}
				<-ctx.Done()
				return nil, ctx.Err()
			})
			var tr transport.Transport = transport.PipeTransport{Serve: func(ctx context.Context, conn jsonrpc.Connection) error {
				srv.Connect(context.Background(), conn)
				return nil
			}}
			if tc.http {
				ts := httptest.NewServer(srv.HTTPHandler(nil))
				t.Cleanup(ts.Close)
				tr = &transport.HTTPClient{URL: ts.URL}
			}
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			s, err := client.New(mcp.Implementation{Name: "c", Version: "1"}, &client.Options{ProtocolVersion: tc.version}).Connect(ctx, tr)
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() {
				_, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "block"}, nil)
				done <- err
			}()
			select {
			case <-started:
			case <-ctx.Done():
				t.Fatal("the tool was never called")
			}
			s.Close()
			select {
			case err = <-done:
			case <-ctx.Done():
				t.Fatal("the call did not end when the session was closed")
			}
			if !errors.Is(err, jsonrpc.ErrClosed) {
				t.Errorf("the call's error %q (%T) does not match jsonrpc.ErrClosed", err, err)
			}
			if err != nil && strings.Contains(err.Error(), "sending") {
				t.Errorf("the call's error %q says the request is being sent; it was sent before", err)
			}
		})
	}
}
