package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/transport"
)

// TestTaskCancel: tasks/cancel leaves the task cancelled (already in the reply), stops the
// work before its side effect, keeps it cancelled, and refuses to cancel a task that has
// ended.
func TestTaskCancel(t *testing.T) {
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		exits := make(chan error, 2)
		cfg := taskServer()
		cfg.onSideEffectExit = func(path string, err error) { exits <- err }
		dir := t.TempDir()
		cfg.files = dir
		s := h.serve(t, cfg).open(t, ctx, taskClient(nil))
		sub := s.Subscribe()
		defer sub.Close()
		wire := s.Subscribe() // the raw traffic, read at the end
		defer wire.Close()

		// 600 s: the demo's test clock keeps it waiting until the task is cancelled.
		path := filepath.Join(dir, "cancelled.txt")
		task, err := s.StartToolTask(ctx, toolParams(t, demo.ToolSideEffectTask, map[string]any{"seconds": 600, "path": "cancelled.txt"}), nil)
		if err != nil {
			t.Fatal(err)
		}
		id := task.ID()
		st, err := task.Cancel(ctx)
		if err != nil || st.TaskID != id || st.Status != mcp.TaskStatusCancelled || st.StatusMessage == "" {
			t.Fatalf("cancel: %+v, %v; want the task in cancelled, with a message", st, err)
		}
		if _, err := task.Wait(ctx); err == nil || !strings.Contains(err.Error(), "cancelled") {
			t.Errorf("the cancelled task's outcome: %v", err)
		}
		if task.State().Status != mcp.TaskStatusCancelled {
			t.Errorf("the client's view: %s", task.State().Status)
		}

		// The work stopped before its side effect: it says so (a log message, the only
		// trace a stdio server can leave), a server in this process also calls the hook,
		// and the file is not there.
		logged := waitFor(t, ctx, sub, func(e *client.LogEvent) bool {
			return strings.Contains(string(e.Params.Data), "side_effect_task stopped without writing")
		})
		if !strings.Contains(string(logged.Params.Data), "context canceled") {
			t.Errorf("log message %s", logged.Params.Data)
		}
		if h.inProcess {
			if err := <-exits; !errors.Is(err, context.Canceled) {
				t.Errorf("side_effect_task exited with %v, want context.Canceled", err)
			}
		}
		if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("the side effect happened after all: stat %s: %v", path, err)
		}

		// Cancelled for good; a second cancel is refused.
		if st, err := s.GetTask(ctx, id); err != nil || st.Status != mcp.TaskStatusCancelled {
			t.Errorf("tasks/get after cancel: %+v, %v", st, err)
		}
		if _, err := s.CancelTask(ctx, id); rpcCode(err) != jsonrpc.CodeInvalidParams {
			t.Errorf("cancelling a cancelled task: %v, want -32602", err)
		}
		// A cancelled task has no result: the demo server says so with -32603 (the spec
		// leaves the error open; digest §14.1).
		if _, err := s.TaskResult(ctx, id); rpcCode(err) != jsonrpc.CodeInternalError {
			t.Errorf("tasks/result of a cancelled task: %v, want -32603", err)
		}

		// The same tool not cancelled does its side effect; cancelling it afterwards is
		// refused too.
		done := filepath.Join(dir, "done.txt")
		task2, err := s.StartToolTask(ctx, toolParams(t, demo.ToolSideEffectTask, map[string]any{"seconds": 0, "path": "done.txt"}), nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := task2.Wait(ctx)
		if err != nil || onlyText(t, res) != "wrote done.txt in "+dir {
			t.Fatalf("side_effect_task 0 s: %+v, %v", res, err)
		}
		if _, err := os.Stat(done); err != nil {
			t.Errorf("the side effect did not happen: %v", err)
		}
		if _, err := s.CancelTask(ctx, task2.ID()); rpcCode(err) != jsonrpc.CodeInvalidParams {
			t.Errorf("cancelling a completed task: %v, want -32602", err)
		}

		// Tasks are cancelled with tasks/cancel, never notifications/cancelled.
		ws := rawMessages(drain(wire))
		if n := requests(ws, jsonrpc.Outbound, jsonrpc.CancelledMethod); len(n) != 0 {
			t.Errorf("the client sent notifications/cancelled: %s", n[0].Params)
		}
		if n := requests(ws, jsonrpc.Outbound, mcp.MethodTasksCancel); len(n) != 3 || !jsonEqual(t, n[0].Params, `{"taskId":"`+id+`"}`) {
			t.Errorf("tasks/cancel sent: %v, want 3, the first for %s", n, id)
		}
	})
}

// isCreateTaskResponse matches the server's CreateTaskResult.
func isCreateTaskResponse(m jsonrpc.Message) bool {
	r, ok := m.(*jsonrpc.Response)
	return ok && r.Error == nil && mcp.IsCreateTaskResult(r.Result)
}

// TestTaskCancelBeforeID: a cancel asked while the CreateTaskResult is still on its way
// (held back here, after the task's first progress) is sent as soon as the id arrives.
func TestTaskCancelBeforeID(t *testing.T) {
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		release := make(chan struct{})
		s := h.serve(t, taskServer()).openVia(t, ctx, taskClient(nil), func(tr transport.Transport) transport.Transport {
			return &holdTransport{inner: tr, holdIn: isCreateTaskResponse, release: release}
		})
		if _, err := s.ListTools(ctx, nil); err != nil {
			t.Fatal(err)
		}
		sub := s.Subscribe()
		defer sub.Close()

		p := toolParams(t, demo.ToolSlowTask, map[string]any{"seconds": 600, "steps": 2})
		p.Meta.SetProgressToken("before-the-id")
		type started struct {
			task *client.Task
			err  error
		}
		start := make(chan started, 1)
		go func() {
			task, err := s.StartToolTask(ctx, p, nil)
			start <- started{task, err}
		}()
		ev := waitFor(t, ctx, sub, func(e *client.TaskEvent) bool { return e.Kind == client.TaskProgress })
		task := ev.Task
		if task.ID() != "" {
			t.Fatalf("the task id %q is known already; the CreateTaskResult was not held", task.ID())
		}
		if st, err := task.Cancel(ctx); err != nil || st.TaskID != "" {
			t.Fatalf("cancel before the id: %+v, %v; want it deferred", st, err)
		}
		close(release)
		got := <-start
		if got.err != nil || got.task != task {
			t.Fatalf("StartToolTask: %v (same task: %v)", got.err, got.task == task)
		}
		if _, err := task.Wait(ctx); err == nil || !strings.Contains(err.Error(), "cancelled") {
			t.Errorf("outcome %v, want cancelled", err)
		}
		id := task.ID()
		if st, err := s.GetTask(ctx, id); err != nil || st.Status != mcp.TaskStatusCancelled {
			t.Errorf("the server's view: %+v, %v", st, err)
		}
		cancels := requests(rawMessages(drain(sub)), jsonrpc.Outbound, mcp.MethodTasksCancel)
		if len(cancels) != 1 || !jsonEqual(t, cancels[0].Params, `{"taskId":"`+id+`"}`) {
			t.Errorf("tasks/cancel sent: %v", cancels)
		}
	})
}

// TestTaskSessionScope: two sessions of one server see only their own tasks, and status
// notifications go only to the session that owns the task. A stdio server serves one
// session, so there the question does not arise.
func TestTaskSessionScope(t *testing.T) {
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		var tap serverTap
		cfg := taskServer()
		cfg.tap = tap.tap
		ep := h.serve(t, cfg)
		if !ep.shared {
			t.Skip("a stdio server serves exactly one session: each session is a process of its own")
		}
		a := ep.open(t, ctx, taskClient(nil))
		b := ep.open(t, ctx, taskClient(nil))
		subB := b.Subscribe()
		defer subB.Close()
		rawB := b.Subscribe() // everything B receives, read after the barrier
		defer rawB.Close()

		blocked, err := a.StartToolTask(ctx, toolParams(t, demo.ToolSleepTask, map[string]any{"seconds": 600}), nil)
		if err != nil {
			t.Fatal(err)
		}
		end := outcome(t, collect(a.CallToolTask(ctx, toolParams(t, demo.ToolSlowTask, map[string]any{"seconds": 1, "steps": 3}), nil)))
		if end.Kind != client.TaskResult {
			t.Fatalf("slow_task: %s %v", end.Kind, end.Err)
		}
		done := end.Task

		for task, err := range b.ServerTasks(ctx, nil) {
			t.Errorf("session B lists %+v (%v)", task, err)
		}
		for _, id := range []string{blocked.ID(), done.ID()} {
			if _, err := b.GetTask(ctx, id); rpcCode(err) != jsonrpc.CodeInvalidParams {
				t.Errorf("B: tasks/get of A's task: %v, want -32602", err)
			}
			if _, err := b.TaskResult(ctx, id); rpcCode(err) != jsonrpc.CodeInvalidParams {
				t.Errorf("B: tasks/result of A's task: %v, want -32602", err)
			}
			if _, err := b.CancelTask(ctx, id); rpcCode(err) != jsonrpc.CodeInvalidParams {
				t.Errorf("B: tasks/cancel of A's task: %v, want -32602", err)
			}
		}
		if st, err := a.GetTask(ctx, blocked.ID()); err != nil || st.Status != mcp.TaskStatusWorking {
			t.Errorf("A's task after B's attempts: %+v, %v", st, err)
		}
		var mine []string
		for task, err := range a.ServerTasks(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			mine = append(mine, task.TaskID)
		}
		if !slices.Equal(mine, []string{blocked.ID(), done.ID()}) {
			t.Errorf("A lists %v", mine)
		}

		// A barrier: a tools/list_changed goes to both sessions on the stream that would
		// carry status notifications, so once B has it, B has everything sent before.
		ep.srv.AddTool(&mcp.Tool{Name: "barrier"}, func(context.Context, *server.ToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
		waitFor(t, ctx, subB, func(e *client.ListChangedEvent) bool { return e.Method == mcp.NotificationToolsListChanged })
		ws := rawMessages(drain(rawB))
		for _, m := range []string{mcp.NotificationTasksStatus, mcp.NotificationProgress} {
			if n := requests(ws, jsonrpc.Inbound, m); len(n) > 0 {
				t.Errorf("session B received %s about A's task: %s", m, n[0].Params)
			}
		}
		// The server's side: every status notification went to the session that owns
		// the tasks (the one that called tools).
		var owner *server.Session
		sent := 0
		for _, m := range tap.messages() {
			r, ok := m.m.(*jsonrpc.Request)
			if !ok {
				continue
			}
			if m.dir == jsonrpc.Inbound && r.Method == mcp.MethodToolsCall {
				owner = m.s
			}
			if m.dir == jsonrpc.Outbound && r.Method == mcp.NotificationTasksStatus {
				sent++
				if m.s != owner {
					t.Errorf("a status notification went to another session: %s", r.Params)
				}
			}
		}
		if sent == 0 {
			t.Error("no status notification was sent at all")
		}
		if _, err := blocked.Cancel(ctx); err != nil {
			t.Error(err)
		}
	})
}

// answerAskTask answers ask_task's two side-channel requests, checking that each is
// linked to the task, and returns how many it answered.
func answerAskTask(t *testing.T, s *client.Session, e client.TaskEvent) {
	t.Helper()
	r := e.Request
	id := e.Task.ID()
	if r.RelatedTask != id {
		t.Errorf("%s linked to task %q, want %s", r.Method, r.RelatedTask, id)
	}
	if !slices.Contains(s.PendingRequests(), r) {
		t.Errorf("%s is not in the pending queue", r.Method)
	}
	switch {
	case r.Elicitation != nil:
		if rt, _ := r.Elicitation.Meta.RelatedTask(); rt != id || r.Elicitation.Message != "What is your name?" {
			t.Errorf("elicitation %+v", r.Elicitation)
		}
		if err := r.Accept(map[string]any{"name": "Ada"}); err != nil {
			t.Error(err)
		}
	case r.Sampling != nil:
		if rt, _ := r.Sampling.Meta.RelatedTask(); rt != id {
			t.Errorf("sampling request linked to %q", rt)
		}
		if len(r.Sampling.Messages) != 1 || len(r.Sampling.Messages[0].Content) != 1 ||
			!strings.Contains(r.Sampling.Messages[0].Content[0].Text, "Ada") {
			t.Errorf("sampling messages %+v, want the name in them", r.Sampling.Messages)
		}
		err := r.Respond(&mcp.CreateMessageResult{
			Role: mcp.RoleAssistant, Content: []mcp.Content{mcp.TextContent("Hello, Ada!")}, Model: "e2e-model",
		})
		if err != nil {
			t.Error(err)
		}
	default:
		t.Errorf("unexpected request %s", r.Method)
	}
}

// checkAskTaskResult checks ask_task's result: both answers, and that both of the client's
// responses reached the server carrying the task's related-task meta.
func checkAskTaskResult(t *testing.T, end client.TaskEvent) {
	t.Helper()
	if end.Kind != client.TaskResult {
		t.Fatalf("outcome %s (%v), want the result", end.Kind, end.Err)
	}
	id := end.Task.ID()
	if got := onlyText(t, end.Result); end.Result.IsError || got != "name: Ada; model: Hello, Ada!" {
		t.Errorf("ask_task = %q (isError %v)", got, end.Result.IsError)
	}
	want := `{"name":"Ada","model":"Hello, Ada!","elicitationRelatedTask":"` + id + `","samplingRelatedTask":"` + id + `"}`
	if !jsonEqual(t, end.Result.StructuredContent, want) {
		t.Errorf("structured content %s, want %s", end.Result.StructuredContent, want)
	}
}

// TestTaskInputRequired: ask_task goes input_required; the client calls tasks/result at
// once (the server suggests polling once an hour, so nothing else would move it); the
// elicitation and then the sampling request arrive tagged with the task, linked to it in
// the pending queue; the answers carry the related-task meta; the task completes.
func TestTaskInputRequired(t *testing.T) {
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		var tap serverTap
		s := h.serve(t, serverConfig{pollInterval: time.Hour, tap: tap.tap}).open(t, ctx, taskClient(nil))
		sub := s.Subscribe()
		defer sub.Close()
		statusSub := s.Subscribe()
		defer statusSub.Close()

		var evs []client.TaskEvent
		var inputs []string
		for e := range s.CallToolTask(ctx, toolParams(t, demo.ToolAskTask, nil), nil) {
			if e.Kind == "closed" {
				continue
			}
			evs = append(evs, e)
			if e.Kind == client.TaskInput {
				inputs = append(inputs, e.Request.Method)
				answerAskTask(t, s, e)
			}
		}
		end := outcome(t, evs)
		checkAskTaskResult(t, end)
		id := end.Task.ID()
		if !slices.Equal(inputs, []string{mcp.MethodElicitationCreate, mcp.MethodSamplingCreateMessage}) {
			t.Errorf("input requests %v, want elicitation then sampling", inputs)
		}
		// input_required, then working again once the input is in, then completed. The
		// open tasks/result may bring the outcome before the last notifications (over HTTP
		// they travel on another stream), so the statuses are read from the session's
		// events, which go on after the outcome, until completed.
		var seq []mcp.TaskStatus
		for {
			e := waitFor(t, ctx, statusSub, func(e *client.TaskEvent) bool { return e.Kind == client.TaskStatus && e.Task.ID() == id })
			if len(seq) == 0 || seq[len(seq)-1] != e.State.Status {
				seq = append(seq, e.State.Status)
			}
			if e.State.Status.IsTerminal() {
				break
			}
		}
		ir := slices.Index(seq, mcp.TaskStatusInputRequired)
		if ir < 0 || !slices.Contains(seq[ir:], mcp.TaskStatusWorking) || seq[len(seq)-1] != mcp.TaskStatusCompleted {
			t.Errorf("statuses %v, want input_required, working again, then completed", seq)
		}

		ws := rawMessages(drain(sub))
		if n := len(requests(ws, jsonrpc.Outbound, mcp.MethodTasksGet)); n != 0 {
			t.Errorf("%d tasks/get sent: the client should have followed by notifications and tasks/result", n)
		}
		resultAt, elicitAt := -1, -1
		for i, w := range ws {
			if r, ok := w.m.(*jsonrpc.Request); ok {
				if w.dir == jsonrpc.Outbound && r.Method == mcp.MethodTasksResult && resultAt < 0 {
					resultAt = i
				}
				if w.dir == jsonrpc.Inbound && r.Method == mcp.MethodElicitationCreate && elicitAt < 0 {
					elicitAt = i
				}
			}
		}
		if resultAt < 0 || elicitAt < resultAt {
			t.Errorf("tasks/result sent at %d, elicitation received at %d: want tasks/result first", resultAt, elicitAt)
		}
		// That tasks/result, sent while the task waited for input, blocked until the end:
		// its response came after the client's answers. (The client may send a second
		// tasks/result as the first returns, a harmless client race; the first counts.)
		first := requests(ws, jsonrpc.Outbound, mcp.MethodTasksResult)[0]
		answeredAt, resultRespAt := -1, -1
		for i, w := range ws {
			if r, ok := w.m.(*jsonrpc.Response); ok {
				if w.dir == jsonrpc.Outbound {
					answeredAt = i
				}
				if w.dir == jsonrpc.Inbound && r.ID == first.ID {
					resultRespAt = i
				}
			}
		}
		if resultRespAt < 0 || resultRespAt < answeredAt {
			t.Errorf("the first tasks/result answered at %d, before the client's last answer at %d", resultRespAt, answeredAt)
		}
		// The server's requests carry the task, and so do the client's answers.
		for _, method := range []string{mcp.MethodElicitationCreate, mcp.MethodSamplingCreateMessage} {
			reqs := requests(ws, jsonrpc.Inbound, method)
			if len(reqs) != 1 {
				t.Fatalf("%d %s requests", len(reqs), method)
			}
			if rt, _ := relatedTaskIn(t, reqs[0].Params); rt != id {
				t.Errorf("%s params related task %q", method, rt)
			}
			resp := responseTo(ws, jsonrpc.Outbound, reqs[0].ID)
			if resp == nil {
				t.Fatalf("no response to %s", method)
			}
			if rt, _ := relatedTaskIn(t, resp.Result); rt != id {
				t.Errorf("the response to %s carries related task %q: %s", method, rt, resp.Result)
			}
		}
		if h.inProcess {
			// As the server received them.
			asked := map[jsonrpc.ID]string{}
			answered := 0
			for _, m := range tap.messages() {
				switch r := m.m.(type) {
				case *jsonrpc.Request:
					if m.dir == jsonrpc.Outbound && (r.Method == mcp.MethodElicitationCreate || r.Method == mcp.MethodSamplingCreateMessage) {
						asked[r.ID] = r.Method
					}
				case *jsonrpc.Response:
					if _, ok := asked[r.ID]; ok && m.dir == jsonrpc.Inbound {
						answered++
						if rt, _ := relatedTaskIn(t, r.Result); rt != id {
							t.Errorf("the server received the answer to %s without the related task: %s", asked[r.ID], r.Result)
						}
					}
				}
			}
			if answered != 2 {
				t.Errorf("the server received %d answers, want 2", answered)
			}
		}
		if st, err := s.GetTask(ctx, id); err != nil || st.Status != mcp.TaskStatusCompleted {
			t.Errorf("tasks/get after the result: %+v, %v", st, err)
		}
	})
}

// TestTaskInputOnAnyStream: the client holds back its tasks/result, so the server, after
// waiting one pollInterval for it, sends its side-channel request on whatever stream it
// has (over HTTP: the standalone GET stream, as no request of the client is open); the
// client takes it there all the same.
func TestTaskInputOnAnyStream(t *testing.T) {
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		var tap serverTap
		release := make(chan struct{})
		isResult := func(m jsonrpc.Message) bool {
			r, ok := m.(*jsonrpc.Request)
			return ok && r.Method == mcp.MethodTasksResult
		}
		s := h.serve(t, serverConfig{pollInterval: 20 * time.Millisecond, tap: tap.tap}).openVia(t, ctx, taskClient(nil),
			func(tr transport.Transport) transport.Transport {
				return &holdTransport{inner: tr, holdOut: isResult, release: release}
			})
		var once sync.Once
		var evs []client.TaskEvent
		for e := range s.CallToolTask(ctx, toolParams(t, demo.ToolAskTask, nil), nil) {
			if e.Kind == "closed" {
				continue
			}
			evs = append(evs, e)
			if e.Kind == client.TaskInput {
				once.Do(func() { close(release) })
				answerAskTask(t, s, e)
			}
		}
		checkAskTaskResult(t, outcome(t, evs))
		if h.inProcess {
			// The server sent the elicitation before any tasks/result reached it.
			elicitAt, resultAt := -1, -1
			for i, m := range tap.messages() {
				if r, ok := m.m.(*jsonrpc.Request); ok {
					if m.dir == jsonrpc.Outbound && r.Method == mcp.MethodElicitationCreate && elicitAt < 0 {
						elicitAt = i
					}
					if m.dir == jsonrpc.Inbound && r.Method == mcp.MethodTasksResult && resultAt < 0 {
						resultAt = i
					}
				}
			}
			if elicitAt < 0 || (resultAt >= 0 && resultAt < elicitAt) {
				t.Errorf("elicitation sent at %d, first tasks/result received at %d: want the elicitation first", elicitAt, resultAt)
			}
		}
	})
}

// TestTaskExpires: a task whose ttl runs out is deleted by the server; the client reports
// it gone (never a crash) and the session goes on. short_ttl_task caps every ttl at 2 s.
func TestTaskExpires(t *testing.T) {
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		s := h.serve(t, taskServer()).open(t, ctx, taskClient(nil))

		capped, err := s.StartToolTask(ctx, toolParams(t, demo.ToolShortTTLTask, map[string]any{"seconds": 600}), &client.CallOptions{TTL: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		if ttl := capped.State().TTL; ttl == nil || *ttl != demo.ShortTaskTTL.Milliseconds() {
			t.Errorf("short_ttl_task asked for 1 h got ttl %v, want %d", ttl, demo.ShortTaskTTL.Milliseconds())
		}
		if _, err := capped.Cancel(ctx); err != nil {
			t.Fatal(err)
		}
		other, err := s.StartToolTask(ctx, toolParams(t, demo.ToolSleepTask, map[string]any{"seconds": 600}), &client.CallOptions{TTL: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		if ttl := other.State().TTL; ttl == nil || *ttl != time.Hour.Milliseconds() {
			t.Errorf("sleep_task asked for 1 h got ttl %v", ttl)
		}
		if _, err := other.Cancel(ctx); err != nil {
			t.Fatal(err)
		}

		// A task that asks for 1 ms is gone by the client's first poll.
		evs := collect(s.CallToolTask(ctx, toolParams(t, demo.ToolShortTTLTask, map[string]any{"seconds": 600}), &client.CallOptions{TTL: time.Millisecond}))
		end := outcome(t, evs)
		if end.Kind != client.TaskGone || !errors.Is(end.Err, client.ErrTaskGone) {
			t.Fatalf("outcome %s (%v), want gone", end.Kind, end.Err)
		}
		id := end.Task.ID()
		if res, err := end.Task.Outcome(); res != nil || !errors.Is(err, client.ErrTaskGone) {
			t.Errorf("outcome %+v, %v", res, err)
		}
		if _, err := s.GetTask(ctx, id); rpcCode(err) != jsonrpc.CodeInvalidParams {
			t.Errorf("tasks/get of the expired task: %v, want -32602", err)
		}
		if _, err := s.TaskResult(ctx, id); rpcCode(err) != jsonrpc.CodeInvalidParams {
			t.Errorf("tasks/result of the expired task: %v, want -32602", err)
		}
		if err := s.Ping(ctx); err != nil {
			t.Fatal(err)
		}
	})
}

// TestTaskIgnoredByServer: a server without the tasks capability runs a task-augmented call
// as a plain one. The client refuses to ask it for a task; sent anyway, the plain result
// is the task's outcome at once.
func TestTaskIgnoredByServer(t *testing.T) {
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		s := h.serve(t, serverConfig{plain: true}).open(t, ctx, taskClient(nil))
		if s.ServerCapabilities().Tasks != nil {
			t.Fatal("the plain server declares tasks")
		}
		sub := s.Subscribe()
		defer sub.Close()
		p := toolParams(t, plainTool, nil)
		_, err := s.StartToolTask(ctx, p, nil)
		var tse *client.TaskSupportError
		if !errors.As(err, &tse) || !tse.ServerDeclines || !errors.Is(err, jsonrpc.ErrMethodNotFound) {
			t.Errorf("asking a server without tasks for a task: %v, want a local TaskSupportError", err)
		}
		if n := len(requests(rawMessages(drain(sub)), jsonrpc.Outbound, mcp.MethodToolsCall)); n != 0 {
			t.Errorf("%d tools/call sent for a refused task", n)
		}

		task, err := s.StartToolTask(ctx, p, &client.CallOptions{SendAnyway: true})
		if err != nil {
			t.Fatal(err)
		}
		select {
		case <-task.Done():
		default:
			t.Fatal("the task is not done at once")
		}
		res, err := task.Outcome()
		if err != nil || onlyText(t, res) != plainToolText || task.ID() != "" {
			t.Errorf("outcome %+v, %v, id %q", res, err, task.ID())
		}
		ws := rawMessages(drain(sub))
		calls := requests(ws, jsonrpc.Outbound, mcp.MethodToolsCall)
		if len(calls) != 1 || !strings.Contains(string(calls[0].Params), `"task":{}`) {
			t.Fatalf("tools/call sent: %v", calls)
		}
		if resp := responseTo(ws, jsonrpc.Inbound, calls[0].ID); resp == nil || mcp.IsCreateTaskResult(resp.Result) {
			t.Errorf("the server answered %+v, want a plain result", resp)
		}
		// The event stream of such a call ends with the result too.
		end := outcome(t, collect(s.CallToolTask(ctx, p, &client.CallOptions{SendAnyway: true})))
		if end.Kind != client.TaskResult || onlyText(t, end.Result) != plainToolText {
			t.Errorf("CallToolTask: %s %+v %v", end.Kind, end.Result, end.Err)
		}
	})
}

// TestTaskReconnectAdopt: a client that lost its session reaches its tasks from a new one
// by id (the demo server adopts orphaned tasks), and tasks/list shows them afterwards. A
// stdio server ends with its only session, so there is nothing to come back to.
func TestTaskReconnectAdopt(t *testing.T) {
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		ep := h.serve(t, taskServer())
		if !ep.shared {
			t.Skip("a stdio server ends with its only session")
		}
		a := ep.open(t, ctx, taskClient(nil))
		running, err := a.StartToolTask(ctx, toolParams(t, demo.ToolSleepTask, map[string]any{"seconds": 600}), nil)
		if err != nil {
			t.Fatal(err)
		}
		finished, err := a.StartToolTask(ctx, toolParams(t, demo.ToolInstantTask, nil), nil)
		if err != nil {
			t.Fatal(err)
		}
		want, err := finished.Wait(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ids := []string{running.ID(), finished.ID()}
		a.Close()
		waitUntil(t, ctx, "the server has dropped the first session", func() bool { return len(ep.srv.Sessions()) == 0 })

		b := ep.open(t, ctx, taskClient(nil))
		for task, err := range b.ServerTasks(ctx, nil) {
			t.Errorf("before naming them, the new session lists %+v (%v)", task, err)
		}
		if st, err := b.GetTask(ctx, ids[0]); err != nil || st.Status != mcp.TaskStatusWorking {
			t.Fatalf("tasks/get of the old session's running task: %+v, %v", st, err)
		}
		res, err := b.TaskResult(ctx, ids[1])
		if err != nil || !sameJSON(t, res, want) {
			t.Fatalf("tasks/result of the old session's finished task: %+v, %v; want %+v", res, err, want)
		}
		var listed []string
		for task, err := range b.ServerTasks(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			listed = append(listed, task.TaskID)
		}
		if !slices.Equal(listed, ids) {
			t.Errorf("the new session lists %v, want %v", listed, ids)
		}
		if st, err := b.CancelTask(ctx, ids[0]); err != nil || st.Status != mcp.TaskStatusCancelled {
			t.Errorf("cancelling the adopted task: %+v, %v", st, err)
		}
		// A live session's tasks are not up for adoption.
		c := ep.open(t, ctx, taskClient(nil))
		if _, err := c.GetTask(ctx, ids[1]); rpcCode(err) != jsonrpc.CodeInvalidParams {
			t.Errorf("a third session took a live session's task: %v", err)
		}
	})
}

// benchCounts reads the demo server's request counts (all sessions), resetting them.
func benchCounts(t *testing.T, ctx context.Context, s *client.Session, reset bool) map[string]int64 {
	t.Helper()
	res := call(t, ctx, s, demo.ToolBenchStats, map[string]any{"reset": reset})
	var st struct {
		Counts map[string]int64 `json:"counts"`
	}
	if err := json.Unmarshal([]byte(onlyText(t, res)), &st); err != nil {
		t.Fatal(err)
	}
	return st.Counts
}

// TestTaskPollsFollowInterval: a task that sends no notifications is polled no more often
// than the server's pollInterval (checked on the server's count of tasks/get, and on the
// gaps between polls); the client's count agrees with the server's.
func TestTaskPollsFollowInterval(t *testing.T) {
	const interval = 25 * time.Millisecond
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		s := h.serve(t, serverConfig{pollInterval: interval}).open(t, ctx, taskClient(nil))
		if _, err := s.ListTools(ctx, nil); err != nil {
			t.Fatal(err)
		}
		benchCounts(t, ctx, s, true)
		sub := s.Subscribe()
		defer sub.Close()

		start := time.Now()
		task, err := s.StartToolTask(ctx, toolParams(t, demo.ToolSleepTask, map[string]any{"seconds": 600}), nil)
		if err != nil {
			t.Fatal(err)
		}
		// Four polls answered: the server has counted them (a poll still in flight when
		// the counts are read would be the client's alone), and the fifth is not due
		// for another interval.
		var at []time.Time
		asked := map[jsonrpc.ID]bool{}
		for answered := 0; answered < 4; {
			e := waitFor(t, ctx, sub, func(e *client.MessageEvent) bool {
				switch m := e.Message.(type) {
				case *jsonrpc.Request:
					if e.Dir == jsonrpc.Outbound && m.Method == mcp.MethodTasksGet {
						asked[m.ID] = true
						return true
					}
				case *jsonrpc.Response:
					return e.Dir == jsonrpc.Inbound && asked[m.ID]
				}
				return false
			})
			if _, ok := e.Message.(*jsonrpc.Request); ok {
				at = append(at, e.Time)
			} else {
				answered++
			}
		}
		if _, err := task.Cancel(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := task.Wait(ctx); err == nil {
			t.Fatal("the cancelled task succeeded")
		}
		elapsed := time.Since(start)
		polls := task.Polls()
		gets := benchCounts(t, ctx, s, false)[mcp.MethodTasksGet]
		if gets != int64(polls) {
			t.Errorf("the server received %d tasks/get, the client counts %d polls", gets, polls)
		}
		if limit := int64(elapsed/interval) + 1; gets < 4 || gets > limit {
			t.Errorf("%d tasks/get in %s at a pollInterval of %s, want 4 to %d", gets, elapsed, interval, limit)
		}
		for i := 1; i < len(at); i++ {
			if gap := at[i].Sub(at[i-1]); gap < interval {
				t.Errorf("polls %d and %d only %s apart, want at least %s", i-1, i, gap, interval)
			}
		}
	})
}

// TestTaskPollingOutlivesNotifications: once the server has shown that it sends status
// notifications, the client polls less often (NotifiedPollInterval), but it keeps polling.
func TestTaskPollingOutlivesNotifications(t *testing.T) {
	const notified = 30 * time.Millisecond
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		s := h.serve(t, serverConfig{pollInterval: 5 * time.Millisecond}).open(t, ctx, taskClient(&client.Options{NotifiedPollInterval: notified}))
		if _, err := s.ListTools(ctx, nil); err != nil {
			t.Fatal(err)
		}
		sub := s.Subscribe()
		defer sub.Close()
		// One step of 600 s: a status notification ("started"), then nothing until cancelled.
		task, err := s.StartToolTask(ctx, toolParams(t, demo.ToolSlowTask, map[string]any{"seconds": 600, "steps": 1}), nil)
		if err != nil {
			t.Fatal(err)
		}
		waitFor(t, ctx, sub, func(e *client.MessageEvent) bool {
			r, ok := e.Message.(*jsonrpc.Request)
			return ok && e.Dir == jsonrpc.Inbound && r.Method == mcp.NotificationTasksStatus
		})
		var at []time.Time
		for len(at) < 3 {
			e := waitFor(t, ctx, sub, func(e *client.MessageEvent) bool {
				r, ok := e.Message.(*jsonrpc.Request)
				return ok && e.Dir == jsonrpc.Outbound && r.Method == mcp.MethodTasksGet
			})
			at = append(at, e.Time)
		}
		for i := 1; i < len(at); i++ {
			if gap := at[i].Sub(at[i-1]); gap < notified {
				t.Errorf("polls %d and %d %s apart after a notification, want at least %s", i-1, i, gap, notified)
			}
		}
		if _, err := task.Cancel(ctx); err != nil {
			t.Fatal(err)
		}
	})
}
