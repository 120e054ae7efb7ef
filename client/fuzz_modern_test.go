package client_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/transport"
)

// FuzzModernResults plays a hostile server of 2026-07-28: after a proper server/discover,
// it answers every tools/call (first call and MRTR retries) and every tasks/get with the
// input, whatever it holds (a result of any resultType, input requests of any shape, a
// task of any fields). A plain call and a task call must each end, with a result or an
// error, before their deadline: nothing a server answers may panic the client, wedge it
// or make it spin.
func FuzzModernResults(f *testing.F) {
	for _, seed := range []string{
		`{"content":[{"type":"text","text":"ok"}]}`,
		`{"resultType":"complete","content":[]}`,
		`{"resultType":"surprise"}`,
		`{"resultType":17}`,
		`{"resultType":"input_required"}`,
		`{"resultType":"input_required","requestState":"s"}`,
		`{"resultType":"input_required","inputRequests":{"a":{"method":"elicitation/create","params":{"message":"?","requestedSchema":{"type":"object"}}}}}`,
		`{"resultType":"input_required","inputRequests":{"a":{"method":"sampling/createMessage","params":{"messages":[],"maxTokens":1}},"b":{"method":"roots/list"}}}`,
		`{"resultType":"input_required","inputRequests":{"a":{"method":"tools/call"},"b":null,"c":7}}`,
		`{"resultType":"task","taskId":"t","status":"working","createdAt":"x","lastUpdatedAt":"y","ttlMs":null,"pollIntervalMs":1}`,
		`{"resultType":"task","taskId":"t","status":"input_required","createdAt":"x","lastUpdatedAt":"y","ttlMs":1,"inputRequests":{"k":{"method":"elicitation/create","params":{"message":"?","requestedSchema":{"type":"object"}}}}}`,
		`{"resultType":"task","taskId":"t","status":"completed","createdAt":"x","lastUpdatedAt":"y","ttlMs":1,"result":{"content":[]}}`,
		`{"resultType":"task","taskId":"t","status":"failed","createdAt":"x","lastUpdatedAt":"y","ttlMs":1,"error":{"code":-1,"message":"no"}}`,
		`{"resultType":"task","taskId":"","status":"bogus","ttlMs":-9,"pollIntervalMs":9000000000000}`,
		`{"resultType":"task","taskId":"t","status":"working","pollIntervalMs":-1,"ttlMs":1e300}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return // the connection's framing is fuzzed elsewhere; this is about results
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		tr := transport.PipeTransport{Serve: func(_ context.Context, conn jsonrpc.Connection) error {
			go hostileModernServer(ctx, conn, data)
			return nil
		}}
		s, err := client.New(mcp.Implementation{Name: "fuzz", Version: "0"}, &client.Options{
			ProtocolVersion: mcp.ProtocolVersion20260728,
			MaxInputRounds:  3,
			PollFloor:       time.Millisecond,
			MaxPollInterval: 5 * time.Millisecond,
			OnRequest: func(_ context.Context, r *client.Request) {
				if r.Elicitation != nil {
					_ = r.Decline()
					return
				}
				_ = r.Refuse("no")
			},
		}).Connect(ctx, tr)
		if err != nil {
			t.Fatalf("connect: %v", err)
		}
		defer s.Close()
		p := &mcp.CallToolParams{Name: "x"}
		callCtx, stop := context.WithTimeout(ctx, 2*time.Second)
		_, _ = s.CallTool(callCtx, p, nil)
		hung := callCtx.Err() != nil && ctx.Err() == nil
		stop()
		if hung {
			t.Fatal("a plain call did not end before its deadline")
		}
		taskCtx, stop := context.WithTimeout(ctx, 2*time.Second)
		defer stop()
		task, err := s.StartToolTask(taskCtx, p, nil)
		if err != nil {
			return
		}
		if _, err := task.Wait(taskCtx); err != nil && taskCtx.Err() != nil {
			// A task the server keeps working is followed until its ttl: that it is still
			// followed is right, as long as it is polled, not spun on.
			if task.Polls() > 2000 {
				t.Fatalf("task polled %d times in 2s", task.Polls())
			}
		}
	})
}

// hostileModernServer answers server/discover properly, tools/list with one tool, and
// tools/call and tasks/get with data; every other request with an empty result.
func hostileModernServer(ctx context.Context, conn jsonrpc.Connection, data []byte) {
	context.AfterFunc(ctx, func() { conn.Close() })
	discover, _ := json.Marshal(mcp.DiscoverResult{ResultType: mcp.ResultTypeComplete, SupportedVersions: []string{mcp.ProtocolVersion20260728},
		Capabilities: mcp.ServerCapabilities{Extensions: map[string]json.RawMessage{mcp.ExtensionTasks: json.RawMessage(`{}`)}}})
	for {
		m, err := conn.Read(ctx)
		if err != nil {
			return
		}
		req, ok := m.(*jsonrpc.Request)
		if !ok || req.IsNotification() {
			continue
		}
		var result json.RawMessage
		switch req.Method {
		case mcp.MethodServerDiscover:
			result = discover
		case mcp.MethodToolsList:
			result = json.RawMessage(`{"tools":[{"name":"x","inputSchema":{"type":"object"}}]}`)
		case mcp.MethodToolsCall, mcp.MethodTasksGet:
			result = data
		default:
			result = json.RawMessage(`{"resultType":"complete"}`)
		}
		if err := conn.Write(ctx, &jsonrpc.Response{ID: req.ID, Result: result}); err != nil {
			return
		}
	}
}
