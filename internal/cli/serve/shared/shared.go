// Package shared serves an MCP server for the "mcpi serve" commands: over stdio, or over
// Streamable HTTP at /mcp.
package shared

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/iostreams"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/transport"
)

// Path is where the Streamable HTTP endpoint is served.
const Path = "/mcp"

// Timeouts of the HTTP server, for connections rather than sessions: a client gets
// ReadTimeout to send a request (headers and body, up to the message size), and an idle
// keep-alive connection closes after IdleTimeout. No WriteTimeout: SSE streams are long
// responses, and the transport bounds each of their writes itself.
const (
	ReadHeaderTimeout = 10 * time.Second
	ReadTimeout       = 30 * time.Second
	IdleTimeout       = 2 * time.Minute
)

// HTTPFlags are the Streamable HTTP settings of a serve command.
type HTTPFlags struct {
	// Addr is the address to serve on; empty means stdio.
	Addr string
	// AllowHosts and AllowOrigins add to the Host and Origin headers accepted.
	AllowHosts   []string
	AllowOrigins []string
	// MaxSessions and SessionTimeout are [transport.HTTPOptions]'s; 0 means no bound.
	MaxSessions    int
	SessionTimeout time.Duration
}

// Register declares the flags on fs.
func (f *HTTPFlags) Register(fs *pflag.FlagSet) {
	fs.StringVar(&f.Addr, "http", "", "serve Streamable HTTP at `ADDR` (HOST:PORT or PORT) instead of stdio")
	fs.StringArrayVar(&f.AllowHosts, "allow-host", nil,
		"with --http, also accept requests whose Host header names `HOST` (repeatable; \"*\" accepts any)")
	fs.StringArrayVar(&f.AllowOrigins, "allow-origin", nil,
		"with --http, also accept browser requests from `ORIGIN`, such as http://localhost:5173 (repeatable; \"*\" accepts any)")
	f.MaxSessions, f.SessionTimeout = transport.DefaultMaxSessions, transport.DefaultSessionTimeout
	fs.Var(notNegative[int]{&f.MaxSessions, "no bound", strconv.Atoi, "a whole number"}, "max-sessions",
		"with --http, keep at most `N` sessions: a new one replaces, of those with no request in progress, the one least recently sent a request, an open GET stream or not; "+
			"else one with a request still in progress whose client has sent nothing for --session-timeout, that request ended with it; "+
			"with neither, the new one is refused with 503 (0: no bound)")
	fs.Var(notNegative[time.Duration]{&f.SessionTimeout, "never", time.ParseDuration, "a duration such as 30s or 10m"}, "session-timeout",
		"with --http, end a session idle for `DURATION` (0: never)")
}

// notNegative is a number flag whose 0 means none (named by zero) and that refuses
// a negative value, which would otherwise mean none too, or worse, without a word.
type notNegative[T int | time.Duration] struct {
	p     *T
	zero  string
	parse func(string) (T, error)
	want  string
}

func (n notNegative[T]) Set(s string) error {
	v, err := n.parse(s)
	switch {
	case err != nil:
		return errors.New("want " + n.want)
	case v < 0:
		return errors.New("want 0 (" + n.zero + ") or more")
	}
	*n.p = v
	return nil
}

func (n notNegative[T]) String() string {
	if n.p == nil {
		return "0"
	}
	return fmt.Sprint(*n.p)
}

func (n notNegative[T]) Type() string {
	var zero T
	if _, ok := any(zero).(time.Duration); ok {
		return "duration"
	}
	return "int"
}

// HTTPOptions returns the address to listen on, the transport's options and a warning
// for the user, from --http and the flags that go with it.
func (f *HTTPFlags) HTTPOptions() (string, *transport.HTTPOptions, string, error) {
	addr, opts, warning, err := ListenAddr(f.Addr)
	if err != nil {
		return "", nil, "", err
	}
	if len(f.AllowHosts) > 0 {
		if len(opts.AllowedHosts) == 0 {
			opts.AllowedHosts = slices.Clone(localNames)
		}
		opts.AllowedHosts = append(opts.AllowedHosts, f.AllowHosts...)
	}
	opts.AllowedOrigins = f.AllowOrigins
	opts.MaxSessions = noBound(f.MaxSessions)
	opts.SessionTimeout = noBound(f.SessionTimeout)
	return addr, opts, warning, nil
}

// noBound maps a flag's 0, "no bound", to the transport's -1.
func noBound[T int | time.Duration](v T) T {
	if v == 0 {
		return -1
	}
	return v
}

// NewHTTPServer returns the HTTP server the serve commands run h in.
func NewHTTPServer(h http.Handler) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: ReadHeaderTimeout, ReadTimeout: ReadTimeout, IdleTimeout: IdleTimeout}
}

// Serve runs srv over stdio when f.Addr is empty, else over HTTP as f says, until ctx
// ends (or, over stdio, until stdin closes). what names the server in messages; notes
// are printed under the address when serving HTTP.
func Serve(ctx context.Context, ios *iostreams.IOStreams, srv *server.Server, f *HTTPFlags, what string, notes ...string) error {
	if f.Addr == "" {
		if len(f.AllowHosts)+len(f.AllowOrigins) > 0 || f.MaxSessions != transport.DefaultMaxSessions ||
			f.SessionTimeout != transport.DefaultSessionTimeout {
			return cmdutil.UsageErrorf("--allow-host, --allow-origin, --max-sessions and --session-timeout apply to --http only")
		}
		return srv.Run(ctx, transport.StdioTransport{})
	}
	addr, opts, warning, err := f.HTTPOptions()
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return cmdutil.UsageErrorf("cannot listen on %s: %s", addr, listenProblem(err))
	}
	mux := http.NewServeMux()
	mux.Handle(Path, srv.HTTPHandler(opts))
	hs := NewHTTPServer(mux)
	if warning != "" {
		fmt.Fprintf(ios.ErrOut, "mcpi: warning: %s\n", warning)
	}
	fmt.Fprintf(ios.ErrOut, "mcpi: serving the %s server at http://%s%s\n", what, ln.Addr(), Path)
	for _, n := range notes {
		fmt.Fprintf(ios.ErrOut, "mcpi: %s\n", n)
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		_ = hs.Close()
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// ListenAddr completes an --http value ("8080", ":8080" or "host:8080"; an address
// without a host is loopback only) and chooses the Host header check: loopback
// addresses keep the default (localhost names only), a named host is added to those, and
// an unspecified address (0.0.0.0, [::]) accepts the names of this machine (localhost,
// its interfaces' addresses, its host name), with a warning. A name that is not the
// machine's own is what a DNS-rebinding page sends, so it stays refused; the Origin check
// (the server's own origin only) stays on everywhere.
func ListenAddr(addr string) (string, *transport.HTTPOptions, string, error) {
	if _, err := strconv.Atoi(addr); err == nil {
		addr = ":" + addr
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", nil, "", cmdutil.UsageErrorf("--http wants HOST:PORT or PORT, not %q", addr)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	opts := &transport.HTTPOptions{}
	warning := ""
	ip := net.ParseIP(host)
	switch {
	case host == "localhost" || (ip != nil && ip.IsLoopback()):
	case ip != nil && ip.IsUnspecified():
		opts.AllowedHosts = append(slices.Clone(localNames), machineNames()...)
		warning = fmt.Sprintf("listening on every interface (%s): anyone who can reach this machine can use the server; "+
			"requests must name this machine (localhost, its addresses or its host name; --allow-host adds names)", host)
	default:
		opts.AllowedHosts = append(slices.Clone(localNames), strings.Trim(host, "[]"))
	}
	return net.JoinHostPort(host, port), opts, warning, nil
}

// localNames are the names the transport accepts in Host by default.
var localNames = []string{"localhost", "127.0.0.1", "::1"}

// machineNames returns the addresses of this machine's interfaces and its host name.
func machineNames() []string {
	var names []string
	if addrs, err := net.InterfaceAddrs(); err == nil {
		for _, a := range addrs {
			if ipn, ok := a.(*net.IPNet); ok && !ipn.IP.IsLoopback() {
				names = append(names, ipn.IP.String())
			}
		}
	}
	if h, err := os.Hostname(); err == nil && h != "" {
		names = append(names, h)
	}
	return names
}

func listenProblem(err error) string {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		msg := op.Err.Error()
		if i := strings.LastIndex(msg, ": "); i >= 0 {
			msg = msg[i+2:]
		}
		return msg
	}
	return err.Error()
}
