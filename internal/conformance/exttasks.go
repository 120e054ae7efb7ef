package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/mcpi-dev/mcpi/internal/pause"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
)

// Fixtures of the tasks-* scenarios of the conformance suite 0.2.0-alpha.12 (the Tasks
// extension, SEP-2663). In 2026-07-28 the server decides which calls become tasks, by
// each tool's [server.TaskPolicy]; in 2025-11-25 the same tools follow their
// execution.taskSupport.

// SlowComputePromoteAfter is how long a slow_compute call runs inline before it becomes
// a task: {seconds: 0} is answered inline, {seconds: 1} is a task.
const SlowComputePromoteAfter = 200 * time.Millisecond

// FailingJobDelay is how long failing_job works before its tool error.
var FailingJobDelay = time.Second

var (
	execOptional = &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}
	execRequired = &mcp.ToolExecution{TaskSupport: mcp.TaskSupportRequired}
)

func elicitFormMode(message, schema string) mcp.InputRequest {
	p, _ := json.Marshal(map[string]any{"mode": "form", "message": message, "requestedSchema": json.RawMessage(schema)})
	return mcp.InputRequest{Method: mcp.MethodElicitationCreate, Params: p}
}

func elicitedBool(raw json.RawMessage, field string) (accepted, value bool) {
	var r mcp.ElicitResult
	if json.Unmarshal(raw, &r) != nil || r.Action != mcp.ElicitActionAccept {
		return false, false
	}
	v, _ := r.Content[field].(bool)
	return true, v
}

func addTaskExtensionTools(srv *server.Server) {
	srv.AddToolWith(&mcp.Tool{
		Name:        "greet",
		Description: "Returns Hello, {name}! at once; never a task (tasks-* scenarios).",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
	}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		var args struct {
			Name string `json:"name"`
		}
		if err := req.Arguments(&args); err != nil {
			return toolError("%v", err), nil
		}
		return text("Hello, " + args.Name + "!"), nil
	}, &server.ToolOptions{Task: server.TaskNever})

	srv.AddToolWith(&mcp.Tool{
		Name: "slow_compute",
		Description: "Sleeps the given seconds, then returns its label. Answered inline when done within 200 ms, " +
			"a task otherwise; cancelling the task stops it (tasks-* scenarios).",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"seconds":{"type":"number","minimum":0},"label":{"type":"string"}}}`),
		Execution:   execOptional,
	}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		var args struct {
			Seconds float64 `json:"seconds"`
			Label   string  `json:"label"`
		}
		if err := req.Arguments(&args); err != nil {
			return toolError("%v", err), nil
		}
		if args.Seconds < 0 || args.Seconds > 3600 || math.IsNaN(args.Seconds) {
			return toolError("seconds must be between 0 and 3600"), nil
		}
		if err := pause.For(ctx, time.Duration(args.Seconds*float64(time.Second))); err != nil {
			return nil, err
		}
		return text(fmt.Sprintf("computed %q in %gs", args.Label, args.Seconds)), nil
	}, &server.ToolOptions{Task: server.TaskWhenSlow, PromoteAfter: SlowComputePromoteAfter})

	srv.AddToolWith(&mcp.Tool{
		Name:        "failing_job",
		Description: "Always a task (taskSupport required); after about a second it returns a tool error (tasks-* scenarios).",
		InputSchema: noArgs,
		Execution:   execRequired,
	}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		if err := pause.For(ctx, FailingJobDelay); err != nil {
			return nil, err
		}
		return toolError("failing_job failed on purpose"), nil
	}, &server.ToolOptions{Task: server.TaskAlways})

	srv.AddToolWith(&mcp.Tool{
		Name:        "protocol_error_job",
		Description: "Always a task; it ends with the JSON-RPC error -32603, so the task fails (tasks-* scenarios).",
		InputSchema: noArgs,
		Execution:   execRequired,
	}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		if err := pause.For(ctx, 100*time.Millisecond); err != nil {
			return nil, err
		}
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "protocol_error_job failed on purpose: an internal error")
	}, &server.ToolOptions{Task: server.TaskAlways})

	srv.AddToolWith(&mcp.Tool{
		Name:        "confirm_delete",
		Description: "Always a task; asks the user to confirm deleting filename (one elicitation), then reports it (tasks-* scenarios).",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"filename":{"type":"string"}},"required":["filename"]}`),
		Execution:   execRequired,
	}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		var args struct {
			Filename string `json:"filename"`
		}
		if err := req.Arguments(&args); err != nil {
			return toolError("%v", err), nil
		}
		out, err := req.Session.Inputs(ctx, map[string]mcp.InputRequest{
			"confirm": elicitFormMode("Delete "+args.Filename+"?", `{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}`),
		})
		if err != nil {
			return nil, err
		}
		if ok, yes := elicitedBool(out["confirm"], "confirm"); !ok || !yes {
			return text("kept " + args.Filename), nil
		}
		return text("deleted " + args.Filename), nil
	}, &server.ToolOptions{Task: server.TaskAlways})

	srv.AddToolWith(&mcp.Tool{
		Name:        "multi_input",
		Description: "Always a task; asks two questions at once (two elicitations pending together), then reports both answers (tasks-* scenarios).",
		InputSchema: noArgs,
		Execution:   execRequired,
	}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		out, err := req.Session.Inputs(ctx, map[string]mcp.InputRequest{
			"user_name": elicitFormMode("What is your name?", `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
			"confirm":   elicitFormMode("Shall we go on?", `{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}`),
		})
		if err != nil {
			return nil, err
		}
		_, yes := elicitedBool(out["confirm"], "confirm")
		return text(fmt.Sprintf("name=%s confirm=%t", elicitedText(out["user_name"], "name"), yes)), nil
	}, &server.ToolOptions{Task: server.TaskAlways})

	srv.AddToolWith(&mcp.Tool{
		Name: "test_tool_with_task",
		Description: "Asks the user's name by MRTR (user_name), then becomes a task whose result greets them " +
			"(tasks-mrtr-composition).",
		InputSchema: noArgs,
		Execution:   execRequired,
	}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		out, err := req.Session.Inputs(ctx, map[string]mcp.InputRequest{
			"user_name": elicitFormMode("What is your name?", `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
		})
		if err != nil {
			return nil, err
		}
		if err := pause.For(ctx, 300*time.Millisecond); err != nil { // the work the task does
			return nil, err
		}
		return text("Hello, " + elicitedText(out["user_name"], "name") + "! The task is done."), nil
	}, &server.ToolOptions{Task: server.TaskAlways, PromoteAfter: 100 * time.Millisecond})
}
