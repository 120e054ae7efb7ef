package call

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/state"
	"github.com/mcpi-dev/mcpi/internal/cli/tasks/shared"
	"github.com/mcpi-dev/mcpi/internal/cli/taskview"
	"github.com/mcpi-dev/mcpi/internal/look"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/transport"
)

// runTask calls the tool as a task and follows it to its outcome, or until it is
// created (--detach), or until Ctrl-C.
func runTask(ctx context.Context, opts *Options, sess *cmdutil.Session, params *mcp.CallToolParams) error {
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	var out *taskview.JSONWriter
	if opts.JSON {
		out = taskview.NewJSONWriter(opts.IO.Out)
	}
	var live *taskview.Live
	if !opts.JSON && !opts.Detach && opts.IO.IsStderrTTY() {
		tick := opts.Tick
		if tick == 0 {
			tick = 100 * time.Millisecond
		}
		live = taskview.NewLive(opts.IO, now(), now, tick)
		defer live.Stop(false)
	}

	// The call and the following outlive ctx, which Ctrl-C ends: the task must be
	// created (and its id known) before mcpi can cancel it or leave it running.
	follow, stop := context.WithCancel(context.WithoutCancel(ctx))
	defer stop()
	if sess.Modern() && opts.TTL > 0 {
		fmt.Fprintf(opts.IO.ErrOut, "--ttl is ignored: in protocol %s the server chooses a task's ttl.\n", look.Safe(sess.ProtocolVersion()))
	}
	// In 2026-07-28 --task only declares the Tasks extension: the server decides, and the
	// user is told what it chose.
	chose := func(msg string) {
		if sess.Modern() && !opts.JSON {
			opts.IO.Note(msg)
		}
	}
	events := make(chan client.TaskEvent)
	go func() {
		defer close(events)
		copts := &client.CallOptions{TTL: opts.TTL, SendAnyway: opts.SendAnyway, Progress: true}
		for e := range sess.CallToolTask(follow, params, copts) {
			select {
			case events <- e:
			case <-follow.Done():
				return
			}
		}
	}()

	interrupt := ctx.Done()
	interrupted := false
	var giveUp <-chan time.Time // after Ctrl-C, until the task's id comes
	var task *client.Task
	created := false
	// The polls of receiver tasks (requests the server runs as tasks on mcpi) are shown
	// from the created event on, and all of them before the outcome.
	stopPolls := func() {}
	defer func() { stopPolls() }()
	for {
		select {
		case <-interrupt:
			interrupt = nil
			interrupted = true
			if task != nil {
				ended, err := leave(opts, sess, live, task)
				if !ended {
					return interruptedLine(out, now, task, err)
				}
				// The task ended while mcpi asked: its outcome is on its way, and shown
				// as if mcpi had followed it to the end. Its line was kept on the screen.
				live = nil
				continue
			}
			// Not created yet: the id may be on its way, and with it the task can be
			// cancelled or left running, so it is waited for, but not for long.
			giveUp = time.After(idGrace)
			continue
		case <-giveUp:
			stop() // withdraws the call (notifications/cancelled)
			if live != nil {
				live.Stop(true)
			}
			return interruptedLine(out, now, nil, &cmdutil.InterruptedTaskError{})
		case e, ok := <-events:
			if !ok {
				return fmt.Errorf("the task's events ended before its outcome: %w", sess.Err())
			}
			if e.Task == nil {
				// The call failed before a task existed. The server's JSON-RPC error
				// (in 2026-07-28 its inline answer, as a result would be) is shown with
				// --json too, as for a plain call: a script gets its data.
				if out != nil && serverError(e.Err) {
					failed := e
					failed.Kind = client.TaskError
					if ev, ok := taskview.FromTaskEvent(failed); ok {
						if err := out.Write(ev); err != nil {
							return err
						}
					}
				}
				return e.Err
			}
			task = e.Task
			if e.Kind.IsOutcome() {
				stopPolls()
			}
			// A task whose fate mcpi does not know (its polls failed, or the server
			// ended the session) is recorded before its event line, which names the
			// command that fetches its result.
			var lost error
			fetch := ""
			if e.Kind == client.TaskError && taskview.LostOf(e.Err) != nil {
				if live != nil {
					live.Stop(true)
				}
				fetch, lost = lostTask(opts, sess, task, e.Err)
			}
			if out != nil && (!opts.Detach || e.Kind == client.TaskCreated) {
				if ev, ok := taskview.FromTaskEvent(e); ok {
					ev.OutputProblem = outputProblem(opts, e.Result)
					if ev.Lost != nil {
						ev.Lost.Fetch = fetch
					}
					if err := out.Write(ev); err != nil {
						return err
					}
				}
			}
			if lost != nil {
				return lost
			}
			if live != nil {
				live.Observe(e)
			}
			switch e.Kind {
			case client.TaskCreated:
				created = true
				said := "The server runs the call as task " + look.Safe(e.State.TaskID) + "."
				switch {
				case sess.Modern():
					chose(said)
				case !opts.JSON && (opts.Detach || live == nil):
					// Without a terminal nothing else names the task until its outcome: a
					// script that loses mcpi on the way (killed, or the connection failed)
					// still learns the id to fetch the result by, as in 2026-07-28, where
					// --detach says it too.
					opts.IO.Note(said)
				}
				if opts.Detach {
					protocol := sess.ProtocolVersion()
					// The session stays open on the server, where the task may be bound to
					// it, and ends here at once: it has nothing more to do.
					kept := sess.Keep()
					sess.Close()
					return detach(opts, task, protocol, e.State, kept)
				}
				stopPolls = taskview.WatchReceiver(sess.Session, opts.IO, out, live)
				if interrupted {
					ended, err := leave(opts, sess, live, task)
					if !ended {
						return interruptedLine(out, now, task, err)
					}
					live = nil
				}
			case client.TaskResult:
				if !created {
					chose("The server answered at once, without a task.")
				}
				if opts.Detach && !created {
					// The server ran the call plainly: there is nothing to detach from.
					// With --json the answer is an event line, as every line of --task is.
					if out != nil {
						if ev, ok := taskview.FromTaskEvent(e); ok {
							ev.OutputProblem = outputProblem(opts, e.Result)
							if err := out.Write(ev); err != nil {
								return err
							}
						}
						return finishJSON(opts, sess, e.Result, nil)
					}
					return finish(opts, sess, e.Result, nil)
				}
				if live != nil {
					live.Stop(e.State.TaskID != "")
				}
				if opts.JSON {
					// The result event was the result.
					return finishJSON(opts, sess, e.Result, nil)
				}
				return finish(opts, sess, e.Result, nil)
			case client.TaskError, client.TaskGone:
				if live != nil {
					live.Stop(true)
				}
				return finishJSON(opts, sess, nil, e.Err)
			}
		}
	}
}

// outputProblem says how res, when it is a result, does not fit the tool's output
// schema, for the "outputProblem" member of its result event; "" when it fits.
func outputProblem(opts *Options, res *mcp.CallToolResult) string {
	var out *client.OutputError
	if res != nil && errors.As(client.ValidateStructuredContent(opts.tool, res), &out) {
		return (&cmdutil.OutputSchemaError{Tool: opts.Name, Err: out}).Error()
	}
	return ""
}

// idGrace is how long Ctrl-C waits for the id of a task the server has not created yet.
const idGrace = 2 * time.Second

// finishJSON is finish for output that was already printed as events.
func finishJSON(opts *Options, sess *cmdutil.Session, res *mcp.CallToolResult, err error) error {
	if refused := sess.Refusal(res, err); refused != nil {
		return refused
	}
	if err != nil {
		return err
	}
	return outcome(opts, res)
}

// detach records the created task, of a session of protocol version protocol that was
// left open on the server as kept (nil: none), and prints its id.
func detach(opts *Options, task *client.Task, protocol string, st mcp.Task, kept *client.Resumption) error {
	fetch, err := state.Remember(opts.State, opts.Selection, task.Tool, protocol, st, kept)
	if st.TTL != nil && mcp.Milliseconds(*st.TTL) < state.MinKeep {
		// The fetch command printed next would find nothing to fetch: said before it.
		msg := fmt.Sprintf("mcpi: the server keeps the task for %s only (its ttl): it may delete the task and its result before they are fetched", look.TTL(st.TTL))
		if !mcp.IsModernProtocolVersion(protocol) {
			msg += "; ask for a longer --ttl"
		}
		fmt.Fprintln(opts.IO.ErrOut, msg)
	}
	if !opts.JSON {
		fmt.Fprintln(opts.IO.Out, look.Safe(st.TaskID))
		if opts.IO.IsStderrTTY() && err == nil {
			fmt.Fprintf(opts.IO.ErrOut, "mcpi: the task runs on; get its result with %s\n", look.Safe(fetch))
		}
	}
	if err != nil {
		// The task runs all the same: the sentence must not read as if it had failed.
		return &cmdutil.UnrecordedTaskError{ID: st.TaskID, Fetch: fetch, Err: err}
	}
	return nil
}

// lostTask records a task whose follower gave up on a server that did not answer its
// polls, or whose session the server ended, as one left running, since it may be, and
// returns the command that fetches its result and the error that says so. The session
// is recorded with it, and left open on the server, unless the server ended it: a server
// that lets a new session take the task over is reached without it.
func lostTask(opts *Options, sess *cmdutil.Session, task *client.Task, err error) (fetch string, lost error) {
	var kept *client.Resumption
	if !errors.Is(err, transport.ErrSessionExpired) {
		kept = sess.Keep()
	}
	fetch, rerr := state.Remember(opts.State, opts.Selection, task.Tool, sess.ProtocolVersion(), task.State(), kept)
	if rerr != nil {
		msg, _ := cmdutil.Describe(rerr)
		fmt.Fprintf(opts.IO.ErrOut, "mcpi: %s\n", msg)
	}
	return fetch, &cmdutil.LostTaskError{ID: task.ID(), Server: opts.Selection.ServerURL(), Fetch: fetch, Err: err}
}

// interruptedLine writes, with --json (out not nil), the "interrupted" line that ends the
// events of a task mcpi stopped following on an interruption, err (an
// *cmdutil.InterruptedTaskError), and returns err: without it the stream would end on a
// "status" line, and a script could not tell an interruption from a cut-off stream, nor
// learn whether the task still runs. task is nil when the server gave no id.
func interruptedLine(out *taskview.JSONWriter, now func() time.Time, task *client.Task, err error) error {
	var intr *cmdutil.InterruptedTaskError
	if out == nil || !errors.As(err, &intr) {
		return err
	}
	left := taskview.LeftRunning
	switch {
	case intr.ID == "" || intr.CancelErr != nil:
		left = taskview.LeftUnknown
	case intr.Cancelled:
		left = taskview.LeftCancelled
	case intr.Embedded || intr.Stdio != "":
		left = taskview.LeftStopped
	}
	var st *mcp.Task
	if task != nil {
		s := task.State()
		st = &s
	}
	msg, _ := cmdutil.Describe(err)
	// A line that cannot be written (stdout closed) changes nothing: the interruption
	// is what the exit status and stderr say.
	_ = out.Write(taskview.InterruptedEvent(now(), st, left, intr.Fetch, strings.TrimPrefix(msg, "mcpi: ")))
	return err
}

// leave handles Ctrl-C while following: on a terminal it asks whether to cancel the
// task or leave it running; without one it leaves it running and records it. It
// reports ended, with no error, when the task ended while the question was open (the
// follower saw it): there is nothing left to cancel or leave running, and the caller
// shows its outcome as it comes.
func leave(opts *Options, sess *cmdutil.Session, live *taskview.Live, task *client.Task) (ended bool, err error) {
	id := task.ID()
	if live != nil {
		live.Stop(true)
	}
	if opts.embedded() {
		return false, &cmdutil.InterruptedTaskError{ID: id, Embedded: true}
	}
	if srv := opts.stdioServer(); srv != "" {
		// mcpi stops the server as it exits: there is nothing to leave running.
		return false, &cmdutil.InterruptedTaskError{ID: id, Stdio: srv}
	}
	bg, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// One rule with "tasks cancel": a server that declares it cannot cancel tasks is
	// not offered the choice, and the task is left running.
	noCancel := ""
	if shared.NeedCancel(sess.Session) != nil {
		noCancel = "it declares no tasks.cancel capability"
		if sess.Modern() {
			noCancel = "it declares no " + mcp.ExtensionTasks + " extension"
		}
	}
	if opts.IO.CanPrompt() && noCancel == "" {
		c, err := sess.Choose(bg, "Cancel the task on the server, or leave it running? [c/l]", "cl")
		// The user may think for a while, and the task go on to its end meanwhile.
		if st := task.State(); st.Status.IsTerminal() {
			opts.IO.Note(fmt.Sprintf("The task %s ended (%s) while mcpi asked.", look.Safe(id), look.Safe(string(st.Status))))
			return true, nil
		}
		if err == nil && c == 'c' {
			if _, err := task.Cancel(bg); err != nil {
				return false, &cmdutil.InterruptedTaskError{ID: id, CancelErr: err}
			}
			return false, &cmdutil.InterruptedTaskError{ID: id, Cancelled: true}
		}
	}
	// The session stays open on the server, where the task may be bound to it.
	fetch, err := state.Remember(opts.State, opts.Selection, task.Tool, sess.ProtocolVersion(), task.State(), sess.Keep())
	if err != nil {
		msg, _ := cmdutil.Describe(err)
		fmt.Fprintf(opts.IO.ErrOut, "mcpi: %s\n", msg)
	}
	return false, &cmdutil.InterruptedTaskError{ID: id, Fetch: fetch, PollErr: task.PollError(), NoCancel: noCancel}
}
