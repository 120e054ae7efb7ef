package server_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/tasks"
	"github.com/mcpi-dev/mcpi/transport"
)

// rawSession is a server session over an in-memory pipe, driven by a bare JSON-RPC
// connection: what a benchmark of the server should pay for, and little else.
func rawSession(tb testing.TB, srv *server.Server) *jsonrpc.Conn {
	tb.Helper()
	a, b := transport.Pipe()
	srv.Connect(context.Background(), a)
	c := jsonrpc.NewConn(b, jsonrpc.Options{})
	tb.Cleanup(func() { c.Close() })
	var init mcp.InitializeResult
	if err := c.Call(context.Background(), mcp.MethodInitialize, &mcp.InitializeParams{ProtocolVersion: mcp.LatestProtocolVersion}, &init); err != nil {
		tb.Fatal(err)
	}
	if err := c.Notify(context.Background(), mcp.NotificationInitialized, nil); err != nil {
		tb.Fatal(err)
	}
	return c
}

func instantServer() *server.Server {
	srv := server.New(mcp.Implementation{Name: "bench", Version: "1"}, &server.Options{
		Tasks: &tasks.Options{MaxActive: 1 << 20, RatePerSecond: -1},
	})
	srv.AddTool(&mcp.Tool{Name: "instant", Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("done")}}, nil
		})
	return srv
}

// BenchmarkTaskRoundTrip: tools/call as a task, then tasks/result, as the bench's task
// workload does (without the status notification's handling on the client).
func BenchmarkTaskRoundTrip(b *testing.B) {
	srv := instantServer()
	defer srv.Close()
	c := rawSession(b, srv)
	ctx := context.Background()
	call := &mcp.CallToolParams{Name: "instant", Task: &mcp.TaskMetadata{}}
	b.ReportAllocs()
	for b.Loop() {
		var created mcp.CreateTaskResult
		if err := c.Call(ctx, mcp.MethodToolsCall, call, &created); err != nil {
			b.Fatal(err)
		}
		var res json.RawMessage
		if err := c.Call(ctx, mcp.MethodTasksResult, &mcp.TaskResultParams{TaskID: created.Task.TaskID}, &res); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCallRoundTrip is the plain tools/call, for comparison.
func BenchmarkCallRoundTrip(b *testing.B) {
	srv := instantServer()
	defer srv.Close()
	c := rawSession(b, srv)
	ctx := context.Background()
	call := &mcp.CallToolParams{Name: "instant"}
	b.ReportAllocs()
	for b.Loop() {
		var res json.RawMessage
		if err := c.Call(ctx, mcp.MethodToolsCall, call, &res); err != nil {
			b.Fatal(err)
		}
	}
}
