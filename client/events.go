package client

import (
	"context"
	"iter"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// Event is something that happened on a [Session]. Front ends render events; they never
// read the wire themselves. Every event is a pointer (*LogEvent, *TaskEvent, ...): only
// pointers are Events, so that a type switch with a case of a value type (LogEvent)
// does not compile, rather than never match.
type Event interface{ eventTime() time.Time }

// At is when an event happened.
type At struct{ Time time.Time }

func (a *At) eventTime() time.Time { return a.Time }

// MessageEvent is one JSON-RPC message, either way: the raw traffic view.
type MessageEvent struct {
	At
	Dir     jsonrpc.Direction
	Message jsonrpc.Message
}

// LogEvent is a notifications/message from the server.
type LogEvent struct {
	At
	Params mcp.LoggingMessageNotificationParams
}

// ProgressEvent is a notifications/progress from the server.
type ProgressEvent struct {
	At
	Params mcp.ProgressNotificationParams
}

// ReachabilityEvent says that the server of a Streamable HTTP session stopped answering
// (Err: the latest request found nothing listening at its URL) or answers again (Err
// nil). Over HTTP a server that goes away ends no connection: the session lives on, and
// a request reaches the server once it is back. [Session.Unreachable] gives the state.
type ReachabilityEvent struct {
	At
	Err error
}

// ListChangedEvent says the server's tools, prompts or resources changed; Method is the
// notification's method.
type ListChangedEvent struct {
	At
	Method string
}

// ResourceUpdatedEvent says a subscribed resource changed.
type ResourceUpdatedEvent struct {
	At
	URI string
}

// RequestEvent says a server request was queued for the user (Settled false) or left the
// queue, answered or withdrawn (Settled true).
type RequestEvent struct {
	At
	Request *Request
	Settled bool
}

// ClosedEvent is the last event of a session.
type ClosedEvent struct {
	At
	Err error
}

// DroppedEvent stands where a [Subscription] left events out because its reader fell
// behind: more than [MaxQueuedEvents] events, or about [MaxQueuedBytes] of them, waited
// unread. Count says how many. The events left out are the oldest unread ones, so a
// reader that gets one goes on with the newest (a flood's last log line is shown, not
// lost behind a gap). The session's state is whole (Session.Tasks,
// Session.PendingRequests, Session.ReceiverTasks): a front end that gets one reads it
// again. A task's TaskCreated and outcome and the session's ClosedEvent are never left
// out.
type DroppedEvent struct {
	At
	Count int
}

// What a subscription holds for a reader that has fallen behind. A server decides how
// many events a session has (every message, log line and progress notification is one),
// so an unbounded queue would let it take the client's memory while a front end is slow
// or stopped (a terminal paused with Ctrl-S, a pipe nobody reads). At either bound the
// subscription leaves out its oldest unread events, down to half of both, so that it
// trims seldom and its reader always ends on what happened last.
const (
	MaxQueuedEvents = 16384
	MaxQueuedBytes  = 64 << 20
)

// hub fans events out to subscribers. Each subscriber has its own queue, so a slow
// front end never stalls the connection; the queue is bounded (see [MaxQueuedEvents]).
type hub struct {
	mu     sync.Mutex
	subs   map[*Subscription]struct{}
	closed bool
	n      atomic.Int32 // len(subs), read without mu
}

// Subscription receives every event published after it was made, unless its reader
// falls far behind (see [DroppedEvent]).
type Subscription struct {
	h     *hub
	mu    sync.Mutex
	queue []Event
	bytes int // eventSize of what queue holds
	// trimAt is the queue's length at which it is trimmed next, when what must be
	// delivered has filled it past MaxQueuedEvents (else 0): half a bound above what the
	// last trim left, so that a queue of outcomes is not scanned again at every event.
	trimAt int
	wake   chan struct{}
	closed bool
}

func (h *hub) subscribe() *Subscription {
	s := &Subscription{h: h, wake: make(chan struct{}, 1)}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		s.closed = true
		return s
	}
	if h.subs == nil {
		h.subs = map[*Subscription]struct{}{}
	}
	h.subs[s] = struct{}{}
	h.n.Store(int32(len(h.subs)))
	return s
}

// active reports whether anyone subscribes, so that publishers with no audience (a task
// nobody watches, in a burst of thousands) need not build their event.
func (h *hub) active() bool { return h.n.Load() > 0 }

func (h *hub) publish(e Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs {
		s.push(e)
	}
}

// close publishes a final event (unless nil) and ends every subscription after it is
// read.
func (h *hub) close(e Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	h.closed = true
	for s := range h.subs {
		if e != nil {
			s.push(e)
		}
		s.end()
	}
	h.subs = nil
	h.n.Store(0)
}

func (s *Subscription) push(e Event) {
	size := eventSize(e)
	s.mu.Lock()
	if len(s.queue) >= max(MaxQueuedEvents, s.trimAt) || s.bytes+size > MaxQueuedBytes {
		s.leaveOut(size)
		if s.bytes+size > MaxQueuedBytes && !mustDeliver(e) {
			// Too large to queue even now: this event is the one left out.
			e, size = &DroppedEvent{At: At{e.eventTime()}, Count: 1}, eventSize(nil)
			if n := len(s.queue); n > 0 {
				if d, ok := s.queue[n-1].(*DroppedEvent); ok {
					d.Count++
					s.mu.Unlock()
					return
				}
			}
		}
	}
	s.queue = append(s.queue, e)
	s.bytes += size
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// leaveOut makes room for an event of size bytes by leaving out the oldest unread events
// until half of both bounds is free. They become one DroppedEvent at the queue's head (the
// one already there, if its reader has not taken it yet); what must be delivered stays,
// in its order, after it.
func (s *Subscription) leaveOut(size int) {
	if len(s.queue) == 0 {
		return
	}
	i := 0
	d, _ := s.queue[0].(*DroppedEvent)
	if d != nil {
		i = 1
	}
	var kept []Event
	bytes := s.bytes
	for ; i < len(s.queue) && (len(s.queue)-i > MaxQueuedEvents/2 || bytes+size > MaxQueuedBytes/2); i++ {
		e := s.queue[i]
		if mustDeliver(e) {
			kept = append(kept, e)
			continue
		}
		if d == nil {
			d = &DroppedEvent{At: At{e.eventTime()}}
			bytes += eventSize(nil)
		}
		d.Count++
		bytes -= eventSize(e)
	}
	if d != nil {
		// A new array, so that the old one and what it pointed to go.
		q := make([]Event, 0, 1+len(kept)+len(s.queue)-i+1)
		q = append(q, d)
		q = append(q, kept...)
		s.queue = append(q, s.queue[i:]...)
		s.bytes = bytes
	}
	s.trimAt = 0
	if n := len(s.queue); n > MaxQueuedEvents/2+1 {
		s.trimAt = n + MaxQueuedEvents/2 // what must be delivered is more than the gap
	}
}

// mustDeliver reports whether e is kept however far behind a reader is: what begins or
// ends a task's events, or ends the session's, each of which happens once (and the
// tasks are the client's own calls, not a server's to multiply).
func mustDeliver(e Event) bool {
	switch e := e.(type) {
	case *ClosedEvent:
		return true
	case *TaskEvent:
		return e.Kind == TaskCreated || e.Kind.IsOutcome()
	}
	return false
}

// eventSize estimates the memory e holds toward the bound on bytes: what came from the
// wire at its size, the rest as a small constant, and nothing for what must be delivered
// (kept whatever the bound, it would only make every later event trim in vain).
func eventSize(e Event) int {
	const base = 256
	if mustDeliver(e) {
		return 0
	}
	switch e := e.(type) {
	case *MessageEvent:
		switch m := e.Message.(type) {
		case *jsonrpc.Request:
			return base + len(m.Method) + len(m.Params)
		case *jsonrpc.Response:
			n := base + len(m.Result)
			if m.Error != nil {
				n += len(m.Error.Message) + len(m.Error.Data)
			}
			return n
		}
	case *LogEvent:
		return base + len(e.Params.Logger) + len(e.Params.Data)
	case *ProgressEvent:
		return base + len(e.Params.Message)
	case *ReceiverResultEvent:
		return base + len(e.Result)
	}
	return base
}

func (s *Subscription) end() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Next returns the next event. It returns false when the subscription has ended and
// its queue is empty, or when ctx is done.
func (s *Subscription) Next(ctx context.Context) (Event, bool) {
	for {
		s.mu.Lock()
		if len(s.queue) > 0 {
			e := s.queue[0]
			s.queue[0] = nil
			s.queue = s.queue[1:]
			s.bytes -= eventSize(e)
			if len(s.queue) == 0 && cap(s.queue) > 1024 {
				s.queue = nil // a queue that grew long lets go of its array
			}
			if len(s.queue) < MaxQueuedEvents/2 {
				s.trimAt = 0
			}
			s.mu.Unlock()
			return e, true
		}
		closed := s.closed
		s.mu.Unlock()
		if closed {
			return nil, false
		}
		select {
		case <-s.wake:
		case <-ctx.Done():
			return nil, false
		}
	}
}

// All ranges over events until the subscription ends or ctx is done.
func (s *Subscription) All(ctx context.Context) iter.Seq[Event] {
	return func(yield func(Event) bool) {
		for {
			e, ok := s.Next(ctx)
			if !ok || !yield(e) {
				return
			}
		}
	}
}

// Close stops the subscription.
func (s *Subscription) Close() {
	s.h.mu.Lock()
	delete(s.h.subs, s)
	s.h.n.Store(int32(len(s.h.subs)))
	s.h.mu.Unlock()
	s.end()
}

// closeIfAny closes s unless it is nil: an optional subscription.
func (s *Subscription) closeIfAny() {
	if s != nil {
		s.Close()
	}
}
