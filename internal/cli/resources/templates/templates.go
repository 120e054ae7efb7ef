// Package templates implements "mcpi resources templates".
package templates

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/iostreams"
	"github.com/mcpi-dev/mcpi/mcp"
)

// Options are the inputs of "resources templates".
type Options struct {
	IO      *iostreams.IOStreams
	Connect cmdutil.ConnectFunc
	JSON    bool
}

// NewCmd returns the command; runF replaces [Run] in tests of the flag handling.
func NewCmd(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{IO: f.IOStreams, Connect: f.Connect}
	cmd := &cobra.Command{
		Use:   "templates",
		Short: "List the server's resource templates",
		Args:  cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return Run(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, `print {"resourceTemplates":[...]} as JSON`)
	return cmd
}

// Run lists the resource templates.
func Run(ctx context.Context, opts *Options) error {
	sess, err := opts.Connect(ctx, cmdutil.RequestPolicy{})
	if err != nil {
		return err
	}
	defer sess.Close()
	if err := cmdutil.NeedResources(sess.Session); err != nil {
		return err
	}
	items, stopped := cmdutil.Collect(sess.ResourceTemplates(ctx, nil))
	if stopped != nil && !cmdutil.ListingStopped(stopped) {
		return stopped
	}
	res := mcp.ListResourceTemplatesResult{ResourceTemplates: items}
	if opts.JSON {
		return cmdutil.Listed(cmdutil.PrintJSON(opts.IO.Out, res), stopped)
	}
	tw := cmdutil.NewTable(opts.IO.Out, opts.IO.TerminalWidth(), "URI TEMPLATE", "NAME", "MIME TYPE", "DESCRIPTION")
	for _, t := range res.ResourceTemplates {
		tw.Row(t.URITemplate, t.Name, cmdutil.OrDash(t.MimeType), cmdutil.OrDash(cmdutil.FirstLine(t.Description)))
	}
	return cmdutil.Listed(tw.Flush(), stopped)
}
