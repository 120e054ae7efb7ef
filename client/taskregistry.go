package client

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/mcpi-dev/mcpi/internal/workpool"
	"github.com/mcpi-dev/mcpi/mcp"
)

// taskRegistry indexes the session's tasks by id and by progress token, and keeps status
// notifications that arrive before the task's CreateTaskResult.
type taskRegistry struct {
	mu     sync.Mutex
	byID   map[string]*Task
	order  []*Task     // registration order; forgotten tasks are skipped, then compacted away
	done   []endedTask // ended tasks still kept, oldest first
	gone   int         // forgotten tasks still in order
	tokens map[any]*Task
	// early keeps the status notifications that came for a task not registered yet (its
	// CreateTaskResult still on its way to the caller), or registered and still
	// replaying those kept (catchUp); inputs keeps the side-channel requests alike.
	early  map[string][]mcp.Task
	inputs map[string][]*Request
	// inflight counts tools/call task calls awaiting their CreateTaskResult.
	inflight int

	// followers runs each task's follower; the session closes it when it ends.
	followers *workpool.Pool
	// polls times the next poll of each task that waits without a follower.
	polls pollQueue

	// notified is set once the server has sent any status notification: a server that
	// sends them for one task sends them for all.
	notified atomic.Bool

	// waits counts the tasks/result requests sent as a task was created, still
	// unanswered (follow.go: waitEarly); noWaits is set once the server has answered
	// one with -32601.
	waits   atomic.Int32
	noWaits atomic.Bool
}

// claimWait counts one more early tasks/result, unless limit are in flight.
func (r *taskRegistry) claimWait(limit int32) bool {
	for {
		n := r.waits.Load()
		if n >= limit {
			return false
		}
		if r.waits.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// maxEarly bounds the ids of status notifications kept for tasks not registered yet,
// beyond one per task call in flight: a server that ends a burst of tasks at once may
// announce each end before its CreateTaskResult, and a notification dropped here costs a
// poll later.
const maxEarly = 256

// maxEarlyPerTask bounds the notifications kept for one task id (see keepEarlyLocked): a
// server may send any number for an id, and the task, once registered, needs the newest
// and its end.
const maxEarlyPerTask = 8

// keepEarlyLocked keeps st, a notification for task id that the task cannot take yet,
// unless the ids kept are at their bound. Of one id's, past maxEarlyPerTask the oldest
// that has not ended makes room; r.mu is held.
func (r *taskRegistry) keepEarlyLocked(id string, st mcp.Task, registered bool) {
	kept, ok := r.early[id]
	if !ok && !registered && len(r.early) >= maxEarly+r.inflight {
		return
	}
	if len(kept) >= maxEarlyPerTask {
		i := slices.IndexFunc(kept, func(k mcp.Task) bool { return !k.Status.IsTerminal() })
		kept = slices.Delete(kept, max(i, 0), max(i, 0)+1)
	}
	r.early[id] = append(kept, st)
}

// calling counts task calls in flight (d is +1 or -1). When none is left, what is still
// kept for a task not registered belongs to no call of this session: it is dropped.
func (r *taskRegistry) calling(d int) {
	r.mu.Lock()
	r.inflight += d
	if r.inflight == 0 {
		// What a registered task has still to replay (catchUp) stays.
		for id := range r.early {
			if r.byID[id] == nil {
				delete(r.early, id)
			}
		}
		for id := range r.inputs {
			if r.byID[id] == nil {
				delete(r.inputs, id)
			}
		}
	}
	r.mu.Unlock()
}

// watched reports whether someone may see a request that belongs to task id through
// the task's own events: a registered task that someone follows ([Task.Events],
// [Session.CallToolTask]), or a task not registered yet while a task call is in flight
// (its events may be followed once it is).
func (r *taskRegistry) watched(id string) bool {
	if id == "" {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if t := r.byID[id]; t != nil {
		return t.sub.active()
	}
	return r.inflight > 0
}

// taskFor returns the registered task id, or keeps req, a request that belongs to it,
// for the task: while a task call is in flight, or while the task, registered, replays
// what was kept for it (catchUp), which req must not overtake.
func (r *taskRegistry) taskFor(id string, req *Request) *Task {
	r.mu.Lock()
	defer r.mu.Unlock()
	if id == "" {
		return nil
	}
	t := r.byID[id]
	if t != nil && t.caughtUp {
		return t
	}
	if t != nil || (r.inflight > 0 && len(r.inputs) < maxEarly) {
		if r.inputs == nil {
			r.inputs = map[string][]*Request{}
		}
		r.inputs[id] = append(r.inputs[id], req)
	}
	return nil
}

// inFlight is how many task calls are in flight.
func (r *taskRegistry) inFlight() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.inflight
}

func (r *taskRegistry) init() {
	r.byID = map[string]*Task{}
	r.tokens = map[any]*Task{}
	r.early = map[string][]mcp.Task{}
	r.followers = workpool.New(workpool.Options{})
}

func (r *taskRegistry) add(t *Task) []mcp.Task {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.addLocked(t)
}

func (r *taskRegistry) addLocked(t *Task) []mcp.Task {
	id := t.state.TaskID
	r.byID[id] = t // a server that reuses an id has the newest task take its notifications
	t.registered = true
	r.order = append(r.order, t)
	early := r.early[id]
	delete(r.early, id)
	return early
}

// addOnce adds t unless a task with its id is registered already, which it returns.
func (r *taskRegistry) addOnce(t *Task) (*Task, []mcp.Task) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if prev := r.byID[t.state.TaskID]; prev != nil {
		return prev, nil
	}
	return nil, r.addLocked(t)
}

// catchUp returns the status notifications and the requests kept for task id (t), which
// came before it was registered or while those kept were replayed, or nothing once there
// is none left: from then on they reach t as they come.
func (r *taskRegistry) catchUp(id string, t *Task) ([]mcp.Task, []*Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	early, inputs := r.early[id], r.inputs[id]
	delete(r.early, id)
	delete(r.inputs, id)
	if len(early) == 0 && len(inputs) == 0 {
		t.caughtUp = true
		return nil, nil
	}
	return early, inputs
}

func (r *taskRegistry) byToken(tok any, t *Task) {
	r.mu.Lock()
	r.tokens[tok] = t
	r.mu.Unlock()
}

func (r *taskRegistry) forgetToken(tok any) {
	if tok == nil {
		return
	}
	r.mu.Lock()
	delete(r.tokens, tok)
	r.mu.Unlock()
}

func (r *taskRegistry) get(id string) *Task {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.byID[id]
}

func (r *taskRegistry) forToken(tok any) *Task {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.tokens[tok]
}

func (r *taskRegistry) all() []*Task {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*Task, 0, len(r.order)-r.gone)
	for _, t := range r.order {
		if !t.forgotten {
			out = append(out, t)
		}
	}
	return out
}

// endAll ends every task still followed with err, the connection's end. A task waiting
// between polls has no goroutine that would notice.
func (r *taskRegistry) endAll(err error) {
	for _, t := range r.all() {
		t.connectionEnded(err)
	}
}

type endedTask struct {
	t  *Task
	id string
}

// ended records that t has ended, and forgets the oldest ended tasks beyond keep.
func (r *taskRegistry) ended(t *Task, keep int) {
	id := t.ID()
	r.mu.Lock()
	defer r.mu.Unlock()
	if t.forgotten || !t.registered {
		return // not registered (a plain answer, a failed call)
	}
	r.done = append(r.done, endedTask{t, id})
	for len(r.done) > keep {
		old := r.done[0]
		r.done[0] = endedTask{}
		r.done = r.done[1:]
		old.t.forgotten = true
		if r.byID[old.id] == old.t { // not a later task given the same id
			delete(r.byID, old.id)
		}
		r.gone++
	}
	if r.gone > 64 && r.gone > len(r.order)/2 {
		r.order = slices.DeleteFunc(r.order, func(t *Task) bool { return t.forgotten })
		r.gone = 0
	}
}
