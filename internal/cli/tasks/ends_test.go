package tasks_test

import (
	"context"
	"encoding/json"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/internal/clitest"
	"github.com/mcpi-dev/mcpi/internal/cli/state"
	"github.com/mcpi-dev/mcpi/internal/cli/tasks/result"
	"github.com/mcpi-dev/mcpi/internal/cli/tasks/watch"
	"github.com/mcpi-dev/mcpi/internal/cli/taskview"
	"github.com/mcpi-dev/mcpi/internal/cli/tools/call"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// "tasks result ID" interrupted on the embedded demo server, which stops as mcpi exits
// and the task with it, says so, as "tasks watch" and "tools call --task" do: with
// --json, an "interrupted" object of state "stopped" with no command to fetch a result
// that will not be there, and the sentence that the task ends with the server. It said
// "running", and named a fetch command.
func TestResultInterruptedOnEmbeddedServer(t *testing.T) {
	for _, era := range []string{mcp.LatestProtocolVersion, mcp.ProtocolVersion20260728} {
		for _, jsonOut := range []bool{false, true} {
			clitest.StateDir(t)
			env := clitest.New(t, &connect.Selection{Protocol: era})
			ctx, stop := context.WithCancel(clitest.Context(t))
			opts := &result.Options{Options: sharedOpts(env, jsonOut), ID: "set once the task is created"}
			opts.Connect = func(c context.Context, requests cmdutil.RequestPolicy) (*cmdutil.Session, error) {
				sess, err := env.Factory.Connect(c, requests)
				if err != nil {
					return nil, err
				}
				task, err := sess.StartToolTask(c, &mcp.CallToolParams{Name: "slow_task", Arguments: json.RawMessage(`{"seconds":600}`)}, nil)
				if err != nil {
					t.Fatal(err)
				}
				opts.ID = task.ID()
				if era != mcp.LatestProtocolVersion {
					// The task's follower polls at the task's pollInterval: Ctrl-C as
					// the command starts to wait.
					stop()
					return sess, nil
				}
				sub := sess.Subscribe()
				go func() {
					defer sub.Close()
					// Ctrl-C once the command asks for the task's result.
					for e := range sub.All(context.Background()) {
						if m, ok := e.(*client.MessageEvent); ok && m.Dir == jsonrpc.Outbound {
							if r, ok := m.Message.(*jsonrpc.Request); ok && r.Method == mcp.MethodTasksResult {
								stop()
								return
							}
						}
					}
				}()
				return sess, nil
			}
			err := result.Run(ctx, opts)
			stop()
			sentence := `interrupted; the task "` + opts.ID + `" ends with the embedded demo server`
			if got, want := describe(err), "mcpi: "+sentence+" (exit 2)"; got != want {
				t.Errorf("%s, json %v:\ngot  %q\nwant %q", era, jsonOut, got, want)
			}
			if !jsonOut {
				if env.Out.Len() != 0 {
					t.Errorf("%s: stdout %q, want nothing", era, env.Out)
				}
				continue
			}
			var got struct {
				Interrupted *taskview.Interrupted
				Error       *taskview.Error
			}
			if err := json.Unmarshal(env.Out.Bytes(), &got); err != nil || got.Interrupted == nil || *got.Interrupted != (taskview.Interrupted{State: taskview.LeftStopped}) ||
				got.Error == nil || got.Error.Message != sentence || got.Error.Code != nil {
				t.Errorf("%s: stdout %s\nwant an \"interrupted\" object of state %q with %q", era, env.Out, taskview.LeftStopped, sentence)
			}
		}
	}
}

// twoTasksInOneSession starts the tasks of tools "wait" and "ask" of d (an
// askOrWaitServer) in one session, which it leaves open on the server, and records both
// with it, as "tools call --task" records a task it leaves. It returns their ids.
func twoTasksInOneSession(t *testing.T, d *clitest.Demo) (waiting, asking string) {
	t.Helper()
	sel := &connect.Selection{URL: d.URL}
	env := clitest.New(t, sel)
	sess, err := env.Factory.Connect(clitest.Context(t), cmdutil.RequestPolicy{Leave: true})
	if err != nil {
		t.Fatal(err)
	}
	store, err := state.Default()
	if err != nil {
		t.Fatal(err)
	}
	kept := sess.Keep()
	ids := map[string]string{}
	for _, tool := range []string{"wait", "ask"} {
		task, err := sess.StartToolTask(clitest.Context(t), &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(`{}`)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := state.Remember(store, sel, tool, sess.ProtocolVersion(), task.State(), kept); err != nil {
			t.Fatal(err)
		}
		ids[tool] = task.ID()
	}
	sess.Close()
	return ids["wait"], ids["ask"]
}

// "tasks watch ID" (and "tasks result ID") of a task recorded with a session it shares
// with another task, stopped on a question it cannot ask that names that other task
// (params._meta's related-task), says that the other task waits for the input and the
// one watched runs on: a "waiting" event for the one, an "interrupted" event (state
// "running") for the other, and the sentence names both, and the tool of the task that
// asks. They said the watched task waited, with a "waiting" event for it, and keyed the
// answer by its tool.
func TestWatchOneLeftInputNamesAnotherTask(t *testing.T) {
	for _, cmd := range []string{"watch", "result"} {
		clitest.StateDir(t)
		d, ask := askOrWaitServerPolled(t, time.Millisecond)
		watched, asking := twoTasksInOneSession(t, d)
		env := fresh(t)
		o := sharedOpts(env, cmd == "watch")
		var err error
		if cmd == "watch" {
			env.IO.Out = writeThen{env.Out, ask} // the question comes once the watch shows its task
			err = watch.Run(clitest.Context(t), &watch.Options{Options: o, ID: watched})
		} else {
			o.Connect = func(c context.Context, requests cmdutil.RequestPolicy) (*cmdutil.Session, error) {
				sess, err := env.Factory.Connect(c, requests)
				ask() // the question comes once the session is taken up
				return sess, err
			}
			err = result.Run(clitest.Context(t), &result.Options{Options: o, ID: watched})
		}
		waits := askNeed + `; the task "` + asking + `" waits for it on the server, in the session mcpi left open there: "mcpi tasks result ` + asking + `" gives it`
		runs := `the task "` + watched + `" is still running on the server: get its result with "mcpi tasks result ` + watched + `"`
		if got, want := describe(err), "mcpi: "+waits+"; "+runs+" (exit 2)"; got != want {
			t.Errorf("tasks %s:\ngot  %q\nwant %q", cmd, got, want)
		}
		d.WaitIdle(t) // the command's own session ends on a goroutine of the server's
		if n := len(d.Server.Sessions()); n != 1 {
			t.Errorf("tasks %s: the server has %d sessions, want the tasks'", cmd, n)
		}
		if cmd != "watch" {
			continue
		}
		evs := jsonEvents(t, env.Out.String())
		if got, want := lastEvents(evs), map[string]string{asking: "waiting", watched: "interrupted"}; !maps.Equal(got, want) {
			t.Errorf("last events %v, want %v\n%s", got, want, env.Out)
		}
		for _, ev := range evs {
			switch {
			case ev.Event == "waiting" && (ev.Waiting == nil || ev.Waiting.Fetch != "mcpi tasks result "+asking || ev.Error == nil || ev.Error.Message != waits+"; "+runs):
				t.Errorf("waiting: %+v %+v", ev.Waiting, ev.Error)
			case ev.Event == "interrupted" && (ev.Interrupted == nil || *ev.Interrupted != (taskview.Interrupted{State: taskview.LeftRunning, Fetch: "mcpi tasks result " + watched}) ||
				ev.Error == nil || ev.Error.Message != "interrupted; "+runs):
				t.Errorf("interrupted: %+v %+v", ev.Interrupted, ev.Error)
			}
		}
	}
}

// A question mcpi cannot ask (no terminal, no answers file) of a task of the embedded
// demo server, which stops as mcpi exits and the task with it, is answered only by the
// call made again: "tasks watch" (with an id and without) and "tasks result" say so, and
// name that call, where they said to pass --answers to a later command, as if the task
// would wait for it; "tools call --task", whose call it is, says to pass --answers to it.
func TestLeftInputOnEmbeddedServerMakesTheCallAgain(t *testing.T) {
	const example = `{"elicitation": {"ask_task": {"name": "..."}}}`
	for _, era := range []string{mcp.LatestProtocolVersion, mcp.ProtocolVersion20260728} {
		clitest.StateDir(t)
		env := clitest.New(t, &connect.Selection{Protocol: era})
		err := callTool(clitest.Context(t), env, &call.Options{Name: "ask_task", Task: true})
		want := `the server asked for the user's input (elicitation for the tool "ask_task"), which mcpi can only give on a terminal or from an answers file; run it on a terminal, or pass --answers FILE with ` + example
		end := " (exit 2)"
		if era != mcp.LatestProtocolVersion {
			// The task id is not known here.
			end = `" (in protocol 2026-07-28 a task's input cannot be refused) (exit 2)`
			want += `; so mcpi cancelled the task "`
		}
		if got := describe(err); !strings.HasPrefix(got, "mcpi: "+want) || !strings.HasSuffix(got, end) {
			t.Errorf("%s tools call --task:\ngot  %q\nwant %q...%q", era, got, "mcpi: "+want, end)
		}
		for _, cmd := range []string{"watch", "watch all", "result"} {
			if cmd == "watch all" && era != mcp.LatestProtocolVersion {
				continue // the embedded server has no recorded tasks to follow there
			}
			env := clitest.New(t, &connect.Selection{Protocol: era})
			o := sharedOpts(env, cmd != "result")
			var id string
			setID := func(string) {}
			o.Connect = func(c context.Context, requests cmdutil.RequestPolicy) (*cmdutil.Session, error) {
				sess, err := env.Factory.Connect(c, requests)
				if err != nil {
					return nil, err
				}
				task, err := sess.StartToolTask(c, &mcp.CallToolParams{Name: "ask_task", Arguments: json.RawMessage(`{}`)}, nil)
				if err != nil {
					t.Fatal(err)
				}
				id = task.ID()
				setID(id)
				return sess, nil
			}
			switch cmd {
			case "result":
				opts := &result.Options{Options: o, ID: "set once the task is created"}
				setID = func(id string) { opts.ID = id }
				err = result.Run(clitest.Context(t), opts)
			default:
				opts := &watch.Options{Options: o}
				if cmd == "watch" {
					opts.ID = "set once the task is created"
					setID = func(id string) { opts.ID = id }
				}
				err = watch.Run(clitest.Context(t), opts)
			}
			want := `the server asked for the user's input (elicitation for the tool "ask_task"), which mcpi can only give on a terminal or from an answers file, and the task "` + id +
				`" ends with the embedded demo server, which mcpi stops as it exits: run the call that started it again on a terminal, or with --answers FILE holding ` + example +
				` ("mcpi tools call ask_task --task --answers FILE", with its arguments)`
			if got := describe(err); got != "mcpi: "+want+" (exit 2)" {
				t.Errorf("%s tasks %s:\ngot  %q\nwant %q", era, cmd, got, "mcpi: "+want+" (exit 2)")
			}
			if cmd != "watch" {
				continue
			}
			evs := jsonEvents(t, env.Out.String())
			last := evs[len(evs)-1]
			if last.Event != "interrupted" || last.Interrupted == nil || *last.Interrupted != (taskview.Interrupted{State: taskview.LeftStopped}) ||
				last.Error == nil || last.Error.Message != want {
				t.Errorf("%s tasks watch: last line %+v %+v\nwant an \"interrupted\" event of state %q with %q", era, last, last.Error, taskview.LeftStopped, want)
			}
		}
	}
}
