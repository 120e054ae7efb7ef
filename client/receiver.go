package client

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/mcpi-dev/mcpi/internal/jsonwire"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/tasks"
)

// Receiver tasks: the server asks the client to run sampling/createMessage or
// elicitation/create as a task. The client answers at once with a CreateTaskResult, puts
// the request in the same pending queue as a plain one, and serves the server's
// tasks/get, tasks/result, tasks/list and tasks/cancel through the shared task engine.

// ReceiverOptions turns receiver tasks on. Zero values take the engine's defaults.
type ReceiverOptions struct {
	// DefaultTTL is the lifetime of a task the server asks for without a ttl.
	DefaultTTL time.Duration
	// TTL, when set, computes that lifetime per request instead of DefaultTTL.
	TTL func(r *Request) time.Duration
	// MaxTTL caps the lifetime a server may ask for.
	MaxTTL time.Duration
	// MaxActive caps the tasks waiting at once; more are refused.
	MaxActive int
	// PollInterval is suggested to the server.
	PollInterval time.Duration
	// PageSize bounds a tasks/list page.
	PageSize int
	// RatePerSecond, when positive, limits the server's task operations on this client
	// (bursts of twice the rate); beyond it they get -32600 with retryAfterMs.
	RatePerSecond float64
}

// receiverOwner is the single owner of a session's receiver tasks: the engine is per
// session, so the session binds them.
const receiverOwner = "server"

func (c *Client) receiverCapability() *mcp.ClientTasksCapability {
	return &mcp.ClientTasksCapability{
		List:   &struct{}{},
		Cancel: &struct{}{},
		Requests: &mcp.ClientTaskRequests{
			Sampling:    &mcp.TaskSamplingRequests{CreateMessage: &struct{}{}},
			Elicitation: &mcp.TaskElicitationRequests{Create: &struct{}{}},
		},
	}
}

// newReceiver makes the session's task engine, or nil when receiver tasks are off.
func (s *Session) newReceiver() *tasks.Manager {
	o := s.client.opts.Receiver
	if o == nil {
		return nil
	}
	return tasks.New(tasks.Options{
		DefaultTTL:    o.DefaultTTL,
		MaxTTL:        o.MaxTTL,
		MaxActive:     o.MaxActive,
		PollInterval:  o.PollInterval,
		PageSize:      o.PageSize,
		RatePerSecond: o.RatePerSecond,
		Now:           s.now,
		Logger:        s.log,
		OnChange: func(_ string, t mcp.Task) {
			_ = s.conn.Notify(context.Background(), mcp.NotificationTasksStatus, &mcp.TaskStatusNotificationParams{Task: t})
		},
	})
}

// receives reports whether this client declared task support for method.
func (s *Session) receives(method string) bool {
	return s.client.capabilities().Tasks.SupportsRequest(method)
}

func (s *Session) startReceiverTask(r *Request, requested *mcp.TaskMetadata) (any, error) {
	if (requested == nil || requested.TTL == nil) && s.client.opts.Receiver.TTL != nil {
		ms := s.client.opts.Receiver.TTL(r).Milliseconds()
		requested = &mcp.TaskMetadata{TTL: &ms}
	}
	// No goroutine waits for the answer: the answer, or the end of the task (cancelled,
	// expired, session closed), finishes it, so that a pending task costs only memory.
	h, err := s.recv.Defer(receiverOwner, requested, func() { _ = r.settle(nil, errNoAnswer) })
	if err != nil {
		return nil, err
	}
	t := h.Created()
	r.ctx = h.Context() // the request now lives as long as the task, not the request that made it
	r.Task = t.TaskID
	s.trackReceiverRequest(t.TaskID, r)
	s.enqueue(r)
	r.whenSettled(func() {
		finish := func() { h.Finish(receiverOutcome(s.unqueue(r))) }
		if errors.Is(r.err, errNoAnswer) {
			finish() // the task has ended: there is nothing to announce
			// A task that expired has left the engine silently, and nothing is left to
			// poll: its entry would stay until a new task swept it. One the server
			// cancelled is kept, and polled, until its ttl: its polls count on.
			if _, kept := s.recv.Owner(t.TaskID); !kept {
				s.forgetReceiverRequest(t.TaskID)
			}
		} else {
			go finish() // the status notification is not sent on the answering goroutine
		}
	})
	return &mcp.CreateTaskResult{Task: t}, nil
}

// receiverOutcome is a receiver task's outcome: the user's answer, or why there is none.
func receiverOutcome(res any, err error) tasks.Outcome {
	if err != nil {
		if errors.Is(err, errNoAnswer) {
			return tasks.Outcome{Error: jsonrpc.NewError(jsonrpc.CodeInternalError, "the request was withdrawn before the user answered")}
		}
		return tasks.Outcome{Error: jsonrpc.AsError(err)}
	}
	// Stored as it will be sent: without HTML escaping, like every message mcpi writes.
	raw, err := jsonwire.Marshal(res)
	if err != nil {
		return tasks.Outcome{Error: jsonrpc.Errorf(jsonrpc.CodeInternalError, "encoding the answer: %v", err)}
	}
	return tasks.Outcome{Result: raw}
}

// ReceiverTasks returns the tasks the server has asked this client to run, oldest first,
// as long as they are kept (until their ttl, or the end of the session).
func (s *Session) ReceiverTasks() []mcp.Task {
	if s.recv == nil {
		return nil
	}
	return s.recv.All(receiverOwner)
}

// handleReceiverTasks serves the server's tasks/* requests about the client's tasks.
func (s *Session) handleReceiverTasks(ctx context.Context, req *jsonrpc.Request) (any, error) {
	if s.recv == nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "this client hosts no tasks (%s)", req.Method)
	}
	var p struct {
		TaskID string `json:"taskId"`
		Cursor string `json:"cursor"`
	}
	if len(req.Params) > 0 {
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params for %s: %v", req.Method, err)
		}
	}
	m := s.recv
	switch req.Method {
	case mcp.MethodTasksGet:
		t, err := m.Get(receiverOwner, p.TaskID)
		if err != nil {
			return nil, err
		}
		s.receiverPolled(t)
		return &mcp.GetTaskResult{Task: t}, nil
	case mcp.MethodTasksResult:
		out, err := m.Result(ctx, receiverOwner, p.TaskID, req.ID)
		if err != nil {
			return nil, err
		}
		if out.Error != nil {
			s.receiverFetched(p.TaskID, nil, out.Error)
			return nil, out.Error
		}
		res, err := tasks.WithRelatedTaskMeta(out.Result, p.TaskID)
		if err == nil {
			s.receiverFetched(p.TaskID, res, nil)
		}
		return res, err
	case mcp.MethodTasksList:
		list, next, err := m.List(receiverOwner, p.Cursor)
		if err != nil {
			return nil, err
		}
		return &mcp.ListTasksResult{Tasks: list, NextCursor: next}, nil
	default: // tasks/cancel
		t, err := m.Cancel(receiverOwner, p.TaskID, "")
		if err != nil {
			return nil, err
		}
		s.receiverCancelled(t)
		return &mcp.CancelTaskResult{Task: t}, nil
	}
}

// ReceiverPollEvent says the server polled (tasks/get) a receiver task: front ends show
// with it that the server waits for the answer to a request it runs as a task.
type ReceiverPollEvent struct {
	At
	// Request is the request the task runs; it may have been answered already.
	Request *Request
	// Task is the task's state as the client reported it.
	Task mcp.Task
	// Polls counts the server's tasks/get of the task so far, this one included.
	Polls int
}

// ReceiverCancelEvent says the server cancelled a receiver task (tasks/cancel): the
// request it ran is withdrawn, and Task is the task as the client answered the cancel
// (cancelled, or how it had ended before).
type ReceiverCancelEvent struct {
	At
	// Request is the request the task ran.
	Request *Request
	Task    mcp.Task
}

// ReceiverResultEvent says the server fetched the outcome of a receiver task with
// tasks/result: the answer went back to it, exactly as Result or Err shows.
type ReceiverResultEvent struct {
	At
	// Request is the request the task ran.
	Request *Request
	// Task is the task's id.
	Task string
	// Result is the result sent, or Err the error.
	Result json.RawMessage
	Err    *jsonrpc.Error
}

// ReceiverPolls returns how many times the server has polled (tasks/get) receiver task
// id, as long as the client keeps the task.
func (s *Session) ReceiverPolls(id string) int {
	p := &s.polled
	p.mu.Lock()
	defer p.mu.Unlock()
	if e := p.byID[id]; e != nil {
		return e.polls
	}
	return 0
}

// receiverRequests remembers the request each receiver task runs and counts the server's
// polls of it, for as long as the engine keeps the task.
type receiverRequests struct {
	mu      sync.Mutex
	byID    map[string]*polledRequest
	sweepAt int
	peak    int // the most entries byID has held since it was last allocated
}

type polledRequest struct {
	r     *Request
	polls int
}

// trackReceiverRequest remembers the request of a new receiver task. Tasks leave the
// engine (ttl, eviction) without a word, so once the map has grown, the entries of tasks
// the engine no longer knows are dropped: the map stays within twice the tasks kept.
func (s *Session) trackReceiverRequest(id string, r *Request) {
	p := &s.polled
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.byID == nil {
		p.byID = map[string]*polledRequest{}
	}
	if len(p.byID) >= max(p.sweepAt, 256) {
		kept := map[string]*polledRequest{}
		for _, t := range s.recv.All(receiverOwner) {
			if e := p.byID[t.TaskID]; e != nil {
				kept[t.TaskID] = e
			}
		}
		p.byID, p.sweepAt, p.peak = kept, 2*len(kept), len(kept)
	}
	p.byID[id] = &polledRequest{r: r}
	p.peak = max(p.peak, len(p.byID))
}

// forgetReceiverRequest drops the entry of a receiver task that ended unanswered.
func (s *Session) forgetReceiverRequest(id string) {
	p := &s.polled
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.byID, id)
	// A Go map keeps its buckets when emptied: copy it once it is mostly empty, so that the
	// memory of a burst of expired tasks comes back.
	if p.peak > 256 && len(p.byID) < p.peak/4 {
		kept := make(map[string]*polledRequest, len(p.byID)) // maps.Clone would keep the size
		for k, v := range p.byID {
			kept[k] = v
		}
		p.byID, p.peak = kept, len(kept)
	}
}

// receiverFetched tells the front ends that the server fetched a receiver task's outcome.
func (s *Session) receiverFetched(id string, res json.RawMessage, rpcErr *jsonrpc.Error) {
	if !s.events.active() {
		return
	}
	p := &s.polled
	p.mu.Lock()
	e := p.byID[id]
	p.mu.Unlock()
	ev := &ReceiverResultEvent{At: At{s.now()}, Task: id, Result: res, Err: rpcErr}
	if e != nil {
		ev.Request = e.r
	}
	s.events.publish(ev)
}

// receiverPolled counts a tasks/get of a receiver task and tells the front ends.
// receiverCancelled tells the session's subscribers that the server cancelled t.
func (s *Session) receiverCancelled(t mcp.Task) {
	p := &s.polled
	p.mu.Lock()
	var r *Request
	if e := p.byID[t.TaskID]; e != nil {
		r = e.r
	}
	p.mu.Unlock()
	s.events.publish(&ReceiverCancelEvent{At: At{s.now()}, Request: r, Task: t})
}

func (s *Session) receiverPolled(t mcp.Task) {
	p := &s.polled
	p.mu.Lock()
	e := p.byID[t.TaskID]
	n := 0
	if e != nil {
		e.polls++
		n = e.polls
	}
	p.mu.Unlock()
	if e != nil {
		s.events.publish(&ReceiverPollEvent{At: At{s.now()}, Request: e.r, Task: t, Polls: n})
	}
}
