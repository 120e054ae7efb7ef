package tasks_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/internal/cli/internal/clitest"
	"github.com/mcpi-dev/mcpi/internal/cli/tasks/cancel"
	"github.com/mcpi-dev/mcpi/internal/cli/tasks/result"
	"github.com/mcpi-dev/mcpi/internal/cli/tasks/shared"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/tasks"
)

// "tasks cancel ID" of a 2025-11-25 task that has completed, on a server whose tasks/get
// then fails: the server refuses the cancel with -32602, as it would for an unknown
// task, and tasks/get cannot say which it is. mcpi says both, and keeps the task's
// record: the task is there (tasks result has just printed it).
func TestCancelRefusedGetFails(t *testing.T) {
	clitest.StateDir(t)
	var failGet atomic.Bool
	srv := server.New(mcp.Implementation{Name: "flaky", Version: "1"}, &server.Options{
		Tasks: &tasks.Options{PollInterval: 10 * time.Millisecond},
		Handlers: map[string]server.MethodHandler{
			mcp.MethodTasksGet: func(context.Context, *server.Session, *jsonrpc.Request) (any, error) {
				if failGet.Load() {
					return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "database down")
				}
				return nil, server.ErrNotHandled
			},
		},
	})
	srv.AddTool(&mcp.Tool{Name: "quick", InputSchema: []byte(`{"type":"object"}`), Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}},
		func(context.Context, *server.ToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("done")}}, nil
		})
	d := clitest.Serve(t, srv)
	id := detach(t, d, "quick")
	env := freshOn(t, d)
	if err := result.Run(clitest.Context(t), &result.Options{Options: sharedOpts(env, false), ID: id}); err != nil || env.Out.String() != "done\n" {
		t.Fatalf("tasks result: %s, stdout %q", describe(err), env.Out)
	}

	failGet.Store(true)
	env = freshOn(t, d)
	err := cancel.Run(clitest.Context(t), &cancel.Options{Options: sharedOpts(env, false), ID: id})
	want := `mcpi: the server refused to cancel the task "` + id + `" (task already ended, JSON-RPC error -32602), its answer for a task that has ended and for one it does not know, and tasks/get, asked which, failed (database down, JSON-RPC error -32603) (exit 1)`
	if got := describe(err); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if _, ok, _ := (&shared.Options{}).Resolve(id); !ok {
		t.Error("the state file no longer records the task")
	}

	// Once tasks/get answers again, the task is said to have ended.
	failGet.Store(false)
	err = cancel.Run(clitest.Context(t), &cancel.Options{Options: sharedOpts(freshOn(t, d), false), ID: id})
	if got, want := describe(err), `mcpi: the task "`+id+`" has already ended (completed), so it cannot be cancelled (exit 1)`; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
