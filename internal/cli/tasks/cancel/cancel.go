// Package cancel implements "mcpi tasks cancel".
package cancel

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/tasks/shared"
	"github.com/mcpi-dev/mcpi/internal/look"
	"github.com/mcpi-dev/mcpi/jsonrpc"
)

// Options are the inputs of "tasks cancel".
type Options struct {
	shared.Options
	ID string
}

// NewCmd returns the command; runF replaces [Run] in tests of the flag handling.
func NewCmd(f *cmdutil.Factory, sel *connect.Selection, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{Options: shared.NewOptions(f, sel)}
	cmd := &cobra.Command{
		Use:   "cancel ID",
		Short: "Cancel a task",
		Long: `Cancel a task (tasks/cancel): the server sets it to cancelled before it answers
and stops its work. With --json: the cancelled MCP Task.

Without server flags, a task recorded in the local state file is cancelled on the
server it was started on, in the protocol version it was created in (unless
--protocol names one).

A 2025-11-25 server refuses (-32602) the cancel of a task that has ended as that
of one it does not know, and mcpi asks tasks/get which: a task the server no
longer knows is removed from the state file; when tasks/get fails, mcpi says so
and keeps the record.

Exit status: 0 when the task was cancelled, 1 when the server has no such task,
it had already ended, or the server refused the cancel, 2 on bad usage or a
connection failure.`,
		Args: cmdutil.TaskIDArgs(false),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return Run(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the cancelled task as JSON")
	return cmd
}

// Run cancels the task.
func Run(ctx context.Context, opts *Options) error {
	if _, _, err := opts.Resolve(opts.ID); err != nil {
		return err
	}
	// A question of the task's that comes to this session is left unanswered: refused,
	// it would fail the task before the cancel could cancel it.
	sess, err := opts.Open(ctx, cmdutil.RequestPolicy{Hold: true})
	if err != nil {
		return err
	}
	defer sess.Close()
	if err := shared.NeedCancel(sess.Session); err != nil {
		return err
	}
	if sess.Modern() {
		// The extension acknowledges a cancel of a task that has ended as of one that
		// has not: ask first, so that both eras say the same of a finished task.
		st, err := sess.GetTask(ctx, opts.ID)
		if err != nil {
			return opts.TaskErr(err, opts.ID)
		}
		if st.Status.IsTerminal() {
			return &cmdutil.TaskError{ID: opts.ID, Reason: cmdutil.TaskEnded, Status: string(st.Status)}
		}
	}
	t, err := sess.CancelTask(ctx, opts.ID)
	if errors.Is(err, jsonrpc.ErrInvalidParams) && t.TaskID != "" {
		// The spec gives -32602 for a task that has ended as for an unknown one: the
		// client asked tasks/get which, and gives the state of one the server has.
		if t.Status.IsTerminal() {
			return &cmdutil.TaskError{ID: opts.ID, Reason: cmdutil.TaskEnded, Status: string(t.Status)}
		}
		return err // refused, though the task has not ended: the server's error as it is
	}
	if err != nil {
		return opts.TaskErr(err, opts.ID)
	}
	if opts.JSON {
		return cmdutil.PrintJSON(opts.IO.Out, t)
	}
	msg := ""
	if t.StatusMessage != "" {
		msg = ": " + t.StatusMessage
	}
	fmt.Fprintln(opts.IO.Out, look.Safe(shared.StatusText(t.Status)+" "+t.TaskID+msg))
	return nil
}
