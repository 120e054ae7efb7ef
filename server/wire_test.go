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

// recordedSession connects a client to srv over pipes and initializes it; the recorder
// keeps what the server writes.
func recordedSession(t *testing.T, srv *server.Server) (*jsonrpc.Conn, *recorder) {
	t.Helper()
	toServer, fromClient := io.Pipe()
	fromServer, toClient := io.Pipe()
	rec := &recorder{w: toClient}
	srv.Connect(t.Context(), transport.NewStream(toServer, rec, 0))
	c := jsonrpc.NewConn(transport.NewStream(fromServer, fromClient, 0), jsonrpc.Options{})
	t.Cleanup(func() { c.Close() })
	if err := c.Call(t.Context(), mcp.MethodInitialize, &mcp.InitializeParams{ProtocolVersion: mcp.LatestProtocolVersion}, nil); err != nil {
		t.Fatal(err)
	}
	return c, rec
}

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

	c, rec := recordedSession(t, srv)
	ctx := t.Context()

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

// TestTaskToolPanics: a tool that panics as a task of 2025-11-25 fails its task with an
// internal error (it used to take the server's process down: the work ran with nothing
// to recover it), and the session goes on; a tool that blocks as a task does not hold up
// the answer of its call.
func TestTaskToolPanics(t *testing.T) {
	srv := server.New(mcp.Implementation{Name: "p", Version: "1"}, &server.Options{Tasks: &tasks.Options{}})
	defer srv.Close()
	optional := &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}
	srv.AddTool(&mcp.Tool{Name: "boom", Execution: optional},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) { panic("boom") })
	release := make(chan struct{})
	srv.AddTool(&mcp.Tool{Name: "held", Execution: optional},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			<-release
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("released")}}, nil
		})
	c := rawSession(t, srv)
	ctx := t.Context()

	var held mcp.CreateTaskResult
	if err := c.Call(ctx, mcp.MethodToolsCall, &mcp.CallToolParams{Name: "held", Task: &mcp.TaskMetadata{}}, &held); err != nil {
		t.Fatal(err)
	}
	var created mcp.CreateTaskResult
	if err := c.Call(ctx, mcp.MethodToolsCall, &mcp.CallToolParams{Name: "boom", Task: &mcp.TaskMetadata{}}, &created); err != nil {
		t.Fatal(err)
	}
	err := c.Call(ctx, mcp.MethodTasksResult, &mcp.TaskResultParams{TaskID: created.Task.TaskID}, nil)
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInternalError {
		t.Fatalf("tasks/result of the panicking task: %v, want an internal error", err)
	}
	var got mcp.GetTaskResult
	if err := c.Call(ctx, mcp.MethodTasksGet, &mcp.GetTaskParams{TaskID: created.Task.TaskID}, &got); err != nil || got.Task.Status != mcp.TaskStatusFailed {
		t.Fatalf("tasks/get: %+v, %v; want failed", got.Task, err)
	}
	close(release)
	var res mcp.CallToolResult
	if err := c.Call(ctx, mcp.MethodTasksResult, &mcp.TaskResultParams{TaskID: held.Task.TaskID}, &res); err != nil || len(res.Content) != 1 || res.Content[0].Text != "released" {
		t.Fatalf("the held task after the panic: %+v, %v", res, err)
	}
}

// TestCreateTaskResultBeforeItsNews: the work of a task of 2025-11-25 runs where its call
// was handled, after the CreateTaskResult is written, so no status notification of the
// task reaches the client before the answer that names it, however quick the tool
// (before, the work ran on another goroutine and its end could overtake the answer).
func TestCreateTaskResultBeforeItsNews(t *testing.T) {
	const n = 300
	srv := server.New(mcp.Implementation{Name: "order", Version: "1"}, &server.Options{Tasks: &tasks.Options{MaxActive: n}})
	defer srv.Close()
	srv.AddTool(&mcp.Tool{Name: "instant", Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("done")}}, nil
		})
	c, rec := recordedSession(t, srv)
	ctx := t.Context()
	ids := make(chan string, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			var created mcp.CreateTaskResult
			if err := c.Call(ctx, mcp.MethodToolsCall, &mcp.CallToolParams{Name: "instant", Task: &mcp.TaskMetadata{}}, &created); err != nil {
				t.Error(err)
				return
			}
			if err := c.Call(ctx, mcp.MethodTasksResult, &mcp.TaskResultParams{TaskID: created.Task.TaskID}, nil); err != nil {
				t.Error(err)
			}
			ids <- created.Task.TaskID
		})
	}
	wg.Wait()
	close(ids)

	answered := map[string]int{} // task id → line of its CreateTaskResult
	news := map[string]int{}     // task id → line of its first status notification
	for i, line := range bytes.Split([]byte(rec.String()), []byte("\n")) {
		var m struct {
			Method string `json:"method"`
			Params struct {
				TaskID string `json:"taskId"`
			} `json:"params"`
			Result struct {
				Task struct {
					TaskID string `json:"taskId"`
				} `json:"task"`
			} `json:"result"`
		}
		if len(line) == 0 || json.Unmarshal(line, &m) != nil {
			continue
		}
		if id := m.Result.Task.TaskID; id != "" {
			answered[id] = i
		}
		if id := m.Params.TaskID; m.Method == mcp.NotificationTasksStatus && id != "" {
			if _, seen := news[id]; !seen {
				news[id] = i
			}
		}
	}
	count := 0
	for id := range ids {
		count++
		a, ok := answered[id]
		first, notified := news[id]
		switch {
		case !ok:
			t.Errorf("task %s: no CreateTaskResult on the wire", id)
		case !notified:
			t.Errorf("task %s: no status notification", id)
		case first < a:
			t.Errorf("task %s: its status notification (line %d) came before its CreateTaskResult (line %d)", id, first, a)
		}
	}
	if count != n {
		t.Errorf("%d tasks, want %d", count, n)
	}
}
