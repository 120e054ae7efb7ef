package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpi-dev/mcpi/internal/jsonwire"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/transport"
)

// Requestor tasks: the client asks the server to run a tools/call as a task, follows it
// by polling tasks/get (status notifications save polls but never replace them), answers
// input_required by calling tasks/result at once, and fetches the exact outcome. This
// file holds the API; follow.go the follower, taskregistry.go the session's index.

// TaskSupportError is a call that breaks the task rules of the spec: a required tool
// called plainly, a forbidden tool called as a task, or a task asked of a server that
// does not accept tool tasks. In 2025-11-25 it is refused locally, and
// [CallOptions.SendAnyway] sends it all the same, for testing servers. In 2026-07-28,
// where the server decides, it is the server's refusal of a plain call to a tool it runs
// only as a task (-32021 naming the Tasks extension): Err holds that error.
type TaskSupportError struct {
	Tool    string
	Support mcp.TaskSupport
	AsTask  bool
	// ServerDeclines is set when the server declared no tasks.requests.tools.call.
	ServerDeclines bool
	// Version is set when the session's protocol revision has no Tasks (those before
	// 2025-11-25): it is that revision.
	Version string
	// Err is the server's refusal, when it was the server that refused; errors.As finds
	// it.
	Err error
}

func (e *TaskSupportError) Error() string {
	var rpc *jsonrpc.Error
	switch {
	case errors.As(e.Err, &rpc):
		return fmt.Sprintf("the server runs the tool %q only as a task (JSON-RPC error %d)", e.Tool, rpc.Code)
	case e.Version != "":
		return fmt.Sprintf("protocol %s has no tasks (they came with %s), so %q cannot run as one", e.Version, mcp.LatestProtocolVersion, e.Tool)
	case e.AsTask && e.ServerDeclines:
		return fmt.Sprintf("the server does not accept tool calls as tasks, so %q cannot run as one", e.Tool)
	case e.AsTask:
		return fmt.Sprintf("the tool %q cannot run as a task (its taskSupport is %s)", e.Tool, e.Support)
	default:
		return fmt.Sprintf("the tool %q must be called as a task (its taskSupport is required)", e.Tool)
	}
}

// Is matches -32601, the code a server of 2025-11-25 gives for the same violation, in
// either era.
func (e *TaskSupportError) Is(target error) bool { return errors.Is(jsonrpc.ErrMethodNotFound, target) }

func (e *TaskSupportError) Unwrap() error { return e.Err }

// needsTaskCall reports whether err is the server's refusal of a plain tools/call of a
// tool it runs only as a task: -32021 with the Tasks extension among the required
// capabilities.
func needsTaskCall(err error) bool {
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) || rpc.Code != mcp.CodeMissingRequiredClientCapability {
		return false
	}
	var d mcp.MissingCapabilityData
	if json.Unmarshal(rpc.Data, &d) != nil {
		return false
	}
	_, ok := d.RequiredCapabilities.Extensions[mcp.ExtensionTasks]
	return ok
}

// CallOptions tunes a tool call.
type CallOptions struct {
	// TTL asks for a task lifetime; 0 leaves it to the server. Plain calls ignore it, and
	// so do the task calls of 2026-07-28, whose Tasks extension has the server choose
	// the ttl with no word from the client.
	TTL time.Duration
	// SendAnyway skips the local task-support checks.
	SendAnyway bool
	// Progress asks the server for progress notifications. Those of a task arrive as
	// [TaskProgress] events in 2025-11-25 only: the Tasks extension of 2026-07-28 has no
	// progress for tasks (a task's statusMessage says how it goes), so there they come
	// only while the call is answered inline.
	Progress bool
}

// checkTaskSupport applies the requestor rules: augment only what the server declared
// and the tool allows; never call a required tool plainly.
func (s *Session) checkTaskSupport(ctx context.Context, name string, asTask bool) error {
	if s.modern != nil {
		return nil // in 2026-07-28 the server decides, per call
	}
	coreTasks := mcp.HasCoreTasks(s.ProtocolVersion())
	if asTask && !coreTasks {
		return &TaskSupportError{Tool: name, AsTask: true, Version: s.ProtocolVersion()}
	}
	t, err := s.Tool(ctx, name)
	var unknown *UnknownToolError
	if errors.As(err, &unknown) {
		return nil // not listed: the server has the last word
	}
	if err != nil {
		return err
	}
	support := t.TaskSupport()
	// A server that declares tasks in a revision that has none is not taken at its word.
	declared := coreTasks && s.ServerCapabilities().Tasks.SupportsToolCall()
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
	TaskCreated TaskEventKind = "created"
	// TaskStatus is the task's state, as the server reported it. One with Err set ends
	// the events of [Session.CallToolTask] whose ctx ended before the outcome: the task
	// goes on, followed by the session.
	TaskStatus TaskEventKind = "status"
	// TaskProgress is a notifications/progress of the task's call ([CallOptions.Progress]).
	// Only tasks of 2025-11-25 have them: the Tasks extension of 2026-07-28 sends none
	// for a task.
	TaskProgress TaskEventKind = "progress"
	// TaskInput is a server request linked to the task, waiting in the pending queue.
	TaskInput TaskEventKind = "input"
	// TaskResult carries the exact result tasks/result returned, a tool error (isError)
	// included.
	TaskResult TaskEventKind = "result"
	// TaskError carries why the task gave no result: the exact JSON-RPC error
	// tasks/result returned, a [*TaskEndError] for a cancelled task, or why the outcome
	// could not be fetched.
	TaskError TaskEventKind = "error"
	// TaskGone says the server no longer knows the task (expired, restarted); Err is a
	// [*TaskEndError].
	TaskGone TaskEventKind = "gone"
)

// IsOutcome reports whether k ends a task's events.
func (k TaskEventKind) IsOutcome() bool { return k == TaskResult || k == TaskError || k == TaskGone }

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
	// Dropped counts the events a task's event stream ([Task.Events],
	// [Session.CallToolTask]) left out just before this one, because its reader fell
	// behind (see [DroppedEvent]); such an event is a TaskStatus with the task as known
	// when it is read.
	Dropped int
}

// Errors a task's outcome matches with errors.Is, through a [*TaskEndError].
var (
	// ErrTaskGone is the error of a task the server no longer knows.
	ErrTaskGone = errors.New("the task expired or is unknown to the server")
	// ErrTaskCancelled is the error of a task that was cancelled before it gave a result.
	ErrTaskCancelled = errors.New("the task was cancelled")
)

// TaskEndError is the outcome of a task that ended with nothing to give: it was
// cancelled, or the server no longer knows it. A task that failed gives its failure
// instead: the tool's result with isError, or the exact JSON-RPC error.
type TaskEndError struct {
	TaskID string
	// Reason is [ErrTaskCancelled] or [ErrTaskGone].
	Reason error
	// StatusMessage is what the server last said of the task, if anything.
	StatusMessage string
	// Err is the JSON-RPC error the server answered with, if it answered one (the error
	// of tasks/result for a cancelled task, -32602 for a task it does not know); errors.As
	// finds it.
	Err error
}

func (e *TaskEndError) Error() string {
	if errors.Is(e.Reason, ErrTaskCancelled) {
		return fmt.Sprintf("task %s was cancelled", e.TaskID)
	}
	return fmt.Sprintf("task %s: %v", e.TaskID, e.Reason)
}

func (e *TaskEndError) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Reason}
	}
	return []error{e.Reason, e.Err}
}

// TaskLostError is the outcome of a task whose follower gave up: its polls (tasks/get)
// failed, [MaxFailedPolls] of them in a row, with growing waits between them. The server
// could not be reached (errors.Is finds [transport.ErrUnreachable] then), broke the
// connections, answered with an HTTP error that is no JSON-RPC answer, or did not answer
// within [Options.RequestTimeout]; or it answered each poll with a JSON-RPC error other
// than -32602, or with a result that is no task's state ([TaskLostError.Answered]). The
// task's fate is not known: it may still be running on the server, or have gone with it.
type TaskLostError struct {
	TaskID string
	// Polls is how many polls failed in a row; Err is the last one's error.
	Polls int
	Err   error
}

func (e *TaskLostError) Error() string {
	if e.Answered() {
		return fmt.Sprintf("lost track of task %s: the server answered %d polls in a row with an error; the last: %v", e.TaskID, e.Polls, e.Err)
	}
	return fmt.Sprintf("lost track of task %s: %d polls in a row got no answer from the server; the last: %v", e.TaskID, e.Polls, e.Err)
}

func (e *TaskLostError) Unwrap() error { return e.Err }

// Answered reports whether the server answered the last poll (see [ServerAnswered]),
// rather than not at all: the server is there, but did not say how the task is.
func (e *TaskLostError) Answered() bool { return ServerAnswered(e.Err) }

// ServerAnswered reports whether err, the error of a request, is the server's answer to
// it (a JSON-RPC error, or a result that is not of the request's shape) rather than a
// failure to get one (the server could not be reached, the connection ended, the
// request timed out). A server that ended the session answers with a JSON-RPC error in
// its HTTP 404 ("session not found"), but that says nothing of the request: the session
// is over, as a connection that ended is.
func ServerAnswered(err error) bool {
	var (
		rpc  *jsonrpc.Error
		call *jsonrpc.CallError
	)
	if errors.Is(err, transport.ErrSessionExpired) {
		return false
	}
	return errors.As(err, &rpc) && rpc.Code != jsonrpc.CodeConnectionClosed ||
		errors.As(err, &call) && call.Op == jsonrpc.OpDecode
}

// CancelRefusedError is the error of a tasks/cancel that a 2025-11-25 server refused
// with -32602, which it answers both for a task that has ended and for one it does not
// know, when tasks/get, asked which of the two, failed too (with an error other than
// -32602). The task may have ended, or be unknown: it is not [ErrTaskGone]. errors.As
// finds the server's -32602 (Err) first, and the failure of tasks/get (GetErr) after it.
type CancelRefusedError struct {
	TaskID string
	// Err is the server's refusal of tasks/cancel (-32602); GetErr is the error of the
	// tasks/get that followed.
	Err, GetErr error
}

func (e *CancelRefusedError) Error() string {
	return fmt.Sprintf("tasks/cancel of task %s: refused (%v), and tasks/get, asked whether the task has ended or is unknown, failed: %v", e.TaskID, e.Err, e.GetErr)
}

func (e *CancelRefusedError) Unwrap() []error { return []error{e.Err, e.GetErr} }

// Task is a tool task the session follows. Its methods are safe for concurrent use.
type Task struct {
	s        *Session
	Tool     string
	Started  time.Time
	progress any // the call's progress token, if any

	mu         sync.Mutex
	state      mcp.Task
	known      bool // the server's id is known
	announced  bool // the created event is out: later events go out as they come
	held       []*TaskEvent
	notified   bool   // the server has sent a status notification for it
	notes      uint64 // status notifications taken, to order a poll's answer after them (getCore)
	polls      int
	failed     int           // the polls in a row that failed (see pollFailed)
	pollErr    error         // the error of the latest poll, if it failed
	resulting  bool          // a call that fetches the outcome (tasks/result; in 2026-07-28 tasks/get) is in flight
	waiting    bool          // that call is an early tasks/result, sent as the task was created working
	askedEarly bool          // an early tasks/result was sent: there is no second
	tracked    bool          // the session follows the task (Session.track): an answer may settle it
	caughtUp   bool          // its notifications that came before it was tracked are replayed (guarded by the registry's mu)
	kept       *earlyAnswer  // the early tasks/result's answer, when it came before the task was tracked
	inferred   bool          // the final status was told by tasks/result's answer, not by the server
	following  bool          // a follower goroutine follows the task (follow.go)
	poll       *pollEntry    // the next poll of a task without a follower (see pollQueue)
	backoff    time.Duration // the poll interval's backoff when the server suggests none
	ended      bool          // outcome delivered (or gone)
	result     *mcp.CallToolResult
	err        error
	cancelReq  bool // cancel asked before the id was known
	cancelSent bool // tasks/cancel was sent: a task the server forgets after it was cancelled
	forgotten  bool // dropped from the session's registry (guarded by the registry's mu)
	registered bool // added to the session's registry (guarded by the registry's mu)
	pollNow    bool // poll at once, not at the next interval

	// toSession: an event of the task went to the session's subscribers; unseen: the
	// call failed before any did, so none does (the task was never the server's, and
	// the session's subscribers would meet an end without its start).
	toSession, unseen atomic.Bool

	// The Tasks extension of 2026-07-28 (exttasks.go).
	ext    bool
	detail *mcp.DetailedTask          // the latest tasks/get or notification
	inputs map[string]bool            // inputRequests keys taken to answer, each once
	asked  int                        // inputs taken over the task's life
	unsent map[string]json.RawMessage // answers tasks/update has not taken yet
	// abandoned is why mcpi cancelled the task itself (an input not given, too many
	// inputs asked): the task's outcome, whatever the server reports after.
	abandoned error
	listen    *listenGroup // the subscriptions/listen stream that names the task
	// unheard: the task has no stream to hear of it on (refused, or ended before the
	// task did): it is polled at its own interval, whatever other tasks heard.
	unheard bool
	wake    chan struct{}
	done    chan struct{}
	sub     hub

	// resultCtx is the context the task's tasks/result requests are made on (made at the
	// first); resultStop withdraws them. resultBound gives up on them RequestTimeout
	// after the task is known to have ended with one in flight (see boundResultLocked).
	resultCtx   context.Context
	resultStop  context.CancelCauseFunc
	resultBound *time.Timer
}

func newTask(s *Session, tool string, started time.Time) *Task {
	return &Task{s: s, Tool: tool, Started: started, wake: make(chan struct{}, 1), done: make(chan struct{})}
}

// ID is the server's task id. It is set when the server's answer to the call creates the
// task (a CreateTaskResult in 2025-11-25; in 2026-07-28 a result of resultType "task",
// which may come after rounds of input_required), so before [Session.StartToolTask]
// returns and with the [TaskCreated] event; a task of [Session.FollowTask] has it from
// the start. Before that answer it is "": progress that overtakes it reaches the
// session's subscribers with a Task that has no id yet. It stays "" for good when the
// server answers without making a task (in 2026-07-28, where the server decides, a call
// it ran inline; in 2025-11-25, a server that ignored params.task: the answer is the
// Task's outcome, and [Task.Dialect] still gives the session's era) and when the call
// fails before the task exists.
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

// PollError is the error of the task's latest tasks/get when it failed: it got no answer
// from the server (it could not reach it, or timed out), or a JSON-RPC error; nil when it
// was answered with the task's state: a front end that stops following the task can tell
// the user whether the server was last seen holding it. It is nil before the first poll.
func (t *Task) PollError() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.pollErr
}

// Done is closed once the outcome is known (or the task is gone).
func (t *Task) Done() <-chan struct{} { return t.done }

// Outcome returns the result or the error once [Task.Done] is closed: the result (a
// tool error with isError included), the exact JSON-RPC error of tasks/result, a
// [*TaskEndError] for a task cancelled or gone, or why the outcome could not be fetched.
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

// Events ranges over the task from now to its outcome: first a TaskStatus event with the
// task as known now, then every event, and last the outcome (at once, for a task that
// has ended), unless ctx ends first. A reader that falls far behind gets, in place of the
// events left out, a TaskStatus event with the task as known then ([TaskEvent.Dropped]).
func (t *Task) Events(ctx context.Context) iter.Seq[TaskEvent] {
	sub := t.sub.subscribe()
	return func(yield func(TaskEvent) bool) {
		defer sub.Close()
		if !yield(TaskEvent{At: At{t.s.now()}, Kind: TaskStatus, Task: t, State: t.State()}) {
			return
		}
		ended := false
		for e := range sub.All(ctx) {
			ev, ok := t.eventOf(e)
			if !ok {
				continue
			}
			ended = ended || ev.Kind.IsOutcome()
			if !yield(ev) {
				return
			}
		}
		if ended || ctx.Err() != nil {
			return
		}
		// The outcome was out before the subscription: it is the task's to give again.
		<-t.done
		res, err := t.Outcome()
		ev := TaskEvent{At: At{t.s.now()}, Task: t, State: t.State(), Result: res, Err: err}
		switch {
		case errors.Is(err, ErrTaskGone):
			ev.Kind = TaskGone
		case err != nil:
			ev.Kind = TaskError
		default:
			ev.Kind = TaskResult
		}
		yield(ev)
	}
}

// Cancel asks the server to cancel the task and returns the task's state after it:
// in 2025-11-25 the answer to tasks/cancel, in 2026-07-28 (whose tasks/cancel is only
// acknowledged) the answer to a tasks/get sent right after. Asked before the server has
// given the id, it is sent as soon as the id arrives. A server of 2025-11-25 that
// declared no tasks.cancel capability is sent nothing: the error is [ErrNoTaskCancel].
func (t *Task) Cancel(ctx context.Context) (mcp.Task, error) {
	if !t.s.CancelsTasks() {
		return t.State(), ErrNoTaskCancel
	}
	t.mu.Lock()
	if !t.known {
		t.cancelReq = true
		t.mu.Unlock()
		return mcp.Task{}, nil
	}
	id, ext := t.state.TaskID, t.ext
	t.cancelSent = true
	t.mu.Unlock()
	if ext {
		// An acknowledgement, not a state: the state is asked for at once, so that what
		// Cancel returns, and the task's events, say what the server made of the cancel
		// (cancelled, or still at work: a cancel of the extension may take a while, or
		// come too late), not the state the task had before it.
		if err := t.s.call(ctx, mcp.MethodTasksCancel, &mcp.CancelTaskParams{TaskID: id}, nil); err != nil {
			return t.State(), t.s.goneError(id, err)
		}
		st, notes, err := t.getSince(ctx)
		if err != nil {
			t.pollSoon() // the follower learns it
			return t.State(), nil
		}
		t.observeSince(st, fromAnswer, notes)
		return st, nil
	}
	st, err := t.s.CancelTask(ctx, id)
	if err == nil {
		t.observe(st, fromAnswer)
	}
	return st, err
}

// CallToolTask calls a tool as a task and yields its events, from creation to the
// outcome: TaskCreated first, whatever overtook the server's answer on the wire held
// until it is out, and a TaskResult, TaskError or TaskGone last. A server that answers
// the call plainly gives no TaskCreated: its progress, then the result. An error
// starting the call is yielded as a TaskError event with no task. (The session's own
// subscribers, [Session.Subscribe], see every event as it happens, progress that
// overtakes the CreateTaskResult included: with it comes the [*Task], which can be
// cancelled before its id is known.) A reader that falls far behind gets, in place of
// the events left out, a TaskStatus event with the task as known then
// ([TaskEvent.Dropped]). When ctx ends before the outcome, the last event is a TaskStatus
// with Err set to ctx's error (its cause): the events stop there, and the task goes on,
// followed by the session ([Task.Wait], [Task.Events]).
func (s *Session) CallToolTask(ctx context.Context, p *mcp.CallToolParams, opts *CallOptions) iter.Seq[TaskEvent] {
	return func(yield func(TaskEvent) bool) {
		t, sub, err := s.startToolTask(ctx, p, opts, true)
		if err != nil {
			yield(TaskEvent{At: At{s.now()}, Kind: TaskError, Err: err})
			return
		}
		defer sub.Close()
		ended := false
		for e := range sub.All(ctx) {
			ev, ok := t.eventOf(e)
			if !ok {
				continue
			}
			ended = ended || ev.Kind.IsOutcome()
			if !yield(ev) {
				return
			}
		}
		if !ended && ctx.Err() != nil {
			yield(TaskEvent{At: At{s.now()}, Kind: TaskStatus, Task: t, State: t.State(), Err: context.Cause(ctx)})
		}
	}
}

// eventOf is the TaskEvent of what the task's subscription gave: the event itself, or in
// place of events left out ([DroppedEvent]) a TaskStatus with the task as known now.
func (t *Task) eventOf(e Event) (TaskEvent, bool) {
	switch e := e.(type) {
	case *TaskEvent:
		return *e, true
	case *DroppedEvent:
		return TaskEvent{At: At{t.s.now()}, Kind: TaskStatus, Task: t, State: t.State(), Dropped: e.Count}, true
	}
	return TaskEvent{}, false
}

// StartToolTask calls a tool as a task and returns once the server has created it (or,
// from a server that ignored the task, answered at once). The session then follows it
// until its outcome is known.
func (s *Session) StartToolTask(ctx context.Context, p *mcp.CallToolParams, opts *CallOptions) (*Task, error) {
	t, _, err := s.startToolTask(ctx, p, opts, false)
	return t, err
}

// RunToolTask calls a tool as a task and waits for its outcome: [Session.StartToolTask]
// and [Task.Wait] in one. The task is followed as StartToolTask's is, and is returned
// with its outcome; it is nil when the call itself failed, and has no [Task.ID] when the
// server answered without making a task. When ctx ends first, the task goes on, followed
// by the session, and ctx's error is returned with the task if it was created by then.
//
// Over stdio, in either protocol era, the answer that creates the task is taken where it
// is read and the caller wakes once, at the outcome, as for a ping: a task that is done
// at once costs one goroutine hand-off, not two.
func (s *Session) RunToolTask(ctx context.Context, p *mcp.CallToolParams, opts *CallOptions) (*Task, *mcp.CallToolResult, error) {
	if !s.localWrites || (s.modern != nil && s.modern.headers) {
		t, err := s.StartToolTask(ctx, p, opts)
		if err != nil {
			return nil, nil, err
		}
		r, err := t.Wait(ctx)
		return t, r, err
	}
	if s.modern != nil {
		return s.runModernToolTask(ctx, p, opts)
	}
	t, cp, _, err := s.prepareToolTask(ctx, p, opts, false)
	if err != nil {
		return nil, nil, err
	}
	here := func(res json.RawMessage) (*mcp.CreateTaskProbe, bool) { return t.peekCreated(res), true }
	return s.runHere(ctx, t, p, cp, here, nil)
}

// runModernToolTask is RunToolTask in the 2026-07-28 era over a transport whose writes
// are local. An answer that is a task is taken where it is read: the task is registered
// and its stream opened there, and the caller wakes once, at the outcome. Any other first
// answer (a result, a request for input, an error that asks for another try) goes back to
// the caller, which carries the exchange on as StartToolTask does.
func (s *Session) runModernToolTask(ctx context.Context, p *mcp.CallToolParams, opts *CallOptions) (*Task, *mcp.CallToolResult, error) {
	t, cp, _, err := s.prepareToolTask(ctx, p, opts, false)
	if err != nil {
		return nil, nil, err
	}
	raw, err := s.modern.params(cp, true)
	if err != nil {
		err = &jsonrpc.CallError{Method: mcp.MethodToolsCall, Op: jsonrpc.OpEncode, Err: err}
		t.undoCall(nil, err)
		return nil, nil, err
	}
	here := func(res json.RawMessage) (*mcp.CreateTaskProbe, bool) {
		return nil, mcp.ResultTypeOf(res) == mcp.ResultTypeTask
	}
	return s.runHere(ctx, t, p, raw, here, func(first modernAnswer) (*Task, *mcp.CallToolResult, error) {
		return s.runModernRounds(ctx, t, p, raw, first)
	})
}

// runHere sends t's call (params) over a transport whose writes are local and waits for
// its outcome. The answer is taken where it is read when here says so (with what it
// decoded of it for taskAnswer): the task is registered and followed from there, and the
// caller wakes once, at the outcome. An answer that here leaves, and with carryOn an
// error too, goes back to the caller, to carryOn.
func (s *Session) runHere(ctx context.Context, t *Task, p *mcp.CallToolParams, params any,
	here func(json.RawMessage) (*mcp.CreateTaskProbe, bool), carryOn func(modernAnswer) (*Task, *mcp.CallToolResult, error)) (*Task, *mcp.CallToolResult, error) {
	s.tasks.calling(1)
	bctx, cancel, explain := s.deadline(ctx, mcp.MethodToolsCall)
	defer cancel()
	back := make(chan modernAnswer, 1) // an answer for carryOn
	failed := make(chan error, 1)      // the call failed, or its answer could not be taken
	registered := make(chan struct{})
	err := s.conn.Go(bctx, mcp.MethodToolsCall, params, func(res json.RawMessage, err error) {
		var probed *mcp.CreateTaskProbe
		taken := err == nil
		if taken {
			probed, taken = here(res)
		}
		if !taken && carryOn != nil {
			back <- modernAnswer{res, explain(err)}
			return
		}
		defer s.tasks.calling(-1) // once the task is registered: its early notifications stay kept
		// The caller is told before the task ends with the same error (undoCall), so
		// that it never takes that end for an outcome.
		if err != nil {
			err = fmt.Errorf("%s: %w", mcp.MethodToolsCall, explain(err))
			failed <- err
			t.undoCall(nil, err)
			return
		}
		if err := s.taskAnswer(ctx, t, p, res, probed); err != nil {
			failed <- err
			t.undoCall(nil, err)
			return
		}
		close(registered)
	})
	if err != nil {
		s.tasks.calling(-1)
		return nil, nil, t.callFailed(nil, explain(err))
	}
	select {
	case first := <-back:
		return carryOn(first)
	case err := <-failed:
		return nil, nil, err
	case <-t.done:
		select {
		case err := <-failed: // the call failed, which ended the task too
			return nil, nil, err
		default:
		}
		r, err := t.Outcome()
		return t, r, err
	case <-ctx.Done():
		// The answer's function runs once ctx has ended, if it has not already: whether
		// the task was created by then is known soon.
		select {
		case first := <-back:
			return carryOn(first)
		case err := <-failed:
			return nil, nil, err
		case <-registered:
		}
		select {
		case <-t.done:
			r, err := t.Outcome()
			return t, r, err
		default:
			return t, nil, ctx.Err()
		}
	}
}

// runModernRounds carries on runModernToolTask's exchange from its first answer, which
// was not a task, on the caller's goroutine: input rounds, a retry, and the task or the
// result they end with.
func (s *Session) runModernRounds(ctx context.Context, t *Task, p *mcp.CallToolParams, raw json.RawMessage, first modernAnswer) (*Task, *mcp.CallToolResult, error) {
	defer s.tasks.calling(-1) // after the task is registered: its early notifications stay kept
	var res json.RawMessage
	if err := s.modernRounds(ctx, mcp.MethodToolsCall, raw, &res, true, &first); err != nil {
		return nil, nil, t.callFailed(nil, err)
	}
	if err := s.taskAnswer(ctx, t, p, res, nil); err != nil {
		t.undoCall(nil, err)
		return nil, nil, err
	}
	r, err := t.Wait(ctx)
	return t, r, err
}

// startToolTask starts the task, with a subscription to its events made before the call
// (so that it misses none) when subscribe is set.
func (s *Session) startToolTask(ctx context.Context, p *mcp.CallToolParams, opts *CallOptions, subscribe bool) (*Task, *Subscription, error) {
	t, cp, sub, err := s.prepareToolTask(ctx, p, opts, subscribe)
	if err != nil {
		return nil, nil, err
	}
	s.tasks.calling(1)
	defer s.tasks.calling(-1) // after the task is registered: its early notifications stay kept
	var raw json.RawMessage
	var probed *mcp.CreateTaskProbe // the answer as the reading goroutine decoded it
	if s.modern != nil {
		err = s.exchangeModern(ctx, mcp.MethodToolsCall, cp, &raw, true)
	} else if s.localWrites {
		raw, probed, err = s.callTask(ctx, t, cp)
	} else {
		err = s.send(ctx, mcp.MethodToolsCall, cp, &raw)
	}
	if err != nil {
		return nil, nil, t.callFailed(sub, err)
	}
	if err := s.taskAnswer(ctx, t, p, raw, probed); err != nil {
		t.undoCall(sub, err)
		return nil, nil, err
	}
	return t, sub, nil
}

// prepareToolTask checks that p's tool may be called as a task and makes the task, the
// request and the subscription (when subscribe is set) of the call.
func (s *Session) prepareToolTask(ctx context.Context, p *mcp.CallToolParams, opts *CallOptions, subscribe bool) (*Task, *mcp.CallToolParams, *Subscription, error) {
	if opts == nil {
		opts = &CallOptions{}
	}
	if !opts.SendAnyway {
		if err := s.checkTaskSupport(ctx, p.Name, true); err != nil {
			return nil, nil, nil, err
		}
	}
	cp := *p
	cp.Meta = p.Meta.Clone()
	cp.Task = &mcp.TaskMetadata{}
	if s.modern != nil {
		cp.Task = nil // the server decides; the request declares the extension instead
	} else if opts.TTL > 0 {
		ms := opts.TTL.Milliseconds()
		cp.Task.TTL = &ms
	}
	t := newTask(s, p.Name, s.now())
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
	return t, &cp, sub, nil
}

// callFailed undoes what the task call set up, for a call that got no answer.
func (t *Task) callFailed(sub *Subscription, err error) error {
	err = fmt.Errorf("%s: %w", mcp.MethodToolsCall, err)
	t.undoCall(sub, err)
	return err
}

// undoCall undoes what the task call set up (its progress token, its subscription), for
// a call that made no task, and ends the task with err: the session's subscribers may
// hold it already (progress that overtook the answer), and wait on it; if they do not,
// they are told nothing of it, and its caller alone learns the error.
func (t *Task) undoCall(sub *Subscription, err error) {
	t.s.tasks.forgetToken(t.progress)
	sub.closeIfAny()
	if !t.toSession.Load() {
		t.unseen.Store(true)
	}
	t.finish(nil, err)
}

// taskAnswer takes the answer raw to t's call (probed: as the reading goroutine decoded
// it, if it did): a task created is registered and followed; a plain result is t's
// outcome.
func (s *Session) taskAnswer(ctx context.Context, t *Task, p *mcp.CallToolParams, raw json.RawMessage, probed *mcp.CreateTaskProbe) error {
	// One decode tells a CreateTaskResult (an object at result.task) from a plain result;
	// a result the probe cannot read is left to the plain decode to judge. The connection
	// has checked the bytes, so the decoders are called directly.
	var answer mcp.CreateTaskProbe
	if s.modern != nil {
		if mcp.ResultTypeOf(raw) == mcp.ResultTypeTask {
			var c mcp.ExtCreateTaskResult
			if err := c.UnmarshalJSON(raw); err != nil {
				return unreadableTask(raw, false, err)
			}
			st := c.ExtTask.ToTask()
			answer.Task = &st
			t.ext = true
		}
	} else if probed != nil {
		answer = *probed
	} else if err := answer.UnmarshalJSON(raw); err != nil {
		// A task the server created is never taken for a plain result (which a result
		// with no content also is): the call fails, naming the task.
		if task, _ := jsonwire.Member(raw, `"task"`); len(task) > 0 && task[0] == '{' {
			return unreadableTask(raw, true, err)
		}
		answer.Task = nil
	}
	if answer.Task == nil {
		// The server ran the call plainly (it may ignore params.task): that is the outcome.
		var res mcp.CallToolResult
		if err := res.UnmarshalJSON(raw); err != nil {
			return fmt.Errorf("%s: decoding the result: %w", mcp.MethodToolsCall, err)
		}
		s.log.Info("the server answered a task call with a plain result", "tool", p.Name)
		t.release() // the progress it sent comes before the result
		// No task: the session's subscribers hear of the call only if they heard of it
		// before (progress), as for a refused call; else every plain call of a 2026-07-28
		// session, which declares the extension on each, would be a task to them.
		if !t.toSession.Load() {
			t.unseen.Store(true)
		}
		t.finish(&res, nil)
		return nil
	}
	if answer.Task.TaskID == "" {
		return fmt.Errorf("%s: the server's CreateTaskResult has no task id", mcp.MethodToolsCall)
	}
	t.mu.Lock()
	t.state = *answer.Task
	t.known = true
	cancelNow := t.cancelReq
	t.mu.Unlock()
	// Created goes out before the task is registered, so no status event can precede
	// it; notifications that arrive meanwhile are kept and replayed below, and progress
	// that overtook the answer is held by the task until now.
	t.emit(TaskEvent{Kind: TaskCreated})
	t.release()
	early := s.tasks.add(t)
	if s.log.Enabled(ctx, slog.LevelInfo) { // its arguments would cost allocations
		s.log.Info("task created", "task", answer.Task.TaskID, "tool", p.Name, "status", answer.Task.Status)
	}
	s.track(t, early, cancelNow)
	return nil
}

// unreadableTask is the error of raw, the answer to a task call that creates a task
// (wrapped under "task" when wrapped) which could not be decoded, for err.
func unreadableTask(raw json.RawMessage, wrapped bool, err error) error {
	task := []byte(raw)
	if wrapped {
		task, _ = jsonwire.Member(raw, `"task"`)
	}
	var id string
	if v, merr := jsonwire.Member(task, `"taskId"`); merr == nil && v != nil {
		id, _ = jsonwire.String(v)
	}
	return &jsonrpc.CallError{Method: mcp.MethodToolsCall, Op: jsonrpc.OpDecode, Err: &UnreadableTaskError{TaskID: id, Err: err}}
}

// FollowTask follows a task the session did not start: one found again with
// [Session.ServerTasks] after a reconnect, or named by id. Its events then flow like
// those of a task the session started, status notifications included; a task the
// session follows already is returned as it is. A task the server does not know gives a
// [*TaskEndError] matching [ErrTaskGone] (and the server's -32602).
func (s *Session) FollowTask(ctx context.Context, id string) (*Task, error) {
	if t := s.tasks.get(id); t != nil {
		return t, nil
	}
	var d *mcp.DetailedTask
	var st mcp.Task
	var err error
	if s.modern != nil {
		if d, err = s.getDetail(ctx, id); err == nil {
			st = d.ToTask()
		}
	} else {
		st, err = s.GetTask(ctx, id)
	}
	if err != nil {
		return nil, s.goneError(id, err)
	}
	started, perr := mcp.ParseTime(st.CreatedAt)
	if perr != nil {
		started = s.now()
	}
	t := newTask(s, "", started)
	t.state, t.known, t.announced = st, true, true
	t.ext, t.detail = d != nil, d
	t.polls = 1 // the tasks/get above
	prev, early := s.tasks.addOnce(t)
	if prev != nil {
		return prev, nil
	}
	s.track(t, early, false)
	return t, nil
}

// track starts following the registered task t: it takes the status notifications that
// overtook its registration, and sends the cancel asked before its id was known. A task
// that has ended is settled at once (its outcome fetched, the answer taken where it
// arrives); one that asks for input gets its follower; one that is working waits for news
// or for its first poll without a goroutine of its own.
func (s *Session) track(t *Task, early []mcp.Task, cancelNow bool) {
	// What came for the task before it was registered is replayed, and what comes
	// meanwhile joins it, so that a newer state read during the replay does not make an
	// older one stale and lost. A request the server sent for the task (to the early
	// tasks/result, say) is announced as it would have been on arrival: it may have
	// been answered meanwhile (from an answers file, a hook), as one announced on
	// arrival may be by the time it is read.
	id := t.ID()
	var inputs []*Request
	for {
		for _, st := range early {
			t.observe(st, fromEarly)
		}
		for _, r := range inputs {
			t.emit(TaskEvent{Kind: TaskInput, Request: r})
		}
		if early, inputs = s.tasks.catchUp(id, t); early == nil && inputs == nil {
			break
		}
	}
	t.mu.Lock()
	t.tracked = true
	kept := t.kept
	t.kept = nil
	t.mu.Unlock()
	if kept != nil {
		t.waited(kept.id, kept.raw, kept.err, false)
	}
	if cancelNow {
		go func() { _, _ = t.Cancel(context.Background()) }()
	}
	if err := s.conn.Err(); err != nil {
		t.connectionEnded(err) // the session's end may have missed it
		return
	}
	st := t.State()
	if st.Status == mcp.TaskStatusInputRequired || st.Status.IsTerminal() {
		t.act(false)
		return
	}
	t.waitEarly()
	t.park()
	if t.ext {
		s.listenTask(t)
	}
}

// GetTask asks the server for a task's state. A task the server does not know (-32602:
// it expired, was never made, or went with a restart) gives a [*TaskEndError] matching
// [ErrTaskGone], through which errors.As finds the server's *jsonrpc.Error.
func (s *Session) GetTask(ctx context.Context, id string) (mcp.Task, error) {
	if s.modern != nil {
		d, err := s.getDetail(ctx, id)
		if err != nil {
			return mcp.Task{}, s.goneError(id, err)
		}
		return d.ToTask(), nil
	}
	st, _, err := s.getCore(ctx, id, nil)
	return st, s.goneError(id, err)
}

// answeredFor checks that got, the task in an answer to method, is the task id asked
// about: a server that answers with another would have the client follow, or end, the
// wrong task.
func answeredFor(method, id string, got mcp.Task) error {
	if got.TaskID != id {
		return fmt.Errorf("%s: asked for task %s, the server answered with task %q", method, id, got.TaskID)
	}
	return nil
}

// TaskResult waits for a task's outcome, as [Task.Outcome] gives it: the exact result
// (a tool error with isError included), the exact JSON-RPC error the task ended with, or
// a [*TaskEndError] for a task that was cancelled or that the server does not know.
//
// In the 2026-07-28 era it follows the task (answering the input it asks for) until
// tasks/get gives the outcome.
func (s *Session) TaskResult(ctx context.Context, id string) (*mcp.CallToolResult, error) {
	if s.modern != nil {
		t, err := s.FollowTask(ctx, id)
		if err != nil {
			return nil, s.goneError(id, err)
		}
		return t.Wait(ctx)
	}
	var r mcp.CallToolResult
	err := s.send(ctx, mcp.MethodTasksResult, &mcp.TaskResultParams{TaskID: id}, &r)
	if err != nil {
		_, _, err = s.resultError(ctx, id, mcp.Task{}, err, func(ctx context.Context) (mcp.Task, error) { return s.GetTask(ctx, id) })
		return nil, err
	}
	if err := resultOfAnother(id, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// resultOfAnother returns the error of res, the answer of tasks/result for task id, when
// its related-task names another task: a [*RelatedTaskError] in a [*jsonrpc.CallError]
// of [jsonrpc.OpDecode], as the server answered with what is not this task's result.
func resultOfAnother(id string, res *mcp.CallToolResult) error {
	if named, ok := res.Meta.RelatedTask(); ok && named != id {
		return &jsonrpc.CallError{Method: mcp.MethodTasksResult, Op: jsonrpc.OpDecode, Err: &RelatedTaskError{TaskID: id, Named: named}}
	}
	return nil
}

// ErrNoTaskCancel is the error of cancelling a task of a server of 2025-11-25 that
// declared no tasks.cancel capability: the spec lets a requestor send tasks/cancel only
// to a receiver that declared it (a server that did not may fail on it), so the client
// sends nothing. [Session.CancelsTasks] tells beforehand.
var ErrNoTaskCancel = errors.New("the server does not cancel tasks (it declares no tasks.cancel capability)")

// CancelsTasks reports whether the server may be sent tasks/cancel: in the 2025-11-25
// era when it declared the tasks.cancel capability; in the 2026-07-28 era always, as the
// Tasks extension defines tasks/cancel for every server of it (one without the extension
// has no tasks to cancel, and answers -32021).
func (s *Session) CancelsTasks() bool {
	return s.modern != nil || s.ServerCapabilities().Tasks.SupportsCancel()
}

// CancelTask asks the server to cancel a task. In the 2026-07-28 era the server only
// acknowledges the request, and the state returned is what tasks/get says right after.
// A server of 2025-11-25 that declared no tasks.cancel capability is sent nothing: the
// error is [ErrNoTaskCancel].
// A task the server does not know gives a [*TaskEndError] matching [ErrTaskGone] (and
// the server's -32602), in either era. In 2025-11-25 the server refuses with -32602 the
// cancel of a task that has ended too: tasks/get tells the two apart, and a task that
// has ended gives its state with the server's error. When that tasks/get fails (with an
// error other than -32602, which says the task is unknown), which it is is not known:
// the error is a [*CancelRefusedError].
func (s *Session) CancelTask(ctx context.Context, id string) (mcp.Task, error) {
	if !s.CancelsTasks() {
		return mcp.Task{}, ErrNoTaskCancel
	}
	if s.modern != nil {
		if err := s.call(ctx, mcp.MethodTasksCancel, &mcp.CancelTaskParams{TaskID: id}, nil); err != nil {
			return mcp.Task{}, s.goneError(id, err)
		}
		return s.GetTask(ctx, id)
	}
	var r mcp.CancelTaskResult
	if err := s.call(ctx, mcp.MethodTasksCancel, &mcp.CancelTaskParams{TaskID: id}, &r); err != nil {
		if !errors.Is(err, jsonrpc.ErrInvalidParams) {
			return mcp.Task{}, err
		}
		st, gerr := s.GetTask(ctx, id)
		switch {
		case errors.Is(gerr, ErrTaskGone):
			return mcp.Task{}, s.goneError(id, err)
		case gerr == nil:
			return st, err
		}
		return mcp.Task{}, &CancelRefusedError{TaskID: id, Err: err, GetErr: gerr}
	}
	if err := answeredFor(mcp.MethodTasksCancel, id, r.Task); err != nil {
		return mcp.Task{}, err
	}
	return r.Task, nil
}

// ListTasks returns one page of the server's tasks for this client; nil p asks for the
// first. In the 2026-07-28 era, whose Tasks extension has no tasks/list, it sends nothing
// and fails with [ErrNoTaskList].
func (s *Session) ListTasks(ctx context.Context, p *mcp.ListTasksParams) (*mcp.ListTasksResult, error) {
	if s.modern != nil {
		return nil, ErrNoTaskList
	}
	return list[mcp.ListTasksResult](ctx, s, mcp.MethodTasksList, (*mcp.PaginatedParams)(p))
}

// ServerTasks ranges over every task the server lists for this client, from p's cursor
// on (nil p: from the first): after a reconnect, this is how the tasks it still has are
// found again. In the 2026-07-28 era it yields [ErrNoTaskList] alone: a task of the Tasks
// extension is found again by its id.
func (s *Session) ServerTasks(ctx context.Context, p *mcp.ListTasksParams) iter.Seq2[mcp.Task, error] {
	if s.modern != nil {
		return func(yield func(mcp.Task, error) bool) { yield(mcp.Task{}, ErrNoTaskList) }
	}
	return paginate(ctx, s, mcp.MethodTasksList, (*mcp.PaginatedParams)(p), func(r *mcp.ListTasksResult) ([]mcp.Task, string) {
		return r.Tasks, r.NextCursor
	})
}

// Tasks returns every task the session follows or has followed, oldest first.
func (s *Session) Tasks() []*Task { return s.tasks.all() }

// callTask is send for a task call over a transport whose writes are local (stdio, a
// pipe): the answer is looked at where it is read (Task.peekCreated), and a task created
// working is waited on from there, before the caller has woken up to take the answer.
// It returns the answer, and the answer decoded when the reading goroutine could. The
// call is bounded by [Options.RequestTimeout] as send bounds it.
func (s *Session) callTask(ctx context.Context, t *Task, params any) (json.RawMessage, *mcp.CreateTaskProbe, error) {
	bctx, cancel, explain := s.deadline(ctx, mcp.MethodToolsCall)
	defer cancel()
	type answer struct {
		raw    json.RawMessage
		probed *mcp.CreateTaskProbe
		err    error
	}
	ch := make(chan answer, 1)
	err := s.conn.Go(bctx, mcp.MethodToolsCall, params, func(r json.RawMessage, err error) {
		var probed *mcp.CreateTaskProbe
		if err == nil {
			probed = t.peekCreated(r)
		}
		ch <- answer{r, probed, err}
	})
	if err != nil {
		return nil, nil, err
	}
	a := <-ch
	return a.raw, a.probed, explain(a.err)
}

// RelatedTaskError is the answer of a tasks/result whose _meta names, under
// io.modelcontextprotocol/related-task, another task than the one asked for. The spec has
// the result carry its own task's id; a result that names another is not taken as this
// task's. (A result without the key is taken: servers omit it.)
type RelatedTaskError struct {
	// TaskID is the task asked for; Named is the task the result names.
	TaskID, Named string
}

func (e *RelatedTaskError) Error() string {
	return fmt.Sprintf("the result of tasks/result for task %s names task %q as its own", e.TaskID, e.Named)
}

// ResultTimeoutError is the outcome of a 2025-11-25 task the server reported ended
// (completed, failed) whose tasks/result did not answer within [Options.RequestTimeout]
// from then; the request was withdrawn. tasks/result is otherwise not bounded, as it
// waits for its task by design; once the task has ended there is nothing to wait for.
// The result may still be fetched later.
type ResultTimeoutError struct {
	TaskID  string
	Status  mcp.TaskStatus
	Timeout time.Duration
}

func (e *ResultTimeoutError) Error() string {
	return fmt.Sprintf("task %s is %s, but the server did not answer its tasks/result within %s", e.TaskID, e.Status, e.Timeout)
}

// CancelReason is what the server is told of the tasks/result withdrawn.
func (e *ResultTimeoutError) CancelReason() string {
	return fmt.Sprintf("the task has ended, and the client gave up on its result after its timeout of %s", shortDuration(e.Timeout))
}

// UnreadableTaskError is the answer to a task call that creates a task (a "task" object;
// in 2026-07-28 resultType "task") which cannot be decoded. TaskID is the task's id when
// it could be read: the task may run on the server. It comes inside a
// [*jsonrpc.CallError] of [jsonrpc.OpDecode], and errors.As finds the decoding error.
type UnreadableTaskError struct {
	TaskID string
	Err    error
}

func (e *UnreadableTaskError) Error() string {
	if e.TaskID == "" {
		return fmt.Sprintf("the server created a task, but its answer cannot be read: %v", e.Err)
	}
	return fmt.Sprintf("the server created task %s, but its answer cannot be read: %v", e.TaskID, e.Err)
}

func (e *UnreadableTaskError) Unwrap() error { return e.Err }
