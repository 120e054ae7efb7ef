package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/transport"
)

// Requestor tasks against a scripted server: a raw JSON-RPC peer over an in-memory pipe,
// which sends exactly what each test needs, in the order it needs, including what a
// correct server never sends.

const rawTool = "remote"

// rawPeer is the scripted server. handle answers tools/call and tasks/*; initialize and
// tools/list are answered here (the server declares tool tasks, its tool is optional).
type rawPeer struct {
	conn   *jsonrpc.Conn
	handle func(ctx context.Context, p *rawPeer, req *jsonrpc.Request) (any, error)
}

// connectRaw connects a client session to a scripted server.
func connectRaw(t *testing.T, ctx context.Context, opts *client.Options, handle func(ctx context.Context, p *rawPeer, req *jsonrpc.Request) (any, error)) (*client.Session, *rawPeer) {
	t.Helper()
	p := &rawPeer{handle: handle}
	ready := make(chan struct{})
	tr := transport.PipeTransport{Serve: func(ctx context.Context, conn jsonrpc.Connection) error {
		p.conn = jsonrpc.NewConn(conn, jsonrpc.Options{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			<-ready
			switch req.Method {
			case mcp.MethodInitialize:
				return json.RawMessage(`{"protocolVersion":"2025-11-25","serverInfo":{"name":"raw","version":"0"},` +
					`"capabilities":{"tools":{},"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}}}`), nil
			case mcp.NotificationInitialized:
				return nil, nil
			case mcp.MethodPing:
				return struct{}{}, nil
			case mcp.MethodToolsList:
				return json.RawMessage(`{"tools":[{"name":"` + rawTool + `","inputSchema":{"type":"object"},"execution":{"taskSupport":"optional"}}]}`), nil
			}
			if req.IsNotification() {
				return nil, nil
			}
			return p.handle(ctx, p, req)
		})})
		close(ready)
		return nil
	}}
	c := client.New(mcp.Implementation{Name: "mcpi-e2e", Version: "0"}, taskClient(opts))
	s, err := c.Connect(ctx, tr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.Close()
		p.conn.Close()
	})
	return s, p
}

// rawTask is a task state as the scripted server reports it.
func rawTask(id string, status mcp.TaskStatus, msg string, pollMs int64) mcp.Task {
	now := mcp.FormatTime(time.Now())
	ttl := int64(60000)
	task := mcp.Task{TaskID: id, Status: status, StatusMessage: msg, CreatedAt: now, LastUpdatedAt: now, TTL: &ttl}
	if pollMs > 0 {
		task.PollInterval = &pollMs
	}
	return task
}

func (p *rawPeer) notifyStatus(t *testing.T, ctx context.Context, task mcp.Task) {
	t.Helper()
	if err := p.conn.Notify(ctx, mcp.NotificationTasksStatus, &mcp.TaskStatusNotificationParams{Task: task}); err != nil {
		t.Error(err)
	}
}

// toolResult is the CallToolResult the scripted server's tasks end with.
func toolResult(id, text string) json.RawMessage {
	r := &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(text)}}
	r.Meta.SetRelatedTask(id)
	raw, _ := json.Marshal(r)
	return raw
}

// TestRawTaskStatusBeforeCreateTaskResult: the server's notification that the task has
// completed overtakes its CreateTaskResult. The client keeps it, applies it once the task
// is known, and fetches the result without a single poll (the server suggests polling
// once an hour).
func TestRawTaskStatusBeforeCreateTaskResult(t *testing.T) {
	ctx := testContext(t)
	const id = "early-task"
	var gets atomic.Int32
	s, _ := connectRaw(t, ctx, nil, func(ctx context.Context, p *rawPeer, req *jsonrpc.Request) (any, error) {
		switch req.Method {
		case mcp.MethodToolsCall:
			// Written before the response, on the same stream: it arrives first.
			p.notifyStatus(t, ctx, rawTask(id, mcp.TaskStatusCompleted, "finished early", 3600000))
			return &mcp.CreateTaskResult{Task: rawTask(id, mcp.TaskStatusWorking, "", 3600000)}, nil
		case mcp.MethodTasksGet:
			gets.Add(1)
			return &mcp.GetTaskResult{Task: rawTask(id, mcp.TaskStatusCompleted, "finished early", 3600000)}, nil
		case mcp.MethodTasksResult:
			return toolResult(id, "early result"), nil
		}
		return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "%s", req.Method)
	})
	evs := collect(s.CallToolTask(ctx, &mcp.CallToolParams{Name: rawTool}, nil))
	end := outcome(t, evs)
	if end.Kind != client.TaskResult || onlyText(t, end.Result) != "early result" {
		t.Fatalf("outcome %s %+v %v", end.Kind, end.Result, end.Err)
	}
	if st := end.Task.State(); st.Status != mcp.TaskStatusCompleted || st.StatusMessage != "finished early" {
		t.Errorf("state %+v, want the early notification's", st)
	}
	if n := gets.Load(); n != 0 {
		t.Errorf("%d tasks/get: the early notification should have been enough", n)
	}
	if evs[0].Kind != client.TaskCreated || evs[0].State.Status != mcp.TaskStatusWorking {
		t.Errorf("first event %s %s, want created, working", evs[0].Kind, evs[0].State.Status)
	}
}

// TestRawTerminalStatusChangeIgnored: a server that reports a status change after a
// terminal one (a server bug) cannot move the task out of its terminal status.
func TestRawTerminalStatusChangeIgnored(t *testing.T) {
	ctx := testContext(t)
	const id = "fickle-task"
	s, p := connectRaw(t, ctx, nil, func(ctx context.Context, p *rawPeer, req *jsonrpc.Request) (any, error) {
		switch req.Method {
		case mcp.MethodToolsCall:
			return &mcp.CreateTaskResult{Task: rawTask(id, mcp.TaskStatusWorking, "", 3600000)}, nil
		case mcp.MethodTasksGet:
			return &mcp.GetTaskResult{Task: rawTask(id, mcp.TaskStatusWorking, "says the poll", 3600000)}, nil
		case mcp.MethodTasksResult:
			return toolResult(id, "final"), nil
		}
		return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "%s", req.Method)
	})
	sub := s.Subscribe()
	defer sub.Close()
	task, err := s.StartToolTask(ctx, &mcp.CallToolParams{Name: rawTool}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p.notifyStatus(t, ctx, rawTask(id, mcp.TaskStatusCompleted, "done", 3600000))
	if _, err := task.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	p.notifyStatus(t, ctx, rawTask(id, mcp.TaskStatusWorking, "working again?", 3600000))
	p.notifyStatus(t, ctx, rawTask(id, mcp.TaskStatusFailed, "failed after all?", 3600000))
	// Notifications are handled in order, before the response to a later request.
	if err := s.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	if st := task.State(); st.Status != mcp.TaskStatusCompleted || st.StatusMessage != "done" {
		t.Errorf("state %+v, want completed \"done\"", st)
	}
	terminal := false
	for _, e := range drain(sub) {
		if te, ok := e.(*client.TaskEvent); ok && te.Kind == client.TaskStatus {
			if terminal {
				t.Errorf("a status event after the terminal one: %s %q", te.State.Status, te.State.StatusMessage)
			}
			terminal = te.State.Status.IsTerminal()
		}
	}
	if !terminal {
		t.Error("no terminal status event")
	}
	if res, err := task.Outcome(); err != nil || onlyText(t, res) != "final" {
		t.Errorf("outcome %+v, %v", res, err)
	}
}

// TestRawPollingWithoutNotifications: a server that sends no status notification at all;
// the client follows the task by polling at its pollInterval, its tasks/result sent at
// creation held until the task ends, as the spec has it (the task ends at the third
// poll here).
func TestRawPollingWithoutNotifications(t *testing.T) {
	ctx := testContext(t)
	const id = "quiet-task"
	var gets atomic.Int32
	ended := make(chan struct{})
	s, _ := connectRaw(t, ctx, nil, func(ctx context.Context, p *rawPeer, req *jsonrpc.Request) (any, error) {
		switch req.Method {
		case mcp.MethodToolsCall:
			return &mcp.CreateTaskResult{Task: rawTask(id, mcp.TaskStatusWorking, "", 5)}, nil
		case mcp.MethodTasksGet:
			switch n := gets.Add(1); {
			case n < 3:
				return &mcp.GetTaskResult{Task: rawTask(id, mcp.TaskStatusWorking, "", 5)}, nil
			case n == 3:
				close(ended)
			}
			return &mcp.GetTaskResult{Task: rawTask(id, mcp.TaskStatusCompleted, "", 5)}, nil
		case mcp.MethodTasksResult:
			select {
			case <-ended:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return toolResult(id, "polled"), nil
		}
		return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "%s", req.Method)
	})
	end := outcome(t, collect(s.CallToolTask(ctx, &mcp.CallToolParams{Name: rawTool}, nil)))
	if end.Kind != client.TaskResult || onlyText(t, end.Result) != "polled" {
		t.Fatalf("outcome %s %+v %v", end.Kind, end.Result, end.Err)
	}
	if n := gets.Load(); n != 3 || end.Task.Polls() != 3 {
		t.Errorf("%d tasks/get received, %d polls counted; want 3", n, end.Task.Polls())
	}
}

// TestRawServerRejectsUndeclaredTask: some servers (the TypeScript SDK) answer a task they
// do not support with -32603 instead of running the call; the client reports that error.
func TestRawServerRejectsUndeclaredTask(t *testing.T) {
	ctx := testContext(t)
	s, _ := connectRaw(t, ctx, nil, func(ctx context.Context, p *rawPeer, req *jsonrpc.Request) (any, error) {
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "does not support task creation")
	})
	_, err := s.StartToolTask(ctx, &mcp.CallToolParams{Name: rawTool}, nil)
	if rpcCode(err) != jsonrpc.CodeInternalError {
		t.Fatalf("StartToolTask: %v, want the server's -32603", err)
	}
	if len(s.Tasks()) != 0 {
		t.Errorf("a task was registered: %v", s.Tasks())
	}
	if err := s.Ping(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestRawTaskGoneWhileFollowed: the server forgets a task (a restart, an expired ttl):
// tasks/get says -32602, and the task is reported gone.
func TestRawTaskGoneWhileFollowed(t *testing.T) {
	ctx := testContext(t)
	const id = "vanishing-task"
	var mu sync.Mutex
	gone := false
	s, _ := connectRaw(t, ctx, nil, func(ctx context.Context, p *rawPeer, req *jsonrpc.Request) (any, error) {
		mu.Lock()
		defer mu.Unlock()
		switch req.Method {
		case mcp.MethodToolsCall:
			return &mcp.CreateTaskResult{Task: rawTask(id, mcp.TaskStatusWorking, "", 5)}, nil
		case mcp.MethodTasksGet:
			if gone {
				return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "task not found")
			}
			gone = true
			return &mcp.GetTaskResult{Task: rawTask(id, mcp.TaskStatusWorking, "", 5)}, nil
		}
		return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "%s", req.Method)
	})
	end := outcome(t, collect(s.CallToolTask(ctx, &mcp.CallToolParams{Name: rawTool}, nil)))
	if end.Kind != client.TaskGone {
		t.Fatalf("outcome %s %v, want gone", end.Kind, end.Err)
	}
	if err := s.Ping(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestRawInputBeforeCreateTaskResult: the server asks for input of a task before its
// CreateTaskResult reaches the client (the spec allows a new task to be input_required
// at once); the request still reaches the task's events, after its created event, and
// the answer lets the task end. A request that came for a task not yet registered used
// to reach the session's queue alone, and a caller following the task waited for it.
func TestRawInputBeforeCreateTaskResult(t *testing.T) {
	ctx := testContext(t)
	const id = "eager-task"
	answered := make(chan struct{})
	s, _ := connectRaw(t, ctx, nil, func(ctx context.Context, p *rawPeer, req *jsonrpc.Request) (any, error) {
		switch req.Method {
		case mcp.MethodToolsCall:
			var meta mcp.Meta
			meta.SetRelatedTask(id)
			params := &mcp.ElicitParams{Meta: meta, Message: "Name?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)}
			// Written before the answer below, on the same pipe: it arrives first.
			if err := p.conn.Go(context.Background(), mcp.MethodElicitationCreate, params, func(json.RawMessage, error) { close(answered) }); err != nil {
				return nil, err
			}
			return &mcp.CreateTaskResult{Task: rawTask(id, mcp.TaskStatusInputRequired, "", 3600000)}, nil
		case mcp.MethodTasksGet:
			return &mcp.GetTaskResult{Task: rawTask(id, mcp.TaskStatusInputRequired, "", 3600000)}, nil
		case mcp.MethodTasksResult:
			select {
			case <-answered:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return toolResult(id, "thanks"), nil
		}
		return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "%s", req.Method)
	})
	var kinds []client.TaskEventKind
	var end client.TaskEvent
	for e := range s.CallToolTask(ctx, &mcp.CallToolParams{Name: rawTool}, nil) {
		kinds = append(kinds, e.Kind)
		switch {
		case e.Kind == client.TaskInput:
			if e.Request.Elicitation == nil || e.Request.RelatedTask != id {
				t.Fatalf("input %+v", e.Request)
			}
			if err := e.Request.Accept(map[string]any{"name": "Ada"}); err != nil {
				t.Fatal(err)
			}
		case e.Kind.IsOutcome():
			end = e
		}
	}
	if len(kinds) == 0 || kinds[0] != client.TaskCreated || !slices.Contains(kinds, client.TaskInput) {
		t.Fatalf("events %v, want created first, and the input", kinds)
	}
	if end.Kind != client.TaskResult || onlyText(t, end.Result) != "thanks" {
		t.Fatalf("outcome %s %+v %v", end.Kind, end.Result, end.Err)
	}
}

// TestRawEarlyResultErrors: the tasks/result the client sends as a task is created gets
// an error while the task works. A tasks/get tells what it was: the server refusing to
// hold the request (the task is then followed by polls to its end, and its result
// fetched again), or the task's own JSON-RPC error (the outcome). A server that answers
// -32601 is not asked so again in the session; a request that got no answer (a stream
// cut short) leaves the task to its polls too.
func TestRawEarlyResultErrors(t *testing.T) {
	type script struct {
		name string
		// early answers the first tasks/result; state answers tasks/get after it.
		early  *jsonrpc.Error
		failed bool
	}
	for _, c := range []script{
		{name: "refused", early: jsonrpc.NewError(jsonrpc.CodeInternalError, "not now")},
		{name: "the task's own error", early: jsonrpc.NewError(-32050, "the work failed"), failed: true},
		{name: "no such method", early: jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "tasks/result")},
		// What the HTTP transport reports for a response stream cut short.
		{name: "no answer", early: jsonrpc.NewError(jsonrpc.CodeConnectionClosed, "the response stream ended")},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := testContext(t)
			var results, gets atomic.Int32
			var calls atomic.Int32
			s, _ := connectRaw(t, ctx, nil, func(ctx context.Context, p *rawPeer, req *jsonrpc.Request) (any, error) {
				var p0 struct {
					TaskID string `json:"taskId"`
				}
				_ = json.Unmarshal(req.Params, &p0)
				switch req.Method {
				case mcp.MethodToolsCall:
					id := fmt.Sprintf("task-%d", calls.Add(1))
					return &mcp.CreateTaskResult{Task: rawTask(id, mcp.TaskStatusWorking, "", 5)}, nil
				case mcp.MethodTasksGet:
					n := gets.Add(1)
					switch {
					case c.failed:
						return &mcp.GetTaskResult{Task: rawTask(p0.TaskID, mcp.TaskStatusFailed, "the work failed", 5)}, nil
					case n < 3:
						return &mcp.GetTaskResult{Task: rawTask(p0.TaskID, mcp.TaskStatusWorking, "", 5)}, nil
					}
					return &mcp.GetTaskResult{Task: rawTask(p0.TaskID, mcp.TaskStatusCompleted, "", 5)}, nil
				case mcp.MethodTasksResult:
					if results.Add(1) == 1 || c.failed {
						return nil, c.early
					}
					return toolResult(p0.TaskID, "fetched again"), nil
				}
				return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "%s", req.Method)
			})
			end := outcome(t, collect(s.CallToolTask(ctx, &mcp.CallToolParams{Name: rawTool}, nil)))
			if c.failed {
				var rpcErr *jsonrpc.Error
				if end.Kind != client.TaskError || !errors.As(end.Err, &rpcErr) || rpcErr.Code != -32050 {
					t.Fatalf("outcome %s %v, want the task's error -32050", end.Kind, end.Err)
				}
				if st := end.Task.State().Status; st != mcp.TaskStatusFailed {
					t.Errorf("status %s, want failed", st)
				}
				return
			}
			if end.Kind != client.TaskResult || onlyText(t, end.Result) != "fetched again" {
				t.Fatalf("outcome %s %+v %v, want the result fetched after the polls", end.Kind, end.Result, end.Err)
			}
			if n := gets.Load(); n < 3 {
				t.Errorf("%d tasks/get, want the task polled to its end", n)
			}
			if c.early.Code != jsonrpc.CodeMethodNotFound {
				return
			}
			// A second task: no early tasks/result, only the one after its end.
			results.Store(1)
			gets.Store(0)
			end = outcome(t, collect(s.CallToolTask(ctx, &mcp.CallToolParams{Name: rawTool}, nil)))
			if end.Kind != client.TaskResult || results.Load() != 2 {
				t.Errorf("second task: %s, %d tasks/result; want its result from the one tasks/result after its end", end.Kind, results.Load()-1)
			}
		})
	}
}
