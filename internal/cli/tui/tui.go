// Package tui implements "mcpi tui": the terminal inspector, on the selected server.
package tui

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/iostreams"
	"github.com/mcpi-dev/mcpi/internal/look"
	"github.com/mcpi-dev/mcpi/internal/tui"
)

// Options are the inputs of "tui".
type Options struct {
	IO      *iostreams.IOStreams
	Sel     *connect.Selection
	TaskTTL time.Duration // 0 means tui.DefaultTaskTTL
}

// NewCmd returns the command.
func NewCmd(f *cmdutil.Factory, sel *connect.Selection) *cobra.Command {
	opts := &Options{IO: f.IOStreams, Sel: sel}
	cmd := &cobra.Command{
		Use:   "tui",
		Short: "Open the terminal inspector: tools, tasks, server requests, resources, prompts, log",
		Long: `Open the terminal inspector on the selected server (the embedded demo server
when none is named). "mcpi" alone on a terminal does the same. Press ? for the keys.`,
		Example: `  mcpi tui
  mcpi tui --stdio "mcpi serve demo"
  mcpi tui --url http://127.0.0.1:8080/mcp`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return Run(cmd.Context(), opts) },
	}
	cmd.Flags().DurationVar(&opts.TaskTTL, "task-ttl", tui.DefaultTaskTTL, "the `TTL` the form offers for task calls")
	return cmd
}

// Run connects and runs the terminal UI until the user quits.
func Run(ctx context.Context, opts *Options) error {
	if !opts.IO.IsStdinTTY() || !opts.IO.IsStdoutTTY() {
		return cmdutil.UsageErrorf("mcpi tui needs a terminal: run it with stdin and stdout on a terminal")
	}
	target, err := opts.Sel.Resolve()
	if err != nil {
		return err
	}
	// The TUI's own client options: no OnRequest, so server requests reach its
	// Requests view instead of the CLI's line prompt.
	connectTUI := func(ctx context.Context) (*client.Session, error) {
		return opts.Sel.Connect(ctx, tui.ClientOptions())
	}
	sess, err := connectTUI(ctx)
	if err != nil {
		return err
	}
	defer sess.Close()
	return tui.Run(ctx, sess, tui.Options{
		In: opts.IO.In, Out: opts.IO.Out,
		Server:    target.Name,
		Transport: look.TransportName(target.Transport),
		Reconnect: connectTUI,
		TaskTTL:   opts.TaskTTL,
	})
}
