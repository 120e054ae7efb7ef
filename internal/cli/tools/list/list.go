// Package list implements "mcpi tools list".
package list

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/iostreams"
	"github.com/mcpi-dev/mcpi/internal/look"
	"github.com/mcpi-dev/mcpi/mcp"
)

// Options are the inputs of "tools list".
type Options struct {
	IO      *iostreams.IOStreams
	Connect cmdutil.ConnectFunc
	JSON    bool
}

// NewCmd returns the command; runF replaces [Run] in tests of the flag handling.
func NewCmd(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{IO: f.IOStreams, Connect: f.Connect}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the server's tools",
		Long: "List every tool the server offers (all pages), with its task support:\n" +
			"forbidden, optional or required. In protocol 2026-07-28 tools say nothing of\n" +
			"tasks (the server decides, call by call), so there is no such column.",
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return Run(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, `print {"tools":[...]} as JSON`)
	return cmd
}

// Run lists the tools.
func Run(ctx context.Context, opts *Options) error {
	sess, err := opts.Connect(ctx, cmdutil.RequestPolicy{})
	if err != nil {
		return err
	}
	defer sess.Close()
	items, stopped := cmdutil.Collect(sess.Tools(ctx, nil))
	if stopped != nil && !cmdutil.ListingStopped(stopped) {
		return stopped
	}
	res := mcp.ListToolsResult{Tools: items}
	if opts.JSON {
		return cmdutil.Listed(cmdutil.PrintJSON(opts.IO.Out, res), stopped)
	}
	if sess.Modern() {
		// In 2026-07-28 a tool says nothing of tasks (the server decides per call), so a
		// column would read the same on every row.
		tw := cmdutil.NewTable(opts.IO.Out, opts.IO.TerminalWidth(), "NAME", "DESCRIPTION")
		for _, t := range res.Tools {
			tw.Row(t.Name, cmdutil.OrDash(cmdutil.FirstLine(t.Description)))
		}
		return cmdutil.Listed(tw.Flush(), stopped)
	}
	tw := cmdutil.NewTable(opts.IO.Out, opts.IO.TerminalWidth(), "NAME", "TASK SUPPORT", "DESCRIPTION")
	for _, t := range res.Tools {
		tw.Row(t.Name, look.TaskSupport(&t, sess.Modern()), cmdutil.OrDash(cmdutil.FirstLine(t.Description)))
	}
	return cmdutil.Listed(tw.Flush(), stopped)
}
