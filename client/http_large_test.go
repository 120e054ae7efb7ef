package client_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/transport"
)

// TestHTTPMessagesOverRetentionBudget: over Streamable HTTP of 2025-11-25, messages
// larger than what the session keeps for replay (HTTPOptions.MaxRetainedBytes) reach a
// client that is connected and reading: a progress notification and then the response
// of a call, each four times the budget. (The response was dropped as soon as it was
// written, as if its client read too slowly; the stream then ended without it, and its
// resumption was refused.)
func TestHTTPMessagesOverRetentionBudget(t *testing.T) {
	const budget, size = 16 << 10, 64 << 10
	srv := server.New(mcp.Implementation{Name: "s", Version: "1"}, nil)
	t.Cleanup(srv.Close)
	big := strings.Repeat("x", size)
	srv.AddTool(&mcp.Tool{Name: "huge"}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		if err := req.Progress(ctx, 1, nil, big); err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(big)}}, nil
	})
	ts := httptest.NewServer(srv.HTTPHandler(&transport.HTTPOptions{MaxRetainedBytes: budget}))
	t.Cleanup(ts.Close)

	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	s, err := client.New(mcp.Implementation{Name: "c", Version: "1"}, &client.Options{ProtocolVersion: mcp.LatestProtocolVersion}).
		Connect(ctx, &transport.HTTPClient{URL: ts.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sub := s.Subscribe()
	defer sub.Close()
	for i := range 3 { // a few calls: the session's stream numbers and budget move on
		res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "huge"}, &client.CallOptions{Progress: true})
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if len(res.Content) != 1 || res.Content[0].Text != big {
			t.Fatalf("call %d: the result is not the %d bytes of text the tool returned", i, size)
		}
		for {
			ev, ok := sub.Next(ctx)
			if !ok {
				t.Fatalf("call %d: no progress notification", i)
			}
			if p, ok := ev.(*client.ProgressEvent); ok {
				if p.Params.Message != big {
					t.Fatalf("call %d: the progress message has %d bytes, want %d", i, len(p.Params.Message), size)
				}
				break
			}
		}
	}
}
