// Package demo implements "mcpi serve demo".
package demo

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/iostreams"
	"github.com/mcpi-dev/mcpi/internal/cli/serve/shared"
)

// Options are the inputs of "serve demo".
type Options struct {
	IO *iostreams.IOStreams
	// HTTP says whether and how to serve Streamable HTTP; its empty address means stdio.
	HTTP shared.HTTPFlags
	// Files is the directory side_effect_task creates its files in; empty means a fresh
	// temporary directory, removed when the server ends.
	Files string
	// Legacy serves revision 2025-11-25 only; by default 2026-07-28 is served too.
	Legacy bool
}

// NewCmd returns the command; runF replaces [Run] in tests of the flag handling.
func NewCmd(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{IO: f.IOStreams}
	cmd := &cobra.Command{
		Use:   "demo [--http ADDR]",
		Short: "Serve the demo server",
		Long: `Serve the demo server (the one mcpi talks to when no server is named): over
stdio by default, or over Streamable HTTP at http://ADDR/mcp with --http.
It speaks both protocol revisions, 2025-11-25 and 2026-07-28 (with the Tasks
extension), on one endpoint; --legacy limits it to 2025-11-25.
An --http address without a host ("8080" or ":8080") listens on 127.0.0.1 only.
Browsers may call the server only from its own origin unless --allow-origin names
others, and the Host header must name this machine unless --allow-host adds names.
side_effect_task creates its files in --files DIR, or in a temporary directory
removed when the server ends.`,
		Example: `  mcpi tools list --stdio "mcpi serve demo"
  mcpi serve demo --http 127.0.0.1:8080
  mcpi serve demo --legacy --http 127.0.0.1:8080
  mcpi serve demo --http 0.0.0.0:8080 --allow-host mcp.example.com --files ./effects`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return Run(cmd.Context(), opts)
		},
	}
	opts.HTTP.Register(cmd.Flags())
	cmd.Flags().StringVar(&opts.Files, "files", "", "create side_effect_task's files in `DIR` (default: a temporary directory, removed at exit)")
	cmd.Flags().BoolVar(&opts.Legacy, "legacy", false, "serve revision 2025-11-25 only (2026-07-28 requests are refused with the versions supported)")
	return cmd
}

// Run serves the demo server.
func Run(ctx context.Context, opts *Options) error {
	dir := opts.Files
	if dir == "" {
		tmp, err := os.MkdirTemp("", "mcpi-demo-files-")
		if err != nil {
			return fmt.Errorf("making a directory for side_effect_task: %w", err)
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return cmdutil.UsageErrorf("--files %s: %s", dir, err)
	}
	return shared.Serve(ctx, opts.IO, demo.New(&demo.Options{SideEffectDir: dir, Legacy: opts.Legacy}), &opts.HTTP, "demo",
		"side_effect_task creates its files in "+dir)
}
