// Package web implements "mcpi web": the web inspector, served on loopback, on the
// selected server and any the page connects to.
package web

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/cli/browser"
	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/iostreams"
	"github.com/mcpi-dev/mcpi/internal/look"
	"github.com/mcpi-dev/mcpi/internal/web"
)

// Options are the inputs of "web".
type Options struct {
	IO  *iostreams.IOStreams
	Sel *connect.Selection
	// Listen is the address to serve on; AllowRemote lets it be other than loopback.
	Listen      string
	AllowRemote bool
	NoOpen      bool
	TaskTTL     time.Duration
	// Ready, when set, is called with the page's URL once the server listens (tests).
	Ready func(url string)
	// Open opens a URL in the system browser; nil means the platform's opener.
	Open func(url string) error
}

// NewCmd returns the command.
func NewCmd(f *cmdutil.Factory, sel *connect.Selection) *cobra.Command {
	opts := &Options{IO: f.IOStreams, Sel: sel}
	cmd := &cobra.Command{
		Use:   "web",
		Short: "Open the web inspector in the browser: tools, tasks, server requests, resources, prompts, log",
		Long: `Serve the web inspector on this machine and open it in the system browser, on the
selected server (the embedded demo server when none is named); the page connects to
more servers, one tab each. It prints the page's URL, which carries a fresh token:
every request must carry it (a cookie after the first load), and requests from other
origins or under other host names are refused. It runs until Ctrl-C.

--listen takes an address on loopback; another address needs --allow-remote, as
anyone who reaches the page with its token can start processes on this machine.`,
		Example: `  mcpi web
  mcpi web --stdio "npx -y @modelcontextprotocol/server-everything"
  mcpi web --url http://127.0.0.1:8080/mcp --listen 127.0.0.1:7000 --no-open`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return Run(cmd.Context(), opts) },
	}
	cmd.Flags().StringVar(&opts.Listen, "listen", "127.0.0.1:0", "serve on `ADDR` (port 0: any free port)")
	cmd.Flags().BoolVar(&opts.AllowRemote, "allow-remote", false, "allow --listen on an address other than loopback")
	cmd.Flags().BoolVar(&opts.NoOpen, "no-open", false, "print the URL without opening the browser")
	cmd.Flags().DurationVar(&opts.TaskTTL, "task-ttl", look.DefaultTaskTTL, "the `TTL` the page offers for task calls")
	return cmd
}

// Run serves the page until ctx ends.
func Run(ctx context.Context, opts *Options) error {
	host, _, err := net.SplitHostPort(opts.Listen)
	if err != nil {
		return cmdutil.UsageErrorf("--listen %s: give HOST:PORT, such as 127.0.0.1:7000", opts.Listen)
	}
	loopback := strings.EqualFold(host, "localhost")
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		loopback = true
	}
	if !loopback && !opts.AllowRemote {
		return cmdutil.UsageErrorf("--listen %s is not a loopback address: anyone who reaches the page with its token can start processes here; add --allow-remote if you mean it", opts.Listen)
	}
	if _, err := opts.Sel.Resolve(); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", opts.Listen)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", opts.Listen, err)
	}
	var hosts []string
	if !loopback {
		fmt.Fprintf(opts.IO.ErrOut, "warning: serving the web inspector on %s, beyond this machine; keep its URL secret\n", look.Safe(ln.Addr().String()))
		hosts = append(hosts, host)
	}
	srv := web.New(web.Options{Dial: dialer(opts.Sel), Hosts: hosts, TaskTTL: opts.TaskTTL})
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	serveErr := make(chan error, 1)
	go func() { serveErr <- hs.Serve(ln) }()
	defer func() {
		// The sessions and the page's event streams end first: Shutdown waits for the
		// requests in flight, and an event stream is one until it ends.
		srv.Close()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = hs.Shutdown(sctx)
	}()

	url := fmt.Sprintf("http://%s/?token=%s", ln.Addr().String(), srv.Token())
	fmt.Fprintf(opts.IO.Out, "mcpi web: %s\n", url)
	// The first tab: the selected server. Its failure shows on the page, which can
	// connect elsewhere. Run waits for it before it returns (it writes on ErrOut), and
	// ends it first: it may be waiting minutes for a login.
	fctx, stopFirst := context.WithCancel(ctx)
	firstDone := make(chan struct{})
	go func() {
		defer close(firstDone)
		if _, err := srv.Open(fctx, target(opts.Sel)); err != nil && fctx.Err() == nil {
			fmt.Fprintf(opts.IO.ErrOut, "mcpi web: %s\n", look.Sentence(err))
		}
	}()
	defer func() {
		stopFirst()
		<-firstDone
	}()
	if opts.Ready != nil {
		opts.Ready(url)
	}
	if !opts.NoOpen {
		open := opts.Open
		if open == nil {
			open = browser.Open
		}
		if err := open(url); err != nil {
			fmt.Fprintf(opts.IO.ErrOut, "could not open a browser (%s); open the URL above\n", look.Sentence(err))
		}
	}
	select {
	case <-ctx.Done():
		return nil
	case err := <-serveErr:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return err
	}
}

// target is the selection from the command's flags, as the page names servers.
func target(sel *connect.Selection) web.Target {
	return web.Target{Stdio: sel.Stdio, URL: sel.URL, Headers: sel.Headers, Config: sel.Config, Server: sel.Server, Protocol: sel.Protocol}
}

// dialer opens the page's sessions with the command's limits, era memory and token
// store. A login shows on the tab, as a link the user opens: the page is the UI, so no
// browser window is opened for it.
func dialer(base *connect.Selection) web.Dialer {
	return func(ctx context.Context, t web.Target, opts *client.Options, login web.LoginFunc) (*client.Session, web.Dialed, error) {
		sel := *base
		sel.Stdio, sel.URL, sel.Headers, sel.Config, sel.Server, sel.Protocol = t.Stdio, t.URL, t.Headers, t.Config, t.Server, t.Protocol
		// --env and --cwd belong to the command's own server, and so do a client's
		// credentials.
		if t.Stdio != base.Stdio || t.Config != base.Config || t.Server != base.Server {
			sel.Env, sel.Cwd = nil, ""
		}
		if t.URL != base.URL || t.Config != base.Config || t.Server != base.Server {
			sel.Auth.ClientID, sel.Auth.ClientSecret, sel.Auth.ClientCredentials = "", "", false
		}
		sel.Auth.Show = func(ctx context.Context, _, authURL string) error {
			login(ctx, authURL)
			return nil
		}
		resolved, err := sel.Resolve()
		if err != nil {
			return nil, web.Dialed{}, described{err}
		}
		sess, err := sel.Connect(ctx, opts)
		if err != nil {
			return nil, web.Dialed{}, described{err}
		}
		return sess, web.Dialed{Name: resolved.Name, Transport: look.TransportName(resolved.Transport)}, nil
	}
}

// described is an error of connecting, worded for the page as the CLI words it ("nothing
// is listening at URL", "the server command "x" was not found"), not as the library's
// chain of causes reads.
type described struct{ err error }

func (d described) Error() string { return d.err.Error() }
func (d described) Unwrap() error { return d.err }

// Sentence is the CLI's sentence for the error.
func (d described) Sentence() string {
	s, _ := cmdutil.Describe(d.err)
	return s
}
