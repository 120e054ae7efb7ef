package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/tasks"
)

// Tasks arrived in revision 2025-11-25: a session of an earlier one (negotiated in
// initialize) has none. The server declares no tasks capability and no taskSupport,
// runs a call whose params carry a task (a field that revision does not know) plainly,
// a tool that needs a task too, and knows no tasks/* method; in 2025-11-25 it does all
// of that.
func TestNoTasksBeforeRevision20251125(t *testing.T) {
	for _, version := range []string{"2025-06-18", "2025-03-26", "2024-11-05", mcp.LatestProtocolVersion} {
		t.Run(version, func(t *testing.T) {
			hasTasks := version == mcp.LatestProtocolVersion
			srv := server.New(mcp.Implementation{Name: "t", Version: "1"}, &server.Options{Tasks: &tasks.Options{}})
			defer srv.Close()
			done := func(context.Context, *server.ToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("done")}}, nil
			}
			srv.AddTool(&mcp.Tool{Name: "optional", Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}}, done)
			srv.AddTool(&mcp.Tool{Name: "required", Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportRequired}}, done)
			p := newModernPeer(t, srv)
			ctx := t.Context()
			var init map[string]json.RawMessage
			if err := p.conn.Call(ctx, mcp.MethodInitialize, &mcp.InitializeParams{ProtocolVersion: version,
				Capabilities: mcp.ClientCapabilities{Tasks: &mcp.ClientTasksCapability{}}}, &init); err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(string(init["capabilities"]), `"tasks"`); got != hasTasks {
				t.Errorf("capabilities %s: tasks declared %v, want %v", init["capabilities"], got, hasTasks)
			}
			var list map[string]json.RawMessage
			if err := p.conn.Call(ctx, mcp.MethodToolsList, nil, &list); err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(string(list["tools"]), "taskSupport"); got != hasTasks {
				t.Errorf("tools %s: taskSupport listed %v, want %v", list["tools"], got, hasTasks)
			}
			for _, c := range []struct {
				tool, params string
			}{
				{"optional", `{"name":"optional","task":{"ttl":60000}}`},
				{"required", `{"name":"required"}`},
			} {
				var res map[string]json.RawMessage
				err := p.conn.Call(ctx, mcp.MethodToolsCall, json.RawMessage(c.params), &res)
				switch {
				case hasTasks && c.tool == "optional":
					if err != nil || res["task"] == nil {
						t.Errorf("%s as a task: %s, %v; want a task", c.tool, res["content"], err)
					}
				case hasTasks:
					if err == nil {
						t.Errorf("%s plainly: %s; want it refused", c.tool, res["content"])
					}
				default:
					if err != nil || res["task"] != nil || !strings.Contains(string(res["content"]), `"done"`) {
						t.Errorf("%s: %v, %v; want the tool's plain result", c.tool, res, err)
					}
				}
			}
			var rerr *jsonrpc.Error
			err := p.conn.Call(ctx, mcp.MethodTasksList, nil, new(json.RawMessage))
			if hasTasks && err != nil {
				t.Errorf("tasks/list: %v", err)
			}
			if !hasTasks && (!errors.As(err, &rerr) || rerr.Code != jsonrpc.CodeMethodNotFound) {
				t.Errorf("tasks/list: %v; want -32601", err)
			}
		})
	}
}
