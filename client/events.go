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
// read the wire themselves.
type Event interface{ eventTime() time.Time }

// At is when an event happened.
type At struct{ Time time.Time }

func (a At) eventTime() time.Time { return a.Time }

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

// hub fans events out to subscribers. Each subscriber has an unbounded queue, so a slow
// front end never stalls the connection and never loses an event.
type hub struct {
	mu     sync.Mutex
	subs   map[*Subscription]struct{}
	closed bool
	n      atomic.Int32 // len(subs), read without mu
}

// Subscription receives every event published after it was made.
type Subscription struct {
	h      *hub
	mu     sync.Mutex
	queue  []Event
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
	s.mu.Lock()
	s.queue = append(s.queue, e)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
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
