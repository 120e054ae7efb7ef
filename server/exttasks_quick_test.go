package server_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/tasks"
)

// TestExtTaskReportsQuickWorkEnded: a call that is a task at once (TaskAlways,
// TaskRequired) whose work ends before its CreateTaskResult is written is reported
// ended, completed or failed, with the outcome left to tasks/get (the create result
// carries neither result nor error); work that goes on is reported working, and so is
// work that asks for input, whose question goes through the task.
func TestExtTaskReportsQuickWorkEnded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := modernServer(&server.Options{Tasks: &tasks.Options{}})
		defer srv.Close()
		release := make(chan struct{})
		add := func(name string, policy server.TaskPolicy, h server.ToolHandler) {
			srv.AddToolWith(&mcp.Tool{Name: name}, h, &server.ToolOptions{TaskPolicy: policy})
		}
		add("instant", server.TaskRequired, func(context.Context, *server.ToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("instant")}}, nil
		})
		add("fails", server.TaskAlways, func(context.Context, *server.ToolRequest) (*mcp.CallToolResult, error) {
			return nil, jsonrpc.NewError(-32050, "broke")
		})
		add("own_task", server.TaskAlways, func(ctx context.Context, _ *server.ToolRequest) (*mcp.CallToolResult, error) {
			h, ok := server.TaskFromContext(ctx)
			if !ok {
				return nil, jsonrpc.NewError(-32603, "no task")
			}
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("ran as " + h.ID())}}, nil
		})
		add("held", server.TaskRequired, func(ctx context.Context, _ *server.ToolRequest) (*mcp.CallToolResult, error) {
			select {
			case <-release:
				return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("held done")}}, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		})
		add("asks", server.TaskAlways, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			r, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "name?", RequestedSchema: []byte(`{"type":"object"}`)})
			if err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("hi " + r.Content["name"].(string))}}, nil
		})
		p := newModernPeer(t, srv)
		created := func(name, status string) string {
			t.Helper()
			c, rerr := p.tool(name, extCaps, nil)
			if rerr != nil || str(c["resultType"]) != "task" || str(c["status"]) != status {
				t.Fatalf("%s: %s %v, want a task %s", name, c, rerr, status)
			}
			for _, k := range []string{"result", "error", "inputRequests", "requestState"} {
				if c[k] != nil {
					t.Errorf("%s: the CreateTaskResult has %s: %s", name, k, c)
				}
			}
			return str(c["taskId"])
		}
		get := func(id string) map[string]json.RawMessage {
			t.Helper()
			g, rerr := p.task(mcp.MethodTasksGet, id, nil)
			if rerr != nil {
				t.Fatalf("tasks/get %s: %v", id, rerr)
			}
			return g
		}

		if g := get(created("instant", "completed")); str(g["status"]) != "completed" || !strings.Contains(string(g["result"]), `"text":"instant"`) {
			t.Errorf("instant: tasks/get %s", g)
		}
		if g := get(created("fails", "failed")); !strings.Contains(string(g["error"]), `"code":-32050`) {
			t.Errorf("fails: tasks/get %s", g)
		}
		id := created("own_task", "completed")
		if g := get(id); !strings.Contains(string(g["result"]), "ran as "+id) {
			t.Errorf("own_task: tasks/get %s", g)
		}

		id = created("held", "working") // in synctest a wait for the work would never end
		close(release)
		synctest.Wait()
		if g := get(id); !strings.Contains(string(g["result"]), "held done") {
			t.Errorf("held: tasks/get %s", g)
		}

		id = created("asks", "working")
		synctest.Wait()
		g := get(id)
		if str(g["status"]) != "input_required" || !strings.Contains(string(g["inputRequests"]), `"name?"`) {
			t.Fatalf("asks: tasks/get %s, want its question", g)
		}
	})
}
