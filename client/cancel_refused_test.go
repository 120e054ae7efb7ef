package client_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// A 2025-11-25 server refuses with -32602 the cancel of a task that has ended as of an
// unknown one, and the client asks tasks/get which. When that tasks/get fails with
// another error, the task is not gone: the error is a *CancelRefusedError that holds
// the refusal and the failure, and does not match ErrTaskGone. A -32602 from tasks/get
// is the server saying it does not know the task: ErrTaskGone.
func TestCancelRefusedWhenGetFails(t *testing.T) {
	ctx := bounded(t)
	f := newLegacy(t, nil)
	f.On(mcp.MethodInitialize, func(context.Context, *jsonrpc.Request) (any, error) {
		return &mcp.InitializeResult{
			ProtocolVersion: mcp.LatestProtocolVersion,
			ServerInfo:      mcp.Implementation{Name: "legacy", Version: "1"},
			Capabilities:    mcp.ServerCapabilities{Tools: &mcp.ToolsCapability{}, Tasks: &mcp.ServerTasksCapability{Cancel: &struct{}{}}},
		}, nil
	})
	f.On(mcp.MethodTasksCancel, func(context.Context, *jsonrpc.Request) (any, error) {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "task has ended or is unknown")
	})
	f.On(mcp.MethodTasksGet, func(context.Context, *jsonrpc.Request) (any, error) {
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "database down")
	})
	s := f.MustConnect(ctx, nil)
	st, err := s.CancelTask(ctx, "t1")
	var refused *client.CancelRefusedError
	if !errors.As(err, &refused) || refused.TaskID != "t1" || errors.Is(err, client.ErrTaskGone) || st.TaskID != "" {
		t.Fatalf("CancelTask: %+v, %v; want a *CancelRefusedError, not ErrTaskGone", st, err)
	}
	var cancelErr, getErr *jsonrpc.Error
	if !errors.As(refused.Err, &cancelErr) || cancelErr.Code != jsonrpc.CodeInvalidParams ||
		!errors.As(refused.GetErr, &getErr) || getErr.Code != jsonrpc.CodeInternalError || getErr.Message != "database down" {
		t.Errorf("the refusal %v and the failure of tasks/get %v, want -32602 and -32603", refused.Err, refused.GetErr)
	}
	if !errors.Is(err, jsonrpc.ErrInvalidParams) || !strings.Contains(err.Error(), "database down") {
		t.Errorf("the error %q does not match the refusal or quote the failure", err)
	}
	if got := f.RequestMethods(); len(got) < 2 || got[len(got)-2] != mcp.MethodTasksCancel || got[len(got)-1] != mcp.MethodTasksGet {
		t.Errorf("the server received %v, want tasks/cancel then tasks/get", got)
	}

	// tasks/get's own -32602: the server does not know the task.
	f.On(mcp.MethodTasksGet, func(context.Context, *jsonrpc.Request) (any, error) {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "no such task")
	})
	if _, err := s.CancelTask(ctx, "t1"); !errors.Is(err, client.ErrTaskGone) || errors.As(err, &refused) {
		t.Errorf("CancelTask of an unknown task: %v, want ErrTaskGone", err)
	}
}
