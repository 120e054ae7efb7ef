package shared

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/state"
	"github.com/mcpi-dev/mcpi/internal/cli/taskview"
	"github.com/mcpi-dev/mcpi/mcp"
)

// Left is what became of a task a command stopped following without its outcome.
type Left struct {
	// Fetch is the command that fetches the task's result.
	Fetch string
	// Kept is set when the session that reached the task stays open on the server, to
	// which a later command returns.
	Kept bool
	// Ends is set when the server stops as mcpi exits (the embedded demo server, a
	// stdio server), and the task with it: nothing is recorded. Stdio is then the
	// command line of a stdio server ("" for the embedded demo server).
	Ends  bool
	Stdio string
}

// Interrupted is the error of a command stopped (by a signal, or on a question it could
// not ask) while it followed task id, which it left as l says: the sentence says the
// task runs on and how to fetch its result, or that it ends with the server mcpi stops,
// as "tools call --task" says it.
func (l Left) Interrupted(id string) *cmdutil.InterruptedTaskError {
	if l.Ends {
		return &cmdutil.InterruptedTaskError{ID: id, Embedded: l.Stdio == "", Stdio: l.Stdio}
	}
	return &cmdutil.InterruptedTaskError{ID: id, Fetch: l.Fetch}
}

// State is what became of the task, for the "state" of an "interrupted" event.
func (l Left) State() string {
	if l.Ends {
		return taskview.LeftStopped
	}
	return taskview.LeftRunning
}

// LeaveTask records task t of tool (which may be ""), which the command leaves without
// its outcome (interrupted, lost, or waiting for input mcpi could not give), as "tools
// call --task" records a task it leaves, and returns the command that fetches its
// result. The session stays open on the server (see [client.Session.Keep]) unless
// sessionEnded says the server ended it: a server that binds a task to the session that
// reached it (the TypeScript SDK's) drops the task when that session ends, and the
// command would then find nothing. A failure to record is said on stderr: the task runs
// all the same, and the command returned names its server.
func (o *Options) LeaveTask(sess *cmdutil.Session, t mcp.Task, tool string, sessionEnded bool) Left {
	if l, ends := o.Ending(sess, t.TaskID); ends {
		// Its server stops as mcpi exits: a session kept there keeps nothing.
		return l
	}
	left, err := o.record(sess, t, tool, sessionEnded)
	if err != nil {
		msg, _ := cmdutil.Describe(err)
		fmt.Fprintf(o.IO.ErrOut, "mcpi: %s\n", msg)
	}
	return left
}

// Ending returns what becomes of task id when the command leaves it without recording
// it: its Fetch command, and Ends set (with Stdio) when the selected server stops as mcpi
// exits (the embedded demo server, a stdio server), which ends the task with it.
func (o *Options) Ending(sess *cmdutil.Session, id string) (l Left, ends bool) {
	l.Fetch = state.FetchCommand(o.Selection, sess.ProtocolVersion(), id)
	if srv, stdio := o.stdioServer(); o.Embedded() || stdio {
		l.Ends, l.Stdio = true, srv
	}
	return l, l.Ends
}

// record is LeaveTask's record. A task already recorded on this server keeps its
// record, and the session recorded with it, to which the task may be bound (this one,
// when the command took it up); one recorded without a session gets this one, which
// reached the task. A session the server ended is recorded with no task.
func (o *Options) record(sess *cmdutil.Session, t mcp.Task, tool string, sessionEnded bool) (Left, error) {
	keep := func() *client.Resumption {
		if sessionEnded {
			return nil
		}
		return sess.Keep()
	}
	store, err := o.Store()
	if err == nil {
		e, ok, err := store.Find(t.TaskID)
		if err == nil && ok && state.FromSelection(o.Selection).Same(e.Server) {
			left := Left{Fetch: "mcpi tasks result " + cmdutil.ShellQuote(t.TaskID)}
			switch {
			case sessionEnded && e.Session != nil && sess.Resumed:
				// The session the record names is the one the server ended.
				return left, store.SetSession(t.TaskID, nil)
			case e.Session != nil:
				left.Kept = true
				return left, nil
			}
			kept := keep()
			if kept == nil {
				return left, nil
			}
			left.Kept = true
			return left, store.SetSession(t.TaskID, kept)
		}
	}
	kept := keep()
	// store is nil when the state file cannot be had: Remember says why.
	fetch, err := state.Remember(store, o.Selection, tool, sess.ProtocolVersion(), t, kept)
	return Left{Fetch: fetch, Kept: kept != nil}, err
}

// stdioServer reports whether the selected server is a process mcpi starts, and stops
// as it exits, and returns its command line.
func (o *Options) stdioServer() (string, bool) {
	if o.Embedded() {
		return "", false
	}
	t, err := o.Selection.Resolve()
	if err != nil || !t.Stdio {
		return "", false
	}
	return t.Name, true
}

// LeftInput is the error of a command on task id that stopped on a request of the
// server it could not answer (left, a [*cmdutil.NeedTerminalError]): the task waits for
// the input, so it is recorded, with the session that reached it kept open on the
// server ([Options.LeaveTask]): the request is the session's, and a server that binds
// the task to it would drop the task with it. The sentence says where the task waits
// and which command gives it its input. A request that names another task (of a
// session taken up again, which holds the tasks recorded with it) is that task's: it
// waits, and is recorded so, and task id runs on, which the sentence says too. A task
// whose server stops with mcpi ends with it: the sentence says to make the call again
// ([Options.StoppedForInput]).
func (o *Options) LeftInput(ctx context.Context, sess *cmdutil.Session, id, tool string, left error) error {
	var need *cmdutil.NeedTerminalError
	if errors.As(left, &need) && need.Task != "" && need.Task != id {
		asking, _ := o.RecordedTool(need.Task)
		l := o.Leave(ctx, sess, need.Task, asking)
		if l.Ends {
			return o.StoppedForInput(need.Task, l, left)
		}
		followed := o.Leave(ctx, sess, id, tool)
		return &cmdutil.LeftInputError{ID: need.Task, Fetch: l.Fetch, Kept: l.Kept, Err: left, Followed: id, FollowedFetch: followed.Fetch}
	}
	l := o.Leave(ctx, sess, id, tool)
	if l.Ends {
		return o.StoppedForInput(id, l, left)
	}
	return &cmdutil.LeftInputError{ID: id, Fetch: l.Fetch, Kept: l.Kept, Err: left}
}

// StoppedForInput is the error of a command on task id (or, with id "", on several)
// that stopped on a request of the server it could not answer (left), on a server that
// stops as mcpi exits (l.Ends), with the task: no later command can give the task its
// input, so the sentence says to make the call again, on a terminal or with --answers.
func (o *Options) StoppedForInput(id string, l Left, left error) error {
	e := &cmdutil.StoppedForInputError{ID: id, Embedded: l.Stdio == "", Stdio: l.Stdio, Err: left}
	var need *cmdutil.NeedTerminalError
	if errors.As(left, &need) && need.Tool != "" && (need.Kind == "" || need.Kind == "tool") {
		e.Call = "mcpi"
		if !o.Embedded() {
			e.Call += " " + state.FromSelection(o.Selection).Redacted().Flags()
		}
		e.Call += " tools call " + cmdutil.ShellQuote(need.Tool) + " --task"
	}
	return e
}

// Leave is [Options.LeaveTask] for task id, whose state (for the record's ttl) it asks
// for with ctx unless it is the task recorded, or its server stops as mcpi exits.
func (o *Options) Leave(ctx context.Context, sess *cmdutil.Session, id, tool string) Left {
	if l, ends := o.Ending(sess, id); ends {
		return l
	}
	t := mcp.Task{TaskID: id}
	if o.recorded == nil || o.recorded.TaskID != id {
		// The record counts the task's ttl; one that cannot be read leaves it unlimited.
		if st, err := sess.GetTask(ctx, id); err == nil {
			t = st
		}
	}
	return o.LeaveTask(sess, t, tool, false)
}

// RecordedTool returns the tool of task id as the state file records it for the
// selected server, and whether it does: for [cmdutil.RequestPolicy.TaskTool].
func (o *Options) RecordedTool(id string) (string, bool) {
	store, err := o.Store()
	if err != nil || o.Selection == nil {
		return "", false
	}
	e, ok, err := store.Find(id)
	if err != nil || !ok || !state.FromSelection(o.Selection).Same(e.Server) {
		return "", false
	}
	return e.Tool, true
}
