package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/scripted"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// The Tasks extension of 2026-07-28 (io.modelcontextprotocol/tasks), requestor side,
// against the scripted server of internal/scripted. The tests that follow tasks run in
// a synctest bubble: the follower's waits pass in fake time, and what they assert of time
// is exact.

// The task helpers of internal/scripted, by the names these tests use.
var taskJSON = scripted.TaskJSON

const (
	resultDone  = scripted.ResultDone
	askName     = scripted.AskName
	ackComplete = scripted.AckComplete
)

// taskIDParam decodes params.taskId.
func taskIDParam(t *testing.T, m seen) string {
	t.Helper()
	var id string
	if !m.Param(t, "taskId", &id) {
		t.Errorf("%s has no taskId: %s", m.Method, m.Params)
	}
	return id
}

// getTimes records when tasks/get arrived.
type getTimes struct {
	mu sync.Mutex
	at []time.Time
}

func (g *getTimes) add() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.at = append(g.at, time.Now())
	return len(g.at)
}

func (g *getTimes) all() []time.Time {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.at)
}

// TestExtTaskPolling: StartToolTask declares the extension on the call (and on every
// tasks/*), sends no params.task, takes the flat create result as a task of the extension
// dialect, polls tasks/get at pollIntervalMs, and ends with the inlined result.
func TestExtTaskPolling(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := bounded(t)
		f := newFake(t)
		f.Answer(mcp.MethodToolsCall, string(taskJSON("task", "t1", mcp.TaskStatusWorking, 2000, "")))
		var gets getTimes
		f.On(mcp.MethodTasksGet, func(context.Context, *jsonrpc.Request) (any, error) {
			if gets.add() < 3 {
				return taskJSON("complete", "t1", mcp.TaskStatusWorking, 2000, ""), nil
			}
			return taskJSON("complete", "t1", mcp.TaskStatusCompleted, 2000, resultDone), nil
		})
		s := f.MustConnect(ctx, nil)
		start := time.Now()
		task, err := s.StartToolTask(ctx, &mcp.CallToolParams{Name: "slow_compute", Arguments: json.RawMessage(`{"seconds":5}`)}, &client.CallOptions{TTL: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		if task.Dialect() != client.DialectExtension || task.ID() != "t1" || task.Tool != "slow_compute" {
			t.Errorf("task: dialect %q, id %q, tool %q", task.Dialect(), task.ID(), task.Tool)
		}
		st := task.State()
		if st.Status != mcp.TaskStatusWorking || st.PollInterval == nil || *st.PollInterval != 2000 || st.TTL == nil || *st.TTL != 600000 {
			t.Errorf("state: %+v", st)
		}
		res, err := task.Wait(ctx)
		if err != nil || len(res.Content) != 1 || res.Content[0].Text != "done" {
			t.Fatalf("outcome: %+v, %v", res, err)
		}
		if task.State().Status != mcp.TaskStatusCompleted || task.Polls() != 3 {
			t.Errorf("after the outcome: status %s, %d polls", task.State().Status, task.Polls())
		}

		call := f.Last(mcp.MethodToolsCall)
		if !declaresTasks(t, clientCaps(t, checkModernMeta(t, call))) {
			t.Errorf("the task call does not declare the extension: %s", call.Params)
		}
		if call.Param(t, "task", nil) {
			t.Errorf("params.task sent in 2026-07-28: %s", call.Params)
		}
		for _, g := range f.Requests(mcp.MethodTasksGet) {
			if !declaresTasks(t, clientCaps(t, checkModernMeta(t, g))) || taskIDParam(t, g) != "t1" {
				t.Errorf("tasks/get: %s", g.Params)
			}
		}
		// Each poll comes the interval after the one before, plus 5 to 15%.
		prev := start
		for i, at := range gets.all() {
			if gap := at.Sub(prev); gap < 2100*time.Millisecond || gap > 2300*time.Millisecond {
				t.Errorf("poll %d came %s after the one before, want pollIntervalMs (2s) plus 5 to 15%%", i+1, gap)
			}
			prev = at
		}
		for _, m := range f.RequestMethods() {
			if m == mcp.MethodTasksResult || m == mcp.MethodTasksList {
				t.Errorf("%s sent in 2026-07-28", m)
			}
		}
	})
}

// TestExtTaskInput: a task waiting for input has its request queued with RelatedTask
// set, asked once however many tasks/get repeat it, and answered with tasks/update; the
// task's events show the request.
func TestExtTaskInput(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := bounded(t)
		f := newFake(t)
		f.Answer(mcp.MethodToolsCall, string(taskJSON("task", "t1", mcp.TaskStatusWorking, 1000, "")))
		var mu sync.Mutex
		updated, getsSince := false, 0
		f.On(mcp.MethodTasksGet, func(context.Context, *jsonrpc.Request) (any, error) {
			mu.Lock()
			defer mu.Unlock()
			if updated {
				getsSince++
			}
			if getsSince <= 2 { // the answer takes two polls to show
				return taskJSON("complete", "t1", mcp.TaskStatusInputRequired, 1000, askName), nil
			}
			return taskJSON("complete", "t1", mcp.TaskStatusCompleted, 1000, `"result":{"content":[{"type":"text","text":"Hello, Luca!"}]}`), nil
		})
		f.On(mcp.MethodTasksUpdate, func(context.Context, *jsonrpc.Request) (any, error) {
			mu.Lock()
			updated = true
			mu.Unlock()
			return raw(ackComplete), nil
		})
		onRequest, asked := answering(func(r *client.Request) { _ = r.Accept(map[string]any{"name": "Luca"}) })
		s := f.MustConnect(ctx, &client.Options{OnRequest: onRequest})

		var kinds []client.TaskEventKind
		var input *client.Request
		var last client.TaskEvent
		for e := range s.CallToolTask(ctx, &mcp.CallToolParams{Name: "confirm"}, nil) {
			kinds = append(kinds, e.Kind)
			if e.Kind == client.TaskInput {
				input = e.Request
			}
			last = e
		}
		if len(kinds) == 0 || kinds[0] != client.TaskCreated || last.Kind != client.TaskResult ||
			last.Result == nil || last.Result.Content[0].Text != "Hello, Luca!" {
			t.Fatalf("events %v, last %+v", kinds, last)
		}
		rs := asked()
		if len(rs) != 1 {
			t.Fatalf("the user was asked %d times, want once", len(rs))
		}
		r := rs[0]
		if r.RelatedTask != "t1" || r.InputKey != "name" || r.Elicitation == nil || r.Elicitation.Message != "Your name?" {
			t.Errorf("the request: %+v", r)
		}
		if input != r {
			t.Errorf("the task's input event carries %p, want the queued request %p", input, r)
		}
		updates := f.Requests(mcp.MethodTasksUpdate)
		if len(updates) != 1 {
			t.Fatalf("%d tasks/update, want 1", len(updates))
		}
		u := updates[0]
		var p struct {
			TaskID         string                      `json:"taskId"`
			InputResponses map[string]mcp.ElicitResult `json:"inputResponses"`
		}
		if err := json.Unmarshal(u.Params, &p); err != nil || p.TaskID != "t1" || len(p.InputResponses) != 1 ||
			p.InputResponses["name"].Action != "accept" || p.InputResponses["name"].Content["name"] != "Luca" {
			t.Errorf("tasks/update params: %s (%v)", u.Params, err)
		}
		if !declaresTasks(t, clientCaps(t, checkModernMeta(t, u))) || u.Param(t, "requestState", nil) {
			t.Errorf("tasks/update: %s", u.Params)
		}
		if strings.Contains(string(u.Params), mcp.MetaRelatedTask) {
			t.Errorf("an answer of the extension carries related-task: %s", u.Params)
		}
	})
}

// TestExtTaskTwoInputs: two keys at once are each asked once; answers may go in one
// tasks/update or two, and a key the server drops is not asked again.
func TestExtTaskTwoInputs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := bounded(t)
		f := newFake(t)
		f.Answer(mcp.MethodToolsCall, string(taskJSON("task", "t1", mcp.TaskStatusInputRequired, 500, "")))
		var mu sync.Mutex
		answered := map[string]bool{}
		f.On(mcp.MethodTasksGet, func(context.Context, *jsonrpc.Request) (any, error) {
			mu.Lock()
			defer mu.Unlock()
			var reqs []string
			for _, k := range []string{"first", "second"} {
				if !answered[k] {
					reqs = append(reqs, fmt.Sprintf("%q:%s", k, elicitName))
				}
			}
			if len(reqs) == 0 {
				return taskJSON("complete", "t1", mcp.TaskStatusCompleted, 500, resultDone), nil
			}
			return taskJSON("complete", "t1", mcp.TaskStatusInputRequired, 500, `"inputRequests":{`+strings.Join(reqs, ",")+`}`), nil
		})
		f.On(mcp.MethodTasksUpdate, func(_ context.Context, req *jsonrpc.Request) (any, error) {
			var p mcp.UpdateTaskParams
			if err := json.Unmarshal(req.Params, &p); err != nil {
				return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, err.Error())
			}
			mu.Lock()
			for k := range p.InputResponses {
				answered[k] = true
			}
			mu.Unlock()
			return raw(ackComplete), nil
		})
		// The second key is answered an instant after the first.
		onRequest, asked := answering(func(r *client.Request) {
			if r.InputKey == "second" {
				time.Sleep(time.Millisecond)
			}
			_ = r.Accept(map[string]any{"name": r.InputKey})
		})
		s := f.MustConnect(ctx, &client.Options{OnRequest: onRequest})
		task, err := s.StartToolTask(ctx, &mcp.CallToolParams{Name: "multi_input"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := task.Wait(ctx); err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, r := range asked() {
			keys = append(keys, r.InputKey)
		}
		slices.Sort(keys)
		if !slices.Equal(keys, []string{"first", "second"}) {
			t.Errorf("asked %v, want each key once", keys)
		}
		sent := map[string]int{}
		for _, u := range f.Requests(mcp.MethodTasksUpdate) {
			var p mcp.UpdateTaskParams
			_ = json.Unmarshal(u.Params, &p)
			for k := range p.InputResponses {
				sent[k]++
			}
		}
		if sent["first"] != 1 || sent["second"] != 1 || len(sent) != 2 {
			t.Errorf("answers sent: %v, want each key once", sent)
		}
	})
}

// TestExtTaskFailed: a failed task ends with the JSON-RPC error it inlines, code,
// message and data as they came; one that inlines none with its status message.
func TestExtTaskFailed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := bounded(t)
		f := newFake(t)
		f.Answer(mcp.MethodToolsCall, string(taskJSON("task", "t1", mcp.TaskStatusWorking, 100, "")))
		f.On(mcp.MethodTasksGet, func(context.Context, *jsonrpc.Request) (any, error) {
			return taskJSON("complete", "t1", mcp.TaskStatusFailed, 100,
				`"statusMessage":"gave up","error":{"code":-32603,"message":"API rate limit exceeded","data":{"retryAfterMs":5000}}`), nil
		})
		s := f.MustConnect(ctx, nil)
		task, err := s.StartToolTask(ctx, &mcp.CallToolParams{Name: "protocol_error_job"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := task.Wait(ctx)
		var rpc *jsonrpc.Error
		if res != nil || !errors.As(err, &rpc) || rpc.Code != -32603 || rpc.Message != "API rate limit exceeded" || string(rpc.Data) != `{"retryAfterMs":5000}` {
			t.Fatalf("outcome: %+v, %v; want the inlined error", res, err)
		}
		if errors.Is(err, client.ErrTaskGone) || errors.Is(err, client.ErrTaskCancelled) {
			t.Errorf("a failed task is neither gone nor cancelled: %v", err)
		}

		f.Answer(mcp.MethodToolsCall, string(taskJSON("task", "t2", mcp.TaskStatusWorking, 100, "")))
		f.Answer(mcp.MethodTasksGet, string(taskJSON("complete", "t2", mcp.TaskStatusFailed, 100, `"statusMessage":"disk on fire"`)))
		task, err = s.StartToolTask(ctx, &mcp.CallToolParams{Name: "protocol_error_job"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := task.Wait(ctx); !errors.As(err, &rpc) || !strings.Contains(rpc.Message, "disk on fire") {
			t.Errorf("a failure with no error inlined: %v", err)
		}
		// The server answered the first task's subscriptions/listen with -32601: it is not
		// asked again in the session.
		if n := len(f.Requests(mcp.MethodSubscriptionsListen)); n != 1 {
			t.Errorf("%d subscriptions/listen for two tasks of a server that has none, want 1", n)
		}
	})
}

// TestExtTaskToolError: a tool error (isError) is a completed task: its result is the
// outcome, not an error.
func TestExtTaskToolError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := bounded(t)
		f := newFake(t)
		f.Answer(mcp.MethodToolsCall, string(taskJSON("task", "t1", mcp.TaskStatusCompleted, 0, "")))
		f.On(mcp.MethodTasksGet, func(context.Context, *jsonrpc.Request) (any, error) {
			return taskJSON("complete", "t1", mcp.TaskStatusCompleted, 0,
				`"result":{"resultType":"complete","content":[{"type":"text","text":"nope"}],"isError":true}`), nil
		})
		s := f.MustConnect(ctx, nil)
		task, err := s.StartToolTask(ctx, &mcp.CallToolParams{Name: "failing_job"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		// The create result said completed, with nothing inlined: tasks/get has it.
		res, err := task.Wait(ctx)
		if err != nil || !res.IsError || res.Content[0].Text != "nope" {
			t.Fatalf("outcome: %+v, %v", res, err)
		}
		if task.Polls() != 1 {
			t.Errorf("%d polls, want the one that fetched the result", task.Polls())
		}
	})
}

// TestExtTaskCancel: Cancel sends tasks/cancel, which is only acknowledged, then a
// tasks/get, and returns the state it gives: the task is cancelled, and ends with a
// *TaskEndError with ErrTaskCancelled.
// No notifications/cancelled names the task's call.
func TestExtTaskCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := bounded(t)
		f := newFake(t)
		f.Answer(mcp.MethodToolsCall, string(taskJSON("task", "t1", mcp.TaskStatusWorking, 30000, "")))
		var mu sync.Mutex
		cancelled := false
		f.On(mcp.MethodTasksCancel, func(context.Context, *jsonrpc.Request) (any, error) {
			mu.Lock()
			cancelled = true
			mu.Unlock()
			return raw(ackComplete), nil
		})
		f.On(mcp.MethodTasksGet, func(context.Context, *jsonrpc.Request) (any, error) {
			mu.Lock()
			defer mu.Unlock()
			if cancelled {
				return taskJSON("complete", "t1", mcp.TaskStatusCancelled, 30000, `"statusMessage":"stopped on request"`), nil
			}
			return taskJSON("complete", "t1", mcp.TaskStatusWorking, 30000, ""), nil
		})
		s := f.MustConnect(ctx, nil)
		task, err := s.StartToolTask(ctx, &mcp.CallToolParams{Name: "slow_compute"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		st, err := task.Cancel(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// What Cancel returns is the state after the cancel, not the one before it.
		if st.Status != mcp.TaskStatusCancelled || st.StatusMessage != "stopped on request" || task.State().Status != mcp.TaskStatusCancelled {
			t.Errorf("Cancel returned %+v (the task's state %s), want it cancelled", st, task.State().Status)
		}
		_, err = task.Wait(ctx)
		var end *client.TaskEndError
		if !errors.As(err, &end) || !errors.Is(err, client.ErrTaskCancelled) || end.TaskID != "t1" || end.StatusMessage != "stopped on request" {
			t.Fatalf("outcome: %v; want a *TaskEndError with ErrTaskCancelled", err)
		}
		if took := time.Since(start); took != 0 {
			t.Errorf("the cancellation was learned %s after the ack, not at once", took)
		}
		cancels := f.Requests(mcp.MethodTasksCancel)
		if len(cancels) != 1 || taskIDParam(t, cancels[0]) != "t1" || !declaresTasks(t, clientCaps(t, checkModernMeta(t, cancels[0]))) {
			t.Errorf("tasks/cancel: %v", cancels)
		}
		callID := f.Last(mcp.MethodToolsCall).ID
		for _, n := range f.Notifications(jsonrpc.CancelledMethod) {
			var p struct {
				RequestID jsonrpc.ID `json:"requestId"`
			}
			if json.Unmarshal(n.Params, &p) == nil && p.RequestID == callID {
				t.Errorf("notifications/cancelled sent for the task's call: %s", n.Params)
			}
		}
	})
}

// TestExtTaskGone: -32602 on tasks/get is a task the server no longer knows: the
// outcome is a *TaskEndError with ErrTaskGone that carries the server's error, and the
// last event is TaskGone.
func TestExtTaskGone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := bounded(t)
		f := newFake(t)
		f.Answer(mcp.MethodToolsCall, string(taskJSON("task", "t1", mcp.TaskStatusWorking, 1000, "")))
		f.On(mcp.MethodTasksGet, func(context.Context, *jsonrpc.Request) (any, error) {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "task not found or expired")
		})
		s := f.MustConnect(ctx, nil)
		task, err := s.StartToolTask(ctx, &mcp.CallToolParams{Name: "slow_compute"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var kinds []client.TaskEventKind
		for e := range task.Events(ctx) {
			kinds = append(kinds, e.Kind)
		}
		_, err = task.Outcome()
		var end *client.TaskEndError
		var rpc *jsonrpc.Error
		if !errors.As(err, &end) || !errors.Is(err, client.ErrTaskGone) || !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeInvalidParams {
			t.Fatalf("outcome: %v; want a *TaskEndError with ErrTaskGone and the -32602", err)
		}
		if len(kinds) == 0 || kinds[len(kinds)-1] != client.TaskGone {
			t.Errorf("events %v, want them to end with gone", kinds)
		}
		if task.Polls() != 1 {
			t.Errorf("%d polls after the task was gone", task.Polls())
		}
	})
}

// TestExtTaskTTLNull: ttlMs null (unlimited) and no pollIntervalMs are accepted: the
// client backs off from PollFloor.
func TestExtTaskTTLNull(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := bounded(t)
		f := newFake(t)
		task := func(rt string, status mcp.TaskStatus, extra string) json.RawMessage {
			return raw(fmt.Sprintf(`{"resultType":%q,"taskId":"t1","status":%q,"createdAt":"2000-01-01T00:00:00Z","lastUpdatedAt":%q,"ttlMs":null%s}`,
				rt, status, mcp.FormatTime(time.Now()), extra))
		}
		f.On(mcp.MethodToolsCall, func(context.Context, *jsonrpc.Request) (any, error) {
			return task("task", mcp.TaskStatusWorking, ""), nil
		})
		var gets getTimes
		f.On(mcp.MethodTasksGet, func(context.Context, *jsonrpc.Request) (any, error) {
			if gets.add() < 4 {
				return task("complete", mcp.TaskStatusWorking, ""), nil
			}
			return task("complete", mcp.TaskStatusCompleted, ","+resultDone), nil
		})
		s := f.MustConnect(ctx, &client.Options{PollFloor: time.Second, PollCeiling: 3 * time.Second})
		start := time.Now()
		tk, err := s.StartToolTask(ctx, &mcp.CallToolParams{Name: "forever"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if st := tk.State(); st.TTL != nil || st.PollInterval != nil {
			t.Errorf("state %+v, want no ttl and no interval", st)
		}
		if res, err := tk.Wait(ctx); err != nil || res.Content[0].Text != "done" {
			t.Fatalf("outcome: %+v, %v", res, err)
		}
		// Backoff: 1s, 2s, 3s, 3s, each plus 5 to 15%.
		prev := start
		for i, at := range gets.all() {
			want := []time.Duration{time.Second, 2 * time.Second, 3 * time.Second, 3 * time.Second}[i]
			if gap := at.Sub(prev); gap < want+want/20 || gap > want+want*3/20 {
				t.Errorf("poll %d came %s after the one before, want %s plus 5 to 15%%", i+1, gap, want)
			}
			prev = at
		}
	})
}

// TestExtTaskAnsweredAtOnce: a server may answer a call that declared the extension
// with a complete result: the task ends at once with it, and nothing is polled.
func TestExtTaskAnsweredAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := bounded(t)
		f := newFake(t)
		f.Answer(mcp.MethodToolsCall, `{"resultType":"complete","content":[{"type":"text","text":"Hello, Ada!"}]}`)
		s := f.MustConnect(ctx, nil)
		task, err := s.StartToolTask(ctx, &mcp.CallToolParams{Name: "greet"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		select {
		case <-task.Done():
		default:
			t.Fatal("the task has not ended with the call's result")
		}
		res, err := task.Outcome()
		if err != nil || res.Content[0].Text != "Hello, Ada!" {
			t.Fatalf("outcome: %+v, %v", res, err)
		}
		synctest.Wait()
		if rs := f.RequestMethods(); !slices.Equal(rs, []string{mcp.MethodServerDiscover, mcp.MethodToolsCall}) {
			t.Errorf("the server received %v", rs)
		}
		// CallToolTask gives no created event: the result alone.
		var kinds []client.TaskEventKind
		for e := range s.CallToolTask(ctx, &mcp.CallToolParams{Name: "greet"}, nil) {
			kinds = append(kinds, e.Kind)
		}
		if !slices.Equal(kinds, []client.TaskEventKind{client.TaskResult}) {
			t.Errorf("events %v, want the result alone", kinds)
		}
	})
}

// listenServer has f accept subscriptions/listen for tasks: it acknowledges, hands the
// listen's id to the test, and holds the stream until the client withdraws it.
func listenServer(f *fakeServer) <-chan jsonrpc.ID {
	ids := make(chan jsonrpc.ID, 8)
	f.On(mcp.MethodSubscriptionsListen, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		var p mcp.ListenParams
		if err := json.Unmarshal(req.Params, &p); err != nil || len(p.Notifications.TaskIDs) == 0 {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "no taskIds")
		}
		conn := f.Conn()
		_ = conn.Notify(ctx, mcp.NotificationSubscriptionsAcknowledged, map[string]any{
			"_meta":         map[string]any{mcp.MetaSubscriptionID: req.ID},
			"notifications": map[string]any{"taskIds": p.Notifications.TaskIDs},
		})
		ids <- req.ID
		<-ctx.Done()
		return nil, ctx.Err()
	})
	return ids
}

// notifyTask sends notifications/tasks with the task in params, tagged with the listen's
// id.
func notifyTask(t *testing.T, f *fakeServer, listen jsonrpc.ID, task json.RawMessage) {
	t.Helper()
	var params map[string]any
	if err := json.Unmarshal(task, &params); err != nil {
		t.Fatal(err)
	}
	params["_meta"] = map[string]any{mcp.MetaSubscriptionID: listen}
	if err := f.Conn().Notify(context.Background(), mcp.NotificationTasks, params); err != nil {
		t.Fatal(err)
	}
}

// TestExtTaskNotifications: the task is listened to (subscriptions/listen declaring the
// extension), and notifications/tasks (a full DetailedTask) reach the task they name:
// one waiting for input has its request asked without a poll, and one that completed
// ends with the result it inlines, with no tasks/get; the listen is withdrawn at the end.
func TestExtTaskNotifications(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := bounded(t)
		f := newFake(t)
		listens := listenServer(f)
		f.Answer(mcp.MethodToolsCall, string(taskJSON("task", "t1", mcp.TaskStatusWorking, 50000, "")))
		// Polled once, right after tasks/update (to learn that the task moved on): the
		// notifications say everything else.
		f.Answer(mcp.MethodTasksGet, string(taskJSON("complete", "t1", mcp.TaskStatusWorking, 50000, "")))
		updates := make(chan struct{}, 4)
		f.On(mcp.MethodTasksUpdate, func(context.Context, *jsonrpc.Request) (any, error) {
			updates <- struct{}{}
			return raw(ackComplete), nil
		})
		onRequest, asked := answering(func(r *client.Request) { _ = r.Accept(map[string]any{"name": "Luca"}) })
		s := f.MustConnect(ctx, &client.Options{OnRequest: onRequest})
		task, err := s.StartToolTask(ctx, &mcp.CallToolParams{Name: "confirm"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var listen jsonrpc.ID
		select {
		case listen = <-listens:
		case <-ctx.Done():
			t.Fatal("no subscriptions/listen for the task")
		}
		l := f.Last(mcp.MethodSubscriptionsListen)
		if !declaresTasks(t, clientCaps(t, checkModernMeta(t, l))) || !strings.Contains(string(l.Params), `"taskIds":["t1"]`) {
			t.Errorf("subscriptions/listen: %s", l.Params)
		}
		start := time.Now()
		notifyTask(t, f, listen, taskJSON("", "t1", mcp.TaskStatusInputRequired, 50000, askName))
		select {
		case <-updates:
		case <-ctx.Done():
			t.Fatal("no tasks/update after a notification asked for input")
		}
		if rs := asked(); len(rs) != 1 || rs[0].RelatedTask != "t1" {
			t.Errorf("asked %+v", rs)
		}
		notifyTask(t, f, listen, taskJSON("", "t1", mcp.TaskStatusCompleted, 50000, resultDone))
		res, err := task.Wait(ctx)
		if err != nil || res.Content[0].Text != "done" {
			t.Fatalf("outcome: %+v, %v", res, err)
		}
		if took := time.Since(start); took != 0 {
			t.Errorf("the task ended %s after its notifications", took)
		}
		if n := task.Polls(); n > 1 {
			t.Errorf("%d polls, want at most the one after tasks/update", n)
		}
		// The listen ends with the task: left to the server to end for a while, then
		// withdrawn, since this one keeps it open.
		synctest.Wait()
		if withdrawn(f, listen) {
			t.Error("the task's subscriptions/listen was withdrawn before the server could end it")
		}
		time.Sleep(streamEndWait)
		synctest.Wait()
		if !withdrawn(f, listen) {
			t.Error("the task's subscriptions/listen was not withdrawn when it ended")
		}
	})
}

// streamEndWait is client.streamEndWait, how long a stream of tasks that have ended is
// left to the server to end.
const streamEndWait = 500 * time.Millisecond

// withdrawn reports whether the client sent notifications/cancelled for request id.
func withdrawn(f *fakeServer, id jsonrpc.ID) bool {
	for _, n := range f.Notifications(jsonrpc.CancelledMethod) {
		var p struct {
			RequestID jsonrpc.ID `json:"requestId"`
		}
		if json.Unmarshal(n.Params, &p) == nil && p.RequestID == id {
			return true
		}
	}
	return false
}

// TestExtTaskStreamEndedByServer: a server that ends a stream of tasks once they have
// all ended (its final result right after the last task's end, as mcpi's does) is left
// to do so: the client withdraws nothing, then or later. One that keeps a stream open is
// found out once: that stream is withdrawn after the wait, the session's next at once.
func TestExtTaskStreamEndedByServer(t *testing.T) {
	for _, ends := range []bool{true, false} {
		t.Run(map[bool]string{true: "ends", false: "keeps"}[ends], func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := bounded(t)
				f := newFake(t)
				ids := make(chan jsonrpc.ID, 4)
				finals := make(chan struct{}, 4)
				f.On(mcp.MethodSubscriptionsListen, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
					var p mcp.ListenParams
					_ = json.Unmarshal(req.Params, &p)
					_ = f.Conn().Notify(ctx, mcp.NotificationSubscriptionsAcknowledged, map[string]any{
						"_meta":         map[string]any{mcp.MetaSubscriptionID: req.ID},
						"notifications": map[string]any{"taskIds": p.Notifications.TaskIDs},
					})
					ids <- req.ID
					if ends {
						select {
						case <-finals:
							return map[string]any{"resultType": "complete", "_meta": map[string]any{mcp.MetaSubscriptionID: req.ID}}, nil
						case <-ctx.Done():
							return nil, ctx.Err()
						}
					}
					<-ctx.Done()
					return nil, ctx.Err()
				})
				s := f.MustConnect(ctx, nil)
				for i, id := range []string{"t1", "t2"} {
					f.Answer(mcp.MethodToolsCall, string(taskJSON("task", id, mcp.TaskStatusWorking, 50000, "")))
					task, err := s.StartToolTask(ctx, &mcp.CallToolParams{Name: "job"}, nil)
					if err != nil {
						t.Fatal(err)
					}
					var listen jsonrpc.ID
					select {
					case listen = <-ids:
					case <-ctx.Done():
						t.Fatal("no subscriptions/listen")
					}
					notifyTask(t, f, listen, taskJSON("", id, mcp.TaskStatusCompleted, 50000, resultDone))
					finals <- struct{}{}
					if res, err := task.Wait(ctx); err != nil || res.Content[0].Text != "done" {
						t.Fatalf("outcome: %+v, %v", res, err)
					}
					synctest.Wait()
					switch {
					case ends && withdrawn(f, listen):
						t.Errorf("task %d: a stream the server ended was withdrawn", i+1)
					case !ends && i == 0 && withdrawn(f, listen):
						t.Errorf("task %d: withdrawn before the server could end it", i+1)
					case !ends && i == 1 && !withdrawn(f, listen):
						t.Errorf("task %d: a server that keeps streams open was waited for again", i+1)
					}
					time.Sleep(streamEndWait)
					synctest.Wait()
					if got := withdrawn(f, listen); got == ends {
						t.Errorf("task %d: withdrawn %v after the wait, want %v", i+1, got, !ends)
					}
				}
				if n := len(f.Requests(mcp.MethodTasksGet)); n != 0 {
					t.Errorf("%d tasks/get, want none: the notifications said it all", n)
				}
			})
		})
	}
}

// TestExtTaskListensShared: a burst of extension tasks shares its subscriptions/listen
// streams (one a task was, over HTTP, a request held open and then withdrawn, each
// closing its connection): the tasks started while others are being called wait a
// little for one another, and one stream names them all. A task started alone is
// listened to at once. Each stream is withdrawn once all its tasks have ended.
func TestExtTaskListensShared(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := bounded(t)
		f := newFake(t)
		listens := listenServer(f)
		const burst = 50
		var (
			mu     sync.Mutex
			n      int
			ended  = map[string]bool{}
			called = make(chan struct{})
		)
		f.On(mcp.MethodToolsCall, func(ctx context.Context, _ *jsonrpc.Request) (any, error) {
			mu.Lock()
			n++
			id := fmt.Sprintf("t%d", n)
			if n == burst+1 { // the burst's calls are all in flight: answer them
				close(called)
			}
			mu.Unlock()
			if id != "t1" {
				<-called
			}
			return taskJSON("task", id, mcp.TaskStatusWorking, 5000, ""), nil
		})
		f.On(mcp.MethodTasksGet, func(_ context.Context, req *jsonrpc.Request) (any, error) {
			var p mcp.GetTaskParams
			_ = json.Unmarshal(req.Params, &p)
			mu.Lock()
			defer mu.Unlock()
			if ended[p.TaskID] {
				return taskJSON("complete", p.TaskID, mcp.TaskStatusCompleted, 5000, resultDone), nil
			}
			return taskJSON("complete", p.TaskID, mcp.TaskStatusWorking, 5000, ""), nil
		})
		s := f.MustConnect(ctx, nil)
		p := &mcp.CallToolParams{Name: "job"}

		// Alone: listened to at once.
		start := time.Now()
		lone, err := s.StartToolTask(ctx, p, nil)
		if err != nil {
			t.Fatal(err)
		}
		select {
		case <-listens:
		case <-ctx.Done():
			t.Fatal("no subscriptions/listen for a task alone")
		}
		if d := time.Since(start); d != 0 {
			t.Errorf("a task alone was listened to %s after it started", d)
		}

		// A burst: few streams, naming every task.
		var wg sync.WaitGroup
		tasks := make(chan *client.Task, burst)
		for range burst {
			wg.Go(func() {
				task, err := s.StartToolTask(ctx, p, nil)
				if err != nil {
					t.Error(err)
					return
				}
				tasks <- task
			})
		}
		wg.Wait()
		close(tasks)
		synctest.Wait()
		rs := f.Requests(mcp.MethodSubscriptionsListen)
		if len(rs) < 2 || len(rs) > 3 {
			t.Errorf("%d subscriptions/listen for a task alone and a burst of %d, want 2 (3 at most)", len(rs), burst)
		}
		named := map[string]bool{}
		for _, r := range rs {
			var lp mcp.ListenParams
			if err := json.Unmarshal(r.Params, &lp); err != nil {
				t.Fatal(err)
			}
			for _, id := range lp.Notifications.TaskIDs {
				named[id] = true
			}
		}
		if len(named) != burst+1 {
			t.Errorf("the streams name %d tasks, want %d", len(named), burst+1)
		}

		// Every task ends (the next poll says so); every stream is withdrawn.
		mu.Lock()
		for i := 1; i <= burst+1; i++ {
			ended[fmt.Sprintf("t%d", i)] = true
		}
		mu.Unlock()
		if _, err := lone.Wait(ctx); err != nil {
			t.Fatal(err)
		}
		for task := range tasks {
			if _, err := task.Wait(ctx); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(streamEndWait) // left to the server to end, which this one does not
		synctest.Wait()
		if got, want := len(f.Notifications(jsonrpc.CancelledMethod)), len(rs); got != want {
			t.Errorf("%d subscriptions/listen withdrawn, want all %d", got, want)
		}
	})
}

// TestExtTaskEarlyNotification: a notification that overtakes the create result is kept
// for the task: it ends all the same.
func TestExtTaskEarlyNotification(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := bounded(t)
		f := newFake(t)
		f.On(mcp.MethodToolsCall, func(ctx context.Context, _ *jsonrpc.Request) (any, error) {
			_ = f.Conn().Notify(ctx, mcp.NotificationTasks, taskJSON("", "t1", mcp.TaskStatusCompleted, 0, resultDone))
			return taskJSON("task", "t1", mcp.TaskStatusWorking, 50000, ""), nil
		})
		f.Answer(mcp.MethodTasksGet, string(taskJSON("complete", "t1", mcp.TaskStatusCompleted, 0, resultDone)))
		s := f.MustConnect(ctx, nil)
		start := time.Now()
		task, err := s.StartToolTask(ctx, &mcp.CallToolParams{Name: "quick"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := task.Wait(ctx)
		if err != nil || res.Content[0].Text != "done" {
			t.Fatalf("outcome: %+v, %v", res, err)
		}
		if took := time.Since(start); took != 0 {
			t.Errorf("the task ended %s after the call: the early notification was lost", took)
		}
	})
}

// TestExtNoTaskList: there is no tasks/list in the extension: ListTasks and ServerTasks
// say so without asking the server.
func TestExtNoTaskList(t *testing.T) {
	ctx := bounded(t)
	f := newFake(t)
	s := f.MustConnect(ctx, nil)
	if _, err := s.ListTasks(ctx, nil); !errors.Is(err, client.ErrNoTaskList) {
		t.Errorf("ListTasks: %v", err)
	}
	for _, err := range s.ServerTasks(ctx, nil) {
		if !errors.Is(err, client.ErrNoTaskList) {
			t.Errorf("ServerTasks: %v", err)
		}
	}
	if m := f.RequestMethods(); !slices.Equal(m, []string{mcp.MethodServerDiscover}) {
		t.Errorf("the server received %v", m)
	}
}

// TestExtTaskByID: TaskResult follows a task by id to its outcome (answering its input);
// FollowTask gives one tracker per id; GetTask, TaskDetail and CancelTask speak the
// extension; an id the server does not know is ErrTaskGone.
func TestExtTaskByID(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := bounded(t)
		f := newFake(t)
		var mu sync.Mutex
		gets, updated := 0, false
		f.On(mcp.MethodTasksGet, func(_ context.Context, req *jsonrpc.Request) (any, error) {
			var p mcp.GetTaskParams
			_ = json.Unmarshal(req.Params, &p)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case p.TaskID == "cancelled":
				return taskJSON("complete", p.TaskID, mcp.TaskStatusCancelled, 0, ""), nil
			case p.TaskID != "t9":
				return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "task not found")
			}
			gets++
			switch {
			case gets == 1:
				return taskJSON("complete", "t9", mcp.TaskStatusWorking, 1000, ""), nil
			case !updated:
				return taskJSON("complete", "t9", mcp.TaskStatusInputRequired, 1000, askName), nil
			}
			return taskJSON("complete", "t9", mcp.TaskStatusCompleted, 1000, `"result":{"content":[{"type":"text","text":"by id"}]}`), nil
		})
		f.On(mcp.MethodTasksUpdate, func(context.Context, *jsonrpc.Request) (any, error) {
			mu.Lock()
			updated = true
			mu.Unlock()
			return raw(ackComplete), nil
		})
		f.On(mcp.MethodTasksCancel, func(_ context.Context, req *jsonrpc.Request) (any, error) {
			if !strings.Contains(string(req.Params), `"cancelled"`) {
				return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "task not found")
			}
			return raw(ackComplete), nil
		})
		onRequest, asked := answering(func(r *client.Request) { _ = r.Accept(map[string]any{"name": "x"}) })
		s := f.MustConnect(ctx, &client.Options{OnRequest: onRequest})

		res, err := s.TaskResult(ctx, "t9")
		if err != nil || res.Content[0].Text != "by id" {
			t.Fatalf("TaskResult: %+v, %v", res, err)
		}
		if rs := asked(); len(rs) != 1 || rs[0].RelatedTask != "t9" {
			t.Errorf("asked %+v", rs)
		}
		a, err := s.FollowTask(ctx, "t9")
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := s.FollowTask(ctx, "t9"); a != b || a.Dialect() != client.DialectExtension {
			t.Errorf("FollowTask twice: %p, %p (dialect %q)", a, b, a.Dialect())
		}
		d, err := s.TaskDetail(ctx, "t9")
		if err != nil || d.Status != mcp.TaskStatusCompleted || !strings.Contains(string(d.Result), "by id") {
			t.Errorf("TaskDetail: %+v, %v", d, err)
		}
		if st, err := s.GetTask(ctx, "t9"); err != nil || st.Status != mcp.TaskStatusCompleted || st.PollInterval == nil {
			t.Errorf("GetTask: %+v, %v", st, err)
		}

		for _, call := range []struct {
			name string
			run  func() error
		}{
			{"TaskResult", func() error { _, err := s.TaskResult(ctx, "nope"); return err }},
			{"FollowTask", func() error { _, err := s.FollowTask(ctx, "nope"); return err }},
			{"CancelTask", func() error { _, err := s.CancelTask(ctx, "nope"); return err }},
		} {
			err := call.run()
			if !errors.Is(err, jsonrpc.ErrInvalidParams) {
				t.Errorf("%s of an unknown task: %v, want the -32602", call.name, err)
			}
			if call.name != "FollowTask" && !errors.Is(err, client.ErrTaskGone) {
				t.Errorf("%s of an unknown task: %v, want ErrTaskGone", call.name, err)
			}
		}

		st, err := s.CancelTask(ctx, "cancelled")
		if err != nil || st.Status != mcp.TaskStatusCancelled {
			t.Errorf("CancelTask: %+v, %v; want the state tasks/get gives after the ack", st, err)
		}
		if _, err := s.TaskResult(ctx, "cancelled"); !errors.Is(err, client.ErrTaskCancelled) {
			t.Errorf("TaskResult of a cancelled task: %v", err)
		}
	})
}

// TestExtTaskAfterMRTR: a task call may go through input_required rounds before the
// server makes the task; the rounds end there, and the task goes on by tasks/get.
func TestExtTaskAfterMRTR(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := bounded(t)
		f := newFake(t)
		f.On(mcp.MethodToolsCall, func(_ context.Context, req *jsonrpc.Request) (any, error) {
			if !strings.Contains(string(req.Params), "inputResponses") {
				return raw(`{"resultType":"input_required","inputRequests":{"user_name":` + elicitName + `},"requestState":"mrtr-1"}`), nil
			}
			return taskJSON("task", "t1", mcp.TaskStatusWorking, 1000, ""), nil
		})
		f.Answer(mcp.MethodTasksGet, string(taskJSON("complete", "t1", mcp.TaskStatusCompleted, 1000, `"result":{"content":[{"type":"text","text":"Hello, Alice"}]}`)))
		onRequest, asked := answering(func(r *client.Request) { _ = r.Accept(map[string]any{"name": "Alice"}) })
		s := f.MustConnect(ctx, &client.Options{OnRequest: onRequest})
		task, err := s.StartToolTask(ctx, &mcp.CallToolParams{Name: "test_tool_with_task"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := task.Wait(ctx)
		if err != nil || !strings.Contains(res.Content[0].Text, "Alice") {
			t.Fatalf("outcome: %+v, %v", res, err)
		}
		calls := f.Requests(mcp.MethodToolsCall)
		if len(calls) != 2 || len(asked()) != 1 || asked()[0].RelatedTask != "" {
			t.Fatalf("%d calls, asked %+v", len(calls), asked())
		}
		p := decodeMRTR(t, calls[1])
		if p.RequestState == nil || *p.RequestState != "mrtr-1" || !declaresTasks(t, clientCaps(t, checkModernMeta(t, calls[1]))) {
			t.Errorf("the retry: %s", calls[1].Params)
		}
		for _, g := range f.Requests(mcp.MethodTasksGet, mcp.MethodTasksUpdate) {
			if g.Param(t, "requestState", nil) {
				t.Errorf("requestState on the tasks wire: %s", g.Params)
			}
		}
	})
}

// TestExtTaskInputRefused: a task's input the user refuses cannot be sent back: the
// task is cancelled, and ends with an *InputError.
func TestExtTaskInputRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := bounded(t)
		f := newFake(t)
		f.Answer(mcp.MethodToolsCall, string(taskJSON("task", "t1", mcp.TaskStatusWorking, 1000, "")))
		f.Answer(mcp.MethodTasksGet, string(taskJSON("complete", "t1", mcp.TaskStatusInputRequired, 1000, askName)))
		f.Answer(mcp.MethodTasksCancel, ackComplete)
		onRequest, _ := answering(func(r *client.Request) { _ = r.Refuse("no") })
		s := f.MustConnect(ctx, &client.Options{OnRequest: onRequest})
		task, err := s.StartToolTask(ctx, &mcp.CallToolParams{Name: "confirm_delete"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = task.Wait(ctx)
		var inErr *client.InputError
		if !errors.As(err, &inErr) || inErr.Key != "name" {
			t.Fatalf("outcome: %v, want an *InputError", err)
		}
		if len(f.Requests(mcp.MethodTasksCancel)) != 1 || len(f.Requests(mcp.MethodTasksUpdate)) != 0 {
			t.Errorf("the server received %v; want tasks/cancel and no tasks/update", f.RequestMethods())
		}
	})
}

// TestExtTaskBadAnswers: a create result with no taskId, a tasks/get for another task,
// and a completed task with no result are errors, not hangs.
func TestExtTaskBadAnswers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := bounded(t)
		f := newFake(t)
		f.Answer(mcp.MethodToolsCall, `{"resultType":"task","status":"working","createdAt":"2000-01-01T00:00:00Z","lastUpdatedAt":"2000-01-01T00:00:00Z","ttlMs":null}`)
		s := f.MustConnect(ctx, nil)
		if _, err := s.StartToolTask(ctx, &mcp.CallToolParams{Name: "x"}, nil); err == nil {
			t.Error("a create result with no taskId: no error")
		}

		f.Answer(mcp.MethodToolsCall, string(taskJSON("task", "t1", mcp.TaskStatusWorking, 100, "")))
		f.Answer(mcp.MethodTasksGet, string(taskJSON("complete", "t1", mcp.TaskStatusCompleted, 100, "")))
		task, err := s.StartToolTask(ctx, &mcp.CallToolParams{Name: "x"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res, err := task.Wait(ctx); err == nil || res != nil {
			t.Errorf("a completed task with no result: %+v, %v", res, err)
		}
		if ctx.Err() != nil {
			t.Error("the test's bound ran out")
		}
	})
}

// TestExtTaskUpdateRetried: answers whose tasks/update fails are sent again with a later
// poll, and the user is not asked again.
func TestExtTaskUpdateRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := bounded(t)
		f := newFake(t)
		f.Answer(mcp.MethodToolsCall, string(taskJSON("task", "t1", mcp.TaskStatusWorking, 1000, "")))
		var mu sync.Mutex
		updates, accepted := 0, false
		f.On(mcp.MethodTasksUpdate, func(context.Context, *jsonrpc.Request) (any, error) {
			mu.Lock()
			defer mu.Unlock()
			if updates++; updates == 1 {
				return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "store unavailable")
			}
			accepted = true
			return raw(ackComplete), nil
		})
		f.On(mcp.MethodTasksGet, func(context.Context, *jsonrpc.Request) (any, error) {
			mu.Lock()
			defer mu.Unlock()
			if accepted {
				return taskJSON("complete", "t1", mcp.TaskStatusCompleted, 1000, resultDone), nil
			}
			return taskJSON("complete", "t1", mcp.TaskStatusInputRequired, 1000, askName), nil
		})
		onRequest, asked := answering(func(r *client.Request) { _ = r.Accept(map[string]any{"name": "Luca"}) })
		s := f.MustConnect(ctx, &client.Options{OnRequest: onRequest})
		task, err := s.StartToolTask(ctx, &mcp.CallToolParams{Name: "confirm"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := task.Wait(ctx); err != nil {
			t.Fatal(err)
		}
		ups := f.Requests(mcp.MethodTasksUpdate)
		if len(ups) != 2 || len(asked()) != 1 {
			t.Fatalf("%d tasks/update, asked %d times; want 2 and 1", len(ups), len(asked()))
		}
		var a, b mcp.UpdateTaskParams
		_ = json.Unmarshal(ups[0].Params, &a)
		_ = json.Unmarshal(ups[1].Params, &b)
		if string(a.InputResponses["name"]) != string(b.InputResponses["name"]) || len(b.InputResponses) != 1 {
			t.Errorf("the answer sent again differs: %s, then %s", ups[0].Params, ups[1].Params)
		}
	})
}

// TestExtTaskSessionClosed: a session that ends while a task waits for the user ends
// the task and withdraws the request; nothing is left running.
func TestExtTaskSessionClosed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := bounded(t)
		f := newFake(t)
		f.Answer(mcp.MethodToolsCall, string(taskJSON("task", "t1", mcp.TaskStatusInputRequired, 1000, "")))
		f.Answer(mcp.MethodTasksGet, string(taskJSON("complete", "t1", mcp.TaskStatusInputRequired, 1000, askName)))
		queued := make(chan *client.Request, 1)
		s := f.MustConnect(ctx, &client.Options{OnRequest: func(_ context.Context, r *client.Request) { queued <- r }})
		task, err := s.StartToolTask(ctx, &mcp.CallToolParams{Name: "confirm"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var r *client.Request
		select {
		case r = <-queued:
		case <-ctx.Done():
			t.Fatal("the task's input was never queued")
		}
		s.Close()
		if _, err := task.Wait(ctx); err == nil || ctx.Err() != nil {
			t.Fatalf("outcome after Close: %v", err)
		}
		select {
		case <-r.Done():
		case <-ctx.Done():
			t.Fatal("the request was not withdrawn")
		}
		if !r.Withdrawn() {
			t.Error("the request was settled otherwise than withdrawn")
		}
	})
}

// TestExtTaskHTTPHeaders: over Streamable HTTP every tasks/* request names its task in
// Mcp-Name, beside Mcp-Method, and the task call its tool.
func TestExtTaskHTTPHeaders(t *testing.T) {
	ctx := bounded(t)
	f := newFake(t)
	f.Answer(mcp.MethodToolsList, `{"resultType":"complete","tools":[{"name":"confirm","inputSchema":{"type":"object"}}]}`)
	f.Answer(mcp.MethodToolsCall, string(taskJSON("task", "task-42", mcp.TaskStatusWorking, 1, "")))
	var mu sync.Mutex
	updated, cancelled := false, false
	f.On(mcp.MethodTasksGet, func(context.Context, *jsonrpc.Request) (any, error) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case cancelled:
			return taskJSON("complete", "task-42", mcp.TaskStatusCancelled, 1, ""), nil
		case updated:
			return taskJSON("complete", "task-42", mcp.TaskStatusWorking, 1, ""), nil
		}
		return taskJSON("complete", "task-42", mcp.TaskStatusInputRequired, 1, askName), nil
	})
	f.On(mcp.MethodTasksUpdate, func(context.Context, *jsonrpc.Request) (any, error) {
		mu.Lock()
		updated = true
		mu.Unlock()
		return raw(ackComplete), nil
	})
	f.On(mcp.MethodTasksCancel, func(context.Context, *jsonrpc.Request) (any, error) {
		mu.Lock()
		cancelled = true
		mu.Unlock()
		return raw(ackComplete), nil
	})
	answeredCh := make(chan struct{})
	s := f.ConnectHTTP(ctx, &client.Options{PollFloor: time.Millisecond, OnRequest: func(_ context.Context, r *client.Request) {
		_ = r.Accept(map[string]any{"name": "Luca"})
		close(answeredCh)
	}})
	task, err := s.StartToolTask(ctx, &mcp.CallToolParams{Name: "confirm"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-answeredCh:
	case <-ctx.Done():
		t.Fatal("the task's input was never asked")
	}
	// Cancelled once the answer is in.
	for len(f.Requests(mcp.MethodTasksUpdate)) == 0 && ctx.Err() == nil {
		time.Sleep(time.Millisecond)
	}
	if _, err := task.Cancel(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := task.Wait(ctx); !errors.Is(err, client.ErrTaskCancelled) {
		t.Fatalf("outcome: %v", err)
	}
	for _, method := range []string{mcp.MethodTasksGet, mcp.MethodTasksUpdate, mcp.MethodTasksCancel} {
		rs := f.Requests(method)
		if len(rs) == 0 {
			t.Errorf("no %s", method)
		}
		for _, m := range rs {
			if m.Header.Get("Mcp-Method") != method || m.Header.Get("Mcp-Name") != "task-42" || m.Header.Get("MCP-Protocol-Version") != v2026 {
				t.Errorf("%s headers: %v", method, m.Header)
			}
		}
	}
	if h := f.Last(mcp.MethodToolsCall).Header; h.Get("Mcp-Name") != "confirm" || h.Get("Mcp-Method") != mcp.MethodToolsCall {
		t.Errorf("tools/call headers: %v", h)
	}
}

// TestExtTaskCancelBeforeID: a task cancelled before the server has given its id (from
// a progress event that overtook the create result) is cancelled with tasks/cancel as
// soon as the id arrives.
func TestExtTaskCancelBeforeID(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := bounded(t)
		f := newFake(t)
		release := make(chan struct{})
		f.On(mcp.MethodToolsCall, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			var p struct {
				Meta map[string]any `json:"_meta"`
			}
			_ = json.Unmarshal(req.Params, &p)
			_ = f.Conn().Notify(ctx, mcp.NotificationProgress, map[string]any{"progressToken": p.Meta[mcp.MetaProgressToken], "progress": 1})
			<-release
			return taskJSON("task", "t1", mcp.TaskStatusWorking, 30000, ""), nil
		})
		var mu sync.Mutex
		cancelled := false
		f.On(mcp.MethodTasksCancel, func(context.Context, *jsonrpc.Request) (any, error) {
			mu.Lock()
			cancelled = true
			mu.Unlock()
			return raw(ackComplete), nil
		})
		f.On(mcp.MethodTasksGet, func(context.Context, *jsonrpc.Request) (any, error) {
			mu.Lock()
			defer mu.Unlock()
			if cancelled {
				return taskJSON("complete", "t1", mcp.TaskStatusCancelled, 30000, ""), nil
			}
			return taskJSON("complete", "t1", mcp.TaskStatusWorking, 30000, ""), nil
		})
		s := f.MustConnect(ctx, nil)
		sub := s.Subscribe()
		defer sub.Close()
		started := make(chan *client.Task, 1)
		go func() {
			task, err := s.StartToolTask(ctx, &mcp.CallToolParams{Name: "slow"}, &client.CallOptions{Progress: true})
			if err != nil {
				t.Error(err)
			}
			started <- task
		}()
		early := progressTask(ctx, t, sub)
		if early.ID() != "" {
			t.Fatalf("the task has id %q before the create result", early.ID())
		}
		if _, err := early.Cancel(ctx); err != nil {
			t.Fatal(err)
		}
		close(release)
		task := <-started
		if task != early {
			t.Error("the progress event's task is not the one StartToolTask returned")
		}
		if _, err := task.Wait(ctx); !errors.Is(err, client.ErrTaskCancelled) {
			t.Fatalf("outcome: %v, want ErrTaskCancelled", err)
		}
		if cs := f.Requests(mcp.MethodTasksCancel); len(cs) != 1 || taskIDParam(t, cs[0]) != "t1" {
			t.Errorf("tasks/cancel: %v", cs)
		}
	})
}

// TestExtTaskCancelDuringInput: cancelling a task whose input the user has not given
// withdraws the request.
func TestExtTaskCancelDuringInput(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := bounded(t)
		f := newFake(t)
		f.Answer(mcp.MethodToolsCall, string(taskJSON("task", "t1", mcp.TaskStatusWorking, 1000, "")))
		var mu sync.Mutex
		cancelled := false
		f.On(mcp.MethodTasksCancel, func(context.Context, *jsonrpc.Request) (any, error) {
			mu.Lock()
			cancelled = true
			mu.Unlock()
			return raw(ackComplete), nil
		})
		f.On(mcp.MethodTasksGet, func(context.Context, *jsonrpc.Request) (any, error) {
			mu.Lock()
			defer mu.Unlock()
			if cancelled {
				return taskJSON("complete", "t1", mcp.TaskStatusCancelled, 1000, ""), nil
			}
			return taskJSON("complete", "t1", mcp.TaskStatusInputRequired, 1000, askName), nil
		})
		queued := make(chan *client.Request, 1)
		s := f.MustConnect(ctx, &client.Options{OnRequest: func(_ context.Context, r *client.Request) { queued <- r }})
		task, err := s.StartToolTask(ctx, &mcp.CallToolParams{Name: "confirm"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var r *client.Request
		select {
		case r = <-queued:
		case <-ctx.Done():
			t.Fatal("the task's input was never queued")
		}
		if _, err := task.Cancel(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := task.Wait(ctx); !errors.Is(err, client.ErrTaskCancelled) {
			t.Fatalf("outcome: %v", err)
		}
		select {
		case <-r.Done():
		case <-ctx.Done():
			t.Fatal("the request was not withdrawn")
		}
		synctest.Wait()
		if !r.Withdrawn() || len(s.PendingRequests()) != 0 {
			t.Errorf("withdrawn %v, %d pending", r.Withdrawn(), len(s.PendingRequests()))
		}
		if n := len(f.Requests(mcp.MethodTasksUpdate)); n != 0 {
			t.Errorf("%d tasks/update for a cancelled task", n)
		}
	})
}

// TestExtTaskNotificationWithoutOutcome: the extension's prose has notifications/tasks
// carry a Task, its schema a DetailedTask: a notification that says completed (or
// failed) without the result (or error) is followed by a tasks/get that has it, rather
// than taken for a server bug.
func TestExtTaskNotificationWithoutOutcome(t *testing.T) {
	for _, c := range []struct {
		status mcp.TaskStatus
		detail string
		check  func(res *mcp.CallToolResult, err error) bool
	}{
		{mcp.TaskStatusCompleted, resultDone, func(res *mcp.CallToolResult, err error) bool {
			return err == nil && res.Content[0].Text == "done"
		}},
		{mcp.TaskStatusFailed, `"error":{"code":-32000,"message":"quota"}`, func(_ *mcp.CallToolResult, err error) bool {
			var rpc *jsonrpc.Error
			return errors.As(err, &rpc) && rpc.Code == -32000 && rpc.Message == "quota"
		}},
	} {
		t.Run(string(c.status), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := bounded(t)
				f := newFake(t)
				f.Answer(mcp.MethodToolsCall, string(taskJSON("task", "t1", mcp.TaskStatusWorking, 50000, "")))
				var mu sync.Mutex
				ended := false
				f.On(mcp.MethodTasksGet, func(context.Context, *jsonrpc.Request) (any, error) {
					mu.Lock()
					defer mu.Unlock()
					if ended {
						return taskJSON("complete", "t1", c.status, 50000, c.detail), nil
					}
					return taskJSON("complete", "t1", mcp.TaskStatusWorking, 50000, ""), nil
				})
				s := f.MustConnect(ctx, nil)
				task, err := s.StartToolTask(ctx, &mcp.CallToolParams{Name: "job"}, nil)
				if err != nil {
					t.Fatal(err)
				}
				mu.Lock()
				ended = true
				mu.Unlock()
				if err := f.Conn().Notify(ctx, mcp.NotificationTasks, taskJSON("", "t1", c.status, 50000, "")); err != nil {
					t.Fatal(err)
				}
				res, err := task.Wait(ctx)
				if !c.check(res, err) {
					t.Fatalf("outcome: %+v, %v; want the one tasks/get inlines", res, err)
				}
			})
		})
	}
}

// TestExtTaskRootsInput: a task that asks for roots is answered at once, with no user.
func TestExtTaskRootsInput(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := bounded(t)
		f := newFake(t)
		f.Answer(mcp.MethodToolsCall, string(taskJSON("task", "t1", mcp.TaskStatusInputRequired, 1000, "")))
		var mu sync.Mutex
		var roots json.RawMessage
		f.On(mcp.MethodTasksUpdate, func(_ context.Context, req *jsonrpc.Request) (any, error) {
			var p mcp.UpdateTaskParams
			_ = json.Unmarshal(req.Params, &p)
			mu.Lock()
			roots = p.InputResponses["client_roots"]
			mu.Unlock()
			return raw(ackComplete), nil
		})
		f.On(mcp.MethodTasksGet, func(context.Context, *jsonrpc.Request) (any, error) {
			mu.Lock()
			defer mu.Unlock()
			if roots != nil {
				return taskJSON("complete", "t1", mcp.TaskStatusCompleted, 1000, resultDone), nil
			}
			return taskJSON("complete", "t1", mcp.TaskStatusInputRequired, 1000, `"inputRequests":{"client_roots":{"method":"roots/list"}}`), nil
		})
		onRequest, asked := answering(func(r *client.Request) { _ = r.Decline() })
		s := f.MustConnect(ctx, &client.Options{OnRequest: onRequest, Roots: []mcp.Root{{URI: "file:///src"}}})
		task, err := s.StartToolTask(ctx, &mcp.CallToolParams{Name: "scan"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := task.Wait(ctx); err != nil {
			t.Fatal(err)
		}
		if string(roots) != `{"roots":[{"uri":"file:///src"}]}` || len(asked()) != 0 {
			t.Errorf("roots answer %s, asked %d", roots, len(asked()))
		}
	})
}

// TestExtTaskUpdateAfterEnd: some servers answer tasks/update for a task that has ended
// with -32602 (the extension leaves it open): the task's outcome is what tasks/get
// says then, not "gone".
func TestExtTaskUpdateAfterEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := bounded(t)
		f := newFake(t)
		f.Answer(mcp.MethodToolsCall, string(taskJSON("task", "t1", mcp.TaskStatusWorking, 1000, "")))
		var mu sync.Mutex
		expired := false
		f.On(mcp.MethodTasksGet, func(context.Context, *jsonrpc.Request) (any, error) {
			mu.Lock()
			defer mu.Unlock()
			if expired {
				return taskJSON("complete", "t1", mcp.TaskStatusFailed, 1000, `"error":{"code":-32603,"message":"input timed out"}`), nil
			}
			return taskJSON("complete", "t1", mcp.TaskStatusInputRequired, 1000, askName), nil
		})
		f.On(mcp.MethodTasksUpdate, func(context.Context, *jsonrpc.Request) (any, error) {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "task t1 is not waiting for input")
		})
		// The user answers after the server gave up waiting.
		onRequest, _ := answering(func(r *client.Request) {
			mu.Lock()
			expired = true
			mu.Unlock()
			_ = r.Accept(map[string]any{"name": "late"})
		})
		s := f.MustConnect(ctx, &client.Options{OnRequest: onRequest})
		task, err := s.StartToolTask(ctx, &mcp.CallToolParams{Name: "confirm"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = task.Wait(ctx)
		var rpc *jsonrpc.Error
		if errors.Is(err, client.ErrTaskGone) || !errors.As(err, &rpc) || rpc.Message != "input timed out" {
			t.Fatalf("outcome: %v; want the failure tasks/get gives", err)
		}
	})
}

// TestExtTaskUpdateRefused: an answer the server refuses with -32602, the key still
// outstanding, is asked again.
func TestExtTaskUpdateRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := bounded(t)
		f := newFake(t)
		f.Answer(mcp.MethodToolsCall, string(taskJSON("task", "t1", mcp.TaskStatusWorking, 1000, "")))
		var mu sync.Mutex
		done := false
		f.On(mcp.MethodTasksGet, func(context.Context, *jsonrpc.Request) (any, error) {
			mu.Lock()
			defer mu.Unlock()
			if done {
				return taskJSON("complete", "t1", mcp.TaskStatusCompleted, 1000, resultDone), nil
			}
			return taskJSON("complete", "t1", mcp.TaskStatusInputRequired, 1000, askName), nil
		})
		f.On(mcp.MethodTasksUpdate, func(_ context.Context, req *jsonrpc.Request) (any, error) {
			var p struct {
				InputResponses map[string]mcp.ElicitResult `json:"inputResponses"`
			}
			_ = json.Unmarshal(req.Params, &p)
			if p.InputResponses["name"].Content["name"] == "" {
				return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "name must not be empty")
			}
			mu.Lock()
			done = true
			mu.Unlock()
			return raw(ackComplete), nil
		})
		var tries sync.Map
		onRequest, asked := answering(func(r *client.Request) {
			_, again := tries.LoadOrStore(r.InputKey, true)
			name := ""
			if again {
				name = "Luca"
			}
			_ = r.Accept(map[string]any{"name": name})
		})
		s := f.MustConnect(ctx, &client.Options{OnRequest: onRequest})
		task, err := s.StartToolTask(ctx, &mcp.CallToolParams{Name: "confirm"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res, err := task.Wait(ctx); err != nil || res.Content[0].Text != "done" {
			t.Fatalf("outcome: %+v, %v", res, err)
		}
		if n := len(asked()); n != 2 {
			t.Errorf("asked %d times, want twice (once more after the refusal)", n)
		}
	})
}

// TestExtTaskInputsBounded: a server that asks a task for a new input on every poll
// would keep the user answering for ever: after MaxTaskInputs the task is cancelled and
// ends with an error that says so.
func TestExtTaskInputsBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := bounded(t)
		f := newFake(t)
		f.Answer(mcp.MethodToolsCall, string(taskJSON("task", "t1", mcp.TaskStatusWorking, 10, "")))
		var mu sync.Mutex
		n := 0
		f.On(mcp.MethodTasksGet, func(context.Context, *jsonrpc.Request) (any, error) {
			mu.Lock()
			defer mu.Unlock()
			n++
			key := fmt.Sprintf("k%d", n)
			return taskJSON("complete", "t1", mcp.TaskStatusInputRequired, 10,
				`"inputRequests":{"`+key+`":{"method":"roots/list"}}`), nil
		})
		f.Answer(mcp.MethodTasksUpdate, ackComplete)
		f.Answer(mcp.MethodTasksCancel, ackComplete)
		s := f.MustConnect(ctx, nil)
		task, err := s.StartToolTask(ctx, &mcp.CallToolParams{Name: "greedy"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = task.Wait(ctx)
		if err == nil || !strings.Contains(err.Error(), "asked for input 257 times") {
			t.Fatalf("outcome %v, want the bound's error", err)
		}
		if len(f.Requests(mcp.MethodTasksCancel)) != 1 {
			t.Errorf("%d tasks/cancel, want 1", len(f.Requests(mcp.MethodTasksCancel)))
		}
		if u := len(f.Requests(mcp.MethodTasksUpdate)); u > client.MaxTaskInputs {
			t.Errorf("%d tasks/update, more than the bound", u)
		}
	})
}

// TestRunToolTaskModernAnswers: RunToolTask in 2026-07-28 over a connection whose writes
// are local takes a task where its answer is read, and hands every other first answer
// back to the caller, which carries the exchange on: input rounds before the task, a
// -32022 naming the session's version (asked again), a plain result, an error. Each
// ends as StartToolTask and Wait would have ended it.
func TestRunToolTaskModernAnswers(t *testing.T) {
	done := `"result":{"content":[{"type":"text","text":"Hello, Alice"}]}`
	cases := []struct {
		name  string
		call  func(n int32, req *jsonrpc.Request) (any, error)
		calls int
		want  string // the outcome's text, or the error's
		task  bool
	}{
		{"task", func(int32, *jsonrpc.Request) (any, error) {
			return taskJSON("task", "t1", mcp.TaskStatusWorking, 1000, ""), nil
		}, 1, "Hello, Alice", true},
		{"input then task", func(_ int32, req *jsonrpc.Request) (any, error) {
			if !strings.Contains(string(req.Params), "inputResponses") {
				return raw(`{"resultType":"input_required","inputRequests":{"user_name":` + elicitName + `},"requestState":"mrtr-1"}`), nil
			}
			return taskJSON("task", "t1", mcp.TaskStatusWorking, 1000, ""), nil
		}, 2, "Hello, Alice", true},
		{"version retried", func(n int32, _ *jsonrpc.Request) (any, error) {
			if n == 1 {
				return nil, jsonrpc.NewError(mcp.CodeUnsupportedProtocolVersion, "Unsupported protocol version").
					WithData(mcp.UnsupportedProtocolVersionData{Supported: []string{v2026}, Requested: v2026})
			}
			return taskJSON("task", "t1", mcp.TaskStatusWorking, 1000, ""), nil
		}, 2, "Hello, Alice", true},
		{"plain result", func(int32, *jsonrpc.Request) (any, error) {
			return raw(`{"resultType":"complete","content":[{"type":"text","text":"inline"}]}`), nil
		}, 1, "inline", false},
		{"error", func(int32, *jsonrpc.Request) (any, error) {
			return nil, jsonrpc.NewError(-32603, "broke")
		}, 1, "broke", false},
		{"bad task", func(int32, *jsonrpc.Request) (any, error) {
			return raw(`{"resultType":"task","status":"working"}`), nil
		}, 1, "no task id", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := bounded(t)
				f := newFake(t)
				var n atomic.Int32
				f.On(mcp.MethodToolsCall, func(_ context.Context, req *jsonrpc.Request) (any, error) {
					return c.call(n.Add(1), req)
				})
				f.Answer(mcp.MethodTasksGet, string(taskJSON("complete", "t1", mcp.TaskStatusCompleted, 1000, done)))
				onRequest, _ := answering(func(r *client.Request) { _ = r.Accept(map[string]any{"name": "Alice"}) })
				s := f.MustConnect(ctx, &client.Options{OnRequest: onRequest})
				task, res, err := s.RunToolTask(ctx, &mcp.CallToolParams{Name: "job"}, nil)
				got := ""
				switch {
				case err != nil:
					got = err.Error()
				case res != nil && len(res.Content) == 1:
					got = res.Content[0].Text
				}
				if !strings.Contains(got, c.want) {
					t.Errorf("outcome %q (%+v, %v), want %q", got, res, err, c.want)
				}
				if isTask := task != nil && task.ID() != ""; isTask != c.task {
					t.Errorf("task %v, want a task: %v", task, c.task)
				}
				if k := len(f.Requests(mcp.MethodToolsCall)); k != c.calls {
					t.Errorf("%d tools/call, want %d", k, c.calls)
				}
				synctest.Wait()
				if k := len(s.PendingRequests()); k != 0 {
					t.Errorf("%d requests pending after the outcome", k)
				}
			})
		})
	}
}

// TestRunToolTaskModernCtxEnds: when ctx ends while the task works, RunToolTask returns
// the task with ctx's error, and the session goes on following it to its end.
func TestRunToolTaskModernCtxEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := bounded(t)
		f := newFake(t)
		var ended atomic.Bool
		f.Answer(mcp.MethodToolsCall, string(taskJSON("task", "t1", mcp.TaskStatusWorking, 1000, "")))
		f.On(mcp.MethodTasksGet, func(context.Context, *jsonrpc.Request) (any, error) {
			if ended.Load() {
				return taskJSON("complete", "t1", mcp.TaskStatusCompleted, 1000, resultDone), nil
			}
			return taskJSON("complete", "t1", mcp.TaskStatusWorking, 1000, ""), nil
		})
		s := f.MustConnect(ctx, nil)
		short, cancel := context.WithTimeout(ctx, 1500*time.Millisecond)
		defer cancel()
		task, res, err := s.RunToolTask(short, &mcp.CallToolParams{Name: "job"}, nil)
		if task == nil || task.ID() != "t1" || res != nil || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("RunToolTask: %v, %+v, %v; want the task and ctx's error", task, res, err)
		}
		ended.Store(true)
		if res, err := task.Wait(ctx); err != nil || res.Content[0].Text != "done" {
			t.Errorf("the task followed on: %+v, %v", res, err)
		}
	})
}

// TestTaskDetailIn2025: TaskDetail on a 2025-11-25 session fails with
// ErrNoTaskDetail, which callers match with errors.Is (it was an errors.New).
func TestTaskDetailIn2025(t *testing.T) {
	ctx, s := demoSession(t, mcp.LatestProtocolVersion, nil)
	if _, err := s.TaskDetail(ctx, "x"); !errors.Is(err, client.ErrNoTaskDetail) {
		t.Errorf("TaskDetail in 2025-11-25: %v, want ErrNoTaskDetail", err)
	}
}
