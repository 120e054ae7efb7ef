// Package list implements "mcpi resources list".
package list

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/iostreams"
	"github.com/mcpi-dev/mcpi/mcp"
)

// Options are the inputs of "resources list".
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
		Short: "List the server's resources",
		Args:  cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return Run(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, `print {"resources":[...]} as JSON`)
	return cmd
}

// Run lists the resources.
func Run(ctx context.Context, opts *Options) error {
	sess, err := opts.Connect(ctx, cmdutil.RequestPolicy{})
	if err != nil {
		return err
	}
	defer sess.Close()
	if err := cmdutil.NeedResources(sess.Session); err != nil {
		return err
	}
	items, stopped := cmdutil.Collect(sess.Resources(ctx, nil))
	if stopped != nil && !cmdutil.ListingStopped(stopped) {
		return stopped
	}
	res := mcp.ListResourcesResult{Resources: items}
	if opts.JSON {
		return cmdutil.Listed(cmdutil.PrintJSON(opts.IO.Out, res), stopped)
	}
	tw := cmdutil.NewTable(opts.IO.Out, opts.IO.TerminalWidth(), "URI", "NAME", "MIME TYPE", "DESCRIPTION")
	for _, r := range res.Resources {
		tw.Row(r.URI, r.Name, cmdutil.OrDash(r.MimeType), cmdutil.OrDash(cmdutil.FirstLine(r.Description)))
	}
	return cmdutil.Listed(tw.Flush(), stopped)
}
