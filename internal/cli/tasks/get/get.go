// Package get implements "mcpi tasks get".
package get

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/tasks/shared"
)

// Options are the inputs of "tasks get".
type Options struct {
	shared.Options
	ID string
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// NewCmd returns the command; runF replaces [Run] in tests of the flag handling.
func NewCmd(f *cmdutil.Factory, sel *connect.Selection, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{Options: shared.NewOptions(f, sel)}
	cmd := &cobra.Command{
		Use:   "get ID",
		Short: "Show a task's status",
		Long: `Show a task's status (tasks/get). With --json: the MCP Task (taskId, status,
statusMessage, createdAt, lastUpdatedAt, ttl, pollInterval).

Without server flags, a task recorded in the local state file is looked up on the
server it was started on.

Exit status: 0 when the server knows the task (whatever its status), 1 when it
does not, 2 on bad usage or a connection failure.`,
		Example: `  mcpi tasks get 5c1e...`,
		Args:    cmdutil.ExactArgs(1, "a task id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return Run(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the task as JSON")
	return cmd
}

// Run shows the task.
func Run(ctx context.Context, opts *Options) error {
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	entry, found, err := opts.Resolve(opts.ID)
	if err != nil {
		return err
	}
	sess, err := opts.Connect(ctx, cmdutil.RequestPolicy{})
	if err != nil {
		return err
	}
	defer sess.Close()
	t, err := sess.GetTask(ctx, opts.ID)
	if err != nil {
		return opts.TaskErr(err, opts.ID)
	}
	if opts.JSON {
		return cmdutil.PrintJSON(opts.IO.Out, t)
	}
	if found {
		shared.PrintTask(opts.IO.Out, t, &entry, now())
	} else {
		shared.PrintTask(opts.IO.Out, t, nil, now())
	}
	return nil
}
