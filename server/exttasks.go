package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"runtime"
	"strings"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/tasks"
)

// The Tasks extension of 2026-07-28 (io.modelcontextprotocol/tasks), receiver side.
//
// With [Options.Tasks] and [Options.Modern] set, server/discover declares the extension
// and the server decides, call by call, whether a tools/call becomes a task; a request
// that did not declare the extension in its own _meta never gets one. Each tool has a
// [TaskPolicy]. The task runs on the same engine ([tasks.Manager]) as the tasks of
// 2025-11-25, under an owner of its own: a task made in one era cannot be reached from
// the other, and the error says so. tasks/get inlines the result, the error or the
// outstanding inputRequests; tasks/update brings answers; tasks/cancel is acknowledged.
// A handler asks for input with the same calls as ever ([Session.Inputs], Elicit, ...):
// inside a task they wait for tasks/update instead of answering input_required.

// TaskPolicy says when a tools/call of 2026-07-28 becomes a task.
type TaskPolicy int

const (
	// TaskPolicyAuto follows the tool's execution.taskSupport: required is
	// [TaskRequired], optional [TaskWhenSlow], forbidden or none [TaskNever].
	TaskPolicyAuto TaskPolicy = iota
	// TaskNever runs every call inline.
	TaskNever
	// TaskAlways makes a call a task at once when its request declared the extension
	// (input then goes through the task), and runs it inline otherwise. A task whose
	// work ends within a millisecond is reported ended in its CreateTaskResult.
	TaskAlways
	// TaskRequired makes every call a task at once, as TaskAlways does; a request without
	// the extension gets -32021.
	TaskRequired
	// TaskWhenSlow runs the call inline and makes it a task when it is not done within
	// [ToolOptions.TaskAfter]: quick calls answer at once, slow ones become tasks. Input
	// asked before that goes through MRTR (input_required), after it through the task.
	TaskWhenSlow
	// TaskAfterInput gathers input through MRTR rounds first, then always answers with a
	// task (a finished one if the work was quick). A request without the extension gets
	// -32021.
	TaskAfterInput
)

// DefaultTaskAfter is how long a [TaskWhenSlow] call runs inline before it becomes a
// task, unless [ToolOptions.TaskAfter] says otherwise.
const DefaultTaskAfter = 250 * time.Millisecond

// afterInputGrace is how long a [TaskAfterInput] call may take to ask for input through
// MRTR before it becomes a task.
const afterInputGrace = 100 * time.Millisecond

// modernOwnerPrefix begins the owner of every task made by a 2026-07-28 request. There is
// no session to bind such a task to. The owner is who made it, for the engine's caps
// and rate limit (MaxActive, RatePerSecond, the terminal tasks kept): over HTTP the
// caller's identity ([Options.TaskOwner], else the credentials the request carries in
// Authorization), else the address it came from; on stdio the connection. One client's
// burst then does not use up every other's share.
//
// A task made by a request with an identity is bound to it: requests without that same
// identity cannot reach it ([tasks.Manager.DeferBound]). Any other task is reached by
// whoever names its id, which carries 128 random bits and which no tasks/list reveals.
const modernOwnerPrefix = "2026-07-28 "

func isModernOwner(owner string) bool { return strings.HasPrefix(owner, modernOwnerPrefix) }

// remoteConn is the connection of a stateless HTTP request, which knows where it came from.
type remoteConn interface {
	Header() http.Header
	RemoteAddr() string
	HTTPRequest() *http.Request
}

// modernOwner is the owner of the tasks s makes and asks about in 2026-07-28, and
// whether its tasks are bound to it: they are when it is the caller's identity.
func (s *Session) modernOwner() (owner string, bound bool) {
	rc, ok := s.transport.(remoteConn)
	if !ok {
		return modernOwnerPrefix + "conn " + s.owner, false
	}
	if id := s.server.identity(rc.HTTPRequest()); id != "" {
		return modernOwnerPrefix + id, true
	}
	// A task made without an identity is not bound to the address it came from: the
	// client that fetches its outcome may well come from another (a CLI run again
	// later, over another connection, through another NAT address or IPv6 instead of
	// IPv4), and the address would lose it its task while protecting nothing that the
	// id, which only its maker was told, does not.
	host, _, err := net.SplitHostPort(rc.RemoteAddr())
	if err != nil {
		host = rc.RemoteAddr()
	}
	return modernOwnerPrefix + "addr " + host, false
}

// identity names the caller of an HTTP request: by [Options.TaskOwner] when set, else by
// its Authorization header; "" for a caller it names nobody. Hashed: it is kept with each
// task and shows in logs, and credentials must do neither.
func (s *Server) identity(r *http.Request) string {
	if f := s.opts.TaskOwner; f != nil {
		if id := f(r); id != "" {
			sum := sha256.Sum256([]byte(id))
			return "id " + hex.EncodeToString(sum[:12])
		}
	} else if auth := r.Header.Get("Authorization"); auth != "" {
		sum := sha256.Sum256([]byte(auth))
		return "auth " + hex.EncodeToString(sum[:12])
	}
	return ""
}

// atOnce reports whether the tool's calls are tasks at once, as startTaskAtOnce makes
// them.
func (t *tool) atOnce() bool {
	p := t.policy()
	return p == TaskAlways || p == TaskRequired
}

func (t *tool) policy() TaskPolicy {
	if t.opts.TaskPolicy != TaskPolicyAuto {
		return t.opts.TaskPolicy
	}
	switch t.def.TaskSupport() {
	case mcp.TaskSupportRequired:
		return TaskRequired
	case mcp.TaskSupportOptional:
		return TaskWhenSlow
	}
	return TaskNever
}

// extTask is a task of the extension as a handler's input round sees it: the engine
// keeps its input requests and their answers in the task's own record
// ([tasks.Handle.AskInput], [tasks.Manager.Update]), so that its status, inputRequests
// and answers change together, under one lock.
type extTask struct {
	h *tasks.Handle
}

// ask puts reqs among the task's inputRequests and waits for their answers.
func (e *extTask) ask(ctx context.Context, reqs map[string]mcp.InputRequest) (map[string]json.RawMessage, error) {
	out, err := e.h.AskInput(ctx, reqs)
	if err != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return out, err
}

// extensionDeclared reports whether the request of ctx declared the Tasks extension.
func extensionDeclared(ctx context.Context) bool {
	info := modernInfo(ctx)
	if info == nil {
		return false
	}
	if !bytes.Contains(info.rawCaps, []byte(mcp.ExtensionTasks)) {
		return false
	}
	_, ok := info.capabilities().Extensions[mcp.ExtensionTasks]
	return ok
}

var errExtensionRequired = missingCapability(mcp.ExtensionTasks,
	map[string]any{"extensions": map[string]any{mcp.ExtensionTasks: map[string]any{}}})

// toolOutcome is how a tool's handler returned.
type toolOutcome struct {
	res *mcp.CallToolResult
	err error
}

// callToolModern answers tools/call in 2026-07-28: inline, or as a task of the
// extension, as the tool's policy and the request's capabilities say.
func (s *Session) callToolModern(ctx context.Context, req *jsonrpc.Request) (any, error) {
	onReader := quick(ctx)
	p, t, err := s.toolCall(req, onReader)
	if err != nil {
		if herr := s.checkParamHeaders(req); herr != nil {
			return nil, herr
		}
		return nil, err
	}
	// Params that decode as CallToolParams hold the name and arguments the header
	// check reads.
	if err := s.checkToolHeaders(t.def, p.Arguments); err != nil {
		return nil, err
	}
	p.Task = nil // 2025's params.task means nothing here
	policy := TaskNever
	if s.server.tasks != nil {
		policy = t.policy()
	}
	if policy != TaskNever && !extensionDeclared(ctx) {
		if policy == TaskRequired || policy == TaskAfterInput {
			return nil, errExtensionRequired
		}
		policy = TaskNever
	}
	if onReader && policy != TaskAlways && policy != TaskRequired {
		return nil, jsonrpc.ErrNotQuick // its handler runs before the answer
	}
	round, binding, err := s.prepareRound(ctx, req)
	if err != nil {
		return nil, err
	}
	if policy == TaskNever { // withInput, without a closure
		res, err := s.runTool(ctx, t, &p)
		return s.finishRound(round, binding, res, err)
	}
	// The work outlives the request once it is a task.
	work, stop := context.WithCancel(context.WithoutCancel(ctx))
	if policy == TaskAlways || policy == TaskRequired {
		return s.startTaskAtOnce(ctx, t, round, stop, func() toolOutcome {
			res, err := s.runTool(work, t, &p)
			return toolOutcome{res, err}
		})
	}
	done := make(chan toolOutcome, 1)
	go func() {
		res, err := s.runTool(work, t, &p) // recovers a panic of the handler's
		done <- toolOutcome{res, err}
	}()
	wait := t.opts.TaskAfter
	if wait <= 0 {
		wait = DefaultTaskAfter
	}
	if policy == TaskAfterInput {
		wait = afterInputGrace
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case o := <-done:
		stop()
		round.mu.Lock()
		inline := policy == TaskWhenSlow || round.asked != nil || round.err != nil
		round.mu.Unlock()
		if inline {
			return s.finishRound(round, binding, o.res, o.err)
		}
		return s.startExtTask(ctx, t, round, func() {}, nil, &o) // quick, but always a task
	case <-timer.C:
		// The round stays locked until the call is a task: a question the handler asks
		// meanwhile waits, and then goes to the task instead of answering input_required
		// from a call that has become a task.
		round.mu.Lock()
		if round.asked != nil || round.err != nil { // it is about to return input_required
			round.mu.Unlock()
			o := <-done
			stop()
			return s.finishRound(round, binding, o.res, o.err)
		}
		defer round.mu.Unlock()
		return s.startExtTaskLocked(ctx, t, round, stop, func() toolOutcome { return <-done }, nil)
	case <-ctx.Done():
		stop()
		return nil, ctx.Err()
	}
}

// quickTaskWindow is how long the work of a call that is a task at once ([TaskAlways],
// [TaskRequired]) may take before its CreateTaskResult is written. Work that ends within
// it makes a task that is already completed (or failed): the client learns its end from
// the CreateTaskResult and fetches the outcome with one tasks/get, where a task reported
// working would have it open a stream, or wait a poll interval, to learn of an end that
// came a few microseconds after. Slower work delays the CreateTaskResult by this much.
const quickTaskWindow = time.Millisecond

// startTaskAtOnce makes the call a task, registered before its work begins, as when the
// work runs after the CreateTaskResult: a question the work asks goes through the task.
// The answer reports the task as it stands when the work ends, if that is within
// quickTaskWindow, else as it was made.
//
// On the connection's reading goroutine ([Session.handleQuick]) nothing waits: the task
// is made only if the engine is free at once (else the call goes to a worker, as any
// other), and an answer that must wait for the work is given later, by a goroutine of
// its own.
func (s *Session) startTaskAtOnce(ctx context.Context, t *tool, round *inputRound, stop func(), run func() toolOutcome) (any, error) {
	info := modernInfo(ctx)
	onReader := info != nil && info.quick
	round.mu.Lock()
	h, raw, err := s.makeExtTaskLocked(t, round, stop, onReader)
	round.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if onReader {
		// The work's context holds the info: what runs there is not on the reading
		// goroutine, and may wait.
		info.quick = false
	}
	s.server.tasks.Start(h, func(context.Context, *tasks.Handle) tasks.Outcome {
		return extOutcome(run()) // run's runTool recovers a panic of the handler's
	})
	ended := h.Context().Done() // at the work's end, and at the task's
	// Work that takes no waiting is done once this goroutine yields to it: no timer.
	runtime.Gosched()
	select {
	case <-ended:
		var st mcp.Task
		ok := true
		if onReader {
			st, ok = h.TryState()
		} else {
			st = h.State() // waits for the engine, which the reading goroutine must not
		}
		if ok {
			return createdAs(st, raw)
		}
	default:
	}
	if onReader {
		if actx, answer, ok := jsonrpc.AnswerLater(ctx); ok {
			go func() { answer(awaitQuickEnd(actx, h, raw, stop)) }()
			return nil, jsonrpc.ErrAnswerLater
		}
	}
	return awaitQuickEnd(ctx, h, raw, stop)
}

// awaitQuickEnd waits for the work of the task of h until quickTaskWindow has passed,
// and answers with the task as it then stands (raw, its CreateTaskResult as made, while
// it has not ended). A call withdrawn meanwhile stops the work: nobody learns of the
// task.
func awaitQuickEnd(ctx context.Context, h *tasks.Handle, raw any, stop func()) (any, error) {
	timer := time.NewTimer(quickTaskWindow)
	defer timer.Stop()
	select {
	case <-h.Context().Done():
		return createdAs(h.State(), raw)
	case <-timer.C:
		return raw, nil
	case <-ctx.Done():
		stop()
		return nil, ctx.Err()
	}
}

// createdAs is the CreateTaskResult of a task whose work has ended, as st reports it:
// raw, as made, unless st has ended (the task may end otherwise, cancelled).
func createdAs(st mcp.Task, raw any) (any, error) {
	if st.Status.IsTerminal() {
		return extCreated(st)
	}
	return raw, nil
}

// startExtTask makes the call a task and answers with the flat CreateTaskResult. The
// work is run (once the answer is written, where the request was handled, as in
// 2025-11-25; else on a worker of the task engine) or, for a call already done, its
// outcome is recorded at once. The task is registered before the answer, so that a
// tasks/get right after it finds the task.
func (s *Session) startExtTask(ctx context.Context, t *tool, round *inputRound, stop func(), run func() toolOutcome, finished *toolOutcome) (any, error) {
	round.mu.Lock()
	defer round.mu.Unlock()
	return s.startExtTaskLocked(ctx, t, round, stop, run, finished)
}

// startExtTaskLocked is startExtTask with round.mu held.
func (s *Session) startExtTaskLocked(ctx context.Context, t *tool, round *inputRound, stop func(), run func() toolOutcome, finished *toolOutcome) (any, error) {
	h, raw, err := s.makeExtTaskLocked(t, round, stop, false)
	if err != nil {
		return nil, err
	}
	if finished != nil {
		h.Finish(extOutcome(*finished))
		// Ended before its CreateTaskResult: the task is reported ended, and its outcome
		// is one tasks/get away.
		return extCreated(h.State())
	}
	work := func(context.Context, *tasks.Handle) tasks.Outcome {
		return extOutcome(run()) // run's runTool recovers a panic of the handler's
	}
	m := s.server.tasks
	if !jsonrpc.AfterResponse(ctx, func() { m.Run(h, work) }) {
		m.Start(h, work)
	}
	return raw, nil
}

// makeExtTaskLocked registers the call's task, in status working, and returns it with
// the CreateTaskResult that reports it so; round.mu is held. stop ends the work when the
// task ends before it; it is called when the task cannot be made.
func (s *Session) makeExtTaskLocked(t *tool, round *inputRound, stop func(), onReader bool) (*tasks.Handle, any, error) {
	var requested *mcp.TaskMetadata
	if max := t.opts.MaxTaskTTL; max > 0 {
		ms := max.Milliseconds()
		requested = &mcp.TaskMetadata{TTL: &ms}
	}
	m := s.server.tasks
	owner, bound := s.modernOwner()
	var h *tasks.Handle
	var err error
	switch {
	case onReader:
		var ok bool
		if h, ok, err = m.TryDefer(tasks.DialectExtension, owner, requested, stop, bound); !ok {
			stop()
			return nil, nil, jsonrpc.ErrNotQuick
		}
	case bound:
		h, err = m.DeferBound(tasks.DialectExtension, owner, requested, stop)
	default:
		h, err = m.DeferIn(tasks.DialectExtension, owner, requested, stop)
	}
	if err != nil {
		stop()
		return nil, nil, err
	}
	raw, err := extCreated(h.Created())
	if err != nil {
		stop()
		h.Finish(tasks.Outcome{Error: jsonrpc.AsError(err)})
		return nil, nil, err
	}
	round.task = &extTask{h: h}
	return h, raw, nil
}

// extCreated is the flat CreateTaskResult of the extension reporting task.
func extCreated(task mcp.Task) (any, error) {
	raw, err := mcp.ExtCreateTaskResult{ResultType: mcp.ResultTypeTask, ExtTask: mcp.ExtTaskFrom(task)}.MarshalJSON()
	if err != nil {
		return nil, err
	}
	return json.RawMessage(raw), nil
}

// extOutcome is the task's outcome in the extension: a tool result, isError or not,
// completes the task; only a JSON-RPC error fails it.
func extOutcome(o toolOutcome) tasks.Outcome {
	if o.err != nil {
		return tasks.Outcome{Error: jsonrpc.AsError(o.err)}
	}
	raw, err := o.res.MarshalJSON() // runTool gives a result or an error
	if err != nil {
		return tasks.Outcome{Error: jsonrpc.Errorf(jsonrpc.CodeInternalError, "encoding the result: %v", err)}
	}
	return tasks.Outcome{Result: raw}
}

// taskNotFound is the -32602 of an unknown task id. A task of the other era is refused
// by the engine itself, with an error that names the era.
func taskNotFound(err error, id string) error {
	if errors.Is(err, tasks.ErrNotFound) {
		return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "unknown task %s (it may have expired)", id)
	}
	return err
}

// handleExtTasks answers tasks/get, tasks/update and tasks/cancel of the extension.
func (s *Session) handleExtTasks(ctx context.Context, req *jsonrpc.Request) (any, error) {
	if !extensionDeclared(ctx) {
		return nil, errExtensionRequired
	}
	var p struct {
		TaskID         string                     `json:"taskId"`
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
	}
	if err := json.Unmarshal(req.Params, &p); err != nil || p.TaskID == "" {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "%s needs params.taskId", req.Method)
	}
	m := s.server.tasks
	owner, _ := s.modernOwner()
	ack := func() (any, error) { return json.RawMessage(`{"resultType":"complete"}`), nil }
	switch req.Method {
	case mcp.MethodTasksGet:
		var d mcp.DetailedTask
		var err error
		if quick(ctx) {
			var ok bool
			if d, ok = m.TryDetailed(owner, p.TaskID); !ok {
				return nil, jsonrpc.ErrNotQuick
			}
		} else {
			d, err = m.Detailed(owner, p.TaskID)
		}
		if err != nil {
			return nil, taskNotFound(err, p.TaskID)
		}
		raw, err := mcp.ExtGetTaskResult{ResultType: mcp.ResultTypeComplete, DetailedTask: d}.MarshalJSON()
		if err != nil {
			return nil, err
		}
		return json.RawMessage(raw), nil
	case mcp.MethodTasksUpdate:
		if p.InputResponses == nil {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "tasks/update needs params.inputResponses")
		}
		// Answers to outstanding keys are taken at once (a tasks/get right after this
		// update sees them gone), others ignored; an answer of the wrong shape is refused.
		err := m.Update(owner, p.TaskID, p.InputResponses, func(key string, q mcp.InputRequest, a json.RawMessage) error {
			if e := checkInputResponse(key, q.Method, a); e != nil {
				return e
			}
			return nil
		})
		if err != nil {
			return nil, taskNotFound(err, p.TaskID)
		}
		return ack()
	case mcp.MethodTasksCancel:
		if err := m.CancelExtension(owner, p.TaskID); err != nil {
			return nil, taskNotFound(err, p.TaskID)
		}
		return ack()
	}
	return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "method not found: %s", req.Method)
}
