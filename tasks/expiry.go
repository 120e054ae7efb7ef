package tasks

import (
	"context"
	"time"
)

// armTimer points the single expiry timer at the earliest deadline.
func (m *Manager) armTimer(now time.Time) {
	if len(m.expiry) == 0 {
		if m.timer != nil {
			m.timer.Stop()
		}
		return
	}
	d := m.expiry.head().expires.Sub(now)
	if m.timer == nil {
		m.timer = time.AfterFunc(d, m.expire)
	} else {
		m.timer.Reset(d)
	}
}

func (m *Manager) expire() {
	now := m.opts.Now()
	m.mu.Lock()
	var cancels []context.CancelFunc
	var unended []deletion
	for len(m.expiry) > 0 && !m.expiry.head().expires.After(now) {
		t := m.expiry.head()
		m.opts.Logger.Info("task expired", "task", t.state.TaskID, "owner", t.owner, "status", t.state.Status)
		if t.cancel != nil { // nil once it has ended
			cancels = append(cancels, t.cancel)
		}
		unended = m.removeNoting(t, unended)
	}
	if !m.closed {
		m.armTimer(now)
	}
	m.unlockDeleted(unended)
	for _, c := range cancels {
		c()
	}
}

// taskHeap is a min-heap of tasks that records each task's position in it (the slot
// the order names), so that any task can be removed; O chooses the order. Each entry
// holds its task's key, so that ordering reads the slice alone: a manager at MaxKept
// evicts a task for every one it creates, and following each task's pointer there cost
// a cache miss per comparison.
type taskHeap[O heapOrder] []heapEntry

type heapEntry struct {
	key int64
	t   *task
}

// heapOrder is an ordering of tasks and the field that holds a task's position in it.
type heapOrder interface {
	key(t *task) int64
	slot(t *task) *int
}

// byExpiry orders tasks by deadline: the manager's one expiry timer follows its head.
type byExpiry struct{}

func (byExpiry) key(t *task) int64 { return t.expiresKey }
func (byExpiry) slot(t *task) *int { return &t.index }

// byAge orders an owner's terminal tasks by creation, oldest first, for eviction.
type byAge struct{}

func (byAge) key(t *task) int64 { return int64(t.seq) }
func (byAge) slot(t *task) *int { return &t.tindex }

// byAgeAll orders the terminal tasks of all owners by creation, oldest first.
type byAgeAll struct{}

func (byAgeAll) key(t *task) int64 { return int64(t.seq) }
func (byAgeAll) slot(t *task) *int { return &t.aindex }

type (
	expiryHeap      = taskHeap[byExpiry]
	terminalHeap    = taskHeap[byAge]
	allTerminalHeap = taskHeap[byAgeAll]
)

func (h taskHeap[O]) Len() int           { return len(h) }
func (h taskHeap[O]) Less(i, j int) bool { return h[i].key < h[j].key }
func (h taskHeap[O]) Swap(i, j int) {
	var o O
	h[i], h[j] = h[j], h[i]
	*o.slot(h[i].t) = i
	*o.slot(h[j].t) = j
}

func (h *taskHeap[O]) Push(x any) {
	var o O
	t := x.(*task)
	*o.slot(t) = len(*h)
	*h = append(*h, heapEntry{o.key(t), t})
}

func (h *taskHeap[O]) Pop() any {
	var o O
	old := *h
	t := old[len(old)-1].t
	old[len(old)-1] = heapEntry{}
	*o.slot(t) = -1
	*h = old[:len(old)-1]
	return t
}

// head is the task at the top of h.
func (h taskHeap[O]) head() *task { return h[0].t }
