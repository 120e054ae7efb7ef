package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// Requestor tasks: the client asks the server to run a tools/call as a task, follows it
// by polling tasks/get (status notifications save polls but never replace them), answers
// input_required by calling tasks/result at once, and fetches the exact outcome.

// TaskSupportError is a call refused locally because it breaks the task rules of the
// spec: a required tool called plainly, a forbidden tool called as a task, or a task
// asked of a server that does not accept tool tasks. [CallOptions.SendAnyway] sends it
// all the same, for testing servers.
type TaskSupportError struct {
	Tool    string
	Support mcp.TaskSupport
	AsTask  bool
	// ServerDeclines is set when the server declared no tasks.requests.tools.call.
	ServerDeclines bool
}

func (e *TaskSupportError) Error() string {
	switch {
	case e.AsTask && e.ServerDeclines:
		return fmt.Sprintf("the server does not accept tool calls as tasks, so %q cannot run as one", e.Tool)
	case e.AsTask:
		return fmt.Sprintf("the tool %q cannot run as a task (its taskSupport is %s)", e.Tool, e.Support)
	default:
		return fmt.Sprintf("the tool %q must be called as a task (its taskSupport is required)", e.Tool)
	}
}

// Is matches -32601, the code a server gives for the same violation.
func (e *TaskSupportError) Is(target error) bool { return errors.Is(jsonrpc.ErrMethodNotFound, target) }

// CallOptions tunes a tool call.
type CallOptions struct {
	// TTL asks for a task lifetime; 0 leaves it to the server.
	TTL time.Duration
	// SendAnyway skips the local task-support checks.
	SendAnyway bool
	// Progress asks the server for progress notifications.
	Progress bool
}

// checkTaskSupport applies the requestor rules: augment only what the server declared
// and the tool allows; never call a required tool plainly.
func (s *Session) checkTaskSupport(ctx context.Context, name string, asTask bool) error {
	t, err := s.Tool(ctx, name)
	var unknown *UnknownToolError
	if errors.As(err, &unknown) {
		return nil // not listed: the server has the last word
	}
	if err != nil {
		return err
	}
	support := t.TaskSupport()
	declared := s.ServerCapabilities().Tasks.SupportsToolCall()
	switch {
	case asTask && !declared:
		return &TaskSupportError{Tool: name, Support: support, AsTask: true, ServerDeclines: true}
	case asTask && support == mcp.TaskSupportForbidden:
		return &TaskSupportError{Tool: name, Support: support, AsTask: true}
	case !asTask && declared && support == mcp.TaskSupportRequired:
		return &TaskSupportError{Tool: name, Support: support}
	}
	return nil
}

// TaskEventKind says what a [TaskEvent] reports.
type TaskEventKind string

const (
	TaskCreated  TaskEventKind = "created"
	TaskStatus   TaskEventKind = "status"
	TaskProgress TaskEventKind = "progress"
	// TaskInput is a server request linked to the task, waiting in the pending queue.
	TaskInput TaskEventKind = "input"
	// TaskResult carries the exact result tasks/result returned.
	TaskResult TaskEventKind = "result"
	// TaskError carries the exact JSON-RPC error tasks/result returned, or why the
	// outcome could not be fetched.
	TaskError TaskEventKind = "error"
	// TaskGone says the server no longer knows the task (expired, restarted).
	TaskGone TaskEventKind = "gone"
)

// TaskEvent is one step in the life of a task the client follows. State is the task as
// last known.
type TaskEvent struct {
	At
	Kind     TaskEventKind
	Task     *Task
	State    mcp.Task
	Progress *mcp.ProgressNotificationParams
	Request  *Request
	Result   *mcp.CallToolResult
	Err      error
}

// ErrTaskGone is the error of a task the server no longer knows.
var ErrTaskGone = errors.New("the task expired or is unknown to the server")

// Task is a tool task the session follows. Its methods are safe for concurrent use.
type Task struct {
	s        *Session
	Tool     string
	Started  time.Time
	progress any // the call's progress token, if any

	mu        sync.Mutex
	state     mcp.Task
	known     bool // the server's id is known
	notified  bool // the server has sent a status notification for it
	polls     int
	resulting bool // a tasks/result call is in flight
	ended     bool // outcome delivered (or gone)
	result    *mcp.CallToolResult
	err       error
	cancelReq bool // cancel asked before the id was known
	forgotten bool // dropped from the session's registry (guarded by the registry's mu)
	wake      chan struct{}
	done      chan struct{}
	sub       hub
}

// ID is the server's task id ("" until the server has answered the call).
func (t *Task) ID() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.state.TaskID
}

// State is the task as last reported by the server.
func (t *Task) State() mcp.Task {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.state
}

// Polls is how many tasks/get requests the client has sent for the task.
func (t *Task) Polls() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.polls
}

// Done is closed once the outcome is known (or the task is gone).
func (t *Task) Done() <-chan struct{} { return t.done }

// Outcome returns the result or the error once [Task.Done] is closed.
func (t *Task) Outcome() (*mcp.CallToolResult, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.result, t.err
}

// Wait blocks until the outcome is known and returns it.
func (t *Task) Wait(ctx context.Context) (*mcp.CallToolResult, error) {
	select {
	case <-t.done:
		return t.Outcome()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Events ranges over the task's events from now on until its outcome is known or ctx
// ends. Subscribe before anything can happen with [Session.StartToolTask]'s result, or
// use [Session.CallToolTask], which yields every event from creation.
func (t *Task) Events(ctx context.Context) iter.Seq[TaskEvent] {
	sub := t.sub.subscribe()
	return func(yield func(TaskEvent) bool) {
		defer sub.Close()
		for e := range sub.All(ctx) {
			if !yield(*e.(*TaskEvent)) {
				return
			}
		}
	}
}

// Cancel asks the server to cancel the task. Asked before the server has given the id,
// it is sent as soon as the id arrives.
func (t *Task) Cancel(ctx context.Context) (mcp.Task, error) {
	t.mu.Lock()
	if !t.known {
		t.cancelReq = true
		t.mu.Unlock()
		return mcp.Task{}, nil
	}
	id := t.state.TaskID
	t.mu.Unlock()
	st, err := t.s.CancelTask(ctx, id)
	if err == nil {
		t.observe(st, false)
	}
	return st, err
}

// CallToolTask calls a tool as a task and yields its events, from creation to the
// outcome: the last event is a TaskResult, TaskError or TaskGone. An error starting the
// call is yielded as a TaskError event with no task.
func (s *Session) CallToolTask(ctx context.Context, p *mcp.CallToolParams, opts *CallOptions) iter.Seq[TaskEvent] {
	return func(yield func(TaskEvent) bool) {
		t, sub, err := s.startToolTask(ctx, p, opts, true)
		if err != nil {
			yield(TaskEvent{At: At{s.now()}, Kind: TaskError, Err: err})
			return
		}
		defer sub.Close()
		for e := range sub.All(ctx) {
			if !yield(*e.(*TaskEvent)) {
				return
			}
		}
		_ = t
	}
}

// StartToolTask calls a tool as a task and returns once the server has created it (or,
// from a server that ignored the task, answered at once). The session then follows it
// until its outcome is known.
func (s *Session) StartToolTask(ctx context.Context, p *mcp.CallToolParams, opts *CallOptions) (*Task, error) {
	t, _, err := s.startToolTask(ctx, p, opts, false)
	return t, err
}

// startToolTask starts the task, with a subscription to its events made before the call
// (so that it misses none) when subscribe is set.
func (s *Session) startToolTask(ctx context.Context, p *mcp.CallToolParams, opts *CallOptions, subscribe bool) (*Task, *Subscription, error) {
	if opts == nil {
		opts = &CallOptions{}
	}
	if !opts.SendAnyway {
		if err := s.checkTaskSupport(ctx, p.Name, true); err != nil {
			return nil, nil, err
		}
	}
	cp := *p
	cp.Meta = p.Meta.Clone()
	cp.Task = &mcp.TaskMetadata{}
	if opts.TTL > 0 {
		ms := opts.TTL.Milliseconds()
		cp.Task.TTL = &ms
	}
	t := &Task{s: s, Tool: p.Name, Started: s.now(), wake: make(chan struct{}, 1), done: make(chan struct{})}
	if tok, ok := cp.Meta.ProgressToken(); ok {
		t.progress = tok
	} else if opts.Progress {
		tok := s.NewProgressToken()
		cp.Meta.SetProgressToken(tok)
		t.progress = tok
	}
	if t.progress != nil {
		s.tasks.byToken(t.progress, t)
	}
	var sub *Subscription
	if subscribe {
		sub = t.sub.subscribe()
	}

	s.tasks.calling(1)
	defer s.tasks.calling(-1) // after the task is registered: its early notifications stay kept
	var raw json.RawMessage
	err := s.send(ctx, mcp.MethodToolsCall, &cp, &raw)
	if err != nil {
		s.tasks.forgetToken(t.progress)
		sub.closeIfAny()
		return nil, nil, fmt.Errorf("%s: %w", mcp.MethodToolsCall, err)
	}
	// One decode tells a CreateTaskResult (an object at result.task) from a plain result;
	// a result the probe cannot read is left to the plain decode to judge. UnmarshalResult
	// decodes this probe's shape directly.
	var answer struct {
		Task *mcp.Task `json:"task"`
	}
	if (*mcp.CreateTaskProbe)(&answer).UnmarshalJSON(raw) != nil || answer.Task == nil {
		// The server ran the call plainly (it may ignore params.task): that is the outcome.
		var res mcp.CallToolResult
		if err := res.UnmarshalJSON(raw); err != nil {
			sub.closeIfAny()
			return nil, nil, fmt.Errorf("%s: decoding the result: %w", mcp.MethodToolsCall, err)
		}
		s.log.Info("the server answered a task call with a plain result", "tool", p.Name)
		t.finish(&res, nil, s.now())
		return t, sub, nil
	}
	if answer.Task.TaskID == "" {
		sub.closeIfAny()
		return nil, nil, fmt.Errorf("%s: the server's CreateTaskResult has no task id", mcp.MethodToolsCall)
	}
	created := mcp.CreateTaskResult{Task: *answer.Task}
	t.mu.Lock()
	t.state = created.Task
	t.known = true
	cancelNow := t.cancelReq
	t.mu.Unlock()
	// Created goes out before the task is registered, so no status event can precede
	// it; notifications that arrive meanwhile are kept and replayed below.
	t.emit(TaskEvent{Kind: TaskCreated})
	early := s.tasks.add(t)
	if s.log.Enabled(ctx, slog.LevelInfo) { // its arguments would cost allocations
		s.log.Info("task created", "task", created.Task.TaskID, "tool", p.Name, "status", created.Task.Status)
	}
	// A status notification may have overtaken the CreateTaskResult.
	for _, st := range early {
		t.observe(st, true)
	}
	s.tasks.spawn(s, t.follow)
	if cancelNow {
		go func() { _, _ = t.Cancel(context.WithoutCancel(ctx)) }()
	}
	if created.Task.Status == mcp.TaskStatusInputRequired || created.Task.Status.IsTerminal() {
		t.kick()
	}
	return t, sub, nil
}

func (t *Task) emit(e TaskEvent) {
	if t.sub.active() || t.s.events.active() {
		t.publish(e)
	}
}

// publish is emit's second half: e escapes here, so a task nobody watches costs no
// allocation.
func (t *Task) publish(e TaskEvent) {
	e.At = At{t.s.now()}
	e.Task = t
	e.State = t.State()
	t.sub.publish(&e)
	t.s.events.publish(&e)
}

func (t *Task) kick() {
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

// observe takes a new state from tasks/get, tasks/cancel or a notification.
func (t *Task) observe(st mcp.Task, fromNotification bool) {
	t.mu.Lock()
	if fromNotification {
		t.notified = true
	}
	old := t.state
	switch {
	case t.ended:
		// The outcome is out; later news changes nothing a follower acts on.
		if !older(st.LastUpdatedAt, old.LastUpdatedAt) && !old.Status.IsTerminal() {
			t.state = st
		}
		t.mu.Unlock()
		return
	case old.Status.IsTerminal() && st.Status != old.Status:
		t.mu.Unlock()
		// Over HTTP a notification on the GET stream can arrive after a newer answer on
		// a POST stream: an older state is stale, not a server bug.
		if !older(st.LastUpdatedAt, old.LastUpdatedAt) {
			t.s.log.Warn("server bug: a terminal task changed status; ignored", "task", old.TaskID, "from", old.Status, "to", st.Status)
		}
		return
	case !st.Status.IsTerminal() && older(st.LastUpdatedAt, old.LastUpdatedAt):
		// A stale non-terminal state; a terminal one is taken whatever its time says.
		t.mu.Unlock()
		return
	case st.Status == old.Status && st.StatusMessage == old.StatusMessage && st.LastUpdatedAt == old.LastUpdatedAt:
		t.mu.Unlock()
		return
	}
	t.state = st
	t.mu.Unlock()
	t.emit(TaskEvent{Kind: TaskStatus})
	if st.Status == mcp.TaskStatusInputRequired || st.Status.IsTerminal() {
		t.kick()
	}
}

// older reports whether timestamp a is strictly before b; unparsable times are never
// older, so a server with odd timestamps is still followed.
func older(a, b string) bool {
	ta, err1 := mcp.ParseTime(a)
	tb, err2 := mcp.ParseTime(b)
	return err1 == nil && err2 == nil && ta.Before(tb)
}

// follow polls the task until its outcome is known. It runs on the session's context.
func (t *Task) follow() {
	s := t.s
	backoff := s.client.opts.PollFloor
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for {
		st := t.State()
		switch {
		case st.Status == mcp.TaskStatusCancelled:
			t.finish(nil, fmt.Errorf("task %s was cancelled", st.TaskID), s.now())
			return
		case st.Status.IsTerminal():
			// Nothing is left to watch: fetch the outcome on this goroutine.
			if t.claimResult() {
				t.fetchResult(context.Background(), st.TaskID)
			}
		case st.Status == mcp.TaskStatusInputRequired:
			// tasks/result blocks until the task ends; polls go on meanwhile, so that the
			// state stays current for those who watch it.
			if t.claimResult() {
				go func() {
					ctx, cancel := context.WithCancel(context.Background())
					defer cancel()
					go func() {
						select {
						case <-t.done: // ended otherwise (gone, cancelled): abandon the call
							cancel()
						case <-ctx.Done():
						}
					}()
					t.fetchResult(ctx, st.TaskID)
				}()
			}
		}
		select {
		case <-t.done:
			return
		default:
		}
		wait, notified := t.nextPoll(&backoff), t.serverNotifies()
		armed := time.Now()
		timer.Reset(wait)
		woken := false
	waiting:
		for {
			select {
			case <-t.done:
				return
			case <-s.conn.Done():
				t.finish(nil, fmt.Errorf("following task %s: %w", st.TaskID, s.conn.Err()), s.now())
				return
			case <-t.wake:
				woken = true
				break waiting
			case <-timer.C:
				// The server showed meanwhile that it sends status notifications (for
				// another task: the tasks of a burst end together): wait as long as that
				// allows before polling.
				if !notified && t.serverNotifies() && !t.shortLived() {
					notified = true
					if rest := s.client.opts.NotifiedPollInterval - time.Since(armed); rest > 0 {
						timer.Reset(rest)
						continue
					}
				}
				break waiting
			}
		}
		timer.Stop()
		if woken {
			continue
		}
		t.mu.Lock()
		t.polls++
		t.mu.Unlock()
		got, err := s.GetTask(context.Background(), st.TaskID)
		switch {
		case errors.Is(err, jsonrpc.ErrInvalidParams):
			t.gone()
			return
		case err != nil:
			if s.conn.Err() != nil {
				continue // the select above ends the task
			}
			s.log.Warn("tasks/get failed; retrying", "task", st.TaskID, "error", err)
			continue
		}
		t.observe(got, false)
	}
}

// nextPoll is max(the server's pollInterval, the local floor) plus 5 to 15% of it, or a
// growing backoff plus as much when the server suggests none. The spread keeps the polls
// of a burst of tasks from reaching the server together; the 5% floor keeps a first poll
// from racing the end of a task that lasts exactly one interval, since the server may
// start the work a little after it answered (in a burst of 1,000 one-second tasks, jitter
// from 0 cost a second poll, and a second, in 7 of 12 bursts; from 5%, in none). Once the
// server has shown it sends status notifications (for any task of the session), polls
// thin out to NotifiedPollInterval, but never stop, unless the task's ttl is shorter than
// that.
func (t *Task) nextPoll(backoff *time.Duration) time.Duration {
	o := t.s.client.opts
	t.mu.Lock()
	st, notified := t.state, t.notified
	t.mu.Unlock()
	notified = (notified || t.s.tasks.notified.Load()) && !shortLived(st, o)
	var d time.Duration
	if st.PollInterval != nil && *st.PollInterval > 0 {
		d = max(time.Duration(*st.PollInterval)*time.Millisecond, o.PollFloor)
	} else {
		d = *backoff
		*backoff = min(*backoff*2, o.PollCeiling)
	}
	d += d/20 + time.Duration(rand.Int64N(int64(d)/10+1))
	if notified {
		d = max(d, o.NotifiedPollInterval)
	}
	return d
}

// shortLived reports whether the task's ttl ends before NotifiedPollInterval: its expiry
// is silent, so it is polled at the server's interval all the same.
func (t *Task) shortLived() bool { return shortLived(t.State(), t.s.client.opts) }

func shortLived(st mcp.Task, o Options) bool {
	return st.TTL != nil && time.Duration(*st.TTL)*time.Millisecond < o.NotifiedPollInterval
}

// serverNotifies reports whether the server has shown that it sends status
// notifications, for this task or another.
func (t *Task) serverNotifies() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.notified || t.s.tasks.notified.Load()
}

// claimResult reports whether the caller may start the tasks/result call: none is in
// flight and the outcome is not known yet.
func (t *Task) claimResult() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.resulting || t.ended {
		return false
	}
	t.resulting = true
	return true
}

// fetchResult calls tasks/result for task id (claimed with claimResult) and settles the
// outcome. The connection's end fails the call.
func (t *Task) fetchResult(ctx context.Context, id string) {
	var raw json.RawMessage
	err := t.s.send(ctx, mcp.MethodTasksResult, &mcp.TaskResultParams{TaskID: id}, &raw)
	// Cleared only after the outcome is settled, so no second tasks/result starts.
	defer func() {
		t.mu.Lock()
		t.resulting = false
		t.mu.Unlock()
	}()
	var rpcErr *jsonrpc.Error
	switch {
	case err == nil:
		var res mcp.CallToolResult
		if derr := res.UnmarshalJSON(raw); derr != nil {
			t.finish(nil, fmt.Errorf("tasks/result: decoding the result: %w", derr), t.s.now())
			return
		}
		t.settleStatus(ctx)
		t.finish(&res, nil, t.s.now())
	case ctx.Err() != nil:
	case errors.As(err, &rpcErr) && t.State().Status == mcp.TaskStatusCancelled:
		t.finish(nil, fmt.Errorf("task %s was cancelled", id), t.s.now())
	case errors.As(err, &rpcErr) && rpcErr.Code == jsonrpc.CodeInvalidParams && !t.State().Status.IsTerminal():
		t.gone()
	case rpcErr == nil && t.s.conn.Err() != nil:
		// The connection ended: the follower reports it.
	default:
		t.settleStatus(ctx)
		t.finish(nil, err, t.s.now())
	}
}

// settleStatus makes sure the final status is known before the outcome is announced:
// tasks/result can return before the status notification or poll that says so, which
// over HTTP travel on another stream.
func (t *Task) settleStatus(ctx context.Context) {
	if t.State().Status.IsTerminal() {
		return
	}
	if st, err := t.s.GetTask(ctx, t.ID()); err == nil {
		t.observe(st, false)
	}
}

func (t *Task) gone() {
	t.mu.Lock()
	if t.ended {
		t.mu.Unlock()
		return
	}
	t.ended = true
	t.err = fmt.Errorf("task %s: %w", t.state.TaskID, ErrTaskGone)
	t.mu.Unlock()
	t.s.log.Info("task gone", "task", t.ID())
	t.emit(TaskEvent{Kind: TaskGone, Err: t.err})
	t.close()
}

func (t *Task) finish(res *mcp.CallToolResult, err error, now time.Time) {
	t.mu.Lock()
	if t.ended {
		t.mu.Unlock()
		return
	}
	t.ended = true
	t.result, t.err = res, err
	t.mu.Unlock()
	if err != nil {
		t.emit(TaskEvent{Kind: TaskError, Err: err})
	} else {
		t.emit(TaskEvent{Kind: TaskResult, Result: res})
	}
	if t.s.log.Enabled(context.Background(), slog.LevelInfo) {
		t.s.log.Info("task ended", "task", t.ID(), "status", t.State().Status, "error", err)
	}
	t.close()
}

func (t *Task) close() {
	close(t.done)
	t.s.tasks.forgetToken(t.progress)
	t.s.tasks.ended(t, t.s.client.opts.KeptTasks)
	t.sub.close(nil)
}

// FollowTask follows a task the session did not start: one found again with
// [Session.ServerTasks] after a reconnect, or named by id. Its events then flow like
// those of a task the session started, status notifications included.
func (s *Session) FollowTask(ctx context.Context, id string) (*Task, error) {
	if t := s.tasks.get(id); t != nil {
		return t, nil
	}
	st, err := s.GetTask(ctx, id)
	if err != nil {
		return nil, err
	}
	started, perr := mcp.ParseTime(st.CreatedAt)
	if perr != nil {
		started = s.now()
	}
	t := &Task{s: s, Started: started, wake: make(chan struct{}, 1), done: make(chan struct{}), state: st, known: true}
	prev, early := s.tasks.addOnce(t)
	if prev != nil {
		return prev, nil
	}
	for _, e := range early {
		t.observe(e, true)
	}
	t.emit(TaskEvent{Kind: TaskStatus})
	s.tasks.spawn(s, t.follow)
	if st.Status == mcp.TaskStatusInputRequired || st.Status.IsTerminal() {
		t.kick()
	}
	return t, nil
}

// GetTask asks the server for a task's state.
func (s *Session) GetTask(ctx context.Context, id string) (mcp.Task, error) {
	var r mcp.GetTaskResult
	if err := s.call(ctx, mcp.MethodTasksGet, &mcp.GetTaskParams{TaskID: id}, &r); err != nil {
		return mcp.Task{}, err
	}
	return r.Task, nil
}

// TaskResult waits for a task's outcome: the exact result, or the exact JSON-RPC error.
func (s *Session) TaskResult(ctx context.Context, id string) (*mcp.CallToolResult, error) {
	var r mcp.CallToolResult
	if err := s.send(ctx, mcp.MethodTasksResult, &mcp.TaskResultParams{TaskID: id}, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// CancelTask asks the server to cancel a task.
func (s *Session) CancelTask(ctx context.Context, id string) (mcp.Task, error) {
	var r mcp.CancelTaskResult
	if err := s.call(ctx, mcp.MethodTasksCancel, &mcp.CancelTaskParams{TaskID: id}, &r); err != nil {
		return mcp.Task{}, err
	}
	return r.Task, nil
}

// ListTasks returns one page of the server's tasks for this client.
func (s *Session) ListTasks(ctx context.Context, cursor string) (*mcp.ListTasksResult, error) {
	var r mcp.ListTasksResult
	if err := s.call(ctx, mcp.MethodTasksList, &mcp.ListTasksParams{Cursor: cursor}, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// ServerTasks ranges over every task the server lists for this client: after a
// reconnect, this is how the tasks it still has are found again.
func (s *Session) ServerTasks(ctx context.Context) iter.Seq2[mcp.Task, error] {
	return paginate(ctx, func(ctx context.Context, cursor string) ([]mcp.Task, string, error) {
		r, err := s.ListTasks(ctx, cursor)
		if err != nil {
			return nil, "", err
		}
		return r.Tasks, r.NextCursor, nil
	})
}

// Tasks returns every task the session follows or has followed, oldest first.
func (s *Session) Tasks() []*Task { return s.tasks.all() }

// taskRegistry indexes the session's tasks by id and by progress token, and keeps status
// notifications that arrive before the task's CreateTaskResult.
type taskRegistry struct {
	mu     sync.Mutex
	byID   map[string]*Task
	order  []*Task     // registration order; forgotten tasks are skipped, then compacted away
	done   []endedTask // ended tasks still kept, oldest first
	gone   int         // forgotten tasks still in order
	tokens map[any]*Task
	early  map[string][]mcp.Task
	// inflight counts tools/call task calls awaiting their CreateTaskResult.
	inflight int

	work chan func() // hands a task to an idle follower; unbuffered
	idle atomic.Int32

	// notified is set once the server has sent any status notification: a server that
	// sends them for one task sends them for all.
	notified atomic.Bool
}

// maxIdleFollowers bounds the goroutines that, having followed a task to its end, wait
// to follow the next one. A fresh goroutine starts with a small stack that decoding the
// result grows several times, and copying it costs a good part of a short task's round
// trip; a waiting follower has its stack grown already.
const maxIdleFollowers = 4

// spawn runs follow on an idle follower of session s, or on a new goroutine when none is
// waiting.
func (r *taskRegistry) spawn(s *Session, follow func()) {
	select {
	case r.work <- follow:
	default:
		go r.follower(s, follow)
	}
}

// follower runs f, then waits for more while fewer than maxIdleFollowers wait, until the
// session's connection ends.
func (r *taskRegistry) follower(s *Session, f func()) {
	for {
		f()
		if r.idle.Add(1) > maxIdleFollowers {
			r.idle.Add(-1)
			return
		}
		select {
		case f = <-r.work:
			r.idle.Add(-1)
		case <-s.conn.Done():
			r.idle.Add(-1)
			return
		}
	}
}

// maxEarly bounds the ids of status notifications kept for tasks not registered yet,
// beyond one per task call in flight: a server that ends a burst of tasks at once may
// announce each end before its CreateTaskResult, and a notification dropped here costs a
// poll later.
const maxEarly = 256

// calling counts task calls in flight (d is +1 or -1). When none is left, notifications
// still kept belong to no call of this session: they are dropped.
func (r *taskRegistry) calling(d int) {
	r.mu.Lock()
	r.inflight += d
	if r.inflight == 0 && len(r.early) > 0 {
		r.early = map[string][]mcp.Task{}
	}
	r.mu.Unlock()
}

func (r *taskRegistry) init() {
	r.byID = map[string]*Task{}
	r.tokens = map[any]*Task{}
	r.early = map[string][]mcp.Task{}
	r.work = make(chan func())
}

func (r *taskRegistry) add(t *Task) []mcp.Task {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.addLocked(t)
}

func (r *taskRegistry) addLocked(t *Task) []mcp.Task {
	id := t.state.TaskID
	r.byID[id] = t
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

type endedTask struct {
	t  *Task
	id string
}

// ended records that t has ended, and forgets the oldest ended tasks beyond keep.
func (r *taskRegistry) ended(t *Task, keep int) {
	id := t.ID()
	r.mu.Lock()
	defer r.mu.Unlock()
	if t.forgotten || r.byID[id] != t {
		return // not registered (a plain answer, a failed call)
	}
	r.done = append(r.done, endedTask{t, id})
	for len(r.done) > keep {
		old := r.done[0]
		r.done[0] = endedTask{}
		r.done = r.done[1:]
		old.t.forgotten = true
		delete(r.byID, old.id)
		r.gone++
	}
	if r.gone > 64 && r.gone > len(r.order)/2 {
		r.order = slices.DeleteFunc(r.order, func(t *Task) bool { return t.forgotten })
		r.gone = 0
	}
}

// statusNotification routes notifications/tasks/status to its task, or keeps it for a
// task whose CreateTaskResult has not arrived yet.
func (s *Session) statusNotification(st mcp.Task) {
	// Look the task up and keep the notification under one lock: a task registered
	// between the two would never collect it.
	s.tasks.notified.Store(true)
	s.tasks.mu.Lock()
	t := s.tasks.byID[st.TaskID]
	if t == nil {
		if len(s.tasks.early) < maxEarly+s.tasks.inflight {
			s.tasks.early[st.TaskID] = append(s.tasks.early[st.TaskID], st)
		}
		s.tasks.mu.Unlock()
		return
	}
	s.tasks.mu.Unlock()
	t.observe(st, true)
}
