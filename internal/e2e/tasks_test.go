package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// Requestor tasks (revision 2025-11-25) against the demo server's task tools, over every
// transport. docs/tasks-checklist.md maps the spec digest's checklist to these tests.

// taskIDPattern is a task id of 128 random bits, as the demo server makes them.
var taskIDPattern = regexp.MustCompile(`^[0-9a-f]{32}$`)

// TestTaskCapabilities: the server declares tasks{list, cancel, requests.tools.call}, the
// client declares capabilities.tasks, and each tool says how it may be called.
func TestTaskCapabilities(t *testing.T) {
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		var tap serverTap
		cfg := taskServer()
		cfg.tap = tap.tap
		s := h.serve(t, cfg).open(t, ctx, taskClient(nil))

		caps := s.ServerCapabilities().Tasks
		raw, err := json.Marshal(caps)
		if err != nil {
			t.Fatal(err)
		}
		if !jsonEqual(t, raw, `{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}`) {
			t.Errorf("server capabilities.tasks = %s", raw)
		}

		want := map[string]mcp.TaskSupport{
			demo.ToolInstantTask: mcp.TaskSupportOptional, demo.ToolSleepTask: mcp.TaskSupportOptional,
			demo.ToolFailTask: mcp.TaskSupportOptional, demo.ToolShortTTLTask: mcp.TaskSupportOptional,
			demo.ToolSlowTask: mcp.TaskSupportRequired, demo.ToolSideEffectTask: mcp.TaskSupportRequired,
			demo.ToolAskTask: mcp.TaskSupportRequired,
			demo.ToolAdd:     mcp.TaskSupportForbidden, // declared explicitly
			demo.ToolEcho:    "",                       // no execution at all: forbidden
		}
		for tool, err := range s.Tools(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			w, ok := want[tool.Name]
			if !ok {
				continue
			}
			delete(want, tool.Name)
			var got mcp.TaskSupport
			if tool.Execution != nil {
				got = tool.Execution.TaskSupport
			}
			if got != w {
				t.Errorf("%s: execution.taskSupport = %q, want %q", tool.Name, got, w)
			}
		}
		if len(want) > 0 {
			t.Errorf("tools missing: %v", want)
		}

		if h.inProcess {
			// What the server received: the client's initialize declared tasks.
			var found bool
			for _, m := range tap.messages() {
				if r, ok := m.m.(*jsonrpc.Request); ok && m.dir == jsonrpc.Inbound && r.Method == mcp.MethodInitialize {
					var p mcp.InitializeParams
					if err := json.Unmarshal(r.Params, &p); err != nil {
						t.Fatal(err)
					}
					found = p.Capabilities.Tasks != nil
				}
			}
			if !found {
				t.Error("the client's initialize declared no capabilities.tasks")
			}
		}
	})
}

// TestTaskSupportRules: what execution.taskSupport allows, checked by the client before
// sending (a typed error that matches -32601) and by the server when the client sends
// anyway (-32601).
func TestTaskSupportRules(t *testing.T) {
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		s := h.serve(t, taskServer()).open(t, ctx, taskClient(nil))
		if _, err := s.ListTools(ctx, nil); err != nil {
			t.Fatal(err)
		}
		sub := s.Subscribe()
		defer sub.Close()
		anyway := &client.CallOptions{SendAnyway: true}

		// A required tool called plainly.
		slow := toolParams(t, demo.ToolSlowTask, map[string]any{"seconds": 0})
		_, err := s.CallTool(ctx, slow, nil)
		var tse *client.TaskSupportError
		if !errors.As(err, &tse) || tse.AsTask || tse.Support != mcp.TaskSupportRequired || tse.Tool != demo.ToolSlowTask {
			t.Fatalf("calling required slow_task plainly: %v (%#v), want a local TaskSupportError", err, tse)
		}
		if !errors.Is(err, jsonrpc.ErrMethodNotFound) {
			t.Errorf("the local refusal %v does not match -32601", err)
		}
		_, err = s.CallTool(ctx, slow, anyway)
		if errors.As(err, new(*client.TaskSupportError)) || rpcCode(err) != jsonrpc.CodeMethodNotFound {
			t.Errorf("sent anyway: %v, want the server's -32601", err)
		}
		// Both errors say which tool and why.
		for _, e := range []error{tse, err} {
			if msg := e.Error(); !strings.Contains(msg, demo.ToolSlowTask) || !strings.Contains(msg, "required") {
				t.Errorf("error %q does not name the tool and its taskSupport", msg)
			}
		}

		// Forbidden (declared) and unmarked tools called as tasks.
		for _, name := range []string{demo.ToolAdd, demo.ToolEcho} {
			p := toolParams(t, name, map[string]any{"a": 1, "b": 2})
			if name == demo.ToolEcho {
				p = toolParams(t, name, map[string]any{"text": "x"})
			}
			_, err := s.StartToolTask(ctx, p, nil)
			tse = nil
			if !errors.As(err, &tse) || !tse.AsTask || tse.ServerDeclines || tse.Support != mcp.TaskSupportForbidden {
				t.Errorf("%s as a task: %v, want a local TaskSupportError", name, err)
			}
			if !errors.Is(err, jsonrpc.ErrMethodNotFound) {
				t.Errorf("%s: the local refusal %v does not match -32601", name, err)
			}
			_, err = s.StartToolTask(ctx, p, anyway)
			if errors.As(err, new(*client.TaskSupportError)) || rpcCode(err) != jsonrpc.CodeMethodNotFound {
				t.Errorf("%s as a task, sent anyway: %v, want the server's -32601", name, err)
			}
			if msg := err.Error(); !strings.Contains(msg, name) || !strings.Contains(msg, "forbidden") {
				t.Errorf("error %q does not name the tool and its taskSupport", msg)
			}
		}

		// Only the three calls sent anyway reached the server, and none made a task.
		if n := len(requests(rawMessages(drain(sub)), jsonrpc.Outbound, mcp.MethodToolsCall)); n != 3 {
			t.Errorf("%d tools/call sent, want 3 (the locally refused ones must not be sent)", n)
		}
		list, err := s.ListTasks(ctx, nil)
		if err != nil || len(list.Tasks) != 0 {
			t.Errorf("tasks after refused calls: %+v, %v; want none", list, err)
		}

		// An optional tool both ways.
		res := call(t, ctx, s, demo.ToolInstantTask, nil)
		if got := onlyText(t, res); got != demo.InstantTaskText || res.IsError {
			t.Errorf("instant_task called plainly = %+v", res)
		}
		ws := rawMessages(drain(sub))
		calls := requests(ws, jsonrpc.Outbound, mcp.MethodToolsCall)
		if resp := responseTo(ws, jsonrpc.Inbound, calls[len(calls)-1].ID); resp == nil || mcp.IsCreateTaskResult(resp.Result) {
			t.Errorf("a plain call of an optional tool was answered with %+v, want a plain result", resp)
		}
		task, err := s.StartToolTask(ctx, toolParams(t, demo.ToolInstantTask, nil), nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err = task.Wait(ctx)
		if err != nil || onlyText(t, res) != demo.InstantTaskText {
			t.Fatalf("instant_task as a task: %+v, %v", res, err)
		}
		if !taskIDPattern.MatchString(task.ID()) || task.State().Status != mcp.TaskStatusCompleted {
			t.Errorf("task %q ended %s", task.ID(), task.State().Status)
		}
	})
}

// TestTaskLifecycle: CreateTaskResult (working) → completed → the exact result, and the
// wire shapes on the way: Task fields, ttl, related-task meta where it belongs and nowhere
// else.
func TestTaskLifecycle(t *testing.T) {
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		s := h.serve(t, taskServer()).open(t, ctx, taskClient(nil))
		sub := s.Subscribe()
		defer sub.Close()

		evs := collect(s.CallToolTask(ctx, toolParams(t, demo.ToolInstantTask, nil), &client.CallOptions{TTL: 90 * time.Second}))
		end := outcome(t, evs)
		if end.Kind != client.TaskResult {
			t.Fatalf("outcome %s (%v), want the result", end.Kind, end.Err)
		}
		task := end.Task
		id := task.ID()
		if !taskIDPattern.MatchString(id) {
			t.Errorf("task id %q is not 128 bits of hex", id)
		}
		if evs[0].Kind != client.TaskCreated && evs[0].Kind != client.TaskStatus {
			t.Errorf("first event %s", evs[0].Kind)
		}
		if !slices.ContainsFunc(evs, func(e client.TaskEvent) bool { return e.Kind == client.TaskCreated }) {
			t.Error("no created event")
		}
		if st := statuses(evs); len(st) == 0 || st[len(st)-1].Status != mcp.TaskStatusCompleted {
			t.Errorf("statuses %+v, want completed last", st)
		}
		if end.State.Status != mcp.TaskStatusCompleted {
			t.Errorf("final state %s", end.State.Status)
		}
		wantResult := fmt.Sprintf(`{"content":[{"type":"text","text":"done"}],"_meta":{"%s":{"taskId":"%s"}}}`, mcp.MetaRelatedTask, id)
		if !sameJSON(t, end.Result, json.RawMessage(wantResult)) {
			t.Errorf("result %+v, want %s", end.Result, wantResult)
		}

		ws := rawMessages(drain(sub))
		// The call: params.task with the ttl asked for.
		calls := requests(ws, jsonrpc.Outbound, mcp.MethodToolsCall)
		if len(calls) != 1 {
			t.Fatalf("%d tools/call sent", len(calls))
		}
		var cp struct {
			Task json.RawMessage `json:"task"`
		}
		_ = json.Unmarshal(calls[0].Params, &cp)
		if !jsonEqual(t, cp.Task, `{"ttl":90000}`) {
			t.Errorf("params.task = %s, want {\"ttl\":90000}", cp.Task)
		}
		// The CreateTaskResult: the task wrapped under "task", in working, with every
		// required field and the ttl in effect.
		resp := responseTo(ws, jsonrpc.Inbound, calls[0].ID)
		var ctr struct {
			Task   map[string]json.RawMessage `json:"task"`
			TaskID json.RawMessage            `json:"taskId"`
		}
		if resp == nil || json.Unmarshal(resp.Result, &ctr) != nil || ctr.Task == nil || ctr.TaskID != nil {
			t.Fatalf("CreateTaskResult %+v: want the task wrapped under \"task\"", resp)
		}
		created := checkTaskFields(t, "CreateTaskResult.task", resp.Result, "task")
		if created.TaskID != id || created.Status != mcp.TaskStatusWorking || created.TTL == nil || *created.TTL != 90000 ||
			created.PollInterval == nil || *created.PollInterval != 20 {
			t.Errorf("CreateTaskResult.task = %+v, want %s working, ttl 90000, pollInterval 20", created, id)
		}
		// tasks/get and tasks/result: the id in params, no related-task meta sent; the
		// results of tasks/get carry no meta, the one of tasks/result does.
		for _, method := range []string{mcp.MethodTasksGet, mcp.MethodTasksResult} {
			for _, r := range requests(ws, jsonrpc.Outbound, method) {
				var p struct {
					TaskID string `json:"taskId"`
				}
				_ = json.Unmarshal(r.Params, &p)
				if p.TaskID != id {
					t.Errorf("%s params %s", method, r.Params)
				}
				if _, has := relatedTaskIn(t, r.Params); has {
					t.Errorf("%s params carry related-task meta: %s", method, r.Params)
				}
			}
		}
		for _, r := range responsesTo(ws, jsonrpc.Inbound, mcp.MethodTasksGet) {
			if _, has := relatedTaskIn(t, r.Result); has {
				t.Errorf("tasks/get result carries related-task meta: %s", r.Result)
			}
			got := checkTaskFields(t, "tasks/get result", r.Result, "")
			if got.CreatedAt != created.CreatedAt || got.TTL == nil || *got.TTL != 90000 {
				t.Errorf("tasks/get result %+v: createdAt or ttl changed", got)
			}
		}
		results := responsesTo(ws, jsonrpc.Inbound, mcp.MethodTasksResult)
		if len(results) != 1 {
			t.Fatalf("%d tasks/result responses, want 1", len(results))
		}
		if !jsonEqual(t, results[0].Result, wantResult) {
			t.Errorf("tasks/result result %s, want %s", results[0].Result, wantResult)
		}
		// Status notifications: full Task, no related-task meta.
		for _, n := range requests(ws, jsonrpc.Inbound, mcp.NotificationTasksStatus) {
			if _, has := relatedTaskIn(t, n.Params); has {
				t.Errorf("status notification carries related-task meta: %s", n.Params)
			}
			checkTaskFields(t, "status notification", n.Params, "")
		}

		// After the end: tasks/get, tasks/result and tasks/list still know it.
		st, err := s.GetTask(ctx, id)
		if err != nil || st.Status != mcp.TaskStatusCompleted || st.CreatedAt != created.CreatedAt ||
			st.TTL == nil || *st.TTL != 90000 || st.LastUpdatedAt < st.CreatedAt {
			t.Errorf("tasks/get after the end: %+v, %v", st, err)
		}
		again, err := s.TaskResult(ctx, id)
		if err != nil || !sameJSON(t, again, end.Result) {
			t.Errorf("tasks/result again: %+v, %v", again, err)
		}
		var listed bool
		for lt, err := range s.ServerTasks(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			listed = listed || lt.TaskID == id
		}
		if !listed {
			t.Error("tasks/list does not show the task tasks/get shows")
		}
		if got := s.Tasks(); len(got) != 1 || got[0] != task {
			t.Errorf("the session's registry holds %v", got)
		}
	})
}

// checkTaskFields decodes a Task (at key under raw, or raw itself when key is "") and
// checks the fields every task response must have: taskId and status strings, createdAt
// and lastUpdatedAt timestamps, and the ttl key (null allowed).
func checkTaskFields(t *testing.T, what string, raw json.RawMessage, key string) mcp.Task {
	t.Helper()
	if key != "" {
		var outer map[string]json.RawMessage
		if err := json.Unmarshal(raw, &outer); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		raw = outer[key]
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		t.Fatalf("%s: %s: %v", what, raw, err)
	}
	for _, k := range []string{"taskId", "status", "createdAt", "lastUpdatedAt", "ttl"} {
		if _, ok := fields[k]; !ok {
			t.Errorf("%s lacks %q: %s", what, k, raw)
		}
	}
	var task mcp.Task
	if err := json.Unmarshal(raw, &task); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if _, err := mcp.ParseTime(task.CreatedAt); err != nil {
		t.Errorf("%s: createdAt %q: %v", what, task.CreatedAt, err)
	}
	if _, err := mcp.ParseTime(task.LastUpdatedAt); err != nil {
		t.Errorf("%s: lastUpdatedAt %q: %v", what, task.LastUpdatedAt, err)
	}
	return task
}

// TestTaskProgressAndStatusMessages: slow_task reports progress against the call's token
// for the task's whole life and sets statusMessage at each step; nothing follows the
// terminal status.
func TestTaskProgressAndStatusMessages(t *testing.T) {
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		var tap serverTap
		cfg := serverConfig{pollInterval: time.Hour, tap: tap.tap} // status comes from notifications only
		s := h.serve(t, cfg).open(t, ctx, taskClient(nil))
		sub := s.Subscribe()
		defer sub.Close()

		p := toolParams(t, demo.ToolSlowTask, map[string]any{"seconds": 5, "steps": 5})
		const token = "e2e-slow-task"
		p.Meta.SetProgressToken(token)
		evs := collect(s.CallToolTask(ctx, p, nil))
		end := outcome(t, evs)
		if end.Kind != client.TaskResult || onlyText(t, end.Result) != "done: worked 5s in 5 steps" {
			t.Fatalf("outcome %s: %+v, %v", end.Kind, end.Result, end.Err)
		}
		id := end.Task.ID()

		var progress []*mcp.ProgressNotificationParams
		for _, e := range evs {
			if e.Kind == client.TaskProgress {
				if e.Task != end.Task {
					t.Error("a progress event is linked to another task")
				}
				progress = append(progress, e.Progress)
			}
		}
		if len(progress) != 6 {
			t.Fatalf("%d progress events, want 6 (start and 5 steps)", len(progress))
		}
		for k, pr := range progress {
			if pr.ProgressToken != token || pr.Progress != float64(k) || pr.Total == nil || *pr.Total != 5 {
				t.Errorf("progress #%d = %+v, want %d of 5 with token %s", k, pr, k, token)
			}
			if k > 0 && pr.Message != fmt.Sprintf("step %d of 5", k) {
				t.Errorf("progress #%d message %q", k, pr.Message)
			}
			if rt, _ := pr.Meta.RelatedTask(); rt != id {
				t.Errorf("progress #%d carries related task %q, want %s", k, rt, id)
			}
		}

		seen := map[string]bool{}
		for _, st := range statuses(evs) {
			if st.Status == mcp.TaskStatusWorking {
				seen[st.StatusMessage] = true
			}
		}
		for k := 1; k <= 5; k++ {
			if msg := fmt.Sprintf("step %d of 5", k); !seen[msg] {
				t.Errorf("statusMessage %q never seen; saw %v", msg, seen)
			}
		}

		// Progress stops at the terminal status: on the wire as the client read it (one
		// ordered stream: stdin/stdout, a pipe, or the HTTP GET stream that carries both)...
		ws := rawMessages(drain(sub))
		terminalAt, lastProgressAt := -1, -1
		for i, w := range ws {
			r, ok := w.m.(*jsonrpc.Request)
			if !ok || w.dir != jsonrpc.Inbound {
				continue
			}
			switch r.Method {
			case mcp.NotificationTasksStatus:
				var st mcp.Task
				if json.Unmarshal(r.Params, &st) == nil && st.TaskID == id && st.Status.IsTerminal() && terminalAt < 0 {
					terminalAt = i
				}
			case mcp.NotificationProgress:
				lastProgressAt = i
			}
		}
		if terminalAt < 0 || lastProgressAt > terminalAt {
			t.Errorf("terminal status notification at %d, last progress at %d: progress must stop first", terminalAt, lastProgressAt)
		}
		// Over Streamable HTTP the result comes on a stream of its own: the client asks
		// for it only once the GET stream, which carries the progress, has told the end,
		// so that no progress is still on its way when the outcome closes the events.
		if h.name == "http" {
			for i, w := range ws {
				if r, ok := w.m.(*jsonrpc.Request); ok && w.dir == jsonrpc.Outbound && r.Method == mcp.MethodTasksResult && i < terminalAt {
					t.Errorf("tasks/result sent at %d, before the terminal status notification at %d", i, terminalAt)
				}
			}
		}
		// Over Streamable HTTP the result comes on a stream of its own: the client asks
		// for it only once the GET stream, which carries the progress, has told the end,
		// so that no progress is still on its way when the outcome closes the events.
		if h.name == "http" {
			for i, w := range ws {
				if r, ok := w.m.(*jsonrpc.Request); ok && w.dir == jsonrpc.Outbound && r.Method == mcp.MethodTasksResult && i < terminalAt {
					t.Errorf("tasks/result sent at %d, before the terminal status notification at %d", i, terminalAt)
				}
			}
		}
		// ...and as the server sent it.
		if h.inProcess {
			terminal := false
			for _, m := range tap.messages() {
				r, ok := m.m.(*jsonrpc.Request)
				if !ok || m.dir != jsonrpc.Outbound {
					continue
				}
				if r.Method == mcp.NotificationTasksStatus {
					var st mcp.Task
					_ = json.Unmarshal(r.Params, &st)
					terminal = terminal || st.Status.IsTerminal()
				}
				if r.Method == mcp.NotificationProgress && terminal {
					t.Errorf("the server sent progress after the terminal status: %s", r.Params)
				}
			}
		}
	})
}

// TestTaskFailedIsError: a tool result with isError makes the task failed, with the text
// as statusMessage; tasks/result still returns that result, exactly.
func TestTaskFailedIsError(t *testing.T) {
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		s := h.serve(t, taskServer()).open(t, ctx, taskClient(nil))
		sub := s.Subscribe()
		defer sub.Close()
		end := outcome(t, collect(s.CallToolTask(ctx, toolParams(t, demo.ToolFailTask, map[string]any{"mode": "isError"}), nil)))
		if end.Kind != client.TaskResult || !end.Result.IsError || onlyText(t, end.Result) != demo.FailTaskText {
			t.Fatalf("outcome %s: %+v, %v; want the isError result", end.Kind, end.Result, end.Err)
		}
		id := end.Task.ID()
		if end.State.Status != mcp.TaskStatusFailed || end.State.StatusMessage != demo.FailTaskText {
			t.Errorf("final state %s %q, want failed with the tool's text", end.State.Status, end.State.StatusMessage)
		}
		want := fmt.Sprintf(`{"content":[{"type":"text","text":%q}],"isError":true,"_meta":{"%s":{"taskId":"%s"}}}`,
			demo.FailTaskText, mcp.MetaRelatedTask, id)
		// The client fetched the outcome of the failed task with tasks/result.
		results := responsesTo(rawMessages(drain(sub)), jsonrpc.Inbound, mcp.MethodTasksResult)
		if len(results) != 1 || !jsonEqual(t, results[0].Result, want) {
			t.Fatalf("tasks/result responses %+v, want one with %s", results, want)
		}
		again, err := s.TaskResult(ctx, id)
		if err != nil || !sameJSON(t, again, json.RawMessage(want)) {
			t.Errorf("tasks/result again: %+v, %v", again, err)
		}
		st, err := s.GetTask(ctx, id)
		if err != nil || st.Status != mcp.TaskStatusFailed || st.StatusMessage != demo.FailTaskText {
			t.Errorf("tasks/get: %+v, %v", st, err)
		}
	})
}

// TestTaskFailedError: a JSON-RPC error from the tool makes the task failed, and
// tasks/result returns that error exactly: code, message and data.
func TestTaskFailedError(t *testing.T) {
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		s := h.serve(t, taskServer()).open(t, ctx, taskClient(nil))
		sub := s.Subscribe()
		defer sub.Close()
		end := outcome(t, collect(s.CallToolTask(ctx, toolParams(t, demo.ToolFailTask, map[string]any{"mode": "error"}), nil)))
		if end.Kind != client.TaskError {
			t.Fatalf("outcome %s, want the error", end.Kind)
		}
		checkFailError := func(what string, err error) {
			t.Helper()
			var re *jsonrpc.Error
			if !errors.As(err, &re) || re.Code != demo.FailTaskCode || re.Message != demo.FailTaskMessage || !jsonEqual(t, re.Data, demo.FailTaskData) {
				t.Errorf("%s: %v (%#v), want -32050 %q with data %s", what, err, re, demo.FailTaskMessage, demo.FailTaskData)
			}
		}
		checkFailError("the task's outcome", end.Err)
		id := end.Task.ID()
		if end.State.Status != mcp.TaskStatusFailed || end.State.StatusMessage != demo.FailTaskMessage {
			t.Errorf("final state %s %q", end.State.Status, end.State.StatusMessage)
		}
		results := responsesTo(rawMessages(drain(sub)), jsonrpc.Inbound, mcp.MethodTasksResult)
		if len(results) != 1 || results[0].Error == nil {
			t.Fatalf("tasks/result responses %+v, want one error", results)
		}
		raw, _ := json.Marshal(results[0].Error)
		if !jsonEqual(t, raw, fmt.Sprintf(`{"code":-32050,"message":%q,"data":%s}`, demo.FailTaskMessage, demo.FailTaskData)) {
			t.Errorf("tasks/result error on the wire: %s", raw)
		}
		_, err := s.TaskResult(ctx, id)
		checkFailError("tasks/result again", err)
		st, err := s.GetTask(ctx, id)
		if err != nil || st.Status != mcp.TaskStatusFailed || st.StatusMessage != demo.FailTaskMessage {
			t.Errorf("tasks/get: %+v, %v", st, err)
		}
	})
}

// TestTaskUnknownID: unknown ids and cursors are -32602, and the session goes on.
func TestTaskUnknownID(t *testing.T) {
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		s := h.serve(t, taskServer()).open(t, ctx, taskClient(nil))
		for _, id := range []string{"no-such-task", "0123456789abcdef0123456789abcdef", ""} {
			if _, err := s.GetTask(ctx, id); rpcCode(err) != jsonrpc.CodeInvalidParams {
				t.Errorf("tasks/get %q: %v, want -32602", id, err)
			}
			if _, err := s.TaskResult(ctx, id); rpcCode(err) != jsonrpc.CodeInvalidParams {
				t.Errorf("tasks/result %q: %v, want -32602", id, err)
			}
			if _, err := s.CancelTask(ctx, id); rpcCode(err) != jsonrpc.CodeInvalidParams {
				t.Errorf("tasks/cancel %q: %v, want -32602", id, err)
			}
		}
		if _, err := s.ListTasks(ctx, &mcp.ListTasksParams{Cursor: "not a cursor"}); rpcCode(err) != jsonrpc.CodeInvalidParams {
			t.Errorf("tasks/list with a bad cursor: %v, want -32602", err)
		}
		if err := s.Ping(ctx); err != nil {
			t.Fatal(err)
		}
	})
}

// TestTaskListPaginated: many tasks, small pages: every page but the last has a cursor,
// and ServerTasks walks them all, oldest first.
func TestTaskListPaginated(t *testing.T) {
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		cfg := taskServer()
		cfg.taskPageSize = 3
		s := h.serve(t, cfg).open(t, ctx, taskClient(nil))
		var ids []string
		for range 10 {
			task, err := s.StartToolTask(ctx, toolParams(t, demo.ToolInstantTask, nil), nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := task.Wait(ctx); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, task.ID())
		}
		unique := slices.Clone(ids)
		slices.Sort(unique)
		if len(slices.Compact(unique)) != 10 {
			t.Fatalf("task ids are not unique: %v", ids)
		}

		first, err := s.ListTasks(ctx, nil)
		if err != nil || len(first.Tasks) != 3 || first.NextCursor == "" {
			t.Fatalf("first page: %+v, %v; want 3 tasks and a cursor", first, err)
		}
		sub := s.Subscribe()
		defer sub.Close()
		var listed []string
		for task, err := range s.ServerTasks(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			if task.Status != mcp.TaskStatusCompleted || task.CreatedAt == "" || task.LastUpdatedAt == "" || task.TTL == nil {
				t.Errorf("listed task %+v", task)
			}
			listed = append(listed, task.TaskID)
		}
		if !slices.Equal(listed, ids) {
			t.Errorf("listed %v, want %v", listed, ids)
		}
		if n := len(requests(rawMessages(drain(sub)), jsonrpc.Outbound, mcp.MethodTasksList)); n != 4 {
			t.Errorf("%d tasks/list requests for 10 tasks in pages of 3, want 4", n)
		}
		if _, err := s.ListTasks(ctx, &mcp.ListTasksParams{Cursor: "bogus!"}); rpcCode(err) != jsonrpc.CodeInvalidParams {
			t.Errorf("a bad cursor: %v, want -32602", err)
		}
	})
}
