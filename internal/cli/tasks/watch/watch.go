// Package watch implements "mcpi tasks watch".
package watch

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/tasks/shared"
	"github.com/mcpi-dev/mcpi/internal/cli/taskview"
	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// Options are the inputs of "tasks watch".
type Options struct {
	shared.Options
	// InputRefused, UseAnswers and SetRequestTool: see [cmdutil.Factory].
	InputRefused   func() error
	UseAnswers     func(file string) error
	SetRequestTool func(tool string)

	// ID is the task to follow; empty follows every task the server lists.
	ID      string
	Answers string

	// Now is the clock (nil: time.Now); Tick is how often the status line is redrawn
	// (0: 100ms; negative: only on changes).
	Now  func() time.Time
	Tick time.Duration
}

// DefaultInterval is how often tasks are polled when the server suggests no interval.
const DefaultInterval = time.Second

// floor is the shortest interval between two polls.
const floor = 100 * time.Millisecond

// NewCmd returns the command; runF replaces [Run] in tests of the flag handling.
func NewCmd(f *cmdutil.Factory, sel *connect.Selection, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{Options: shared.NewOptions(f, sel), InputRefused: f.InputRefused, UseAnswers: f.UseAnswers, SetRequestTool: f.SetRequestTool}
	cmd := &cobra.Command{
		Use:   "watch [ID] [--answers FILE]",
		Short: "Follow a task, or all the server's tasks, until they end",
		Long: `Follow a task live until it ends: polling tasks/get at the server's
pollInterval while waiting in tasks/result, which also lets the server ask for
input for the task (answered at a prompt on a terminal, or from --answers FILE;
see "mcpi tools call --help"). On a terminal one status line is redrawn in place;
otherwise each status change is one line on stdout. Without server flags, a task
recorded in the local state file is followed on the server it was started on.

Without an ID, every task the server lists (tasks/list) is followed until all
have ended; each new task and each change is one line.

With --json every event is one JSON object per line, as for "mcpi tools call
--task --json": {"event":"status","time":T,"task":TASK} for the task as first
seen and for every change, {"event":"input",...} for a request of the server
linked to the task, and (for one task) a last "result" or "error" event;
{"event":"gone","task":TASK,...} when the server stops knowing a task.

Exit status: 0 when the task completed (without an ID: when all listed tasks
have ended), 1 when it failed or was cancelled or the server has no such task, 2
on bad usage, a connection failure or an interruption.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return cmdutil.UsageErrorf("%q takes at most one task id, but was given %d arguments", cmd.CommandPath(), len(args))
			}
			return nil
		},
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
	cmd.Flags().StringVar(&opts.Answers, "answers", "", "answer the server's elicitation and sampling requests from `FILE`")
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
	}
	if opts.Answers != "" {
		if opts.UseAnswers == nil {
			return cmdutil.UsageErrorf("--answers is not available here")
		}
		if err := opts.UseAnswers(opts.Answers); err != nil {
			return err
		}
	}
	if opts.SetRequestTool != nil {
		opts.SetRequestTool(tool)
	}
	sess, err := opts.Connect(ctx)
	if err != nil {
		return err
	}
	defer sess.Close()
	if opts.ID == "" {
		return watchAll(ctx, opts, sess)
	}
	return watchOne(ctx, opts, sess)
}

func changed(a, b mcp.Task) bool {
	return a.Status != b.Status || a.StatusMessage != b.StatusMessage || a.LastUpdatedAt != b.LastUpdatedAt
}

func interval(t mcp.Task) time.Duration { return max(t.PollDuration(DefaultInterval), floor) }

// printer writes the events of watched tasks.
type printer struct {
	opts *Options
	out  *taskview.JSONWriter
	live *taskview.Live
	// withID prefixes human lines with the task id (several tasks).
	withID bool
}

func (p *printer) event(kind string, t *mcp.Task, fill func(*taskview.Event)) error {
	if p.out == nil {
		return nil
	}
	ev := taskview.Event{Event: kind, Time: mcp.FormatTime(p.opts.Now()), Task: t}
	if fill != nil {
		fill(&ev)
	}
	return p.out.Write(ev)
}

// status shows a new or changed task.
func (p *printer) status(t mcp.Task, polls int) error {
	if p.out != nil {
		return p.event("status", &t, nil)
	}
	if p.live != nil {
		p.live.Update(func(l *taskview.Line) {
			l.ID, l.Status, l.Message, l.Polls = t.TaskID, t.Status, t.StatusMessage, polls
		})
		return nil
	}
	line := p.opts.Now().Format("15:04:05") + "  "
	if p.withID {
		line += t.TaskID + "  "
	}
	line += shared.StatusText(t.Status)
	if t.StatusMessage != "" {
		line += "  " + t.StatusMessage
	}
	_, err := fmt.Fprintln(p.opts.IO.Out, line)
	return err
}

func watchOne(ctx context.Context, opts *Options, sess *client.Session) error {
	id := opts.ID
	st, err := sess.GetTask(ctx, id)
	if err != nil {
		return opts.TaskErr(err, id)
	}
	polls := 1
	p := &printer{opts: opts}
	if opts.JSON {
		p.out = taskview.NewJSONWriter(opts.IO.Out)
	} else if opts.IO.IsStderrTTY() {
		start, perr := mcp.ParseTime(st.CreatedAt)
		if perr != nil {
			start = opts.Now()
		}
		tick := opts.Tick
		if tick == 0 {
			tick = 100 * time.Millisecond
		}
		p.live = taskview.NewLive(opts.IO, start, opts.Now, tick)
		defer p.live.Stop(false)
	}
	if err := p.status(st, polls); err != nil {
		return err
	}

	// Wait for the outcome in tasks/result: it returns as soon as the task ends, and
	// carries the server's requests for the task meanwhile.
	type outcome struct {
		res *mcp.CallToolResult
		err error
	}
	results := make(chan outcome, 1)
	rctx, stop := context.WithCancel(ctx)
	defer stop()
	sub := sess.Subscribe()
	defer sub.Close()
	requests := make(chan *client.Request)
	go func() {
		for e := range sub.All(rctx) {
			if re, ok := e.(*client.RequestEvent); ok && !re.Settled && re.Request.RelatedTask == id {
				select {
				case requests <- re.Request:
				case <-rctx.Done():
					return
				}
			}
		}
	}()
	go func() {
		res, err := sess.TaskResult(rctx, id)
		results <- outcome{res, err}
	}()

	timer := time.NewTimer(interval(st))
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case r := <-requests:
			err := p.event("input", &st, func(ev *taskview.Event) {
				ev.Input = &taskview.Input{Method: r.Method}
				if r.Elicitation != nil {
					ev.Input.Message = r.Elicitation.Message
				}
			})
			if err != nil {
				return err
			}
		case <-timer.C:
			got, err := sess.GetTask(ctx, id)
			polls++
			switch {
			case errors.Is(err, jsonrpc.ErrInvalidParams):
				return p.gone(st)
			case err != nil && ctx.Err() != nil:
				return ctx.Err()
			case err != nil:
				return err
			}
			if changed(st, got) || p.live != nil {
				st = got
				if err := p.status(st, polls); err != nil {
					return err
				}
			}
			timer.Reset(interval(st))
		case o := <-results:
			if ctx.Err() != nil {
				return ctx.Err()
			}
			// The final state, for the last status line and the exit code.
			if got, err := sess.GetTask(ctx, id); err == nil {
				polls++
				if changed(st, got) {
					st = got
					if err := p.status(st, polls); err != nil {
						return err
					}
				}
			} else if errors.Is(err, jsonrpc.ErrInvalidParams) && o.err != nil {
				return p.gone(st)
			}
			return p.finish(ctx, sess, st, polls, o.res, o.err)
		}
	}
}

func (p *printer) gone(st mcp.Task) error {
	if p.live != nil {
		p.live.Stop(true)
	}
	err := &cmdutil.TaskError{ID: st.TaskID, Reason: cmdutil.TaskGone}
	if e := p.event("gone", &st, func(ev *taskview.Event) { ev.Error = &taskview.Error{Message: err.Error()} }); e != nil {
		return e
	}
	return err
}

// finish shows the outcome and returns the error that gives the exit code.
func (p *printer) finish(ctx context.Context, sess *client.Session, st mcp.Task, polls int, res *mcp.CallToolResult, err error) error {
	opts := p.opts
	if p.live != nil {
		p.live.Stop(false)
		elapsed := time.Duration(0)
		if c, perr := mcp.ParseTime(st.CreatedAt); perr == nil {
			elapsed = opts.Now().Sub(c)
		}
		fmt.Fprintln(opts.IO.Out, taskview.Line{ID: st.TaskID, Status: st.Status, Message: st.StatusMessage, Elapsed: elapsed, Polls: polls})
	}
	if err != nil {
		if e := p.event("error", &st, func(ev *taskview.Event) { ev.Error = taskview.ErrorOf(err) }); e != nil {
			return e
		}
	} else if e := p.event("result", &st, func(ev *taskview.Event) { ev.Result = res }); e != nil {
		return e
	}
	if opts.InputRefused != nil {
		var rpc *jsonrpc.Error
		if refused := opts.InputRefused(); refused != nil && (errors.As(err, &rpc) || (err == nil && res.IsError)) {
			return refused
		}
	}
	switch {
	case err != nil:
		return shared.OutcomeErr(ctx, &opts.Options, sess, st.TaskID, err)
	case st.Status == mcp.TaskStatusCancelled:
		return &cmdutil.TaskError{ID: st.TaskID, Reason: cmdutil.TaskCancelled}
	case res.IsError || st.Status == mcp.TaskStatusFailed:
		return &cmdutil.TaskError{ID: st.TaskID, Reason: cmdutil.TaskFailed, Message: st.StatusMessage}
	}
	return nil
}

// watchAll follows every task the server lists until all have ended.
func watchAll(ctx context.Context, opts *Options, sess *client.Session) error {
	if err := shared.NeedList(sess); err != nil {
		return err
	}
	p := &printer{opts: opts, withID: true}
	if opts.JSON {
		p.out = taskview.NewJSONWriter(opts.IO.Out)
	}
	known := map[string]mcp.Task{}
	timer := time.NewTimer(0)
	defer timer.Stop()
	for first := true; ; first = false {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
		}
		var list []mcp.Task
		for t, err := range sess.ServerTasks(ctx) {
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				return err
			}
			list = append(list, t)
		}
		if first && len(list) == 0 {
			if !opts.JSON {
				fmt.Fprintln(opts.IO.ErrOut, "No tasks. (A server lists the tasks of the current session only.)")
			}
			return nil
		}
		seen := map[string]bool{}
		next := DefaultInterval
		running := 0
		for _, t := range list {
			seen[t.TaskID] = true
			if old, ok := known[t.TaskID]; !ok || changed(old, t) {
				known[t.TaskID] = t
				if err := p.status(t, 0); err != nil {
					return err
				}
			}
			if !t.Status.IsTerminal() {
				if running == 0 {
					next = interval(t)
				}
				next = min(next, interval(t))
				running++
			}
		}
		for id, t := range known {
			if !seen[id] {
				delete(known, id)
				if p.out != nil {
					if err := p.event("gone", &t, func(ev *taskview.Event) {
						ev.Error = &taskview.Error{Message: (&cmdutil.TaskError{ID: id, Reason: cmdutil.TaskGone}).Error()}
					}); err != nil {
						return err
					}
				} else {
					fmt.Fprintf(opts.IO.Out, "%s  %s  gone (expired or deleted)\n", opts.Now().Format("15:04:05"), id)
				}
			}
		}
		if running == 0 {
			return nil
		}
		timer.Reset(next)
	}
}
