package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpi-dev/mcpi/internal/pause"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
)

// Fixtures of the tasks-* scenarios (the Tasks extension of 2026-07-28, SEP-2663) of the
// conformance suite 0.2.0-alpha.12. The server decides which calls become tasks, by each
// tool's [server.TaskPolicy].

func addTaskTools(srv *server.Server) {
	exec := func(s mcp.TaskSupport) *mcp.ToolExecution { return &mcp.ToolExecution{TaskSupport: s} }
	add := func(t *mcp.Tool, policy server.TaskPolicy, h server.ToolHandler) {
		srv.AddToolWith(t, h, &server.ToolOptions{TaskPolicy: policy})
	}

	add(&mcp.Tool{Name: "greet", Description: "Greets by name, at once, never as a task (tasks-lifecycle).",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)},
		server.TaskNever, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			var args struct {
				Name string `json:"name"`
			}
			if err := req.Arguments(&args); err != nil {
				return toolError("%v", err), nil
			}
			return text("Hello, " + args.Name + "!"), nil
		})
	add(&mcp.Tool{Name: "slow_compute", Description: "Waits the given seconds, then answers; a task when it takes longer than a quarter of a second (tasks-*).",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"seconds":{"type":"number","minimum":0},"label":{"type":"string"}}}`),
		Execution:   exec(mcp.TaskSupportOptional)},
		server.TaskWhenSlow, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			var args struct {
				Seconds float64 `json:"seconds"`
				Label   string  `json:"label"`
			}
			if err := req.Arguments(&args); err != nil {
				return toolError("%v", err), nil
			}
			if err := pause.For(ctx, time.Duration(args.Seconds*float64(time.Second))); err != nil {
				return nil, err
			}
			return text(fmt.Sprintf("computed %s after %gs", args.Label, args.Seconds)), nil
		})
	add(&mcp.Tool{Name: "failing_job", Description: "Always a task; ends with a tool error, so the task completes with isError (tasks-lifecycle).",
		InputSchema: noArgs, Execution: exec(mcp.TaskSupportRequired)},
		server.TaskRequired, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			return toolError("the job failed, as it always does"), nil
		})
	add(&mcp.Tool{Name: "protocol_error_job", Description: "Always a task; ends with a JSON-RPC error, so the task fails (tasks-lifecycle).",
		InputSchema: noArgs, Execution: exec(mcp.TaskSupportRequired)},
		server.TaskRequired, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "the job broke down")
		})
	add(&mcp.Tool{Name: "confirm_delete", Description: "A task whenever the extension is declared; asks the user to confirm through the task's inputRequests (tasks-mrtr-input).",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"filename":{"type":"string"}},"required":["filename"]}`),
		Execution:   exec(mcp.TaskSupportOptional)},
		server.TaskAlways, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			var args struct {
				Filename string `json:"filename"`
			}
			if err := req.Arguments(&args); err != nil {
				return toolError("%v", err), nil
			}
			out, err := req.Session.Inputs(ctx, map[string]mcp.InputRequest{"confirm": elicitForm("Delete "+args.Filename+"?", confirmSchema)})
			if err != nil {
				return nil, err
			}
			if elicitedText(out["confirm"], "ok") == "true" {
				return text("deleted " + args.Filename), nil
			}
			return text("kept " + args.Filename), nil
		})
	add(&mcp.Tool{Name: "multi_input", Description: "A task whenever the extension is declared; asks two questions at once (tasks-mrtr-input).",
		InputSchema: noArgs, Execution: exec(mcp.TaskSupportOptional)},
		server.TaskAlways, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			out, err := req.Session.Inputs(ctx, map[string]mcp.InputRequest{
				"first":  elicitForm("First question: your name?", nameSchema),
				"second": elicitForm("Second question: your colour?", `{"type":"object","properties":{"color":{"type":"string"}}}`),
			})
			if err != nil {
				return nil, err
			}
			return text(fmt.Sprintf("first=%s second=%s", out["first"], out["second"])), nil
		})
	add(&mcp.Tool{Name: "test_tool_with_task", Description: "Asks the user's name through MRTR, then answers with a task (tasks-mrtr-composition).",
		InputSchema: noArgs, Execution: exec(mcp.TaskSupportRequired)},
		server.TaskAfterInput, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			out, err := req.Session.Inputs(ctx, map[string]mcp.InputRequest{"user_name": elicitForm("What is your name?", nameSchema)})
			if err != nil {
				return nil, err
			}
			return text("Hello, " + elicitedText(out["user_name"], "name") + ", from a task!"), nil
		})
}

const (
	nameSchema    = `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`
	confirmSchema = `{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`
)
