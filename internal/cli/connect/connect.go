// Package connect is the server selection every mcpi command that talks to a server
// shares: the flags that name the server (--stdio, --url, --config/--server, or none for
// the embedded demo server) and the code that turns them into a connected
// [*client.Session].
package connect

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/mcpi-dev/mcpi/auth"
	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/look"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/transport"
)

// DefaultInitTimeout bounds how long a server may take to answer initialize.
const DefaultInitTimeout = 30 * time.Second

// EmbeddedTarget names the embedded demo server in messages.
const EmbeddedTarget = "the embedded demo server"

// Selection is the server the user named with flags. The zero value selects the
// embedded demo server.
type Selection struct {
	// Stdio is a command line, split like a shell would.
	Stdio string
	// Env holds K=V pairs added to a stdio server's environment.
	Env []string
	// Cwd is a stdio server's working directory.
	Cwd string
	// URL is a Streamable HTTP endpoint.
	URL string
	// Headers holds K=V pairs sent with every HTTP request.
	Headers []string
	// Config is a file in the mcpServers format; Server names one of its entries.
	Config string
	Server string
	// InitTimeout bounds initialization; 0 means [DefaultInitTimeout].
	InitTimeout time.Duration
	// Limits bound what the server can make mcpi hold or wait for.
	Limits Limits
	// Protocol is "auto" (or empty), or the protocol version to speak (see
	// [client.Options.ProtocolVersion]).
	Protocol string
	// Eras, when set, remembers the version each server spoke, so that the next command
	// does not probe a server of the 2025-11-25 era again.
	Eras EraMemory
	// Auth is how HTTP servers that ask for OAuth are logged in to.
	Auth Auth
	// Roots are served to the server's roots/list (--root).
	Roots []mcp.Root
	// ServerLog, when set, asks the server for its log messages of this level and above
	// (--server-log): a command prints them on stderr as they come.
	ServerLog mcp.LoggingLevel
	// Resume, when set, is a session of the 2025-11-25 era that an earlier command left
	// open on the selected HTTP server, taken up instead of a new one (see
	// [client.Client.Resume]) unless Protocol names the 2026-07-28 era; a new session is
	// begun when the server has ended it. It is not a flag: "mcpi tasks" commands set it
	// from the state file's record of a task.
	Resume *client.Resumption
}

// Resumed says what became of [Selection.Resume] when a session was opened.
type Resumed int

const (
	// NotResumed: there was no session to take up (or not one that this server and
	// protocol can take up), and a new one was begun.
	NotResumed Resumed = iota
	// SessionResumed: the session was taken up.
	SessionResumed
	// SessionEnded: the server had ended the session (it answered 404, or 400 as some
	// do), and a new one was begun.
	SessionEnded
)

// EraMemory remembers the protocol version a server spoke last. Server is
// [Target.Key].
type EraMemory interface {
	// Lookup returns the version server spoke when last asked, while that is trusted,
	// or "".
	Lookup(server string) string
	// Remember records the version server was found to speak just now; guessed says
	// it was taken because the server did not answer the probe in time.
	Remember(server, version string, guessed bool) error
}

// Limits bound what one server can make mcpi hold or wait for. The zero value means the
// library's defaults.
type Limits struct {
	// MaxPages and MaxItems bound one listing (see [client.Options.MaxPages]); a negative
	// value removes the bound.
	MaxPages, MaxItems int
	// MaxMessageSize bounds one message from the server, in bytes (see
	// [transport.DefaultMaxMessageSize]).
	MaxMessageSize int
	// Timeout bounds how long each request waits for its answer (see
	// [client.Options.RequestTimeout]); zero means no bound.
	Timeout time.Duration
	// MaxInputRounds bounds the input_required rounds of one request (see
	// [client.Options.MaxInputRounds]); a negative value removes the bound.
	MaxInputRounds int
}

// DefaultTimeout is --timeout's default: generous, as a plain tool call may take minutes
// (a long one belongs in a task, which it does not bound past its creation).
const DefaultTimeout = 5 * time.Minute

// addFlags registers the limits' flags on fs, with the defaults they stand for.
func (l *Limits) addFlags(fs *pflag.FlagSet) {
	l.MaxPages, l.MaxItems = client.DefaultMaxPages, client.DefaultMaxItems
	fs.Var(bound{&l.MaxPages}, "max-pages", "stop a listing after `N` pages, as a server may hand out cursors forever, print what it listed and exit 2 (0: no bound)")
	fs.Var(bound{&l.MaxItems}, "max-items", "stop a listing after `N` items, print what it listed and exit 2 (0: no bound)")
	l.MaxMessageSize = transport.DefaultMaxMessageSize
	fs.Var(byteSize{&l.MaxMessageSize}, "max-message-size", "drop a message from the server over `SIZE` (bytes, or with KiB, MiB, GiB), failing the request it answers")
	l.Timeout = DefaultTimeout
	fs.Var(timeout{&l.Timeout}, "timeout", "give up on a request the server has not answered within `DURATION` (0: never); the handshake counts as one request (server/discover and initialize together); a task is followed past it")
	l.MaxInputRounds = client.DefaultMaxInputRounds
	fs.Var(bound{&l.MaxInputRounds}, "max-input-rounds", "answer at most `N` rounds of input_required for one request, then stop it (protocol 2026-07-28; 0: no bound)")
}

// apply sets the limits in a copy of opts (nil: the defaults).
func (l *Limits) apply(opts *client.Options) *client.Options {
	o := client.Options{}
	if opts != nil {
		o = *opts
	}
	if l.MaxPages != 0 {
		o.MaxPages = l.MaxPages
	}
	if l.MaxItems != 0 {
		o.MaxItems = l.MaxItems
	}
	if l.Timeout != 0 {
		o.RequestTimeout = max(l.Timeout, 0)
	}
	if l.MaxInputRounds != 0 {
		o.MaxInputRounds = l.MaxInputRounds
	}
	return &o
}

// timeout is a duration flag that is not negative (0: never).
type timeout struct{ p *time.Duration }

func (t timeout) Set(s string) error {
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		return errors.New("want a duration such as 30s or 5m")
	case d < 0:
		return errors.New("want 0 (never) or more")
	}
	*t.p = d
	return nil
}

func (t timeout) String() string {
	if t.p == nil {
		return "0s"
	}
	return t.p.String()
}

func (t timeout) Type() string { return "duration" }

// logLevel is a flag of a log level of the protocol.
type logLevel struct{ p *mcp.LoggingLevel }

func (l logLevel) Set(s string) error {
	if mcp.LoggingLevel(s).Severity() < 0 {
		return errors.New("want one of debug, info, notice, warning, error, critical, alert, emergency")
	}
	*l.p = mcp.LoggingLevel(s)
	return nil
}

func (l logLevel) String() string {
	if l.p == nil {
		return ""
	}
	return string(*l.p)
}

func (l logLevel) Type() string { return "level" }

// text is a string flag that is not empty: "--url $UNSET" must not mean no --url at
// all, and quietly the demo server.
type text struct{ p *string }

func (t text) Set(s string) error {
	if s == "" {
		return errors.New("it is empty")
	}
	*t.p = s
	return nil
}

func (t text) String() string {
	if t.p == nil {
		return ""
	}
	return *t.p
}

func (t text) Type() string { return "string" }

// bound is an int flag whose 0 means "no bound": it is kept as -1, so that the zero
// [Limits] still means the defaults.
type bound struct{ p *int }

func (b bound) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return errors.New("want a whole number")
	}
	switch {
	case n < 0:
		return errors.New("want 0 (no bound) or more")
	case n == 0:
		n = -1
	}
	*b.p = n
	return nil
}

func (b bound) String() string {
	if b.p == nil || *b.p < 0 {
		return "0"
	}
	return strconv.Itoa(*b.p)
}

func (b bound) Type() string { return "int" }

// byteSize is a positive size flag in bytes, or with a binary unit: 512KiB, 8MiB, 1GiB
// (K, M and G mean the same).
type byteSize struct{ p *int }

var byteUnits = []struct {
	suffix string
	n      int
}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}}

func (b byteSize) Set(s string) error {
	unit, num := 1, strings.TrimSpace(s)
	for _, u := range byteUnits {
		if len(num) > len(u.suffix) && strings.EqualFold(num[len(num)-len(u.suffix):], u.suffix) {
			unit, num = u.n, strings.TrimSpace(num[:len(num)-len(u.suffix)])
			break
		}
	}
	n, err := strconv.Atoi(num)
	if err != nil || n <= 0 || n > math.MaxInt32/unit {
		return errors.New("want a size such as 4194304, 512KiB or 16MiB, from 1 byte to 2GiB")
	}
	*b.p = n * unit
	return nil
}

func (b byteSize) String() string {
	if b.p == nil {
		return ""
	}
	for _, u := range byteUnits[:3] {
		if *b.p >= u.n && *b.p%u.n == 0 {
			return strconv.Itoa(*b.p/u.n) + u.suffix
		}
	}
	return strconv.Itoa(*b.p)
}

func (b byteSize) Type() string { return "size" }

// AddFlags registers the selection flags on fs (the root command's persistent flags).
func (s *Selection) AddFlags(fs *pflag.FlagSet) {
	fs.Var(text{&s.Stdio}, "stdio", "run `COMMAND` (quoted, with its arguments) as the server, over stdio")
	fs.StringArrayVar(&s.Env, "env", nil, "set `K=V` in the stdio server's environment (repeatable)")
	fs.Var(text{&s.Cwd}, "cwd", "run the stdio server in `DIR`")
	fs.Var(text{&s.URL}, "url", "connect to the Streamable HTTP server at `URL`")
	fs.StringArrayVar(&s.Headers, "header", nil, "send the HTTP header `K=V` with every request (repeatable)")
	fs.Var(text{&s.Config}, "config", "read servers from `FILE` in the mcpServers JSON format")
	fs.Var(text{&s.Server}, "server", "use the server `NAME` of the --config file")
	fs.Var(logLevel{&s.ServerLog}, "server-log", "print the server's log messages of `LEVEL` and above on stderr as they come (debug, info, notice, warning, error, critical, alert, emergency); in 2026-07-28 a call's messages stop once the server makes it a task, as the Tasks extension has no log messages for tasks")
	fs.Var(rootFlag{&s.Roots}, "root", "serve `DIR` (a path, or a file: URI) to the server as one of its roots (repeatable)")
	fs.StringVar(&s.Protocol, "protocol", client.ProtocolAuto, "the protocol `VERSION`: 2025-11-25 (initialize; or an older revision, 2025-06-18, 2025-03-26, 2024-11-05), 2026-07-28 (server/discover, no session), or auto (whichever the server speaks, 2026-07-28 first)")
	s.Limits.addFlags(fs)
	s.Auth.addFlags(fs)
}

// IsSet reports whether any selection flag was given.
func (s *Selection) IsSet() bool {
	return s.Stdio != "" || len(s.Env) > 0 || s.Cwd != "" || s.URL != "" || len(s.Headers) > 0 ||
		s.Config != "" || s.Server != ""
}

// Impl is how mcpi introduces itself to servers.
var Impl = mcp.Implementation{Name: "mcpi", Title: "mcpi inspector", Version: "dev"}

// Target is a resolved selection: how to reach the server, and what to call it.
type Target struct {
	Transport transport.Transport
	// Name is the server as the user named it, for messages: a quoted command line, a
	// URL (its password as xxxxx), or [EmbeddedTarget].
	Name  string
	Stdio bool
	// Key names the server for [EraMemory]: its command line and directory, or its URL;
	// "" for the embedded demo server.
	Key string
	// URL and Header are an HTTP server's URL and the headers sent to it.
	URL    string
	Header http.Header
	// Flow is an HTTP server's OAuth flow: nil for other servers, and for one given an
	// Authorization header.
	Flow *auth.Flow
}

// ServerURL is the URL of the Streamable HTTP server s selects (with --url, or an entry
// of --config), for messages; "" for any other server, or when s is nil or cannot be
// resolved.
func (s *Selection) ServerURL() string {
	if s == nil {
		return ""
	}
	if t, err := s.Resolve(); err == nil {
		return shownURL(t.URL)
	}
	return ""
}

// shownURL is rawURL as a message prints it: its password and the values of its query,
// where a server's key is often passed, read xxxxx ([look.RedactURL]).
func shownURL(rawURL string) string { return look.RedactURL(rawURL) }

// Resolve checks the flags and returns the transport they select, without connecting.
func (s *Selection) Resolve() (*Target, error) { return s.resolve(true) }

// resolve is Resolve; lenient is the flow's (see [Auth.flow]).
func (s *Selection) resolve(lenient bool) (*Target, error) {
	switch p := s.Protocol; {
	case p != "" && p != client.ProtocolAuto && !mcp.IsModernProtocolVersion(p) && !mcp.IsSupportedProtocolVersion(p):
		return nil, cmdutil.UsageErrorf("--protocol %q: give auto, %s, or %s", p, mcp.ProtocolVersion20260728, strings.Join(mcp.SupportedProtocolVersions, ", "))
	}
	switch {
	case s.Stdio != "" && s.URL != "":
		return nil, cmdutil.UsageErrorf("give either --stdio or --url, not both")
	case s.Config != "" && s.Stdio != "":
		return nil, cmdutil.UsageErrorf("give either --config or --stdio, not both")
	case s.Config != "" && s.URL != "":
		return nil, cmdutil.UsageErrorf("give either --config or --url, not both")
	case s.Server != "" && s.Config == "":
		return nil, cmdutil.UsageErrorf("--server names an entry of a config file: give the file with --config")
	case s.URL != "" && (len(s.Env) > 0 || s.Cwd != ""):
		return nil, cmdutil.UsageErrorf("--env and --cwd apply to a stdio server, not to --url")
	case s.Stdio != "" && len(s.Headers) > 0:
		return nil, cmdutil.UsageErrorf("--header applies to an HTTP server, not to --stdio")
	case s.Stdio != "" && (s.Auth.ClientID != "" || s.Auth.ClientCredentials):
		return nil, cmdutil.UsageErrorf("--client-id and --client-credentials apply to an HTTP server, not to --stdio")
	}
	env, err := pairs("--env", s.Env)
	if err != nil {
		return nil, err
	}
	headers, err := headerPairs(s.Headers)
	if err != nil {
		return nil, err
	}
	switch {
	case s.Stdio != "":
		argv, err := SplitCommand(s.Stdio)
		if err != nil {
			return nil, err
		}
		return s.stdio(argv, env, s.Cwd, fmt.Sprintf("%q", s.Stdio)), nil
	case s.URL != "":
		return s.http(s.URL, headers, lenient)
	case s.Config != "":
		return s.fromConfig(env, headers, lenient)
	case len(s.Env) > 0 || s.Cwd != "" || len(s.Headers) > 0:
		return nil, cmdutil.UsageErrorf("--env, --cwd and --header need a server: give --stdio, --url or --config")
	}
	return embedded(s.Limits.MaxMessageSize), nil
}

func (s *Selection) stdio(argv []string, env map[string]string, dir, name string) *Target {
	envList := make([]string, 0, len(env))
	for k, v := range env {
		envList = append(envList, k+"="+v)
	}
	sort.Strings(envList)
	key, _ := json.Marshal(map[string]any{"argv": argv, "dir": dir, "env": envList})
	return &Target{
		Transport: &transport.Command{Path: argv[0], Args: argv[1:], Env: envList, Dir: dir, MaxMessageSize: s.Limits.MaxMessageSize},
		Name:      name,
		Stdio:     true,
		Key:       "stdio " + string(key),
	}
}

func (s *Selection) http(rawURL string, headers http.Header, lenient bool) (*Target, error) {
	u, err := url.Parse(rawURL)
	var ue *url.Error
	if errors.As(err, &ue) {
		return nil, cmdutil.UsageErrorf("%q is not a valid URL: %v", shownURL(rawURL), ue.Err)
	}
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, cmdutil.UsageErrorf("%q is not a server URL: give an http:// or https:// URL", shownURL(rawURL))
	}
	if err := s.Auth.check(headers.Get("Authorization") != ""); err != nil {
		return nil, err
	}
	ht := &transport.HTTPClient{URL: rawURL, Header: headers, MaxMessageSize: s.Limits.MaxMessageSize}
	t := &Target{Transport: ht, Name: shownURL(rawURL), Key: "http " + rawURL, URL: rawURL, Header: headers}
	if headers.Get("Authorization") == "" {
		// An Authorization header is the user's credential: the flow would never
		// replace it, and must not send a token of its own beside it.
		if t.Flow, err = s.Auth.flow(rawURL, s.flags(t), false, lenient); err != nil {
			return nil, err
		}
		ht.Auth = t.Flow
	}
	return t, nil
}

// embedded is the embedded demo server; maxMessageSize bounds its messages as it does
// any other server's, so that the demo shows what --max-message-size does.
func embedded(maxMessageSize int) *Target {
	return &Target{
		Name: EmbeddedTarget,
		Transport: transport.PipeTransport{Serve: func(_ context.Context, conn jsonrpc.Connection) error {
			// The server session lives as long as the pipe, not the context of Connect.
			demo.New(nil).Connect(context.Background(), conn)
			return nil
		}, MaxMessageSize: maxMessageSize},
	}
}

// Connect opens a session with the selected server and initializes it, or takes up
// [Selection.Resume]. Every failure is a [*cmdutil.UsageError], a config error or a
// [*cmdutil.ConnectError].
func (s *Selection) Connect(ctx context.Context, opts *client.Options) (*client.Session, error) {
	sess, _, err := s.ConnectResuming(ctx, opts)
	return sess, err
}

// ConnectResuming is Connect, which also says what became of [Selection.Resume].
func (s *Selection) ConnectResuming(ctx context.Context, opts *client.Options) (*client.Session, Resumed, error) {
	t, err := s.Resolve()
	if err != nil {
		return nil, NotResumed, err
	}
	timeout := s.InitTimeout
	if timeout <= 0 {
		timeout = DefaultInitTimeout
	}
	var open OpenMemory
	if m, ok := s.Eras.(OpenMemory); ok {
		open = m
	}
	if t.Flow != nil && !s.Auth.ClientCredentials {
		if err := s.loginFirst(ctx, t.Flow, t.URL, t.Header, open, t.Key); err != nil {
			return nil, NotResumed, &cmdutil.ConnectError{Target: t.Name, Err: err}
		}
		// A login the handshake runs into (a stored token the server refuses, whose
		// refresh the authorization server refuses too) would have only the probe's and
		// the initialization's time, and a login that outlasts the probe would make the
		// server one of the older era (and be remembered so). So the handshake leaves it
		// to be run here, outside its bounds, as loginFirst runs a first one, and starts
		// again; the second handshake logs in itself should it still need to.
		sess, resumed, err := s.handshake(deferLogin(ctx), t, opts, timeout)
		if !errors.Is(err, errLoginDeferred) || ctx.Err() != nil {
			return sess, resumed, err
		}
		if err := s.probe(ctx, t.Flow, t.URL, t.Header); err != nil {
			return nil, NotResumed, &cmdutil.ConnectError{Target: t.Name, Err: err}
		}
	}
	return s.handshake(ctx, t, opts, timeout)
}

// handshake opens the session with t, within timeout, or takes up [Selection.Resume].
func (s *Selection) handshake(ctx context.Context, t *Target, opts *client.Options, timeout time.Duration) (*client.Session, Resumed, error) {
	rec := &recorder{Transport: t.Transport}
	ictx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	o := s.Limits.apply(opts)
	o.ProtocolVersion = s.Protocol
	if o.Roots == nil {
		o.Roots = s.Roots
	}
	if o.LogLevel == "" {
		o.LogLevel = s.ServerLog
	}
	if mcp.IsModernProtocolVersion(s.Protocol) {
		// No probe: the user chose the era, so server/discover is a request like any
		// other, which --timeout bounds (and the initialization's own bound), not the
		// few seconds that tell a server of the older era in auto mode.
		o.ProbeTimeout = timeout
	}
	auto := s.Protocol == "" || s.Protocol == client.ProtocolAuto
	if auto && s.Eras != nil && t.Key != "" {
		o.TryFirst = s.Eras.Lookup(t.Key)
	}
	c := client.New(Impl, o)
	resumed := NotResumed
	if s.Resume != nil && t.URL != "" && !mcp.IsModernProtocolVersion(s.Protocol) {
		sess, err := c.Resume(ictx, rec, s.Resume)
		switch {
		case err == nil:
			return sess, SessionResumed, nil
		case !errors.Is(err, transport.ErrSessionExpired):
			if ctx.Err() != nil {
				err = context.Cause(ctx)
			}
			return nil, NotResumed, &cmdutil.ConnectError{Target: t.Name, Timeout: timeout, Err: err}
		}
		resumed = SessionEnded
	}
	sess, err := c.Connect(ictx, rec)
	if err == nil {
		if s.Eras != nil && t.Key != "" {
			s.rememberEra(t.Key, auto, o.TryFirst, sess)
		}
		return sess, resumed, nil
	}
	// A server that exits at once may make the initialize request fail to be written
	// before its exit is noticed; the exit, with its stderr, is the better explanation.
	var answered *jsonrpc.Error
	var unsupported *client.UnsupportedVersionError
	if exit := rec.exitErr(); exit != nil && !errors.Is(err, transport.ErrServerExited) &&
		!errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil &&
		!errors.As(err, &answered) && !errors.As(err, &unsupported) && // an answer explains more than the exit it led to
		!errors.As(err, new(*transport.MessageTooLargeError)) { // as does one dropped, after which mcpi ended the server
		err = exit
	}
	if ctx.Err() != nil {
		err = context.Cause(ctx)
	}
	return nil, resumed, &cmdutil.ConnectError{Target: t.Name, Stdio: t.Stdio, Timeout: timeout, Err: err}
}

// rememberEra records the era sess found for the server named key, when the server was
// asked it: in auto mode, unless the remembered version (tryFirst) was spoken again
// without a probe (its entry keeps its date, to be asked again once it is old). A
// session of 2026-07-28 that --protocol forced replaces what was remembered, so that
// --protocol 2026-07-28 once sets right a server remembered as of 2025-11-25.
func (s *Selection) rememberEra(key string, auto bool, tryFirst string, sess *client.Session) {
	v := sess.ProtocolVersion()
	switch {
	case auto && (tryFirst == "" || tryFirst != v):
	case !auto && sess.Modern() && s.Eras.Lookup(key) != v:
	default:
		return
	}
	_ = s.Eras.Remember(key, v, sess.ProbeTimedOut()) // a cache: failing costs a probe
}

// recorder remembers the exit error of a server process that ends during Connect.
type recorder struct {
	transport.Transport
	mu   sync.Mutex
	conn *recConn
}

func (r *recorder) Connect(ctx context.Context) (jsonrpc.Connection, error) {
	c, err := r.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	if _, ok := r.Transport.(*transport.Command); !ok {
		return c, nil
	}
	rc := &recConn{Connection: c}
	r.mu.Lock()
	r.conn = rc
	r.mu.Unlock()
	return rc, nil
}

func (r *recorder) exitErr() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.conn == nil {
		return nil
	}
	r.conn.mu.Lock()
	defer r.conn.mu.Unlock()
	return r.conn.exit
}

type recConn struct {
	jsonrpc.Connection
	mu   sync.Mutex
	exit error
}

// StrayLines forwards the stdio connection's count of lines that are no message (see
// [transport.Stream.StrayLines]), which the client quotes when the handshake fails.
func (c *recConn) StrayLines() (int, string) {
	if st, ok := c.Connection.(interface{ StrayLines() (int, string) }); ok {
		return st.StrayLines()
	}
	return 0, ""
}

// CloseContext forwards the process's hurried close: a handshake that failed because
// its time ran out stops the server at once, as the client asks, and not after the
// grace of an orderly end.
func (c *recConn) CloseContext(ctx context.Context) error {
	if cc, ok := c.Connection.(interface{ CloseContext(context.Context) error }); ok {
		return cc.CloseContext(ctx)
	}
	return c.Connection.Close()
}

// LocalWrites and WriteNow forward the stdio connection's: the client sends a task's
// second request from its reading goroutine, written at once when the pipe has room
// (jsonrpc.Conn.GoNow), as it does without the recorder.
func (c *recConn) LocalWrites() bool {
	lw, ok := c.Connection.(interface{ LocalWrites() bool })
	return ok && lw.LocalWrites()
}

// WriteNow: see LocalWrites.
func (c *recConn) WriteNow(m jsonrpc.Message) (bool, error) {
	if now, ok := c.Connection.(jsonrpc.NowWriter); ok {
		return now.WriteNow(m)
	}
	return false, nil
}

func (c *recConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := c.Connection.Read(ctx)
	if err != nil && errors.Is(err, transport.ErrServerExited) {
		c.mu.Lock()
		if c.exit == nil {
			c.exit = err
		}
		c.mu.Unlock()
	}
	return m, err
}

func pairs(flag string, list []string) (map[string]string, error) {
	m := map[string]string{}
	for _, kv := range list {
		k, v, err := cmdutil.SplitKV(flag, kv)
		if err != nil {
			return nil, err
		}
		m[k] = v
	}
	return m, nil
}

// headerPairs parses --header values, K=V or the HTTP form "K: V".
func headerPairs(list []string) (http.Header, error) {
	h := http.Header{}
	for _, kv := range list {
		k, v, ok := strings.Cut(kv, "=")
		if c := strings.IndexByte(kv, ':'); c > 0 && (!ok || c < len(k)) {
			k, v, ok = kv[:c], strings.TrimSpace(kv[c+1:]), true
		}
		k = strings.TrimSpace(k)
		if !ok || k == "" || strings.ContainsAny(k, " \t") {
			return nil, cmdutil.UsageErrorf("--header wants NAME=VALUE, not %q", kv)
		}
		if !validHeader(k, v) {
			return nil, cmdutil.UsageErrorf("--header %q cannot be sent: a header's name is letters, digits and !#$%%&'*+-.^_`|~, and its value has no control characters", kv)
		}
		h.Add(k, v)
	}
	return h, nil
}

// validHeader reports whether an HTTP request can carry the header name: value: name
// is an RFC 9110 token, and value has no control character but tab.
func validHeader(name, value string) bool {
	return mcp.IsToken(name) && !strings.ContainsFunc(value, func(r rune) bool {
		return (r < ' ' && r != '\t') || r == 0x7f
	})
}

// ServerConfig is one entry of the mcpServers format.
type ServerConfig struct {
	// Type is "stdio", "http" or "streamable-http"; empty means whichever of Command and
	// URL is set.
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}

// Config is a file in the mcpServers format used by Claude Desktop, Cursor and others.
type Config struct {
	MCPServers map[string]ServerConfig `json:"mcpServers"`
}

// MaxConfigSize bounds a config file: an mcpServers file is small, and a file named by
// mistake (or /dev/zero) must not exhaust memory.
const MaxConfigSize = 1 << 20

// serverField puts the name of the server in the field of err, a type error inside
// mcpServers, which encoding/json names without the map's key ("mcpServers.args"): the
// entry whose bytes hold the error's offset is the one.
func serverField(data []byte, err error) error {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) || !strings.HasPrefix(te.Field, "mcpServers.") {
		return err
	}
	var raw struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	if json.Unmarshal(data, &raw) != nil {
		return err
	}
	for name, entry := range raw.MCPServers {
		if i := bytes.Index(data, entry); i >= 0 && int64(i) <= te.Offset && te.Offset <= int64(i+len(entry)) {
			named := *te
			named.Field = "mcpServers." + name + strings.TrimPrefix(te.Field, "mcpServers")
			return &named
		}
	}
	return err
}

// ReadConfig reads and parses a config file.
func ReadConfig(file string) (*Config, error) {
	data, err := cmdutil.ReadFile(file, MaxConfigSize)
	if err != nil {
		return nil, &cmdutil.ConfigError{File: file, Err: err}
	}
	var c Config
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, &cmdutil.ConfigError{File: file, Err: cmdutil.JSONSyntaxError(data, serverField(data, err))}
	}
	if c.MCPServers == nil {
		return nil, &cmdutil.ConfigError{File: file, Err: errors.New(`it has no "mcpServers" object`)}
	}
	return &c, nil
}

func (s *Selection) fromConfig(env map[string]string, headers http.Header, lenient bool) (*Target, error) {
	cfg, err := ReadConfig(s.Config)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(cfg.MCPServers))
	for n := range cfg.MCPServers {
		names = append(names, n)
	}
	slices.Sort(names)
	name := s.Server
	if name == "" {
		if len(names) != 1 {
			return nil, &cmdutil.UsageError{Msg: fmt.Sprintf("the config file %s has %d servers: choose one with --server (%s)", s.Config, len(names), strings.Join(names, ", "))}
		}
		name = names[0]
	}
	sc, ok := cfg.MCPServers[name]
	if !ok {
		return nil, &cmdutil.UnknownServerError{File: s.Config, Name: name, Known: names}
	}
	bad := func(format string, args ...any) error {
		return &cmdutil.ConfigError{File: s.Config, Err: fmt.Errorf("server %q "+format, append([]any{name}, args...)...)}
	}
	kind := sc.Type
	if kind == "" {
		switch {
		case sc.Command != "" && sc.URL != "":
			return nil, bad(`has both a "command" and a "url": say which with "type"`)
		case sc.Command != "":
			kind = "stdio"
		case sc.URL != "":
			kind = "http"
		default:
			return nil, bad(`has neither a "command" nor a "url"`)
		}
	}
	switch kind {
	case "stdio":
		if sc.Command == "" {
			return nil, bad(`is of type "stdio" but has no "command"`)
		}
		if len(headers) > 0 {
			return nil, cmdutil.UsageErrorf("--header applies to an HTTP server, and %q is a stdio server", name)
		}
		all := map[string]string{}
		for k, v := range sc.Env {
			all[k] = v
		}
		for k, v := range env {
			all[k] = v
		}
		dir := sc.Cwd
		if s.Cwd != "" {
			dir = s.Cwd
		}
		if err := argsInCommand(sc.Command, dir); err != nil {
			return nil, bad("%s", err)
		}
		argv := append([]string{sc.Command}, sc.Args...)
		return s.stdio(argv, all, dir, fmt.Sprintf("%q", name)), nil
	case "http", "streamable-http", "streamableHttp", "streamable_http":
		if sc.URL == "" {
			return nil, bad(`is of type %q but has no "url"`, kind)
		}
		if len(env) > 0 || s.Cwd != "" {
			return nil, cmdutil.UsageErrorf("--env and --cwd apply to a stdio server, and %q is an HTTP server", name)
		}
		h := http.Header{}
		for k, v := range sc.Headers {
			if !validHeader(k, v) {
				return nil, bad("has a header %q that cannot be sent: a header's name is letters, digits and !#$%%&'*+-.^_`|~, and its value has no control characters", k)
			}
			h.Set(k, v)
		}
		for k, vs := range headers {
			h[k] = vs
		}
		t, err := s.http(sc.URL, h, lenient)
		if err != nil {
			return nil, bad("has an invalid url %q", sc.URL)
		}
		return t, nil
	case "sse":
		return nil, bad(`uses the old HTTP+SSE transport, which mcpi does not speak; it speaks Streamable HTTP ("type": "http")`)
	}
	return nil, bad(`has the unknown type %q (want "stdio", "http" or "streamable-http")`, kind)
}

// argsInCommand says when command, a config entry's "command", is a command line
// rather than a program: no program has its name, and its first word is one. The
// mcpServers format runs "command" as it is, so its arguments go in "args".
func argsInCommand(command, dir string) error {
	words, err := SplitCommand(command)
	if err != nil || len(words) < 2 {
		return nil
	}
	if dir != "" && !filepath.IsAbs(words[0]) && strings.Contains(words[0], "/") {
		return nil // relative to a directory this process is not in
	}
	if _, err := exec.LookPath(command); err == nil {
		return nil
	}
	if _, err := exec.LookPath(words[0]); err != nil {
		return nil
	}
	args, _ := json.Marshal(words[1:])
	return fmt.Errorf(`has the "command" %q, which is no program: its arguments go in "args" ("command": %q, "args": %s)`, command, words[0], strings.ReplaceAll(string(args), `","`, `", "`))
}

// SplitCommand splits a command line into words as a POSIX shell would, without
// expanding anything: words are separated by blanks, 'single quotes' keep everything,
// "double quotes" keep everything but \" \\ \$ \`, and a backslash outside quotes keeps
// the next character.
func SplitCommand(line string) ([]string, error) {
	var (
		words []string
		cur   strings.Builder
		in    bool // inside a word
		quote rune
	)
	rs := []rune(line)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case quote == '"':
			switch {
			case r == '"':
				quote = 0
			case r == '\\' && i+1 < len(rs) && strings.ContainsRune("\"\\$`\n", rs[i+1]):
				i++
				if rs[i] != '\n' {
					cur.WriteRune(rs[i])
				}
			default:
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == '\\':
			if i+1 >= len(rs) {
				return nil, cmdutil.UsageErrorf("the --stdio command ends with a lone backslash")
			}
			i++
			if rs[i] != '\n' {
				cur.WriteRune(rs[i])
				in = true
			}
		case r == ' ' || r == '\t' || r == '\n':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		return nil, cmdutil.UsageErrorf("the --stdio command has an unterminated %c quote", quote)
	}
	if in {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, cmdutil.UsageErrorf("the --stdio command is empty")
	}
	if words[0] == "" {
		return nil, cmdutil.UsageErrorf("the --stdio command's program name is empty")
	}
	return words, nil
}
