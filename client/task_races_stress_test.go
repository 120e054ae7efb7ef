package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// raceServer is a 2025-11-25 task server with a correct state machine: each call makes
// a task that completes after done ticks of its own goroutine; tasks/cancel of a working
// task makes it cancelled (before the answer), of an ended one -32602; tasks/result
// waits for the end; notifications/tasks/status tells every change.
type raceServer struct {
	mu    sync.Mutex
	srv   *jsonrpc.Conn
	n     int
	tasks map[string]*raceServerTask
	// deleteCancelled: a cancelled task is forgotten at once (the spec allows it).
	deleteCancelled bool
}

type raceServerTask struct {
	st   mcp.Task
	done chan struct{}
}

func (a *raceServer) setLocked(k *raceServerTask, status mcp.TaskStatus) {
	k.st.Status = status
	k.st.LastUpdatedAt = mcp.FormatTime(time.Now())
	close(k.done)
	st := k.st
	go func() {
		_ = a.srv.Notify(context.Background(), mcp.NotificationTasksStatus, &mcp.TaskStatusNotificationParams{Task: st})
	}()
}

func (a *raceServer) handle(ctx context.Context, req *jsonrpc.Request) (any, error) {
	var p struct {
		TaskID string `json:"taskId"`
	}
	_ = json.Unmarshal(req.Params, &p)
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.tasks == nil {
		a.tasks = map[string]*raceServerTask{}
	}
	k := a.tasks[p.TaskID]
	unknown := jsonrpc.NewError(jsonrpc.CodeInvalidParams, "no such task")
	switch req.Method {
	case mcp.MethodToolsCall:
		a.n++
		id := fmt.Sprintf("task-%d", a.n)
		k := &raceServerTask{st: scriptedTask(id, mcp.TaskStatusWorking), done: make(chan struct{})}
		a.tasks[id] = k
		go func() {
			runtime.Gosched()
			a.mu.Lock()
			defer a.mu.Unlock()
			if k.st.Status == mcp.TaskStatusWorking {
				a.setLocked(k, mcp.TaskStatusCompleted)
			}
		}()
		return &mcp.CreateTaskResult{Task: k.st}, nil
	case mcp.MethodTasksGet:
		if k == nil {
			return nil, unknown
		}
		return &mcp.GetTaskResult{Task: k.st}, nil
	case mcp.MethodTasksCancel:
		if k == nil || k.st.Status.IsTerminal() {
			return nil, unknown
		}
		a.setLocked(k, mcp.TaskStatusCancelled)
		if a.deleteCancelled {
			delete(a.tasks, p.TaskID)
		}
		return &mcp.CancelTaskResult{Task: k.st}, nil
	case mcp.MethodTasksResult:
		if k == nil {
			return nil, unknown
		}
		a.mu.Unlock()
		select {
		case <-k.done:
		case <-ctx.Done():
		}
		a.mu.Lock()
		if k.st.Status == mcp.TaskStatusCompleted {
			return textResult("done"), nil
		}
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "the task was cancelled")
	}
	return nil, jsonrpc.ErrMethodNotFound
}

// TestCancelRacesCompletion: the caller cancels a task as the server completes it.
// Whichever wins, the task has exactly one outcome, and it agrees with the last status
// its events showed and with the task's final state: completed with its result, or
// cancelled with ErrTaskCancelled. No status event follows the outcome.
func TestCancelRacesCompletion(t *testing.T) {
	for _, del := range []bool{false, true} {
		t.Run(fmt.Sprintf("deleteCancelled=%v", del), func(t *testing.T) { cancelRacesCompletion(t, del) })
	}
}

func cancelRacesCompletion(t *testing.T, deleteCancelled bool) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	a := &raceServer{deleteCancelled: deleteCancelled}
	s, srv := rawServerConn(t, nil, a.handle)
	a.srv = srv
	for i := range 300 {
		var last mcp.TaskStatus
		var outcomes []client.TaskEvent
		var task *client.Task
		for e := range s.CallToolTask(ctx, &mcp.CallToolParams{Name: "job"}, &client.CallOptions{SendAnyway: true}) {
			switch {
			case e.Kind == client.TaskCreated:
				task = e.Task
				go task.Cancel(ctx)
			case e.Kind.IsOutcome():
				outcomes = append(outcomes, e)
			case len(outcomes) > 0:
				t.Errorf("run %d: a %s event (%s) after the outcome", i, e.Kind, e.State.Status)
			}
			last = e.State.Status
		}
		if len(outcomes) != 1 {
			t.Fatalf("run %d: %d outcomes", i, len(outcomes))
		}
		res, err := task.Outcome()
		st := task.State().Status
		switch {
		case err == nil && (st != mcp.TaskStatusCompleted || last != mcp.TaskStatusCompleted || res == nil):
			t.Errorf("run %d: a result, with the final status %s and the last event's %s", i, st, last)
		case err != nil && (!errors.Is(err, client.ErrTaskCancelled) || st != mcp.TaskStatusCancelled || last != mcp.TaskStatusCancelled):
			t.Errorf("run %d: error %v, with the final status %s and the last event's %s", i, err, st, last)
		}
	}
}

// TestServerExitsMidTask: the server exits while tasks are at every stage: a call
// not answered yet, a task parked between polls, one whose early tasks/result is held,
// one that asks for input (its blocking tasks/result held, polled meanwhile), one whose
// outcome is being fetched. Every waiter ends with an error that is not its own
// deadline, every Events range ends, and no goroutine is left once the session is done.
func TestServerExitsMidTask(t *testing.T) {
	for i := range 20 {
		base := runtime.NumGoroutine()
		serverExitsMidTask(t, i)
		deadline := time.Now().Add(5 * time.Second)
		for runtime.NumGoroutine() > base && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > base {
			buf := make([]byte, 1<<20)
			t.Fatalf("run %d: %d goroutines left over %d:\n%s", i, n-base, base, buf[:runtime.Stack(buf, true)])
		}
	}
}

func serverExitsMidTask(t *testing.T, run int) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var mu sync.Mutex
	n := 0
	kinds := map[string]string{} // task id → what it does
	hold := func(ctx context.Context) (any, error) { <-ctx.Done(); return nil, ctx.Err() }
	var s *client.Session
	var srv *jsonrpc.Conn
	started := make(chan *client.Task, 8)
	fetching := make(chan struct{}, 8)
	opts := &client.Options{PollFloor: time.Millisecond}
	s, srv = rawServerConn(t, opts, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		var p struct {
			Name   string `json:"name"`
			TaskID string `json:"taskId"`
		}
		_ = json.Unmarshal(req.Params, &p)
		mu.Lock()
		kind := kinds[p.TaskID]
		mu.Unlock()
		switch req.Method {
		case mcp.MethodToolsCall:
			if p.Name == "unanswered" {
				return hold(ctx)
			}
			mu.Lock()
			n++
			id := fmt.Sprintf("%s-%d", p.Name, n)
			kinds[id] = p.Name
			mu.Unlock()
			st := mcp.TaskStatusWorking
			if p.Name == "input" {
				st = mcp.TaskStatusInputRequired
			}
			return &mcp.CreateTaskResult{Task: scriptedTask(id, st)}, nil
		case mcp.MethodTasksGet:
			switch kind {
			case "input":
				return &mcp.GetTaskResult{Task: scriptedTask(p.TaskID, mcp.TaskStatusInputRequired)}, nil
			case "fetching":
				return &mcp.GetTaskResult{Task: scriptedTask(p.TaskID, mcp.TaskStatusCompleted)}, nil
			}
			return &mcp.GetTaskResult{Task: scriptedTask(p.TaskID, mcp.TaskStatusWorking)}, nil
		case mcp.MethodTasksResult:
			if kind == "parked" {
				return nil, jsonrpc.ErrMethodNotFound
			}
			if kind == "fetching" {
				fetching <- struct{}{}
			}
			return hold(ctx)
		}
		return nil, jsonrpc.ErrMethodNotFound
	})
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for _, name := range []string{"unanswered", "held", "input", "fetching"} {
		wg.Go(func() {
			task, err := s.StartToolTask(ctx, &mcp.CallToolParams{Name: name}, &client.CallOptions{SendAnyway: true})
			if err != nil {
				if ctx.Err() != nil {
					errs <- fmt.Errorf("%s: the call ended with the test's deadline", name)
				}
				return
			}
			started <- task
			for range task.Events(ctx) {
			}
			if ctx.Err() != nil {
				errs <- fmt.Errorf("%s: Events ended with the test's deadline", name)
			}
			if _, err := task.Wait(ctx); err == nil || ctx.Err() != nil {
				errs <- fmt.Errorf("%s: Wait: %v", name, err)
			}
		})
	}
	for range 3 {
		<-started
	}
	<-fetching
	time.Sleep(time.Duration(run%5) * time.Millisecond)
	srv.Close() // the server exits
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("run %d: %v", run, err)
	}
	select {
	case <-s.Done():
	case <-ctx.Done():
		t.Fatalf("run %d: the session did not end", run)
	}
	s.Close()
}
