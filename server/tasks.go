package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"sync"

	"github.com/mcpi-dev/mcpi/internal/jsonwire"
	"github.com/mcpi-dev/mcpi/internal/stack"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/tasks"
	"github.com/mcpi-dev/mcpi/transport"
)

// Tool tasks: with [Options.Tasks] set, the server declares
// tasks{list, cancel, requests.tools.call}, runs task-augmented tools/call through the
// shared task engine, and answers tasks/get, tasks/result, tasks/list and tasks/cancel.
// Tasks are bound to the session that created them, and end with it unless
// [Options.AdoptOrphanTasks] lets a later session take them over.

// taskWork is what a tool's context carries while it runs as a task, so that requests
// the tool sends to the client go through the side channel.
type taskWork struct {
	h *tasks.Handle
	// inputs counts side-channel requests in flight: the task stays input_required
	// while any is pending.
	mu     sync.Mutex
	inputs int
}

type taskWorkKey struct{}

// TaskFromContext returns the handle of the task a tool runs as, if it runs as one. In
// 2026-07-28 a call the server makes a task when it is slow ([TaskWhenSlow]) has a
// handle only from then on, so a handler that reports its status asks again each time.
func TaskFromContext(ctx context.Context) (*tasks.Handle, bool) {
	if w, ok := ctx.Value(taskWorkKey{}).(*taskWork); ok {
		return w.h, true
	}
	if info := modernInfo(ctx); info != nil && info.round != nil {
		info.round.mu.Lock()
		defer info.round.mu.Unlock()
		if info.round.task != nil {
			return info.round.task.h, true
		}
	}
	return nil, false
}

// sideChannel prepares a request the server sends while a task runs: it marks the task
// input_required, tags the request with the task, and waits for the requestor's
// tasks/result so the request can travel on that response. A requestor that does not call
// tasks/result within one poll interval gets the request on whatever stream there is, as
// clients should accept task messages on any stream. If the session that owns the task
// has ended, the request waits, as long as the task lives, for a client to adopt the task
// with tasks/result and goes to that client. It returns the session to send on, and a
// function that puts the task back to working once the answer is in.
func (s *Session) sideChannel(ctx context.Context, meta *mcp.Meta) (context.Context, *Session, func()) {
	w, ok := ctx.Value(taskWorkKey{}).(*taskWork)
	if !ok {
		return ctx, s, func() {}
	}
	id := w.h.ID()
	meta.SetRelatedTask(id)
	w.mu.Lock()
	w.inputs++
	if w.inputs == 1 {
		_ = w.h.SetStatus(mcp.TaskStatusInputRequired, "waiting for input from the client")
	}
	w.mu.Unlock()
	wait, cancel := context.WithTimeout(ctx, s.server.tasks.PollInterval())
	waiter, found := w.h.AwaitRequestor(wait)
	cancel()
	if !found && s.server.taskSession(id) == nil {
		waiter, found = w.h.AwaitRequestor(ctx)
	}
	if found {
		ctx = jsonrpc.WithRelatedRequest(ctx, waiter)
	}
	target := s.server.taskSession(id)
	if target == nil {
		target = s
	}
	return ctx, target, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.inputs--
		if w.inputs == 0 {
			_ = w.h.SetStatus(mcp.TaskStatusWorking, "")
		}
	}
}

// callInTask sends a request of a task's work (ctx is the work's) to the client on
// target and waits for the answer. The request is written only while the task has not
// ended, in order with its changes: never after the announcement of its end.
//
// With [Options.AdoptOrphanTasks], a session that ends before it answers (its client
// went away and left the input for a later one, as "mcpi tasks result" does when it
// cannot ask its user) does not fail the task: the request waits, as long as the task lives, for the next session that
// reaches the task with tasks/result (adopting it), and goes again to that one.
func callInTask(ctx context.Context, target *Session, method string, params, result any) error {
	w, ok := ctx.Value(taskWorkKey{}).(*taskWork)
	if !ok {
		return target.conn.Call(ctx, method, params, result)
	}
	for {
		raw, err := sendInTask(ctx, w, target, method, params)
		if err == nil {
			return jsonrpc.DecodeResult(method, raw, result)
		}
		if !errors.Is(err, jsonrpc.ErrClosed) || ctx.Err() != nil {
			return err
		}
		// A connection fails its calls as it begins to end, before its reading stops
		// and Done is closed: the session is gone, and the next one can be told from
		// it, only then.
		select {
		case <-target.conn.Done():
		case <-ctx.Done():
			return err
		}
		next, waiter := target.server.nextRequestor(ctx, w.h, target)
		if next == nil {
			return err
		}
		target, ctx = next, jsonrpc.WithRelatedRequest(ctx, waiter)
	}
}

// sendInTask sends the request of callInTask and waits for the answer. When the request
// went out on the stream of a tasks/result over Streamable HTTP, a later tasks/result of
// the task from the same session gets it again, on that request's stream: the client
// that left the request unanswered may have gone and come back on the same session
// (resuming it), and the stream that carried the request went with it. So does one that
// went out on the session's own stream (no tasks/result was waiting) once the GET that
// carried it has gone ([transport.HTTPServerConn.RequestUnheard]): while it is still
// there, its client has the request, and a copy would be a second question. The first
// answer counts; the copies still waiting are then withdrawn (notifications/cancelled).
// Over a connection that cannot be resumed (stdio) a request is sent once.
func sendInTask(ctx context.Context, w *taskWork, target *Session, method string, params any) (json.RawMessage, error) {
	type answer struct {
		raw json.RawMessage
		err error
	}
	ch := make(chan answer, 1)
	settle := func(raw json.RawMessage, err error) {
		select {
		case ch <- answer{raw, err}:
		default: // another copy was answered first
		}
	}
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	send := func(ctx context.Context) error {
		var err error
		if !w.h.WhileRunning(func() { err = target.conn.Go(ctx, method, params, settle) }) {
			return jsonrpc.Errorf(jsonrpc.CodeInternalError, "task %s has ended", w.h.ID())
		}
		return err
	}
	var first jsonrpc.ID
	if err := send(jsonrpc.WithRequestID(sctx, func(id jsonrpc.ID) { first = id })); err != nil {
		return nil, err
	}
	_, related := jsonrpc.RelatedRequest(ctx)
	hc, resumable := target.transport.(*transport.HTTPServerConn)
	if !resumable {
		a := <-ch
		return a.raw, a.err
	}
	for {
		next := make(chan jsonrpc.ID, 1)
		go func() {
			if id, ok := w.h.AwaitNextRequestor(sctx); ok {
				next <- id
			}
		}()
		select {
		case a := <-ch:
			return a.raw, a.err
		case id := <-next:
			if target.server.taskSession(w.h.ID()) != target {
				continue // another session's: callInTask goes there once this one ends
			}
			if !related && !hc.RequestUnheard(first) {
				continue // the GET that carried it (or the next one) has it
			}
			related = true // a copy goes on the tasks/result's stream
			if err := send(jsonrpc.WithRelatedRequest(sctx, id)); err != nil {
				target.server.log.Debug("asking again for a task's input failed", "task", w.h.ID(), "error", err)
			}
		}
	}
}

// nextRequestor waits for a tasks/result of the task h from a live session other than
// gone, and returns that session and the request's id; nil when the task or ctx ends
// first. The request may have begun waiting before gone was found ended: a client that
// comes back at once can be quicker than the server's reading of the old connection's
// end.
func (s *Server) nextRequestor(ctx context.Context, h *tasks.Handle, gone *Session) (*Session, jsonrpc.ID) {
	var next *Session
	waiter, _, ok := h.AwaitRequestorOf(ctx, func(owner string) bool {
		next = s.liveSession(owner)
		return next != nil && next != gone
	})
	if !ok {
		return nil, jsonrpc.ID{}
	}
	return next, waiter
}

// taskSession returns the live session that owns task id, or nil.
func (s *Server) taskSession(id string) *Session {
	owner, ok := s.tasks.Owner(id)
	if !ok {
		return nil
	}
	return s.liveSession(owner)
}

// liveSession returns the session with the owner key if its connection is still open.
func (s *Server) liveSession(owner string) *Session {
	s.mu.RLock()
	ss := s.owners[owner]
	s.mu.RUnlock()
	if ss == nil {
		return nil
	}
	select {
	case <-ss.conn.Done():
		return nil // ended; its entry is about to be dropped
	default:
		return ss
	}
}

func (s *Server) taskCapability() *mcp.ServerTasksCapability {
	return &mcp.ServerTasksCapability{
		List:     &struct{}{},
		Cancel:   &struct{}{},
		Requests: &mcp.ServerTaskRequests{Tools: &mcp.TaskToolRequests{Call: &struct{}{}}},
	}
}

// notifyTask sends notifications/tasks/status to the session that owns the task, and to
// no other.
func (s *Server) notifyTask(owner string, t mcp.Task) {
	if isModernOwner(owner) {
		return // notifications/tasks go out from the engine's OnDetail (listen.go)
	}
	ss := s.liveSession(owner)
	if ss == nil {
		return
	}
	// On the stream of a waiting tasks/result, if there is one: over HTTP the status then
	// arrives in order with the result instead of racing it on the GET stream.
	ctx := context.Background()
	if id, ok := s.tasks.Waiter(t.TaskID); ok {
		ctx = jsonrpc.WithRelatedRequest(ctx, id)
	}
	_ = ss.conn.Notify(ctx, mcp.NotificationTasksStatus, &mcp.TaskStatusNotificationParams{Task: t})
}

// checkTaskSupport applies the tool-level rules of the spec to a call.
func checkTaskSupport(def *mcp.Tool, p *mcp.CallToolParams) error {
	switch support := def.TaskSupport(); {
	case p.Task != nil && support == mcp.TaskSupportForbidden:
		return jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "tool %q does not support task execution (taskSupport is forbidden)", def.Name)
	case p.Task == nil && support == mcp.TaskSupportRequired:
		return jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "tool %q must be called as a task (taskSupport is required)", def.Name)
	}
	return nil
}

// sessionHolder is a connection that its server can keep from expiring and from
// eviction while the session's tasks run ([transport.HTTPServerConn.Hold]).
type sessionHolder interface {
	Hold() (release func())
}

// quickCallTool answers on the connection's reading goroutine ([Session.handleQuick]) a
// 2025-11-25 tools/call that asks for a task: the task is made there, when the session
// and the engine are free at once, and its CreateTaskResult written, and the work runs
// on a worker of the connection's once it is (jsonrpc.AfterResponse): no worker is woken
// before the answer. Any other call, and any the handling would refuse (an unknown
// tool, a task the tool forbids), goes to a worker, as before.
func (s *Session) quickCallTool(ctx context.Context, req *jsonrpc.Request) (any, error) {
	if _, held := s.transport.(sessionHolder); held || !s.mu.TryLock() {
		return nil, jsonrpc.ErrNotQuick
	}
	init := s.init
	s.mu.Unlock()
	if init == nil || !mcp.HasCoreTasks(negotiated(init.ProtocolVersion)) {
		return nil, jsonrpc.ErrNotQuick
	}
	p, t, err := s.toolCall(req, true)
	if err != nil || p.Task == nil || checkTaskSupport(t.def, &p) != nil {
		return nil, jsonrpc.ErrNotQuick
	}
	return s.startToolTask(ctx, t, &p, true)
}

// startToolTask runs a tool as a task and returns the CreateTaskResult at once. The work
// runs on the task engine's context, not on the request's. onReader, on the
// connection's reading goroutine, it declines ([jsonrpc.ErrNotQuick]) rather than wait
// for the engine.
//
// The work runs where the call was handled (on a worker, for a call answered where it
// was read), once the CreateTaskResult is written: no goroutine is woken for it before
// the answer, and its first status notification follows the answer.
func (s *Session) startToolTask(ctx context.Context, t *tool, p *mcp.CallToolParams, onReader bool) (any, error) {
	requested := p.Task
	if max := t.opts.MaxTaskTTL; max > 0 {
		ms := max.Milliseconds()
		if requested.TTL == nil || *requested.TTL > ms {
			requested = &mcp.TaskMetadata{TTL: &ms}
		}
	}
	m := s.server.tasks
	var h *tasks.Handle
	var err error
	if onReader {
		var ok bool
		if h, ok, err = m.TryDefer(tasks.DialectCore, s.owner, requested, nil, false); !ok {
			return nil, jsonrpc.ErrNotQuick
		}
	} else {
		h, err = m.Defer(s.owner, requested, nil)
	}
	if err != nil {
		return nil, err
	}
	if hs, ok := s.transport.(sessionHolder); ok && !s.server.opts.AdoptOrphanTasks {
		// The task ends with its session: the session must not expire, or be evicted
		// before sessions without tasks, while it runs. Its context ends when it ends,
		// expires or is deleted: its TTL bounds the hold.
		context.AfterFunc(h.Context(), hs.Hold())
	}
	run := func(ctx context.Context, h *tasks.Handle) tasks.Outcome {
		ctx = context.WithValue(ctx, taskWorkKey{}, &taskWork{h: h})
		res, err := s.runTool(ctx, t, p)
		if err != nil {
			return tasks.Outcome{Error: jsonrpc.AsError(err)}
		}
		// Not json.Marshal: that would escape HTML in the stored result, which goes on the
		// wire as it is stored, and scan the encoding again. Its error is kept.
		raw, err := res.MarshalJSON()
		if err != nil {
			err = &json.MarshalerError{Type: reflect.TypeOf(res), Err: err}
			return tasks.Outcome{Error: jsonrpc.Errorf(jsonrpc.CodeInternalError, "encoding the result: %v", err)}
		}
		out := tasks.Outcome{Result: raw, Failed: res.IsError}
		if res.IsError {
			out.StatusMessage = "the tool reported an error"
			for _, c := range res.Content {
				if c.Type == mcp.ContentTypeText && c.Text != "" {
					out.StatusMessage = c.Text
					break
				}
			}
		}
		return out
	}
	if !jsonrpc.AfterResponse(ctx, func() { m.Run(h, run) }) {
		m.Start(h, run)
	}
	return &mcp.CreateTaskResult{Task: h.Created()}, nil
}

// runTool runs a tool's handler, in any era, inline or as a task. A panic or a nil
// result without an error is the handler's bug: the client gets an internal error that
// names the tool and nothing of the panic (its value may hold anything), and the log
// gets the rest.
func (s *Session) runTool(ctx context.Context, t *tool, p *mcp.CallToolParams) (res *mcp.CallToolResult, err error) {
	defer func() {
		if v := recover(); v != nil {
			stack.Logger(s.server.opts.Logger).Error("tool handler panicked", "tool", p.Name, "panic", v, "stack", stack.Trace())
			res, err = nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "internal error in tool %s", p.Name)
		}
	}()
	res, err = t.handler(ctx, &ToolRequest{Session: s, Params: p, ctx: ctx})
	if err == nil && res == nil {
		stack.Logger(s.server.opts.Logger).Error("tool handler returned neither a result nor an error", "tool", p.Name)
		err = jsonrpc.Errorf(jsonrpc.CodeInternalError, "internal error in tool %s: it returned neither a result nor an error", p.Name)
	}
	return res, err
}

// adopt takes over an orphaned task named by id, when the server allows it.
func (s *Session) adopt(id string) {
	if !s.server.opts.AdoptOrphanTasks || id == "" {
		return
	}
	s.server.tasks.Adopt(id, s.owner, func(owner string) bool {
		// A task of the 2026-07-28 extension has no session, and stays in its era. A
		// task's id may have been seen by others than its maker (a log, a shared
		// terminal): only a session with the maker's credentials may take it over.
		return !isModernOwner(owner) && ownerIdentity(owner) == ownerIdentity(s.owner) &&
			s.server.liveSession(owner) == nil
	})
}

// quickResult answers a 2025-11-25 tasks/result on the reading goroutine (see
// [Session.handleQuick]): from memory when the task's end has been announced, and from
// the goroutine that ends the task when it runs ([jsonrpc.AnswerLater]), so that no
// goroutine of the connection's waits for the end. A session or engine another goroutine
// holds, a task of another session (which adoption looks at) and a request to refuse go
// to handleTasks.
func (s *Session) quickResult(ctx context.Context, req *jsonrpc.Request) (any, error) {
	// A task of another session, which adoption may take over, is no lookup of this
	// session's own: TryResult and ResultLater decline it, and handleTasks adopts it.
	if !s.mu.TryLock() {
		return nil, jsonrpc.ErrNotQuick
	}
	init := s.init
	s.mu.Unlock()
	if init == nil || !mcp.HasCoreTasks(negotiated(init.ProtocolVersion)) {
		return nil, jsonrpc.ErrNotQuick
	}
	var p mcp.TaskResultParams
	if decodeParams(req, &p) != nil {
		return nil, jsonrpc.ErrNotQuick
	}
	m := s.server.tasks
	if out, ok, err := m.TryResult(s.owner, p.TaskID); ok {
		return taskResult(out, err, p.TaskID)
	}
	// The task runs: its end answers. The answer waits for the request to be taken up
	// (AnswerLater), a few instructions after ResultLater returns.
	var (
		answer    func(any, error)
		stopAfter func() bool
		ready     = make(chan struct{})
	)
	stop, ok := m.ResultLater(s.owner, p.TaskID, req.ID, func(out tasks.Outcome, err error) {
		<-ready
		stopAfter()
		answer(taskResult(out, err, p.TaskID))
	})
	if !ok {
		return nil, jsonrpc.ErrNotQuick
	}
	reqCtx, answer, taken := jsonrpc.AnswerLater(ctx)
	if !taken { // not a Quick handler's context: a worker answers, and the end waits for nothing
		answer, stopAfter = func(any, error) {}, func() bool { return false }
		close(ready)
		stop()
		return nil, jsonrpc.ErrNotQuick
	}
	// Withdrawn by the client, or the connection ended: no answer goes out, but the
	// request is done with.
	stopAfter = context.AfterFunc(reqCtx, func() {
		if stop() {
			answer(nil, context.Cause(reqCtx))
		}
	})
	close(ready)
	return nil, jsonrpc.ErrAnswerLater
}

// taskResult is the answer to tasks/result for task id of a task that ended with out, or
// whose result could not be had (err).
func taskResult(out tasks.Outcome, err error, id string) (any, error) {
	switch {
	case err != nil:
		return nil, err
	case out.Error != nil:
		return nil, out.Error
	}
	return tasks.WithRelatedTaskMeta(out.Result, id)
}

func (s *Session) handleTasks(ctx context.Context, req *jsonrpc.Request) (any, error) {
	m := s.server.tasks
	// Each method's params are decoded once. A request that names a task by id adopts
	// it whatever else its params hold, so a failed decode reads the id alone.
	switch req.Method {
	case mcp.MethodTasksGet:
		var p mcp.GetTaskParams
		if err := decodeParams(req, &p); err != nil {
			s.adopt(paramsTaskID(req.Params))
			return nil, err
		}
		s.adopt(p.TaskID)
		t, err := m.Get(s.owner, p.TaskID)
		if err != nil {
			return nil, err // a task of the extension: the engine's error names its era
		}
		return &mcp.GetTaskResult{Task: t}, nil
	case mcp.MethodTasksResult:
		var p mcp.TaskResultParams
		if err := decodeParams(req, &p); err != nil {
			s.adopt(paramsTaskID(req.Params))
			return nil, err
		}
		s.adopt(p.TaskID)
		out, err := m.Result(ctx, s.owner, p.TaskID, req.ID)
		return taskResult(out, err, p.TaskID) // an error of a task of the extension names its era
	case mcp.MethodTasksList:
		s.adopt(paramsTaskID(req.Params))
		var p mcp.ListTasksParams
		if err := decodeParams(req, &p); err != nil {
			return nil, err
		}
		list, next, err := m.List(s.owner, p.Cursor)
		if err != nil {
			return nil, err
		}
		return &mcp.ListTasksResult{Tasks: list, NextCursor: next}, nil
	case mcp.MethodTasksCancel:
		var p mcp.CancelTaskParams
		if err := decodeParams(req, &p); err != nil {
			s.adopt(paramsTaskID(req.Params))
			return nil, err
		}
		s.adopt(p.TaskID)
		t, err := m.Cancel(s.owner, p.TaskID, "")
		if err != nil {
			return nil, err // a task of the extension: the engine's error names its era
		}
		return &mcp.CancelTaskResult{Task: t}, nil
	}
	return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "method not found: %s", req.Method)
}

// answeredAtOnce reports whether req's answer will be ready as soon as it is handled,
// with nothing sent before it: a tools/call the session makes a task of (the work and
// its messages follow the CreateTaskResult), or a tasks/result for a task of the
// session that has ended (the spec has it answered at once). Over Streamable HTTP such a
// request is answered with one JSON body instead of an SSE stream. It runs before the
// request is handled and changes nothing: an orphan task this request would adopt takes
// the stream, and so does any request of 2026-07-28, whose server decides what becomes a
// task.
func (s *Session) answeredAtOnce(req *jsonrpc.Request) bool {
	if req.Method != mcp.MethodToolsCall && req.Method != mcp.MethodTasksResult {
		return false
	}
	if s.server.tasks == nil || s.owner == "" || s.server.opts.Handlers[req.Method] != nil || s.peekEra(req) == eraModern || !s.coreTasks() {
		return false
	}
	if req.Method == mcp.MethodTasksResult {
		var p mcp.TaskResultParams
		return jsonwire.Unmarshal(req.Params, &p) == nil && p.TaskID != "" && s.server.tasks.Ended(s.owner, p.TaskID)
	}
	if !bytes.Contains(req.Params, []byte(`"task"`)) {
		return false // a plain call: decoding its arguments twice would cost more than a stream
	}
	var p mcp.CallToolParams
	if jsonwire.Unmarshal(req.Params, &p) != nil || p.Task == nil {
		return false
	}
	s.server.mu.RLock()
	t, ok := s.server.tools[p.Name]
	s.server.mu.RUnlock()
	return ok && checkTaskSupport(t.def, &p) == nil
}

// paramsTaskID reads params.taskId alone.
func paramsTaskID(params json.RawMessage) string {
	var target struct {
		TaskID string `json:"taskId"`
	}
	_ = json.Unmarshal(params, &target)
	return target.TaskID
}
