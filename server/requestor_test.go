package server

import (
	"context"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/tasks"
	"github.com/mcpi-dev/mcpi/transport"
)

// A session that adopts a task and waits on its result before the server learns that the
// session which was asked the task's question has ended is the one asked next: the
// question went nowhere, and the task waited for ever, when that tasks/result came
// first (it did under load: client/TestInputLeftForTheNextSession hung).
func TestNextRequestorAlreadyWaiting(t *testing.T) {
	srv := New(mcp.Implementation{Name: "s", Version: "1"}, &Options{Tasks: &tasks.Options{}, AdoptOrphanTasks: true})
	defer srv.Close()
	handles := make(chan *tasks.Handle, 1)
	srv.AddTool(&mcp.Tool{Name: "ask", Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportRequired}},
		func(ctx context.Context, req *ToolRequest) (*mcp.CallToolResult, error) {
			h, _ := TaskFromContext(ctx)
			handles <- h
			<-ctx.Done()
			return nil, ctx.Err()
		})
	connect := func() (*Session, *jsonrpc.Conn) {
		a, b := transport.Pipe()
		ss := srv.Connect(context.Background(), a)
		c := jsonrpc.NewConn(b, jsonrpc.Options{})
		t.Cleanup(func() { c.Close() })
		params := &mcp.InitializeParams{ProtocolVersion: mcp.LatestProtocolVersion, ClientInfo: mcp.Implementation{Name: "t", Version: "1"}}
		if err := c.Call(t.Context(), mcp.MethodInitialize, params, &mcp.InitializeResult{}); err != nil {
			t.Fatal(err)
		}
		if err := c.Notify(t.Context(), mcp.NotificationInitialized, nil); err != nil {
			t.Fatal(err)
		}
		return ss, c
	}
	firstSession, first := connect()
	var created mcp.CreateTaskResult
	if err := first.Call(t.Context(), mcp.MethodToolsCall, &mcp.CallToolParams{Name: "ask", Task: &mcp.TaskMetadata{}}, &created); err != nil {
		t.Fatal(err)
	}
	h := <-handles
	first.Close()
	<-firstSession.Done()

	secondSession, second := connect()
	go second.Call(t.Context(), mcp.MethodTasksResult, &mcp.TaskResultParams{TaskID: created.Task.TaskID}, &mcp.CallToolResult{})
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if _, ok := h.AwaitRequestor(ctx); !ok {
		t.Fatal("the second session's tasks/result never waited on the task")
	}
	next, _ := srv.nextRequestor(ctx, h, firstSession)
	if next != secondSession {
		t.Fatalf("next requestor = %v, want the session already waiting on the task's result", next)
	}
}
