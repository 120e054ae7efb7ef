package server_test

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
)

// TestStatelessSentinelErrors: over real HTTP, a 2026-07-28 request whose handler
// returns a sentinel (a method handler of Options.Handlers, a tool) gets the standard
// message of its code: the sentinels' own is empty, and "message":"" is no JSON-RPC
// error.
func TestStatelessSentinelErrors(t *testing.T) {
	srv := modernServer(&server.Options{Handlers: map[string]server.MethodHandler{
		mcp.MethodPromptsList: func(context.Context, *server.Session, *jsonrpc.Request) (any, error) {
			return nil, jsonrpc.ErrMethodNotFound
		},
	}})
	defer srv.Close()
	srv.AddTool(&mcp.Tool{Name: "bad"}, func(context.Context, *server.ToolRequest) (*mcp.CallToolResult, error) {
		return nil, jsonrpc.ErrInvalidParams.WithData(map[string]any{"why": "x"})
	})
	ts := serveHTTP(t, srv)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second) // a bound, not a measure
	defer cancel()
	for _, tc := range []struct {
		method string
		params map[string]any
		want   string
	}{
		{mcp.MethodPromptsList, nil, `"error":{"code":-32601,"message":"Method not found"}`},
		{mcp.MethodToolsCall, map[string]any{"name": "bad"}, `"error":{"code":-32602,"message":"Invalid params","data":{"why":"x"}}`},
	} {
		resp := postModern(t, ctx, ts.URL+"/mcp", tc.method, tc.params, nil)
		body, _ := io.ReadAll(resp.Body)
		if !strings.Contains(string(body), tc.want) {
			t.Errorf("%s: %s, want %s", tc.method, body, tc.want)
		}
	}
}
