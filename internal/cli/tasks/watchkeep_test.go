package tasks_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/internal/clitest"
	"github.com/mcpi-dev/mcpi/internal/cli/state"
	"github.com/mcpi-dev/mcpi/internal/cli/tasks/get"
	"github.com/mcpi-dev/mcpi/internal/cli/tasks/watch"
	"github.com/mcpi-dev/mcpi/internal/cli/taskview"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/tasks"
)

// boundServer is a 2025-11-25 server that binds each task to the session that created
// it, as the TypeScript SDK's does: no other session reaches it, and it goes when its
// session ends. Its "wait" tool runs until the test ends.
func boundServer(t *testing.T) *clitest.Demo {
	srv := server.New(mcp.Implementation{Name: "bound", Version: "1"}, &server.Options{Tasks: &tasks.Options{}})
	srv.AddTool(&mcp.Tool{Name: "wait", InputSchema: json.RawMessage(`{"type":"object"}`), Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})
	return clitest.Serve(t, srv)
}

// getStatus runs "tasks get ID" with no server flags, as a later command would, and
// returns the task's status.
func getStatus(t *testing.T, id string) mcp.TaskStatus {
	t.Helper()
	env := fresh(t)
	if err := get.Run(clitest.Context(t), &get.Options{Options: sharedOpts(env, true), ID: id}); err != nil {
		t.Fatalf("tasks get of the task left running: %s", describe(err))
	}
	var st mcp.Task
	if err := json.Unmarshal(env.Out.Bytes(), &st); err != nil {
		t.Fatalf("tasks get: %v\n%s", err, env.Out)
	}
	return st.Status
}

// "tasks watch" (every task) interrupted leaves the tasks it followed as "tools call
// --task" leaves its task: recorded, with the session that holds them left open, so the
// command it names reaches them. It recorded none and ended its session, with which a
// server that binds tasks to their session dropped them.
func TestWatchAllInterruptedKeepsTasks(t *testing.T) {
	clitest.StateDir(t)
	d := boundServer(t)
	env := clitest.New(t, &connect.Selection{URL: d.URL})
	ctx, stop := context.WithCancel(clitest.Context(t))
	defer stop()
	var id string
	o := sharedOpts(env, true)
	o.Connect = func(c context.Context, requests cmdutil.RequestPolicy) (*cmdutil.Session, error) {
		sess, err := env.Factory.Connect(c, requests)
		if err != nil {
			return nil, err
		}
		task, err := sess.StartToolTask(c, &mcp.CallToolParams{Name: "wait", Arguments: json.RawMessage(`{}`)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		id = task.ID()
		return sess, nil
	}
	env.IO.Out = writeThen{env.Out, stop} // Ctrl-C once the watch shows the task
	if got := describe(watch.Run(ctx, &watch.Options{Options: o})); got != "mcpi: interrupted (exit 2)" {
		t.Errorf("got %q", got)
	}
	lines := strings.Split(strings.TrimSpace(env.Out.String()), "\n")
	var last taskview.Event
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || last.Event != "interrupted" || last.Interrupted == nil ||
		last.Interrupted.Fetch != "mcpi tasks result "+id {
		t.Errorf("last line: %s\nwant the fetch command %q", lines[len(lines)-1], "mcpi tasks result "+id)
	}
	if st := getStatus(t, id); st != mcp.TaskStatusWorking {
		t.Errorf("after Ctrl-C the task is %s", st)
	}
}

// "tasks watch ID" of a task mcpi had not recorded, interrupted, records it with the
// session that reached it, left open: "tools call --task" does so with the task it
// leaves running on Ctrl-C.
func TestWatchOneInterruptedRecordsTask(t *testing.T) {
	clitest.StateDir(t)
	d := clitest.ServeDemo(t, &demo.Options{Legacy: true})
	// A task whose session has ended and which no record names (another client's).
	env := clitest.New(t, &connect.Selection{URL: d.URL})
	sess, err := env.Factory.Connect(clitest.Context(t), cmdutil.RequestPolicy{})
	if err != nil {
		t.Fatal(err)
	}
	task, err := sess.StartToolTask(clitest.Context(t), &mcp.CallToolParams{Name: "slow_task", Arguments: json.RawMessage(`{"seconds":600}`)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	id := task.ID()
	sess.Close()
	d.WaitIdle(t)

	env = clitest.New(t, &connect.Selection{URL: d.URL})
	ctx, stop := context.WithCancel(clitest.Context(t))
	defer stop()
	env.IO.Out = writeThen{env.Out, stop} // Ctrl-C once the watch shows the task
	err = watch.Run(ctx, &watch.Options{Options: sharedOpts(env, true), ID: id})
	want := `mcpi: interrupted; the task "` + id + `" is still running on the server: get its result with "mcpi tasks result ` + id + `" (exit 2)`
	if got := describe(err); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	store, err := state.Default()
	if err != nil {
		t.Fatal(err)
	}
	e, ok, err := store.Find(id)
	if err != nil || !ok || e.Server.URL != d.URL || e.Protocol != mcp.LatestProtocolVersion || e.Session == nil {
		t.Fatalf("record of the task left running: %+v, %v, %v", e, ok, err)
	}
	d.WaitIdle(t)
	if ss := d.Server.Sessions(); len(ss) != 1 {
		t.Errorf("the server has %d sessions, want the one the watch left open", len(ss))
	}
	if st := getStatus(t, id); st != mcp.TaskStatusWorking {
		t.Errorf("after Ctrl-C the task is %s", st)
	}
}
