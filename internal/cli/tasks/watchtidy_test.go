package tasks_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/internal/clitest"
	"github.com/mcpi-dev/mcpi/internal/cli/tasks/watch"
	"github.com/mcpi-dev/mcpi/internal/cli/taskview"
	"github.com/mcpi-dev/mcpi/internal/cli/tools/call"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/tasks"
)

// nowOrWaitServer is a 2025-11-25 server that binds each task to the session that
// created it, as the TypeScript SDK's does: its "now" tool ends at once, and its "wait"
// tool runs until the test ends.
func nowOrWaitServer(t *testing.T) *clitest.Demo {
	srv := server.New(mcp.Implementation{Name: "bound", Version: "1"}, &server.Options{Tasks: &tasks.Options{}})
	srv.AddTool(&mcp.Tool{Name: "now", InputSchema: json.RawMessage(`{"type":"object"}`), Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("done")}}, nil
		})
	srv.AddTool(&mcp.Tool{Name: "wait", InputSchema: json.RawMessage(`{"type":"object"}`), Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})
	return clitest.Serve(t, srv)
}

// detachTool starts a task of tool on d with --detach, in a session of its own that mcpi
// records and leaves open, and returns its id.
func detachTool(t *testing.T, d *clitest.Demo, tool string) string {
	t.Helper()
	env := clitest.New(t, &connect.Selection{URL: d.URL})
	if err := callTool(clitest.Context(t), env, &call.Options{Name: tool, Task: true, Detach: true}); err != nil {
		t.Fatal(describe(err))
	}
	return strings.TrimSpace(env.Out.String())
}

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
