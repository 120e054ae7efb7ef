package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/tasks"
)

// TestEndedTasksKeepNotTheirCalls: the task engine keeps ended tasks for their TTL (an
// hour by default), up to 1,000 a client; what it keeps of one must not include the call
// the task was made from. The work's context came from the request, arguments and all,
// so a task that held on to it would let a client park a thousand large calls in the
// server's memory for an hour. 32 tasks of 256 KB arguments in each era (and 2026-07-28
// over stateless HTTP, where the work runs on the engine's workers): what stays
// once they have ended (the connection's buffers, grown to the largest message, and
// about a kilobyte a task) is a small part of their 8 MB.
func TestEndedTasksKeepNotTheirCalls(t *testing.T) {
	const calls, size = 32, 256 << 10
	srv := modernServer(&server.Options{Tasks: &tasks.Options{}})
	t.Cleanup(srv.Close)
	srv.AddToolWith(&mcp.Tool{Name: "take", Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("taken")}}, nil
		}, &server.ToolOptions{TaskPolicy: server.TaskAlways})
	// slow_take becomes a task once it has run a millisecond (TaskWhenSlow), while its
	// handler, started on the request, waits for the test.
	release := make(chan struct{})
	srv.AddToolWith(&mcp.Tool{Name: "slow_take"},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			select {
			case <-release:
				return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("taken")}}, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}, &server.ToolOptions{TaskPolicy: server.TaskWhenSlow, TaskAfter: time.Millisecond})
	blob := strings.Repeat("x", size)
	args := json.RawMessage(`{"blob":"` + blob + `"}`)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()

	var modernCalls func(t *testing.T, p *modernPeer, tool string, created func())
	eras := []struct {
		name string
		run  func(t *testing.T) // calls the tool as a task and waits for its result
	}{
		{mcp.LatestProtocolVersion, func(t *testing.T) {
			c := rawSession(t, srv)
			call := func() {
				var created mcp.CreateTaskResult
				call := &mcp.CallToolParams{Name: "take", Arguments: args, Task: &mcp.TaskMetadata{}}
				if err := c.Call(ctx, mcp.MethodToolsCall, call, &created); err != nil {
					t.Fatal(err)
				}
				var res mcp.CallToolResult
				if err := c.Call(ctx, mcp.MethodTasksResult, &mcp.TaskResultParams{TaskID: created.Task.TaskID}, &res); err != nil {
					t.Fatal(err)
				}
				if len(res.Content) != 1 || res.Content[0].Text != "taken" {
					t.Fatalf("result %+v", res)
				}
			}
			for range calls {
				call()
			}
		}},
		{mcp.ProtocolVersion20260728, func(t *testing.T) { modernCalls(t, newModernPeer(t, srv), "take", nil) }},
		{mcp.ProtocolVersion20260728 + " when slow", func(t *testing.T) {
			modernCalls(t, newModernPeer(t, srv), "slow_take", func() { release <- struct{}{} })
		}},
		{mcp.ProtocolVersion20260728 + " over HTTP", func(t *testing.T) {
			h := srv.HTTPHandler(nil)
			ts := httptest.NewServer(h)
			defer ts.Close()
			defer h.Close()
			post := func(method string, params map[string]any) map[string]json.RawMessage {
				params["_meta"] = meta(extCaps)
				hdr := map[string]string{}
				if id, ok := params["taskId"].(string); ok {
					hdr["Mcp-Name"] = id
				}
				resp := postModern(t, ctx, ts.URL+"/mcp", method, params, hdr)
				defer resp.Body.Close()
				body, _ := io.ReadAll(resp.Body)
				if d, ok := bytes.CutPrefix(bytes.TrimSpace(body), []byte("event: message\ndata: ")); ok {
					body = d
				}
				var m struct{ Result map[string]json.RawMessage }
				if err := json.Unmarshal(body, &m); err != nil || m.Result == nil {
					t.Fatalf("%s: %v: %.200s", method, err, body)
				}
				return m.Result
			}
			for range calls {
				r := post(mcp.MethodToolsCall, map[string]any{"name": "take", "arguments": args})
				id := str(r["taskId"])
				for st := str(r["status"]); st != string(mcp.TaskStatusCompleted); st = str(r["status"]) {
					if ctx.Err() != nil {
						t.Fatalf("task %s stays %s", id, st)
					}
					r = post(mcp.MethodTasksGet, map[string]any{"taskId": id})
				}
			}
			http.DefaultClient.CloseIdleConnections()
		}},
	}
	modernCalls = func(t *testing.T, p *modernPeer, tool string, created func()) {
		for range calls {
			r, rerr := p.tool(tool, extCaps, map[string]any{"arguments": args})
			if rerr != nil {
				t.Fatal(rerr)
			}
			if str(r["resultType"]) != string(mcp.ResultTypeTask) {
				t.Fatalf("%s answered %v, not a task", tool, r)
			}
			if created != nil {
				created()
			}
			done := p.waitStatus(str(r["taskId"]), mcp.TaskStatusCompleted)
			var res mcp.CallToolResult
			if err := json.Unmarshal(done["result"], &res); err != nil || len(res.Content) != 1 || res.Content[0].Text != "taken" {
				t.Fatalf("result %s: %v", done["result"], err)
			}
		}
	}
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			before := liveHeap()
			era.run(t)
			if n := srv.Tasks().Len(); n < calls {
				t.Fatalf("the engine keeps %d tasks, want the %d that ended", n, calls)
			}
			kept := liveHeap() - before
			t.Logf("%d ended tasks of %d KB arguments keep %d KB live", calls, size>>10, kept>>10)
			if kept > calls*size/4 {
				t.Fatalf("%d ended tasks of %d KB arguments keep %d KB live, want under %d KB", calls, size>>10, kept>>10, calls*size/4>>10)
			}
		})
	}
}

// liveHeap is the live heap after a collection.
func liveHeap() int {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int(ms.HeapAlloc)
}
