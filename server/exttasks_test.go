package server_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/tasks"
)

const extCaps = `{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}`

func taskServer(t *testing.T) (*server.Server, chan struct{}) {
	srv := modernServer(&server.Options{Tasks: &tasks.Options{}})
	t.Cleanup(srv.Close)
	release := make(chan struct{})
	add := func(name string, policy server.TaskPolicy, h server.ToolHandler) {
		srv.AddToolWith(&mcp.Tool{Name: name}, h, &server.ToolOptions{TaskPolicy: policy, TaskAfter: 200 * time.Millisecond})
	}
	add("quick", server.TaskWhenSlow, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("quick")}}, nil
	})
	add("slow", server.TaskWhenSlow, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		select {
		case <-release:
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("slow done")}}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	add("tool_error", server.TaskRequired, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{mcp.TextContent("nope")}}, nil
	})
	add("rpc_error", server.TaskRequired, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		return nil, jsonrpc.NewError(-32603, "broke")
	})
	add("panics", server.TaskAlways, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		panic("boom")
	})
	add("two_questions", server.TaskAlways, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		form := json.RawMessage(`{"message":"?","requestedSchema":{"type":"object"}}`)
		out, err := req.Session.Inputs(ctx, map[string]mcp.InputRequest{"a": {Method: mcp.MethodElicitationCreate, Params: form}, "b": {Method: mcp.MethodElicitationCreate, Params: form}})
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(string(out["a"]) + string(out["b"]))}}, nil
	})
	add("mrtr_then_task", server.TaskAfterInput, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		r, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "name?", RequestedSchema: json.RawMessage(`{"type":"object"}`)})
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("hi " + r.Content["name"].(string))}}, nil
	})
	return srv, release
}

func (p *modernPeer) tool(name, caps string, extra map[string]any) (map[string]json.RawMessage, *jsonrpc.Error) {
	params := map[string]any{"name": name, "_meta": meta(caps)}
	for k, v := range extra {
		params[k] = v
	}
	return p.call(mcp.MethodToolsCall, params)
}

func (p *modernPeer) task(method, id string, extra map[string]any) (map[string]json.RawMessage, *jsonrpc.Error) {
	params := map[string]any{"taskId": id, "_meta": meta(extCaps)}
	for k, v := range extra {
		params[k] = v
	}
	return p.call(method, params)
}

// waitStatus polls tasks/get until the task has status want.
func (p *modernPeer) waitStatus(id string, want mcp.TaskStatus) map[string]json.RawMessage {
	p.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		r, rerr := p.task(mcp.MethodTasksGet, id, nil)
		if rerr != nil {
			p.t.Fatalf("tasks/get %s: %v", id, rerr)
		}
		if str(r["status"]) == string(want) {
			return r
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("task %s stays %s, want %s", id, r["status"], want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestExtTasks(t *testing.T) {
	srv, release := taskServer(t)
	p := newModernPeer(t, srv)
	d, _ := p.call(mcp.MethodServerDiscover, nil)
	if !strings.Contains(string(d["capabilities"]), `"extensions":{"io.modelcontextprotocol/tasks":{}}`) || strings.Contains(string(d["capabilities"]), `"tasks":{"`) {
		t.Errorf("capabilities %s", d["capabilities"])
	}

	// Without the extension: no task, ever.
	if r, rerr := p.tool("quick", `{}`, nil); rerr != nil || str(r["resultType"]) != "complete" {
		t.Errorf("quick without the extension: %s %v", r, rerr)
	}
	if _, rerr := p.tool("tool_error", `{}`, nil); rerr == nil || rerr.Code != mcp.CodeMissingRequiredClientCapability ||
		!strings.Contains(string(rerr.Data), `"extensions":{"io.modelcontextprotocol/tasks":{}}`) {
		t.Errorf("an always-task tool without the extension: %v %s", rerr, rerrData(rerr))
	}
	if r, rerr := p.tool("two_questions", `{"elicitation":{}}`, nil); rerr != nil || str(r["resultType"]) != "input_required" {
		t.Errorf("an always-task tool without the extension runs inline, asking through MRTR: %s %v", r, rerr)
	}
	if _, rerr := p.call(mcp.MethodTasksGet, map[string]any{"taskId": "x"}); rerr == nil || rerr.Code != mcp.CodeMissingRequiredClientCapability {
		t.Errorf("tasks/get without the extension: %v", rerr)
	}
	for _, m := range []string{mcp.MethodTasksResult, mcp.MethodTasksList} {
		if _, rerr := p.task(m, "x", nil); rerr == nil || rerr.Code != jsonrpc.CodeMethodNotFound {
			t.Errorf("%s: %v, want -32601", m, rerr)
		}
	}

	// Quick calls answer inline, slow ones become tasks.
	if r, rerr := p.tool("quick", extCaps, map[string]any{"task": map[string]any{"ttl": 1000}}); rerr != nil || str(r["resultType"]) != "complete" {
		t.Errorf("quick: %s %v", r, rerr)
	}
	c, rerr := p.tool("slow", extCaps, nil)
	if rerr != nil || str(c["resultType"]) != "task" || str(c["status"]) != "working" || c["task"] != nil || c["ttlMs"] == nil {
		t.Fatalf("slow: %s %v", c, rerr)
	}
	id := str(c["taskId"])
	if g := p.waitStatus(id, mcp.TaskStatusWorking); str(g["resultType"]) != "complete" || g["result"] != nil {
		t.Errorf("working: %s", g)
	}
	close(release)
	if g := p.waitStatus(id, mcp.TaskStatusCompleted); !strings.Contains(string(g["result"]), "slow done") {
		t.Errorf("completed: %s", g)
	}
	if r, rerr := p.task(mcp.MethodTasksCancel, id, nil); rerr != nil || string(mustJSON(r)) != `{"resultType":"complete"}` {
		t.Errorf("cancel of a finished task: %s %v", r, rerr)
	}

	// isError completes; a JSON-RPC error fails.
	c, _ = p.tool("tool_error", extCaps, nil)
	if g := p.waitStatus(str(c["taskId"]), mcp.TaskStatusCompleted); !strings.Contains(string(g["result"]), `"isError":true`) {
		t.Errorf("tool error: %s", g)
	}
	c, _ = p.tool("rpc_error", extCaps, nil)
	if g := p.waitStatus(str(c["taskId"]), mcp.TaskStatusFailed); !strings.Contains(string(g["error"]), `"code":-32603`) || g["result"] != nil {
		t.Errorf("rpc error: %s", g)
	}
	// A tool that panics in its task fails the task; the session goes on.
	c, _ = p.tool("panics", extCaps, nil)
	if g := p.waitStatus(str(c["taskId"]), mcp.TaskStatusFailed); !strings.Contains(string(g["error"]), `"message":"internal error in tool panics"`) {
		t.Errorf("panic: %s", g)
	}

	// Input through the task, answered in parts.
	c, _ = p.tool("two_questions", extCaps, nil)
	id = str(c["taskId"])
	g := p.waitStatus(id, mcp.TaskStatusInputRequired)
	if !strings.Contains(string(g["inputRequests"]), `"a":`) || !strings.Contains(string(g["inputRequests"]), `"b":`) {
		t.Fatalf("input_required: %s", g)
	}
	accept := map[string]any{"action": "accept", "content": map[string]any{"x": 1}}
	if r, rerr := p.task(mcp.MethodTasksUpdate, id, map[string]any{"inputResponses": map[string]any{"a": accept, "unknown": accept}}); rerr != nil || str(r["resultType"]) != "complete" {
		t.Errorf("update: %s %v", r, rerr)
	}
	g, _ = p.task(mcp.MethodTasksGet, id, nil)
	if str(g["status"]) != "input_required" || strings.Contains(string(g["inputRequests"]), `"a":`) || !strings.Contains(string(g["inputRequests"]), `"b":`) {
		t.Errorf("after a partial update: %s", g)
	}
	p.task(mcp.MethodTasksUpdate, id, map[string]any{"inputResponses": map[string]any{"b": accept}})
	p.waitStatus(id, mcp.TaskStatusCompleted)

	// MRTR first, then a task with the answer.
	r1, _ := p.tool("mrtr_then_task", extCaps, nil)
	if str(r1["resultType"]) != "input_required" || r1["taskId"] != nil {
		t.Fatalf("round 1: %s", r1)
	}
	r2, rerr := p.tool("mrtr_then_task", extCaps, map[string]any{"requestState": str(r1["requestState"]),
		"inputResponses": map[string]any{"elicitation-1": map[string]any{"action": "accept", "content": map[string]any{"name": "Alice"}}}})
	if rerr != nil || str(r2["resultType"]) != "task" || r2["requestState"] != nil {
		t.Fatalf("round 2: %s %v", r2, rerr)
	}
	if g := p.waitStatus(str(r2["taskId"]), mcp.TaskStatusCompleted); !strings.Contains(string(g["result"]), "hi Alice") {
		t.Errorf("composed: %s", g)
	}

	// Cancelling a running task; unknown ids.
	c, _ = p.tool("slow", extCaps, nil)
	if str(c["resultType"]) == "task" {
		// release is closed: slow may finish before the cancel; either end is fine.
		p.task(mcp.MethodTasksCancel, str(c["taskId"]), nil)
	}
	for _, m := range []string{mcp.MethodTasksGet, mcp.MethodTasksCancel} {
		if _, rerr := p.task(m, "no-such-task", nil); rerr == nil || rerr.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("%s of an unknown task: %v", m, rerr)
		}
	}
}

func TestExtTaskCancelAndEras(t *testing.T) {
	srv, _ := taskServer(t)
	p := newModernPeer(t, srv)
	c, _ := p.tool("slow", extCaps, nil)
	id := str(c["taskId"])
	if r, rerr := p.task(mcp.MethodTasksCancel, id, nil); rerr != nil || str(r["resultType"]) != "complete" {
		t.Fatalf("cancel: %s %v", r, rerr)
	}
	p.waitStatus(id, mcp.TaskStatusCancelled)

	// A 2025-11-25 session cannot reach it, and is told why.
	q := newModernPeer(t, srv)
	var init mcp.InitializeResult
	if err := q.conn.Call(t.Context(), mcp.MethodInitialize, &mcp.InitializeParams{ProtocolVersion: mcp.LatestProtocolVersion}, &init); err != nil {
		t.Fatal(err)
	}
	err := q.conn.Call(t.Context(), mcp.MethodTasksGet, &mcp.GetTaskParams{TaskID: id}, nil)
	if err == nil || !strings.Contains(err.Error(), "2026-07-28") {
		t.Errorf("2025 tasks/get of a 2026 task: %v", err)
	}

	// A 2025-11-25 task is its session's, which a 2026-07-28 request has not: it gets
	// what an unknown id gets, not that the task exists in the other era.
	srv.AddTool(&mcp.Tool{Name: "legacy_wait", Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})
	var created mcp.CreateTaskResult
	if err := q.conn.Call(t.Context(), mcp.MethodToolsCall, &mcp.CallToolParams{Name: "legacy_wait", Task: &mcp.TaskMetadata{}}, &created); err != nil {
		t.Fatal(err)
	}
	old := created.Task.TaskID
	for _, m := range []string{mcp.MethodTasksGet, mcp.MethodTasksCancel} {
		_, unknown := p.task(m, "no-such-task", nil)
		_, rerr := p.task(m, old, nil)
		want := strings.ReplaceAll(unknown.Error(), "no-such-task", old)
		if rerr == nil || rerr.Error() != want || rerr.Data != nil {
			t.Errorf("2026 %s of a 2025 task: %v (data %s), want %q", m, rerr, rerrData(rerr), want)
		}
	}
}

func mustJSON(m map[string]json.RawMessage) []byte {
	b, _ := json.Marshal(m)
	return b
}

func TestExtTaskNotifications(t *testing.T) {
	srv, release := taskServer(t)
	p := newModernPeer(t, srv)
	c, _ := p.tool("slow", extCaps, nil)
	id := str(c["taskId"])
	if _, rerr := p.call(mcp.MethodSubscriptionsListen, map[string]any{"_meta": meta(`{}`), "notifications": map[string]any{"taskIds": []string{id}}}); rerr == nil || rerr.Code != mcp.CodeMissingRequiredClientCapability {
		t.Errorf("listen for tasks without the extension: %v", rerr)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go p.conn.Call(ctx, mcp.MethodSubscriptionsListen, map[string]any{"_meta": meta(extCaps),
		"notifications": map[string]any{"taskIds": []string{id, "unknown"}}}, nil)
	if ack := p.nextNote(); ack.Method != mcp.NotificationSubscriptionsAcknowledged || !strings.Contains(string(ack.Params), `"taskIds":["`+id+`"]`) {
		t.Errorf("ack %s %s", ack.Method, ack.Params)
	}
	close(release)
	// The listen first sends the task as it is (working, or completed already).
	n := p.nextNote()
	if strings.Contains(string(n.Params), `"status":"working"`) {
		n = p.nextNote()
	}
	if n.Method != mcp.NotificationTasks || !strings.Contains(string(n.Params), `"status":"completed"`) ||
		!strings.Contains(string(n.Params), "slow done") || !strings.Contains(string(n.Params), mcp.MetaSubscriptionID) {
		t.Errorf("notification %s %s", n.Method, n.Params)
	}
}

// Many tasks of the extension ending at once while a listen follows them all: every
// end is announced, with its result, and nothing deadlocks (the notifications are built
// from the state the engine took under its own lock).
func TestExtTaskNotificationsUnderLoad(t *testing.T) {
	srv := modernServer(&server.Options{Tasks: &tasks.Options{}})
	t.Cleanup(srv.Close)
	release := make(chan struct{})
	srv.AddToolWith(&mcp.Tool{Name: "wait"}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		select {
		case <-release:
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("released")}}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}, &server.ToolOptions{TaskPolicy: server.TaskRequired})
	p := newModernPeer(t, srv)
	const n = 40
	var ids []string
	for range n {
		c, rerr := p.tool("wait", extCaps, nil)
		if rerr != nil {
			t.Fatal(rerr)
		}
		ids = append(ids, str(c["taskId"]))
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go p.conn.Call(ctx, mcp.MethodSubscriptionsListen, map[string]any{"_meta": meta(extCaps),
		"notifications": map[string]any{"taskIds": ids}}, nil)
	completed := map[string]bool{}
	deadline := time.After(10 * time.Second)
	released := false
	for len(completed) < n {
		select {
		case note := <-p.notes:
			if note.Method == mcp.NotificationSubscriptionsAcknowledged && !released {
				released = true
				close(release)
			}
			var d mcp.DetailedTask
			if note.Method == mcp.NotificationTasks && json.Unmarshal(note.Params, &d) == nil && d.Status == mcp.TaskStatusCompleted {
				if !strings.Contains(string(d.Result), "released") {
					t.Errorf("completed without its result: %s", note.Params)
				}
				completed[d.TaskID] = true
			}
		case <-deadline:
			t.Fatalf("%d of %d tasks announced completed", len(completed), n)
		}
	}
}

// A task of the extension sends no progress and no log messages, even when its request
// asked for them; the same handler run inline sends both.
func TestExtTaskSendsNoProgressOrLogs(t *testing.T) {
	srv := modernServer(&server.Options{Tasks: &tasks.Options{}})
	t.Cleanup(srv.Close)
	chatty := func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		_ = req.Progress(ctx, 1, nil, "step")
		_ = req.Session.Log(ctx, mcp.LoggingLevelInfo, "chatty", "working")
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("said it")}}, nil
	}
	srv.AddToolWith(&mcp.Tool{Name: "inline"}, chatty, &server.ToolOptions{TaskPolicy: server.TaskNever})
	srv.AddToolWith(&mcp.Tool{Name: "task"}, chatty, &server.ToolOptions{TaskPolicy: server.TaskRequired})
	p := newModernPeer(t, srv)
	m := meta(extCaps, mcp.MetaLogLevel, "debug")
	m["progressToken"] = "tok"
	drain := func() (methods []string) {
		for {
			select {
			case n := <-p.notes:
				methods = append(methods, n.Method)
			case <-time.After(100 * time.Millisecond):
				return methods
			}
		}
	}
	if _, rerr := p.call(mcp.MethodToolsCall, map[string]any{"name": "inline", "_meta": m}); rerr != nil {
		t.Fatal(rerr)
	}
	if got := drain(); len(got) != 2 {
		t.Fatalf("inline: notifications %v, want progress and a log message (the test's own check)", got)
	}
	c, rerr := p.call(mcp.MethodToolsCall, map[string]any{"name": "task", "_meta": m})
	if rerr != nil || str(c["resultType"]) != "task" {
		t.Fatalf("task: %s %v", mustJSON(c), rerr)
	}
	p.waitStatus(str(c["taskId"]), mcp.TaskStatusCompleted)
	if got := drain(); len(got) != 0 {
		t.Errorf("a task of the extension sent %v", got)
	}
}

// A slow call whose handler asks a question right at the promotion deadline either
// answers input_required inline or becomes a task that asks it through inputRequests;
// never a task that fails for want of MRTR.
func TestExtTaskQuestionAtTheDeadline(t *testing.T) {
	srv := modernServer(&server.Options{Tasks: &tasks.Options{}})
	t.Cleanup(srv.Close)
	srv.AddToolWith(&mcp.Tool{Name: "late_question"}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		var args struct {
			Micros int `json:"micros"`
		}
		_ = req.Arguments(&args)
		time.Sleep(time.Duration(args.Micros) * time.Microsecond)
		out, err := req.Session.Inputs(ctx, map[string]mcp.InputRequest{"k": {Method: mcp.MethodElicitationCreate,
			Params: json.RawMessage(`{"message":"?","requestedSchema":{"type":"object"}}`)}})
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(string(out["k"]))}}, nil
	}, &server.ToolOptions{TaskPolicy: server.TaskWhenSlow, TaskAfter: time.Millisecond})
	p := newModernPeer(t, srv)
	inline, promoted := 0, 0
	for i := range 40 {
		r, rerr := p.tool("late_question", extCaps, map[string]any{"arguments": map[string]any{"micros": 600 + 25*i}})
		if rerr != nil {
			t.Fatalf("call %d: %v", i, rerr)
		}
		switch str(r["resultType"]) {
		case "input_required":
			inline++
		case "task":
			promoted++
			id := str(r["taskId"])
			g := p.waitStatus(id, mcp.TaskStatusInputRequired)
			if !strings.Contains(string(g["inputRequests"]), `"k"`) {
				t.Errorf("call %d: task asks %s", i, g["inputRequests"])
			}
			p.task(mcp.MethodTasksCancel, id, nil)
		default:
			t.Fatalf("call %d: %s", i, mustJSON(r))
		}
	}
	t.Logf("%d inline, %d promoted", inline, promoted)
}

// A stream of tasks alone ends, with its final result naming the subscription, right
// after it has told the end of the last of them: nothing more could come on it. A stream
// that asks for anything else as well stays open, and so does one that asks for nothing;
// one that names no task the server knows ends after its acknowledgement.
func TestExtTaskListenEndsWithItsTasks(t *testing.T) {
	srv, release := taskServer(t)
	p := newModernPeer(t, srv)
	slow, _ := p.tool("slow", extCaps, nil)
	failing, _ := p.tool("tool_error", extCaps, nil)
	slowID, failingID := str(slow["taskId"]), str(failing["taskId"])
	if slowID == "" || failingID == "" {
		t.Fatalf("no tasks: %s %s", slow, failing)
	}
	p.waitStatus(failingID, mcp.TaskStatusCompleted)
	listen := p.listen

	// Tasks and the tools list: stays open past the end of its task.
	mixed, stopMixed := listen(map[string]any{"taskIds": []string{failingID}, "toolsListChanged": true})
	defer stopMixed()
	if ack := p.nextNote(); ack.Method != mcp.NotificationSubscriptionsAcknowledged {
		t.Fatalf("first message %s %s", ack.Method, ack.Params)
	}
	if n := p.nextNote(); n.Method != mcp.NotificationTasks || !strings.Contains(string(n.Params), `"status":"completed"`) {
		t.Fatalf("state %s %s", n.Method, n.Params)
	}

	// Tasks alone: open while one works, ended once both have.
	tasksOnly, stopTasks := listen(map[string]any{"taskIds": []string{slowID, failingID}})
	defer stopTasks()
	if ack := p.nextNote(); ack.Method != mcp.NotificationSubscriptionsAcknowledged {
		t.Fatalf("first message %s %s", ack.Method, ack.Params)
	}
	states := map[string]bool{}
	for range 2 {
		n := p.nextNote()
		states[string(n.Params)] = true
		if n.Method != mcp.NotificationTasks {
			t.Fatalf("state %s %s", n.Method, n.Params)
		}
	}
	select {
	case res := <-tasksOnly:
		t.Fatalf("the stream ended while a task works: %s", res)
	default:
	}
	if n := srv.Listeners(); n != 2 {
		t.Errorf("%d listens open, want 2", n)
	}
	close(release)
	var final map[string]json.RawMessage
	select {
	case final = <-tasksOnly:
	case <-time.After(5 * time.Second):
		t.Fatal("the stream of tasks that have ended stayed open")
	}
	if str(final["resultType"]) != "complete" || !strings.Contains(string(final["_meta"]), `"`+mcp.MetaSubscriptionID+`"`) {
		t.Errorf("final result %s, want complete with the subscription's id", mustJSON(final))
	}
	// Its last notification was read before its end.
	select {
	case n := <-p.notes:
		if !strings.Contains(string(n.Params), slowID) || !strings.Contains(string(n.Params), `"status":"completed"`) {
			t.Errorf("last notification %s", n.Params)
		}
	default:
		t.Error("the stream ended before it told the end of its last task")
	}
	if n := srv.Listeners(); n != 1 {
		t.Errorf("%d listens open after the stream of tasks ended, want the other one", n)
	}
	select {
	case res := <-mixed:
		t.Errorf("the stream that also asks for the tools list ended: %s", mustJSON(res))
	default:
	}

	// Nothing asked for: no task, so it stays open (until withdrawn).
	empty, stopEmpty := listen(map[string]any{})
	defer stopEmpty()
	if ack := p.nextNote(); ack.Method != mcp.NotificationSubscriptionsAcknowledged {
		t.Errorf("ack %s %s", ack.Method, ack.Params)
	}

	// Nothing the server knows: ended after its acknowledgement.
	unknown, stopUnknown := listen(map[string]any{"taskIds": []string{"unknown"}})
	defer stopUnknown()
	if ack := p.nextNote(); ack.Method != mcp.NotificationSubscriptionsAcknowledged || strings.Contains(string(ack.Params), "unknown") {
		t.Errorf("ack %s %s", ack.Method, ack.Params)
	}
	select {
	case res, ok := <-unknown:
		if !ok || str(res["resultType"]) != "complete" {
			t.Errorf("stream of no known task ended with %s", mustJSON(res))
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a stream of no known task stayed open")
	}
	select {
	case res := <-empty:
		t.Errorf("the stream that asked for nothing ended: %s", mustJSON(res))
	default:
	}
	if n := srv.Listeners(); n != 2 {
		t.Errorf("%d listens open, want the one asking for the tools list and the empty one", n)
	}
}

// A stream of tasks alone whose task is deleted before it ends (its ttl passes while it
// works) ends then, with its final result: nothing more can come of the task. A stream
// that still has a task to hear of stays open.
func TestExtTaskListenEndsWhenItsTaskExpires(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := modernServer(&server.Options{Tasks: &tasks.Options{}})
		defer srv.Close()
		srv.AddToolWith(&mcp.Tool{Name: "endless"}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}, &server.ToolOptions{TaskPolicy: server.TaskAlways, MaxTaskTTL: 10 * time.Second})
		srv.AddToolWith(&mcp.Tool{Name: "long"}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}, &server.ToolOptions{TaskPolicy: server.TaskAlways})
		p := newModernPeer(t, srv)
		short, _ := p.tool("endless", extCaps, nil)
		long, _ := p.tool("long", extCaps, nil)
		shortID, longID := str(short["taskId"]), str(long["taskId"])
		if shortID == "" || longID == "" {
			t.Fatalf("no tasks: %s %s", short, long)
		}
		listen := func(notes int, ids ...string) chan map[string]json.RawMessage {
			out, _ := p.listen(map[string]any{"taskIds": ids})
			for range notes { // the acknowledgement, each known task's state
				p.nextNote()
			}
			return out
		}
		alone, both := listen(2, shortID), listen(3, shortID, longID)
		time.Sleep(11 * time.Second)
		synctest.Wait()
		select {
		case res := <-alone:
			if str(res["resultType"]) != "complete" || !strings.Contains(string(res["_meta"]), mcp.MetaSubscriptionID) {
				t.Errorf("final result %s", mustJSON(res))
			}
		default:
			t.Fatal("the stream of a task deleted while it worked stayed open")
		}
		select {
		case res := <-both:
			t.Fatalf("a stream with a task still working ended: %s", mustJSON(res))
		default:
		}
		if _, rerr := p.task(mcp.MethodTasksGet, shortID, nil); rerr == nil || rerr.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("tasks/get of the expired task: %v", rerr)
		}
		// A stream asked for after the deletion names no task the server knows.
		select {
		case <-listen(1, shortID):
		case <-time.After(time.Second):
			t.Error("a stream of no known task stayed open")
		}
	})
}

// listen opens a subscriptions/listen of filter, with the Tasks extension declared: the
// channel gets its final result, if the server ends it, and is closed then or when the
// call fails (cancel withdraws it).
func (p *modernPeer) listen(filter map[string]any) (chan map[string]json.RawMessage, context.CancelFunc) {
	ctx, cancel := context.WithCancel(p.t.Context())
	out := make(chan map[string]json.RawMessage, 1)
	go func() {
		var res map[string]json.RawMessage
		if err := p.conn.Call(ctx, mcp.MethodSubscriptionsListen, map[string]any{"_meta": meta(extCaps), "notifications": filter}, &res); err == nil {
			out <- res
		}
		close(out)
	}()
	return out, cancel
}
