// Package list implements "mcpi prompts list".
package list

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/iostreams"
	"github.com/mcpi-dev/mcpi/mcp"
)

// Options are the inputs of "prompts list".
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
		Short: "List the server's prompts",
		Args:  cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return Run(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, `print {"prompts":[...]} as JSON`)
	return cmd
}

// Run lists the prompts.
func Run(ctx context.Context, opts *Options) error {
	sess, err := opts.Connect(ctx, cmdutil.RequestPolicy{})
	if err != nil {
		return err
	}
	defer sess.Close()
	if err := cmdutil.NeedPrompts(sess.Session); err != nil {
		return err
	}
	items, stopped := cmdutil.Collect(sess.Prompts(ctx, nil))
	if stopped != nil && !cmdutil.ListingStopped(stopped) {
		return stopped
	}
	res := mcp.ListPromptsResult{Prompts: items}
	if opts.JSON {
		return cmdutil.Listed(cmdutil.PrintJSON(opts.IO.Out, res), stopped)
	}
	tw := cmdutil.NewTable(opts.IO.Out, opts.IO.TerminalWidth(), "NAME", "ARGUMENTS", "DESCRIPTION")
	for _, p := range res.Prompts {
		var args []string
		for _, a := range p.Arguments {
			if a.Required {
				args = append(args, a.Name)
			} else {
				args = append(args, a.Name+"?")
			}
		}
		tw.Row(p.Name, cmdutil.OrDash(strings.Join(args, ", ")), cmdutil.OrDash(cmdutil.FirstLine(p.Description)))
	}
	return cmdutil.Listed(tw.Flush(), stopped)
}
