// Package tasks is mcpi's task engine: the receiver half of MCP Tasks, written once and
// used by the server (tool tasks) and by the client (sampling and elicitation tasks).
//
// A [Manager] creates tasks, runs their work on a context of its own (never the context of
// the request that created them), keeps their status by the 2025-11-25 state machine,
// serves get/result/list/cancel scoped to an owner, announces every change, and deletes
// tasks when their TTL, counted from creation, runs out. It has one timer, whatever the
// number of tasks.
//
// One manager and one record type hold the tasks of both dialects: the core tasks of
// 2025-11-25 and those of the Tasks extension of 2026-07-28 ([Dialect], extension.go).
// Each task records its dialect, and is reached only through its own dialect's methods;
// a task of the extension also keeps its outstanding input requests and their answers.
package tasks

import (
	"cmp"
	"container/heap"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpi-dev/mcpi/internal/plural"
	"github.com/mcpi-dev/mcpi/internal/stack"
	"github.com/mcpi-dev/mcpi/internal/workpool"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// Outcome is how a task's work ended: a result (which may be a tool result with isError)
// or a JSON-RPC error, exactly as the original request would have been answered.
type Outcome struct {
	Result json.RawMessage
	Error  *jsonrpc.Error
	// Failed marks a result that is a failure all the same (a tool's isError), so the
	// status becomes failed while tasks/result still returns the result.
	Failed        bool
	StatusMessage string
}

// RunFunc does a task's work. ctx ends when the task is cancelled or expires, or the
// manager closes; work that ignores it is waited for by [Manager.Close] for a while
// only. It reports input_required and working through h.
type RunFunc func(ctx context.Context, h *Handle) Outcome

// Options configures a [Manager]. Zero values take the defaults shown.
type Options struct {
	// DefaultTTL applies when the requestor asks for none (1 hour). A negative value
	// means unlimited.
	DefaultTTL time.Duration
	// MaxTTL caps what a requestor may ask for (24 hours).
	MaxTTL time.Duration
	// PollInterval is the interval suggested to requestors (1 second).
	PollInterval time.Duration
	// MaxActive caps the non-terminal tasks of one owner (100). What an owner is, is
	// the caller's choice: a server's callers without credentials may share one (see
	// server.Options.TaskOwner).
	MaxActive int
	// MaxKept caps all tasks of one owner, terminal ones included; the oldest terminal
	// task is dropped to make room (1000).
	MaxKept int
	// MaxActiveTotal and MaxKeptTotal are the same caps on the tasks of all owners
	// together (10,000 and 100,000; MaxKeptTotal is at least MaxActiveTotal): owners
	// are who the caller says they are (a server may take them from credentials it does
	// not check), and however many there are, the tasks held are bounded. At
	// MaxKeptTotal the oldest terminal task of any owner makes room.
	MaxActiveTotal int
	MaxKeptTotal   int
	// PageSize bounds a tasks/list page (50).
	PageSize int
	// RatePerSecond, when positive, limits the task operations (create, get, result,
	// list, cancel) of one owner to that rate, with bursts of RateBurst (2 × the rate):
	// the spec asks receivers to guard against polling storms and id enumeration.
	RatePerSecond float64
	RateBurst     int
	// OnChange is called after every status change, in order, with the new state. It
	// is where status notifications are sent; it must not block for long.
	OnChange func(owner string, t mcp.Task)
	// OnDetail is called, like OnChange and after it, at every change of a task of
	// [DialectExtension], with the task as tasks/get would return it then (answers to
	// its input requests are changes too).
	OnDetail func(d mcp.DetailedTask)
	// OnDeleted is called, in order with OnChange and OnDetail, for each task deleted
	// before it ended: it expired while working or waiting for input, or its owner was
	// dropped. No change of that task is announced after it. (Close deletes without it.)
	OnDeleted func(owner, id string)
	// Now is the clock (time.Now).
	Now    func() time.Time
	Logger *slog.Logger
}

func (o *Options) defaults() {
	if o.DefaultTTL == 0 {
		o.DefaultTTL = time.Hour
	}
	if o.MaxTTL <= 0 {
		o.MaxTTL = 24 * time.Hour
	}
	if o.PollInterval <= 0 {
		o.PollInterval = time.Second
	}
	if o.MaxActive <= 0 {
		o.MaxActive = 100
	}
	if o.MaxKept <= 0 {
		o.MaxKept = 1000
	}
	if o.MaxActiveTotal <= 0 {
		o.MaxActiveTotal = 10_000
	}
	if o.MaxKeptTotal <= 0 {
		o.MaxKeptTotal = 100_000
	}
	o.MaxKeptTotal = max(o.MaxKeptTotal, o.MaxActiveTotal)
	if o.PageSize <= 0 {
		o.PageSize = 50
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
}

// Errors, matched with errors.Is. Each is a JSON-RPC error with the code the spec gives.
var (
	// ErrNotFound covers unknown, expired and foreign task ids alike, so that ids of
	// other owners cannot be probed.
	ErrNotFound = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "task not found"}
	// ErrTerminal is returned when cancelling a task that already ended.
	ErrTerminal = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "task already ended"}
	// ErrBadCursor is returned for a tasks/list cursor this manager did not issue.
	ErrBadCursor = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid cursor"}
	// ErrTooMany is returned when an owner has MaxActive tasks running, or all owners
	// together MaxActiveTotal.
	ErrTooMany = &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "too many tasks running"}
	// ErrRateLimited is returned when an owner exceeds RatePerSecond.
	ErrRateLimited = &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "too many task requests; slow down"}
	// ErrClosed is returned once the manager is closed.
	ErrClosed = errors.New("tasks: manager closed")

	errCommitted = errors.New("tasks: the work has committed")
)

type task struct {
	// tellMu orders the messages the work sends about the task ([Handle.WhileRunning])
	// with its changes: taken before mu by update.
	tellMu  sync.Mutex
	owner   string
	seq     uint64
	state   mcp.Task
	expires time.Time // zero: never
	// expiresKey is expires as the expiry heap orders it: nanoseconds since the
	// manager's epoch (on the monotonic clock when expires has it).
	expiresKey int64
	index      int // in the expiry heap; -1 when not there
	tindex     int // in its owner's heap of terminal tasks; -1 when not there
	aindex     int // in the manager's heap of terminal tasks; -1 when not there
	// cancel ends the work's context (the Handle's): when the task is cancelled,
	// expires or is deleted (and tells a deferred task's stop), or at Finish. It is nil
	// once the task has ended: the engine keeps ended tasks for up to their TTL, and the
	// work's stop may hold what the task was made from (a server's holds its request,
	// arguments and all), which must not stay with them.
	cancel context.CancelFunc
	done   chan struct{} // closed when terminal or deleted
	gone   bool          // deleted (expired, evicted)
	// committed is set once the work did what it cannot undo ([Handle.Commit]): a
	// cancel then waits for the work's outcome instead of making the task cancelled.
	committed bool
	outcome   Outcome
	// resultWaiters are the open tasks/result requests, newest last, so that
	// side-channel requests can travel on one of their streams. It and waiterAdded are
	// guarded by the manager's wmu, not mu.
	resultWaiters []resultWaiter
	// waiterAdded is closed when a tasks/result starts waiting. The first to wait for
	// one (AwaitRequestor) makes it: few tasks ever need it.
	waiterAdded chan struct{}
	// dialect is the task protocol the task was created in; it is reached in that one
	// alone.
	dialect Dialect
	// bound is set on a task that its owner alone may reach in either dialect
	// ([Manager.DeferBound]); a task of [DialectCore] is reached by its owner alone in
	// its own dialect all the same.
	bound bool
	// ext holds what only a task of [DialectExtension] has: its input requests and
	// their answers. Guarded by the manager's mu.
	ext *extState
	// later are the tasks/result requests to answer when the task ends
	// ([Manager.ResultLater]), answered by the goroutine that ends it. Guarded by mu.
	later []*laterResult
}

// laterResult is a tasks/result request [Manager.ResultLater] answers when its task ends.
type laterResult struct {
	waiter resultWaiter
	answer func(Outcome, error)
}

// Manager holds tasks for any number of owners.
type Manager struct {
	opts     Options
	notifyMu sync.Mutex // keeps OnChange calls in the order of the changes
	// announcing is the change OnChange is being called with (under notifyMu), so that
	// Outcome can answer for that task without mu: another change may hold mu while it
	// waits for notifyMu.
	announcing atomic.Pointer[announcement]

	// epoch is the manager's creation, from which the expiry heap counts deadlines.
	epoch time.Time

	mu     sync.Mutex
	tasks  map[string]*task
	owners map[string]*ownerSet
	// active counts the tasks of all owners that have not ended, and terminal holds
	// those that have, oldest first, for MaxActiveTotal and MaxKeptTotal.
	active   int
	terminal allTerminalHeap
	seq      uint64
	expiry   expiryHeap
	timer    *time.Timer
	buckets  map[string]*bucket
	pruneAt  int // the buckets' size at which the next prune runs (ratelimit.go)
	closed   bool
	running  sync.WaitGroup
	// unfinished are the tasks counted in running, for Shutdown to name those whose
	// work did not return.
	unfinished map[*task]struct{}

	// workers run the work of tasks made by Create; Close ends them.
	workers *workpool.Pool
	// logger is Options.Logger as given, nil if none: a panic of a task's work is
	// logged all the same (internal/stack.Logger).
	logger *slog.Logger

	// wmu guards the tasks/result requests waiting on tasks. It is a leaf lock, taken
	// after mu or notifyMu and never before them, so that OnChange may call Waiter.
	wmu     sync.Mutex
	waiting map[string]*task // tasks with open tasks/result requests, by id
}

// New returns a manager.
func New(opts Options) *Manager {
	logger := opts.Logger
	opts.defaults()
	return &Manager{opts: opts, epoch: opts.Now(), tasks: map[string]*task{}, owners: map[string]*ownerSet{},
		workers: workpool.New(workpool.Options{IdleTimeout: workerIdle}), logger: logger}
}

// workerIdle is how long a worker waits for the next task's work, so that a manager
// nobody closes keeps no goroutine for long.
const workerIdle = time.Second

// Create registers a task in status working, starts run on a context of its own, and
// returns the task as the CreateTaskResult should report it. requested is params.task.
func (m *Manager) Create(owner string, requested *mcp.TaskMetadata, run RunFunc) (mcp.Task, error) {
	h, err := m.register(DialectCore, owner, requested, nil, false)
	if err != nil {
		return mcp.Task{}, err
	}
	m.Start(h, run)
	return h.Created(), nil
}

// Start runs run for the task of h, one registered with [Manager.Defer], on a goroutine
// of the manager's; see [Manager.Run].
func (m *Manager) Start(h *Handle, run RunFunc) {
	m.workers.Go(func() { m.Run(h, run) })
}

// Run runs run for the task of h, one registered with [Manager.Defer], on the calling
// goroutine, and ends the task with its outcome. A run that panics fails the task with
// an internal error, logged, instead of taking the process down.
func (m *Manager) Run(h *Handle, run RunFunc) {
	var out Outcome
	func() {
		defer func() {
			if p := recover(); p != nil {
				stack.Logger(m.logger).Error("task work panicked", "task", h.Created().TaskID, "panic", p, "stack", stack.Trace())
				out = Outcome{Error: jsonrpc.Errorf(jsonrpc.CodeInternalError, "internal error in the work of task %s", h.Created().TaskID)}
			}
		}()
		out = run(h.Context(), h)
	}()
	h.Finish(out)
}

// Defer registers a task in status working, like [Manager.Create], but starts no work:
// the caller does the work wherever it likes and ends the task with [Handle.Finish]. No
// goroutine waits on a deferred task, so a receiver holding many tasks that wait for a
// person (sampling, elicitation) pays only their memory. The handle gives the task as
// the CreateTaskResult should report it ([Handle.Created]) and its context
// ([Handle.Context]).
//
// The context ends when the task is cancelled or expires, its owner is dropped or the
// manager closes. stop, if not nil, is called then too, once, on the goroutine that ended
// the task and without locks held, unless Finish came first; the work should give up
// and call Finish (whose outcome is dropped once the task has ended). [Manager.Close]
// waits for Finish, for a while ([Manager.Shutdown]).
func (m *Manager) Defer(owner string, requested *mcp.TaskMetadata, stop func()) (*Handle, error) {
	return m.register(DialectCore, owner, requested, stop, false)
}

// DeferIn is [Manager.Defer] for a task of dialect d: a task of one dialect is never
// reached through the methods of the other.
func (m *Manager) DeferIn(d Dialect, owner string, requested *mcp.TaskMetadata, stop func()) (*Handle, error) {
	return m.register(d, owner, requested, stop, false)
}

// DeferBound is [Manager.DeferIn] for a task that owner alone may reach, in either
// dialect. A task of [DialectExtension] is otherwise reached by whoever names its id;
// bound, it is what an unknown id is ([ErrNotFound]) to every other owner. A server
// binds the tasks of requests that carry credentials to those credentials.
func (m *Manager) DeferBound(d Dialect, owner string, requested *mcp.TaskMetadata, stop func()) (*Handle, error) {
	return m.register(d, owner, requested, stop, true)
}

// TryDefer is [Manager.DeferIn], or [Manager.DeferBound] when bound, for a caller that
// must not wait (a connection's reading goroutine): ok is false, and nothing is
// registered or counted, when another goroutine holds the manager or registering would
// log (the logger takes Info, or the task would be refused for a cap or the rate
// limit, which is logged by who refuses it); the caller then asks DeferIn or
// DeferBound.
func (m *Manager) TryDefer(d Dialect, owner string, requested *mcp.TaskMetadata, stop func(), bound bool) (_ *Handle, ok bool, _ error) {
	if m.opts.Logger.Enabled(context.Background(), slog.LevelInfo) {
		return nil, false, nil
	}
	h, err := m.registerTry(d, owner, requested, stop, bound, true)
	if h == nil && err == nil {
		return nil, false, nil
	}
	return h, true, err
}

// register adds a task in status working and counts it as running until its Handle's
// Finish.
func (m *Manager) register(d Dialect, owner string, requested *mcp.TaskMetadata, stop func(), bound bool) (*Handle, error) {
	return m.registerTry(d, owner, requested, stop, bound, false)
}

// registerTry is register; with try, it returns neither a handle nor an error, having
// registered nothing, where register would wait for the manager's lock or refuse the
// task (see [Manager.TryDefer]).
func (m *Manager) registerTry(d Dialect, owner string, requested *mcp.TaskMetadata, stop func(), bound, try bool) (*Handle, error) {
	now := m.opts.Now()
	ttl := m.opts.DefaultTTL
	if requested != nil && requested.TTL != nil && *requested.TTL >= 0 {
		ttl = mcp.Milliseconds(*requested.TTL) // capped, never wrapped negative (unlimited)
	}
	if ttl > m.opts.MaxTTL {
		ttl = m.opts.MaxTTL
	}
	id, err := newID()
	if err != nil {
		return nil, fmt.Errorf("tasks: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t := &task{owner: owner, cancel: cancel, done: make(chan struct{}), index: -1, tindex: -1, aindex: -1, dialect: d, bound: bound}
	if d == DialectExtension {
		t.ext = &extState{}
	}
	h := &Handle{m: m, t: t, ctx: ctx, release: cancel}
	if stop != nil {
		t.cancel = func() {
			cancel()
			if !h.finished.Load() && h.stopped.CompareAndSwap(false, true) {
				stop()
			}
		}
	}
	// Handle.Created rebuilds this state from the fields that never change.
	created := mcp.FormatTime(now)
	t.state = mcp.Task{
		TaskID:        id,
		Status:        mcp.TaskStatusWorking,
		CreatedAt:     created,
		LastUpdatedAt: created,
		PollInterval:  ptr(m.opts.PollInterval.Milliseconds()),
	}
	if ttl >= 0 {
		t.state.TTL = ptr(ttl.Milliseconds())
		t.expires = now.Add(ttl)
		t.expiresKey = int64(t.expires.Sub(m.epoch))
	}

	if try {
		if !m.mu.TryLock() {
			cancel()
			return nil, nil
		}
		set := m.owners[owner]
		if m.closed || m.limitedLocked(owner) || m.active >= m.opts.MaxActiveTotal || set != nil && set.active >= m.opts.MaxActive {
			m.mu.Unlock()
			cancel()
			return nil, nil
		}
	} else {
		m.mu.Lock()
	}
	if m.closed {
		m.mu.Unlock()
		cancel()
		return nil, ErrClosed
	}
	if err := m.allowLocked(owner); err != nil {
		m.mu.Unlock()
		cancel()
		return nil, err
	}
	set := m.owners[owner]
	if set == nil {
		set = &ownerSet{tasks: map[string]*task{}}
		m.owners[owner] = set
	}
	if set.active >= m.opts.MaxActive {
		m.mu.Unlock()
		cancel()
		return nil, ErrTooMany.WithData(map[string]int{"maxActive": m.opts.MaxActive})
	}
	if m.active >= m.opts.MaxActiveTotal {
		if len(set.tasks) == 0 {
			delete(m.owners, owner)
		}
		m.mu.Unlock()
		cancel()
		m.opts.Logger.Warn("task refused: the tasks of all owners are at their cap", "owner", owner, "maxActiveTotal", m.opts.MaxActiveTotal)
		return nil, ErrTooMany.WithData(map[string]int{"maxActiveTotal": m.opts.MaxActiveTotal})
	}
	if len(set.tasks) >= m.opts.MaxKept {
		m.evictOldestTerminal(set)
	}
	if len(m.tasks) >= m.opts.MaxKeptTotal && len(m.terminal) > 0 {
		m.removeLocked(m.terminal.head())
	}
	// A task evicted to make room may have been the owner's last, which takes its set
	// out of the owners: the new task goes in it all the same.
	m.owners[owner] = set
	m.seq++
	t.seq = m.seq
	m.tasks[id] = t
	set.tasks[id] = t
	set.order = append(set.order, t) // the newest: the order stays by seq
	set.active++
	m.active++
	if !t.expires.IsZero() {
		heap.Push(&m.expiry, t)
		m.armTimer(now)
	}
	m.running.Add(1)
	if m.unfinished == nil {
		m.unfinished = map[*task]struct{}{}
	}
	m.unfinished[t] = struct{}{}
	m.mu.Unlock()

	// Checked first: the arguments would be boxed, on every task, even when the level
	// is off.
	if m.opts.Logger.Enabled(context.Background(), slog.LevelInfo) {
		m.opts.Logger.Info("task created", "task", id, "owner", owner, "ttl", ttl)
	}
	return h, nil
}

func (m *Manager) finish(t *task, out Outcome) {
	status := mcp.TaskStatusCompleted
	if out.Error != nil || out.Failed {
		status = mcp.TaskStatusFailed
	}
	msg := out.StatusMessage
	if msg == "" && out.Error != nil {
		msg = out.Error.Message
	}
	err := m.update(t, func(s *mcp.Task) error {
		if s.Status.IsTerminal() {
			return errors.New("already terminal")
		}
		s.Status = status
		s.StatusMessage = msg
		return nil
	}, func() { t.outcome = out })
	if err != nil {
		m.opts.Logger.Debug("task outcome dropped: the task had already ended", "task", t.state.TaskID)
	}
}

// update applies change to the task's state under the lock, records the time, runs also
// (still locked), wakes result waiters when the task became terminal, and reports the
// change.
func (m *Manager) update(t *task, change func(*mcp.Task) error, also func()) error {
	t.tellMu.Lock()
	m.mu.Lock()
	if t.gone {
		m.mu.Unlock()
		t.tellMu.Unlock()
		return ErrNotFound
	}
	if t.state.Status.IsTerminal() {
		m.mu.Unlock()
		t.tellMu.Unlock()
		return ErrTerminal
	}
	if err := change(&t.state); err != nil {
		m.mu.Unlock()
		t.tellMu.Unlock()
		return err
	}
	t.state.LastUpdatedAt = mcp.FormatTime(m.opts.Now())
	if also != nil {
		also()
	}
	terminal := t.state.Status.IsTerminal()
	if terminal {
		t.cancel = nil // whoever ended it stops the work (Finish, cancelIn)
		if t.ext != nil {
			// Nothing more is asked of an ended task: the requestor's answers, as large
			// as it cared to make them, need not stay for the task's TTL.
			t.ext.asked, t.ext.answers = nil, nil
		}
		set := m.owners[t.owner]
		set.active--
		heap.Push(&set.terminal, t)
		m.active--
		heap.Push(&m.terminal, t)
	}
	snapshot, owner := t.state, t.owner // Adopt may change t.owner once m.mu is released
	var detail *mcp.DetailedTask
	if t.ext != nil && m.opts.OnDetail != nil {
		d := t.detailedLocked()
		detail = &d
	}
	a := &announcement{owner: owner, id: snapshot.TaskID, status: snapshot.Status, outcome: t.outcome}
	var later []*laterResult
	if terminal {
		later, t.later = t.later, nil
	}
	m.notifyMu.Lock()
	m.mu.Unlock()
	t.tellMu.Unlock()
	func() {
		defer m.notifyMu.Unlock()
		if m.opts.OnChange != nil {
			m.announcing.Store(a)
			m.opts.OnChange(owner, snapshot)
			m.announcing.Store(nil)
		}
		if detail != nil {
			m.opts.OnDetail(*detail)
		}
		if terminal {
			// Result waiters wake only after the change was announced, so a requestor
			// reading one stream sees the final status before the result.
			close(t.done)
		}
	}()
	// Answered here, after the announcement, and with no lock held: an answer is a
	// write, which may wait for the requestor to read.
	for _, l := range later {
		m.dropWaiter(t, snapshot.TaskID, l.waiter)
		l.answer(outcomeOf(snapshot, a.outcome))
	}
	return nil
}

// outcomeOf is what tasks/result answers for a task that ended in state st with out.
func outcomeOf(st mcp.Task, out Outcome) (Outcome, error) {
	if st.Status == mcp.TaskStatusCancelled {
		return Outcome{}, cancelledNoResult(st.TaskID)
	}
	return out, nil
}

// announcement is a change being given to OnChange.
type announcement struct {
	owner, id string
	status    mcp.TaskStatus
	outcome   Outcome
}

// Waiter returns the newest tasks/result request waiting on task id, if any: messages
// about the task can travel on its response stream. It may be called from OnChange: it
// takes only the lock of the waiters, never the manager's.
func (m *Manager) Waiter(id string) (jsonrpc.ID, bool) {
	m.wmu.Lock()
	defer m.wmu.Unlock()
	if t, ok := m.waiting[id]; ok {
		if n := len(t.resultWaiters); n > 0 {
			return t.resultWaiters[n-1].id, true
		}
	}
	return jsonrpc.ID{}, false
}

// resultWaiter is a tasks/result request waiting on a task: its id, and the owner that
// sent it (ids are chosen by each session's client, so two may be equal).
type resultWaiter struct {
	id    jsonrpc.ID
	owner string
}

func (m *Manager) lookup(owner, id string) (*task, error) {
	return m.lookupIn(DialectCore, owner, id)
}

// lookupIn finds task id of owner among the tasks of dialect d; a task of the other
// dialect is an error that says so, to its owner alone (to anyone for a task of
// [DialectExtension] not bound). A task of [DialectExtension] not made with
// [Manager.DeferBound] is anyone's who has its id (that dialect has no session to bind
// it to): owner is then who asks, whose rate limit the lookup counts against.
func (m *Manager) lookupIn(d Dialect, owner, id string) (*task, error) {
	if err := m.allowLocked(owner); err != nil {
		return nil, err
	}
	t, ok := m.tasks[id]
	// A bound task is to everyone else what an unknown id is, whatever the dialect. So
	// is a task of [DialectCore], bound to its owner (a server's session): the
	// extension's requests come without one, and reaching such a task by its id alone,
	// as the digest of 2026-07-28 suggests for dual-era servers, would hand it to
	// whoever learned the id; saying that it exists in the other era told them it did.
	hidden := ok && (t.bound || t.dialect == DialectCore) && t.owner != owner
	if ok && !t.gone && !hidden && t.dialect != d {
		m.opts.Logger.Info("task lookup in the wrong dialect", "task", logID(id), "dialect", t.dialect, "asked", d)
		return nil, otherDialect(id, t.dialect, d)
	}
	if !ok || hidden || (t.owner != owner && d != DialectExtension) || t.gone {
		// Logged: a stream of misses from one owner is what id probing looks like.
		m.opts.Logger.Info("task lookup failed", "task", logID(id), "owner", owner)
		return nil, ErrNotFound
	}
	return t, nil
}

// Get returns a task's current state.
func (m *Manager) Get(owner, id string) (mcp.Task, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, err := m.lookup(owner, id)
	if err != nil {
		return mcp.Task{}, err
	}
	return t.state, nil
}

// Ended reports whether task id of owner (of the 2025-11-25 dialect) has ended and its
// end been announced, so that [Manager.Result] answers at once. Unlike a lookup it
// neither counts against owner's rate limit nor logs a miss: it is asked before the
// request it serves is handled, which counts and logs.
func (m *Manager) Ended(owner, id string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.tasks[id]
	return ok && !t.gone && t.owner == owner && t.dialect == DialectCore && isClosed(t.done)
}

// Result waits until the task is terminal and returns its outcome. waiter is the id of the
// tasks/result request (the zero ID if there is none), recorded so that the work's
// side-channel requests can be routed to it. A cancelled task yields an error, as it has
// no result; a task deleted while waiting yields [ErrNotFound].
func (m *Manager) Result(ctx context.Context, owner, id string, waiter jsonrpc.ID) (Outcome, error) {
	m.mu.Lock()
	t, err := m.lookup(owner, id)
	if err != nil {
		m.mu.Unlock()
		return Outcome{}, err
	}
	// A task whose change to terminal has been announced has nothing left to route to a
	// tasks/result stream, so the waiter is not recorded: it would be dropped at once.
	if waiter.IsValid() && !isClosed(t.done) {
		m.wmu.Lock()
		m.addWaiterLocked(t, id, resultWaiter{waiter, owner})
		m.wmu.Unlock()
		defer m.dropWaiter(t, id, resultWaiter{waiter, owner})
	}
	m.mu.Unlock()
	select {
	case <-t.done:
	case <-ctx.Done():
		return Outcome{}, ctx.Err()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case t.gone:
		return Outcome{}, ErrNotFound
	case t.state.Status == mcp.TaskStatusCancelled:
		return Outcome{}, cancelledNoResult(id)
	}
	return t.outcome, nil
}

// TryResult is [Manager.Result] for a caller that must not wait (a connection's reading
// goroutine), of a task whose end has been announced: ok is false, and nothing is
// counted or logged, when another goroutine holds the manager, the task has not ended,
// or the lookup would fail (a miss, or the rate limit's refusal, is logged, which may wait
// for the log's writer); the caller then asks [Manager.Result].
func (m *Manager) TryResult(owner, id string) (_ Outcome, ok bool, _ error) {
	if !m.mu.TryLock() {
		return Outcome{}, false, nil
	}
	defer m.mu.Unlock()
	if t, found := m.tasks[id]; !found || !isClosed(t.done) {
		return Outcome{}, false, nil
	}
	t := m.quickLookupLocked(DialectCore, owner, id)
	switch {
	case t == nil:
		return Outcome{}, false, nil
	case t.state.Status == mcp.TaskStatusCancelled:
		return Outcome{}, true, cancelledNoResult(id)
	}
	return t.outcome, true, nil
}

// ResultLater is [Manager.Result] for a caller that must not wait (a connection's reading
// goroutine), of a task that has not ended: answer is called with the task's outcome,
// once, by the goroutine that ends the task, after the end is announced (or with
// [ErrNotFound] if the task is deleted first). The request counts as a waiting
// tasks/result (waiter; see [Manager.Waiter]) until then. stop withdraws it, and
// reports whether it did (answer is then never called) or answer was called or is
// being called. ok is false, and nothing is done, when another goroutine holds the
// manager, the task has ended (see [Manager.TryResult]), or the lookup would fail (a
// miss, or the rate limit's refusal).
func (m *Manager) ResultLater(owner, id string, waiter jsonrpc.ID, answer func(Outcome, error)) (stop func() bool, ok bool) {
	if !m.mu.TryLock() {
		return nil, false
	}
	defer m.mu.Unlock()
	if t, found := m.tasks[id]; !found || t.state.Status.IsTerminal() {
		return nil, false
	}
	if !m.wmu.TryLock() {
		return nil, false
	}
	defer m.wmu.Unlock()
	t := m.quickLookupLocked(DialectCore, owner, id)
	if t == nil {
		return nil, false
	}
	l := &laterResult{waiter: resultWaiter{waiter, owner}, answer: answer}
	if waiter.IsValid() {
		m.addWaiterLocked(t, id, l.waiter)
	}
	t.later = append(t.later, l)
	return func() bool {
		m.mu.Lock()
		i := slices.Index(t.later, l)
		if i >= 0 {
			t.later = slices.Delete(t.later, i, i+1)
		}
		m.mu.Unlock()
		if i < 0 {
			return false
		}
		m.dropWaiter(t, id, l.waiter)
		return true
	}, true
}

// quickLookupLocked is lookupIn for a caller that must not wait: the task, counted
// against owner's rate, or nil, with nothing counted or logged, when the lookup would
// fail (a miss, or the rate limit's refusal: both are logged, and the log's writer may
// be slow).
func (m *Manager) quickLookupLocked(d Dialect, owner, id string) *task {
	t, ok := m.tasks[id]
	// As lookupIn: a task of 2025-11-25, and a bound one, is its owner's alone.
	if !ok || t.gone || t.dialect != d || (t.owner != owner && (d == DialectCore || t.bound)) || m.limitedLocked(owner) {
		return nil
	}
	_ = m.allowLocked(owner) // within the rate: it counts the lookup and refuses nothing
	return t
}

// cancelledNoResult is the error of tasks/result for task id, which was cancelled.
func cancelledNoResult(id string) error {
	return jsonrpc.Errorf(jsonrpc.CodeInternalError, "task %s was cancelled and has no result", id).
		WithData(map[string]string{"taskId": id, "status": string(mcp.TaskStatusCancelled)})
}

// Outcome returns the outcome of a task that completed or failed, without waiting: ok is
// false while it runs, and for a cancelled task. Unlike [Manager.Result] it may be
// called from OnChange, for the task OnChange is called with (for another it could wait
// on a change that itself waits for OnChange to return).
func (m *Manager) Outcome(owner, id string) (out Outcome, ok bool, err error) {
	if a := m.announcing.Load(); a != nil && a.id == id && a.owner == owner {
		// Called from OnChange for the task announced: mu may be held by a change that
		// waits for this one to be announced.
		switch a.status {
		case mcp.TaskStatusCompleted, mcp.TaskStatusFailed:
			return a.outcome, true, nil
		}
		return Outcome{}, false, nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	t, err := m.lookup(owner, id)
	if err != nil {
		return Outcome{}, false, err
	}
	switch t.state.Status {
	case mcp.TaskStatusCompleted, mcp.TaskStatusFailed:
		return t.outcome, true, nil
	}
	return Outcome{}, false, nil
}

func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// addWaiterLocked records rw as a tasks/result waiting on task t. m.wmu is held.
func (m *Manager) addWaiterLocked(t *task, id string, rw resultWaiter) {
	t.resultWaiters = append(t.resultWaiters, rw)
	if m.waiting == nil {
		m.waiting = map[string]*task{}
	}
	m.waiting[id] = t
	if t.waiterAdded != nil {
		close(t.waiterAdded)
		t.waiterAdded = nil // the next to wait makes another
	}
}

func (m *Manager) dropWaiter(t *task, taskID string, rw resultWaiter) {
	m.wmu.Lock()
	defer m.wmu.Unlock()
	for i, w := range t.resultWaiters {
		if w == rw {
			t.resultWaiters = append(t.resultWaiters[:i], t.resultWaiters[i+1:]...)
			break
		}
	}
	if len(t.resultWaiters) == 0 && m.waiting[taskID] == t {
		delete(m.waiting, taskID)
	}
}

// Cancel moves a task to cancelled (before returning, as the spec requires) and stops its
// work. Cancelling a task that already ended is [ErrTerminal].
func (m *Manager) Cancel(owner, id, message string) (mcp.Task, error) {
	return m.cancelIn(DialectCore, owner, id, message)
}

func (m *Manager) cancelIn(d Dialect, owner, id, message string) (mcp.Task, error) {
	m.mu.Lock()
	t, err := m.lookupIn(d, owner, id)
	m.mu.Unlock()
	if err != nil {
		return mcp.Task{}, err
	}
	if message == "" {
		message = "Cancelled by request."
	}
	var snapshot mcp.Task
	var stop context.CancelFunc
	err = m.update(t, func(s *mcp.Task) error {
		if t.committed {
			return errCommitted
		}
		s.Status = mcp.TaskStatusCancelled
		s.StatusMessage = message
		return nil
	}, func() { snapshot, stop = t.state, t.cancel })
	if errors.Is(err, errCommitted) {
		// The spec wants a cancelled task before the answer, and a task whose side
		// effect happened is not that: the answer waits for the end the work is
		// about to give it.
		<-t.done
		m.mu.Lock()
		gone := t.gone
		m.mu.Unlock()
		if gone {
			return mcp.Task{}, ErrNotFound
		}
		return mcp.Task{}, ErrTerminal
	}
	if err != nil {
		return mcp.Task{}, err
	}
	stop()
	m.opts.Logger.Info("task cancelled", "task", id, "owner", owner)
	return snapshot, nil
}

// List returns one page of the owner's tasks, oldest first, and the cursor of the next.
func (m *Manager) List(owner, cursor string) ([]mcp.Task, string, error) {
	var after uint64
	if cursor != "" {
		b, err := base64.RawURLEncoding.DecodeString(cursor)
		if err != nil || len(b) < 2 || b[0] != 't' {
			return nil, "", ErrBadCursor
		}
		if after, err = strconv.ParseUint(string(b[1:]), 10, 64); err != nil {
			return nil, "", ErrBadCursor
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.allowLocked(owner); err != nil {
		return nil, "", err
	}
	if after > m.seq {
		return nil, "", ErrBadCursor // well-formed, but never issued
	}
	// The page is read from the owner's tasks in order, from the cursor on: a page
	// costs its own size, not the owner's tasks (sorting them all at each page made a
	// listing cost the square of their number, under the lock every client's task
	// requests take).
	order := m.owners[owner].ordered()
	i, _ := slices.BinarySearchFunc(order, after+1, bySeq)
	out := make([]mcp.Task, 0, min(len(order)-i, m.opts.PageSize))
	var last *task
	next := ""
	for _, t := range order[i:] {
		if t.dialect != DialectCore {
			continue
		}
		if len(out) == m.opts.PageSize {
			next = base64.RawURLEncoding.EncodeToString([]byte("t" + strconv.FormatUint(last.seq, 10)))
			break
		}
		out = append(out, t.state)
		last = t
	}
	return out, next, nil
}

// Adopt moves the task id to newOwner if its current owner passes may, and reports
// whether the task now belongs to newOwner. A server uses it to let a client that lost its
// session (a CLI that exited, a dropped connection) reach its tasks again by id.
func (m *Manager) Adopt(id, newOwner string, may func(owner string) bool) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.tasks[id]
	if !ok || t.gone {
		return false
	}
	if t.dialect != DialectCore {
		return false // a task of the extension has no session to be adopted from
	}
	if t.owner == newOwner {
		return true
	}
	if !may(t.owner) {
		return false
	}
	old := m.owners[t.owner]
	delete(old.tasks, id)
	old.unorder(t)
	if !t.state.Status.IsTerminal() {
		old.active--
	} else if t.tindex >= 0 {
		heap.Remove(&old.terminal, t.tindex)
	}
	if len(old.tasks) == 0 {
		delete(m.owners, t.owner)
	}
	set := m.owners[newOwner]
	if set == nil {
		set = &ownerSet{tasks: map[string]*task{}}
		m.owners[newOwner] = set
	}
	set.tasks[id] = t
	set.reorder(t)
	if !t.state.Status.IsTerminal() {
		set.active++
	} else {
		heap.Push(&set.terminal, t)
	}
	t.owner = newOwner
	return true
}

// Owner returns the owner of task id.
func (m *Manager) Owner(id string) (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.tasks[id]
	if !ok || t.gone {
		return "", false
	}
	return t.owner, true
}

// PollInterval is the interval the manager suggests to requestors.
func (m *Manager) PollInterval() time.Duration { return m.opts.PollInterval }

// All returns every task of owner, oldest first.
func (m *Manager) All(owner string) []mcp.Task {
	m.mu.Lock()
	defer m.mu.Unlock()
	order := m.owners[owner].ordered()
	out := make([]mcp.Task, len(order))
	for i, t := range order {
		out[i] = t.state
	}
	return out
}

// Len returns how many tasks the manager holds.
func (m *Manager) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.tasks)
}

// DropOwner deletes every task of owner, stopping the work of those still running: what a
// receiver does when the session its tasks are bound to ends.
func (m *Manager) DropOwner(owner string) {
	m.mu.Lock()
	var cancels []context.CancelFunc
	var unended []deletion
	for _, t := range m.owners[owner].all() {
		if t.cancel != nil { // nil once it has ended
			cancels = append(cancels, t.cancel)
		}
		unended = m.removeNoting(t, unended)
	}
	m.unlockDeleted(unended)
	for _, c := range cancels {
		c()
	}
}

// deletion is a task deleted before it ended, for OnDeleted.
type deletion struct{ owner, id string }

// removeNoting is removeLocked that adds t to unended when it had not ended and
// OnDeleted is set, for unlockDeleted to announce.
func (m *Manager) removeNoting(t *task, unended []deletion) []deletion {
	if m.opts.OnDeleted != nil && !t.gone && !t.state.Status.IsTerminal() {
		unended = append(unended, deletion{t.owner, t.state.TaskID})
	}
	m.removeLocked(t)
	return unended
}

// unlockDeleted releases m.mu and tells OnDeleted of the tasks in unended, in order with
// the announcements of changes.
func (m *Manager) unlockDeleted(unended []deletion) {
	if len(unended) == 0 {
		m.mu.Unlock()
		return
	}
	m.notifyMu.Lock() // after mu, as update takes them
	m.mu.Unlock()
	defer m.notifyMu.Unlock()
	for _, d := range unended {
		m.opts.OnDeleted(d.owner, d.id)
	}
}

// DefaultCloseWait is how long [Manager.Close] waits for the work of the tasks it stops.
const DefaultCloseWait = 5 * time.Second

// Close stops every task's work, deletes all tasks, and waits for the work to return,
// for at most [DefaultCloseWait]: it is [Manager.Shutdown] with that bound.
func (m *Manager) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), DefaultCloseWait)
	defer cancel()
	_ = m.Shutdown(ctx)
}

// Shutdown stops every task's work (its context ends), deletes all tasks, and waits
// until the work has returned and the goroutines kept to run work have ended, or ctx
// ends. Work that ignores its context may never return: when ctx ends first, each task
// whose work is still running is logged (Warn) and left to run, and Shutdown returns
// ctx's error. What such work does later is harmless: its Finish finds the task gone
// and drops the outcome. A manager is shut down once; later calls only wait again.
func (m *Manager) Shutdown(ctx context.Context) error {
	m.mu.Lock()
	m.closed = true
	var cancels []context.CancelFunc
	for _, t := range m.tasks {
		if t.cancel != nil { // nil once it has ended
			cancels = append(cancels, t.cancel)
		}
		m.removeLocked(t)
	}
	if m.timer != nil {
		m.timer.Stop()
	}
	m.mu.Unlock()
	for _, c := range cancels {
		c()
	}
	done := make(chan struct{})
	go func() {
		m.running.Wait()
		// After the work: a task registered before Close may still be handed to a worker.
		m.workers.Close()
		m.workers.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
	}
	type running struct {
		seq       uint64
		id, owner string
	}
	m.mu.Lock()
	stuck := make([]running, 0, len(m.unfinished))
	for t := range m.unfinished {
		stuck = append(stuck, running{t.seq, t.state.TaskID, t.owner})
	}
	m.mu.Unlock()
	if len(stuck) == 0 {
		return nil // the work returned; the idle workers end on their own
	}
	slices.SortFunc(stuck, func(a, b running) int { return cmp.Compare(a.seq, b.seq) })
	for _, t := range stuck {
		m.opts.Logger.Warn("task work did not return after its context ended; no longer waiting for it",
			"task", t.id, "owner", t.owner)
	}
	return fmt.Errorf("tasks: shutting down: %s work still running: %w", plural.Count(len(stuck), "task's", "tasks'"), ctx.Err())
}

// removeLocked deletes t; waiters wake and find it gone.
func (m *Manager) removeLocked(t *task) {
	if t.gone {
		return
	}
	t.gone = true
	if later := t.later; len(later) > 0 {
		t.later = nil
		// Off the manager's lock, which an answer, a write, must not hold.
		id := t.state.TaskID
		go func() {
			for _, l := range later {
				m.dropWaiter(t, id, l.waiter)
				l.answer(Outcome{}, ErrNotFound)
			}
		}()
	}
	delete(m.tasks, t.state.TaskID)
	set := m.owners[t.owner]
	delete(set.tasks, t.state.TaskID)
	set.unorder(t)
	if !t.state.Status.IsTerminal() {
		set.active--
		m.active--
		close(t.done)
	} else {
		if t.tindex >= 0 {
			heap.Remove(&set.terminal, t.tindex)
		}
		if t.aindex >= 0 {
			heap.Remove(&m.terminal, t.aindex)
		}
	}
	if len(set.tasks) == 0 {
		delete(m.owners, t.owner)
	}
	if t.index >= 0 {
		heap.Remove(&m.expiry, t.index)
	}
	// Maps and slices keep the memory of their largest size: once the last task is gone,
	// start afresh so that a burst of tasks leaves nothing behind.
	if len(m.tasks) == 0 {
		m.tasks = map[string]*task{}
		m.expiry, m.terminal = nil, nil
	}
}

// ownerSet is one owner's tasks, how many of them are still running, and the terminal
// ones by age, oldest first, for eviction.
type ownerSet struct {
	tasks map[string]*task
	// order is the tasks by seq, oldest first, for tasks/list.
	order    []*task
	active   int
	terminal terminalHeap
}

// unorder takes t out of the order.
func (o *ownerSet) unorder(t *task) {
	if i, ok := slices.BinarySearchFunc(o.order, t.seq, bySeq); ok {
		o.order = slices.Delete(o.order, i, i+1)
	}
}

// reorder puts t, a task adopted from another owner, in its place in the order.
func (o *ownerSet) reorder(t *task) {
	i, _ := slices.BinarySearchFunc(o.order, t.seq, bySeq)
	o.order = slices.Insert(o.order, i, t)
}

func bySeq(t *task, seq uint64) int { return cmp.Compare(t.seq, seq) }

// ordered returns the tasks by seq, oldest first; nil-safe, as all is.
func (o *ownerSet) ordered() []*task {
	if o == nil {
		return nil
	}
	return o.order
}

// all returns the tasks; nil-safe so that unknown owners have none.
func (o *ownerSet) all() map[string]*task {
	if o == nil {
		return nil
	}
	return o.tasks
}

func (m *Manager) evictOldestTerminal(set *ownerSet) {
	if len(set.terminal) > 0 {
		m.removeLocked(set.terminal.head()) // removes it from the heap too
	}
}

// logID is a task id as the logs show it: what a requestor sends may be megabytes,
// and the lookup logs it under the manager's lock.
func logID(id string) string {
	const most = 64 // our ids are 32
	if len(id) <= most {
		return id
	}
	return fmt.Sprintf("%s… (%d bytes)", strings.ToValidUTF8(id[:most], ""), len(id))
}

func newID() (string, error) {
	var b [16]byte // 128 random bits: ids double as capabilities where no auth binds them
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

func ptr[T any](v T) *T { return &v }
