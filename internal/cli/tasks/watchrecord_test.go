package tasks_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/internal/clitest"
	"github.com/mcpi-dev/mcpi/internal/cli/state"
	"github.com/mcpi-dev/mcpi/internal/cli/tasks/result"
	"github.com/mcpi-dev/mcpi/internal/cli/tasks/watch"
	"github.com/mcpi-dev/mcpi/internal/cli/taskview"
	"github.com/mcpi-dev/mcpi/internal/cli/tools/call"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/tasks"
)

// orphanTask starts a long slow_task on d in a session that then ends, unrecorded (as
// another client's would be), and returns its id once d has seen the session end.
func orphanTask(t *testing.T, d *clitest.Demo) string {
	t.Helper()
	return orphanCall(t, d, "slow_task", `{"seconds":600}`)
}

// orphanCall starts tool as a task, with args, on d in a session that then ends,
// unrecorded, and returns its id once d has seen the session end.
func orphanCall(t *testing.T, d *clitest.Demo, tool, args string) string {
	t.Helper()
	env := clitest.New(t, &connect.Selection{URL: d.URL})
	sess, err := env.Factory.Connect(clitest.Context(t), cmdutil.RequestPolicy{})
	if err != nil {
		t.Fatal(err)
	}
	task, err := sess.StartToolTask(clitest.Context(t), &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sess.Close()
	d.WaitIdle(t)
	return task.ID()
}

// "tasks watch ID" whose session the server ends while it follows the task loses track
// of it: the task is recorded (without the session the server ended), as "tools call
// --task" records a task it loses, so that the command the sentence and the "lost" line
// name reaches it. It named "mcpi tasks result ID" of a task it had not recorded, which
// then looked for it on the embedded demo server.
func TestWatchOneLostRecordsTask(t *testing.T) {
	clitest.StateDir(t)
	d := clitest.ServeDemo(t, &demo.Options{Legacy: true})
	id := orphanTask(t, d)

	env := clitest.New(t, &connect.Selection{URL: d.URL})
	var once sync.Once
	// The server ends the watch's session once the watch shows the task.
	env.IO.Out = writeThen{env.Out, func() {
		once.Do(func() {
			for _, s := range d.Server.Sessions() {
				s.Close()
			}
		})
	}}
	err := watch.Run(clitest.Context(t), &watch.Options{Options: sharedOpts(env, true), ID: id})
	fetch := "mcpi tasks result " + id
	want := `mcpi: the server at ` + d.URL + ` ended the session while mcpi followed the task "` + id + `"; a server that lets a new session take a task over (as mcpi serve demo does) may still run it: get its result with "` + fetch + `" (exit 2)`
	if got := describe(err); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	lines := strings.Split(strings.TrimSpace(env.Out.String()), "\n")
	var last taskview.Event
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || last.Event != "lost" || last.Lost == nil || last.Lost.Fetch != fetch {
		t.Errorf("last line: %s\nwant a \"lost\" event with the fetch command %q", lines[len(lines)-1], fetch)
	}
	store, err := state.Default()
	if err != nil {
		t.Fatal(err)
	}
	e, ok, err := store.Find(id)
	if err != nil || !ok || e.Server.URL != d.URL || e.Protocol != mcp.LatestProtocolVersion || e.Session != nil {
		t.Fatalf("record of the lost task: %+v, %v, %v (want one without the session the server ended)", e, ok, err)
	}
	if st := getStatus(t, id); st != mcp.TaskStatusWorking {
		t.Errorf("the lost task is %s", st)
	}
}

// "tasks watch" (every task) whose session the server ends loses track of the tasks it
// follows: each is recorded, its "lost" line names the command that fetches it, and the
// command says so and exits 2. It recorded none, printed no line for them and exited 0,
// as if they had all ended.
func TestWatchAllLostRecordsTasks(t *testing.T) {
	clitest.StateDir(t)
	d := clitest.ServeDemo(t, &demo.Options{Legacy: true})
	env := clitest.New(t, &connect.Selection{URL: d.URL})
	var id string
	o := sharedOpts(env, true)
	o.Connect = func(c context.Context, requests cmdutil.RequestPolicy) (*cmdutil.Session, error) {
		sess, err := env.Factory.Connect(c, requests)
		if err != nil {
			return nil, err
		}
		task, err := sess.StartToolTask(c, &mcp.CallToolParams{Name: "slow_task", Arguments: json.RawMessage(`{"seconds":600}`)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		id = task.ID()
		return sess, nil
	}
	var once sync.Once
	env.IO.Out = writeThen{env.Out, func() {
		once.Do(func() {
			for _, s := range d.Server.Sessions() {
				s.Close()
			}
		})
	}}
	err := watch.Run(clitest.Context(t), &watch.Options{Options: o})
	fetch := "mcpi tasks result " + id
	want := `mcpi: the server at ` + d.URL + ` ended the session while mcpi followed the task "` + id + `"; a server that lets a new session take a task over (as mcpi serve demo does) may still run it: get its result with "` + fetch + `" (exit 2)`
	if got := describe(err); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	lines := strings.Split(strings.TrimSpace(env.Out.String()), "\n")
	var last taskview.Event
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || last.Event != "lost" || last.Lost == nil || last.Lost.Fetch != fetch ||
		last.Task == nil || last.Task.TaskID != id {
		t.Errorf("last line: %s\nwant a \"lost\" event with the fetch command %q", lines[len(lines)-1], fetch)
	}
	store, err := state.Default()
	if err != nil {
		t.Fatal(err)
	}
	if e, ok, err := store.Find(id); err != nil || !ok || e.Server.URL != d.URL || e.Session != nil {
		t.Fatalf("record of the lost task: %+v, %v, %v", e, ok, err)
	}
	if st := getStatus(t, id); st != mcp.TaskStatusWorking {
		t.Errorf("the lost task is %s", st)
	}
}

// askingBoundServer is a 2025-11-25 server that binds each task to the session that
// created it, as the TypeScript SDK's does; its "ask" tool asks the user's name
// (elicitation, linked to the task) and greets them.
func askingBoundServer(t *testing.T) *clitest.Demo {
	srv := server.New(mcp.Implementation{Name: "bound", Version: "1"}, &server.Options{Tasks: &tasks.Options{PollInterval: time.Millisecond}})
	srv.AddTool(&mcp.Tool{Name: "ask", InputSchema: json.RawMessage(`{"type":"object"}`), Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportRequired}},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "name?",
				RequestedSchema: []byte(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)})
			if err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(fmt.Sprintf("hello, %v", res.Content["name"]))}}, nil
		})
	return clitest.Serve(t, srv)
}

const askNeed = `the server asked for the user's input (elicitation for the tool "ask"), which mcpi can only give on a terminal or from an answers file; run it on a terminal, or pass --answers FILE with {"elicitation": {"ask": {"name": "..."}}}`

// "tasks watch ID" and "tasks result ID" that stop on a question they cannot ask keep
// the session recorded for the task, to which a strict server binds it, and the
// sentence says where the task waits and which command gives its input (it said only
// how to answer, as if nothing waited).
func TestLeftInputKeepsRecordedSession(t *testing.T) {
	clitest.StateDir(t)
	d := askingBoundServer(t)
	env := clitest.New(t, &connect.Selection{URL: d.URL})
	if err := callTool(clitest.Context(t), env, &call.Options{Name: "ask", Task: true, Detach: true}); err != nil {
		t.Fatal(describe(err))
	}
	id := strings.TrimSpace(env.Out.String())
	want := `mcpi: ` + askNeed + `; the task "` + id + `" waits for it on the server, in the session mcpi left open there: "mcpi tasks result ` + id + `" gives it (exit 2)`
	for _, cmd := range []string{"watch", "result"} {
		env = fresh(t)
		var err error
		if cmd == "watch" {
			err = watch.Run(clitest.Context(t), &watch.Options{Options: sharedOpts(env, false), ID: id})
		} else {
			err = result.Run(clitest.Context(t), &result.Options{Options: sharedOpts(env, false), ID: id})
		}
		if got := describe(err); got != want {
			t.Errorf("tasks %s:\ngot  %q\nwant %q", cmd, got, want)
		}
		d.WaitIdle(t) // the command's own session ends on a goroutine of the server's
		if n := len(d.Server.Sessions()); n != 1 {
			t.Errorf("after tasks %s the server has %d sessions, want the task's", cmd, n)
		}
	}
	answers := clitest.WriteFile(t, "answers.json", `{"elicitation": {"ask": {"name": "Ada"}}}`)
	env = fresh(t)
	if err := result.Run(clitest.Context(t), &result.Options{Options: sharedOpts(env, false), ID: id, Answers: answers}); err != nil || env.Out.String() != "hello, Ada\n" {
		t.Errorf("tasks result --answers: %s, %q", describe(err), env.Out)
	}
}

// "tasks result ID" of a task it reached in a session of its own (a server that lets a
// new session take an orphaned task over), stopped on a question it cannot ask, leaves
// the task recorded with that session, kept open on the server, to which a server that
// binds an adopted task to its new session has bound it; the sentence names the
// command that gives the input. It ended the session and recorded nothing.
func TestResultLeftInputRecordsSession(t *testing.T) {
	clitest.StateDir(t)
	d := clitest.ServeDemo(t, &demo.Options{Legacy: true})
	env := clitest.New(t, &connect.Selection{URL: d.URL})
	sess, err := env.Factory.Connect(clitest.Context(t), cmdutil.RequestPolicy{Leave: true})
	if err != nil {
		t.Fatal(err)
	}
	task, err := sess.StartToolTask(clitest.Context(t), &mcp.CallToolParams{Name: "ask_task", Arguments: json.RawMessage(`{}`)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	id := task.ID()
	sess.Close()
	d.WaitIdle(t)

	env = clitest.New(t, &connect.Selection{URL: d.URL})
	err = result.Run(clitest.Context(t), &result.Options{Options: sharedOpts(env, false), ID: id})
	want := `mcpi: the server asked for the user's input (elicitation), which mcpi can only give on a terminal or from an answers file; run it on a terminal, or pass --answers FILE with {"elicitation": {"*": {"name": "..."}}}; the task "` + id + `" waits for it on the server, in the session mcpi left open there: "mcpi tasks result ` + id + `" gives it (exit 2)`
	if got := describe(err); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	store, err := state.Default()
	if err != nil {
		t.Fatal(err)
	}
	e, ok, err := store.Find(id)
	if err != nil || !ok || e.Server.URL != d.URL || e.Session == nil {
		t.Fatalf("record of the task left waiting: %+v, %v, %v", e, ok, err)
	}
	if ss := d.Server.Sessions(); len(ss) != 1 {
		t.Errorf("the server has %d sessions, want the one the command left open", len(ss))
	}
	answers := clitest.WriteFile(t, "answers.json", `{"elicitation": {"*": {"name": "Ada"}}, "sampling": {"*": "Hello, Ada."}}`)
	env = fresh(t)
	if err := result.Run(clitest.Context(t), &result.Options{Options: sharedOpts(env, false), ID: id, Answers: answers}); err != nil || !strings.Contains(env.Out.String(), "name: Ada") {
		t.Errorf("tasks result --answers: %s, %q", describe(err), env.Out)
	}
}
