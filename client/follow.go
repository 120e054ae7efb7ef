package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/mcpi-dev/mcpi/internal/jsonwire"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// The follower: it polls tasks/get at the server's pollInterval, takes status
// notifications as they come, calls tasks/result when the task ends or needs input, and
// settles the outcome. It is the only code in mcpi that follows a requestor task; the
// front ends render its events.
//
// A task that only waits has no goroutine: an entry in the session's poll queue stands
// for its next poll, and the news that ends it (a status notification, a notification of
// a listen stream) is acted on where it arrives. A task that ends is settled there too:
// tasks/result (2025-11-25), or tasks/get when the outcome came without its result
// (2026-07-28), is sent at once, and its answer settled on the goroutine that reads it
// (jsonrpc.Conn.Go), so that the outcome reaches whoever waits for it in as few
// hand-offs between goroutines as a ping's answer takes. A follower goroutine starts
// when the task has to be waited on actively: the poll is due, the task asks for input,
// or what ended it needs another exchange that the reading goroutine may not send
// itself (over Streamable HTTP, where a request is a round trip).

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
	if !t.unseen.Load() {
		t.toSession.Store(true)
		t.s.events.publish(&e)
	}
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
		t.toSession.Store(true)
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

// wakeFollower has the task's follower look at the task again.
func (t *Task) wakeFollower() {
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

// source says where news of a task comes from, and so on which goroutine it is taken:
// acting on it may mean sending a request, which the goroutine that reads the connection
// does only over a transport whose writes are local.
type source int

const (
	// fromAnswer is an answer to a request of the client's (tasks/get, tasks/cancel),
	// taken by the goroutine that sent it.
	fromAnswer source = iota
	// fromEarly is a status notification that overtook the task's CreateTaskResult, kept
	// until the caller registered the task, taken on the caller's goroutine.
	fromEarly
	// fromNotification is a status notification, taken on the reading goroutine.
	fromNotification
	// fromContinuation is an answer taken where it was read (jsonrpc.Conn.Go).
	fromContinuation
)

func (src source) notification() bool { return src == fromEarly || src == fromNotification }

func (src source) onReader() bool { return src == fromNotification || src == fromContinuation }

// observe takes a new state from tasks/get, tasks/cancel or a notification, and acts on
// it when it asks for action (an end, a request for input).
func (t *Task) observe(st mcp.Task, src source) { t.observeSince(st, src, noNotes) }

// noNotes is observeSince's notes for a state whose arrival was not noted.
const noNotes = ^uint64(0)

// observeSince is observe for the answer to a poll that arrived after notes status
// notifications of the task: one taken after it, with a time no older than the
// answer's (a server's clock in whole seconds), told a newer state, which stands.
func (t *Task) observeSince(st mcp.Task, src source, notes uint64) {
	t.mu.Lock()
	if src.notification() {
		t.notified = true
		t.notes++
	}
	old := t.state
	// A final status told by tasks/result's answer (waited) gives way to the server's.
	inferred := t.inferred && st.Status.IsTerminal()
	if inferred {
		t.inferred = false
	}
	switch {
	case t.ended:
		// The outcome is out; later news changes nothing a follower acts on.
		if inferred || (!older(st.LastUpdatedAt, old.LastUpdatedAt) && !old.Status.IsTerminal()) {
			t.state = st
		}
		t.mu.Unlock()
		return
	case t.staleLocked(st, notes):
		t.mu.Unlock()
		return
	case inferred:
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
	if st.Status.IsTerminal() && t.resulting {
		t.boundResultLocked()
	}
	t.mu.Unlock()
	t.emit(TaskEvent{Kind: TaskStatus})
	if st.Status == mcp.TaskStatusInputRequired || st.Status.IsTerminal() {
		t.act(src.onReader())
	}
}

// staleLocked reports whether st, a poll's answer read after notes status notifications
// of the task, was overtaken by one taken since: a notification read after the answer,
// with a time no older than the answer's (a server's clock in whole seconds), told a
// newer state. t.mu is held.
func (t *Task) staleLocked(st mcp.Task, notes uint64) bool {
	return notes != noNotes && notes != t.notes && !st.Status.IsTerminal() && !older(t.state.LastUpdatedAt, st.LastUpdatedAt)
}

// act has the task's state acted on: by its follower, if it has one; at once, when that
// takes no waiting (a cancelled task ends; an ended one has its outcome fetched, the
// answer settled where it arrives); or by a follower started now (input to answer, a poll
// asked for, a fetch that this goroutine may not send). A task that is only working is
// left to its scheduled poll. onReader says the caller is the goroutine that reads the
// connection.
func (t *Task) act(onReader bool) {
	send := !onReader || t.s.localWrites
	t.mu.Lock()
	if t.ended {
		t.mu.Unlock()
		return
	}
	if t.following {
		t.mu.Unlock()
		t.wakeFollower()
		return
	}
	st := t.state
	switch {
	case st.Status == mcp.TaskStatusCancelled:
		t.mu.Unlock()
		t.finish(nil, &TaskEndError{TaskID: st.TaskID, Reason: ErrTaskCancelled, StatusMessage: st.StatusMessage})
		return
	case st.Status.IsTerminal():
		if t.ext {
			if d := t.terminalDetailLocked(); d != nil && inlined(d) {
				t.mu.Unlock()
				t.finishExt(d)
				return
			}
		}
		if t.resulting {
			t.mu.Unlock()
			return // a tasks/result (2026-07-28: tasks/get) that settles it is in flight
		}
		if send {
			t.resulting = true
			t.stopTimerLocked()
			t.mu.Unlock()
			if t.ext {
				t.fetchDetailAsync(st.TaskID)
			} else {
				t.fetchResultAsync(st.TaskID)
			}
			return
		}
	case st.Status != mcp.TaskStatusInputRequired && !t.pollNow:
		t.mu.Unlock()
		return // working: its poll is scheduled
	}
	t.startFollowerLocked(t.pollNow)
	t.mu.Unlock()
}

// startFollowerLocked starts the task's follower, polling at once if poll is set; t.mu
// is held.
func (t *Task) startFollowerLocked(poll bool) {
	if t.following || t.ended {
		return
	}
	t.following = true
	t.pollNow = false
	t.stopTimerLocked()
	t.s.tasks.followers.Go(func() { t.follow(poll) })
}

// stopTimerLocked withdraws the task's next poll; t.mu is held.
func (t *Task) stopTimerLocked() {
	if t.poll != nil {
		t.s.tasks.polls.withdraw(t.poll)
		t.poll = nil
	}
}

// park schedules the next poll of a task that has no follower: when it is due, a
// follower starts and polls.
func (t *Task) park() {
	t.mu.Lock()
	if t.backoff == 0 {
		t.backoff = t.s.client.opts.PollFloor
	}
	backoff := t.backoff
	t.mu.Unlock()
	wait, notified := t.nextPoll(&backoff), t.serverNotifies()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.backoff = backoff
	if t.ended || t.following || (t.resulting && !t.waiting) || t.poll != nil {
		return // acted on meanwhile
	}
	t.schedulePollLocked(time.Now(), wait, notified)
}

// schedulePollLocked has the task polled wait from now unless acted on first (armed is
// when it parked); t.mu is held.
func (t *Task) schedulePollLocked(armed time.Time, wait time.Duration, notified bool) {
	t.poll = &pollEntry{due: time.Now().Add(wait), t: t, armed: armed, notified: notified}
	t.s.tasks.polls.add(t.poll)
}

// pollDue is the due poll e of a parked task: it starts the follower, which polls. When
// the session has learned meanwhile that the server sends status notifications (for
// another task: the tasks of a burst end together), it waits as long as that allows
// first.
func (t *Task) pollDue(e *pollEntry) {
	if !e.notified && t.serverNotifies() && !t.shortLived() {
		if rest := t.s.client.opts.NotifiedPollInterval - time.Since(e.armed); rest > 0 {
			t.mu.Lock()
			if t.poll == e && !t.ended && !t.following {
				t.schedulePollLocked(e.armed, rest, true)
			}
			t.mu.Unlock()
			return
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.poll != e {
		return // withdrawn after it fell due
	}
	t.poll = nil
	t.startFollowerLocked(true)
}

// streamLost is a task left with no stream to hear of it on (an extension task's listen
// ended, or the server stopped answering): its next poll is at its own interval, no
// longer thinned out for notifications that cannot come.
func (t *Task) streamLost() {
	t.mu.Lock()
	if t.ended || t.unheard {
		t.mu.Unlock()
		return
	}
	t.unheard = true
	// Only a wait thinned out for notifications changes.
	thinned := t.notified || t.s.tasks.notified.Load()
	following, parked := thinned && t.following, thinned && t.poll != nil
	if parked {
		t.stopTimerLocked()
	}
	t.mu.Unlock()
	switch {
	case following:
		t.wakeFollower() // it waits again, for the poll nextPoll gives now
	case parked:
		t.park()
	}
}

// connectionEnded ends the task, unless it has ended, with the connection's end err.
func (t *Task) connectionEnded(err error) {
	t.finish(nil, fmt.Errorf("following task %s: %w", t.ID(), err))
}

// older reports whether timestamp a is strictly before b; unparsable times are never
// older, so a server with odd timestamps is still followed.
func older(a, b string) bool {
	ta, err1 := mcp.ParseTime(a)
	tb, err2 := mcp.ParseTime(b)
	return err1 == nil && err2 == nil && ta.Before(tb)
}

// follow polls the task until its outcome is known, starting with a poll if poll is set.
// It runs on the session's context.
func (t *Task) follow(poll bool) {
	s := t.s
	t.mu.Lock()
	backoff := t.backoff
	t.mu.Unlock()
	if backoff == 0 {
		backoff = s.client.opts.PollFloor
	}
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
		if poll {
			poll = false
			if s.conn.Err() != nil {
				t.connectionEnded(s.conn.Err())
				return
			}
		} else if !t.wait(&backoff, timer) {
			continue
		}
		got, notes, err := t.getSince(context.Background())
		switch {
		case errors.Is(err, jsonrpc.ErrInvalidParams):
			t.gone(&TaskEndError{TaskID: st.TaskID, Reason: ErrTaskGone, Err: err})
			return
		case err != nil:
			if s.conn.Err() != nil {
				continue // the wait ends the task
			}
			if lost := t.pollFailed(err); lost != nil {
				s.log.Warn("tasks/get failed; giving up on the task", "task", st.TaskID, "polls", lost.Polls, "error", err)
				t.finish(nil, lost)
				return
			}
			s.log.Warn("tasks/get failed; retrying", "task", st.TaskID, "error", err)
			continue
		}
		t.pollFailed(nil)
		t.observeSince(got, fromAnswer, notes)
	}
}

// Polls that get no answer. A poll that cannot reach the server (nothing listens at its
// address: it exited, or was killed), whose connection breaks, that gets an HTTP error
// with no JSON-RPC answer in it (a proxy's 502 for a server behind it that is gone), or
// that is not answered within the request timeout, tells nothing of the task. One such
// failure may be a blip (a server restarting, a proxy reloading, a dropped connection),
// so the poll is tried again, after 1s, 2s and 4s (or the task's own interval, when that
// is longer), but not for ever: a user who follows a task wants to hear within seconds
// that the server is gone, not watch a task stay "working" while polls go unanswered. A
// server back within those seconds loses the follower nothing; after MaxFailedPolls
// failures in a row (7s or so after the first) the task ends with a [*TaskLostError],
// which says that its fate is unknown. A poll answered with a JSON-RPC error (other than
// -32602, the server's word that it does not know the task) counts the same: the server
// is there, but says nothing of the task, and one that answers every poll so (a store it
// cannot reach, a method it does not serve) would otherwise be polled for as long as it
// runs, the task "working" all the while.
const (
	// MaxFailedPolls is how many polls of a task in a row may fail (no answer, or a
	// JSON-RPC error) before its follower gives up with a [*TaskLostError].
	MaxFailedPolls = 4
	// pollRetryDelay is the wait after the first failed poll, doubled after each other.
	pollRetryDelay = time.Second
)

// pollFailed records the outcome of a poll: err is its error, nil for one that was
// answered. It returns the task's end when err is the last failure allowed.
func (t *Task) pollFailed(err error) *TaskLostError {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err == nil {
		t.failed, t.pollErr = 0, nil
		return nil
	}
	t.failed++
	t.pollErr = err
	if t.failed < MaxFailedPolls {
		return nil
	}
	return &TaskLostError{TaskID: t.state.TaskID, Polls: t.failed, Err: err}
}

// retryDelay is the least wait before the next poll of a task whose latest polls got no
// answer (see MaxFailedPolls), 0 when the latest was answered.
func (t *Task) retryDelay() time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.failed == 0 {
		return 0
	}
	return pollRetryDelay << min(t.failed-1, 8)
}

// wait waits for the follower's next poll, or for news of the task: it reports whether
// to poll now. It reports false when the task or the connection has ended (the follower
// then returns), and when news came that asks for no poll.
func (t *Task) wait(backoff *time.Duration, timer *time.Timer) bool {
	s := t.s
	wait, notified := t.nextPoll(backoff), t.serverNotifies()
	if retry := t.retryDelay(); retry > 0 {
		// A poll just failed: the next one comes after the retry's wait (or the task's
		// interval, if longer), not thinned out for notifications, which may not come
		// from a server that cannot be reached.
		wait, notified = max(t.pollInterval(), retry), true
	}
	armed := time.Now()
	timer.Reset(wait)
	defer timer.Stop()
	for {
		select {
		case <-t.done:
			return false
		case <-s.conn.Done():
			t.connectionEnded(s.conn.Err())
			return false
		case <-t.wake:
			return t.takePollNow()
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
			return true
		}
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
	st, notified, unheard := t.state, t.notified, t.unheard
	t.mu.Unlock()
	notified = (notified || t.s.tasks.notified.Load()) && !shortLived(st, o) && !unheard
	var d time.Duration
	if st.PollInterval != nil && *st.PollInterval > 0 {
		d = serverInterval(st, o)
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

// serverInterval is the server's pollInterval of st (set and positive), bounded by
// MaxPollInterval and the task's ttl, and no shorter than the floor.
func serverInterval(st mcp.Task, o Options) time.Duration {
	ceiling := o.MaxPollInterval
	if st.TTL != nil {
		ceiling = min(ceiling, mcp.Milliseconds(*st.TTL))
	}
	return max(min(mcp.Milliseconds(*st.PollInterval), ceiling), o.PollFloor)
}

// pollInterval is the task's own interval between polls: the server's, or the floor when
// it suggests none.
func (t *Task) pollInterval() time.Duration {
	st := t.State()
	if st.PollInterval == nil || *st.PollInterval <= 0 {
		return t.s.client.opts.PollFloor
	}
	return serverInterval(st, t.s.client.opts)
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
	return !t.unheard && (t.notified || t.s.tasks.notified.Load())
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
	ctx, done := t.resultContext(ctx)
	defer done()
	var raw json.RawMessage
	err := t.s.send(ctx, mcp.MethodTasksResult, &mcp.TaskResultParams{TaskID: id}, &raw)
	t.settleResult(ctx, id, raw, err, fromAnswer, false)
}

// resultContext returns ctx, also ended when the task gives up on its tasks/result (see
// boundResultLocked), for a tasks/result to be made on; done releases it. A task known
// to have ended has its bound armed now.
func (t *Task) resultContext(ctx context.Context) (context.Context, func()) {
	t.mu.Lock()
	if t.resultCtx == nil {
		t.resultCtx, t.resultStop = context.WithCancelCause(context.Background())
	}
	r := t.resultCtx
	if t.state.Status.IsTerminal() {
		t.boundResultLocked()
	}
	t.mu.Unlock()
	ctx, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(r, func() { cancel(context.Cause(r)) })
	return ctx, func() {
		stop()
		cancel(nil)
	}
}

// boundResultLocked arms the bound of a task known to have ended (2025-11-25): a
// tasks/result waits for its task by design, and is exempt from RequestTimeout for
// that; once the task has ended there is nothing to wait for, and one that the server
// does not answer within RequestTimeout (none: no bound) is given up, the task ending
// with a [*ResultTimeoutError]. t.mu is held.
func (t *Task) boundResultLocked() {
	d := t.s.client.opts.RequestTimeout
	if d <= 0 || t.ext || t.ended || t.resultBound != nil {
		return
	}
	t.resultBound = time.AfterFunc(d, func() {
		t.mu.Lock()
		st, stop, inFlight := t.state, t.resultStop, t.resulting
		t.mu.Unlock()
		if !inFlight {
			return
		}
		err := &ResultTimeoutError{TaskID: st.TaskID, Status: st.Status, Timeout: d}
		t.finish(nil, err)
		if stop != nil {
			stop(err) // withdraws the request, telling the server why
		}
	})
}

// Early waits. A task found working when it is created is waited on at once with
// tasks/result, which the server must hold until the task ends: its outcome arrives the
// moment it exists, without a poll, and without waiting for a status notification that
// a server need not send (an instant task then costs two exchanges, as two pings do).
// A request held open holds a little of the server, so only a few tasks of a session
// wait so at once; the others, and a task whose early tasks/result ends with no answer,
// are followed as before. Polls go on meanwhile at the server's interval, so that the
// task's state stays current for those who watch.
//
// Only where the server's notifications and answers share one ordered stream (stdio, a
// pipe). Over Streamable HTTP the answer comes on its own response stream while the
// task's progress and status travel on the GET stream: an answer that overtook them
// ended the task before its last progress was read, and that progress was lost. There
// the task's end is learnt from its notifications or polls, which come in order with
// its progress, and its result fetched then.
const maxWaitsLocal = 8

// waitEarly sends tasks/result for a task that has just been created working, once in
// the task's life, if fewer than the limit wait so, the transport's writes are local and
// the server has not refused such a request; its answer settles the outcome where it
// arrives.
func (t *Task) waitEarly() {
	s := t.s
	t.mu.Lock()
	id, busy := t.state.TaskID, t.resulting || t.ended || t.following || t.askedEarly
	t.mu.Unlock()
	if busy || t.ext || !s.localWrites || s.tasks.noWaits.Load() {
		return
	}
	if !s.tasks.claimWait(maxWaitsLocal) {
		return
	}
	t.mu.Lock()
	if t.resulting || t.ended || t.following || t.askedEarly {
		t.mu.Unlock()
		s.tasks.waits.Add(-1)
		return
	}
	t.resulting, t.waiting, t.askedEarly = true, true, true
	t.mu.Unlock()
	ctx, done := t.resultContext(context.Background())
	err := s.conn.GoNow(ctx, mcp.MethodTasksResult, &mcp.TaskResultParams{TaskID: id}, func(raw json.RawMessage, err error) {
		done()
		s.tasks.waits.Add(-1)
		t.waited(id, raw, err, true)
	})
	if err != nil {
		done()
		s.tasks.waits.Add(-1)
		t.waited(id, nil, err, false)
	}
}

// earlyAnswer is the answer of an early tasks/result.
type earlyAnswer struct {
	id  string
	raw json.RawMessage
	err error
}

// peekCreated looks at the answer of a task call where it is read (over a transport whose
// writes are local): a task created working is waited on from there at once, so that
// its tasks/result does not wait for the caller to wake up and read the answer. It
// returns the answer decoded, for the caller, or nil when the probe cannot read it.
func (t *Task) peekCreated(raw json.RawMessage) *mcp.CreateTaskProbe {
	answer := &mcp.CreateTaskProbe{}
	if answer.UnmarshalJSON(raw) != nil {
		return nil
	}
	if answer.Task == nil || answer.Task.TaskID == "" || answer.Task.Status != mcp.TaskStatusWorking {
		return answer
	}
	t.mu.Lock()
	t.state = *answer.Task // as the caller will set it
	t.mu.Unlock()
	t.waitEarly()
	return answer
}

// waited takes the answer of an early tasks/result; onReader says it is on the goroutine
// that reads the connection, which must not wait for another exchange. An answer that
// came before the task was tracked is kept for track, so that no outcome precedes the
// task's created event and registration. A result settles the task at once, the final
// status known or told by the result itself (a server may send no status notification);
// an error is looked into by waitFailed, on another goroutine when this one reads.
func (t *Task) waited(id string, raw json.RawMessage, err error, onReader bool) {
	t.mu.Lock()
	if !t.tracked {
		t.kept = &earlyAnswer{id, raw, err}
		t.mu.Unlock()
		return
	}
	t.mu.Unlock()
	ctx := context.Background()
	src := fromAnswer
	if onReader {
		src = fromContinuation
	}
	var later func()
	switch {
	case t.State().Status.IsTerminal():
		t.clearWaiting(false)
		t.settleResult(ctx, id, raw, err, src, false)
	case err == nil:
		// The answer tells the final status (spec §6: tasks/result answers once the task
		// has ended), with no tasks/get; the server's own word, when it comes, adds its
		// message and time.
		t.clearWaiting(false)
		t.settleResult(ctx, id, raw, nil, src, true)
	case t.s.conn.Err() != nil:
		t.clearWaiting(true) // the session's end ends the task
	default:
		later = func() { t.waitFailed(ctx, id, err) }
	}
	if later == nil {
		return
	}
	if onReader {
		t.s.tasks.followers.Go(later)
	} else {
		later()
	}
}

// waitFailed takes an error that an early tasks/result got while the task was not known
// to have ended. It may be the task's own outcome (a JSON-RPC error), the task gone
// (expired, deleted), or the server refusing to hold the request, and a tasks/get tells
// which: the first two settle the task, the last leaves it to be followed as any other
// (and, for -32601, no other task of the session is waited on so). An error that is no
// answer (the transport reporting the connection's end for that request) is treated as
// a refusal, without the tasks/get; if it was the task's own outcome, the tasks/result
// sent once the task is seen to end gets it again.
func (t *Task) waitFailed(ctx context.Context, id string, err error) {
	var rpcErr *jsonrpc.Error
	unanswered := !errors.As(err, &rpcErr) || rpcErr.Code == jsonrpc.CodeConnectionClosed
	if !unanswered && rpcErr.Code == jsonrpc.CodeMethodNotFound {
		t.s.tasks.noWaits.Store(true)
		unanswered = true
	}
	if !unanswered {
		st, gerr := t.get(ctx)
		switch {
		case errors.Is(gerr, jsonrpc.ErrInvalidParams):
			t.clearWaiting(true)
			t.gone(&TaskEndError{TaskID: id, Reason: ErrTaskGone, Err: err})
			return
		case gerr == nil:
			t.observe(st, fromAnswer) // a terminal state is left to this call, still claimed
		}
		if t.State().Status.IsTerminal() {
			t.clearWaiting(false)
			t.settleResult(ctx, id, nil, err, fromAnswer, false)
			return
		}
	}
	t.s.log.Debug("tasks/result of a working task failed; polling instead", "task", id, "error", err)
	t.clearWaiting(true)
	t.act(false) // news that came meanwhile waited for this request
	t.park()
}

// inferEnd takes status as the task's final one, told by its tasks/result's answer,
// unless the server's word came first; the server's, when it comes, replaces it.
func (t *Task) inferEnd(status mcp.TaskStatus) {
	t.mu.Lock()
	if t.ended || t.state.Status.IsTerminal() {
		t.mu.Unlock()
		return
	}
	t.state.Status = status
	t.inferred = true
	t.mu.Unlock()
	t.emit(TaskEvent{Kind: TaskStatus})
}

// clearWaiting records that the early tasks/result has its answer; with release, also
// that no call fetches the outcome any more (settleResult clears that itself).
func (t *Task) clearWaiting(release bool) {
	t.mu.Lock()
	t.waiting = false
	if release {
		t.resulting = false
	}
	t.mu.Unlock()
}

// fetchResultAsync is fetchResult for a task known to have ended (claimed with
// claimResult): its answer is settled where it is read, on the connection's reading
// goroutine, which then has nothing to wait for (the final status is known).
func (t *Task) fetchResultAsync(id string) {
	ctx, done := t.resultContext(context.Background())
	err := t.s.conn.GoNow(ctx, mcp.MethodTasksResult, &mcp.TaskResultParams{TaskID: id}, func(raw json.RawMessage, err error) {
		defer done()
		t.settleResult(ctx, id, raw, err, fromContinuation, false)
	})
	if err != nil {
		done()
		t.settleResult(ctx, id, nil, err, fromAnswer, false)
	}
}

// settleResult settles the outcome from tasks/result's answer raw, or its error err, and
// clears the claim of the call. It waits for nothing when the task's final status is
// known, or when told says the answer tells it (an early tasks/result's, which the
// server holds until the task has ended: failed for a result with isError, else
// completed).
func (t *Task) settleResult(ctx context.Context, id string, raw json.RawMessage, err error, src source, told bool) {
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
		if err := resultOfAnother(id, &res); err != nil {
			t.finish(nil, err)
			return
		}
		if told {
			status := mcp.TaskStatusCompleted
			if res.IsError {
				status = mcp.TaskStatusFailed
			}
			t.inferEnd(status)
		}
		t.settleStatus(ctx)
		t.finish(&res, nil)
	case ctx.Err() != nil:
	case !errors.As(err, &rpcErr) && t.s.conn.Err() != nil:
		// The connection ended: the follower reports it, or the session's end for a task
		// that has none.
	case rpcErr == nil:
		t.finish(nil, fmt.Errorf("%s: %w", mcp.MethodTasksResult, err))
	default:
		st, learned, err := t.s.resultError(ctx, id, t.State(), err, t.get)
		if learned {
			t.observe(st, src)
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
		t.observe(st, fromAnswer)
	}
}

// get asks the server for the task's state, and counts the poll. An extension task's
// detailed state is kept for what it inlines.
func (t *Task) get(ctx context.Context) (mcp.Task, error) {
	st, _, err := t.getSince(ctx)
	return st, err
}

// getSince is get, with the notifications taken before the answer (see getCore and
// getExt).
func (t *Task) getSince(ctx context.Context) (mcp.Task, uint64, error) {
	t.mu.Lock()
	t.polls++
	id, ext := t.state.TaskID, t.ext
	t.mu.Unlock()
	if !ext {
		return t.s.getCore(ctx, id, t)
	}
	d, notes, err := t.s.getExt(ctx, id, t)
	if err != nil {
		return mcp.Task{}, noNotes, err
	}
	t.setDetailSince(d, notes)
	return d.ToTask(), notes, nil
}

// getCore is GetTask of the 2025-11-25 era. For a task's own poll (t not nil) it also
// gives the number of status notifications of t taken before the answer was read (where
// it is read), for observeSince: one read after it is newer, though the answer reaches
// the caller later.
func (s *Session) getCore(ctx context.Context, id string, t *Task) (mcp.Task, uint64, error) {
	raw, notes, err := s.getNoted(ctx, &mcp.GetTaskParams{TaskID: id}, t)
	if err != nil {
		return mcp.Task{}, noNotes, err
	}
	var r mcp.GetTaskResult
	if err = jsonwire.Unmarshal(raw, &r); err != nil {
		return mcp.Task{}, noNotes, &jsonrpc.CallError{Method: mcp.MethodTasksGet, Op: jsonrpc.OpDecode, Err: err}
	}
	if err = answeredFor(mcp.MethodTasksGet, id, r.Task); err != nil {
		return mcp.Task{}, noNotes, err
	}
	return r.Task, notes, nil
}

// getNoted sends a tasks/get (params) and returns its answer with, for a task's own poll
// (t not nil), the number of t's notifications taken where the answer was read: one
// taken after it is newer, though the answer reaches the caller later (observeSince).
func (s *Session) getNoted(ctx context.Context, params any, t *Task) (json.RawMessage, uint64, error) {
	bctx, cancel, explain := s.deadline(ctx, mcp.MethodTasksGet)
	defer cancel()
	type answer struct {
		raw   json.RawMessage
		err   error
		notes uint64
	}
	ch := make(chan answer, 1)
	err := s.conn.Go(bctx, mcp.MethodTasksGet, params, func(raw json.RawMessage, err error) {
		notes := noNotes
		if t != nil {
			t.mu.Lock()
			notes = t.notes
			t.mu.Unlock()
		}
		ch <- answer{raw, err, notes}
	})
	if err == nil {
		a := <-ch
		if err = a.err; err == nil {
			return a.raw, a.notes, nil
		}
	}
	return nil, noNotes, fmt.Errorf("%s: %w", mcp.MethodTasksGet, explain(err))
}

// gone ends the task as one the server no longer knows, with err, a [*TaskEndError]. A
// task the client asked to cancel ends cancelled: the server may forget a cancelled task
// at once, before the answer to tasks/cancel (or a notification) says it was cancelled.
func (t *Task) gone(err error) {
	t.mu.Lock()
	if t.ended {
		t.mu.Unlock()
		return
	}
	if end := (*TaskEndError)(nil); t.cancelSent && errors.As(err, &end) {
		t.mu.Unlock()
		t.inferEnd(mcp.TaskStatusCancelled)
		t.finish(nil, &TaskEndError{TaskID: end.TaskID, Reason: ErrTaskCancelled, StatusMessage: end.StatusMessage, Err: end.Err})
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
// waits on Done finds the registry as the end left it. The task's share of a listen
// stream is given up after Done: the withdrawal that the last task of a stream sends
// (encoded and written, or a connection closed) is no part of waiting for the outcome.
//
// What only following needed is let go here: a session keeps its last KeptTasks ended
// tasks, and each one's stream (a context, a timer), detailed state (the notification's
// bytes again beside the decoded result) and inputs would stay reachable with it, for the
// collector to trace at every cycle.
func (t *Task) close() {
	t.mu.Lock()
	t.stopTimerLocked()
	if t.resultBound != nil {
		t.resultBound.Stop()
	}
	listen := t.listen
	t.listen, t.detail, t.inputs, t.unsent = nil, nil, nil, nil
	t.mu.Unlock()
	t.s.tasks.forgetToken(t.progress)
	t.s.tasks.ended(t, t.s.client.opts.KeptTasks)
	close(t.done)
	t.sub.close(nil)
	listen.release()
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
	if t == nil || !t.caughtUp {
		// Kept for the task's registration, or, once registered, for its replay of
		// those kept (Session.track), which this one must not overtake.
		s.tasks.keepEarlyLocked(st.TaskID, st, t != nil)
		s.tasks.mu.Unlock()
		return
	}
	s.tasks.mu.Unlock()
	t.observe(st, fromNotification)
}
