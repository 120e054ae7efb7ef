package server

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// The server as requestor: it asks the client to run sampling or elicitation as a task,
// polls the client's tasks/get at the interval the client suggests, and fetches the
// outcome with tasks/result.

// ClientTask is a task the server asked the client to run.
type ClientTask struct {
	s      *Session
	Method string
	// Created is the task as the client created it.
	Created mcp.Task
	// Immediate holds the answer of a client that ignored params.task and answered at
	// once, as the spec lets a client that declared no task support do.
	Immediate json.RawMessage
}

// ElicitTask sends elicitation/create as a task. Use [ClientTask.Wait] for the answer.
func (s *Session) ElicitTask(ctx context.Context, p *mcp.ElicitParams, ttl time.Duration) (*ClientTask, error) {
	cp := *p
	cp.Task = taskMetadata(ttl)
	return s.startClientTask(ctx, mcp.MethodElicitationCreate, &cp)
}

// CreateMessageTask sends sampling/createMessage as a task.
func (s *Session) CreateMessageTask(ctx context.Context, p *mcp.CreateMessageParams, ttl time.Duration) (*ClientTask, error) {
	cp := *p
	cp.Task = taskMetadata(ttl)
	return s.startClientTask(ctx, mcp.MethodSamplingCreateMessage, &cp)
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
		return nil, err
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
	ct.Created = created.Task
	return ct, nil
}

// Get asks the client for the task's state.
func (ct *ClientTask) Get(ctx context.Context) (mcp.Task, error) {
	var r mcp.GetTaskResult
	err := ct.s.conn.Call(ctx, mcp.MethodTasksGet, &mcp.GetTaskParams{TaskID: ct.Created.TaskID}, &r)
	return r.Task, err
}

// Cancel asks the client to cancel the task.
func (ct *ClientTask) Cancel(ctx context.Context) (mcp.Task, error) {
	var r mcp.CancelTaskResult
	err := ct.s.conn.Call(ctx, mcp.MethodTasksCancel, &mcp.CancelTaskParams{TaskID: ct.Created.TaskID}, &r)
	return r.Task, err
}

// Wait polls the task at the client's pollInterval (1s when it gives none) until it is
// terminal, then fetches the answer with tasks/result and decodes it into result. onPoll,
// if set, sees each state. A failed task yields the client's error.
func (ct *ClientTask) Wait(ctx context.Context, result any, onPoll func(mcp.Task)) error {
	if ct.Immediate != nil {
		return json.Unmarshal(ct.Immediate, result)
	}
	st := ct.Created
	for !st.Status.IsTerminal() {
		timer := time.NewTimer(st.PollDuration(time.Second))
		select {
		case <-ctx.Done():
			timer.Stop()
			return ctx.Err()
		case <-timer.C:
		}
		var err error
		if st, err = ct.Get(ctx); err != nil {
			return err
		}
		if onPoll != nil {
			onPoll(st)
		}
	}
	if st.Status == mcp.TaskStatusCancelled {
		return jsonrpc.Errorf(jsonrpc.CodeInternalError, "the client's task %s was cancelled", st.TaskID)
	}
	var raw json.RawMessage
	if err := ct.s.conn.Call(ctx, mcp.MethodTasksResult, &mcp.TaskResultParams{TaskID: st.TaskID}, &raw); err != nil {
		return err
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
