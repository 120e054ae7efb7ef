package server

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// The server as requestor: it asks the client to run sampling or elicitation as a task,
// polls the client's tasks/get at the interval the client suggests, and fetches the
// outcome with tasks/result. [ClientTask.Result] is the one follower of such a task.

// Poll intervals of the server's follower: DefaultClientPollInterval when the client
// suggests none, never more often than MinClientPollInterval and never less often than
// MaxClientPollInterval, whatever it suggests.
const (
	DefaultClientPollInterval = time.Second
	MinClientPollInterval     = time.Millisecond
	MaxClientPollInterval     = time.Minute
)

// ClientTask is a task the server asked the client to run. Its methods are safe for
// concurrent use.
type ClientTask struct {
	s      *Session
	Method string
	// Created is the task as the client created it.
	Created mcp.Task
	// Immediate holds the answer of a client that ignored params.task and answered at
	// once, as the spec lets a client that declared no task support do.
	Immediate json.RawMessage

	mu    sync.Mutex
	state mcp.Task
	polls int
}

// ClientTaskError is a request about a client task that failed: Method is the request
// (tasks/get or tasks/result), Err the client's error (a [*jsonrpc.Error]) or why there
// is none.
type ClientTaskError struct {
	TaskID string
	Method string
	Err    error
}

func (e *ClientTaskError) Error() string {
	return fmt.Sprintf("%s of the client's task %s: %v", e.Method, e.TaskID, e.Err)
}

func (e *ClientTaskError) Unwrap() error { return e.Err }

// ElicitTask sends elicitation/create as a task, to live ttl (0: as long as the client
// chooses). Use [ClientTask.Result] for the answer, which also gives the answer of a
// client that ignored the task and answered at once ([ClientTask.Immediate]). Only a
// client of 2025-11-25 that declared elicitation tasks (tasks.requests.elicitation.create)
// is sent one; for any other, 2026-07-28 clients included (that era has no tasks on the
// client), nothing is sent and the error is -32600.
func (s *Session) ElicitTask(ctx context.Context, p *mcp.ElicitParams, ttl time.Duration) (*ClientTask, error) {
	cp := *p
	cp.Task = taskMetadata(ttl)
	return s.startClientTask(ctx, mcp.MethodElicitationCreate, &cp)
}

// CreateMessageTask sends sampling/createMessage as a task, as [Session.ElicitTask] does
// elicitation/create.
func (s *Session) CreateMessageTask(ctx context.Context, p *mcp.CreateMessageParams, ttl time.Duration) (*ClientTask, error) {
	cp := *p
	cp.Task = taskMetadata(ttl)
	return s.startClientTask(ctx, mcp.MethodSamplingCreateMessage, &cp)
}

// ClientTask is a handle on the client's task id that the server already knows (from
// [Session.ListClientTasks], say), to poll, cancel or follow it.
func (s *Session) ClientTask(id string) *ClientTask {
	st := mcp.Task{TaskID: id}
	return &ClientTask{s: s, Created: st, state: st}
}

func taskMetadata(ttl time.Duration) *mcp.TaskMetadata {
	if ttl <= 0 {
		return &mcp.TaskMetadata{}
	}
	ms := ttl.Milliseconds()
	return &mcp.TaskMetadata{TTL: &ms}
}

func (s *Session) startClientTask(ctx context.Context, method string, params any) (*ClientTask, error) {
	if !s.ClientCapabilities().Tasks.SupportsRequest(method) {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "the client does not accept %s as a task", method)
	}
	var raw json.RawMessage
	if err := s.conn.Call(ctx, method, params, &raw); err != nil {
		return nil, unreadableAnswer(method, err)
	}
	ct := &ClientTask{s: s, Method: method}
	if !mcp.IsCreateTaskResult(raw) {
		ct.Immediate = raw
		return ct, nil
	}
	var created mcp.CreateTaskResult
	if err := json.Unmarshal(raw, &created); err != nil {
		return nil, fmt.Errorf("decoding the client's CreateTaskResult: %w", err)
	}
	ct.Created, ct.state = created.Task, created.Task
	return ct, nil
}

// State is the task as the client last reported it.
func (ct *ClientTask) State() mcp.Task {
	ct.mu.Lock()
	defer ct.mu.Unlock()
	return ct.state
}

// Polls counts the tasks/get the server has sent for the task.
func (ct *ClientTask) Polls() int {
	ct.mu.Lock()
	defer ct.mu.Unlock()
	return ct.polls
}

// PollInterval is how long the follower waits between two polls: the client's
// pollInterval, bounded below by [MinClientPollInterval] and above by
// [MaxClientPollInterval] and the task's ttl (a client may suggest any int64 of
// milliseconds, centuries included).
func (ct *ClientTask) PollInterval() time.Duration {
	st := ct.State()
	d := min(st.PollDuration(DefaultClientPollInterval), MaxClientPollInterval)
	if st.TTL != nil {
		d = min(d, mcp.Milliseconds(*st.TTL))
	}
	return max(d, MinClientPollInterval)
}

// Get asks the client for the task's state.
func (ct *ClientTask) Get(ctx context.Context) (mcp.Task, error) {
	ct.mu.Lock()
	ct.polls++
	ct.mu.Unlock()
	var r mcp.GetTaskResult
	if err := ct.s.conn.Call(ctx, mcp.MethodTasksGet, &mcp.GetTaskParams{TaskID: ct.Created.TaskID}, &r); err != nil {
		return mcp.Task{}, err
	}
	ct.observe(r.Task)
	return r.Task, nil
}

// Cancel asks the client to cancel the task.
func (ct *ClientTask) Cancel(ctx context.Context) (mcp.Task, error) {
	var r mcp.CancelTaskResult
	if err := ct.s.conn.Call(ctx, mcp.MethodTasksCancel, &mcp.CancelTaskParams{TaskID: ct.Created.TaskID}, &r); err != nil {
		return mcp.Task{}, err
	}
	ct.observe(r.Task)
	return r.Task, nil
}

func (ct *ClientTask) observe(st mcp.Task) {
	ct.mu.Lock()
	defer ct.mu.Unlock()
	if ct.state.Status.IsTerminal() && !st.Status.IsTerminal() {
		return // an older answer, handled late: a terminal state never changes
	}
	ct.state = st
}

// Result follows the task to its outcome and decodes the client's answer into result
// (an [*mcp.ElicitResult], an [*mcp.CreateMessageResult], or a [*json.RawMessage] for
// the exact bytes): it polls tasks/get at [ClientTask.PollInterval] until the task is
// terminal, then fetches the outcome with tasks/result. A request that fails gives a
// [*ClientTaskError] naming it, with the client's error (a cancelled or failed task
// gives the error its tasks/result answers); the end of ctx gives ctx's error.
func (ct *ClientTask) Result(ctx context.Context, result any) error {
	if ct.Immediate != nil {
		return json.Unmarshal(ct.Immediate, result)
	}
	id := ct.Created.TaskID
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for st := ct.State(); !st.Status.IsTerminal(); {
		timer.Reset(ct.PollInterval())
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
		}
		var err error
		if st, err = ct.Get(ctx); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return &ClientTaskError{TaskID: id, Method: mcp.MethodTasksGet, Err: err}
		}
	}
	var raw json.RawMessage
	if err := ct.s.conn.Call(ctx, mcp.MethodTasksResult, &mcp.TaskResultParams{TaskID: id}, &raw); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &ClientTaskError{TaskID: id, Method: mcp.MethodTasksResult, Err: err}
	}
	return json.Unmarshal(raw, result)
}

// ListClientTasks returns one page of the tasks the client holds for this server.
func (s *Session) ListClientTasks(ctx context.Context, cursor string) (*mcp.ListTasksResult, error) {
	if !s.ClientCapabilities().Tasks.SupportsList() {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "the client does not offer tasks/list")
	}
	var r mcp.ListTasksResult
	if err := s.conn.Call(ctx, mcp.MethodTasksList, &mcp.ListTasksParams{Cursor: cursor}, &r); err != nil {
		return nil, err
	}
	return &r, nil
}
