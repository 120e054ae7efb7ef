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
	items, err := cmdutil.Collect(sess.Resources(ctx, nil))
	if err != nil {
		return err
	}
	res := mcp.ListResourcesResult{Resources: items}
	if opts.JSON {
		return cmdutil.PrintJSON(opts.IO.Out, res)
	}
	tw := cmdutil.NewTable(opts.IO.Out, opts.IO.TerminalWidth(), "URI", "NAME", "MIME TYPE", "DESCRIPTION")
	for _, r := range res.Resources {
		tw.Row(r.URI, r.Name, cmdutil.OrDash(r.MimeType), cmdutil.OrDash(cmdutil.FirstLine(r.Description)))
	}
	return tw.Flush()
}
