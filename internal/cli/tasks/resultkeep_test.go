package tasks_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/internal/clitest"
	"github.com/mcpi-dev/mcpi/internal/cli/state"
	"github.com/mcpi-dev/mcpi/internal/cli/tasks/result"
	"github.com/mcpi-dev/mcpi/internal/cli/tasks/watch"
	"github.com/mcpi-dev/mcpi/internal/cli/taskview"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/tasks"
)

// adopter is a 2025-11-25 server that lets a new session take over a task whose session
// has ended, and binds the task to the session that asked for it: once that session
// ends, the task is dropped. Its "wait" tool ends, with "done", once release is called.
type adopter struct {
	*clitest.Demo
	release func()

	mu sync.Mutex
	// bound is set once the test binds the tasks asked for; took are the sessions that
	// asked for a task (tasks/get, tasks/result) since, and onResult is called once as
	// the next tasks/result comes in.
	bound    bool
	took     []asked
	onResult func()
}

type asked struct {
	s  *server.Session
	id string
}

func adoptingBoundServer(t *testing.T) *adopter {
	released := make(chan struct{})
	var once sync.Once
	a := &adopter{release: func() { once.Do(func() { close(released) }) }}
	srv := server.New(mcp.Implementation{Name: "adopts", Version: "1"}, &server.Options{
		AdoptOrphanTasks: true,
		Tasks:            &tasks.Options{PollInterval: time.Millisecond},
		Tap: func(s *server.Session, dir jsonrpc.Direction, m jsonrpc.Message) {
			r, ok := m.(*jsonrpc.Request)
			if dir != jsonrpc.Inbound || !ok || (r.Method != mcp.MethodTasksResult && r.Method != mcp.MethodTasksGet) {
				return
			}
			var p struct{ TaskID string }
			if json.Unmarshal(r.Params, &p) != nil || p.TaskID == "" {
				return
			}
			a.mu.Lock()
			if !a.bound {
				a.mu.Unlock()
				return
			}
			a.took = append(a.took, asked{s, p.TaskID})
			f := a.onResult
			if r.Method == mcp.MethodTasksResult {
				a.onResult = nil
			} else {
				f = nil
			}
			a.mu.Unlock()
			if f != nil {
				f()
			}
		},
	})
	srv.AddTool(&mcp.Tool{Name: "wait", InputSchema: json.RawMessage(`{"type":"object"}`), Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}},
		doneWhenReleased(released))
	a.Demo = clitest.Serve(t, srv)
	return a
}

// bind binds the tasks asked for from now on to the session that asks, and calls
// onResult (when not nil) once the next tasks/result has come in.
func (a *adopter) bind(onResult func()) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.bound, a.onResult = true, onResult
}

// settle waits until the server has seen the sessions end that commands did not leave
// open, and drops the tasks bound to them.
func (a *adopter) settle(t *testing.T) {
	a.WaitIdle(t)
	a.mu.Lock()
	defer a.mu.Unlock()
	live := a.took[:0]
	for _, k := range a.took {
		select {
		case <-k.s.Done():
			if owner, ok := a.Server.Tasks().Owner(k.id); ok {
				a.Server.Tasks().DropOwner(owner)
			}
		default:
			live = append(live, k)
		}
	}
	a.took = live
}

// orphanWait starts the "wait" tool as a task on d in a session that then ends,
// unrecorded (as another client's would be), and returns its id once d has seen the
// session end.
func orphanWait(t *testing.T, d *clitest.Demo) string {
	t.Helper()
	return orphanCall(t, d, "wait", `{}`)
}

// "tasks result ID" interrupted while it waits for a task it reached in a session of its
// own leaves the task as "tasks watch ID" does: recorded, with that session kept open on
// the server, which may have bound the task to it, so that the command the sentence and
// the "interrupted" object name takes the session up and gets the result. It recorded
// nothing and ended the session, with which such a server dropped the task, and named a
// command that then found no task. A task recorded without a session (its own had
// ended) gets the one that reached it.
func TestResultInterruptedRecordsTaskWithSession(t *testing.T) {
	clitest.StateDir(t)
	d := adoptingBoundServer(t)
	var ids []string
	for _, c := range []struct{ jsonOut, recorded bool }{{false, false}, {true, false}, {false, true}} {
		jsonOut := c.jsonOut
		id := orphanWait(t, d.Demo)
		ids = append(ids, id)
		ctx, stop := context.WithCancel(clitest.Context(t))
		d.bind(stop) // Ctrl-C once the server has the command's tasks/result
		env := clitest.New(t, &connect.Selection{URL: d.URL})
		if c.recorded {
			if _, err := state.Remember(nil, env.Selection, "wait", mcp.LatestProtocolVersion, mcp.Task{TaskID: id}, nil); err != nil {
				t.Fatal(err)
			}
			env = fresh(t)
		}
		err := result.Run(ctx, &result.Options{Options: sharedOpts(env, jsonOut), ID: id})
		stop()
		fetch := "mcpi tasks result " + id
		sentence := `interrupted; the task "` + id + `" is still running on the server: get its result with "` + fetch + `"`
		if got, want := describe(err), "mcpi: "+sentence+" (exit 2)"; got != want {
			t.Errorf("%+v:\ngot  %q\nwant %q", c, got, want)
		}
		if jsonOut {
			var got struct {
				Interrupted *taskview.Interrupted
				Error       *taskview.Error
			}
			if err := json.Unmarshal(env.Out.Bytes(), &got); err != nil || got.Interrupted == nil || *got.Interrupted != (taskview.Interrupted{State: taskview.LeftRunning, Fetch: fetch}) ||
				got.Error == nil || got.Error.Message != sentence {
				t.Errorf("stdout %s\nwant an \"interrupted\" object of state %q with %q and %q", env.Out, taskview.LeftRunning, fetch, sentence)
			}
		} else if env.Out.Len() != 0 {
			t.Errorf("stdout %q, want nothing", env.Out)
		}
		store, err := state.Default()
		if err != nil {
			t.Fatal(err)
		}
		if e, ok, err := store.Find(id); err != nil || !ok || e.Server.URL != d.URL || e.Protocol != mcp.LatestProtocolVersion || e.Session == nil {
			t.Errorf("%+v: record of the task left running: %+v, %v, %v (want one with the session kept)", c, e, ok, err)
		}
		d.settle(t)
	}
	if n := len(d.Server.Sessions()); n != len(ids) {
		t.Errorf("the server has %d sessions, want the %d the commands left open", n, len(ids))
	}
	d.release()
	for _, id := range ids {
		env := fresh(t)
		if err := result.Run(clitest.Context(t), &result.Options{Options: sharedOpts(env, false), ID: id}); err != nil || env.Out.String() != "done\n" {
			t.Errorf("mcpi tasks result %s: %s, %q", id, describe(err), env.Out)
		}
	}
}

// "tasks watch ID" and "tasks result ID" of a task recorded with its session, which the
// server no longer has (its ttl ran out there) though it still has the session, forget
// the task, and end the session they took up on the server when no other record names
// it: no command would take it up again, and the server held it until its idle
// timeout. A session another record names stays open for that task.
func TestGoneTaskEndsItsUnnamedSession(t *testing.T) {
	for _, cmd := range []string{"watch", "result"} {
		for _, named := range []bool{false, true} {
			clitest.StateDir(t)
			d := boundServer(t)
			id := detachBound(t, d, 1)[0]
			store, err := state.Default()
			if err != nil {
				t.Fatal(err)
			}
			if named {
				e, _, _ := store.Find(id)
				e.TaskID = "another task of the session"
				if err := store.Add(e); err != nil {
					t.Fatal(err)
				}
			}
			owner, _ := d.Server.Tasks().Owner(id)
			d.Server.Tasks().DropOwner(owner) // its ttl ran out on the server
			env := fresh(t)
			if cmd == "watch" {
				err = watch.Run(clitest.Context(t), &watch.Options{Options: sharedOpts(env, false), ID: id})
			} else {
				err = result.Run(clitest.Context(t), &result.Options{Options: sharedOpts(env, false), ID: id})
			}
			want := `mcpi: the server no longer knows the task "` + id + `" (it expired, or the server restarted); mcpi has removed it from its local list of tasks (exit 1)`
			if got := describe(err); got != want {
				t.Errorf("tasks %s, named %v:\ngot  %q\nwant %q", cmd, named, got, want)
			}
			if _, ok, err := store.Find(id); err != nil || ok {
				t.Errorf("tasks %s, named %v: the task is still recorded (%v)", cmd, named, err)
			}
			d.WaitIdle(t)
			want1 := 0
			if named {
				want1 = 1
			}
			if n := len(d.Server.Sessions()); n != want1 {
				t.Errorf("tasks %s, named %v: the server has %d sessions, want %d", cmd, named, n, want1)
			}
		}
	}
}

// "tasks watch" without an id ends on the server a session it took up whose recorded
// tasks the server no longer has, once it has forgotten them; the sessions of the
// tasks it followed stay open as they were. It left the session open, named by no
// record, until the server's idle timeout.
func TestWatchAllEndsSessionOfGoneTasks(t *testing.T) {
	clitest.StateDir(t)
	d, release := releasedBoundServer(t)
	ids := detachBound(t, d, 2)
	owner, _ := d.Server.Tasks().Owner(ids[0])
	d.Server.Tasks().DropOwner(owner) // its ttl ran out on the server
	release()
	env := clitest.New(t, &connect.Selection{URL: d.URL})
	if err := watch.Run(clitest.Context(t), &watch.Options{Options: sharedOpts(env, false)}); err != nil {
		t.Fatal(describe(err))
	}
	want := "1 task mcpi recorded for this server in sessions of their own the server no longer knows (it expired, or the server ended its session): forgotten.\n"
	if got := env.ErrOut.String(); got != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", got, want)
	}
	d.WaitIdle(t)
	if n := len(d.Server.Sessions()); n != 1 {
		t.Errorf("the server has %d sessions, want the one of the task followed", n)
	}
}

// The result shown, "tasks result ID" leaves the task recorded, with its session open
// on the server, as they were: a server that binds the task to it (the TypeScript SDK's)
// gives the result again through it until the task's ttl, which a later "tasks result
// ID" (or "tasks get ID") asks for. Ending the session would lose that.
func TestResultShownKeepsRecordAndSession(t *testing.T) {
	clitest.StateDir(t)
	d, release := releasedBoundServer(t)
	id := detachBound(t, d, 1)[0]
	release()
	for range 2 {
		env := fresh(t)
		if err := result.Run(clitest.Context(t), &result.Options{Options: sharedOpts(env, false), ID: id}); err != nil || env.Out.String() != "done\n" {
			t.Errorf("mcpi tasks result %s: %s, %q", id, describe(err), env.Out)
		}
		d.WaitIdle(t)
		if n := len(d.Server.Sessions()); n != 1 {
			t.Errorf("the server has %d sessions, want the task's", n)
		}
	}
}
