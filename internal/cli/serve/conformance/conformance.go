// Package conformance implements "mcpi serve conformance".
package conformance

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/iostreams"
	"github.com/mcpi-dev/mcpi/internal/cli/serve/shared"
	"github.com/mcpi-dev/mcpi/internal/conformance"
)

// Options are the inputs of "serve conformance".
type Options struct {
	IO *iostreams.IOStreams
	// HTTP says whether and how to serve Streamable HTTP; its empty address means stdio.
	HTTP shared.HTTPFlags
}

// NewCmd returns the command; runF replaces [Run] in tests of the flag handling.
func NewCmd(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{IO: f.IOStreams}
	cmd := &cobra.Command{
		Use:   "conformance [--http ADDR]",
		Short: "Serve the server the official MCP conformance suite tests",
		Long: `Serve the conformance server over Streamable HTTP at http://ADDR/mcp (or over
stdio without --http), for the official MCP conformance suite.`,
		Example: `  mcpi serve conformance --http 127.0.0.1:3001`,
		Args:    cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return Run(cmd.Context(), opts)
		},
	}
	opts.HTTP.Register(cmd.Flags())
	return cmd
}

// Run serves the conformance server.
func Run(ctx context.Context, opts *Options) error {
	return shared.Serve(ctx, opts.IO, conformance.NewServer(), &opts.HTTP, "conformance")
}
