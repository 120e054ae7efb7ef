// Package tui implements "mcpi tui": the terminal inspector, on the selected server.
package tui

import (
	"context"
	"sync/atomic"
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
	// Browser opens the authorization page of a login; nil opens none (the URL is
	// shown all the same).
	Browser func(url string) error
}

// NewCmd returns the command.
func NewCmd(f *cmdutil.Factory, sel *connect.Selection) *cobra.Command {
	opts := &Options{IO: f.IOStreams, Sel: sel, Browser: func(u string) error { return f.Browser(u) }}
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
	// A login is shown on the terminal, as any command shows it, before the UI starts;
	// once the UI has the terminal (a reconnection, a token to renew or more scope to
	// ask for), on the UI's screen, with the browser opened unless --no-browser.
	var inUI atomic.Bool
	line := cmdutil.ShowLogin(opts.IO, opts.Sel.Auth.NoBrowser, opts.browser)
	logins := make(chan string, 1)
	sel := *opts.Sel
	sel.Auth.Show = func(login context.Context, server, authURL string) error {
		if !inUI.Load() {
			return line(login, server, authURL)
		}
		select {
		case logins <- authURL:
		case <-login.Done():
			return context.Cause(login)
		}
		// login ends with the login: the screen is put away then.
		go func() {
			<-login.Done()
			select {
			case logins <- "":
			case <-ctx.Done():
			}
		}()
		if !sel.Auth.NoBrowser {
			_ = opts.browser(authURL) // the screen shows the URL for a browser that does not open
		}
		return nil
	}
	// The TUI's own client options: no OnRequest, so server requests reach its
	// Requests view instead of the CLI's line prompt.
	sess, err := sel.Connect(ctx, tui.ClientOptions())
	if err != nil {
		return err
	}
	defer sess.Close()
	inUI.Store(true)
	connectTUI := func(ctx context.Context) (*client.Session, error) {
		return sel.Connect(ctx, tui.ClientOptions())
	}
	return tui.Run(ctx, sess, tui.Options{
		In: opts.IO.In, Out: opts.IO.Out,
		Server:    target.Name,
		Transport: look.TransportName(target.Transport),
		Reconnect: connectTUI,
		Logins:    logins,
		TaskTTL:   opts.TaskTTL,
	})
}

// browser opens url with Options.Browser, if any.
func (opts *Options) browser(url string) error {
	if opts.Browser == nil {
		return nil
	}
	return opts.Browser(url)
}
