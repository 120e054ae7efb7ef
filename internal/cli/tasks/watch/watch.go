// Package watch implements "mcpi tasks watch".
package watch

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/tasks/shared"
	"github.com/mcpi-dev/mcpi/internal/cli/taskview"
	"github.com/mcpi-dev/mcpi/internal/look"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/transport"
)

// Options are the inputs of "tasks watch".
type Options struct {
	shared.Options

	// ID is the task to follow; empty follows every task the server lists (in
	// 2026-07-28, every task the state file records for it).
	ID string
	// Answers is the --answers file.
	Answers string

	// Now is the clock (nil: time.Now); Tick is how often the status line is redrawn
	// (0: 100ms; negative: only on changes).
	Now  func() time.Time
	Tick time.Duration

	// tool is the tool of the task, when the state file records it.
	tool string
}

// DefaultInterval is how often "tasks watch" without an id lists the server's tasks to
// find new ones; the tasks it follows are polled at their own pollInterval.
const DefaultInterval = time.Second

// NewCmd returns the command; runF replaces [Run] in tests of the flag handling.
func NewCmd(f *cmdutil.Factory, sel *connect.Selection, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{Options: shared.NewOptions(f, sel)}
	cmd := &cobra.Command{
		Use:   "watch [ID] [--answers FILE]",
		Short: "Follow a task, or all the server's tasks, until they end",
		Long: `Follow a task live until it ends: polling tasks/get at the server's
pollInterval while waiting in tasks/result, which also lets the server ask for
input for the task (answered at a prompt on a terminal, or from --answers FILE;
see "mcpi tools call --help"). Input mcpi cannot give (no terminal, and no
answer in the file) is left unanswered: mcpi stops, exits with status 2 and says
how to answer, and the task keeps waiting for it, recorded in the local state
file with the session that reached it left open on the server, for "mcpi tasks
result ID --answers FILE" to take up (on the embedded demo server or a stdio
server, which mcpi stops as it exits, the task ends with it, and mcpi says to
make the call that started it again, on a terminal or with --answers FILE). On a terminal one status line
is redrawn in place; otherwise each status change is one line on stdout. Without
server flags, a task recorded in the local state file is followed on the server
it was started on, in the protocol version it was created in (unless --protocol
names one).

Without an ID, every task the server lists (tasks/list) is followed until all
have ended; each new task and each change is one line. The watch's session is a
new one, and a server that binds tasks to their session (the TypeScript SDK's)
lists only its tasks: so the tasks mcpi recorded for the server with sessions of
their own are followed through those sessions, taken up as "mcpi tasks watch ID"
takes one up (the newest 8 sessions; stderr counts the tasks of the others, and
those whose session could not be taken up, which "mcpi tasks watch ID" follows one
by one), in the same lines, and left open on the server as they were; a task the
server no longer knows is forgotten, and counted on stderr, and a session no
task recorded in the state file names any more is then ended on the server (so
is the one "mcpi tasks watch ID" took up for a task the server no longer knows). In protocol 2026-07-28,
whose Tasks extension has no tasks/list, the tasks mcpi recorded for the server
when the watch starts are followed instead, those "mcpi tasks list" lists (a
task the server no longer knows is forgotten; stderr counts those left out).

With --json every event is one JSON object per line, as for "mcpi tools call
--task --json": {"event":"status","time":T,"task":TASK} for the task as first
seen and for every change, {"event":"input",...} for a request of the server
linked to the task, and (for one task) a last "result", "error", "lost"
event (mcpi stopped following a task whose fate it does not know) or
"interrupted" event (a signal stopped mcpi: "state" is "running" when the task
runs on, with "fetch" the command that gets its result, or "stopped" when it ends
with the server mcpi stops as it exits, the embedded demo server or a stdio
server, and "error" says which; see "mcpi tools call --help");
{"event":"gone","task":TASK,...} when the server stops knowing a task (without
an ID also one listed as ended that leaves the list; with
"forgotten":true when mcpi recorded it in the local state file: the record is
removed, as "mcpi tasks result ID" removes it, and the session mcpi took up for
it is ended on the server unless another recorded task names it; the line of
text says so too). A task mcpi loses track of is not one the server no longer
knows: its record stays. A
question mcpi cannot ask ends the stream with
{"event":"waiting","time":T,"task":TASK,"waiting":{"fetch":CMD},"error":{"message":S}}
for the task, which waits for the input on the server: CMD is the command that
gives it, S the sentence stderr has. With an ID, that is the task the question
names: another task of the session taken up (its related-task) waits instead,
and the watched task, which runs on, has an "interrupted" event (state
"running") before it. Without an ID, an interruption ends the
stream with an "interrupted" event for each task still running (a question, with
a "waiting" event for the task it names, its related-task in 2025-11-25 or the task
whose inputRequests it is in 2026-07-28, or for each task of the session it came in
when it names none of them, and an "interrupted" event for the others), and a listing stopped at --max-pages or --max-items is followed as
far as it went, then mcpi says so and exits with status 2.

The result of a task whose tool is known (recorded in the local state file) is
checked against the tool's output schema, as "mcpi tools call" checks it (the
tool is looked up in tools/list): a result that does not fit, or has no
structuredContent, is said so on stderr and exits 1, and with --json its
"result" event carries the sentence as "outputProblem".

A task left running on an interruption (Ctrl-C, SIGTERM) is recorded in the
local state file, as "mcpi tools call --task" records one, and the session that
reached it is left open on the server, which may bind the task to it: "mcpi
tasks result ID" then fetches its result. So is a task mcpi loses track of (its
polls fail, or the server ends the session: then without that session), whose
"lost" line names that command; without an ID the others are followed on, and
mcpi exits with status 2 (1 when the server answered the polls with errors).

Exit status: 0 when the task completed (without an ID: when all listed tasks
have ended), 1 when it failed, was cancelled, its result does not fit the tool's
output schema, or the server has no such task, 2 on bad usage, input mcpi could
not give, a connection failure, a listing cut short or an interruption.`,
		Args: cmdutil.TaskIDArgs(true),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.ID = args[0]
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return Run(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print one JSON event per line")
	cmdutil.AnswersFlag(cmd, &opts.Answers)
	return cmd
}

// Run follows the task or tasks.
func Run(ctx context.Context, opts *Options) error {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	tool := ""
	if opts.ID != "" {
		entry, _, err := opts.Resolve(opts.ID)
		if err != nil {
			return err
		}
		tool = entry.Tool
		opts.tool = tool
	}
	// Input mcpi cannot give is left for a later command: refusing it would have the
	// server fail the task (or mcpi cancel it), which this command did not start.
	sess, err := opts.Open(ctx, cmdutil.RequestPolicy{Answers: opts.Answers, Tool: tool, Leave: true, TaskTool: opts.RecordedTool})
	if err != nil {
		return err
	}
	defer sess.Close()
	wait, stop := sess.Answerable(ctx)
	defer stop()
	if opts.ID == "" {
		err = watchAll(wait, opts, sess)
	} else {
		err = watchOne(wait, opts, sess)
	}
	if left := sess.Left(); left != nil && !errors.As(err, new(*cmdutil.LeftInputError)) {
		if opts.ID != "" {
			// Stopped on a question mcpi could not ask, maybe before the task was
			// followed (a resumed session gets it again at once): the task it names
			// waits, this one or another of the session, which leaves this one
			// running.
			watched := mcp.Task{TaskID: opts.ID}
			if asked := (*leftAsked)(nil); errors.As(err, &asked) {
				watched = asked.task
			}
			err := opts.LeftInput(ctx, sess, opts.ID, tool, left)
			var leftIn *cmdutil.LeftInputError
			if opts.JSON && errors.As(err, &leftIn) {
				// Lines that cannot be written change nothing: stderr says it.
				out := taskview.NewJSONWriter(opts.IO.Out)
				waiting := &mcp.Task{TaskID: leftIn.ID}
				if leftIn.Followed != "" {
					running := &cmdutil.InterruptedTaskError{ID: opts.ID, Fetch: leftIn.FollowedFetch}
					msg, _ := cmdutil.Describe(running)
					_ = out.Write(taskview.InterruptedEvent(opts.Now(), &watched, taskview.LeftRunning, running.Fetch, strings.TrimPrefix(msg, "mcpi: ")))
				} else {
					waiting = &watched
				}
				msg, _ := cmdutil.Describe(err)
				_ = out.Write(taskview.WaitingEvent(opts.Now(), waiting, leftIn.Fetch, strings.TrimPrefix(msg, "mcpi: ")))
			}
			return err
		}
		if err := stoppedForInput(opts, sess, left); err != nil {
			return err
		}
		return left
	}
	return err
}

// stoppedForInput is the error of "tasks watch" without an id stopped on a question
// mcpi could not ask (left), on a server that stops as mcpi exits, with its tasks: only
// the call made again can be answered. It is nil on a server that outlives mcpi.
func stoppedForInput(opts *Options, sess *cmdutil.Session, left error) error {
	l, ends := opts.Ending(sess, "")
	if !ends {
		return nil
	}
	id := ""
	if need := (*cmdutil.NeedTerminalError)(nil); errors.As(left, &need) {
		id = need.Task
	}
	return opts.StoppedForInput(id, l, left)
}

// leftAsked is watchOne's stop on a question mcpi could not ask, on a server that
// outlives mcpi, which Run words, as it does one that came before the task was followed:
// task is the task as last seen.
type leftAsked struct{ task mcp.Task }

func (e *leftAsked) Error() string { return "stopped on a question mcpi could not ask" }

func changed(a, b mcp.Task) bool {
	return a.Status != b.Status || a.StatusMessage != b.StatusMessage || a.LastUpdatedAt != b.LastUpdatedAt
}

// printer writes the events of watched tasks.
type printer struct {
	opts *Options
	out  *taskview.JSONWriter
	live *taskview.Live
	// withID prefixes human lines with the task id (several tasks).
	withID bool
}

// event writes e as a JSON line, with --json.
func (p *printer) event(e client.TaskEvent) error {
	if p.out == nil {
		return nil
	}
	if ev, ok := taskview.FromTaskEvent(e); ok {
		return p.out.Write(ev)
	}
	return nil
}

// status shows a new or changed task: a JSON line, the live line, or a line of text.
func (p *printer) status(e client.TaskEvent) error {
	switch {
	case p.out != nil:
		return p.event(e)
	case p.live != nil:
		p.live.Observe(e)
		return nil
	}
	t := e.State
	line := p.opts.Now().Format("15:04:05") + "  "
	if p.withID {
		line += t.TaskID + "  "
	}
	line += shared.StatusText(t.Status)
	if t.StatusMessage != "" {
		line += "  " + t.StatusMessage
	}
	_, err := fmt.Fprintln(p.opts.IO.Out, look.Safe(line))
	return err
}

// gone shows that the server no longer knows a task, and that the state file forgot
// it, when it did.
func (p *printer) gone(e client.TaskEvent, forgotten bool) error {
	if p.out != nil {
		ev, ok := taskview.FromTaskEvent(e)
		if !ok {
			return nil
		}
		ev.Forgotten = forgotten
		return p.out.Write(ev)
	}
	if p.live != nil {
		return nil
	}
	line := "gone (expired or deleted)"
	if forgotten {
		line += "; mcpi has removed it from its local list of tasks"
	}
	_, err := fmt.Fprintf(p.opts.IO.Out, "%s  %s  %s\n", p.opts.Now().Format("15:04:05"), look.Safe(e.State.TaskID), line)
	return err
}

// watchOne follows the task with the client's follower and shows its events.
func watchOne(ctx context.Context, opts *Options, sess *cmdutil.Session) error {
	task, err := sess.FollowTask(ctx, opts.ID)
	if err != nil {
		return opts.TaskErr(err, opts.ID)
	}
	p := &printer{opts: opts}
	if opts.JSON {
		p.out = taskview.NewJSONWriter(opts.IO.Out)
	} else if opts.IO.IsStderrTTY() {
		tick := opts.Tick
		if tick == 0 {
			tick = 100 * time.Millisecond
		}
		p.live = taskview.NewLive(opts.IO, task.Started, opts.Now, tick)
		defer p.live.Stop(false)
	}
	var last mcp.Task
	for e := range task.Events(ctx) {
		var err error
		switch e.Kind {
		case client.TaskStatus:
			if e.State.TaskID == last.TaskID && !changed(last, e.State) && p.live == nil {
				continue
			}
			last = e.State
			err = p.status(e)
		case client.TaskGone:
			if p.live != nil {
				p.live.Stop(true)
			}
			// As "tasks result ID": a recorded task no command will reach again is
			// forgotten, and the session taken up for it ended when no record names it.
			gone := opts.OutcomeErr(e.Err, opts.ID)
			var te *cmdutil.TaskError
			if err := p.gone(e, errors.As(gone, &te) && te.Forgotten); err != nil {
				return err
			}
			return gone
		case client.TaskResult, client.TaskError:
			return p.finish(ctx, sess, task, e)
		default:
			err = p.event(e)
			if p.live != nil {
				p.live.Observe(e)
			}
		}
		if err != nil {
			return err
		}
	}
	if ctx.Err() == nil {
		return nil
	}
	// Interrupted: the task, which this command did not start, runs on. The last line
	// says so, as the one of "tools call --task" does, with the command that fetches
	// its result.
	if p.live != nil {
		p.live.Stop(true)
	}
	st := task.State()
	l := sess.Left()
	if _, ends := opts.Ending(sess, opts.ID); l != nil && !ends {
		// Stopped on a question mcpi could not ask: the task it names waits for its
		// answer, which Run says.
		return &leftAsked{task: st}
	}
	left := opts.LeaveTask(sess, st, opts.tool, false)
	stopped := left.Interrupted(opts.ID)
	var intr error = stopped
	said := intr // what stderr says
	if l != nil {
		// The task ends with its server all the same; Run returns the sentence that says
		// so, and to make the call again to give the input, as the line does.
		said = opts.LeftInput(ctx, sess, opts.ID, opts.tool, l)
	}
	if p.out != nil {
		msg, _ := cmdutil.Describe(said)
		// A line that cannot be written (stdout closed) changes nothing: the
		// interruption is what the exit status and stderr say.
		_ = p.out.Write(taskview.InterruptedEvent(opts.Now(), &st, left.State(), stopped.Fetch, strings.TrimPrefix(msg, "mcpi: ")))
	}
	return intr
}

// finish shows the outcome and returns the error that gives the exit code. A result is
// checked against the tool's output schema as "tools call" checks it: the "result"
// event says how it does not fit, and the exit code is 1.
func (p *printer) finish(ctx context.Context, sess *cmdutil.Session, task *client.Task, e client.TaskEvent) error {
	opts, st := p.opts, e.State
	if p.live != nil {
		p.live.Stop(false)
		fmt.Fprintln(opts.IO.Out, taskview.Line{ID: st.TaskID, Status: st.Status, Message: st.StatusMessage,
			Elapsed: opts.Now().Sub(task.Started), Polls: task.Polls()})
	}
	var output *cmdutil.OutputSchemaError
	if e.Kind == client.TaskResult && e.Err == nil {
		errors.As(opts.CheckOutput(ctx, sess, opts.tool, e.Result), &output)
	}
	// A task mcpi lost track of (its polls failed, or the server ended the session) is
	// recorded, as "tools call --task" records one, and has a "lost" line naming the
	// command that fetches its result later.
	lost := taskview.LostOf(e.Err)
	var fetch string
	if lost != nil {
		fetch = opts.LeaveTask(sess, st, opts.tool, errors.Is(e.Err, transport.ErrSessionExpired)).Fetch
	}
	if ev, ok := taskview.FromTaskEvent(e); ok && p.out != nil {
		if output != nil {
			ev.OutputProblem = output.Error()
		}
		if ev.Lost != nil {
			ev.Lost.Fetch = fetch
		}
		if err := p.out.Write(ev); err != nil {
			return err
		}
	}
	if refused := sess.Refusal(e.Result, e.Err); refused != nil {
		return refused
	}
	switch {
	case lost != nil:
		return &cmdutil.LostTaskError{ID: st.TaskID, Server: opts.Selection.ServerURL(), Fetch: fetch, Err: e.Err}
	case e.Err != nil:
		return e.Err // the task's own error, or a *client.TaskEndError: cancelled or gone
	case e.Result.IsError || st.Status == mcp.TaskStatusFailed:
		return &cmdutil.TaskError{ID: st.TaskID, Reason: cmdutil.TaskFailed, Message: st.StatusMessage}
	case output != nil:
		return output
	}
	return nil
}

// lost records the task of e, which mcpi lost track of (its polls failed, or the server
// ended the session), shows it (a "lost" line, naming the command that fetches its
// result), and returns the error that says so.
func (p *printer) lost(sess *cmdutil.Session, e client.TaskEvent) error {
	opts, st := p.opts, e.State
	fetch := opts.LeaveTask(sess, st, "", errors.Is(e.Err, transport.ErrSessionExpired)).Fetch
	lost := &cmdutil.LostTaskError{ID: st.TaskID, Server: opts.Selection.ServerURL(), Fetch: fetch, Err: e.Err}
	if p.out != nil {
		if ev, ok := taskview.FromTaskEvent(e); ok {
			ev.Lost.Fetch = fetch
			// A line that cannot be written changes nothing: the task is recorded, and
			// the exit status says it was lost.
			_ = p.out.Write(ev)
		}
		return lost
	}
	msg, _ := cmdutil.Describe(lost)
	fmt.Fprintln(opts.IO.Out, look.Safe(opts.Now().Format("15:04:05")+"  "+st.TaskID+"  lost: "+msg))
	return lost
}

// watchAll follows every task the server lists until all have ended: tasks/list finds
// them, and the client's follower follows each that is still running. In 2026-07-28,
// whose Tasks extension has no tasks/list, the tasks are those the state file records
// for the server when it starts, as "tasks list" lists them.
func watchAll(ctx context.Context, opts *Options, cs *cmdutil.Session) error {
	sess := cs.Session
	list := func(ctx context.Context) ([]mcp.Task, error) { return cmdutil.Collect(sess.ServerTasks(ctx, nil)) }
	if sess.Modern() {
		fmt.Fprintf(opts.IO.ErrOut, "The server speaks protocol %s, whose Tasks extension has no tasks/list; mcpi follows the tasks it recorded for it.\n", look.Safe(sess.ProtocolVersion()))
		rec, err := opts.RecordedTasks(ctx, cs)
		if err != nil {
			return err
		}
		rec.Report(opts.IO.ErrOut)
		list = func(context.Context) ([]mcp.Task, error) { return rec.Tasks, nil }
	} else if err := shared.NeedList(sess); err != nil {
		return err
	}
	// This session is new: the tasks left running in sessions of their own, which a
	// server may bind them to, are listed and reached only in those, which the watch
	// takes up.
	taken := []*recordedSession{{sess: cs}}
	var nf notFollowed
	if !sess.Modern() && !opts.Embedded() {
		taken = takeUp(ctx, opts, cs, cmdutil.RequestPolicy{Answers: opts.Answers, Leave: true, TaskTool: opts.RecordedTool}, &nf)
		for _, g := range taken[1:] {
			defer g.sess.Close() // which leaves it open on the server, as it was
			// A question one of them cannot ask stops the watch, as one of cs does.
			var stopWait context.CancelFunc
			ctx, stopWait = g.sess.Answerable(ctx)
			defer stopWait()
		}
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	p := &printer{opts: opts, withID: true}
	if opts.JSON {
		p.out = taskview.NewJSONWriter(opts.IO.Out)
	}
	known := map[string]mcp.Task{} // as last shown
	followed := map[string]bool{}
	// in is the session each task is followed in, when not cs, and tool its tool when
	// the state file records it.
	in := map[string]*cmdutil.Session{}
	tool := map[string]string{}
	sessOf := func(id string) *cmdutil.Session { return cmp.Or(in[id], cs) }
	ended := map[string]bool{} // followed to their outcome, or gone
	running := 0
	events := make(chan client.TaskEvent)
	follow := func(s *cmdutil.Session, id string) (*client.Task, error) {
		task, err := s.FollowTask(ctx, id)
		if err != nil {
			return nil, opts.TaskErr(err, id)
		}
		followed[id] = true
		if s != cs {
			in[id] = s
		}
		running++
		go func() {
			for e := range task.Events(ctx) {
				select {
				case events <- e:
				case <-ctx.Done():
					return
				}
			}
		}()
		return task, nil
	}
	show := func(e client.TaskEvent) error {
		if old, ok := known[e.State.TaskID]; ok && !changed(old, e.State) {
			return nil
		}
		known[e.State.TaskID] = e.State
		return p.status(e)
	}
	// interrupted ends the stream, as watchOne's does, with an "interrupted" line for
	// each task still running (which runs on, this command not having started it), and
	// returns the interruption.
	interrupted := func() error {
		var leftIn *cmdutil.LeftInputError
		asked := map[*cmdutil.Session]error{} // the sessions stopped on a question
		for _, g := range taken {
			if l := g.sess.Left(); l != nil {
				// Stopped on a question mcpi could not ask: the tasks wait on.
				asked[g.sess] = l
				if leftIn == nil {
					leftIn = &cmdutil.LeftInputError{Err: l}
				}
				// A resumed session gets its question again at once, maybe before
				// its tasks were followed: they wait all the same.
				for _, e := range g.entries {
					if _, ok := known[e.TaskID]; !ok && !ended[e.TaskID] {
						known[e.TaskID] = mcp.Task{TaskID: e.TaskID}
						tool[e.TaskID] = e.Tool
						if g.sess != cs {
							in[e.TaskID] = g.sess
						}
					}
				}
			}
		}
		// waits reports whether task id waits for the question its session stopped on:
		// the task the question names, or every task of the session when it names none
		// of them (it names no task, or one the watch does not follow there).
		waits := func(id string) bool {
			l := asked[sessOf(id)]
			if l == nil {
				return false
			}
			var need *cmdutil.NeedTerminalError
			if !errors.As(l, &need) || need.Task == "" {
				return true
			}
			if _, ok := known[need.Task]; !ok || sessOf(need.Task) != sessOf(id) {
				return true
			}
			return id == need.Task
		}
		left := 0
		// waiting are the tasks left waiting for input, with what became of each, and
		// named is set while each of them is one a question named.
		type waiter struct {
			id string
			shared.Left
		}
		var waiting []waiter
		named := true
		for _, id := range slices.Sorted(maps.Keys(known)) {
			t := known[id]
			if t.Status.IsTerminal() || ended[id] {
				continue
			}
			l := opts.LeaveTask(sessOf(id), t, tool[id], false)
			stopped := l.Interrupted(id)
			left++
			if leftIn != nil {
				leftIn.Kept = leftIn.Kept || l.Kept
				if l.Ends {
					leftIn = nil
				}
			}
			if q := asked[sessOf(id)]; q != nil && !l.Ends && waits(id) {
				waiting = append(waiting, waiter{id, l})
				var need *cmdutil.NeedTerminalError
				named = named && errors.As(q, &need) && need.Task == id
				if p.out != nil {
					msg, _ := cmdutil.Describe(&cmdutil.LeftInputError{ID: id, Fetch: l.Fetch, Kept: l.Kept, Err: q})
					// A line that cannot be written (stdout closed) changes nothing:
					// the stop is what the exit status and stderr say.
					_ = p.out.Write(taskview.WaitingEvent(opts.Now(), &t, l.Fetch, strings.TrimPrefix(msg, "mcpi: ")))
				}
				continue
			}
			if p.out != nil {
				msg, _ := cmdutil.Describe(stopped)
				_ = p.out.Write(taskview.InterruptedEvent(opts.Now(), &t, l.State(), stopped.Fetch, strings.TrimPrefix(msg, "mcpi: ")))
			}
		}
		if leftIn != nil {
			if err := stoppedForInput(opts, cs, leftIn.Err); err != nil {
				return err
			}
			leftIn.NoTask = left == 0
			if named && len(waiting) == 1 {
				// The question named its task: the sentence says where that one waits,
				// and which command gives it its input.
				w := waiting[0]
				leftIn.ID, leftIn.Fetch, leftIn.Kept = w.id, w.Fetch, w.Kept
			}
			return leftIn
		}
		return ctx.Err()
	}
	// stopped is the listing's stop at --max-pages or --max-items: the tasks listed are
	// followed, and the sentence that names the flag ends the command, as "tasks list"
	// prints what it listed before it.
	var stopped error
	// lost is the first task mcpi lost track of, and listErr a listing that failed while
	// tasks were followed: either ends the command once the others have ended.
	var lost, listErr error
	end := func() error {
		return cmp.Or(stopped, lost, listErr)
	}
	// The tasks recorded with sessions of their own are followed through them, before
	// cs lists its own (a server that does not bind tasks to their session lists them
	// too: each is followed once).
	for _, g := range taken {
		for _, e := range g.entries {
			task, err := follow(g.sess, e.TaskID)
			var te *cmdutil.TaskError
			switch {
			case ctx.Err() != nil:
				return interrupted()
			case errors.As(err, &te) && te.Reason == cmdutil.TaskUnknown:
				// Its session, or its ttl, ended: no command will reach it again, nor
				// take up its session for it.
				if store, serr := opts.Store(); serr == nil && store.Forget(e.TaskID) == nil {
					nf.Gone++
					opts.ReleaseSession(g.sess, e.Session)
				}
				continue
			case err != nil:
				nf.Failed++
				if nf.Err == nil {
					nf.Err = err
				}
				continue
			}
			tool[e.TaskID] = e.Tool
			if err := show(client.TaskEvent{At: client.At{Time: opts.Now()}, Kind: client.TaskStatus, State: task.State()}); err != nil {
				return err
			}
		}
	}
	nf.report(opts.IO.ErrOut)
	relist := time.NewTimer(0)
	defer relist.Stop()
	for first := true; ; {
		select {
		case <-ctx.Done():
			return interrupted()
		case e := <-events:
			var err error
			switch {
			case e.Kind == client.TaskGone:
				delete(known, e.State.TaskID)
				ended[e.State.TaskID] = true
				running--
				// As "tasks watch ID" does for its task.
				err = p.gone(e, opts.ForgetGone(sessOf(e.State.TaskID), e.State.TaskID))
			case e.Kind.IsOutcome():
				ended[e.State.TaskID] = true
				running--
				if taskview.LostOf(e.Err) != nil {
					err = p.lost(sessOf(e.State.TaskID), e)
					if lost == nil {
						lost = err
					}
					err = nil
				}
			case e.Kind == client.TaskStatus:
				err = show(e)
			case e.Kind == client.TaskInput:
				err = p.event(e)
			}
			if err != nil {
				return err
			}
			if running == 0 {
				return end()
			}
		case <-relist.C:
			tasks, err := list(ctx)
			switch {
			case ctx.Err() != nil:
				return interrupted()
			case cmdutil.ListingStopped(err):
				if stopped == nil {
					stopped = err
				}
			case err != nil && running > 0:
				// The tasks followed go on to their outcome, or are lost on their own
				// (the session ended, the server is gone): each is then recorded.
				listErr = err
				continue
			case err != nil:
				return err
			}
			if first && len(tasks) == 0 && len(followed) == 0 {
				switch {
				case opts.JSON:
				case sess.Modern():
					fmt.Fprintln(opts.IO.ErrOut, `No tasks recorded for this server that it still has. ("mcpi tasks list --local" shows every task mcpi left running.)`)
				default:
					fmt.Fprintln(opts.IO.ErrOut, "No tasks. (A server lists the tasks of the current session only.)")
				}
				return stopped
			}
			first = false
			listed := map[string]bool{}
			for _, t := range tasks {
				listed[t.TaskID] = true
				if followed[t.TaskID] {
					continue
				}
				if err := show(client.TaskEvent{At: client.At{Time: opts.Now()}, Kind: client.TaskStatus, State: t}); err != nil {
					return err
				}
				if !t.Status.IsTerminal() {
					if _, err := follow(cs, t.TaskID); err != nil {
						if ctx.Err() != nil {
							return interrupted()
						}
						return err
					}
				}
			}
			// A task that ended before it was followed and has left the list since: the
			// server no longer knows it (a task tasks/get reaches is listed), and its
			// record, when mcpi made one, is forgotten, as for a task followed. A listing
			// cut short at --max-pages or --max-items says nothing of the tasks past the
			// cut, where one listed before may have moved.
			complete := err == nil
			for id, t := range known {
				if complete && !listed[id] && !followed[id] {
					delete(known, id)
					if err := p.gone(client.TaskEvent{At: client.At{Time: opts.Now()}, Kind: client.TaskGone, State: t,
						Err: &client.TaskEndError{TaskID: id, Reason: client.ErrTaskGone}}, opts.ForgetGone(cs, id)); err != nil {
						return err
					}
				}
			}
			if running == 0 {
				return end()
			}
			if !sess.Modern() { // the recorded tasks are followed to their end, none listed anew
				relist.Reset(DefaultInterval)
			}
		}
	}
}
