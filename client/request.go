package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// Request is a server request waiting for the user: sampling or elicitation. Exactly one
// of Sampling and Elicitation is set. A front end answers it with one of the methods
// below; the first answer wins.
type Request struct {
	ID          jsonrpc.ID
	Method      string
	Sampling    *mcp.CreateMessageParams
	Elicitation *mcp.ElicitParams
	// RelatedTask is the task the request belongs to (side-channel input), if any.
	RelatedTask string
	// Task is the id of the receiver task this request runs as, when the server asked
	// for it to run as a task; the server polls it while the user answers.
	Task string
	// InputKey is set on a request of the 2026-07-28 era: the key under which the server
	// asked for it in an input_required result or a task's inputRequests. Such a request
	// has no ID.
	InputKey string
	Received time.Time

	// round is the requests asked for with this one (InputKey), itself included.
	round []*Request

	ctx    context.Context
	once   sync.Once
	done   chan struct{}
	result any
	err    error

	hookMu   sync.Mutex
	settled  bool
	onSettle func() // run once settled, on the settling goroutine

	queued bool // in the session's pending queue; guarded by the session's mu
}

// Round returns the requests that the server asked for at once with r, in one
// input_required result or one task's inputRequests (2026-07-28), r included, in the
// order of their keys: a front end that cannot answer r may say at once what else the
// round needs, as one left unanswered ends the round. It is nil for a server request of
// 2025-11-25, which comes alone.
func (r *Request) Round() []*Request { return r.round }

// ErrAnswered is returned when a request is answered twice.
var ErrAnswered = errors.New("the request was already answered or withdrawn")

// Done is closed once the request is answered or withdrawn.
func (r *Request) Done() <-chan struct{} { return r.done }

// Answer is how the request was settled, once [Request.Done] is closed: the result sent
// to the server (an [*mcp.ElicitResult] or an [*mcp.CreateMessageResult]) or the error.
// Before that it returns nil, nil.
func (r *Request) Answer() (any, error) {
	select {
	case <-r.done:
		return r.result, r.err
	default:
		return nil, nil
	}
}

// Withdrawn reports whether the server cancelled the request or the session ended
// before it was answered.
func (r *Request) Withdrawn() bool {
	select {
	case <-r.done:
		return errors.Is(r.err, errNoAnswer)
	default:
		return r.ctx.Err() != nil
	}
}

func (r *Request) settle(result any, err error) error {
	settled := false
	r.once.Do(func() {
		r.result, r.err = result, err
		close(r.done)
		settled = true
	})
	if !settled {
		return ErrAnswered
	}
	r.hookMu.Lock()
	r.settled = true
	f := r.onSettle
	r.hookMu.Unlock()
	if f != nil {
		f()
	}
	return nil
}

// whenSettled runs f once r is answered or withdrawn: on the goroutine that settles it,
// or at once if it already is.
func (r *Request) whenSettled(f func()) {
	r.hookMu.Lock()
	if r.settled {
		r.hookMu.Unlock()
		f()
		return
	}
	r.onSettle = f
	r.hookMu.Unlock()
}

// ErrInvalidAnswer is matched (errors.Is) by the error of an answer that does not fit
// its request: a result of the other method, nil, an elicitation action the protocol does
// not know or content with an action other than accept, a sampling role other than user
// or assistant, and [Request.Decline] or [Request.Dismiss] of a sampling request. Nothing
// is sent: the request waits for an answer that fits.
var ErrInvalidAnswer = errors.New("the answer does not fit the request")

// Respond answers with a complete result: an [mcp.ElicitResult] to elicitation/create,
// an [mcp.CreateMessageResult] to sampling/createMessage, each as a value or a pointer.
// An accepted elicitation's content takes the defaults the requested schema gives for
// the fields it leaves out, as [Request.Accept]'s does. An answer that does not fit the
// request is refused with an error matching [ErrInvalidAnswer], and nothing is sent.
// The result is copied: the caller may reuse it.
func (r *Request) Respond(result any) error {
	res, err := r.fit(result)
	if err != nil {
		return err
	}
	return r.settle(res, nil)
}

// fit checks that result answers r, and returns the copy of it that is sent.
func (r *Request) fit(result any) (any, error) {
	switch res := result.(type) {
	case mcp.ElicitResult:
		return r.fit(&res)
	case mcp.CreateMessageResult:
		return r.fit(&res)
	case *mcp.ElicitResult:
		if res == nil {
			return nil, fmt.Errorf("%w: a nil result", ErrInvalidAnswer)
		}
		if r.Elicitation == nil {
			return nil, fmt.Errorf("%w: an elicitation result cannot answer %s", ErrInvalidAnswer, r.Method)
		}
		switch res.Action {
		case mcp.ElicitActionAccept, mcp.ElicitActionDecline, mcp.ElicitActionCancel:
		default:
			return nil, fmt.Errorf("%w: the action %q is none of accept, decline and cancel", ErrInvalidAnswer, res.Action)
		}
		if res.Action != mcp.ElicitActionAccept && len(res.Content) > 0 {
			return nil, fmt.Errorf("%w: content goes only with the action accept, not %s", ErrInvalidAnswer, res.Action)
		}
		c := *res
		c.Meta = res.Meta.Clone()
		if c.Action == mcp.ElicitActionAccept {
			c.Content = mcp.ApplySchemaDefaults(r.Elicitation.RequestedSchema, res.Content)
		}
		return &c, nil
	case *mcp.CreateMessageResult:
		if res == nil {
			return nil, fmt.Errorf("%w: a nil result", ErrInvalidAnswer)
		}
		if r.Sampling == nil {
			return nil, fmt.Errorf("%w: a sampling result cannot answer %s", ErrInvalidAnswer, r.Method)
		}
		if res.Role != mcp.RoleAssistant && res.Role != mcp.RoleUser {
			return nil, fmt.Errorf("%w: the role %q is neither assistant nor user", ErrInvalidAnswer, res.Role)
		}
		c := *res
		c.Meta = res.Meta.Clone()
		return &c, nil
	case nil:
		return nil, fmt.Errorf("%w: a nil result", ErrInvalidAnswer)
	}
	return nil, fmt.Errorf("%w: a %T answers neither elicitation/create nor sampling/createMessage", ErrInvalidAnswer, result)
}

// Accept answers an elicitation with content; fields the user left out take the
// defaults the requested schema gives. The content is sent as it is: a front end that
// takes it from somewhere other than a form of its own checks it against the schema
// first with [ValidateElicitContent].
func (r *Request) Accept(content map[string]any) error {
	return r.Respond(&mcp.ElicitResult{Action: mcp.ElicitActionAccept, Content: content})
}

// Decline answers an elicitation with "decline": the user said no. A sampling request
// has no such answer (see [Request.Refuse]): it is refused with [ErrInvalidAnswer].
func (r *Request) Decline() error {
	return r.Respond(&mcp.ElicitResult{Action: mcp.ElicitActionDecline})
}

// Dismiss answers an elicitation with "cancel": the user closed it without choosing.
// A sampling request has no such answer (see [Request.Refuse]): it is refused with
// [ErrInvalidAnswer].
func (r *Request) Dismiss() error {
	return r.Respond(&mcp.ElicitResult{Action: mcp.ElicitActionCancel})
}

// Reject answers with a JSON-RPC error; a non-[*jsonrpc.Error] becomes -32603. For a
// request the user turned down, use [Request.Refuse].
func (r *Request) Reject(err error) error {
	return r.settle(nil, err)
}

// CodeUserRejected is the JSON-RPC error code the MCP spec suggests for a request the
// user refused.
const CodeUserRejected = -1

// Refuse answers with the error of a request the user (or a front end acting for the
// user) turned down: code [CodeUserRejected] with msg.
func (r *Request) Refuse(msg string) error {
	return r.settle(nil, jsonrpc.NewError(CodeUserRejected, msg))
}

// PendingRequests returns the requests waiting for an answer, oldest first. A program
// that answers from here alone, with no OnRequest and no subscription, declares its
// capabilities ([Options.Capabilities]): with the default ones, the client refuses the
// requests that nothing it can see would answer.
func (s *Session) PendingRequests() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pending.list()
}

// pendingQueue is the requests waiting for an answer in the order they were queued, so
// that listing 100,000 of them is a copy, not a sort. Settled requests leave the slice
// lazily, when they are most of it.
type pendingQueue struct {
	order []*Request
	n     int // how many of order are still queued
}

func (q *pendingQueue) add(r *Request) {
	r.queued = true
	q.order = append(q.order, r)
	q.n++
}

func (q *pendingQueue) remove(r *Request) {
	if !r.queued {
		return
	}
	r.queued = false
	q.n--
	switch {
	case q.n == 0:
		q.order = nil // a slice keeps the memory of its largest size
	case len(q.order) > 2*q.n+32:
		q.order = q.list()
	}
}

// list returns the queued requests, oldest first. They are queued in the order they
// arrived, which two handlers racing to queue may swap; Received then decides.
func (q *pendingQueue) list() []*Request {
	out := make([]*Request, 0, q.n)
	for _, r := range q.order {
		if r.queued {
			out = append(out, r)
		}
	}
	if !slices.IsSortedFunc(out, byReceived) {
		slices.SortStableFunc(out, byReceived)
	}
	return out
}

func byReceived(a, b *Request) int { return a.Received.Compare(b.Received) }

// parseRequest reads a sampling or elicitation request from the server.
func (s *Session) parseRequest(ctx context.Context, req *jsonrpc.Request) (*Request, *mcp.TaskMetadata, error) {
	r := &Request{ID: req.ID, Method: req.Method, Received: s.now(), ctx: ctx, done: make(chan struct{})}
	var meta mcp.Meta
	var task *mcp.TaskMetadata
	switch req.Method {
	case mcp.MethodSamplingCreateMessage:
		if s.client.capabilities().Sampling == nil {
			return nil, nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "this client does not support sampling")
		}
		r.Sampling = new(mcp.CreateMessageParams)
		if err := json.Unmarshal(req.Params, r.Sampling); err != nil {
			return nil, nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid sampling request: %v", err)
		}
		meta, task = r.Sampling.Meta, r.Sampling.Task
	case mcp.MethodElicitationCreate:
		if s.client.capabilities().Elicitation == nil {
			return nil, nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "this client does not support elicitation")
		}
		r.Elicitation = new(mcp.ElicitParams)
		if err := json.Unmarshal(req.Params, r.Elicitation); err != nil {
			return nil, nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid elicitation request: %v", err)
		}
		meta, task = r.Elicitation.Meta, r.Elicitation.Task
	}
	r.RelatedTask, _ = meta.RelatedTask()
	return r, task, nil
}

// queue answers a server request: at once with a CreateTaskResult when the server asked
// for a task and this client hosts them, otherwise when the user has answered.
func (s *Session) queue(ctx context.Context, req *jsonrpc.Request) (any, error) {
	r, task, err := s.parseRequest(ctx, req)
	if err != nil {
		return nil, err
	}
	if err := s.unanswerable(r); err != nil {
		return nil, err
	}
	// A task asked of a client that did not declare it is ignored, as the spec requires.
	if task != nil && s.recv != nil && s.receives(req.Method) {
		return s.startReceiverTask(r, task)
	}
	return s.await(r)
}

// unanswerable returns the error that refuses r at once when nothing on this client can
// answer it: the client declares the default capabilities (see [Options.Capabilities]),
// has no [Options.OnRequest], and nobody subscribes to the session's events or to the
// events of the task r belongs to. Queued, r would wait for ever, and the server's
// request (or, in 2026-07-28, the call that asked for it) with it. A client given its
// capabilities declares what it answers, and its requests wait for a subscriber to come.
func (s *Session) unanswerable(r *Request) error {
	o := &s.client.opts
	if o.Capabilities != nil || o.OnRequest != nil || s.events.active() || s.tasks.watched(r.RelatedTask) {
		return nil
	}
	s.log.Warn("a server request was refused: nothing on this client answers it", "method", r.Method)
	return jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "nothing on this client answers %s: it has no request handler and no event subscriber", r.Method)
}

// await puts r in the pending queue until it is answered or withdrawn (r.ctx ends).
func (s *Session) await(r *Request) (any, error) {
	s.enqueue(r)
	select {
	case <-r.done:
	case <-r.ctx.Done():
		_ = r.settle(nil, errNoAnswer)
	}
	return s.unqueue(r)
}

// enqueue puts r in the pending queue and tells the front ends.
func (s *Session) enqueue(r *Request) {
	s.mu.Lock()
	s.pending.add(r)
	s.mu.Unlock()
	s.events.publish(&RequestEvent{At: At{s.now()}, Request: r})
	if t := s.tasks.taskFor(r.RelatedTask, r); t != nil {
		t.emit(TaskEvent{Kind: TaskInput, Request: r})
	}
	if h := s.client.opts.OnRequest; h != nil {
		go h(r.ctx, r)
	}
}

// unqueue takes the settled r out of the pending queue and returns its answer.
func (s *Session) unqueue(r *Request) (any, error) {
	s.mu.Lock()
	s.pending.remove(r)
	s.mu.Unlock()
	s.events.publish(&RequestEvent{At: At{s.now()}, Request: r, Settled: true})
	if r.err != nil {
		return nil, r.err
	}
	if r.RelatedTask != "" && r.InputKey == "" {
		withRelatedTask(r.result, r.RelatedTask)
	}
	return r.result, nil
}

// withRelatedTask marks a side-channel answer as belonging to its task, as the spec
// requires of every message of a task.
func withRelatedTask(result any, taskID string) {
	switch res := result.(type) {
	case *mcp.ElicitResult:
		res.Meta.SetRelatedTask(taskID)
	case *mcp.CreateMessageResult:
		res.Meta.SetRelatedTask(taskID)
	}
}
