package client

import (
	"slices"
	"testing"
	"time"
)

func TestPendingQueue(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	var q pendingQueue
	rs := make([]*Request, 1000)
	for i := range rs {
		rs[i] = &Request{Received: t0.Add(time.Duration(i) * time.Millisecond)}
		q.add(rs[i])
	}
	// Settle all but every tenth, oldest first, then one twice.
	for i, r := range rs {
		if i%10 != 0 {
			q.remove(r)
		}
	}
	q.remove(rs[1])
	got := q.list()
	if len(got) != 100 || q.n != 100 {
		t.Fatalf("%d listed, n = %d; want 100", len(got), q.n)
	}
	for i, r := range got {
		if r != rs[10*i] {
			t.Fatalf("listed[%d] is request %d, want %d", i, slices.Index(rs, r), 10*i)
		}
	}
	if len(q.order) > 2*q.n+32 {
		t.Errorf("the queue holds %d entries for %d queued requests: settled ones were not dropped", len(q.order), q.n)
	}
	// Two requests queued in the opposite order of their arrival are listed by arrival.
	late, early := &Request{Received: t0.Add(time.Hour + time.Second)}, &Request{Received: t0.Add(time.Hour)}
	q.add(late)
	q.add(early)
	if got := q.list(); got[len(got)-2] != early || got[len(got)-1] != late {
		t.Error("requests queued out of arrival order are not listed oldest first")
	}
	for _, r := range q.list() {
		q.remove(r)
	}
	if q.n != 0 || q.order != nil || len(q.list()) != 0 {
		t.Errorf("emptied queue: n = %d, %d entries kept", q.n, len(q.order))
	}
}

// BenchmarkPendingRequests lists 100,000 pending requests (ns/op is one listing).
func BenchmarkPendingRequests(b *testing.B) {
	t0 := time.Now()
	var q pendingQueue
	for i := range 100_000 {
		q.add(&Request{Received: t0.Add(time.Duration(i))})
	}
	for b.Loop() {
		if len(q.list()) != 100_000 {
			b.Fatal("lost requests")
		}
	}
}
