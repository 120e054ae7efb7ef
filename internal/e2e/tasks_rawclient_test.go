package e2e

import (
	"encoding/json"
	"testing"

	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// TestTaskReceiverIgnoresRequestorMeta: a raw requestor (no mcpi client in the way) adds
// related-task meta naming another task to tasks/get, tasks/result and tasks/cancel. The
// demo server goes by the taskId param, and the results of tasks/get, tasks/list and
// tasks/cancel carry no related-task meta.
func TestTaskReceiverIgnoresRequestorMeta(t *testing.T) {
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		conn, err := h.serve(t, taskServer()).transport().Connect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		c := jsonrpc.NewConn(conn, jsonrpc.Options{})
		t.Cleanup(func() { c.Close() })
		var init mcp.InitializeResult
		if err := c.Call(ctx, mcp.MethodInitialize, &mcp.InitializeParams{
			ProtocolVersion: mcp.LatestProtocolVersion,
			ClientInfo:      mcp.Implementation{Name: "raw", Version: "0"},
		}, &init); err != nil {
			t.Fatal(err)
		}
		if err := c.Notify(ctx, mcp.NotificationInitialized, nil); err != nil {
			t.Fatal(err)
		}
		start := func(name string, args any) string {
			t.Helper()
			var created mcp.CreateTaskResult
			if err := c.Call(ctx, mcp.MethodToolsCall, map[string]any{"name": name, "arguments": args, "task": map[string]any{}}, &created); err != nil {
				t.Fatal(err)
			}
			return created.Task.TaskID
		}
		running := start(demo.ToolSleepTask, map[string]any{"seconds": 600})
		done := start(demo.ToolInstantTask, map[string]any{})
		about := func(id string) map[string]any {
			return map[string]any{mcp.MetaRelatedTask: map[string]any{"taskId": id}}
		}

		// tasks/result names the finished task, its meta the running one.
		var res json.RawMessage
		if err := c.Call(ctx, mcp.MethodTasksResult, map[string]any{"taskId": done, "_meta": about(running)}, &res); err != nil {
			t.Fatal(err)
		}
		if rt, _ := relatedTaskIn(t, res); rt != done {
			t.Errorf("tasks/result answered for %q, want %s: %s", rt, done, res)
		}
		// tasks/get names the running task, its meta the finished one.
		var got json.RawMessage
		if err := c.Call(ctx, mcp.MethodTasksGet, map[string]any{"taskId": running, "_meta": about(done)}, &got); err != nil {
			t.Fatal(err)
		}
		var st mcp.Task
		_ = json.Unmarshal(got, &st)
		if st.TaskID != running || st.Status != mcp.TaskStatusWorking {
			t.Errorf("tasks/get answered %s", got)
		}
		var list json.RawMessage
		if err := c.Call(ctx, mcp.MethodTasksList, map[string]any{}, &list); err != nil {
			t.Fatal(err)
		}
		// tasks/cancel names the running task, its meta the finished one (which cannot
		// be cancelled: were the meta followed, this would fail with -32602).
		var cancelled json.RawMessage
		if err := c.Call(ctx, mcp.MethodTasksCancel, map[string]any{"taskId": running, "_meta": about(done)}, &cancelled); err != nil {
			t.Fatalf("tasks/cancel: %v", err)
		}
		_ = json.Unmarshal(cancelled, &st)
		if st.TaskID != running || st.Status != mcp.TaskStatusCancelled {
			t.Errorf("tasks/cancel answered %s", cancelled)
		}
		for what, raw := range map[string]json.RawMessage{"tasks/get": got, "tasks/list": list, "tasks/cancel": cancelled} {
			if _, has := relatedTaskIn(t, raw); has {
				t.Errorf("the %s result carries related-task meta: %s", what, raw)
			}
		}
		if err := c.Call(ctx, mcp.MethodTasksGet, map[string]any{"taskId": done}, &got); err != nil {
			t.Fatal(err)
		}
		_ = json.Unmarshal(got, &st)
		if st.Status != mcp.TaskStatusCompleted {
			t.Errorf("the task named only in meta changed: %s", got)
		}
	})
}
