// Package read implements "mcpi resources read".
package read

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/iostreams"
	"github.com/mcpi-dev/mcpi/internal/cli/render"
	"github.com/mcpi-dev/mcpi/mcp"
)

// Options are the inputs of "resources read".
type Options struct {
	IO      *iostreams.IOStreams
	Connect cmdutil.ConnectFunc
	URI     string
	JSON    bool
	// Answers is the --answers file.
	Answers string
}

// NewCmd returns the command; runF replaces [Run] in tests of the flag handling.
func NewCmd(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{IO: f.IOStreams, Connect: f.Connect}
	cmd := &cobra.Command{
		Use:   "read URI",
		Short: "Read a resource",
		Long: "Read a resource and print its contents. Binary contents are written as they\n" +
			"are when stdout is not a terminal.",
		Args: cmdutil.ExactArgs(1, "the URI of a resource"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.URI = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return Run(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the ReadResourceResult as JSON")
	cmdutil.AnswersFlag(cmd, &opts.Answers)
	return cmd
}

// Run reads the resource.
func Run(ctx context.Context, opts *Options) error {
	sess, err := opts.Connect(ctx, cmdutil.RequestPolicy{Answers: opts.Answers, Tool: opts.URI, Kind: "resource"})
	if err != nil {
		return err
	}
	defer sess.Close()
	if err := cmdutil.NeedResources(sess.Session); err != nil {
		return err
	}
	res, err := sess.ReadResource(ctx, &mcp.ReadResourceParams{URI: opts.URI})
	refused := sess.RefusalAfter(err)
	if err != nil {
		if refused != nil {
			return refused
		}
		return err
	}
	if opts.JSON {
		err = cmdutil.PrintJSON(opts.IO.Out, res)
	} else {
		err = render.Resource(opts.IO, res)
	}
	if err != nil {
		return err
	}
	// The server went on without an answer mcpi could not give: its contents are
	// printed, and the exit status says that the input was missing.
	return refused
}
