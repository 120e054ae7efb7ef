package tasks_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/internal/clitest"
	"github.com/mcpi-dev/mcpi/internal/cli/state"
	"github.com/mcpi-dev/mcpi/internal/cli/tasks/watch"
	"github.com/mcpi-dev/mcpi/internal/cli/taskview"
	"github.com/mcpi-dev/mcpi/mcp"
)

// orphanTask starts a long slow_task on d in a session that then ends, unrecorded (as
// another client's would be), and returns its id once d has seen the session end.
func orphanTask(t *testing.T, d *clitest.Demo) string {
	t.Helper()
	env := clitest.New(t, &connect.Selection{URL: d.URL})
	sess, err := env.Factory.Connect(clitest.Context(t), cmdutil.RequestPolicy{})
	if err != nil {
		t.Fatal(err)
	}
	task, err := sess.StartToolTask(clitest.Context(t), &mcp.CallToolParams{Name: "slow_task", Arguments: json.RawMessage(`{"seconds":600}`)}, nil)
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
