// Package get implements "mcpi tasks get".
package get

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/state"
	"github.com/mcpi-dev/mcpi/internal/cli/tasks/shared"
	"github.com/mcpi-dev/mcpi/internal/look"
	"github.com/mcpi-dev/mcpi/mcp"
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
statusMessage, createdAt, lastUpdatedAt, ttl, pollInterval); from a server of
protocol 2026-07-28, the Tasks extension's detailed task (ttlMs, pollIntervalMs, and
the result, error or inputRequests it inlines).

Without server flags, a task recorded in the local state file is looked up on the
server it was started on, in the protocol version it was created in (unless
--protocol names one).

Exit status: 0 when the server knows the task (whatever its status), 1 when it
does not, 2 on bad usage or a connection failure.`,
		Example: `  mcpi tasks get 5c1e...`,
		Args:    cmdutil.TaskIDArgs(false),
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
	// A question of the task's that comes to this session (a kept one, on its own
	// stream) is left for "tasks result", which can answer it: refused here, it would
	// fail the task.
	sess, err := opts.Open(ctx, cmdutil.RequestPolicy{Hold: true})
	if err != nil {
		return err
	}
	defer sess.Close()
	var e *state.Entry
	if found {
		e = &entry
	}
	if sess.Modern() {
		d, err := sess.TaskDetail(ctx, opts.ID)
		if err != nil {
			return opts.TaskErr(err, opts.ID)
		}
		if opts.JSON {
			return cmdutil.PrintJSON(opts.IO.Out, d)
		}
		shared.PrintTask(opts.IO.Out, d.ToTask(), e, now())
		printDetail(opts.IO.Out, d)
		return nil
	}
	t, err := sess.GetTask(ctx, opts.ID)
	if err != nil {
		return opts.TaskErr(err, opts.ID)
	}
	if opts.JSON {
		return cmdutil.PrintJSON(opts.IO.Out, t)
	}
	shared.PrintTask(opts.IO.Out, t, e, now())
	return nil
}

// printDetail adds what a task of the 2026-07-28 extension inlines: the input it waits
// for, or how it ended.
func printDetail(w io.Writer, d *mcp.DetailedTask) {
	fmt.Fprintf(w, "%-9s %s\n", "Dialect:", client.DialectExtension)
	for _, k := range slices.Sorted(maps.Keys(d.InputRequests)) {
		in := d.InputRequests[k]
		what := in.Method
		var p struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(in.Params, &p) == nil && p.Message != "" {
			what += ": " + cmdutil.FirstLine(p.Message)
		}
		fmt.Fprintf(w, "%-9s %s (%s)\n", "Waits:", look.Safe(k), look.Safe(what))
	}
	switch {
	case d.Error != nil:
		fmt.Fprintf(w, "%-9s %s (JSON-RPC error %d)\n", "Error:", look.Safe(d.Error.Message), d.Error.Code)
	case len(d.Result) > 0:
		fmt.Fprintf(w, "%-9s %s\n", "Result:", "inlined; \"mcpi tasks result "+look.Safe(d.TaskID)+"\" prints it")
	}
}
