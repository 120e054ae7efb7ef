package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// The follower: one goroutine per task in progress polls tasks/get at the server's
// pollInterval, takes status notifications as they come, calls tasks/result when the task
// ends or needs input, and settles the outcome. It is the only code in mcpi that follows
// a requestor task; the front ends render its events.

// maxHeld bounds the events a task holds until its created event is out: progress a
// server sends before its CreateTaskResult arrives.
const maxHeld = 256

// emit publishes e, unless nobody watches the task or the session.
func (t *Task) emit(e TaskEvent) {
	if t.sub.active() || t.s.events.active() {
		t.publish(e)
	}
}

// publish is emit's second half: e escapes here, so a task nobody watches costs no
// allocation.
func (t *Task) publish(e TaskEvent) {
	e.At, e.Task, e.State = At{t.s.now()}, t, t.State()
	t.sub.publish(&e)
	t.s.events.publish(&e)
}

// emitInOrder is emit for what can overtake the CreateTaskResult that gives the task its
// id (a progress notification): the session's subscribers get it at once, as it
// happened; the task's own are given it once its created event is out.
func (t *Task) emitInOrder(e TaskEvent) {
	toSession, toTask := t.s.events.active(), t.sub.active()
	if !toSession && !toTask {
		return
	}
	e.At, e.Task, e.State = At{t.s.now()}, t, t.State()
	ev := &e
	if toSession {
		t.s.events.publish(ev)
	}
	if !toTask {
		return
	}
	t.mu.Lock()
	if !t.announced {
		if len(t.held) < maxHeld {
			t.held = append(t.held, ev)
		}
		t.mu.Unlock()
		return
	}
	st := t.state
	t.mu.Unlock()
	if ev.State.TaskID != st.TaskID {
		// The CreateTaskResult was taken, and the created event given, between the read
		// of the state above and now: the task's subscribers have seen its id, so the
		// event carries it too.
		c := *ev
		c.State = st
		ev = &c
	}
	t.sub.publish(ev)
}

// release gives the task's subscribers the events held for them, in order, with the
// task's state as it is now, and lets later ones go out as they come. Events held while
// it gives them come after those before them.
func (t *Task) release() {
	for {
		t.mu.Lock()
		held := t.held
		t.held = nil
		if len(held) == 0 {
			t.announced = true
			t.mu.Unlock()
			return
		}
		t.mu.Unlock()
		for _, e := range held {
			c := *e
			c.State = t.State()
			t.sub.publish(&c)
		}
	}
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
			t.finish(nil, &TaskEndError{TaskID: st.TaskID, Reason: ErrTaskCancelled, StatusMessage: st.StatusMessage})
			return
		case st.Status.IsTerminal() && t.ext:
			if t.settleExt(context.Background()) {
				return
			}
		case st.Status == mcp.TaskStatusInputRequired && t.ext:
			t.answerExt()
		case st.Status.IsTerminal():
			// Nothing is left to watch: fetch the outcome on this goroutine.
			if t.claimResult() {
				t.fetchResult(context.Background(), st.TaskID)
			}
		case st.Status == mcp.TaskStatusInputRequired:
			// tasks/result blocks until the task ends; polls go on meanwhile, so that the
			// state stays current for those who watch it.
			if t.claimResult() {
				go t.fetchResultUntilDone(st.TaskID)
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
				t.finish(nil, fmt.Errorf("following task %s: %w", st.TaskID, s.conn.Err()))
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
		if woken && !t.takePollNow() {
			continue
		}
		got, err := t.get(context.Background())
		switch {
		case errors.Is(err, jsonrpc.ErrInvalidParams):
			t.gone(&TaskEndError{TaskID: st.TaskID, Reason: ErrTaskGone, Err: err})
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

// fetchResultUntilDone is fetchResult for a task that has not ended: the call is
// abandoned if the task ends otherwise (gone, cancelled, the connection lost).
func (t *Task) fetchResultUntilDone(id string) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-t.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	t.fetchResult(ctx, id)
}

// nextPoll is max(the server's pollInterval, the local floor) plus 5 to 15% of it, or a
// growing backoff plus as much when the server suggests none. The spread keeps the polls
// of a burst of tasks from reaching the server together, and the 5% floor keeps a first
// poll from racing the end of a task that lasts exactly one interval (the server may
// start the work a little after it answered; docs/PERFORMANCE.md has the figures). Once
// the server has shown it sends status notifications (for any task of the session),
// polls thin out to NotifiedPollInterval, but never stop, unless the task's ttl is
// shorter than that. The server's interval is bounded by MaxPollInterval and by the
// task's ttl before anything is added to it, since it may be any int64.
func (t *Task) nextPoll(backoff *time.Duration) time.Duration {
	o := t.s.client.opts
	t.mu.Lock()
	st, notified := t.state, t.notified
	t.mu.Unlock()
	notified = (notified || t.s.tasks.notified.Load()) && !shortLived(st, o)
	var d time.Duration
	if st.PollInterval != nil && *st.PollInterval > 0 {
		ceiling := o.MaxPollInterval
		if st.TTL != nil {
			ceiling = min(ceiling, mcp.Milliseconds(*st.TTL))
		}
		d = max(min(mcp.Milliseconds(*st.PollInterval), ceiling), o.PollFloor)
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
	return st.TTL != nil && mcp.Milliseconds(*st.TTL) < o.NotifiedPollInterval
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
		// The connection has checked the bytes: the decoder is called directly.
		var res mcp.CallToolResult
		if err := res.UnmarshalJSON(raw); err != nil {
			t.finish(nil, &jsonrpc.CallError{Method: mcp.MethodTasksResult, Op: jsonrpc.OpDecode, Err: err})
			return
		}
		t.settleStatus(ctx)
		t.finish(&res, nil)
	case ctx.Err() != nil:
	case !errors.As(err, &rpcErr) && t.s.conn.Err() != nil:
		// The connection ended: the follower reports it.
	case rpcErr == nil:
		t.finish(nil, fmt.Errorf("%s: %w", mcp.MethodTasksResult, err))
	default:
		st, learned, err := t.s.resultError(ctx, id, t.State(), err, t.get)
		if learned {
			t.observe(st, false)
		}
		if errors.Is(err, ErrTaskGone) {
			t.gone(err)
			return
		}
		t.finish(nil, err)
	}
}

// resultError explains the JSON-RPC error err that tasks/result of task id gave, with
// the task as last known (zero when it is not): an error may be the task's own outcome
// or the server's word on the request (-32602: no such task), which the task's state
// tells apart, and a cancelled task is cancelled whatever error its tasks/result gave.
// It returns the state it learned, if it asked for it.
func (s *Session) resultError(ctx context.Context, id string, known mcp.Task, err error, get func(context.Context) (mcp.Task, error)) (mcp.Task, bool, error) {
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) || rpc.Code == jsonrpc.CodeConnectionClosed || ctx.Err() != nil {
		return known, false, err
	}
	learned := false
	if !known.Status.IsTerminal() {
		st, gerr := get(ctx)
		switch {
		case gerr == nil:
			known, learned = st, true
		case errors.Is(gerr, jsonrpc.ErrInvalidParams):
			return known, false, &TaskEndError{TaskID: id, Reason: ErrTaskGone, Err: err}
		}
	}
	switch {
	case known.Status == mcp.TaskStatusCancelled:
		return known, learned, &TaskEndError{TaskID: id, Reason: ErrTaskCancelled, StatusMessage: known.StatusMessage, Err: err}
	case known.Status != "" && !known.Status.IsTerminal() && rpc.Code == jsonrpc.CodeInvalidParams:
		// -32602 for a task that has not ended is the server forgetting it.
		return known, learned, &TaskEndError{TaskID: id, Reason: ErrTaskGone, Err: err}
	}
	return known, learned, err
}

// settleStatus makes sure the final status is known before the outcome is announced:
// tasks/result can return before the status notification or poll that says so, which
// over HTTP travel on another stream.
func (t *Task) settleStatus(ctx context.Context) {
	if t.State().Status.IsTerminal() {
		return
	}
	if st, err := t.get(ctx); err == nil {
		t.observe(st, false)
	}
}

// get asks the server for the task's state, and counts the poll. An extension task's
// detailed state is kept for what it inlines.
func (t *Task) get(ctx context.Context) (mcp.Task, error) {
	t.mu.Lock()
	t.polls++
	id, ext := t.state.TaskID, t.ext
	t.mu.Unlock()
	if !ext {
		return t.s.GetTask(ctx, id)
	}
	d, err := t.s.getDetail(ctx, id)
	if err != nil {
		return mcp.Task{}, err
	}
	t.setDetail(d)
	return d.ToTask(), nil
}

// gone ends the task as one the server no longer knows, with err, a [*TaskEndError].
func (t *Task) gone(err error) {
	t.mu.Lock()
	if t.ended {
		t.mu.Unlock()
		return
	}
	t.ended = true
	t.err = err
	t.mu.Unlock()
	t.s.log.Info("task gone", "task", t.ID())
	t.emit(TaskEvent{Kind: TaskGone, Err: t.err})
	t.close()
}

// finish settles the task's outcome, once.
func (t *Task) finish(res *mcp.CallToolResult, err error) {
	t.mu.Lock()
	if t.ended {
		t.mu.Unlock()
		return
	}
	t.ended = true
	if t.abandoned != nil {
		res, err = nil, t.abandoned
	}
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

// close ends the task's events. The session's registry learns first, so that whoever
// waits on Done finds the registry as the end left it.
func (t *Task) close() {
	t.s.tasks.forgetToken(t.progress)
	t.s.tasks.ended(t, t.s.client.opts.KeptTasks)
	close(t.done)
	t.sub.close(nil)
}

// progressed routes a progress notification to the task whose call carried its token.
func (s *Session) progressed(p *mcp.ProgressNotificationParams) {
	if t := s.tasks.forToken(p.ProgressToken); t != nil {
		t.emitInOrder(TaskEvent{Kind: TaskProgress, Progress: p})
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
