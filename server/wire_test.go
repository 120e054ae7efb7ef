package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"testing"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/tasks"
	"github.com/mcpi-dev/mcpi/transport"
)

// recorder keeps every byte the server writes.
type recorder struct {
	mu  sync.Mutex
	buf bytes.Buffer
	w   io.WriteCloser
}

func (r *recorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	r.buf.Write(p)
	r.mu.Unlock()
	return r.w.Write(p)
}

func (r *recorder) Close() error { return r.w.Close() }

func (r *recorder) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.buf.String()
}

// TestResultsAreNotHTMLEscapedOnTheWire: markup in a tool result reaches the client as
// written, whether the tool runs plainly or as a task.
func TestResultsAreNotHTMLEscapedOnTheWire(t *testing.T) {
	const text = "<b>&</b>"
	srv := server.New(mcp.Implementation{Name: "wire", Version: "1"}, &server.Options{Tasks: &tasks.Options{}})
	defer srv.Close()
	srv.AddTool(&mcp.Tool{Name: "markup", Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(text)}}, nil
		})

	toServer, fromClient := io.Pipe()
	fromServer, toClient := io.Pipe()
	rec := &recorder{w: toClient}
	srv.Connect(t.Context(), transport.NewStream(toServer, rec, 0))
	c := jsonrpc.NewConn(transport.NewStream(fromServer, fromClient, 0), jsonrpc.Options{})
	defer c.Close()
	ctx := t.Context()
	if err := c.Call(ctx, mcp.MethodInitialize, &mcp.InitializeParams{ProtocolVersion: mcp.LatestProtocolVersion}, nil); err != nil {
		t.Fatal(err)
	}

	var plain mcp.CallToolResult
	if err := c.Call(ctx, mcp.MethodToolsCall, &mcp.CallToolParams{Name: "markup"}, &plain); err != nil {
		t.Fatal(err)
	}
	var created mcp.CreateTaskResult
	if err := c.Call(ctx, mcp.MethodToolsCall, &mcp.CallToolParams{Name: "markup", Task: &mcp.TaskMetadata{}}, &created); err != nil {
		t.Fatal(err)
	}
	var viaTask json.RawMessage
	if err := c.Call(ctx, mcp.MethodTasksResult, &mcp.TaskResultParams{TaskID: created.Task.TaskID}, &viaTask); err != nil {
		t.Fatal(err)
	}

	wire := rec.String()
	want := `{"content":[{"type":"text","text":"<b>&</b>"}]}`
	if !bytes.Contains([]byte(wire), []byte(`"result":`+want)) {
		t.Errorf("the plain result is not on the wire as %s:\n%s", want, wire)
	}
	wantTask := `{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"` + created.Task.TaskID + `"}},"content":[{"type":"text","text":"<b>&</b>"}]}`
	if !bytes.Contains([]byte(wire), []byte(`"result":`+wantTask)) {
		t.Errorf("the task's result is not on the wire as %s:\n%s", wantTask, wire)
	}
	if bytes.Contains([]byte(wire), []byte(`\u003c`)) || bytes.Contains([]byte(wire), []byte(`\u0026`)) {
		t.Errorf("HTML escaped on the wire:\n%s", wire)
	}
}

// TestUnencodableTaskResult: a task whose result cannot be encoded fails with the error
// json.Marshal gives for it.
func TestUnencodableTaskResult(t *testing.T) {
	bad := &mcp.CallToolResult{Meta: mcp.Meta{"c": make(chan int)}}
	srv := server.New(mcp.Implementation{Name: "bad", Version: "1"}, &server.Options{Tasks: &tasks.Options{}})
	defer srv.Close()
	srv.AddTool(&mcp.Tool{Name: "bad", Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) { return bad, nil })
	c := rawSession(t, srv)
	ctx := t.Context()
	var created mcp.CreateTaskResult
	if err := c.Call(ctx, mcp.MethodToolsCall, &mcp.CallToolParams{Name: "bad", Task: &mcp.TaskMetadata{}}, &created); err != nil {
		t.Fatal(err)
	}
	err := c.Call(ctx, mcp.MethodTasksResult, &mcp.TaskResultParams{TaskID: created.Task.TaskID}, nil)
	_, jsonErr := json.Marshal(bad)
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Message != "encoding the result: "+jsonErr.Error() {
		t.Errorf("tasks/result: %v, want the message %q", err, "encoding the result: "+jsonErr.Error())
	}
}
