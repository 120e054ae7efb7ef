// Package login implements "mcpi auth login".
package login

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpi-dev/mcpi/internal/cli/auth/status"
	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/iostreams"
	"github.com/mcpi-dev/mcpi/internal/look"
)

// Options are the inputs of "auth login".
type Options struct {
	IO        *iostreams.IOStreams
	Selection *connect.Selection
	// Browser opens the authorization page.
	Browser func(url string) error
}

// NewCmd returns the command; runF replaces [Run] in tests of the flag handling.
func NewCmd(f *cmdutil.Factory, sel *connect.Selection, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{IO: f.IOStreams, Selection: sel, Browser: func(u string) error { return f.Browser(u) }}
	cmd := &cobra.Command{
		Use:   "login --url URL",
		Short: "Log in to an HTTP server that asks for OAuth",
		Long: `Log in to the server --url (or --config and --server) names, now, even if a
token is stored: the browser opens at the authorization server's page (or, with
--no-browser, its URL is printed on stderr), and mcpi takes the answer on a
loopback address. The new token replaces the stored one once it is obtained.
With --client-id, --client-secret and --client-credentials, the client logs in
on its own, with no browser.

A server that answers without a token and publishes no OAuth metadata needs no
login: the command says so and exits 0.`,
		Example: `  mcpi auth login --url https://mcp.example.com/mcp
  mcpi auth login --url https://mcp.example.com/mcp --no-browser`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return Run(cmd.Context(), opts)
		},
	}
	return cmd
}

// Run logs in.
func Run(ctx context.Context, opts *Options) error {
	if !opts.Selection.IsSet() {
		return cmdutil.UsageErrorf("name the server to log in to with --url (or --config and --server)")
	}
	sel := *opts.Selection
	sel.Auth.Show = cmdutil.ShowLogin(opts.IO, sel.Auth.NoBrowser, opts.Browser)
	t, err := sel.Login(ctx)
	if errors.Is(err, connect.ErrNoLoginNeeded) {
		// As logout of a server it is not logged in to: nothing to do is no failure.
		fmt.Fprintf(opts.IO.Out, "the server at %s answers without a token and publishes no OAuth metadata: it needs no login, so there is nothing to do\n", look.Safe(cmdutil.RedactURL(t.URL)))
		return nil
	}
	if err != nil {
		if t == nil {
			return err
		}
		if ctx.Err() != nil {
			// Ctrl-C, or SIGTERM: the cause names the signal, which says nothing more.
			err = fmt.Errorf("%w: %w", context.Canceled, err)
		}
		return &cmdutil.ConnectError{Target: t.Name, Login: true, Err: err}
	}
	rec, err := t.Flow.Record(ctx)
	if err != nil {
		return err
	}
	e := status.NewEntry(t.Flow.Server(), rec, time.Now())
	detail := []string{"issuer " + e.Issuer}
	if len(e.Scopes) > 0 {
		detail = append(detail, "scopes "+strings.Join(e.Scopes, " "))
	}
	if e.Expiry != nil {
		detail = append(detail, "expires "+status.Expires(e, time.Now()))
	}
	fmt.Fprintf(opts.IO.Out, "logged in to %s (%s)\n", look.Safe(e.Server), look.Safe(strings.Join(detail, "; ")))
	return nil
}
