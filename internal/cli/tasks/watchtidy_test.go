package tasks_test

import (
	"context"
	"encoding/json"
	"maps"
	"sync"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/internal/clitest"
	"github.com/mcpi-dev/mcpi/internal/cli/tasks/watch"
	"github.com/mcpi-dev/mcpi/internal/cli/taskview"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/tasks"
)

// "tasks watch" interrupted on the embedded demo server, which stops as mcpi exits and
// the task with it, says so, as "tools call --task" does: an "interrupted" event of
// state "stopped" with no command to fetch a result that will not be there, and the
// sentence that the task ends with the server. It said "running", and named a fetch
// command.
func TestWatchInterruptedOnEmbeddedServer(t *testing.T) {
	for _, all := range []bool{false, true} {
		clitest.StateDir(t)
		env := clitest.New(t, &connect.Selection{Protocol: mcp.LatestProtocolVersion})
		ctx, stop := context.WithCancel(clitest.Context(t))
		opts := &watch.Options{Options: sharedOpts(env, true)}
		if !all {
			opts.ID = "set once the task is created"
		}
		var id string
		opts.Connect = func(c context.Context, requests cmdutil.RequestPolicy) (*cmdutil.Session, error) {
			sess, err := env.Factory.Connect(c, requests)
			if err != nil {
				return nil, err
			}
			task, err := sess.StartToolTask(c, &mcp.CallToolParams{Name: "slow_task", Arguments: json.RawMessage(`{"seconds":600}`)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			id = task.ID()
			if !all {
				opts.ID = id
			}
			return sess, nil
		}
		env.IO.Out = writeThen{env.Out, stop} // Ctrl-C once the watch shows the task
		err := watch.Run(ctx, opts)
		stop()
		sentence := `interrupted; the task "` + id + `" ends with the embedded demo server`
		want := "mcpi: " + sentence + " (exit 2)"
		if all {
			want = "mcpi: interrupted (exit 2)"
		}
		if got := describe(err); got != want {
			t.Errorf("all %v:\ngot  %q\nwant %q", all, got, want)
		}
		evs := jsonEvents(t, env.Out.String())
		last := evs[len(evs)-1]
		if last.Event != "interrupted" || last.Task == nil || last.Task.TaskID != id ||
			last.Interrupted == nil || *last.Interrupted != (taskview.Interrupted{State: taskview.LeftStopped}) ||
			last.Error == nil || last.Error.Message != sentence {
			t.Errorf("all %v: last line %+v %+v %+v\nwant an \"interrupted\" event of state %q with %q", all, last, last.Interrupted, last.Error, taskview.LeftStopped, sentence)
		}
	}
}

// askOrWaitServer is a 2025-11-25 server whose "wait" tool runs until the test ends, and
// whose "ask" tool asks the user's name (elicitation, linked to its task) once ask is
// called.
func askOrWaitServer(t *testing.T) (d *clitest.Demo, ask func()) {
	return askOrWaitServerPolled(t, 0)
}

// askOrWaitServerPolled is askOrWaitServer suggesting poll as the tasks' pollInterval
// (0: the default), which is also how long a question of a task waits for a
// tasks/result to come in before it goes to the task's session.
func askOrWaitServerPolled(t *testing.T, poll time.Duration) (d *clitest.Demo, ask func()) {
	asked := make(chan struct{})
	var once sync.Once
	srv := server.New(mcp.Implementation{Name: "asks", Version: "1"}, &server.Options{Tasks: &tasks.Options{PollInterval: poll}})
	srv.AddTool(&mcp.Tool{Name: "wait", InputSchema: json.RawMessage(`{"type":"object"}`), Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})
	srv.AddTool(&mcp.Tool{Name: "ask", InputSchema: json.RawMessage(`{"type":"object"}`), Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			select {
			case <-asked:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			if _, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "name?",
				RequestedSchema: []byte(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)}); err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("hello")}}, nil
		})
	return clitest.Serve(t, srv), func() { once.Do(func() { close(asked) }) }
}

// "tasks watch" without an id stopped on a question it cannot ask, which names its task
// (params._meta's related-task), says that task waits for the input, and that the other
// tasks of the session run on: a "waiting" event for it, "interrupted" events (state
// "running") for them. Every task of the session had a "waiting" event, and the
// sentence said they all waited.
func TestWatchAllLeftInputNamesItsTask(t *testing.T) {
	clitest.StateDir(t)
	d, ask := askOrWaitServer(t)
	env := clitest.New(t, &connect.Selection{URL: d.URL})
	ids := map[string]string{} // by tool
	o := sharedOpts(env, true)
	o.Connect = func(c context.Context, requests cmdutil.RequestPolicy) (*cmdutil.Session, error) {
		sess, err := env.Factory.Connect(c, requests)
		if err != nil {
			return nil, err
		}
		for _, tool := range []string{"wait", "ask"} {
			task, err := sess.StartToolTask(c, &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(`{}`)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			ids[tool] = task.ID()
		}
		return sess, nil
	}
	var mu sync.Mutex
	lines := 0
	env.IO.Out = writeThen{env.Out, func() {
		mu.Lock()
		defer mu.Unlock()
		if lines++; lines == 2 { // both shown: the question comes
			ask()
		}
	}}
	err := watch.Run(clitest.Context(t), &watch.Options{Options: o})
	asking, running := ids["ask"], ids["wait"]
	waits := askNeed + `; the task "` + asking + `" waits for it on the server, in the session mcpi left open there: "mcpi tasks result ` + asking + `" gives it`
	if got, want := describe(err), "mcpi: "+waits+" (exit 2)"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	evs := jsonEvents(t, env.Out.String())
	want := map[string]string{asking: "waiting", running: "interrupted"}
	if got := lastEvents(evs); !maps.Equal(got, want) {
		t.Errorf("last events %v, want %v\n%s", got, want, env.Out)
	}
	for _, ev := range evs {
		switch {
		case ev.Event == "waiting" && (ev.Waiting == nil || ev.Waiting.Fetch != "mcpi tasks result "+asking || ev.Error == nil || ev.Error.Message != waits):
			t.Errorf("waiting: %+v %+v", ev.Waiting, ev.Error)
		case ev.Event == "interrupted" && (ev.Interrupted == nil || *ev.Interrupted != (taskview.Interrupted{State: taskview.LeftRunning, Fetch: "mcpi tasks result " + running})):
			t.Errorf("interrupted: %+v", ev.Interrupted)
		}
	}
}
