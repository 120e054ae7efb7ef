package server_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/tasks"
	"github.com/mcpi-dev/mcpi/transport"
)

// rawSession is a server session over an in-memory pipe, driven by a bare JSON-RPC
// connection: what a benchmark of the server should pay for, and little else. The client
// declares what the one of BenchmarkCallRoundTrip2026 sends with every request.
func rawSession(tb testing.TB, srv *server.Server) *jsonrpc.Conn {
	tb.Helper()
	a, b := transport.Pipe()
	srv.Connect(context.Background(), a)
	c := jsonrpc.NewConn(b, jsonrpc.Options{})
	tb.Cleanup(func() { c.Close() })
	var init mcp.InitializeResult
	params := &mcp.InitializeParams{ProtocolVersion: mcp.LatestProtocolVersion, ClientInfo: mcp.Implementation{Name: "bench", Version: "1"},
		Capabilities: mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{}, Sampling: &mcp.SamplingCapability{}}}
	if err := c.Call(context.Background(), mcp.MethodInitialize, params, &init); err != nil {
		tb.Fatal(err)
	}
	if err := c.Notify(context.Background(), mcp.NotificationInitialized, nil); err != nil {
		tb.Fatal(err)
	}
	return c
}

func instantServer() *server.Server {
	srv := server.New(mcp.Implementation{Name: "bench", Version: "1"}, &server.Options{
		Tasks:  &tasks.Options{MaxActive: 1 << 20, RatePerSecond: -1},
		Modern: true,
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

// BenchmarkCallRoundTrip2026 is BenchmarkCallRoundTrip in 2026-07-28 on one connection:
// the client's version, capabilities and name in _meta of every request (what the
// client of BenchmarkCallRoundTrip declared once, at initialize), read on every request,
// and resultType added to every result.
func BenchmarkCallRoundTrip2026(b *testing.B) {
	srv := instantServer()
	defer srv.Close()
	a, bb := transport.Pipe()
	srv.Connect(context.Background(), a)
	c := jsonrpc.NewConn(bb, jsonrpc.Options{})
	defer c.Close()
	ctx := context.Background()
	call := json.RawMessage(callParams2026)
	b.ReportAllocs()
	for b.Loop() {
		var res json.RawMessage
		if err := c.Call(ctx, mcp.MethodToolsCall, call, &res); err != nil {
			b.Fatal(err)
		}
	}
}

// callParams2026 are the params of BenchmarkCallRoundTrip2026's tools/call: what a
// 2026-07-28 client sends with every request.
const callParams2026 = `{"name":"instant","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
	`"io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"sampling":{}},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"}}}`

// BenchmarkPipeRoundTrip is the round trip of BenchmarkCallRoundTrip and
// BenchmarkCallRoundTrip2026 without the server: the same params over the same pipe to a
// bare jsonrpc.Conn that answers with the same result bytes. What the bigger request of
// 2026-07-28 costs the JSON-RPC layer and the transport alone.
func BenchmarkPipeRoundTrip(b *testing.B) {
	for _, tc := range []struct{ name, params, result string }{
		{"2025", `{"name":"instant"}`, `{"content":[{"type":"text","text":"done"}]}`},
		{"2026", callParams2026, `{"resultType":"complete","content":[{"type":"text","text":"done"}]}`},
	} {
		b.Run(tc.name, func(b *testing.B) {
			a, bb := transport.Pipe()
			result := json.RawMessage(tc.result)
			srv := jsonrpc.NewConn(a, jsonrpc.Options{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
				return result, nil
			})})
			defer srv.Close()
			c := jsonrpc.NewConn(bb, jsonrpc.Options{})
			defer c.Close()
			params := json.RawMessage(tc.params)
			b.ReportAllocs()
			for b.Loop() {
				var res json.RawMessage
				if err := c.Call(context.Background(), mcp.MethodToolsCall, params, &res); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkHTTPCall2025 and BenchmarkHTTPCall2026: tools/call over Streamable HTTP, in a
// 2025-11-25 session and as stateless 2026-07-28 requests (a connection of its own each).
func BenchmarkHTTPCall2025(b *testing.B) { benchHTTPCall(b, false) }
func BenchmarkHTTPCall2026(b *testing.B) { benchHTTPCall(b, true) }

func benchHTTPCall(b *testing.B, modern bool) {
	srv := server.New(mcp.Implementation{Name: "bench", Version: "1"}, &server.Options{Modern: true})
	defer srv.Close()
	srv.AddTool(&mcp.Tool{Name: "instant"}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("done")}}, nil
	})
	h := srv.HTTPHandler(&transport.HTTPOptions{JSONResponse: !modern})
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer h.Close()
	post := func(body string, hdr map[string]string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	hdr := map[string]string{}
	body := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"instant"}}`
	if modern {
		hdr = map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "instant"}
		body = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"instant","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
			`"io.modelcontextprotocol/clientCapabilities":{}}}}`
	} else {
		resp := post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`, nil)
		hdr = map[string]string{transport.HeaderSessionID: resp.Header.Get(transport.HeaderSessionID), "MCP-Protocol-Version": "2025-11-25"}
		post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, hdr)
	}
	b.ReportAllocs()
	for b.Loop() {
		if resp := post(body, hdr); resp.StatusCode != http.StatusOK {
			b.Fatalf("HTTP %d", resp.StatusCode)
		}
	}
}

// BenchmarkTaskChangeAmongListens is one task's change (a new statusMessage) while 50
// listens each name 2,000 other tasks. The engine announces a change under its lock, so
// finding the listens of the changed task must not walk every listen's ids: a client
// may open many listens, each naming up to a hundred thousand tasks.
func BenchmarkTaskChangeAmongListens(b *testing.B) {
	const held, listens = 2000, 50
	srv := server.New(mcp.Implementation{Name: "bench", Version: "1"}, &server.Options{
		Tasks:  &tasks.Options{MaxActive: 1 << 20, MaxActiveTotal: 1 << 20, RatePerSecond: -1},
		Modern: true,
	})
	defer srv.Close()
	srv.AddToolWith(&mcp.Tool{Name: "hold"}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		<-ctx.Done()
		return &mcp.CallToolResult{}, nil
	}, &server.ToolOptions{TaskPolicy: server.TaskAlways})
	poke, stepped := make(chan struct{}), make(chan error)
	srv.AddToolWith(&mcp.Tool{Name: "step"}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		h, _ := server.TaskFromContext(ctx)
		for {
			select {
			case <-poke:
				stepped <- h.SetStatus(mcp.TaskStatusWorking, "a step")
			case <-ctx.Done():
				return &mcp.CallToolResult{}, nil
			}
		}
	}, &server.ToolOptions{TaskPolicy: server.TaskAlways})
	a, bb := transport.Pipe()
	srv.Connect(context.Background(), a)
	c := jsonrpc.NewConn(bb, jsonrpc.Options{}) // notifications are dropped
	defer c.Close()
	ctx := context.Background()
	ext := json.RawMessage(`{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"}}`)
	start := func(name string) string {
		var res struct{ TaskID string }
		if err := c.Call(ctx, mcp.MethodToolsCall, map[string]any{"name": name, "_meta": ext}, &res); err != nil || res.TaskID == "" {
			b.Fatalf("%s: %v %+v", name, err, res)
		}
		return res.TaskID
	}
	ids := make([]string, held)
	for i := range ids {
		ids[i] = start("hold")
	}
	start("step")
	for range listens {
		params := map[string]any{"_meta": ext, "notifications": map[string]any{"taskIds": ids}}
		if err := c.Go(ctx, mcp.MethodSubscriptionsListen, params, func(json.RawMessage, error) {}); err != nil {
			b.Fatal(err)
		}
	}
	for srv.Listeners() < listens {
		runtime.Gosched()
	}
	for b.Loop() {
		poke <- struct{}{}
		if err := <-stepped; err != nil {
			b.Fatal(err)
		}
	}
}
