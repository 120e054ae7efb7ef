package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/transport"
)

// scriptedTask is a 2025-11-25 task state as a scripted server reports it.
func scriptedTask(id string, status mcp.TaskStatus) mcp.Task {
	now := mcp.FormatTime(time.Now())
	ttl, poll := int64(600000), int64(1000)
	return mcp.Task{TaskID: id, Status: status, CreatedAt: now, LastUpdatedAt: now, TTL: &ttl, PollInterval: &poll}
}

// textResult is a CallToolResult with one text.
func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(text)}}
}

// TestTaskGetAnsweredWithAnotherTask: a 2025-11-25 server whose tasks/get for task A answers
// with task B (a server bug, or a proxy mixing answers up) must not turn the client's
// task A into task B: its id must stay A, and its outcome must be A's, never B's.
func TestTaskGetAnsweredWithAnotherTask(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		var gets, resultsA atomic.Int32
		s := rawServer(t, nil, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			var p struct {
				TaskID string `json:"taskId"`
			}
			_ = json.Unmarshal(req.Params, &p)
			switch req.Method {
			case mcp.MethodToolsCall:
				return &mcp.CreateTaskResult{Task: scriptedTask("A", mcp.TaskStatusWorking)}, nil
			case mcp.MethodTasksGet:
				if gets.Add(1) == 1 {
					return &mcp.GetTaskResult{Task: scriptedTask("B", mcp.TaskStatusCompleted)}, nil
				}
				return &mcp.GetTaskResult{Task: scriptedTask("A", mcp.TaskStatusCompleted)}, nil
			case mcp.MethodTasksResult:
				if p.TaskID == "B" {
					return textResult("B's result"), nil
				}
				if resultsA.Add(1) == 1 {
					// The early tasks/result sent at creation: refused, so the task is polled.
					return nil, jsonrpc.ErrMethodNotFound
				}
				return textResult("A's result"), nil
			}
			return nil, jsonrpc.ErrMethodNotFound
		})
		task, err := s.StartToolTask(ctx, &mcp.CallToolParams{Name: "job"}, &client.CallOptions{SendAnyway: true})
		if err != nil {
			t.Fatal(err)
		}
		res, err := task.Wait(ctx)
		if id := task.ID(); id != "A" {
			t.Errorf("task id %q after a tasks/get answered with another task, want A", id)
		}
		if err != nil || len(res.Content) != 1 || res.Content[0].Text != "A's result" {
			t.Errorf("outcome %+v, %v; want A's result", res, err)
		}
	})
}

// TestTaskOfFailedCallEnds: progress that overtakes the CreateTaskResult gives the
// session's subscribers the *Task before its id is known (as CallToolTask's doc says).
// When the call then fails (here the server exits before answering it), that task must
// end too: Wait must return an error and Events must end, rather than hang until the
// caller's own deadline.
func TestTaskOfFailedCallEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		var srv *jsonrpc.Conn
		s, srvConn := rawServerConn(t, nil, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			if req.Method != mcp.MethodToolsCall {
				return nil, jsonrpc.ErrMethodNotFound
			}
			var p mcp.CallToolParams
			_ = json.Unmarshal(req.Params, &p)
			tok, _ := p.Meta.ProgressToken()
			_ = srv.Notify(ctx, mcp.NotificationProgress, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: 1})
			srv.Close() // the server exits before its CreateTaskResult
			return nil, ctx.Err()
		})
		srv = srvConn
		sub := s.Subscribe()
		defer sub.Close()
		_, err := s.StartToolTask(ctx, &mcp.CallToolParams{Name: "job"}, &client.CallOptions{SendAnyway: true, Progress: true})
		if err == nil {
			t.Fatal("the call succeeded")
		}
		task := progressTask(ctx, t, sub)
		wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
		defer wcancel()
		if _, err := task.Wait(wctx); err == nil || wctx.Err() != nil {
			t.Errorf("Wait on the task of a failed call: %v (after %v), want the call's error at once", err, wctx.Err())
		}
		n := 0
		for range task.Events(wctx) {
			n++
		}
		if wctx.Err() != nil {
			t.Errorf("Events of the task of a failed call ended only with the caller's deadline (%d events)", n)
		}
	})
}

// TestRefusedTaskCallNotOnTheSession: a task call the server refuses (its rate limit,
// say) made no task: the caller gets the error, and the session's subscribers (the web
// page's rows, the TUI's) hear nothing of it, as they heard nothing of its start. (They
// were told of its end: a page counted a failed row for every refused call.)
func TestRefusedTaskCallNotOnTheSession(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		s, _ := rawServerConn(t, nil, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			if req.Method != mcp.MethodToolsCall {
				return nil, jsonrpc.ErrMethodNotFound
			}
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "too many task requests; slow down")
		})
		sub := s.Subscribe()
		defer sub.Close()
		_, err := s.StartToolTask(ctx, &mcp.CallToolParams{Name: "job"}, &client.CallOptions{SendAnyway: true, Progress: true})
		if err == nil || !strings.Contains(err.Error(), "slow down") {
			t.Fatalf("the call: %v, want the server's refusal", err)
		}
		synctest.Wait()
		s.Close()
		for e := range sub.All(ctx) {
			if te, ok := e.(*client.TaskEvent); ok {
				t.Errorf("the session's subscriber got %v of a call that made no task (err %v)", te.Kind, te.Err)
			}
		}
	})
}

// TestPlainAnswerNotOnTheSession: a task call the server answers plainly made no task
// (in 2026-07-28 every call declares the extension, and most are answered so): the
// caller gets the outcome, and the session's subscribers hear nothing of it unless they
// heard of it before (progress that overtook the answer), which they then see end. (The
// TUI's Tasks view counted a "starting" row for every plain call.)
func TestPlainAnswerNotOnTheSession(t *testing.T) {
	for _, progress := range []bool{false, true} {
		t.Run(fmt.Sprintf("progress=%v", progress), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				var srv *jsonrpc.Conn
				s, srv := rawServerConn(t, nil, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
					if req.Method != mcp.MethodToolsCall {
						return nil, jsonrpc.ErrMethodNotFound
					}
					if progress {
						var p mcp.CallToolParams
						_ = json.Unmarshal(req.Params, &p)
						tok, _ := p.Meta.ProgressToken()
						if err := srv.Notify(ctx, mcp.NotificationProgress,
							&mcp.ProgressNotificationParams{ProgressToken: tok, Progress: 1}); err != nil {
							return nil, err
						}
					}
					return json.RawMessage(`{"content":[{"type":"text","text":"done"}]}`), nil
				})
				sub := s.Subscribe()
				defer sub.Close()
				task, err := s.StartToolTask(ctx, &mcp.CallToolParams{Name: "job"}, &client.CallOptions{SendAnyway: true, Progress: true})
				if err != nil {
					t.Fatal(err)
				}
				if res, err := task.Outcome(); err != nil || task.ID() != "" || len(res.Content) != 1 {
					t.Fatalf("outcome %+v, %v; id %q", res, err, task.ID())
				}
				synctest.Wait()
				s.Close()
				var kinds []client.TaskEventKind
				for e := range sub.All(ctx) {
					if te, ok := e.(*client.TaskEvent); ok {
						kinds = append(kinds, te.Kind)
					}
				}
				want := []client.TaskEventKind(nil)
				if progress {
					want = []client.TaskEventKind{client.TaskProgress, client.TaskResult}
				}
				if !slices.Equal(kinds, want) {
					t.Errorf("the session's subscriber got %v, want %v", kinds, want)
				}
			})
		})
	}
}

// TestExtTaskPolledWhenItsStreamIsGone: in 2026-07-28 a task hears of itself only on a
// subscriptions/listen stream that names it. Once the session has had one notification
// (task t1, on its stream), a later task t2 whose stream the server ends at once (its
// final result), refuses, or acknowledges without naming t2 (and keeps open) has no
// stream to hear of itself on: it must be polled at its own pollIntervalMs (1 s here),
// not at NotifiedPollInterval (10 s), as if notifications would still come.
func TestExtTaskPolledWhenItsStreamIsGone(t *testing.T) {
	for _, how := range []string{"ended", "refused", "left out"} {
		t.Run(how, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := bounded(t)
				f := newFake(t)
				var (
					calls   atomic.Int32
					listens atomic.Int32
					created = time.Now()
				)
				f.On(mcp.MethodToolsCall, func(context.Context, *jsonrpc.Request) (any, error) {
					id := fmt.Sprintf("t%d", calls.Add(1))
					if id == "t2" {
						created = time.Now()
					}
					return taskJSON("task", id, mcp.TaskStatusWorking, 1000, ""), nil
				})
				f.On(mcp.MethodTasksGet, func(_ context.Context, req *jsonrpc.Request) (any, error) {
					var p mcp.GetTaskParams
					_ = json.Unmarshal(req.Params, &p)
					if time.Since(created) >= time.Second {
						return taskJSON("complete", p.TaskID, mcp.TaskStatusCompleted, 1000, resultDone), nil
					}
					return taskJSON("complete", p.TaskID, mcp.TaskStatusWorking, 1000, ""), nil
				})
				f.On(mcp.MethodSubscriptionsListen, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
					var p mcp.ListenParams
					_ = json.Unmarshal(req.Params, &p)
					final := map[string]any{"resultType": "complete", "_meta": map[string]any{mcp.MetaSubscriptionID: req.ID}}
					second := listens.Add(1) > 1
					if second && how == "refused" {
						return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "too many streams")
					}
					if second && how == "left out" {
						// Acknowledged without the task, and kept open: nothing of it will come.
						_ = f.Conn().Notify(ctx, mcp.NotificationSubscriptionsAcknowledged, map[string]any{
							"_meta":         map[string]any{mcp.MetaSubscriptionID: req.ID},
							"notifications": map[string]any{"taskIds": []string{}},
						})
						<-ctx.Done()
						return nil, ctx.Err()
					}
					_ = f.Conn().Notify(ctx, mcp.NotificationSubscriptionsAcknowledged, map[string]any{
						"_meta":         map[string]any{mcp.MetaSubscriptionID: req.ID},
						"notifications": map[string]any{"taskIds": p.Notifications.TaskIDs},
					})
					if slices.Contains(p.Notifications.TaskIDs, "t1") {
						notifyTask(t, f, req.ID, taskJSON("", "t1", mcp.TaskStatusCompleted, 1000, resultDone))
					}
					return final, nil // the stream ends (t2's: before t2 has ended)
				})
				s := f.MustConnect(ctx, nil)
				first, err := s.StartToolTask(ctx, &mcp.CallToolParams{Name: "job"}, nil)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := first.Wait(ctx); err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				task, err := s.StartToolTask(ctx, &mcp.CallToolParams{Name: "job"}, nil)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := task.Wait(ctx); err != nil {
					t.Fatal(err)
				}
				if took := time.Since(start); took > 3*time.Second {
					t.Errorf("a task whose stream was %s learned of its end after %s, with pollIntervalMs 1s", how, took)
				}
			})
		})
	}
}

// TestCancelledTaskForgottenAtOnce: the spec lets a server forget a cancelled task
// at once. Here it does, and its answer to tasks/cancel (the task, cancelled) reaches the
// client after the early tasks/result's error and after the tasks/get that error makes
// the client send (-32602, forgotten). The task was cancelled by its caller, and the
// server said so: its outcome must be ErrTaskCancelled, not ErrTaskGone, and agree with
// the state the task is left in.
func TestCancelledTaskForgottenAtOnce(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var (
		mu        sync.Mutex
		status    = mcp.TaskStatusWorking
		cancelled = make(chan struct{})
		taskc     = make(chan *client.Task, 1)
	)
	s := rawServer(t, nil, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		mu.Lock()
		st := status
		mu.Unlock()
		unknown := jsonrpc.NewError(jsonrpc.CodeInvalidParams, "no such task")
		switch req.Method {
		case mcp.MethodToolsCall:
			return &mcp.CreateTaskResult{Task: scriptedTask("A", mcp.TaskStatusWorking)}, nil
		case mcp.MethodTasksResult:
			select {
			case <-cancelled:
			case <-ctx.Done():
			}
			return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "the task was cancelled")
		case mcp.MethodTasksGet:
			if st == "" {
				return nil, unknown
			}
			return &mcp.GetTaskResult{Task: scriptedTask("A", st)}, nil
		case mcp.MethodTasksCancel:
			mu.Lock()
			status = "" // cancelled, and forgotten at once
			mu.Unlock()
			close(cancelled)
			// The answer is slow to come (it is written after the others).
			task := <-taskc
			select {
			case <-task.Done():
			case <-time.After(2 * time.Second):
			}
			return &mcp.CancelTaskResult{Task: scriptedTask("A", mcp.TaskStatusCancelled)}, nil
		}
		return nil, jsonrpc.ErrMethodNotFound
	})
	task, err := s.StartToolTask(ctx, &mcp.CallToolParams{Name: "job"}, &client.CallOptions{SendAnyway: true})
	if err != nil {
		t.Fatal(err)
	}
	taskc <- task
	st, err := task.Cancel(ctx)
	if err != nil || st.Status != mcp.TaskStatusCancelled {
		t.Fatalf("Cancel: %+v, %v", st, err)
	}
	_, err = task.Wait(ctx)
	if !errors.Is(err, client.ErrTaskCancelled) {
		t.Errorf("the task its caller cancelled (and the server said so) ended with %v, want ErrTaskCancelled", err)
	}
	if st := task.State().Status; errors.Is(err, client.ErrTaskGone) && st == mcp.TaskStatusCancelled {
		t.Errorf("the task ended gone, but its state says %s", st)
	}
}

// TestPollAnswerAfterNewerNotification: the server answers a tasks/get (working),
// then the task asks for input and the server says so (notifications/tasks/status,
// input_required), in that order on the wire, in the same second (its timestamps have
// whole seconds). The client must end with the task input_required, as the server last
// said, and fetch the input with tasks/result, rather than apply the poll's answer after
// the notification that followed it.
func TestPollAnswerAfterNewerNotification(t *testing.T) {
	untilFailed(t, 200, pollAnswerAfterNotification)
}

// untilFailed runs run (a race's one try) n times, or until one fails the test.
func untilFailed(t *testing.T, n int, run func(t *testing.T, i int)) {
	for i := range n {
		run(t, i)
		if t.Failed() {
			return
		}
	}
}

func pollAnswerAfterNotification(t *testing.T, run int) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const at = "2025-11-25T10:00:00Z" // whole seconds: the same for both
	state := func(status mcp.TaskStatus) mcp.Task {
		ttl, poll := int64(600000), int64(1)
		return mcp.Task{TaskID: "A", Status: status, CreatedAt: at, LastUpdatedAt: at, TTL: &ttl, PollInterval: &poll}
	}
	var joined *joinedWrites
	var gets, early atomic.Int32
	results := make(chan struct{}, 4)
	s, conn := osPipeServer(t, &client.Options{PollFloor: time.Millisecond, NotifiedPollInterval: time.Hour}, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		switch req.Method {
		case mcp.MethodToolsCall:
			return &mcp.CreateTaskResult{Task: state(mcp.TaskStatusWorking)}, nil
		case mcp.MethodTasksGet:
			switch gets.Add(1) {
			case 1: // FollowTask's
				return &mcp.GetTaskResult{Task: state(mcp.TaskStatusWorking)}, nil
			case 2: // the follower's first poll
				// Right after this answer, in the same write: the task asks for input.
				params, _ := json.Marshal(&mcp.TaskStatusNotificationParams{Task: state(mcp.TaskStatusInputRequired)})
				joined.thenWrite(req.ID, &jsonrpc.Request{Method: mcp.NotificationTasksStatus, Params: params})
				return &mcp.GetTaskResult{Task: state(mcp.TaskStatusWorking)}, nil
			}
			return &mcp.GetTaskResult{Task: state(mcp.TaskStatusInputRequired)}, nil
		case mcp.MethodTasksResult:
			if early.Add(1) == 1 {
				return nil, jsonrpc.ErrMethodNotFound // the early one, sent as the task is followed
			}
			results <- struct{}{}
			<-ctx.Done()
			return nil, ctx.Err()
		}
		return nil, jsonrpc.ErrMethodNotFound
	})
	joined = conn
	// Its early tasks/result refused, the task is followed by polls.
	task, err := s.FollowTask(ctx, "A")
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-results:
	case <-time.After(10 * time.Second): // the next poll is an hour away (NotifiedPollInterval)
		t.Errorf("run %d: no tasks/result 10s after the server said input_required (state %s, %d polls)", run, task.State().Status, gets.Load())
	}
}

// osPipeServer is rawServerConn over OS pipes, as stdio is: what the server writes waits
// in the pipe's buffer, so two messages it writes back to back are read together.
func osPipeServer(t *testing.T, opts *client.Options, handle jsonrpc.HandlerFunc) (*client.Session, *joinedWrites) {
	t.Helper()
	var joined *joinedWrites
	tr := osPipeTransport{serve: func(conn jsonrpc.Connection) {
		joined = conn.(*joinedWrites)
		serveRaw(t, conn, handle)
	}}
	s, err := client.New(mcp.Implementation{Name: "mcpi-test", Version: "1"}, opts).Connect(context.Background(), tr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, joined
}

type osPipeTransport struct{ serve func(jsonrpc.Connection) }

func (p osPipeTransport) Connect(context.Context) (jsonrpc.Connection, error) {
	cr, sw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	sr, cw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	p.serve(&joinedWrites{Connection: transport.NewStream(sr, sw, 0), w: sw})
	return transport.NewStream(cr, cw, 0), nil
}

// joinedWrites is the server's end of an OS pipe that can write a message in the same
// write(2) as the response it follows (see thenWrite), as a server that buffers its
// output does: the client reads both at once.
type joinedWrites struct {
	jsonrpc.Connection
	w    *os.File
	mu   sync.Mutex
	then map[string]jsonrpc.Message // by the response's id
}

// Write writes m, and what is to follow it, in one write.
func (j *joinedWrites) Write(ctx context.Context, m jsonrpc.Message) error {
	b, err := jsonrpc.EncodeMessage(m)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	j.mu.Lock()
	defer j.mu.Unlock()
	if r, ok := m.(*jsonrpc.Response); ok {
		if next := j.then[r.ID.String()]; next != nil {
			nb, err := jsonrpc.EncodeMessage(next)
			if err != nil {
				return err
			}
			b = append(append(b, nb...), '\n')
		}
	}
	_, err = j.w.Write(b)
	return err
}

// thenWrite has next written right after the response to the request id, in one write.
func (j *joinedWrites) thenWrite(id jsonrpc.ID, next jsonrpc.Message) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.then == nil {
		j.then = map[string]jsonrpc.Message{}
	}
	j.then[id.String()] = next
}
