package client

import (
	"container/heap"
	"sync"
	"time"
)

// pollQueue holds the next polls of the session's parked tasks behind one timer. Most
// tasks park only for a moment (news or an early tasks/result settles them), so a
// parked task costs a heap entry, not a runtime timer of its own that is made and
// stopped; a burst of a thousand tasks arms the timer a few times (for each poll due
// before all those queued), not a thousand timers.
//
// An entry is withdrawn by clearing its task, and stays in the heap until it is due or
// until the withdrawn outnumber the rest. An entry that fell due is cleared as it leaves
// the heap; its task then sees whether it was withdrawn meanwhile (Task.pollDue).
type pollQueue struct {
	mu        sync.Mutex
	h         pollHeap
	withdrawn int
	timer     *time.Timer
	armedFor  time.Time // the timer's due time; zero when it is not armed
	arms      int       // how many times the timer was armed (for tests)
}

// pollEntry is one parked task's next poll.
type pollEntry struct {
	due time.Time
	t   *Task // nil once withdrawn
	// armed is when the task parked, and notified whether the session knew then that
	// the server sends status notifications (see Task.pollDue).
	armed    time.Time
	notified bool
}

type pollHeap []*pollEntry

func (h pollHeap) Len() int           { return len(h) }
func (h pollHeap) Less(i, j int) bool { return h[i].due.Before(h[j].due) }
func (h pollHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *pollHeap) Push(x any)        { *h = append(*h, x.(*pollEntry)) }
func (h *pollHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return e
}

// add schedules e, arming the timer when e is due before it.
func (q *pollQueue) add(e *pollEntry) {
	q.mu.Lock()
	defer q.mu.Unlock()
	heap.Push(&q.h, e)
	q.armLocked()
}

// withdraw takes e out of the schedule; e's task will not be polled through it.
func (q *pollQueue) withdraw(e *pollEntry) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if e.t == nil {
		return
	}
	e.t = nil
	q.withdrawn++
	if q.withdrawn > 64 && q.withdrawn > len(q.h)/2 {
		live := q.h[:0]
		for _, x := range q.h {
			if x.t != nil {
				live = append(live, x)
			}
		}
		clear(q.h[len(live):])
		q.h = live
		q.withdrawn = 0
		heap.Init(&q.h)
	}
}

// armLocked drops withdrawn entries from the head and points the timer at the head's due
// time, unless it is armed for then or earlier already; q.mu is held.
func (q *pollQueue) armLocked() {
	for len(q.h) > 0 && q.h[0].t == nil {
		heap.Pop(&q.h)
		q.withdrawn--
	}
	if len(q.h) == 0 {
		return // an armed timer finds nothing due, and stays unarmed
	}
	due := q.h[0].due
	if !q.armedFor.IsZero() && !due.Before(q.armedFor) {
		return
	}
	q.armedFor = due
	q.arms++
	wait := time.Until(due)
	if q.timer == nil {
		q.timer = time.AfterFunc(wait, q.fire)
	} else {
		q.timer.Reset(wait)
	}
}

// fire polls the tasks that are due and arms the timer for the next.
func (q *pollQueue) fire() {
	now := time.Now()
	type poll struct {
		e *pollEntry
		t *Task
	}
	var due []poll
	q.mu.Lock()
	q.armedFor = time.Time{}
	for len(q.h) > 0 && !q.h[0].due.After(now) {
		e := heap.Pop(&q.h).(*pollEntry)
		if e.t == nil {
			q.withdrawn--
			continue
		}
		due = append(due, poll{e, e.t})
		e.t = nil // out of the heap: a withdrawal now has nothing to count
	}
	q.armLocked()
	q.mu.Unlock()
	for _, p := range due {
		p.t.pollDue(p.e)
	}
}

// stop disarms the timer: the session has ended.
func (q *pollQueue) stop() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.timer != nil {
		q.timer.Stop()
	}
	q.armedFor = time.Time{}
}
