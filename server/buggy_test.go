package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/tasks"
)

// buggyServer has tools whose handlers are wrong: "boom" panics with a secret, "empty"
// returns neither a result nor an error. Each is optional in 2025-11-25 and always a
// task in 2026-07-28 (the "_inline" twins never are).
func buggyServer(logger *slog.Logger) *server.Server {
	srv := server.New(mcp.Implementation{Name: "buggy", Version: "1"}, &server.Options{Tasks: &tasks.Options{}, Modern: true, Logger: logger})
	optional := &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}
	boom := func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		panic("the secret is hunter2")
	}
	empty := func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) { return nil, nil }
	for name, h := range map[string]server.ToolHandler{"boom": boom, "empty": empty} {
		srv.AddToolWith(&mcp.Tool{Name: name, Execution: optional}, h, &server.ToolOptions{TaskPolicy: server.TaskAlways})
		srv.AddToolWith(&mcp.Tool{Name: name + "_inline"}, h, &server.ToolOptions{TaskPolicy: server.TaskNever})
	}
	return srv
}

// outcomes calls tool in every way there is: plainly and as a task in 2025-11-25, inline
// and as a task in 2026-07-28; it returns the error of each.
func outcomes(t *testing.T, srv *server.Server, tool string) map[string]*jsonrpc.Error {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	out := map[string]*jsonrpc.Error{}
	asRPC := func(err error) *jsonrpc.Error {
		var rerr *jsonrpc.Error
		if !errors.As(err, &rerr) {
			t.Fatalf("%s: %v, want a JSON-RPC error", tool, err)
		}
		return rerr
	}
	c := rawSession(t, srv)
	out["2025 plain"] = asRPC(c.Call(ctx, mcp.MethodToolsCall, &mcp.CallToolParams{Name: tool}, nil))
	var created mcp.CreateTaskResult
	if err := c.Call(ctx, mcp.MethodToolsCall, &mcp.CallToolParams{Name: tool, Task: &mcp.TaskMetadata{}}, &created); err != nil {
		t.Fatal(err)
	}
	out["2025 task"] = asRPC(c.Call(ctx, mcp.MethodTasksResult, &mcp.TaskResultParams{TaskID: created.Task.TaskID}, nil))

	p := newModernPeer(t, srv)
	_, out["2026 inline"] = p.tool(tool+"_inline", extCaps, nil)
	res, rerr := p.tool(tool, extCaps, nil)
	if rerr != nil || str(res["resultType"]) != "task" {
		t.Fatalf("%s in 2026-07-28: %v, %v; want a task", tool, res, rerr)
	}
	d := p.waitStatus(str(res["taskId"]), mcp.TaskStatusFailed)
	var e jsonrpc.Error
	if err := json.Unmarshal(d["error"], &e); err != nil {
		t.Fatalf("the failed task's error %s: %v", d["error"], err)
	}
	out["2026 task"] = &e
	return out
}

// TestToolPanicsLoggedWithStack: a panicking handler's call, in any era and as a task or
// not, gets -32603 "internal error in tool boom" and nothing of the panic; the log gets
// the panic and its stack, on the default logger when the server was given none (it
// got no stack, and with no logger nothing at all).
func TestToolPanicsLoggedWithStack(t *testing.T) {
	for _, configured := range []bool{true, false} {
		var logs syncBuffer
		logger := slog.New(slog.NewTextHandler(&logs, nil))
		var srv *server.Server
		if configured {
			srv = buggyServer(logger)
		} else {
			old := slog.Default()
			slog.SetDefault(logger)
			srv = buggyServer(nil)
			defer slog.SetDefault(old)
		}
		defer srv.Close()
		for how, rerr := range outcomes(t, srv, "boom") {
			if rerr == nil || rerr.Code != jsonrpc.CodeInternalError || !strings.HasPrefix(rerr.Message, "internal error in tool boom") || strings.Contains(string(rerr.Data), "hunter2") {
				t.Errorf("logger configured %v, %s: %v, want -32603 internal error in tool boom", configured, how, rerr)
			}
		}
		out := logs.String()
		if n := strings.Count(out, "level=ERROR msg=\"tool handler panicked\" tool=boom"); n != 4 {
			t.Errorf("logger configured %v: %d panics logged, want 4:\n%s", configured, n, out)
		}
		if !strings.Contains(out, "hunter2") || !strings.Contains(out, "stack=") || !strings.Contains(out, "server_test.buggyServer") {
			t.Errorf("logger configured %v: the log lacks the panic or its stack:\n%s", configured, out)
		}
	}
}

// TestToolReturningNothing: a handler that returns neither a result nor an error is a
// bug the client and the log are told of, in every era and way of calling; it was an
// empty success.
func TestToolReturningNothing(t *testing.T) {
	var logs syncBuffer
	srv := buggyServer(slog.New(slog.NewTextHandler(&logs, nil)))
	defer srv.Close()
	for how, rerr := range outcomes(t, srv, "empty") {
		if rerr == nil || rerr.Code != jsonrpc.CodeInternalError || !strings.HasPrefix(rerr.Message, "internal error in tool empty") || !strings.HasSuffix(rerr.Message, ": it returned neither a result nor an error") {
			t.Errorf("%s: %v, want -32603 saying the tool returned nothing", how, rerr)
		}
	}
	if n := strings.Count(logs.String(), `level=ERROR msg="tool handler returned neither a result nor an error" tool=empty`); n != 4 {
		t.Errorf("%d lines logged, want 4:\n%s", n, logs.String())
	}
}

// TestRequiredTaskToolNeedsTasks: a tool that can only run as a task, added to a server
// that runs no tool tasks, is refused with a panic naming it (it was listed with
// taskSupport required while initialize declared no tasks, and its calls ran plainly).
func TestRequiredTaskToolNeedsTasks(t *testing.T) {
	required := &mcp.Tool{Name: "only_task", Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportRequired}}
	h := func(context.Context, *server.ToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	}
	ownTasks := &mcp.ServerCapabilities{Tasks: &mcp.ServerTasksCapability{
		Requests: &mcp.ServerTaskRequests{Tools: &mcp.TaskToolRequests{Call: &struct{}{}}}}}
	for _, c := range []struct {
		name   string
		opts   *server.Options
		panics bool
	}{
		{"no tasks", nil, true},
		{"no tasks, modern", &server.Options{Modern: true}, true},
		{"tasks", &server.Options{Tasks: &tasks.Options{}}, false},
		{"task handlers of its own", &server.Options{Capabilities: ownTasks}, false},
	} {
		srv := server.New(mcp.Implementation{Name: "t", Version: "1"}, c.opts)
		var got any
		func() {
			defer func() { got = recover() }()
			srv.AddTool(required, h)
		}()
		msg, _ := got.(string)
		if c.panics != (got != nil) || (c.panics && !strings.Contains(msg, `"only_task"`)) {
			t.Errorf("%s: AddTool panicked with %v, want a panic: %v", c.name, got, c.panics)
		}
		if _, listed := srv.Tool("only_task"); listed == c.panics {
			t.Errorf("%s: the tool is listed: %v", c.name, listed)
		}
		srv.Close()
	}
}
