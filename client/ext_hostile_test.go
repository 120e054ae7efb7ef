package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// Servers of 2026-07-28 (the Tasks extension) that misbehave, or merely have a clock in
// whole seconds, against the requestor side.

// discoverModern answers server/discover as a server of 2026-07-28 with the Tasks
// extension.
const discoverModern = `{"resultType":"complete","supportedVersions":["2026-07-28"],
	"capabilities":{"tools":{},"extensions":{"io.modelcontextprotocol/tasks":{}}},
	"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"raw2026","version":"1"}}}`

// TestExtPollAnswerAfterNewerNotification is TestPollAnswerAfterNewerNotification in
// 2026-07-28: the server answers a tasks/get (working), then the task asks for input and
// the server says so (notifications/tasks on the task's stream, input_required with its
// inputRequests), in that order on the wire, in the same second. The client must ask
// for the input, as the server last said, rather than apply the poll's answer after the
// notification that followed it and wait, working, for a poll an hour away.
func TestExtPollAnswerAfterNewerNotification(t *testing.T) {
	untilFailed(t, 100, extPollAnswerAfterNotification)
}

func extPollAnswerAfterNotification(t *testing.T, run int) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const at = "2026-07-28T10:00:00Z" // whole seconds: the same for all
	state := func(rt string, status mcp.TaskStatus, extra string) json.RawMessage {
		s := `{`
		if rt != "" {
			s += `"resultType":"` + rt + `",`
		}
		s += `"taskId":"A","status":"` + string(status) + `","createdAt":"` + at + `","lastUpdatedAt":"` + at + `","ttlMs":86400000,"pollIntervalMs":1`
		if extra != "" {
			s += "," + extra
		}
		return json.RawMessage(s + "}")
	}
	var joined *joinedWrites
	var gets atomic.Int32
	asked := make(chan struct{}, 4)
	opts := &client.Options{
		PollFloor:            time.Millisecond,
		NotifiedPollInterval: time.Hour,
		OnRequest: func(_ context.Context, r *client.Request) {
			asked <- struct{}{}
			_ = r.Accept(map[string]any{"name": "Luca"})
		},
	}
	s, conn := osPipeServer(t, opts, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		switch req.Method {
		case mcp.MethodServerDiscover:
			return json.RawMessage(discoverModern), nil
		case mcp.MethodToolsCall:
			return state("task", mcp.TaskStatusWorking, ""), nil
		case mcp.MethodSubscriptionsListen:
			<-ctx.Done() // held open: notifications come on it
			return nil, ctx.Err()
		case mcp.MethodTasksGet:
			if gets.Add(1) == 1 {
				// Right after this answer, in the same write: the task asks for input.
				joined.thenWrite(req.ID, &jsonrpc.Request{Method: mcp.NotificationTasks, Params: state("", mcp.TaskStatusInputRequired, askName)})
				return state("complete", mcp.TaskStatusWorking, ""), nil
			}
			return state("complete", mcp.TaskStatusInputRequired, askName), nil
		case mcp.MethodTasksUpdate:
			return json.RawMessage(ackComplete), nil
		}
		return nil, jsonrpc.ErrMethodNotFound
	})
	joined = conn
	task, err := s.StartToolTask(ctx, &mcp.CallToolParams{Name: "confirm"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-asked:
	case <-time.After(10 * time.Second): // the next poll is an hour away (NotifiedPollInterval)
		t.Errorf("run %d: the input was not asked for 10s after the server said input_required (state %s, %d polls)", run, task.State().Status, gets.Load())
	}
}

// TestExtTaskTerminalStatusesDisagree: a server whose word on a task's end changes (a
// notification or the create result says completed, with no result, and tasks/get then
// says failed with an error, or the other way round) contradicts itself, as a terminal
// status never changes. The task must still end, keeping the status it was first told,
// rather than poll for ever for a detailed state that matches it.
func TestExtTaskTerminalStatusesDisagree(t *testing.T) {
	for _, c := range []struct {
		name         string
		first, later mcp.TaskStatus
		detail       string
		created      bool // the create result says first, not a notification
	}{
		{"completed then failed", mcp.TaskStatusCompleted, mcp.TaskStatusFailed, `"error":{"code":-32000,"message":"quota"}`, false},
		{"failed then completed", mcp.TaskStatusFailed, mcp.TaskStatusCompleted, resultDone, false},
		{"created completed then failed", mcp.TaskStatusCompleted, mcp.TaskStatusFailed, `"error":{"code":-32000,"message":"quota"}`, true},
		{"created completed then working", mcp.TaskStatusCompleted, mcp.TaskStatusWorking, "", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := bounded(t)
				f := newFake(t)
				listens := listenServer(f)
				created := mcp.TaskStatusWorking
				if c.created {
					created = c.first
				}
				f.Answer(mcp.MethodToolsCall, string(taskJSON("task", "t1", created, 1000, "")))
				f.On(mcp.MethodTasksGet, func(context.Context, *jsonrpc.Request) (any, error) {
					return taskJSON("complete", "t1", c.later, 1000, c.detail), nil
				})
				s := f.MustConnect(ctx, nil)
				task, err := s.StartToolTask(ctx, &mcp.CallToolParams{Name: "job"}, nil)
				if err != nil {
					t.Fatal(err)
				}
				if !c.created {
					notifyOnListen(ctx, t, f, listens, taskJSON("", "t1", c.first, 1000, ""))
				}
				_, err = task.Wait(ctx)
				if ctx.Err() != nil {
					t.Fatalf("the task never ended (%d polls, state %s)", task.Polls(), task.State().Status)
				}
				if err == nil {
					t.Errorf("a task the server said %s, then %s, ended with a result", c.first, c.later)
				}
				if st := task.State().Status; st != c.first {
					t.Errorf("state %s, want %s, the terminal status first told", st, c.first)
				}
			})
		})
	}
}

// TestExtTaskOutcomeFetchBounded: a notification says the task completed, without its
// result, and the server never answers the tasks/get that fetches it. That request is
// bounded by Options.RequestTimeout like every other tasks/get: once it is given up, the
// task is polled again and ends with the result, rather than wait for ever.
func TestExtTaskOutcomeFetchBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := bounded(t)
		f := newFake(t)
		listens := listenServer(f)
		f.Answer(mcp.MethodToolsCall, string(taskJSON("task", "t1", mcp.TaskStatusWorking, 1000, "")))
		var gets atomic.Int32
		f.On(mcp.MethodTasksGet, func(ctx context.Context, _ *jsonrpc.Request) (any, error) {
			if gets.Add(1) == 1 {
				<-ctx.Done() // never answered
				return nil, ctx.Err()
			}
			return taskJSON("complete", "t1", mcp.TaskStatusCompleted, 1000, resultDone), nil
		})
		s := f.MustConnect(ctx, &client.Options{RequestTimeout: 5 * time.Second})
		task, err := s.StartToolTask(ctx, &mcp.CallToolParams{Name: "job"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		notifyOnListen(ctx, t, f, listens, taskJSON("", "t1", mcp.TaskStatusCompleted, 1000, ""))
		res, err := task.Wait(ctx)
		if ctx.Err() != nil {
			t.Fatalf("the task never ended (%d tasks/get sent)", gets.Load())
		}
		if err != nil || res.Content[0].Text != "done" {
			t.Errorf("outcome %+v, %v; want the result of the tasks/get after the one given up", res, err)
		}
	})
}

// TestExtTaskIDReusedKeptBounded: a server that gives several running tasks the same
// task id (a server bug, or a hostile one) must not make the session keep the tasks
// beyond Options.KeptTasks once they have ended: the one whose registration another
// took over is still an ended task of the session, forgotten in its turn.
func TestExtTaskIDReusedKeptBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := bounded(t)
		f := newFake(t)
		f.Answer(mcp.MethodToolsCall, string(taskJSON("task", "same", mcp.TaskStatusWorking, 1000, "")))
		f.On(mcp.MethodTasksGet, func(context.Context, *jsonrpc.Request) (any, error) {
			return taskJSON("complete", "same", mcp.TaskStatusCompleted, 1000, resultDone), nil
		})
		const keep = 2
		s := f.MustConnect(ctx, &client.Options{KeptTasks: keep})
		var started []*client.Task
		for range 10 {
			task, err := s.StartToolTask(ctx, &mcp.CallToolParams{Name: "job"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			started = append(started, task)
		}
		for _, task := range started {
			if _, err := task.Wait(ctx); err != nil {
				t.Fatal(err)
			}
		}
		synctest.Wait()
		if n := len(s.Tasks()); n > keep {
			t.Errorf("the session keeps %d ended tasks, want at most KeptTasks (%d)", n, keep)
		}
	})
}

// TestExtTaskOutcomeRefused: a notification says the task ended, without its outcome,
// and the server answers every tasks/get with a JSON-RPC error (it does not serve
// tasks/get, or fails it). Nothing more can come of the task: it ends with that error,
// as a task of 2025-11-25 ends with the error of its tasks/result, rather than be
// polled for ever.
func TestExtTaskOutcomeRefused(t *testing.T) {
	for _, code := range []int64{jsonrpc.CodeMethodNotFound, jsonrpc.CodeInternalError} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := bounded(t)
				f := newFake(t)
				listens := listenServer(f)
				f.Answer(mcp.MethodToolsCall, string(taskJSON("task", "t1", mcp.TaskStatusWorking, 1000, "")))
				f.On(mcp.MethodTasksGet, func(context.Context, *jsonrpc.Request) (any, error) {
					return nil, jsonrpc.NewError(code, "no")
				})
				s := f.MustConnect(ctx, nil)
				task, err := s.StartToolTask(ctx, &mcp.CallToolParams{Name: "job"}, nil)
				if err != nil {
					t.Fatal(err)
				}
				notifyOnListen(ctx, t, f, listens, taskJSON("", "t1", mcp.TaskStatusCompleted, 1000, ""))
				_, err = task.Wait(ctx)
				if ctx.Err() != nil {
					t.Fatalf("the task never ended (%d tasks/get sent)", len(f.Requests(mcp.MethodTasksGet)))
				}
				var rpc *jsonrpc.Error
				if !errors.As(err, &rpc) || rpc.Code != code {
					t.Errorf("outcome %v, want the error of tasks/get (%d)", err, code)
				}
			})
		})
	}
}

// notifyOnListen sends task's state, as notifications/tasks, on the next listen stream
// the client opens.
func notifyOnListen(ctx context.Context, t *testing.T, f *fakeServer, listens <-chan jsonrpc.ID, task json.RawMessage) {
	t.Helper()
	select {
	case listen := <-listens:
		notifyTask(t, f, listen, task)
	case <-ctx.Done():
		t.Fatal("no subscriptions/listen")
	}
}
