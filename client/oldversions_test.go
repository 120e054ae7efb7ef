package client_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// Tasks arrived in revision 2025-11-25: a session of an earlier one makes no task call
// (a *TaskSupportError naming the revision, matching -32601 as the refusals of the task
// rules do), declares no tasks capability, and calls a tool plainly whatever its
// taskSupport was.
func TestNoTaskCallsBeforeRevision20251125(t *testing.T) {
	for _, version := range []string{"2025-06-18", "2025-03-26", "2024-11-05"} {
		t.Run(version, func(t *testing.T) {
			ctx, s := demoSession(t, version, nil)
			if s.ProtocolVersion() != version {
				t.Fatalf("the session speaks %s", s.ProtocolVersion())
			}
			for _, e := range s.Handshake() {
				if r, ok := e.Message.(*jsonrpc.Request); ok && r.Method == mcp.MethodInitialize && strings.Contains(string(r.Params), `"tasks"`) {
					t.Errorf("initialize declares tasks: %s", r.Params)
				}
			}
			_, _, err := s.RunToolTask(ctx, &mcp.CallToolParams{Name: demo.ToolSlowTask, Arguments: []byte(`{"seconds":0.1}`)}, nil)
			var support *client.TaskSupportError
			if !errors.As(err, &support) || support.Version != version || !errors.Is(err, jsonrpc.ErrMethodNotFound) {
				t.Fatalf("RunToolTask: %v; want a *TaskSupportError for %s", err, version)
			}
			if want := "protocol " + version + ` has no tasks (they came with 2025-11-25), so "slow_task" cannot run as one`; err.Error() != want {
				t.Errorf("RunToolTask: %q, want %q", err, want)
			}
			res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: demo.ToolSlowTask, Arguments: []byte(`{"seconds":0.1}`)}, nil)
			if err != nil || res.IsError {
				t.Errorf("CallTool: %+v, %v; want the plain result", res, err)
			}
		})
	}
}
