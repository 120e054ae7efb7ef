package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpi-dev/mcpi/internal/jsonwire"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// The Tasks extension of 2026-07-28 (io.modelcontextprotocol/tasks), requestor side.
// The server decides whether a tools/call becomes a task; tasks/get returns the task
// with its outcome inlined (result, error) or the input it waits for (inputRequests),
// which tasks/update answers; tasks/cancel is only acknowledged. The follower of
// follow.go drives these tasks too: this file holds what differs.

// ErrNoTaskList is the error of listing a server's tasks in the 2026-07-28 era: the Tasks
// extension has no tasks/list, so only the tasks a client was told of can be found again.
var ErrNoTaskList = errors.New("the Tasks extension of protocol 2026-07-28 has no tasks/list: a task is reached by its id alone")

// ErrNoTaskDetail is the error of [Session.TaskDetail] in the 2025-11-25 era, whose
// tasks/get inlines no outcome: [Session.TaskResult] fetches it there.
var ErrNoTaskDetail = errors.New("tasks/get inlines nothing in protocol 2025-11-25: use TaskResult")

// Dialect names the task protocol a task follows.
type Dialect string

// Dialects.
const (
	// DialectCore is the core Tasks of 2025-11-25: params.task, tasks/result.
	DialectCore Dialect = "2025-11-25"
	// DialectExtension is the Tasks extension of 2026-07-28: the server decides,
	// tasks/get inlines the outcome, tasks/update answers input.
	DialectExtension Dialect = "2026-07-28 extension"
)

// Dialect says which task protocol the task follows: its session's, which a call the
// server answered without a task (one with no ID) reports too.
func (t *Task) Dialect() Dialect {
	if t.ext || t.s.modern != nil {
		return DialectExtension
	}
	return DialectCore
}

// getDetail asks a server of the 2026-07-28 era for a task, with what its status
// inlines. A tasks/get result marked "task" instead of "complete" (as some examples of
// the extension have it) is taken all the same.
func (s *Session) getDetail(ctx context.Context, id string) (*mcp.DetailedTask, error) {
	var r mcp.ExtGetTaskResult
	if err := s.call(ctx, mcp.MethodTasksGet, &mcp.GetTaskParams{TaskID: id}, &r); err != nil {
		return nil, err
	}
	return checkDetail(id, &r)
}

// checkDetail checks that the tasks/get answer r is about task id.
func checkDetail(id string, r *mcp.ExtGetTaskResult) (*mcp.DetailedTask, error) {
	if r.TaskID == "" {
		return nil, fmt.Errorf("%s: the server's answer has no taskId", mcp.MethodTasksGet)
	}
	if r.TaskID != id {
		return nil, fmt.Errorf("%s: asked for task %s, the server answered with task %s", mcp.MethodTasksGet, id, r.TaskID)
	}
	return &r.DetailedTask, nil
}

// getExt is getDetail for a task's own poll (t): it also gives the number of
// notifications of t taken before the answer was read, as getCore does (getNoted).
func (s *Session) getExt(ctx context.Context, id string, t *Task) (*mcp.DetailedTask, uint64, error) {
	raw, err := s.modern.params(&mcp.GetTaskParams{TaskID: id}, true)
	if err != nil {
		return nil, noNotes, &jsonrpc.CallError{Method: mcp.MethodTasksGet, Op: jsonrpc.OpEncode, Err: err}
	}
	res, notes, err := s.getNoted(ctx, raw, t)
	if refusedOwnVersion(err, s.modern.version) {
		// A -32022 that names this session's version: asked again, once, as
		// exchangeModern does, without the notes.
		d, err := s.getDetail(ctx, id)
		return d, noNotes, err
	}
	if err != nil {
		return nil, noNotes, err
	}
	d, err := decodeDetail(id, res)
	if err != nil {
		return nil, noNotes, err
	}
	return d, notes, nil
}

// decodeDetail reads res, the result of a tasks/get for task id sent without
// exchangeModern, as exchangeModern and getDetail would.
func decodeDetail(id string, res json.RawMessage) (*mcp.DetailedTask, error) {
	if rt := mcp.ResultTypeOf(res); rt != mcp.ResultTypeComplete && rt != mcp.ResultTypeTask {
		return nil, &ResultTypeError{Method: mcp.MethodTasksGet, ResultType: rt}
	}
	var r mcp.ExtGetTaskResult
	if err := jsonwire.Unmarshal(res, &r); err != nil {
		return nil, &jsonrpc.CallError{Method: mcp.MethodTasksGet, Op: jsonrpc.OpDecode, Err: err}
	}
	return checkDetail(id, &r)
}

// TaskDetail returns a task of the 2026-07-28 era as tasks/get gives it, with its result,
// error or input requests inlined. A task the server does not know gives a
// [*TaskEndError] matching [ErrTaskGone] (and the server's -32602). In the 2025-11-25
// era, whose tasks/get inlines nothing, it sends nothing and fails with
// [ErrNoTaskDetail]: use [Session.TaskResult] there.
func (s *Session) TaskDetail(ctx context.Context, id string) (*mcp.DetailedTask, error) {
	if s.modern == nil {
		return nil, ErrNoTaskDetail
	}
	d, err := s.getDetail(ctx, id)
	return d, s.goneError(id, err)
}

// setDetail keeps the latest detailed state of an extension task, unless it is older
// than the one kept.
func (t *Task) setDetail(d *mcp.DetailedTask) { t.setDetailSince(d, noNotes) }

// setDetailSince is setDetail for a poll's answer read after notes notifications of the
// task: one that a notification taken since overtook is not kept (see observeSince).
func (t *Task) setDetailSince(d *mcp.DetailedTask, notes uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ended {
		return // its outcome is out; close let go of what following needed
	}
	if t.staleLocked(d.ToTask(), notes) {
		return
	}
	if t.detail != nil && t.detail.Status.IsTerminal() && (inlined(t.detail) || !d.Status.IsTerminal()) {
		return
	}
	if t.detail != nil && !d.Status.IsTerminal() && older(d.LastUpdatedAt, t.detail.LastUpdatedAt) {
		return
	}
	t.detail = d
}

// detailNotification routes notifications/tasks (a full detailed task) to its task.
func (s *Session) detailNotification(d *mcp.DetailedTask) {
	s.tasks.notified.Store(true)
	s.tasks.mu.Lock()
	t := s.tasks.byID[d.TaskID]
	if t == nil || !t.caughtUp {
		// Kept, as statusNotification keeps one: for the task's registration, or, once
		// registered, for its replay of those kept, which this one must not overtake.
		// (What it inlines is fetched again, should it be the end.)
		s.tasks.keepEarlyLocked(d.TaskID, d.ToTask(), t != nil)
		s.tasks.mu.Unlock()
		return
	}
	s.tasks.mu.Unlock()
	t.setDetail(d)
	t.observe(d.ToTask(), fromNotification)
}

// settleExt ends an extension task that reached completed or failed with its inlined
// outcome, fetching it first when the state came without one (a create result, or a
// notification that carries the task alone). It reports whether the task has ended.
func (t *Task) settleExt(ctx context.Context) bool {
	d := t.terminalDetail()
	if d == nil || !inlined(d) {
		st, err := t.get(ctx)
		switch {
		case errors.Is(err, jsonrpc.ErrInvalidParams):
			t.gone(&TaskEndError{TaskID: t.ID(), Reason: ErrTaskGone, Err: err})
			return true
		case t.outcomeRefused(err):
			return true
		case err != nil:
			t.s.log.Warn("tasks/get failed; retrying", "task", t.ID(), "error", err)
			return false
		}
		t.observe(st, fromAnswer)
		if d = t.terminalDetail(); d == nil {
			if d = t.disagreed(st.Status); d == nil {
				return false
			}
		}
	}
	t.finishExt(d)
	return true
}

// outcomeRefused ends a task that has ended, whose outcome tasks/get was to fetch, when
// the server answered it with a JSON-RPC error (err): as a task of 2025-11-25 ends with
// the error of its tasks/result, for nothing more can come of it. An error that is no
// answer (a timeout, the connection's end) is left to be retried. It reports whether the
// task has ended.
func (t *Task) outcomeRefused(err error) bool {
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) || t.s.conn.Err() != nil {
		return false
	}
	t.finish(nil, fmt.Errorf("task %s ended, but its outcome could not be fetched: %w", t.ID(), err))
	return true
}

// disagreed returns the state of a task that has ended as its outcome, when got, the
// status the server's tasks/get gave since, is another: a terminal status never
// changes, so the server contradicts itself, and the status it told first stands,
// without the outcome it did not inline (finishExt says so). It returns nil otherwise.
func (t *Task) disagreed(got mcp.TaskStatus) *mcp.DetailedTask {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.state.Status.IsTerminal() || got == t.state.Status {
		return nil
	}
	t.s.log.Warn("server bug: tasks/get contradicts the task's end; ended without its outcome", "task", t.state.TaskID, "status", t.state.Status, "tasks/get", got)
	return &mcp.DetailedTask{ExtTask: mcp.ExtTaskFrom(t.state)}
}

// fetchDetailAsync asks for the detailed state of an extension task that has ended
// (claimed with the resulting flag), for the outcome its status inlines; the answer is
// settled where it is read (settleDetail).
func (t *Task) fetchDetailAsync(id string) {
	t.mu.Lock()
	t.polls++
	t.mu.Unlock()
	raw, err := t.s.modern.params(&mcp.GetTaskParams{TaskID: id}, true)
	if err != nil {
		err = &jsonrpc.CallError{Method: mcp.MethodTasksGet, Op: jsonrpc.OpEncode, Err: err}
	} else {
		// Bounded like any tasks/get: a server that never answers this one would
		// otherwise hold the task's claim, and the task, for ever.
		ctx, cancel, explain := t.s.deadline(context.Background(), mcp.MethodTasksGet)
		err = t.s.conn.GoNow(ctx, mcp.MethodTasksGet, raw, func(res json.RawMessage, err error) {
			err = explain(err) // before cancel, which would make any error a timeout's
			cancel()
			t.settleDetail(id, res, err)
		})
		if err != nil {
			cancel()
		}
	}
	if err != nil {
		t.settleDetail(id, nil, err)
	}
}

// settleDetail ends the extension task id with what res, the answer of
// fetchDetailAsync's tasks/get (or its error err), inlines. What it cannot settle
// without waiting (an error to retry, a state without its outcome) is left to a
// follower.
func (t *Task) settleDetail(id string, res json.RawMessage, err error) {
	var d *mcp.DetailedTask
	if err == nil {
		d, err = decodeDetail(id, res)
	}
	switch {
	case errors.Is(err, jsonrpc.ErrInvalidParams):
		t.gone(&TaskEndError{TaskID: id, Reason: ErrTaskGone, Err: err})
	case err != nil && t.s.conn.Err() != nil:
		// The session's end ends the task.
	case t.outcomeRefused(err):
	case err != nil:
		t.s.log.Warn("tasks/get failed; retrying", "task", id, "error", err)
	default:
		t.setDetail(d)
		t.observe(d.ToTask(), fromContinuation) // the claim keeps it from fetching again
		if end := t.terminalDetail(); end != nil {
			t.finishExt(end)
		} else if end := t.disagreed(d.Status); end != nil {
			t.finishExt(end)
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.resulting = false
	if !t.ended && t.s.conn.Err() == nil {
		t.startFollowerLocked(false)
	}
}

// finishExt ends an extension task with what d, its terminal detailed state, inlines.
func (t *Task) finishExt(d *mcp.DetailedTask) {
	switch d.Status {
	case mcp.TaskStatusCompleted:
		if len(d.Result) == 0 {
			t.finish(nil, fmt.Errorf("task %s completed, but the server's tasks/get has no result (a server bug)", d.TaskID))
			return
		}
		var res mcp.CallToolResult
		if err := res.UnmarshalJSON(d.Result); err != nil {
			t.finish(nil, &jsonrpc.CallError{Method: mcp.MethodTasksGet, Op: jsonrpc.OpDecode, Err: fmt.Errorf("the task's result: %w", err)})
			return
		}
		t.finish(&res, nil)
	case mcp.TaskStatusCancelled:
		t.finish(nil, &TaskEndError{TaskID: d.TaskID, Reason: ErrTaskCancelled, StatusMessage: d.StatusMessage})
	default: // failed
		if d.Error == nil {
			msg := d.StatusMessage
			if msg == "" {
				msg = "the server gave no error (a server bug)"
			}
			t.finish(nil, jsonrpc.NewError(jsonrpc.CodeInternalError, msg))
			return
		}
		t.finish(nil, &jsonrpc.Error{Code: int64(d.Error.Code), Message: d.Error.Message, Data: d.Error.Data})
	}
}

// inlined reports whether a detailed task carries what its terminal status inlines: the
// result of a completed task, the error of a failed one. A notification may carry the
// task alone (the extension's prose says Task, its schema DetailedTask).
func inlined(d *mcp.DetailedTask) bool {
	switch d.Status {
	case mcp.TaskStatusCompleted:
		return len(d.Result) > 0
	case mcp.TaskStatusFailed:
		return d.Error != nil
	}
	return true
}

// terminalDetail returns the kept detailed state if it is the terminal one.
func (t *Task) terminalDetail() *mcp.DetailedTask {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.terminalDetailLocked()
}

// terminalDetailLocked is terminalDetail with t.mu held.
func (t *Task) terminalDetailLocked() *mcp.DetailedTask {
	if t.detail != nil && t.detail.Status.IsTerminal() && t.detail.Status == t.state.Status {
		return t.detail
	}
	return nil
}

// answerExt answers the input an extension task waits for: each key once, through the
// pending queue, and sends the answers with tasks/update as they come. A request the
// user refuses cannot be sent back in this dialect: the task is cancelled and ends with
// the refusal.
func (t *Task) answerExt() {
	t.mu.Lock()
	d := t.detail
	if t.ended {
		t.mu.Unlock()
		return
	}
	if d == nil || d.Status != t.state.Status {
		// The state came without its input requests (a create result): tasks/get has
		// them.
		t.mu.Unlock()
		t.pollSoon()
		return
	}
	if t.inputs == nil {
		t.inputs = map[string]bool{}
	}
	fresh := map[string]mcp.InputRequest{}
	for k, in := range d.InputRequests {
		if !t.inputs[k] {
			t.inputs[k] = true
			fresh[k] = in
		}
	}
	t.asked += len(fresh)
	asked := t.asked
	resend := len(t.unsent) > 0
	id := t.state.TaskID
	t.mu.Unlock()
	if asked > MaxTaskInputs {
		// A server that asks for ever (new keys each poll, or answers refused again and
		// again) would keep the user answering: the task is given up.
		t.abandon(&AbandonedError{TaskID: id, Err: fmt.Errorf("it asked for input %d times; mcpi stopped answering", asked)})
		return
	}
	if resend {
		go t.sendUpdates()
	}
	for k, in := range fresh {
		t.s.tasks.followers.Go(func() {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() {
				select {
				case <-t.done:
				case <-t.s.conn.Done():
				case <-ctx.Done():
				}
				cancel()
			}()
			answers, err := t.s.answerInputs(ctx, map[string]mcp.InputRequest{k: in}, id)
			if err != nil {
				if ctx.Err() != nil {
					return // the task ended otherwise
				}
				t.s.log.Info("a task's input was not given; cancelling the task", "task", id, "error", err)
				t.abandon(&AbandonedError{TaskID: id, Err: err})
				return
			}
			t.mu.Lock()
			if t.unsent == nil {
				t.unsent = map[string]json.RawMessage{}
			}
			t.unsent[k] = answers[k]
			t.mu.Unlock()
			t.sendUpdates()
		})
	}
}

// AbandonedError ends a 2026-07-28 task this client gave up on and cancelled, Err saying
// why: input it could not give (an [*InputError]; the extension has no way to refuse
// one), or a server that asked for input too often.
type AbandonedError struct {
	TaskID string
	Err    error
	// CancelErr is the error of the tasks/cancel mcpi sent, when it failed: the task may
	// then still be running on the server.
	CancelErr error
}

func (e *AbandonedError) Error() string {
	return fmt.Sprintf("task %s: cancelled by the client: %v", e.TaskID, e.Err)
}

func (e *AbandonedError) Unwrap() error { return e.Err }

// abandon cancels a task mcpi gives up on, and ends it with why: the cancelled status
// the server reports meanwhile must not become the task's outcome in its place. The
// cancel is sent before the task ends, so a caller that closes the session as soon as
// the task ends does not leave it waiting on the server.
func (t *Task) abandon(why error) {
	t.mu.Lock()
	t.abandoned = why
	id := t.state.TaskID
	t.mu.Unlock()
	err := t.s.call(context.Background(), mcp.MethodTasksCancel, &mcp.CancelTaskParams{TaskID: id}, nil)
	if a, ok := why.(*AbandonedError); ok && err != nil {
		// A copy in its place: the error set in t.abandoned may be read meanwhile.
		c := *a
		c.CancelErr = err
		why = &c
		t.mu.Lock()
		t.abandoned = why
		t.mu.Unlock()
	}
	t.finish(nil, why)
}

// sendUpdates sends the answers not yet sent, in one tasks/update, then polls soon: the
// task moves on once the server has them. Answers that fail to go are kept for the next
// round.
func (t *Task) sendUpdates() {
	t.mu.Lock()
	batch, id := t.unsent, t.state.TaskID
	t.unsent = nil
	t.mu.Unlock()
	if len(batch) == 0 {
		return
	}
	err := t.s.call(context.Background(), mcp.MethodTasksUpdate, &mcp.UpdateTaskParams{TaskID: id, InputResponses: batch}, nil)
	switch {
	case errors.Is(err, jsonrpc.ErrInvalidParams):
		// A task the server does not know, one that no longer waits for input (some
		// servers say so of a task that ended), or answers it refused: tasks/get tells
		// which, and a key it still lists is asked again.
		t.s.log.Info("tasks/update refused; polling", "task", id, "error", err)
		t.mu.Lock()
		for k := range batch {
			delete(t.inputs, k)
		}
		t.mu.Unlock()
		t.pollSoon()
		return
	case err != nil:
		t.s.log.Warn("tasks/update failed; the answers are sent again with the next poll", "task", id, "error", err)
		t.mu.Lock()
		if t.unsent == nil {
			t.unsent = map[string]json.RawMessage{}
		}
		for k, v := range batch {
			if _, ok := t.unsent[k]; !ok {
				t.unsent[k] = v
			}
		}
		t.mu.Unlock()
		return
	}
	t.pollSoon()
}

// pollSoon has the follower poll at once rather than at the next interval (and starts
// one if the task has none).
func (t *Task) pollSoon() {
	t.mu.Lock()
	t.pollNow = true
	t.mu.Unlock()
	t.act(false)
}

// takePollNow reports, once, whether a poll was asked for by pollSoon.
func (t *Task) takePollNow() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.pollNow
	t.pollNow = false
	return p
}

// goneError makes -32602 for task id a [*TaskEndError] with [ErrTaskGone], which keeps
// the server's error for errors.As: the word of both eras for a task the server does not
// know (expired, or never made), in answer to a request whose one param is the id.
func (s *Session) goneError(id string, err error) error {
	if errors.Is(err, jsonrpc.ErrInvalidParams) && !errors.Is(err, ErrTaskGone) {
		return &TaskEndError{TaskID: id, Reason: ErrTaskGone, Err: err}
	}
	return err
}
