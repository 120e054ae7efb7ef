package call

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/internal/clitest"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/tasks"
)

// Ctrl-C while following a task of a server that declares no tasks.cancel does not offer
// to cancel it, as "tasks cancel" refuses to: the task is left running, and the sentence
// says why and how to fetch its result.
func TestInterruptWithoutTasksCancel(t *testing.T) {
	clitest.StateDir(t)
	var mu sync.Mutex
	var methods []string
	srv := server.New(mcp.Implementation{Name: "no-cancel", Version: "1"}, &server.Options{
		Tasks: &tasks.Options{},
		Capabilities: &mcp.ServerCapabilities{Tasks: &mcp.ServerTasksCapability{
			Requests: &mcp.ServerTaskRequests{Tools: &mcp.TaskToolRequests{Call: &struct{}{}}}}},
		Tap: func(_ *server.Session, dir jsonrpc.Direction, m jsonrpc.Message) {
			if req, ok := m.(*jsonrpc.Request); ok {
				mu.Lock()
				methods = append(methods, req.Method)
				mu.Unlock()
			}
		},
	})
	srv.AddTool(&mcp.Tool{Name: "wait", InputSchema: []byte(`{"type":"object"}`),
		Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportRequired}},
		func(ctx context.Context, _ *server.ToolRequest) (*mcp.CallToolResult, error) {
			select {
			case <-ctx.Done():
			case <-time.After(30 * time.Second):
			}
			return &mcp.CallToolResult{}, nil
		})
	env := clitest.New(t, &connect.Selection{URL: clitest.Serve(t, srv).URL, Protocol: mcp.LatestProtocolVersion})
	env.IO.SetStdinTTY(true)
	env.IO.SetStderrTTY(true)
	env.In.WriteString("c\n") // would cancel, if asked
	ctx, connectFn := env.InterruptOnCreate(t)
	opts := &Options{Name: "wait", Task: true, IO: env.IO, Connect: connectFn, Selection: env.Selection, Tick: -1}
	msg, code := clitest.Describe(Run(ctx, opts))
	if !strings.HasPrefix(msg, `mcpi: interrupted; the task "`) || code != 2 ||
		!strings.Contains(msg, `is still running on the server, which cannot be asked to cancel it (it declares no tasks.cancel capability): get its result with "mcpi tasks result `) {
		t.Errorf("got %q (exit %d)", msg, code)
	}
	if strings.Contains(env.ErrOut.String(), "Cancel the task") {
		t.Errorf("the user was offered to cancel the task:\n%s", env.ErrOut)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, m := range methods {
		if m == mcp.MethodTasksCancel {
			t.Errorf("tasks/cancel was sent to a server that declares no tasks.cancel: %v", methods)
		}
	}
}
