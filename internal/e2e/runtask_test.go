package e2e

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// TestRunToolTask: RunToolTask calls a tool as a task and returns with its outcome: the
// result of a task that completed, the isError result of one that failed, the error of
// a call the server refused, the plain result of a server that ignored the task, and,
// when ctx ends first, the task, which the session goes on following.
func TestRunToolTask(t *testing.T) {
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		s := h.serve(t, taskServer()).open(t, ctx, taskClient(nil))

		task, res, err := s.RunToolTask(ctx, toolParams(t, demo.ToolInstantTask, nil), nil)
		if err != nil || task == nil || !taskIDPattern.MatchString(task.ID()) || onlyText(t, res) != demo.InstantTaskText {
			t.Fatalf("instant_task: %s, result %+v, error %v", taskID(task), res, err)
		}
		if st := task.State(); st.Status != mcp.TaskStatusCompleted {
			t.Errorf("instant_task ended %s, want completed", st.Status)
		}
		if got, _ := res.Meta.RelatedTask(); got != task.ID() {
			t.Errorf("the result names task %q, want %q", got, task.ID())
		}

		task, res, err = s.RunToolTask(ctx, toolParams(t, demo.ToolFailTask, map[string]any{"mode": "isError"}), nil)
		if err != nil || task == nil || !res.IsError || onlyText(t, res) != demo.FailTaskText || task.State().Status != mcp.TaskStatusFailed {
			t.Errorf("fail_task isError: %s, result %+v, error %v", taskID(task), res, err)
		}

		// add says taskSupport forbidden: sent anyway, the server refuses it with -32601.
		task, res, err = s.RunToolTask(ctx, toolParams(t, demo.ToolAdd, map[string]any{"a": 1, "b": 2}), &client.CallOptions{SendAnyway: true})
		if task != nil || res != nil || !errors.Is(err, jsonrpc.ErrMethodNotFound) {
			t.Errorf("add as a task: %s, result %+v, error %v; want -32601", taskID(task), res, err)
		}

		// ctx ends while the task works: the task is returned, still followed.
		sub := s.Subscribe()
		defer sub.Close()
		wctx, cancel := context.WithCancel(ctx)
		var wg sync.WaitGroup
		wg.Go(func() {
			for e := range sub.All(ctx) {
				if te, ok := e.(*client.TaskEvent); ok && te.Kind == client.TaskCreated {
					cancel()
					return
				}
			}
		})
		task, res, err = s.RunToolTask(wctx, toolParams(t, demo.ToolSleepTask, map[string]any{"seconds": 600}), nil)
		wg.Wait()
		if !errors.Is(err, context.Canceled) || res != nil || task == nil || task.ID() == "" {
			t.Fatalf("ctx ended: %s, result %+v, error %v; want the task and context.Canceled", taskID(task), res, err)
		}
		if !taskFollowed(s, task) {
			t.Errorf("the session no longer follows task %s", task.ID())
		}
		if _, err := task.Cancel(ctx); err != nil {
			t.Fatal(err)
		}
		var end *client.TaskEndError
		if _, err := task.Wait(ctx); !errors.As(err, &end) || !errors.Is(err, client.ErrTaskCancelled) {
			t.Errorf("after the cancel: %v, want the task cancelled", err)
		}
	})
}

// TestRunToolTaskInput: a task that asks for input while RunToolTask waits gets it from
// the session's request handler (OnRequest) and completes; the requests name the task.
func TestRunToolTaskInput(t *testing.T) {
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		var mu sync.Mutex
		var asked []string
		related := func(r *client.Request) string { return r.Method + " " + r.RelatedTask }
		s := h.serve(t, serverConfig{pollInterval: time.Hour}).open(t, ctx, answeringClient(mcp.LatestProtocolVersion, related, &asked, &mu))
		task, res, err := s.RunToolTask(ctx, toolParams(t, demo.ToolAskTask, nil), nil)
		if err != nil || task == nil || res == nil || res.IsError || onlyText(t, res) != "name: Ada; model: Hello Ada!" {
			t.Fatalf("ask_task: %s, result %+v, error %v", taskID(task), res, err)
		}
		mu.Lock()
		defer mu.Unlock()
		want := []string{mcp.MethodElicitationCreate + " " + task.ID(), mcp.MethodSamplingCreateMessage + " " + task.ID()}
		if !slices.Equal(asked, want) {
			t.Errorf("requests %v, want %v", asked, want)
		}
	})
}

// TestRunToolTaskPlainAnswer: a server without tasks runs the call plainly; that result
// is the outcome, with no task id.
func TestRunToolTaskPlainAnswer(t *testing.T) {
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		s := h.serve(t, serverConfig{plain: true}).open(t, ctx, taskClient(nil))
		task, res, err := s.RunToolTask(ctx, toolParams(t, plainTool, nil), &client.CallOptions{SendAnyway: true})
		if err != nil || task == nil || task.ID() != "" || onlyText(t, res) != plainToolText {
			t.Fatalf("%s, result %+v, error %v; want the plain result", taskID(task), res, err)
		}
	})
}

// TestRunToolTaskModern: in 2026-07-28 the server decides. A quick call is answered
// inline, a slow one becomes a task of the extension; RunToolTask returns both outcomes.
func TestRunToolTaskModern(t *testing.T) {
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		cfg := taskServer()
		cfg.modern = true
		var mu sync.Mutex
		var asked []string
		s := h.open(t, ctx, cfg, modernClient(&asked, &mu))
		if got := s.ProtocolVersion(); got != mcp.ProtocolVersion20260728 {
			t.Fatalf("connected at %s, want 2026-07-28", got)
		}
		task, res, err := s.RunToolTask(ctx, toolParams(t, demo.ToolInstantTask, nil), nil)
		if err != nil || task == nil || task.ID() != "" || onlyText(t, res) != demo.InstantTaskText {
			t.Errorf("instant_task: %s, result %+v, error %v; want the result inline", taskID(task), res, err)
		}
		// slow_task says taskSupport required: always a task.
		task, res, err = s.RunToolTask(ctx, toolParams(t, demo.ToolSlowTask, map[string]any{"seconds": 1, "steps": 2}), nil)
		if err != nil || task == nil || task.ID() == "" || task.Dialect() != client.DialectExtension || onlyText(t, res) != "done: worked 1s in 2 steps" {
			t.Errorf("slow_task: %s, result %+v, error %v; want a task of the extension and its result", taskID(task), res, err)
		}
	})
}

// taskID is task's id, for a message (task may be nil).
func taskID(task *client.Task) string {
	if task == nil {
		return "no task"
	}
	return "task " + task.ID()
}

// taskFollowed reports whether s follows task.
func taskFollowed(s *client.Session, task *client.Task) bool {
	for _, x := range s.Tasks() {
		if x == task {
			return true
		}
	}
	return false
}
