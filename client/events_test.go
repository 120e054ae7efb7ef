package client

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// drain reads what s holds now, without waiting.
func drain(t *testing.T, s *Subscription) []Event {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out []Event
	for {
		e, ok := s.Next(ctx)
		if !ok {
			return out
		}
		out = append(out, e)
	}
}

// TestSubscriptionBoundedByCount: a reader that does not read holds MaxQueuedEvents
// events, then one DroppedEvent counting the rest; a task's outcome and the session's end
// are kept past the bound, in their order; once the reader has caught up to half, events
// are queued again.
func TestSubscriptionBoundedByCount(t *testing.T) {
	var h hub
	s := h.subscribe()
	log := func(i int) *LogEvent {
		return &LogEvent{Params: mcp.LoggingMessageNotificationParams{Logger: "l", Data: json.RawMessage(`1`)}, At: At{time.Unix(int64(i), 0)}}
	}
	const extra = 1000
	for i := range MaxQueuedEvents + extra {
		h.publish(log(i))
	}
	outcome := &TaskEvent{Kind: TaskResult}
	h.publish(outcome)
	h.publish(log(-1))
	if n := len(s.queue); n != MaxQueuedEvents+3 {
		t.Fatalf("queue holds %d events, want %d (the bound, a DroppedEvent, the outcome, a DroppedEvent)", n, MaxQueuedEvents+3)
	}
	got := drain(t, s)
	for i, e := range got[:MaxQueuedEvents] {
		if l, ok := e.(*LogEvent); !ok || l.Time.Unix() != int64(i) {
			t.Fatalf("event %d is %#v, want log %d", i, e, i)
		}
	}
	d, ok := got[MaxQueuedEvents].(*DroppedEvent)
	if !ok || d.Count != extra {
		t.Fatalf("after the bound: %#v, want a DroppedEvent of %d", got[MaxQueuedEvents], extra)
	}
	if got[MaxQueuedEvents+1] != outcome {
		t.Fatalf("then %#v, want the outcome", got[MaxQueuedEvents+1])
	}
	// The log after the outcome was left out too, and counted where it happened.
	if d2, ok := got[MaxQueuedEvents+2].(*DroppedEvent); !ok || d2.Count != 1 {
		t.Fatalf("last: %#v, want a DroppedEvent of 1", got[MaxQueuedEvents+2])
	}
	if s.bytes != 0 {
		t.Fatalf("an empty queue counts %d bytes", s.bytes)
	}

	// Caught up: events are queued again.
	h.publish(log(7))
	h.close(&ClosedEvent{})
	got = drain(t, s)
	if len(got) != 2 {
		t.Fatalf("after catching up: %d events, want 2", len(got))
	}
	if l, ok := got[0].(*LogEvent); !ok || l.Time.Unix() != 7 {
		t.Fatalf("after catching up: %#v, want log 7", got[0])
	}
	if _, ok := got[1].(*ClosedEvent); !ok {
		t.Fatalf("last: %#v, want the ClosedEvent", got[1])
	}
}

// TestSubscriptionCatchesUpAtHalf: a subscription that fell behind queues again once its
// reader has read down to half the bound, not at the first event read.
func TestSubscriptionCatchesUpAtHalf(t *testing.T) {
	var h hub
	s := h.subscribe()
	p := &ProgressEvent{}
	for range MaxQueuedEvents + 1 {
		h.publish(p)
	}
	ctx := context.Background()
	for len(s.queue) > MaxQueuedEvents/2+1 {
		if _, ok := s.Next(ctx); !ok {
			t.Fatal("the subscription ended")
		}
	}
	h.publish(p) // still behind: counted in the DroppedEvent at the tail
	if d, ok := s.queue[len(s.queue)-1].(*DroppedEvent); !ok || d.Count != 2 {
		t.Fatalf("tail %#v, want a DroppedEvent of 2", s.queue[len(s.queue)-1])
	}
	s.Next(ctx)
	h.publish(p) // half read: queued
	if s.queue[len(s.queue)-1] != Event(p) {
		t.Fatalf("tail %#v, want the progress event", s.queue[len(s.queue)-1])
	}
}

// TestSubscriptionBoundedByBytes: large messages from the wire fill a subscription by
// their size long before their count.
func TestSubscriptionBoundedByBytes(t *testing.T) {
	var h hub
	s := h.subscribe()
	big := json.RawMessage(`"` + string(make([]byte, 1<<20-2)) + `"`)
	for i := range 200 {
		if i%2 == 0 {
			h.publish(&MessageEvent{Dir: jsonrpc.Inbound, Message: &jsonrpc.Request{Method: mcp.NotificationMessage, Params: big}})
		} else {
			h.publish(&LogEvent{Params: mcp.LoggingMessageNotificationParams{Data: big}})
		}
	}
	if s.bytes > MaxQueuedBytes {
		t.Fatalf("queue counts %d bytes, over the bound of %d", s.bytes, MaxQueuedBytes)
	}
	got := drain(t, s)
	kept := len(got) - 1
	if want := MaxQueuedBytes / (1<<20 + 256); kept != want {
		t.Fatalf("%d events kept, want %d", kept, want)
	}
	if d, ok := got[kept].(*DroppedEvent); !ok || d.Count != 200-kept {
		t.Fatalf("last %#v, want a DroppedEvent of %d", got[kept], 200-kept)
	}
}
