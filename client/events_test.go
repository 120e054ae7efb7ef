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

// TestSubscriptionBoundedByCount: a reader that does not read holds at most
// MaxQueuedEvents events: the oldest are left out, counted in one DroppedEvent at the
// head, and the newest are all there, the last one last. A task's creation and outcome
// among those left out are kept, after the gap, in their order; the session's end comes
// last.
func TestSubscriptionBoundedByCount(t *testing.T) {
	var h hub
	s := h.subscribe()
	log := func(i int) *LogEvent {
		return &LogEvent{Params: mcp.LoggingMessageNotificationParams{Logger: "l", Data: json.RawMessage(`1`)}, At: At{time.Unix(int64(i), 0)}}
	}
	created, outcome := &TaskEvent{Kind: TaskCreated}, &TaskEvent{Kind: TaskResult}
	const total = 3*MaxQueuedEvents + 7
	for i := range total {
		switch i {
		case 3:
			h.publish(created)
		case 10:
			h.publish(outcome)
		}
		h.publish(log(i))
		if len(s.queue) > MaxQueuedEvents+3 { // the gap and the task's two besides the bound
			t.Fatalf("after %d events the queue holds %d", i+1, len(s.queue))
		}
	}
	h.close(&ClosedEvent{})
	got := drain(t, s)
	d, ok := got[0].(*DroppedEvent)
	if !ok {
		t.Fatalf("first %#v, want the gap", got[0])
	}
	if d.Time.Unix() != 0 {
		t.Errorf("the gap is at %v, want the first event left out (0)", d.Time.Unix())
	}
	if got[1] != created || got[2] != outcome {
		t.Fatalf("then %#v and %#v, want the task's creation and outcome", got[1], got[2])
	}
	logs := got[3 : len(got)-1]
	if d.Count+len(logs) != total {
		t.Fatalf("%d left out and %d logs, of %d", d.Count, len(logs), total)
	}
	for i, e := range logs {
		if l, ok := e.(*LogEvent); !ok || l.Time.Unix() != int64(d.Count+i) {
			t.Fatalf("log %d is %#v, want log %d", i, e, d.Count+i)
		}
	}
	if _, ok := got[len(got)-1].(*ClosedEvent); !ok {
		t.Fatalf("last: %#v, want the ClosedEvent", got[len(got)-1])
	}
	if s.bytes != 0 {
		t.Fatalf("an empty queue counts %d bytes", s.bytes)
	}
}

// TestSubscriptionGapGrowsUntilRead: while its reader has not taken the gap at the head,
// more left out adds to it; once taken, the next leaving out makes a new one, and between
// the two the reader has what was newest.
func TestSubscriptionGapGrowsUntilRead(t *testing.T) {
	var h hub
	s := h.subscribe()
	p := &ProgressEvent{}
	for range 2*MaxQueuedEvents + 1 {
		h.publish(p)
	}
	d, ok := s.queue[0].(*DroppedEvent)
	if !ok || d.Count < MaxQueuedEvents {
		t.Fatalf("head %#v, want one gap of at least %d", s.queue[0], MaxQueuedEvents)
	}
	for _, e := range s.queue[1:] {
		if e != Event(p) {
			t.Fatalf("past the gap %#v", e)
		}
	}
	ctx := context.Background()
	if e, _ := s.Next(ctx); e != Event(d) {
		t.Fatalf("read %#v, want the gap", e)
	}
	before := d.Count
	for len(s.queue) < MaxQueuedEvents {
		h.publish(p)
	}
	h.publish(p)
	if d.Count != before {
		t.Fatalf("a gap already read grew from %d to %d", before, d.Count)
	}
	if d2, ok := s.queue[0].(*DroppedEvent); !ok || d2 == d || d2.Count == 0 {
		t.Fatalf("head %#v, want a new gap", s.queue[0])
	}
}

// TestSubscriptionBoundedByBytes: large messages from the wire fill a subscription by
// their size long before their count; the newest are kept, and one message larger than
// the bound is itself left out.
func TestSubscriptionBoundedByBytes(t *testing.T) {
	var h hub
	s := h.subscribe()
	big := json.RawMessage(`"` + string(make([]byte, 1<<20-2)) + `"`)
	var last Event
	for i := range 200 {
		if i%2 == 0 {
			last = &MessageEvent{Dir: jsonrpc.Inbound, Message: &jsonrpc.Request{Method: mcp.NotificationMessage, Params: big}}
		} else {
			last = &LogEvent{Params: mcp.LoggingMessageNotificationParams{Data: big}}
		}
		h.publish(last)
		if s.bytes > MaxQueuedBytes {
			t.Fatalf("after %d events the queue counts %d bytes, over the bound of %d", i+1, s.bytes, MaxQueuedBytes)
		}
	}
	got := drain(t, s)
	kept := len(got) - 1
	if kept < MaxQueuedBytes/2/(1<<20+256) || got[kept] != last {
		t.Fatalf("%d events kept, the last %T", kept, got[kept])
	}
	if d, ok := got[0].(*DroppedEvent); !ok || d.Count != 200-kept {
		t.Fatalf("first %#v, want a DroppedEvent of %d", got[0], 200-kept)
	}

	huge := &LogEvent{Params: mcp.LoggingMessageNotificationParams{Data: make(json.RawMessage, MaxQueuedBytes)}}
	h.publish(&ProgressEvent{})
	h.publish(huge)
	got = drain(t, s)
	if len(got) != 1 {
		t.Fatalf("%d events, want one gap", len(got))
	}
	if d, ok := got[0].(*DroppedEvent); !ok || d.Count != 2 {
		t.Fatalf("%#v, want a DroppedEvent of 2", got[0])
	}
}

// TestSubscriptionManyOutcomes: a stalled reader's queue that what must be delivered has
// filled past the bound (outcomes of tens of thousands of tasks) keeps them all, in order,
// and at most a bound of the rest, the newest.
func TestSubscriptionManyOutcomes(t *testing.T) {
	var h hub
	s := h.subscribe()
	const tasks = 3 * MaxQueuedEvents
	for i := range tasks {
		h.publish(&TaskEvent{Kind: TaskResult, At: At{time.Unix(int64(i), 0)}})
		h.publish(&ProgressEvent{At: At{time.Unix(int64(i), 0)}})
	}
	got := drain(t, s)
	outcomes, progress := 0, 0
	for _, e := range got {
		switch e := e.(type) {
		case *TaskEvent:
			if e.Time.Unix() != int64(outcomes) {
				t.Fatalf("outcome %d is of task %d", outcomes, e.Time.Unix())
			}
			outcomes++
		case *ProgressEvent:
			progress++
		}
	}
	if outcomes != tasks || progress > MaxQueuedEvents {
		t.Fatalf("%d outcomes of %d, %d progress events", outcomes, tasks, progress)
	}
	if p, ok := got[len(got)-1].(*ProgressEvent); !ok || p.Time.Unix() != tasks-1 {
		t.Fatalf("last %#v, want the last progress event", got[len(got)-1])
	}
}

// BenchmarkPublishBehind: publishing to a subscriber that reads nothing, half the events
// outcomes (kept), half progress (left out, the oldest first).
func BenchmarkPublishBehind(b *testing.B) {
	var h hub
	h.subscribe()
	outcome, p := &TaskEvent{Kind: TaskResult}, &ProgressEvent{}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if i%2 == 0 {
			h.publish(outcome)
		} else {
			h.publish(p)
		}
	}
}
