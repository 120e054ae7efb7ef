// Package list implements "mcpi tasks list".
package list

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/state"
	"github.com/mcpi-dev/mcpi/internal/cli/tasks/shared"
	"github.com/mcpi-dev/mcpi/internal/look"
	"github.com/mcpi-dev/mcpi/mcp"
)

// Options are the inputs of "tasks list".
type Options struct {
	shared.Options
	// Local lists the local state file instead of asking the server.
	Local bool
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// LocalList is the --json output of "tasks list --local": the recorded tasks with their
// server's credentials redacted and no session id.
type LocalList struct {
	Tasks []state.Listed `json:"tasks"`
}

// NewCmd returns the command; runF replaces [Run] in tests of the flag handling.
func NewCmd(f *cmdutil.Factory, sel *connect.Selection, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{Options: shared.NewOptions(f, sel)}
	cmd := &cobra.Command{
		Use:   "list [--local]",
		Short: "List the server's tasks, or the ones mcpi left running",
		Long: `List the tasks the server has for this session (tasks/list, every page): ID,
STATUS, MESSAGE, CREATED and TTL. With --json: {"tasks":[TASK...]}, each TASK
with the fields of the MCP Task. The session is a new one, and a server that binds
tasks to their session (the TypeScript SDK's) lists only its tasks: stderr counts
the tasks mcpi recorded for the server with sessions of their own that the list
does not show, which --local lists and "mcpi tasks watch" follows.

--local lists the local state file instead, without asking any server: the tasks
mcpi left running (--detach, or Ctrl-C), with their tool, the protocol version
they were created in (the only one they can be reached in; "mcpi tasks result ID"
uses it) and server. With --json:
{"tasks":[{"taskId","tool","server":{flags},"created","ttl","protocol","session"}...]},
where the server's flags show the names of --header and --env values, not the
values ("Authorization=[redacted]"), nor the values of the URL's query
("?token=xxxxx"), and "session" is true when mcpi keeps the
session that created the task (its id stays in the state file).

In protocol 2026-07-28, whose Tasks extension has no tasks/list, the tasks mcpi
recorded for the server are listed instead, each as the server has it now
(tasks/get; the newest 200), in the same columns and JSON; those the server no
longer knows are forgotten, and those created in 2025-11-25 (reachable only in
it) left out; stderr counts both.`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Local && opts.Selection != nil && opts.Selection.IsSet() {
				return cmdutil.UsageErrorf("--local reads the local state file, so server flags do not apply")
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return Run(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the list as JSON")
	cmd.Flags().BoolVar(&opts.Local, "local", false, "list the tasks recorded in the local state file")
	return cmd
}

// Run lists the tasks.
func Run(ctx context.Context, opts *Options) error {
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	if opts.Local {
		return runLocal(opts, now())
	}
	sess, err := opts.Connect(ctx, cmdutil.RequestPolicy{})
	if err != nil {
		return err
	}
	defer sess.Close()
	var res mcp.ListTasksResult
	var stopped error // the listing's stop at a bound, said after what it listed
	if sess.Modern() {
		fmt.Fprintf(opts.IO.ErrOut, "The server speaks protocol %s, whose Tasks extension has no tasks/list; these are the tasks mcpi recorded for it, as the server has them now.\n", look.Safe(sess.ProtocolVersion()))
		rec, err := opts.RecordedTasks(ctx, sess)
		if err != nil {
			return err
		}
		rec.Report(opts.IO.ErrOut)
		res.Tasks = rec.Tasks
	} else {
		if err := shared.NeedList(sess.Session); err != nil {
			return err
		}
		items, err := cmdutil.Collect(sess.ServerTasks(ctx, nil))
		if err != nil && !cmdutil.ListingStopped(err) {
			return err
		}
		stopped = err
		res.Tasks = items
		if !opts.Embedded() {
			// This session is new: the tasks left running in sessions of their own,
			// which a server may bind them to, are listed only in those.
			listed := map[string]bool{}
			for _, t := range items {
				listed[t.TaskID] = true
			}
			n := 0
			for _, e := range opts.InOtherSessions(sess.ProtocolVersion()) {
				if !listed[e.TaskID] {
					n++
				}
			}
			shared.ReportUnlisted(opts.IO.ErrOut, n)
		}
	}
	if opts.JSON {
		if res.Tasks == nil {
			res.Tasks = []mcp.Task{}
		}
		return cmdutil.Listed(cmdutil.PrintJSON(opts.IO.Out, res), stopped)
	}
	if len(res.Tasks) == 0 {
		if sess.Modern() {
			fmt.Fprintln(opts.IO.ErrOut, `No tasks recorded for this server that it still has. ("mcpi tasks list --local" shows every task mcpi left running.)`)
			return nil
		}
		fmt.Fprintln(opts.IO.ErrOut, `No tasks. (A server lists the tasks of the current session only; "mcpi tasks list --local" shows the tasks mcpi left running.)`)
		return nil
	}
	tw := cmdutil.NewTable(opts.IO.Out, opts.IO.TerminalWidth(), "ID", "STATUS", "CREATED", "TTL", "MESSAGE")
	for _, t := range res.Tasks {
		tw.Row(t.TaskID, shared.StatusText(t.Status), shared.Created(t.CreatedAt), look.TTL(t.TTL), cmdutil.OrDash(t.StatusMessage))
	}
	return cmdutil.Listed(tw.Flush(), stopped)
}

func runLocal(opts *Options, now time.Time) error {
	return runLocalFiltered(opts, now, func(state.Entry) bool { return true })
}

// runLocalFiltered lists the recorded tasks that keep says to show.
func runLocalFiltered(opts *Options, now time.Time, keep func(state.Entry) bool) error {
	store, err := opts.Store()
	if err != nil {
		return err
	}
	all, err := store.Load()
	if err != nil {
		return err
	}
	var entries []state.Entry
	for _, e := range all {
		if keep(e) {
			entries = append(entries, e)
		}
	}
	if opts.JSON {
		l := LocalList{Tasks: []state.Listed{}}
		for _, e := range entries {
			l.Tasks = append(l.Tasks, e.Listed())
		}
		return cmdutil.PrintJSON(opts.IO.Out, l)
	}
	if len(entries) == 0 {
		fmt.Fprintf(opts.IO.ErrOut, "No tasks recorded in %s.\n", store.Path)
		return nil
	}
	tw := cmdutil.NewTable(opts.IO.Out, opts.IO.TerminalWidth(), "ID", "TOOL", "CREATED", "EXPIRES", "PROTOCOL", "SERVER")
	for _, e := range entries {
		expires := "never"
		if at, ok := e.Expires(); ok {
			expires = "in " + look.Duration(at.Sub(now).Round(time.Second))
			if !at.After(now) {
				expires = "expired" // kept for MinKeep all the same
			}
		}
		tw.Row(e.TaskID, cmdutil.OrDash(e.Tool), e.Created.Local().Format("2006-01-02 15:04:05"), expires, cmdutil.OrDash(e.Protocol), e.Server.String())
	}
	return tw.Flush()
}
