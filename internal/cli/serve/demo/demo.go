// Package demo implements "mcpi serve demo".
package demo

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/iostreams"
	"github.com/mcpi-dev/mcpi/internal/cli/serve/shared"
)

// Options are the inputs of "serve demo".
type Options struct {
	IO *iostreams.IOStreams
	// HTTP is the address to serve Streamable HTTP on; empty means stdio.
	HTTP string
}

// NewCmd returns the command; runF replaces [Run] in tests of the flag handling.
func NewCmd(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{IO: f.IOStreams}
	cmd := &cobra.Command{
		Use:   "demo [--http ADDR]",
		Short: "Serve the demo server",
		Long: `Serve the demo server (the one mcpi talks to when no server is named): over
stdio by default, or over Streamable HTTP at http://ADDR/mcp with --http.
An --http address without a host ("8080" or ":8080") listens on 127.0.0.1 only.`,
		Example: `  mcpi tools list --stdio "mcpi serve demo"
  mcpi serve demo --http 127.0.0.1:8080`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return Run(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.HTTP, "http", "", "serve Streamable HTTP at `ADDR` (HOST:PORT or PORT) instead of stdio")
	return cmd
}

// Run serves the demo server.
func Run(ctx context.Context, opts *Options) error {
	return shared.Serve(ctx, opts.IO, demo.New(nil), opts.HTTP, "demo")
}
