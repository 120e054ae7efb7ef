package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/tasks"
)

// The Tasks extension of revision 2026-07-28 (io.modelcontextprotocol/tasks), receiver
// side.
//
// In 2026-07-28 the server, not the client, decides whether a tools/call becomes a
// task, by the tool's [TaskPolicy]:
//
//   - [TaskNever]: the call runs inline, as any other.
//   - [TaskAlways]: the call is always a task. A request that did not declare the
//     extension in its _meta clientCapabilities gets -32021, with
//     data.requiredCapabilities.extensions["io.modelcontextprotocol/tasks"] = {}.
//   - [TaskWhenSlow]: the call runs inline and is answered inline when it is done within
//     [ToolOptions.PromoteAfter]; when it is not, it is promoted: the client gets a
//     CreateTaskResult and the handler goes on running as the task. A request that did
//     not declare the extension is answered inline however long it takes.
//
// Before its task exists a call is an ordinary request: it may ask for input by MRTR
// (input_required and a retry), so a tool gathers what it needs synchronously and
// then becomes a task, as the extension recommends. [TaskAlways] with a PromoteAfter
// above zero lets the handler run inline that long first; a handler done within it
// still answers with a task, already ended.
//
// Once the task exists the handler asks for input with the same API as ever
// ([Session.Inputs], [Session.Elicit], [Session.CreateMessage], [Session.ListRoots]):
// the calls block, the task is input_required with every outstanding request in the
// inputRequests of tasks/get, and tasks/update brings the answers (a subset at a time,
// if the client likes; an answered key is gone from the next tasks/get). Keys are
// never reused within a task: asking again for an answered key returns its answer.
//
// tasks/get returns resultType "complete" and the DetailedTask (the result of a
// completed task, a tool's isError result included; the JSON-RPC error of a failed
// one; the input requests of an input_required one); tasks/update and tasks/cancel are
// acknowledged with an empty result, tasks/cancel of an ended task too; an unknown or
// expired id is -32602. Every tasks/* request must declare the extension (-32021
// otherwise); tasks/result and tasks/list do not exist (-32601). Over Streamable HTTP
// the transport checks that Mcp-Name is the task id (-32020). The legacy params.task
// is ignored.
//
// Tasks of this dialect live in the same engine as those of 2025-11-25, recorded with
// their dialect ([tasks.DialectExtension]); a task of one era named from the other is
// refused with -32602 and a message that says so. They belong to no session: 2026-07-28
// has none, and any request that names a task's id (128 random bits, told only to the
// caller that made it) reaches it. No progress or log notifications are sent for
// them; a subscriptions/listen that names task ids gets notifications/tasks, each the
// full DetailedTask, at every change.

// TaskPolicy says when a call of a tool becomes a task of the Tasks extension
// (2026-07-28). It does not affect 2025-11-25, where the client asks for a task and the
// tool's execution.taskSupport says whether it may.
type TaskPolicy int

const (
	// TaskPolicyAuto follows the tool's execution.taskSupport: required is
	// [TaskAlways], optional [TaskWhenSlow], anything else [TaskNever].
	TaskPolicyAuto TaskPolicy = iota
	// TaskNever runs every call inline.
	TaskNever
	// TaskAlways makes every call a task; a request without the extension gets -32021.
	TaskAlways
	// TaskWhenSlow answers inline when the call is done within its PromoteAfter, and
	// promotes it to a task otherwise.
	TaskWhenSlow
)

// DefaultPromoteAfter is how long a [TaskWhenSlow] call runs inline before it becomes
// a task, unless [ToolOptions.PromoteAfter] or [Options.TaskPromoteAfter] says
// otherwise.
const DefaultPromoteAfter = 500 * time.Millisecond

// extOwner owns every task of the extension: they are reached by id alone.
const extOwner = "\x00tasks-extension"

// policy returns the task policy of a tool and how long its calls run inline first.
func (s *Server) policy(t *tool) (TaskPolicy, time.Duration) {
	p := t.opts.Task
	if p == TaskPolicyAuto {
		switch t.def.TaskSupport() {
		case mcp.TaskSupportRequired:
			p = TaskAlways
		case mcp.TaskSupportOptional:
			p = TaskWhenSlow
		default:
			p = TaskNever
		}
	}
	after := t.opts.PromoteAfter
	if p == TaskWhenSlow && after <= 0 {
		after = s.opts.TaskPromoteAfter
		if after <= 0 {
			after = DefaultPromoteAfter
		}
	}
	return p, after
}

// declaresTasks reports whether the 2026-07-28 request of ctx declared the extension.
func declaresTasks(ctx context.Context) bool {
	info := modernInfo(ctx)
	if info == nil {
		return false
	}
	_, ok := info.caps.Extensions[mcp.ExtensionTasks]
	return ok
}

func missingTasksExtension() *jsonrpc.Error {
	return missingCapability("extensions."+mcp.ExtensionTasks,
		map[string]any{"extensions": map[string]any{mcp.ExtensionTasks: map[string]any{}}})
}

// withTasksExtension adds the extension to the capabilities a 2026-07-28 client is
// told of, when the server runs tool tasks.
func (s *Server) withTasksExtension(caps *mcp.ServerCapabilities) {
	if s.tasks == nil {
		return
	}
	ext := maps.Clone(caps.Extensions)
	if ext == nil {
		ext = map[string]json.RawMessage{}
	}
	ext[mcp.ExtensionTasks] = json.RawMessage(`{}`)
	caps.Extensions = ext
}

// extCall is one tools/call of 2026-07-28 that may become a task. The handler's
// context carries it, so that its requests for input go to the task once there is one.
type extCall struct {
	mu sync.Mutex
	// asked is set when the handler was told ErrInputRequired inline: the call ends as
	// input_required and is not promoted.
	asked bool
	h     *tasks.Handle // the task, once promoted
}

type extCallKey struct{}

func extCallFrom(ctx context.Context) *extCall {
	c, _ := ctx.Value(extCallKey{}).(*extCall)
	return c
}

// extTask returns the task of an extension call running as one.
func extTask(ctx context.Context) *tasks.Handle {
	c := extCallFrom(ctx)
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.h
}

// inExtensionTask reports whether ctx is the context of a handler running as a task
// of the extension, for which no progress or log notifications are sent.
func inExtensionTask(ctx context.Context) bool { return extTask(ctx) != nil }

// inputs answers a handler's request for input in an extension call: by MRTR (round)
// while the call is inline, through the task's inputRequests once it is a task.
func (c *extCall) inputs(ctx context.Context, reqs map[string]mcp.InputRequest, round func(context.Context, map[string]mcp.InputRequest) (map[string]json.RawMessage, error)) (map[string]json.RawMessage, error) {
	c.mu.Lock()
	if c.h == nil {
		// Inline: the lock keeps the call from being promoted while the round decides.
		out, err := round(ctx, reqs)
		if errors.Is(err, ErrInputRequired) {
			c.asked = true
		}
		c.mu.Unlock()
		return out, err
	}
	h := c.h
	c.mu.Unlock()
	info := modernInfo(ctx)
	keys := slices.Sorted(maps.Keys(reqs))
	for _, k := range keys {
		if err := checkInputCapability(&info.caps, reqs[k]); err != nil {
			return nil, err
		}
	}
	out := make(map[string]json.RawMessage, len(reqs))
	missing := map[string]mcp.InputRequest{}
	for _, k := range keys {
		// Answered by MRTR before the task existed: the same question has that answer.
		if info.round == nil {
			missing[k] = reqs[k]
			continue
		}
		if a, ok := info.round.answers[k]; ok {
			out[k] = a
			continue
		}
		missing[k] = reqs[k]
	}
	if len(missing) > 0 {
		got, err := h.AskInput(ctx, missing)
		if err != nil {
			if errors.Is(err, tasks.ErrTaskEnded) && ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, err
		}
		maps.Copy(out, got)
	}
	return out, nil
}

// callToolModern answers tools/call in 2026-07-28: inline, or as a task of the
// extension, as the tool's policy and the request's capabilities decide. params.task
// is ignored.
func (s *Session) callToolModern(ctx context.Context, req *jsonrpc.Request) (any, error) {
	var p mcp.CallToolParams
	if err := decodeParams(req, &p); err != nil {
		return nil, err
	}
	p.Task = nil
	s.server.mu.RLock()
	t, ok := s.server.tools[p.Name]
	s.server.mu.RUnlock()
	if !ok {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "unknown tool %q", p.Name)
	}
	policy, after := s.server.policy(t)
	if s.server.tasks == nil {
		policy = TaskNever
	}
	declared := declaresTasks(ctx)
	switch {
	case policy == TaskAlways && !declared:
		return nil, missingTasksExtension()
	case policy == TaskNever, !declared:
		return s.runTool(ctx, t, &p)
	}
	return s.runExtCall(ctx, t, &p, policy, after)
}

type toolOutcome struct {
	res *mcp.CallToolResult
	err error
}

// runExtCall runs a call that becomes a task at once (after 0) or when it is still
// running after the given time.
func (s *Session) runExtCall(ctx context.Context, t *tool, p *mcp.CallToolParams, policy TaskPolicy, after time.Duration) (any, error) {
	c := &extCall{}
	// The handler runs on a context of its own: the request's until the task exists,
	// the task's afterwards.
	hctx, hcancel := context.WithCancel(context.WithoutCancel(ctx))
	hctx = context.WithValue(hctx, extCallKey{}, c)
	done := make(chan toolOutcome, 1)
	start := func() {
		go func() {
			defer hcancel()
			var o toolOutcome
			defer func() {
				if r := recover(); r != nil {
					s.server.log.Error("tool handler panicked", "tool", t.def.Name, "panic", r)
					o = toolOutcome{err: jsonrpc.Errorf(jsonrpc.CodeInternalError, "tool %s failed: %v", t.def.Name, r)}
				}
				done <- o
			}()
			o.res, o.err = s.runTool(hctx, t, p)
		}()
	}
	if policy == TaskAlways && after <= 0 {
		h, err := s.server.newExtTask(t, hcancel)
		if err != nil {
			hcancel()
			return nil, err
		}
		c.h = h
		start()
		go s.finishExt(h, done)
		return s.createdResult(h.Created())
	}
	start()
	timer := time.NewTimer(after)
	defer timer.Stop()
	select {
	case o := <-done:
		if policy != TaskAlways || c.asked || errors.Is(o.err, ErrInputRequired) {
			return o.res, o.err
		}
		// Done inline, but the tool always answers with a task: one that has ended.
		h, err := s.server.newExtTask(t, nil)
		if err != nil {
			return nil, err
		}
		done <- o
		s.finishExt(h, done)
		st, err := s.server.tasks.Detailed(extOwner, h.ID())
		if err != nil {
			return nil, err
		}
		return s.createdResult(st.ToTask())
	case <-ctx.Done():
		hcancel()
		return nil, ctx.Err()
	case <-timer.C:
	}
	c.mu.Lock()
	if c.asked {
		c.mu.Unlock()
		o := <-done // the handler was told ErrInputRequired and returns
		return o.res, o.err
	}
	h, err := s.server.newExtTask(t, hcancel)
	if err != nil {
		c.mu.Unlock()
		if policy == TaskWhenSlow {
			s.server.log.Warn("a slow call could not become a task; it stays inline", "tool", t.def.Name, "error", err)
			select {
			case o := <-done:
				return o.res, o.err
			case <-ctx.Done():
				hcancel()
				return nil, ctx.Err()
			}
		}
		hcancel()
		return nil, err
	}
	c.h = h
	c.mu.Unlock()
	go s.finishExt(h, done)
	return s.createdResult(h.Created())
}

// newExtTask registers a task of the extension for a call of t; stop ends the
// handler's context when the task is cancelled or expires.
func (s *Server) newExtTask(t *tool, stop func()) (*tasks.Handle, error) {
	var requested *mcp.TaskMetadata
	if max := t.opts.MaxTaskTTL; max > 0 {
		ms := max.Milliseconds()
		requested = &mcp.TaskMetadata{TTL: &ms}
	}
	return s.tasks.DeferIn(tasks.DialectExtension, extOwner, requested, stop)
}

// finishExt ends task h with the handler's outcome.
func (s *Session) finishExt(h *tasks.Handle, done <-chan toolOutcome) {
	o := <-done
	if o.err != nil {
		if errors.Is(o.err, ErrInputRequired) {
			o.err = jsonrpc.NewError(jsonrpc.CodeInternalError, "the tool returned ErrInputRequired inside a task")
		}
		h.Finish(tasks.Outcome{Error: jsonrpc.AsError(o.err)})
		return
	}
	raw, err := s.completeResult(o.res, false)
	if err != nil {
		h.Finish(tasks.Outcome{Error: jsonrpc.Errorf(jsonrpc.CodeInternalError, "encoding the result: %v", err)})
		return
	}
	out := tasks.Outcome{Result: raw}
	if o.res.IsError {
		// completed all the same: in the extension, failed is for JSON-RPC errors only.
		out.StatusMessage = "the tool reported an error"
		for _, c := range o.res.Content {
			if c.Type == mcp.ContentTypeText && c.Text != "" {
				out.StatusMessage = c.Text
				break
			}
		}
	}
	h.Finish(out)
}

// createdResult encodes the flat CreateTaskResult: resultType "task" and the task.
func (s *Session) createdResult(t mcp.Task) (any, error) {
	raw, err := json.Marshal(&mcp.ExtCreateTaskResult{ResultType: mcp.ResultTypeTask, ExtTask: mcp.ExtTaskFrom(t)})
	if err != nil {
		return nil, err
	}
	return json.RawMessage(raw), nil
}

// handleExtTasks answers tasks/get, tasks/update and tasks/cancel in 2026-07-28.
func (s *Session) handleExtTasks(ctx context.Context, req *jsonrpc.Request) (any, error) {
	if !declaresTasks(ctx) {
		return nil, missingTasksExtension()
	}
	var p struct {
		TaskID         *string         `json:"taskId"`
		InputResponses json.RawMessage `json:"inputResponses"`
	}
	if err := json.Unmarshal(req.Params, &p); err != nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params for %s: %v", req.Method, err)
	}
	if p.TaskID == nil || *p.TaskID == "" {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "%s needs params.taskId", req.Method)
	}
	m := s.server.tasks
	id := *p.TaskID
	switch req.Method {
	case mcp.MethodTasksGet:
		d, err := m.Detailed(extOwner, id)
		if err != nil {
			return nil, err
		}
		return &d, nil
	case mcp.MethodTasksUpdate:
		var responses map[string]json.RawMessage
		t := bytes.TrimSpace(p.InputResponses)
		if len(t) == 0 || t[0] != '{' || json.Unmarshal(t, &responses) != nil {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "tasks/update needs params.inputResponses, an object mapping input request keys to their results")
		}
		err := m.Update(extOwner, id, responses, func(key string, q mcp.InputRequest, a json.RawMessage) error {
			if e := checkInputResponse(key, q.Method, a); e != nil {
				return e
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		return struct{}{}, nil
	case mcp.MethodTasksCancel:
		if err := m.CancelExtension(extOwner, id); err != nil {
			return nil, err
		}
		return struct{}{}, nil
	}
	return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "method not found: %s", req.Method)
}

// acceptTaskIDs is the part of a subscriptions/listen's taskIds the server honours:
// the tasks of the extension it holds. Naming task ids needs the extension declared.
func (s *Session) acceptTaskIDs(ctx context.Context, ids []string) ([]string, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	if !declaresTasks(ctx) {
		return nil, missingTasksExtension()
	}
	if s.server.tasks == nil {
		return nil, nil
	}
	var out []string
	for _, id := range ids {
		if s.server.tasks.IsExtension(id) && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out, nil
}

// sendTaskStates sends a new listener the current state of each task it named, so
// that a task that changed before the stream opened is not missed.
func (l *listener) sendTaskStates(srv *Server) {
	for _, id := range l.filter.TaskIDs {
		if d, ok := srv.tasks.DetailedOf(id); ok {
			l.notifyTask(d)
		}
	}
}

func (l *listener) notifyTask(d mcp.DetailedTask) {
	raw, err := json.Marshal(&d)
	if err != nil {
		return
	}
	var params map[string]any
	if json.Unmarshal(raw, &params) != nil {
		return
	}
	l.notify(mcp.NotificationTasks, params)
}

// notifyExtTask sends notifications/tasks, the full DetailedTask, to every open
// subscriptions/listen that named the task.
func (s *Server) notifyExtTask(d mcp.DetailedTask) {
	s.mu.RLock()
	var targets []*listener
	for l := range s.listeners {
		if slices.Contains(l.filter.TaskIDs, d.TaskID) {
			targets = append(targets, l)
		}
	}
	s.mu.RUnlock()
	for _, l := range targets {
		l.notifyTask(d)
	}
}
