// Package logout implements "mcpi auth logout".
package logout

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/iostreams"
	"github.com/mcpi-dev/mcpi/internal/look"
)

// Options are the inputs of "auth logout".
type Options struct {
	IO        *iostreams.IOStreams
	Selection *connect.Selection
}

// NewCmd returns the command; runF replaces [Run] in tests of the flag handling.
func NewCmd(f *cmdutil.Factory, sel *connect.Selection, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{IO: f.IOStreams, Selection: sel}
	cmd := &cobra.Command{
		Use:   "logout --url URL",
		Short: "Forget the OAuth login of a server: its tokens and client registration",
		Long: `Forget what mcpi keeps for the server --url (or --config and --server) names:
its tokens and the client registration they were issued to. The next command
against it logs in again. Nothing is sent to the server or its authorization
server.`,
		Example: `  mcpi auth logout --url https://mcp.example.com/mcp`,
		Args:    cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return Run(cmd.Context(), opts)
		},
	}
	return cmd
}

// Run logs out.
func Run(ctx context.Context, opts *Options) error {
	if !opts.Selection.IsSet() {
		return cmdutil.UsageErrorf(`name the server to log out of with --url (or --config and --server); "mcpi auth status" lists them`)
	}
	t, err := opts.Selection.FlowTarget()
	if err != nil {
		return err
	}
	rec, err := t.Flow.Record(ctx)
	if err != nil {
		// A damaged record is forgotten all the same: that is the way out of it.
		rec = nil
	}
	if err := t.Flow.Logout(ctx); err != nil {
		return err
	}
	server := look.Safe(cmdutil.RedactURL(t.Flow.Server()))
	if rec == nil && err == nil {
		fmt.Fprintf(opts.IO.Out, "not logged in to %s; nothing to forget\n", server)
		return nil
	}
	fmt.Fprintf(opts.IO.Out, "logged out of %s\n", server)
	return nil
}
