package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// Receiver tasks (revision 2025-11-25): the demo server sends task-augmented elicitation
// and sampling to the client (ask_user_task, ask_model_task, ask_then_cancel,
// list_client_tasks), and the client runs them as tasks. Every test runs over the
// in-memory pipe, a stdio subprocess and Streamable HTTP. docs/tasks-checklist.md maps
// the spec digest's checklist to these tests.

// userRefusal is the error the tests' users answer with: tasks/result must return it
// exactly.
var userRefusal = &jsonrpc.Error{Code: -1, Message: "the user refused", Data: json.RawMessage(`{"why":"e2e"}`)}

// TestReceiverElicitation: ask_user_task sends elicitation/create as a task; the client
// answers with CreateTaskResult at once, queues the question like a plain one, and the
// server polls at the client's pollInterval until the user's answer (accept, decline,
// cancel, or a JSON-RPC error) comes back, exactly, through tasks/result.
func TestReceiverElicitation(t *testing.T) {
	cases := []struct {
		name   string
		answer func(*client.Request) error
		check  func(t *testing.T, rep demo.ClientTaskReport, res *mcp.CallToolResult)
	}{
		{"accept", func(r *client.Request) error { return r.Accept(map[string]any{"name": "Ada"}) },
			func(t *testing.T, rep demo.ClientTaskReport, res *mcp.CallToolResult) {
				var er mcp.ElicitResult
				json.Unmarshal(rep.Result, &er)
				// The schema's defaults fill in what the user left out.
				if res.IsError || er.Action != mcp.ElicitActionAccept || !sameJSON(t, er.Content, map[string]any{"name": "Ada", "color": "blue", "subscribe": false}) {
					t.Errorf("accept: %s", res.Content[0].Text)
				}
			}},
		{"decline", (*client.Request).Decline, func(t *testing.T, rep demo.ClientTaskReport, res *mcp.CallToolResult) {
			if res.IsError || !jsonEqual(t, stripMeta(t, rep.Result), `{"action":"decline"}`) {
				t.Errorf("decline: %s", res.Content[0].Text)
			}
		}},
		{"cancel", (*client.Request).Dismiss, func(t *testing.T, rep demo.ClientTaskReport, res *mcp.CallToolResult) {
			if res.IsError || !jsonEqual(t, stripMeta(t, rep.Result), `{"action":"cancel"}`) {
				t.Errorf("cancel: %s", res.Content[0].Text)
			}
		}},
		{"reject", func(r *client.Request) error { return r.Reject(userRefusal) },
			func(t *testing.T, rep demo.ClientTaskReport, res *mcp.CallToolResult) {
				if !res.IsError || rep.ErrorFrom != mcp.MethodTasksResult || !sameError(t, rep.Error, userRefusal) || rep.Status != mcp.TaskStatusFailed {
					t.Errorf("reject: %s", res.Content[0].Text)
				}
				if rep.StatusMessage != userRefusal.Message {
					t.Errorf("the failed task's statusMessage is %q, want the error's message", rep.StatusMessage)
				}
				if len(rep.Result) != 0 {
					t.Errorf("reject: a result besides the error: %s", rep.Result)
				}
			}},
	}
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		s := h.serve(t, requestorServer()).open(t, ctx, receiverClient(nil, nil))
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				testReceiverAnswer(t, ctx, s, demo.ToolAskUserTask, map[string]any{"message": "Who are you?"}, tc.answer, tc.check)
			})
		}
	})
}

// TestReceiverSampling: the same for sampling/createMessage (ask_model_task): a reply, and
// a refusal returned exactly.
func TestReceiverSampling(t *testing.T) {
	reply := &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Model: "e2e-model", StopReason: mcp.StopReasonEndTurn,
		Content: []mcp.Content{mcp.TextContent("Hello from the model")}}
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		s := h.serve(t, requestorServer()).open(t, ctx, receiverClient(nil, nil))
		t.Run("reply", func(t *testing.T) {
			testReceiverAnswer(t, ctx, s, demo.ToolAskModelTask, map[string]any{"prompt": "Say hello", "maxTokens": 20},
				func(r *client.Request) error { return r.Respond(reply) },
				func(t *testing.T, rep demo.ClientTaskReport, res *mcp.CallToolResult) {
					var got mcp.CreateMessageResult
					json.Unmarshal(rep.Result, &got)
					got.Meta = nil
					if res.IsError || !sameJSON(t, got, reply) {
						t.Errorf("reply: %s", res.Content[0].Text)
					}
				})
		})
		t.Run("reject", func(t *testing.T) {
			testReceiverAnswer(t, ctx, s, demo.ToolAskModelTask, map[string]any{"prompt": "Say hello"},
				func(r *client.Request) error { return r.Reject(userRefusal) },
				func(t *testing.T, rep demo.ClientTaskReport, res *mcp.CallToolResult) {
					if !res.IsError || rep.ErrorFrom != mcp.MethodTasksResult || !sameError(t, rep.Error, userRefusal) {
						t.Errorf("reject: %s", res.Content[0].Text)
					}
				})
		})
	})
}

// testReceiverAnswer calls tool, waits for the task-augmented request it sends, lets the
// server poll twice while the question is open, answers, and checks what the server
// received, the polls, and the wire.
func testReceiverAnswer(t *testing.T, ctx context.Context, s *client.Session, tool string, args any,
	answer func(*client.Request) error, check func(*testing.T, demo.ClientTaskReport, *mcp.CallToolResult)) {
	t.Helper()
	traffic := recordTraffic(s)
	defer traffic.close()
	sub := s.Subscribe()
	defer sub.Close()
	start := time.Now()
	done := asyncCall(ctx, s, toolParams(t, tool, args))

	r := nextRequest(t, ctx, sub)
	if r.Task == "" || r.RelatedTask != "" {
		t.Fatalf("queued request: task %q, related task %q; want a receiver task and no related task", r.Task, r.RelatedTask)
	}
	if tool == demo.ToolAskUserTask && r.Elicitation == nil || tool == demo.ToolAskModelTask && r.Sampling == nil {
		t.Fatalf("queued %s, not what %s sends", r.Method, tool)
	}
	if !slices.Contains(s.PendingRequests(), r) {
		t.Error("the task's request is not in the pending queue")
	}
	// The server polls while the user thinks: two polls, both "working".
	for want := 1; want <= 2; want++ {
		e := waitFor(t, ctx, sub, func(e *client.ReceiverPollEvent) bool { return e.Request == r })
		if e.Polls != want || e.Task.TaskID != r.Task || e.Task.Status != mcp.TaskStatusWorking {
			t.Errorf("poll event %d: %d polls, task %+v", want, e.Polls, e.Task)
		}
	}
	if err := answer(r); err != nil {
		t.Fatal(err)
	}
	settled(t, ctx, sub, r)
	res := await(t, ctx, done)
	elapsed := time.Since(start)
	rep := report(t, res)

	if rep.Mode != demo.ModeTask || rep.TaskID != r.Task || rep.Method != r.Method {
		t.Fatalf("report: mode %q, task %q, method %q; want task %q of %s", rep.Mode, rep.TaskID, rep.Method, r.Task, r.Method)
	}
	if c := rep.Created; c == nil || c.Status != mcp.TaskStatusWorking || c.CreatedAt == "" || c.LastUpdatedAt == "" ||
		c.TTL == nil || c.PollInterval == nil || *c.PollInterval != receiverPoll.Milliseconds() {
		t.Errorf("CreateTaskResult task: %+v", c)
	}
	if !taskIDPattern.MatchString(rep.TaskID) {
		t.Errorf("task id %q is not 128 random bits in hex", rep.TaskID)
	}
	if rep.PollIntervalMs != receiverPoll.Milliseconds() {
		t.Errorf("the server polled every %d ms, want the client's %s", rep.PollIntervalMs, receiverPoll)
	}
	if rep.Polls < 3 || time.Duration(rep.Polls)*receiverPoll > elapsed {
		t.Errorf("%d polls in %s at a pollInterval of %s", rep.Polls, elapsed, receiverPoll)
	}
	if got := s.ReceiverPolls(r.Task); got != rep.Polls {
		t.Errorf("the client counts %d polls, the server %d", got, rep.Polls)
	}
	traffic.checkPolls(t, r.Task, rep.Polls, receiverPoll)
	check(t, rep, res)
	if len(rep.Result) > 0 {
		if id, _ := relatedTaskIn(t, rep.Result); id != r.Task {
			t.Errorf("tasks/result carries related-task %q, want %q", id, r.Task)
		}
	}
	if n := len(s.PendingRequests()); n != 0 {
		t.Errorf("%d requests still pending", n)
	}

	// The wire: params.task in, CreateTaskResult out (wrapped, status working), then
	// tasks/result answered with the exact outcome.
	reqs := traffic.inbound(t, r.Method, "")
	if len(reqs) != 1 {
		t.Fatalf("%d %s requests, want 1", len(reqs), r.Method)
	}
	in := reqs[0].Message.(*jsonrpc.Request)
	var p struct {
		Task json.RawMessage `json:"task"`
		Meta mcp.Meta        `json:"_meta"`
	}
	json.Unmarshal(in.Params, &p)
	if !jsonEqual(t, p.Task, `{}`) {
		t.Errorf("params.task = %s, want {} (the client's default ttl)", p.Task)
	}
	if _, related := p.Meta[mcp.MetaRelatedTask]; related {
		t.Error("a plain call's request carries related-task meta")
	}
	resp := traffic.response(in.ID)
	if resp == nil || resp.Error != nil || !mcp.IsCreateTaskResult(resp.Result) {
		t.Fatalf("the client's answer to %s is not a CreateTaskResult: %+v", r.Method, resp)
	}
	var created mcp.CreateTaskResult
	json.Unmarshal(resp.Result, &created)
	if created.Task.TaskID != r.Task || created.Task.Status != mcp.TaskStatusWorking {
		t.Errorf("CreateTaskResult %s", resp.Result)
	}
	results := traffic.inbound(t, mcp.MethodTasksResult, r.Task)
	if len(results) != 1 {
		t.Fatalf("%d tasks/result for the task, want 1", len(results))
	}
	out := traffic.response(results[0].Message.(*jsonrpc.Request).ID)
	switch {
	case out == nil:
		t.Error("tasks/result was not answered")
	case rep.Error != nil && !sameError(t, out.Error, rep.Error):
		t.Errorf("tasks/result answered %+v on the wire, the server reports %+v", out.Error, rep.Error)
	case rep.Error == nil && !jsonEqual(t, out.Result, string(rep.Result)):
		t.Errorf("tasks/result answered %s on the wire, the server reports %s", out.Result, rep.Result)
	}
	// Every tasks/get answer is the flattened task with createdAt, lastUpdatedAt and the
	// actual ttl, and no related-task meta.
	for _, g := range traffic.inbound(t, mcp.MethodTasksGet, r.Task) {
		resp := traffic.response(g.Message.(*jsonrpc.Request).ID)
		if resp == nil || resp.Error != nil {
			t.Fatalf("tasks/get answered %+v", resp)
		}
		checkClientTaskFields(t, "tasks/get", resp.Result, *rep.Created.TTL)
	}
	// Status notifications: the same fields, no related-task meta, ending terminal.
	var last mcp.Task
	for _, m := range traffic.messages() {
		if n, ok := m.Message.(*jsonrpc.Request); ok && m.Dir == jsonrpc.Outbound && n.Method == mcp.NotificationTasksStatus {
			checkClientTaskFields(t, "notifications/tasks/status", n.Params, *rep.Created.TTL)
			json.Unmarshal(n.Params, &last)
		}
	}
	if last.TaskID != r.Task || last.Status != rep.Status {
		t.Errorf("last status notification %+v, want task %s %s", last, r.Task, rep.Status)
	}
}

// checkClientTaskFields checks a flattened task as the client sent it: createdAt and
// lastUpdatedAt in RFC 3339, the ttl, and no related-task meta.
func checkClientTaskFields(t *testing.T, what string, raw json.RawMessage, ttl int64) {
	t.Helper()
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		t.Fatalf("%s: %s", what, raw)
	}
	for _, k := range []string{"createdAt", "lastUpdatedAt"} {
		var v string
		if json.Unmarshal(obj[k], &v) != nil {
			t.Errorf("%s without %s: %s", what, k, raw)
		} else if _, err := time.Parse(time.RFC3339Nano, v); err != nil {
			t.Errorf("%s: %s %q is not RFC 3339", what, k, v)
		}
	}
	if !jsonEqual(t, obj["ttl"], fmt.Sprint(ttl)) {
		t.Errorf("%s: ttl %s, want the actual %d", what, obj["ttl"], ttl)
	}
	if _, related := relatedTaskIn(t, raw); related {
		t.Errorf("%s with related-task meta: %s", what, raw)
	}
}

// stripMeta returns a JSON object without its _meta.
func stripMeta(t *testing.T, raw json.RawMessage) json.RawMessage {
	t.Helper()
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		t.Fatalf("not an object: %s", raw)
	}
	delete(obj, "_meta")
	b, _ := json.Marshal(obj)
	return b
}

// TestReceiverServerCancel: ask_then_cancel cancels the client's task while the question
// is open: the client withdraws the question (a settled RequestEvent, nothing pending,
// a late answer refused) and answers tasks/cancel with the cancelled task. Cancelling
// it again, or cancelling a task whose question was answered, is -32602.
func TestReceiverServerCancel(t *testing.T) {
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		s := h.serve(t, requestorServer()).open(t, ctx, receiverClient(nil, nil))
		traffic := recordTraffic(s)
		defer traffic.close()
		sub := s.Subscribe()
		defer sub.Close()

		// Cancelled while the question is open.
		done := asyncCall(ctx, s, toolParams(t, demo.ToolAskThenCancel, map[string]any{"seconds": gatedSleep.Seconds()}))
		r := nextRequest(t, ctx, sub)
		if r.Task == "" || !slices.Contains(s.PendingRequests(), r) {
			t.Fatalf("the question is not pending as a task: task %q", r.Task)
		}
		wake(t, ctx, s) // the server cancels now
		settled(t, ctx, sub, r)
		if !r.Withdrawn() {
			t.Error("the question was not withdrawn")
		}
		if n := len(s.PendingRequests()); n != 0 {
			t.Errorf("%d requests still pending", n)
		}
		if err := r.Accept(map[string]any{"name": "late"}); !errors.Is(err, client.ErrAnswered) {
			t.Errorf("a late answer: %v, want ErrAnswered", err)
		}
		rep := report(t, await(t, ctx, done))
		if c := rep.Cancelled; c == nil || c.TaskID != r.Task || c.Status != mcp.TaskStatusCancelled || c.StatusMessage == "" || c.CreatedAt == "" || c.LastUpdatedAt == "" {
			t.Fatalf("tasks/cancel answered %+v (report %+v)", c, rep)
		}
		if rep.Status != mcp.TaskStatusCancelled || rep.Error != nil {
			t.Errorf("after the cancel: %s, error %+v; want still cancelled", rep.Status, rep.Error)
		}
		for _, c := range traffic.inbound(t, mcp.MethodTasksCancel, r.Task) {
			if resp := traffic.response(c.Message.(*jsonrpc.Request).ID); resp == nil || resp.Error != nil {
				t.Errorf("tasks/cancel answered %+v", resp)
			} else {
				checkClientTaskFields(t, "tasks/cancel", resp.Result, *rep.Created.TTL)
			}
		}
		if st := receiverTask(t, s, r.Task); st.Status != mcp.TaskStatusCancelled {
			t.Errorf("the client keeps the task as %s", st.Status)
		}
		// The server used tasks/cancel, never notifications/cancelled, for the task.
		if n := len(traffic.inbound(t, mcp.MethodTasksCancel, r.Task)); n != 1 {
			t.Errorf("%d tasks/cancel for the task, want 1", n)
		}
		if n := len(traffic.inbound(t, mcp.NotificationCancelled, "")); n != 0 {
			t.Errorf("%d notifications/cancelled", n)
		}
		// A cancelled task is terminal.
		if a := askClientRaw(t, ctx, s, mcp.MethodTasksCancel, map[string]any{"taskId": r.Task}); !errorIs(a.Error, jsonrpc.CodeInvalidParams) {
			t.Errorf("cancelling the cancelled task again: %s %+v, want -32602", a.Result, a.Error)
		}
		// tasks/result of a cancelled task has no result: -32603, not a hang.
		if a := askClientRaw(t, ctx, s, mcp.MethodTasksResult, map[string]any{"taskId": r.Task}); !errorIs(a.Error, jsonrpc.CodeInternalError) {
			t.Errorf("tasks/result of the cancelled task: %s %+v, want -32603", a.Result, a.Error)
		}

		// Answered first: the cancel comes too late, -32602, and the task stays completed.
		done = asyncCall(ctx, s, toolParams(t, demo.ToolAskThenCancel, map[string]any{"seconds": gatedSleep.Seconds()}))
		r = nextRequest(t, ctx, sub)
		if err := r.Accept(map[string]any{"name": "Ada"}); err != nil {
			t.Fatal(err)
		}
		waitUntil(t, ctx, "the answered task completes", func() bool {
			return receiverTask(t, s, r.Task).Status == mcp.TaskStatusCompleted
		})
		wake(t, ctx, s)
		res := await(t, ctx, done)
		rep = report(t, res)
		if !res.IsError || rep.ErrorFrom != mcp.MethodTasksCancel || !errorIs(rep.Error, jsonrpc.CodeInvalidParams) || rep.Cancelled != nil {
			t.Errorf("cancelling a completed task: %s", res.Content[0].Text)
		}
		if rep.Status != mcp.TaskStatusCompleted {
			t.Errorf("after the refused cancel the task is %s, want completed", rep.Status)
		}
		if a := askClientRaw(t, ctx, s, mcp.MethodTasksResult, map[string]any{"taskId": r.Task}); a.Error != nil {
			t.Errorf("the completed task's result after the refused cancel: %+v", a.Error)
		}
	})
}

// receiverTask returns the client's receiver task id, or a zero task.
func receiverTask(t *testing.T, s *client.Session, id string) mcp.Task {
	t.Helper()
	for _, st := range s.ReceiverTasks() {
		if st.TaskID == id {
			return st
		}
	}
	return mcp.Task{}
}

// TestReceiverTTLExpiry: a client whose tasks live 1 ms by default. The task expires while
// the question is open: the question is withdrawn, and the server's next poll finds the
// task unknown (-32602). Nothing waits for the time to pass but the expiry itself.
func TestReceiverTTLExpiry(t *testing.T) {
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		s := h.serve(t, requestorServer()).open(t, ctx, receiverClient(&client.ReceiverOptions{DefaultTTL: time.Millisecond}, nil))
		sub := s.Subscribe()
		defer sub.Close()
		done := asyncCall(ctx, s, toolParams(t, demo.ToolAskUserTask, nil))
		r := nextRequest(t, ctx, sub)
		settled(t, ctx, sub, r)
		if !r.Withdrawn() {
			t.Error("the expired task's question was not withdrawn")
		}
		res := await(t, ctx, done)
		rep := report(t, res)
		if c := rep.Created; c == nil || c.TTL == nil || *c.TTL != 1 {
			t.Errorf("created task %+v, want the client's ttl of 1 ms", c)
		}
		if !res.IsError || rep.ErrorFrom != mcp.MethodTasksGet || !errorIs(rep.Error, jsonrpc.CodeInvalidParams) || rep.Polls < 1 {
			t.Errorf("polling the expired task: %s", res.Content[0].Text)
		}
		if n := len(s.PendingRequests()); n != 0 {
			t.Errorf("%d requests pending", n)
		}
		if n := len(s.ReceiverTasks()); n != 0 {
			t.Errorf("%d receiver tasks kept after the ttl", n)
		}
		if a := askClientRaw(t, ctx, s, mcp.MethodTasksResult, map[string]any{"taskId": r.Task}); !errorIs(a.Error, jsonrpc.CodeInvalidParams) {
			t.Errorf("tasks/result of the expired task: %+v, want -32602", a.Error)
		}
	})
}

// TestReceiverUnknownID: tasks/get, tasks/result and tasks/cancel of an id the client never
// made, and tasks/list with a cursor it never gave, are -32602; a client without receiver
// tasks answers the tasks methods with -32601.
func TestReceiverUnknownID(t *testing.T) {
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		e := h.serve(t, requestorServer())
		s := e.open(t, ctx, receiverClient(nil, nil))
		for _, id := range []string{"no-such-task", "0123456789abcdef0123456789abcdef", ""} {
			for _, m := range []string{mcp.MethodTasksGet, mcp.MethodTasksResult, mcp.MethodTasksCancel} {
				if a := askClientRaw(t, ctx, s, m, map[string]any{"taskId": id}); !errorIs(a.Error, jsonrpc.CodeInvalidParams) {
					t.Errorf("%s of %q: %s %+v, want -32602", m, id, a.Result, a.Error)
				}
			}
		}
		for _, cursor := range []string{"bogus", "dDk5OTk"} { // not base64 of ours; "t9999", never issued
			if a := askClientRaw(t, ctx, s, mcp.MethodTasksList, map[string]any{"cursor": cursor}); !errorIs(a.Error, jsonrpc.CodeInvalidParams) {
				t.Errorf("tasks/list with cursor %q: %s %+v, want -32602", cursor, a.Result, a.Error)
			}
		}
		plain := e.open(t, ctx, taskClient(nil))
		if a := askClientRaw(t, ctx, plain, mcp.MethodTasksGet, map[string]any{"taskId": "x"}); !errorIs(a.Error, jsonrpc.CodeMethodNotFound) {
			t.Errorf("tasks/get on a client without receiver tasks: %+v, want -32601", a.Error)
		}
	})
}

// TestReceiverListPaginated: with a page size of 2 the client's five tasks take three
// tasks/list pages; list_client_tasks hands each cursor back unchanged and gets every
// task, oldest first, as the client keeps them.
func TestReceiverListPaginated(t *testing.T) {
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		s := h.serve(t, requestorServer()).open(t, ctx, receiverClient(&client.ReceiverOptions{PageSize: 2},
			func(ctx context.Context, r *client.Request) { r.Accept(map[string]any{"name": r.Task}) }))
		var ids []string
		for range 5 {
			rep := report(t, call(t, ctx, s, demo.ToolAskUserTask, nil))
			if rep.Mode != demo.ModeTask || rep.Status != mcp.TaskStatusCompleted {
				t.Fatalf("ask_user_task: %+v", rep)
			}
			ids = append(ids, rep.TaskID)
		}
		// Related-task meta in tasks/get does not redirect it: the taskId param decides.
		a := askClientRaw(t, ctx, s, mcp.MethodTasksGet, map[string]any{"taskId": ids[0],
			"_meta": map[string]any{mcp.MetaRelatedTask: map[string]any{"taskId": ids[1]}}})
		var got0 mcp.Task
		if json.Unmarshal(a.Result, &got0); a.Error != nil || got0.TaskID != ids[0] {
			t.Errorf("tasks/get of %s with meta naming %s: %s %+v", ids[0], ids[1], a.Result, a.Error)
		}
		a = askClientRaw(t, ctx, s, mcp.MethodTasksGet, map[string]any{"taskId": "unknown",
			"_meta": map[string]any{mcp.MetaRelatedTask: map[string]any{"taskId": ids[1]}}})
		if !errorIs(a.Error, jsonrpc.CodeInvalidParams) {
			t.Errorf("tasks/get of an unknown id with meta naming a real task: %s %+v, want -32602", a.Result, a.Error)
		}

		traffic := recordTraffic(s)
		defer traffic.close()
		res := call(t, ctx, s, demo.ToolListClientTasks, nil)
		var list demo.ClientTaskList
		if err := json.Unmarshal([]byte(onlyText(t, res)), &list); err != nil || res.IsError {
			t.Fatalf("list_client_tasks: %v: %s", err, onlyText(t, res))
		}
		var got []string
		for _, task := range list.Tasks {
			got = append(got, task.TaskID)
			if task.Status != mcp.TaskStatusCompleted || task.CreatedAt == "" || task.LastUpdatedAt == "" || task.TTL == nil {
				t.Errorf("listed task %+v", task)
			}
		}
		if list.Pages != 3 || !slices.Equal(got, ids) {
			t.Errorf("%d pages, tasks %v; want 3 pages and %v", list.Pages, got, ids)
		}
		var kept []string
		for _, task := range s.ReceiverTasks() {
			kept = append(kept, task.TaskID)
		}
		if !slices.Equal(kept, ids) {
			t.Errorf("the client keeps %v", kept)
		}
		// On the wire: three requests, each with the cursor of the page before, as given.
		lists := traffic.inbound(t, mcp.MethodTasksList, "")
		if len(lists) != 3 {
			t.Fatalf("%d tasks/list, want 3", len(lists))
		}
		prev := ""
		for i, m := range lists {
			req := m.Message.(*jsonrpc.Request)
			var p mcp.ListTasksParams
			json.Unmarshal(req.Params, &p)
			if p.Cursor != prev {
				t.Errorf("page %d asked with cursor %q, want %q", i, p.Cursor, prev)
			}
			resp := traffic.response(req.ID)
			var page mcp.ListTasksResult
			if resp == nil || json.Unmarshal(resp.Result, &page) != nil {
				t.Fatalf("page %d: %+v", i, resp)
			}
			if _, related := relatedTaskIn(t, resp.Result); related {
				t.Errorf("a tasks/list result carries related-task meta")
			}
			if (i < 2) != (page.NextCursor != "") {
				t.Errorf("page %d: nextCursor %q", i, page.NextCursor)
			}
			prev = page.NextCursor
		}
	})
}

// TestReceiverSessionsIsolated: two clients of one server. Each session's tasks are the
// client's own: the server cannot reach one client's task through the other client
// (-32602 for get, result and cancel), and each list holds only its own tasks. (Over
// stdio each session has a server process of its own, so the server half is moot there;
// the clients are checked all the same.)
func TestReceiverSessionsIsolated(t *testing.T) {
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		e := h.serve(t, requestorServer())
		accept := func(ctx context.Context, r *client.Request) { r.Accept(map[string]any{"name": "me"}) }
		a := e.open(t, ctx, receiverClient(nil, accept))
		b := e.open(t, ctx, receiverClient(nil, accept))
		idA := report(t, call(t, ctx, a, demo.ToolAskUserTask, nil)).TaskID
		idB := report(t, call(t, ctx, b, demo.ToolAskUserTask, nil)).TaskID
		if idA == "" || idB == "" || idA == idB {
			t.Fatalf("task ids %q and %q", idA, idB)
		}
		for _, tc := range []struct {
			s          *client.Session
			own, other string
		}{{a, idA, idB}, {b, idB, idA}} {
			var list demo.ClientTaskList
			json.Unmarshal([]byte(onlyText(t, call(t, ctx, tc.s, demo.ToolListClientTasks, nil))), &list)
			if len(list.Tasks) != 1 || list.Tasks[0].TaskID != tc.own {
				t.Errorf("list %+v, want only %s", list.Tasks, tc.own)
			}
			for _, m := range []string{mcp.MethodTasksGet, mcp.MethodTasksResult, mcp.MethodTasksCancel} {
				if ans := askClientRaw(t, ctx, tc.s, m, map[string]any{"taskId": tc.other}); !errorIs(ans.Error, jsonrpc.CodeInvalidParams) {
					t.Errorf("%s of the other session's task: %s %+v, want -32602", m, ans.Result, ans.Error)
				}
			}
			if st := receiverTask(t, tc.s, tc.own); st.Status != mcp.TaskStatusCompleted {
				t.Errorf("the own task is %q after the other session's attempts, want completed", st.Status)
			}
		}
	})
}

// TestReceiverOffPlainRequests: a client without receiver tasks gets plain requests: the
// tools fall back and say so, nothing carries params.task, and a task asked anyway is
// ignored (a plain answer, not an error), as the spec requires of a receiver that did not
// declare the method.
func TestReceiverOffPlainRequests(t *testing.T) {
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		s := h.serve(t, requestorServer()).open(t, ctx, taskClient(&client.Options{OnRequest: func(ctx context.Context, r *client.Request) {
			if r.Task != "" {
				r.Reject(jsonrpc.NewError(-1, "a task on a client that hosts none"))
				return
			}
			if r.Sampling != nil {
				r.Respond(&mcp.CreateMessageResult{Role: mcp.RoleAssistant, Model: "m", Content: []mcp.Content{mcp.TextContent("hi")}})
				return
			}
			r.Accept(map[string]any{"name": "Bo"})
		}}))
		traffic := recordTraffic(s)
		defer traffic.close()
		if caps := s.ServerCapabilities(); caps == nil {
			t.Fatal("no capabilities")
		}

		res := call(t, ctx, s, demo.ToolAskUserTask, nil)
		rep := report(t, res)
		var er mcp.ElicitResult
		json.Unmarshal(rep.Result, &er)
		if res.IsError || rep.Mode != demo.ModePlain || rep.TaskID != "" || rep.Polls != 0 || er.Content["name"] != "Bo" {
			t.Errorf("ask_user_task: %s", onlyText(t, res))
		}
		res = call(t, ctx, s, demo.ToolAskModelTask, map[string]any{"prompt": "hello"})
		if rep := report(t, res); res.IsError || rep.Mode != demo.ModePlain {
			t.Errorf("ask_model_task: %s", onlyText(t, res))
		}
		for _, m := range []string{mcp.MethodElicitationCreate, mcp.MethodSamplingCreateMessage} {
			for _, in := range traffic.inbound(t, m, "") {
				var p map[string]json.RawMessage
				json.Unmarshal(in.Message.(*jsonrpc.Request).Params, &p)
				if _, ok := p["task"]; ok {
					t.Errorf("%s with params.task sent to a client without receiver tasks", m)
				}
			}
		}
		if res := call(t, ctx, s, demo.ToolListClientTasks, nil); !res.IsError {
			t.Errorf("list_client_tasks on a client without tasks.list: %s", onlyText(t, res))
		}
		if res := call(t, ctx, s, demo.ToolAskThenCancel, map[string]any{"seconds": 0}); !res.IsError {
			t.Errorf("ask_then_cancel on a client without receiver tasks: %s", onlyText(t, res))
		}
		// Asked anyway: the task is ignored, the answer is plain.
		a := askClientRaw(t, ctx, s, mcp.MethodElicitationCreate, map[string]any{
			"message": "Name?", "requestedSchema": json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`),
			"task": map[string]any{"ttl": 60000},
		})
		if a.Error != nil || mcp.IsCreateTaskResult(a.Result) || !jsonEqual(t, a.Result, `{"action":"accept","content":{"name":"Bo"}}`) {
			t.Errorf("a task asked of a client without receiver tasks: %s %+v, want the plain answer", a.Result, a.Error)
		}
		if n := len(s.ReceiverTasks()); n != 0 {
			t.Errorf("%d receiver tasks on a client without them", n)
		}
	})
}

// TestReceiverToolTaskWaitsOnClientTask: ask_user_task called as a task. The tool task
// sends its elicitation as a client task, tagged with the tool task (related-task), is
// input_required while the client's task waits for the user, and completes with the
// answer once the server has polled the client's task to its end.
func TestReceiverToolTaskWaitsOnClientTask(t *testing.T) {
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		s := h.serve(t, requestorServer()).open(t, ctx, receiverClient(nil, nil))
		traffic := recordTraffic(s)
		defer traffic.close()
		sub := s.Subscribe()
		defer sub.Close()
		task, err := s.StartToolTask(ctx, toolParams(t, demo.ToolAskUserTask, nil), nil)
		if err != nil {
			t.Fatal(err)
		}
		r := nextRequest(t, ctx, sub)
		if r.RelatedTask != task.ID() || r.Task == "" || r.Task == task.ID() {
			t.Fatalf("request: related task %q, task %q; want related %q and a client task of its own", r.RelatedTask, r.Task, task.ID())
		}
		waitFor(t, ctx, sub, func(e *client.ReceiverPollEvent) bool { return e.Request == r })
		waitUntil(t, ctx, "the tool task shows it waits for the client's task", func() bool {
			st := task.State()
			return st.Status == mcp.TaskStatusInputRequired && st.StatusMessage == fmt.Sprintf("waiting for the client's task %s (%s)", r.Task, mcp.MethodElicitationCreate)
		})
		if err := r.Accept(map[string]any{"name": "Ada", "color": "red"}); err != nil {
			t.Fatal(err)
		}
		res, err := task.Wait(ctx)
		if err != nil {
			t.Fatal(err)
		}
		rep := report(t, res)
		var er mcp.ElicitResult
		json.Unmarshal(rep.Result, &er)
		if res.IsError || rep.ToolTask != task.ID() || rep.TaskID != r.Task || rep.Mode != demo.ModeTask || er.Content["color"] != "red" || rep.Polls < 1 {
			t.Errorf("tool task result: %s (report %+v)", onlyText(t, res), rep)
		}
		if st := task.State(); st.Status != mcp.TaskStatusCompleted {
			t.Errorf("tool task %s, want completed", st.Status)
		}
		traffic.checkPolls(t, r.Task, rep.Polls, receiverPoll)
		// The elicitation carried the tool task's id and params.task.
		in := traffic.inbound(t, mcp.MethodElicitationCreate, "")
		if len(in) != 1 {
			t.Fatalf("%d elicitations", len(in))
		}
		var p struct {
			Task *mcp.TaskMetadata `json:"task"`
		}
		params := in[0].Message.(*jsonrpc.Request).Params
		json.Unmarshal(params, &p)
		if id, _ := relatedTaskIn(t, params); id != task.ID() || p.Task == nil {
			t.Errorf("elicitation params %s: want related-task %s and params.task", params, task.ID())
		}
		// The server's polls of the client's task carry no related-task meta.
		for _, g := range traffic.inbound(t, mcp.MethodTasksGet, r.Task) {
			if _, related := relatedTaskIn(t, g.Message.(*jsonrpc.Request).Params); related {
				t.Errorf("a tasks/get with related-task meta: %s", g.Message.(*jsonrpc.Request).Params)
			}
		}
	})
}

// TestReceiverResultBlocks: tasks/result of a task whose question is open blocks until the
// user answers, then returns the answer with related-task meta.
func TestReceiverResultBlocks(t *testing.T) {
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		s := h.serve(t, requestorServer()).open(t, ctx, receiverClient(nil, nil))
		traffic := recordTraffic(s)
		defer traffic.close()
		sub := s.Subscribe()
		defer sub.Close()
		// ask_then_cancel creates the client task and sleeps until woken, without polling.
		asking := asyncCall(ctx, s, toolParams(t, demo.ToolAskThenCancel, map[string]any{"seconds": gatedSleep.Seconds()}))
		r := nextRequest(t, ctx, sub)
		fetching := asyncCall(ctx, s, toolParams(t, clientRequestTool, map[string]any{"method": mcp.MethodTasksResult, "params": map[string]any{"taskId": r.Task}}))
		waitFor(t, ctx, sub, func(e *client.MessageEvent) bool {
			req, ok := e.Message.(*jsonrpc.Request)
			return ok && e.Dir == jsonrpc.Inbound && req.Method == mcp.MethodTasksResult
		})
		select {
		case res := <-fetching:
			t.Fatalf("tasks/result returned before the answer: %+v", res)
		default:
		}
		if err := r.Accept(map[string]any{"name": "Ada"}); err != nil {
			t.Fatal(err)
		}
		var a clientAnswer
		json.Unmarshal(await(t, ctx, fetching).StructuredContent, &a)
		var er mcp.ElicitResult
		if a.Error != nil || json.Unmarshal(a.Result, &er) != nil || er.Action != mcp.ElicitActionAccept || er.Content["name"] != "Ada" {
			t.Errorf("tasks/result: %s %+v", a.Result, a.Error)
		}
		if id, _ := relatedTaskIn(t, a.Result); id != r.Task {
			t.Errorf("tasks/result related-task %q, want %q", id, r.Task)
		}
		wake(t, ctx, s)
		if rep := report(t, await(t, ctx, asking)); !errorIs(rep.Error, jsonrpc.CodeInvalidParams) || rep.Status != mcp.TaskStatusCompleted {
			t.Errorf("cancel after the answer: %+v", rep)
		}
	})
}

// TestReceiverLimits: the client caps the ttl a server asks for (MaxTTL) and the tasks
// waiting at once (MaxActive; beyond it the request is refused with -32600).
func TestReceiverLimits(t *testing.T) {
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		s := h.serve(t, requestorServer()).open(t, ctx, receiverClient(&client.ReceiverOptions{MaxTTL: time.Minute, MaxActive: 2}, nil))
		sub := s.Subscribe()
		defer sub.Close()
		var open []<-chan callResult
		var reqs []*client.Request
		for range 2 {
			open = append(open, asyncCall(ctx, s, toolParams(t, demo.ToolAskUserTask, map[string]any{"ttl": 24 * 3600 * 1000})))
			reqs = append(reqs, nextRequest(t, ctx, sub))
		}
		res := call(t, ctx, s, demo.ToolAskUserTask, nil)
		rep := report(t, res)
		if !res.IsError || rep.ErrorFrom != mcp.MethodElicitationCreate || !errorIs(rep.Error, jsonrpc.CodeInvalidRequest) {
			t.Errorf("a third task at once with MaxActive 2: %s", onlyText(t, res))
		}
		for i, r := range reqs {
			r.Accept(map[string]any{"name": "x"})
			rep := report(t, await(t, ctx, open[i]))
			if c := rep.Created; c == nil || c.TTL == nil || *c.TTL != time.Minute.Milliseconds() {
				t.Errorf("asked for 24 h with MaxTTL 1 min: created %+v", c)
			}
		}
		// With the two answered, there is room again.
		again := asyncCall(ctx, s, toolParams(t, demo.ToolAskUserTask, nil))
		nextRequest(t, ctx, sub).Decline()
		if res := await(t, ctx, again); res.IsError {
			t.Errorf("after the answers: %s", onlyText(t, res))
		}
	})
}

// TestReceiverCapabilities: a client with receiver tasks declares exactly
// tasks{list, cancel, requests{sampling.createMessage, elicitation.create}} (as the server
// received it, pipe and HTTP), and the server's tools then ask for tasks; without them
// the client declares no requests, and the tools ask plainly (every transport).
func TestReceiverCapabilities(t *testing.T) {
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		var tap serverTap
		cfg := requestorServer()
		cfg.tap = tap.tap
		e := h.serve(t, cfg)
		accept := func(ctx context.Context, r *client.Request) { r.Accept(map[string]any{"name": "x"}) }
		on := e.open(t, ctx, receiverClient(nil, accept))
		off := e.open(t, ctx, taskClient(&client.Options{OnRequest: accept}))
		if rep := report(t, call(t, ctx, on, demo.ToolAskUserTask, nil)); rep.Mode != demo.ModeTask {
			t.Errorf("with receiver tasks: mode %q", rep.Mode)
		}
		if rep := report(t, call(t, ctx, off, demo.ToolAskUserTask, nil)); rep.Mode != demo.ModePlain {
			t.Errorf("without receiver tasks: mode %q", rep.Mode)
		}
		if !h.inProcess {
			return
		}
		var declared []json.RawMessage
		for _, m := range tap.messages() {
			if r, ok := m.m.(*jsonrpc.Request); ok && m.dir == jsonrpc.Inbound && r.Method == mcp.MethodInitialize {
				var p struct {
					Capabilities struct {
						Tasks json.RawMessage `json:"tasks"`
					} `json:"capabilities"`
				}
				json.Unmarshal(r.Params, &p)
				declared = append(declared, p.Capabilities.Tasks)
			}
		}
		if len(declared) != 2 {
			t.Fatalf("%d initialize requests", len(declared))
		}
		if !jsonEqual(t, declared[0], `{"list":{},"cancel":{},"requests":{"sampling":{"createMessage":{}},"elicitation":{"create":{}}}}`) {
			t.Errorf("with receiver tasks the client declared tasks %s", declared[0])
		}
		if !jsonEqual(t, declared[1], `{}`) {
			t.Errorf("without receiver tasks the client declared tasks %s", declared[1])
		}
	})
}
