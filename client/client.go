// Package client is mcpi's MCP client: it connects to a server over any transport,
// initializes, lists and calls what the server offers, and queues the server's own
// requests (sampling, elicitation) for a front end to answer. Everything that happens is
// published as typed [Event]s.
package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpi-dev/mcpi/internal/plural"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/tasks"
	"github.com/mcpi-dev/mcpi/transport"
)

// Options configures a [Client].
type Options struct {
	Logger *slog.Logger
	// LogLevel, when set, asks the server from the start for its log messages of that
	// level and more severe (when it declares logging): in the 2025-11-25 era with
	// logging/setLevel right after initialize (a refusal is logged, the session used all
	// the same), in 2026-07-28 in the _meta of every request. [Session.SetLogLevel]
	// changes it later.
	LogLevel mcp.LoggingLevel
	// Capabilities replaces the default declaration: roots, sampling, form and URL
	// elicitation, and an empty tasks capability (in 2025-11-25, so that servers which
	// offer tasks only to task-aware clients offer them; [Options.Receiver] fills it in).
	// With the default declaration, a sampling or elicitation request that nothing on the
	// client can answer (no OnRequest, and nobody subscribed to the session's events or
	// to those of the task it belongs to) is refused at once with -32601, in 2026-07-28
	// by ending the call that asked for it with an [*InputError]. A declaration given
	// here is taken at its word: a front end that answers through events and subscribes
	// after Connect sets it (see [AllCapabilities]), so that a request that comes before
	// its subscription waits in [Session.PendingRequests] for it. Such a request waits
	// until it is answered, withdrawn, or the session ends.
	Capabilities *mcp.ClientCapabilities
	// Roots are served to the server's roots/list.
	Roots []mcp.Root
	// ProtocolVersion chooses the protocol era. Empty or [ProtocolAuto] speaks whichever
	// the server speaks, 2026-07-28 when it speaks both: server/discover is sent first,
	// and initialize if the server does not answer it as a 2026-07-28 server would. A
	// version of the 2025-11-25 era (or earlier) sends only initialize, asking for it;
	// 2026-07-28 only server/discover. A version mcpi does not know (neither one of
	// mcp.SupportedProtocolVersions nor of mcp.ModernProtocolVersions) fails Connect with
	// an [*UnknownVersionError] before anything is sent.
	ProtocolVersion string
	// TryFirst, in auto mode, is the version to try first: a version of the 2025-11-25
	// era sends initialize first (and server/discover only if initialize fails: with
	// -32022, or as a server with no initialize may). Set it from what the server spoke
	// last time, so that a server of the older era is not probed on every connection.
	TryFirst string
	// ProbeTimeout bounds how long server/discover may go unanswered before the server
	// is taken for one of the 2025-11-25 era, some of which never answer it (5s). With
	// ProtocolVersion 2026-07-28, Connect fails once it has gone unanswered that long.
	// In auto mode it is at most half of RequestTimeout.
	ProbeTimeout time.Duration
	// MaxInputRounds bounds the input_required rounds of one request of the 2026-07-28
	// era ([DefaultMaxInputRounds]); a server that asks for ever ends the request with an
	// [*InputRoundsError]. A negative value removes the bound.
	MaxInputRounds int
	// OnRequest, when set, is called on its own goroutine for every server request queued
	// for the user; it may answer it. Front ends that prefer events can leave it nil: a
	// [RequestEvent] (and, for a request of a task, a [TaskInput] event) carries each
	// request. With neither, and the default capabilities, the server's requests are
	// refused at once (see [Options.Capabilities]) rather than left unanswered.
	OnRequest func(ctx context.Context, r *Request)
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Receiver, when set, lets the server run sampling and elicitation as tasks on this
	// client (receiver tasks), and declares so.
	Receiver *ReceiverOptions

	// PollFloor is the shortest interval between two tasks/get of one task (100ms); it
	// only ever lengthens the server's pollInterval, never shortens it.
	PollFloor time.Duration
	// PollCeiling caps the backoff used when the server suggests no interval (5s).
	PollCeiling time.Duration
	// MaxPollInterval is the longest wait between two tasks/get of one task, whatever
	// pollInterval the server suggests (1 minute): a server's interval may be anything up
	// to centuries. A task is also polled at least once within its ttl.
	MaxPollInterval time.Duration
	// NotifiedPollInterval is how often a task is still polled once the server has shown
	// it sends status notifications (10s).
	NotifiedPollInterval time.Duration
	// KeptTasks is how many ended tasks [Session.Tasks] keeps (1,000); older ones are
	// forgotten, so that a long session does not grow with every task it ran. A task in
	// progress is always kept.
	KeptTasks int

	// MaxPages bounds the pages one listing fetches ([DefaultMaxPages]) and MaxItems the
	// items it yields ([DefaultMaxItems]): a server that hands out a new cursor forever
	// would otherwise keep a listing going, and growing, without end. A listing that
	// reaches a bound with more to come ends with a [*ListLimitError]. A negative value
	// removes the bound.
	MaxPages int
	MaxItems int

	// MaxServerRequests bounds the server's requests the session answers at once
	// ([DefaultMaxServerRequests]), and MaxServerRequestBytes the size of their params
	// ([DefaultMaxServerRequestBytes]): each waits in the session (an elicitation for its
	// user, a tasks/result for its receiver task) holding a goroutine and what it asked,
	// so a server that asks faster than they are answered would otherwise take memory
	// without limit. A request past either gets an error at once (-32600, "too many
	// requests"). A negative value removes the bound.
	MaxServerRequests     int
	MaxServerRequestBytes int

	// RequestTimeout bounds how long one request waits for its response; zero means no
	// bound. It holds for the handshake of auto mode as a whole (the probe and
	// initialize, as one request), for initialize, ping, every list page, a plain tools/call, the
	// tools/call that creates a task and each tasks/get and tasks/cancel, and a request
	// that runs out is withdrawn (notifications/cancelled) and fails with a
	// [*TimeoutError]. It does not hold for tasks/result, which waits for the task to end:
	// tasks are long by design, and a followed task ends with its ttl, or when a poll
	// finds it gone.
	RequestTimeout time.Duration
}

// The bounds of one listing when [Options] sets none.
const (
	DefaultMaxPages = 1000
	DefaultMaxItems = 100_000
)

// The bounds of the server's requests when [Options] sets none.
const (
	DefaultMaxServerRequests     = 1024
	DefaultMaxServerRequestBytes = 64 << 20
)

// Client holds configuration shared by the sessions it opens.
type Client struct {
	impl mcp.Implementation
	opts Options
}

// New returns a client that introduces itself as impl.
func New(impl mcp.Implementation, opts *Options) *Client {
	c := &Client{impl: impl}
	if opts != nil {
		c.opts = *opts
	}
	if c.opts.Logger == nil {
		c.opts.Logger = slog.New(slog.DiscardHandler)
	}
	if c.opts.Now == nil {
		c.opts.Now = time.Now
	}
	if c.opts.PollFloor <= 0 {
		c.opts.PollFloor = 100 * time.Millisecond
	}
	if c.opts.PollCeiling <= 0 {
		c.opts.PollCeiling = 5 * time.Second
	}
	if c.opts.MaxPollInterval <= 0 {
		c.opts.MaxPollInterval = time.Minute
	}
	if c.opts.NotifiedPollInterval <= 0 {
		c.opts.NotifiedPollInterval = 10 * time.Second
	}
	if c.opts.KeptTasks <= 0 {
		c.opts.KeptTasks = 1000
	}
	if c.opts.MaxPages == 0 {
		c.opts.MaxPages = DefaultMaxPages
	}
	if c.opts.MaxServerRequests == 0 {
		c.opts.MaxServerRequests = DefaultMaxServerRequests
	}
	if c.opts.MaxServerRequestBytes == 0 {
		c.opts.MaxServerRequestBytes = DefaultMaxServerRequestBytes
	}
	if c.opts.MaxItems == 0 {
		c.opts.MaxItems = DefaultMaxItems
	}
	if c.opts.ProbeTimeout <= 0 {
		c.opts.ProbeTimeout = 5 * time.Second
	}
	if c.opts.MaxInputRounds == 0 {
		c.opts.MaxInputRounds = DefaultMaxInputRounds
	}
	return c
}

func (c *Client) capabilities() *mcp.ClientCapabilities {
	if c.opts.Capabilities != nil {
		return c.opts.Capabilities
	}
	caps := &mcp.ClientCapabilities{
		Roots:       &mcp.RootsCapability{ListChanged: true},
		Sampling:    &mcp.SamplingCapability{},
		Elicitation: &mcp.ElicitationCapability{Form: &struct{}{}, URL: &struct{}{}},
		// Declared so that servers which only offer tasks to task-aware clients offer
		// them; what this client hosts as a receiver is added by the receiver options.
		Tasks: &mcp.ClientTasksCapability{},
	}
	if c.opts.Receiver != nil {
		caps.Tasks = c.receiverCapability()
	}
	return caps
}

// ProtocolAuto is [Options.ProtocolVersion] for "whichever era the server speaks".
const ProtocolAuto = "auto"

// Session is one connection to a server.
type Session struct {
	client *Client
	conn   *jsonrpc.Conn
	raw    jsonrpc.Connection
	// handshake is what [Session.Handshake] returns.
	handshake []*MessageEvent
	// localWrites: writing a message is a local write, not a round trip (see
	// transport.Stream.LocalWrites), so the reading goroutine may send requests itself.
	localWrites bool
	// reach is the connection's reachability, over HTTP; nil otherwise.
	reach reachability
	// modern is the wire of the 2026-07-28 era; nil in the 2025-11-25 era.
	modern *modernWire
	events hub
	log    *slog.Logger
	now    func() time.Time

	initResult *mcp.InitializeResult
	// probeTimedOut: see [Session.ProbeTimedOut].
	probeTimedOut bool
	nextToken     atomic.Int64

	mu      sync.Mutex
	roots   []mcp.Root
	pending pendingQueue
	tools   map[string]*mcp.Tool
	tasks   taskRegistry
	listens map[string]*resourceListen // 2026-07-28 resource subscriptions, by uri
	recv    *tasks.Manager             // receiver tasks; nil when off
	polled  receiverRequests
	ended   chan struct{} // closed once everything bound to the session is freed
}

// Connect opens a connection with t and starts a session in the era that
// [Options.ProtocolVersion] asks for: the initialize handshake of 2025-11-25, or
// server/discover of 2026-07-28, or (by default) whichever the server speaks.
//
// When the session cannot start, the connection is closed before Connect returns. A
// server process ([transport.Command]) is then asked to stop as Close asks it, unless
// ctx has ended: then it gets SIGTERM at once and SIGKILL a tenth of a second later, so
// that Connect returns shortly after ctx's deadline.
func (c *Client) Connect(ctx context.Context, t transport.Transport) (*Session, error) {
	hs := &handshake{}
	ctx = context.WithValue(ctx, handshakeKey{}, hs)
	s, err := c.connect(ctx, t)
	if err != nil {
		return nil, err
	}
	c.askLogLevel(ctx, s)
	s.handshake = hs.finish()
	return s, nil
}

// Handshake returns the messages of the session's start, oldest first: those of
// [Client.Connect] (the server/discover probe and its answer, initialize, its result and
// notifications/initialized, a connection given up for another era among them, the
// logging/setLevel of [Options.LogLevel]) or of [Client.Resume]. A subscriber comes after
// Connect returns, too late for them: a front end that shows the traffic shows these
// first. At most 64 messages and 1 MiB of them are kept.
func (s *Session) Handshake() []*MessageEvent { return slices.Clone(s.handshake) }

// handshake records the messages of one Connect, across the connections it opens.
type handshake struct {
	// over is set once nothing more is recorded (the handshake ended, or filled its
	// bounds): the connection's every message asks.
	over   atomic.Bool
	mu     sync.Mutex
	events []*MessageEvent
	bytes  int
}

// handshakeKey is the context key of the [handshake] a connection records its messages
// in, for as long as its Connect runs.
type handshakeKey struct{}

// Bounds of [Session.Handshake]: a server's answers may be as large as any message.
const (
	maxHandshakeMessages = 64
	maxHandshakeBytes    = 1 << 20
)

// add records e, if the handshake is still going on and within its bounds.
func (h *handshake) add(e *MessageEvent) {
	size := eventSize(e)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.over.Load() || h.bytes+size > maxHandshakeBytes {
		h.over.Store(true)
		return
	}
	h.events = append(h.events, e)
	h.bytes += size
	if len(h.events) == maxHandshakeMessages {
		h.over.Store(true)
	}
}

// recording reports whether add may take a message, so that none is made for nothing.
func (h *handshake) recording() bool { return !h.over.Load() }

// finish ends the recording and returns what was recorded.
func (h *handshake) finish() []*MessageEvent {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.over.Store(true)
	return h.events
}

// askLogLevel asks the server of a new session for the log of [Options.LogLevel].
func (c *Client) askLogLevel(ctx context.Context, s *Session) {
	if c.opts.LogLevel == "" || s.ServerCapabilities().Logging == nil {
		return
	}
	lctx, cancel := context.WithTimeout(ctx, logLevelWait)
	defer cancel()
	if err := s.SetLogLevel(lctx, c.opts.LogLevel); err != nil {
		c.opts.Logger.Warn("the server refused the log level; its log comes at its own", "level", c.opts.LogLevel, "error", err)
	}
}

// Resumption is what a later connection needs to take up a session of the 2025-11-25
// era on Streamable HTTP with [Client.Resume]: the session id the server gave, and the
// initialize result the session goes by (its protocol version, the server's capabilities
// and information). [Session.Keep] returns it.
type Resumption struct {
	SessionID  string                `json:"sessionId"`
	Initialize *mcp.InitializeResult `json:"initialize"`
}

// The ids of a resumed session's requests start at random between resumedIDs and
// maxSafeID-resumedIDs; maxSafeID is 2^53, past which a JavaScript number no longer holds
// every integer.
const (
	resumedIDs = 1 << 32
	maxSafeID  = 1 << 53
)

// sessionKeeper is a connection whose session can outlive it
// ([transport.HTTPClientConn]).
type sessionKeeper interface {
	KeepSession() string
	ResumeSession(id, version string) error
}

// Keep makes Close leave the session open on the server, when a later connection can
// take it up: a session of the 2025-11-25 era on Streamable HTTP to which the server gave
// an id. Close then sends no DELETE, and the server keeps the session, with what it binds
// to it, until it ends it itself. Some servers bind tasks to the session that created
// them, reachable from no other: a task left running on such a server for a later
// connection is reached only by resuming its session. Keep returns what [Client.Resume]
// needs, or nil, with Close ending the session as always, for any other session.
func (s *Session) Keep() *Resumption {
	k, ok := s.raw.(sessionKeeper)
	if !ok || s.modern != nil {
		return nil
	}
	id := k.KeepSession()
	if id == "" {
		return nil
	}
	return &Resumption{SessionID: id, Initialize: s.initResult}
}

// Resume takes up a session of the 2025-11-25 era that an earlier connection began over
// Streamable HTTP and left open ([Session.Keep]), instead of beginning a new one: t's
// connection sends r's session id from its first request, with no initialize, and the
// session goes by r's initialize result. Resume pings the server to see that it still
// has the session: a server that has ended it (or restarted) answers 404, and Resume
// fails with an error matching [transport.ErrSessionExpired]; a new session, from
// [Client.Connect], is then the only way on. t must be a transport whose connections can
// resume a session ([transport.HTTPClient]). What the earlier connection had in hand
// (followed tasks, the server's requests, receiver tasks) is not carried over: tasks
// the server runs are followed again by id ([Session.FollowTask], [Session.TaskResult]).
func (c *Client) Resume(ctx context.Context, t transport.Transport, r *Resumption) (*Session, error) {
	hs := &handshake{}
	ctx = context.WithValue(ctx, handshakeKey{}, hs)
	switch {
	case r == nil || r.SessionID == "" || r.Initialize == nil:
		return nil, errors.New("resuming a session needs its id and its initialize result")
	case mcp.IsModernProtocolVersion(r.Initialize.ProtocolVersion):
		return nil, fmt.Errorf("protocol %s has no sessions to resume", r.Initialize.ProtocolVersion)
	case !mcp.IsSupportedProtocolVersion(r.Initialize.ProtocolVersion):
		return nil, &VersionError{Version: r.Initialize.ProtocolVersion}
	}
	// The connections that used the session before counted their ids up from 1, and the
	// server may still be handling some of their requests (a tasks/result that waits for
	// its task, say): this one's ids start at random far above, where no other
	// connection's are, and stay within the integers a JavaScript peer holds exactly.
	s, err := c.openAt(ctx, t, resumedIDs+rand.Int64N(maxSafeID-2*resumedIDs))
	if err != nil {
		return nil, err
	}
	k, ok := s.raw.(sessionKeeper)
	if !ok {
		s.Close()
		return nil, errors.New("the transport cannot resume a session (Streamable HTTP can)")
	}
	if err := k.ResumeSession(r.SessionID, r.Initialize.ProtocolVersion); err != nil {
		s.Close()
		return nil, err
	}
	init := *r.Initialize
	s.initResult = &init
	// Any answer, an error among them, shows that the server has the session; a ping it
	// does not know is its own affair. A session that could not be checked (the server
	// is unreachable, say) is left as it is, for another try.
	var rpc *jsonrpc.Error
	if err := s.Ping(ctx); err != nil && (!errors.As(err, &rpc) || errors.Is(err, transport.ErrSessionExpired)) {
		k.KeepSession()
		s.Close()
		return nil, fmt.Errorf("resuming session %q: %w", r.SessionID, err)
	}
	c.askLogLevel(ctx, s)
	s.handshake = hs.finish()
	return s, nil
}

// logLevelWait bounds the logging/setLevel of [Options.LogLevel]: a server that does
// not answer it is used all the same.
const logLevelWait = 5 * time.Second

// connect opens a session in the era the options ask for, or the server speaks.
func (c *Client) connect(ctx context.Context, t transport.Transport) (*Session, error) {
	mode := c.opts.ProtocolVersion
	if mode == "" || mode == ProtocolAuto {
		return c.connectAuto(ctx, t)
	}
	if !mcp.IsModernProtocolVersion(mode) && !mcp.IsSupportedProtocolVersion(mode) {
		return nil, &UnknownVersionError{Version: mode}
	}
	s, err := c.open(ctx, t)
	if err != nil {
		return nil, err
	}
	if mcp.IsModernProtocolVersion(mode) {
		// Some servers of the older era never answer server/discover: the probe timeout
		// bounds it here too, so that Connect fails rather than waits for ever.
		d := c.opts.ProbeTimeout
		pctx, cancel := context.WithTimeoutCause(ctx, d, &TimeoutError{Method: mcp.MethodServerDiscover, Timeout: d})
		err = s.start(pctx, mode)
		if err != nil && pctx.Err() != nil && ctx.Err() == nil {
			err = fmt.Errorf("%w (does the server speak protocol %s?)", context.Cause(pctx), mode)
		}
		cancel()
	} else {
		err = s.initialize(ctx, mode)
	}
	if err != nil {
		s.abandon(ctx)
		return nil, s.strayOutput(err)
	}
	return s, nil
}

// StrayOutputError is a handshake that failed while the server wrote lines on its
// output that are no JSON-RPC message: a stdio server that writes its log, a banner or
// a prompt on stdout, where MCP messages alone belong. Those lines are most likely why:
// the server's answers are lost among them, or it never began to speak MCP.
type StrayOutputError struct {
	// Lines is how many such lines the server wrote; Last is the latest, cut to 200
	// bytes.
	Lines int
	Last  string
	Err   error
}

func (e *StrayOutputError) Error() string {
	if e.Lines == 1 {
		return fmt.Sprintf("%v (the server wrote 1 line on its stdout that is no JSON-RPC message: %q)", e.Err, e.Last)
	}
	return fmt.Sprintf("%v (the server wrote %d lines on its stdout that are no JSON-RPC message; the last: %q)", e.Err, e.Lines, e.Last)
}

func (e *StrayOutputError) Unwrap() error { return e.Err }

// strayOutput is err, the handshake's failure, wrapped in a [*StrayOutputError] when the
// connection read lines that are no JSON-RPC message.
func (s *Session) strayOutput(err error) error {
	if st, ok := s.raw.(interface{ StrayLines() (int, string) }); ok {
		if n, last := st.StrayLines(); n > 0 {
			return &StrayOutputError{Lines: n, Last: last, Err: err}
		}
	}
	return err
}

// connectAuto tells the eras apart. A server of 2026-07-28 answers server/discover, or
// refuses it with an error only that era has (-32020, -32021, -32022); any other answer,
// or none within [Options.ProbeTimeout], makes it a server of 2025-11-25, which is then
// initialized (on a new connection if the probe ended the first). With
// [Options.TryFirst] naming the older era, initialize goes first instead.
//
// [Options.RequestTimeout] bounds the handshake as a whole, as the request it is to its
// caller: the probe takes at most half of it, and initialize the rest.
func (c *Client) connectAuto(ctx context.Context, t transport.Transport) (_ *Session, rerr error) {
	probeTimeout := c.opts.ProbeTimeout
	probeUnanswered := false
	pending := mcp.MethodInitialize // what the handshake's bound may cut
	if d := c.opts.RequestTimeout; d > 0 {
		outer := ctx
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
		probeTimeout = min(probeTimeout, d/2)
		defer func() {
			if rerr == nil || ctx.Err() == nil || outer.Err() != nil {
				return
			}
			te := &TimeoutError{Method: pending, Timeout: d}
			if probeUnanswered && pending == mcp.MethodInitialize {
				te.After = mcp.MethodServerDiscover
			}
			if stray, ok := rerr.(*StrayOutputError); ok {
				stray.Err = te
				return
			}
			rerr = te
		}()
	}
	s, err := c.open(ctx, t)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*Session, error) {
		s.abandon(ctx)
		return nil, s.strayOutput(err)
	}
	reopen := func() error {
		if s.conn.Err() == nil {
			return nil
		}
		s.abandon(ctx)
		s, err = c.open(ctx, t)
		return err
	}
	modern := mcp.ProtocolVersion20260728
	if try := c.opts.TryFirst; try != "" && !mcp.IsModernProtocolVersion(try) {
		err := s.initialize(ctx, mcp.LatestProtocolVersion)
		rpc, isModern := modernError(err)
		if err == nil {
			return s, nil
		}
		if !isModern {
			// A server of 2026-07-28 has no initialize: one that does not say so with
			// -32022 (-32601, say, or hanging up) is found by the probe all the same. The
			// server that lives up to TryFirst keeps initialize's error.
			if ctx.Err() != nil || !olderEra(err) {
				return fail(err)
			}
			if rerr := reopen(); rerr != nil {
				return nil, fmt.Errorf("%w (and reconnecting for server/discover: %w)", err, rerr)
			}
			pending = mcp.MethodServerDiscover
			pctx, cancel := context.WithTimeout(ctx, probeTimeout)
			defer cancel()
			if _, derr := s.discover(pctx, modern); derr != nil {
				return fail(err)
			}
			return s, nil
		}
		if v := pickModern(supportedVersions(rpc)); v != "" {
			modern = v
		}
		if err := reopen(); err != nil {
			return nil, err
		}
		pending = mcp.MethodServerDiscover
		if err := s.start(ctx, modern); err != nil {
			return fail(err)
		}
		return s, nil
	}
	probeTimedOut := false
	pending = mcp.MethodServerDiscover
	for attempt := 0; ; attempt++ {
		pctx, cancel := context.WithTimeout(ctx, probeTimeout)
		_, err := s.discover(pctx, modern)
		var timeout *TimeoutError
		probeTimedOut = (pctx.Err() != nil || errors.As(err, &timeout)) && ctx.Err() == nil
		probeUnanswered = probeUnanswered || probeTimedOut
		cancel()
		if err == nil {
			return s, nil
		}
		if ctx.Err() != nil {
			return fail(fmt.Errorf("%s: %w", mcp.MethodServerDiscover, context.Cause(ctx)))
		}
		var unsupported *UnsupportedVersionError
		if errors.As(err, &unsupported) && len(unsupported.Supported) == 0 {
			// An answer with no supportedVersions is not a 2026-07-28 server's (some older
			// servers answer any method with {}).
		} else if rpc, ok := modernError(err); ok || unsupported != nil {
			supported := []string(nil)
			if ok {
				supported = supportedVersions(rpc)
			} else {
				supported = unsupported.Supported
			}
			// A -32022 naming a version this client speaks is answered by asking again with
			// it, once (even the same one: the refusal may have been passing).
			if v := pickModern(supported); v != "" && attempt == 0 && (ok && rpc.Code == mcp.CodeUnsupportedProtocolVersion || v != modern) {
				modern = v
				continue
			}
			if !slices.ContainsFunc(supported, mcp.IsSupportedProtocolVersion) {
				if ok && rpc.Code != mcp.CodeUnsupportedProtocolVersion || pickModern(supported) != "" {
					return fail(fmt.Errorf("%s: %w", mcp.MethodServerDiscover, err))
				}
				return fail(&UnsupportedVersionError{Requested: modern, Supported: supported})
			}
			// The server speaks an older version too: initialize.
		} else if !probeTimedOut && !olderEra(err) {
			return fail(fmt.Errorf("%s: %w", mcp.MethodServerDiscover, err))
		}
		c.opts.Logger.Debug("the server does not answer server/discover as a 2026-07-28 server; initializing", "error", err)
		break
	}
	if err := reopen(); err != nil {
		return nil, err
	}
	pending = mcp.MethodInitialize
	err = s.initialize(ctx, mcp.LatestProtocolVersion)
	var rpc *jsonrpc.Error
	if _, isModern := modernError(err); isModern || probeTimedOut && errors.As(err, &rpc) {
		// A server of 2026-07-28 after all, one slow to answer the probe (a server that
		// npx is still installing, say): asked again, with no probe deadline. One that
		// speaks both eras and read the probe first is of 2026-07-28 on this connection
		// too, and may refuse initialize with any error (-32601, say).
		pending = mcp.MethodServerDiscover
		if _, derr := s.discover(ctx, modern); derr == nil {
			return s, nil
		}
	}
	s.probeTimedOut = probeTimedOut
	if err != nil {
		return fail(err)
	}
	return s, nil
}

// olderEra reports whether err, the error of a server/discover probe, is how a server of
// the 2025-11-25 era may answer it: any JSON-RPC error, an HTTP error that is not about
// credentials, or the end of the connection (a server that exits on what it does not
// know). A server that cannot be reached, or asks for credentials, is no answer at all.
func olderEra(err error) bool {
	var rpc *jsonrpc.Error
	var herr *transport.HTTPError
	switch {
	case errors.As(err, new(*transport.MessageTooLargeError)):
		return false // an answer this client dropped: it says nothing of the era
	case errors.As(err, new(*jsonrpc.MalformedResponseError)):
		return true // an answer, but not as a 2026-07-28 server gives one (it waited for the probe's deadline before)
	case errors.As(err, &herr):
		return herr.StatusCode != 401 && herr.StatusCode != 403
	case errors.As(err, &rpc):
		return true
	case errors.Is(err, transport.ErrUnreachable):
		return false
	}
	return errors.Is(err, transport.ErrServerExited) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// pickModern returns the newest version of the 2026-07-28 era this client speaks that
// supported holds, or "".
func pickModern(supported []string) string {
	for _, v := range mcp.ModernProtocolVersions {
		if slices.Contains(supported, v) {
			return v
		}
	}
	return ""
}

// start begins a session of the 2026-07-28 era with server/discover.
func (s *Session) start(ctx context.Context, version string) error {
	_, err := s.discover(ctx, version)
	if refusedOwnVersion(err, version) {
		_, err = s.discover(ctx, version) // once more: the refusal named this very version
	}
	var unsupported *UnsupportedVersionError
	switch {
	case err == nil:
		return nil
	case !errors.As(err, &unsupported) && olderEra(err):
		if _, modern := modernError(err); !modern {
			// A server of the 2025-11-25 era, most likely.
			return fmt.Errorf("%w (%s: %w)", &UnsupportedVersionError{Requested: version}, mcp.MethodServerDiscover, err)
		}
	}
	return fmt.Errorf("%s: %w", mcp.MethodServerDiscover, err)
}

// open connects t and sets up a session on it, with no request sent yet.
func (c *Client) open(ctx context.Context, t transport.Transport) (*Session, error) {
	return c.openAt(ctx, t, 0)
}

// openAt is open with the requests' ids counting up from firstID (0: from 1).
func (c *Client) openAt(ctx context.Context, t transport.Transport, firstID int64) (*Session, error) {
	conn, err := t.Connect(ctx)
	if err != nil {
		return nil, err
	}
	hs, _ := ctx.Value(handshakeKey{}).(*handshake)
	s := &Session{
		client: c,
		raw:    conn,
		log:    c.opts.Logger,
		now:    c.opts.Now,
		roots:  c.opts.Roots,
		tools:  map[string]*mcp.Tool{},
		ended:  make(chan struct{}),
	}
	if lw, ok := conn.(interface{ LocalWrites() bool }); ok {
		s.localWrites = lw.LocalWrites()
	}
	if r, ok := conn.(reachability); ok {
		s.reach = r
	}
	s.tasks.init()
	s.recv = s.newReceiver()
	s.conn = jsonrpc.NewConn(conn, jsonrpc.Options{
		Handler:          jsonrpc.HandlerFunc(s.handle),
		Logger:           c.opts.Logger,
		MaxInFlight:      max(c.opts.MaxServerRequests, 0),
		MaxInFlightBytes: max(c.opts.MaxServerRequestBytes, 0),
		FirstID:          firstID,
		Tap: func(dir jsonrpc.Direction, m jsonrpc.Message) {
			record := hs != nil && hs.recording()
			if !record && !s.events.active() {
				return
			}
			ev := &MessageEvent{At: At{s.now()}, Dir: dir, Message: m}
			if record {
				hs.add(ev)
			}
			if s.events.active() { // the raw traffic view, when someone shows it
				s.events.publish(ev)
			}
		},
	})
	if s.reach != nil {
		go s.watchReach()
	}
	go func() {
		<-s.conn.Done()
		s.tasks.endAll(s.conn.Err()) // the tasks no follower watches
		s.tasks.polls.stop()
		s.tasks.followers.Close()
		if s.recv != nil {
			s.recv.Close() // receiver tasks are bound to this session
		}
		s.events.close(&ClosedEvent{At: At{s.now()}, Err: s.conn.Err()})
		close(s.ended)
	}()
	return s, nil
}

// initialize performs the handshake of the 2025-11-25 era, asking for version.
func (s *Session) initialize(ctx context.Context, version string) error {
	var res mcp.InitializeResult
	caps := *s.client.capabilities()
	if !mcp.HasCoreTasks(version) {
		caps.Tasks = nil // the revision has no Tasks: the client hosts none in it
	}
	err := s.send(ctx, mcp.MethodInitialize, &mcp.InitializeParams{
		ProtocolVersion: version,
		Capabilities:    caps,
		ClientInfo:      s.client.impl,
	}, &res)
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	if !mcp.IsSupportedProtocolVersion(res.ProtocolVersion) {
		return &VersionError{Version: res.ProtocolVersion}
	}
	s.initResult = &res
	if err := s.conn.Notify(ctx, mcp.NotificationInitialized, nil); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	return nil
}

// UnknownVersionError is an [Options.ProtocolVersion] that mcpi does not know: Connect
// refuses it rather than speak another.
type UnknownVersionError struct{ Version string }

func (e *UnknownVersionError) Error() string {
	known := append(slices.Clone(mcp.ModernProtocolVersions), mcp.SupportedProtocolVersions...)
	return fmt.Sprintf("mcpi does not know protocol version %q: it speaks %s (or %s, whichever the server speaks)", e.Version, strings.Join(known, ", "), ProtocolAuto)
}

// VersionError is a server that chose, in its initialize result, a protocol version this
// client does not speak.
type VersionError struct{ Version string }

func (e *VersionError) Error() string {
	return fmt.Sprintf("the server chose protocol version %q, which mcpi does not speak", e.Version)
}

// InitializeResult is what the server said about itself.
func (s *Session) InitializeResult() *mcp.InitializeResult { return s.initResult }

// ServerCapabilities is the server's declaration (never nil).
func (s *Session) ServerCapabilities() *mcp.ServerCapabilities { return &s.initResult.Capabilities }

// Subscribe returns a subscription to the session's events from now on. A reader that
// falls far behind loses the oldest events it has not read: a [DroppedEvent] stands in
// their place.
func (s *Session) Subscribe() *Subscription { return s.events.subscribe() }

// Done is closed when the session has ended and what was bound to it is freed; Err then
// says why.
func (s *Session) Done() <-chan struct{} { return s.ended }

// Err is why the session ended, or nil while it is open.
func (s *Session) Err() error { return s.conn.Err() }

// abandon closes a session whose start failed. Once ctx has ended, the transport's
// shutdown is hurried (see transport.Command), so that Connect does not outlast its
// context by the grace periods a server process gets to stop.
func (s *Session) abandon(ctx context.Context) {
	if c, ok := s.raw.(interface{ CloseContext(context.Context) error }); ok {
		_ = c.CloseContext(ctx)
	}
	s.conn.Close()
}

// Close ends the session and waits until what was bound to it is freed.
func (s *Session) Close() error {
	err := s.conn.Close()
	<-s.ended
	return err
}

// Ping checks that the server answers: with ping, or with server/discover in the
// 2026-07-28 era, which has no ping.
func (s *Session) Ping(ctx context.Context) error {
	if s.modern != nil {
		return s.send(ctx, mcp.MethodServerDiscover, nil, nil)
	}
	return s.send(ctx, mcp.MethodPing, nil, nil)
}

// ProtocolVersion is the protocol version the session speaks.
func (s *Session) ProtocolVersion() string { return s.initResult.ProtocolVersion }

// ProbeTimedOut reports whether the session speaks the 2025-11-25 era for want of an
// answer: in auto mode the server did not answer server/discover within
// [Options.ProbeTimeout], and then answered initialize. A server that was slow to start
// may speak 2026-07-28 as well, so such an era is worth checking again sooner than one
// the server stated (by refusing server/discover).
func (s *Session) ProbeTimedOut() bool { return s.probeTimedOut }

// Modern reports whether the session speaks the 2026-07-28 era (server/discover,
// per-request _meta, MRTR, the Tasks extension) rather than the 2025-11-25 era
// (initialize, a session, server requests, core Tasks).
func (s *Session) Modern() bool { return s.modern != nil }

// Discover is the server/discover result of a session of the 2026-07-28 era (nil in the
// 2025-11-25 era).
func (s *Session) Discover() *mcp.DiscoverResult {
	if s.modern == nil {
		return nil
	}
	return s.modern.discover
}

// NewProgressToken returns a token unique within the session, to put in a request's
// _meta so that [ProgressEvent]s can be matched to it.
func (s *Session) NewProgressToken() string {
	return fmt.Sprintf("mcpi-%d", s.nextToken.Add(1))
}

// call is send with the method name in the error.
func (s *Session) call(ctx context.Context, method string, params, result any) error {
	if err := s.send(ctx, method, params, result); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}

// send sends one request and decodes its result: in the 2026-07-28 era through
// exchangeModern (task requests declaring the Tasks extension), in the 2025-11-25 era
// as it is.
func (s *Session) send(ctx context.Context, method string, params, result any) error {
	if s.modern != nil {
		return s.exchangeModern(ctx, method, params, result, strings.HasPrefix(method, "tasks/"))
	}
	return s.bounded(ctx, method, params, result)
}

// bounded is conn.Call, bounded by [Options.RequestTimeout] unless method is
// tasks/result. Tool calls and task requests are written by their params' own
// MarshalJSON, which the connection calls directly.
func (s *Session) bounded(ctx context.Context, method string, params, result any) error {
	bctx, cancel, explain := s.deadline(ctx, method)
	defer cancel()
	return explain(s.conn.Call(bctx, method, params, result))
}

// deadline bounds ctx by [Options.RequestTimeout] for a request of method (tasks/result,
// which waits for its task by design, is not bounded). explain turns the error of a
// call made on the bounded context into the [TimeoutError] when the bound, not ctx,
// ended it.
func (s *Session) deadline(ctx context.Context, method string) (context.Context, context.CancelFunc, func(error) error) {
	d := s.client.opts.RequestTimeout
	if d <= 0 || method == mcp.MethodTasksResult {
		return ctx, func() {}, func(err error) error { return err }
	}
	bctx, cancel := context.WithTimeoutCause(ctx, d, &TimeoutError{Method: method, Timeout: d})
	explain := func(err error) error {
		if err != nil && bctx.Err() != nil && ctx.Err() == nil {
			return context.Cause(bctx)
		}
		return err
	}
	return bctx, cancel, explain
}

// TimeoutError is a request that the server did not answer within
// [Options.RequestTimeout]; it was withdrawn. It matches context.DeadlineExceeded.
type TimeoutError struct {
	Method  string
	Timeout time.Duration
	// After is the request that the same bound covered before Method, and that went
	// unanswered too: server/discover, the probe of a handshake in auto mode, for an
	// initialize.
	After string
}

func (e *TimeoutError) Error() string {
	if e.After != "" {
		return fmt.Sprintf("the server did not answer %s, nor then %s, within %s", e.After, e.Method, e.Timeout)
	}
	return fmt.Sprintf("the server did not answer %s within %s", e.Method, e.Timeout)
}

// Unwrap returns context.DeadlineExceeded.
func (e *TimeoutError) Unwrap() error { return context.DeadlineExceeded }

// CancelReason is what the server is told of the request withdrawn (the reason of its
// notifications/cancelled).
func (e *TimeoutError) CancelReason() string {
	return fmt.Sprintf("the client gave up after its timeout of %s", shortDuration(e.Timeout))
}

// shortDuration writes d as "30s", "1.5s" or "250ms", not as "1m0s".
func shortDuration(d time.Duration) string {
	if d >= time.Second {
		return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
	}
	return d.String()
}

// ErrCancelledByUser is the cause to end a call's context with when the user cancels the
// call (context.WithCancelCause): the server is told "cancelled by the user" in the
// notifications/cancelled that withdraws the request. The call's error is still
// context.Canceled (errors.Is), in 2026-07-28 too, where a call waiting on the user's
// input ends with its context's cause. Any other cause is told by its message, or by a
// CancelReason method ([jsonrpc.CancelReasoner]).
var ErrCancelledByUser error = cancelledByUser{}

// cancelledByUser is a cancellation: a front end that tells a stopped call from a
// failed one by context.Canceled reads it as stopped, whichever era ended it.
type cancelledByUser struct{}

func (cancelledByUser) Error() string        { return "cancelled by the user" }
func (cancelledByUser) Is(target error) bool { return target == context.Canceled }

// ListTools returns one page of tools; nil p asks for the first.
func (s *Session) ListTools(ctx context.Context, p *mcp.ListToolsParams) (*mcp.ListToolsResult, error) {
	r, err := list[mcp.ListToolsResult](ctx, s, mcp.MethodToolsList, (*mcp.PaginatedParams)(p))
	if err == nil {
		r.Tools = s.admit(r.Tools)
		s.remember(r.Tools)
	}
	return r, err
}

// Tools ranges over every tool from p's cursor on (nil p: from the first), fetching
// pages as needed.
func (s *Session) Tools(ctx context.Context, p *mcp.ListToolsParams) iter.Seq2[mcp.Tool, error] {
	return paginate(ctx, s, mcp.MethodToolsList, (*mcp.PaginatedParams)(p), func(r *mcp.ListToolsResult) ([]mcp.Tool, string) {
		r.Tools = s.admit(r.Tools)
		s.remember(r.Tools)
		return r.Tools, r.NextCursor
	})
}

// admit leaves out, on Streamable HTTP in the 2026-07-28 era, the tools whose
// x-mcp-header declarations are invalid: the spec has the client reject them, as their
// calls could not carry the headers the server routes on.
func (s *Session) admit(tools []mcp.Tool) []mcp.Tool {
	if s.modern == nil || !s.modern.headers {
		return tools
	}
	kept := tools[:0]
	for i := range tools {
		if _, err := tools[i].HeaderParams(); err != nil {
			s.log.Warn("tool left out", "tool", tools[i].Name, "reason", err)
			continue
		}
		kept = append(kept, tools[i])
	}
	return kept
}

// remember keeps tools for [Session.Tool].
func (s *Session) remember(tools []mcp.Tool) {
	s.mu.Lock()
	for i := range tools {
		s.tools[tools[i].Name] = &tools[i]
	}
	s.mu.Unlock()
}

// Tool returns a tool by name from the last listing, listing the tools if it is unknown.
func (s *Session) Tool(ctx context.Context, name string) (*mcp.Tool, error) {
	s.mu.Lock()
	t, ok := s.tools[name]
	s.mu.Unlock()
	if ok {
		return t, nil
	}
	for t, err := range s.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		if t.Name == name {
			return &t, nil
		}
	}
	return nil, &UnknownToolError{Name: name}
}

// UnknownToolError says the server has no tool of that name.
type UnknownToolError struct{ Name string }

func (e *UnknownToolError) Error() string {
	return fmt.Sprintf("the server has no tool named %q", e.Name)
}

// CallTool calls a tool and waits for its result; opts may be nil. It never runs the
// call as a task: a tool that runs only as one gives a [*TaskSupportError] in either
// era, and is called with [Session.CallToolTask], [Session.RunToolTask] or
// [Session.StartToolTask]. In 2025-11-25 a tool whose taskSupport is required is refused
// locally ([CallOptions.SendAnyway] sends it all the same); in 2026-07-28, where the
// server decides per call, it is the server's refusal (-32021 naming the Tasks
// extension), which the error wraps.
func (s *Session) CallTool(ctx context.Context, p *mcp.CallToolParams, opts *CallOptions) (*mcp.CallToolResult, error) {
	if opts == nil {
		opts = &CallOptions{}
	}
	if !opts.SendAnyway {
		if err := s.checkTaskSupport(ctx, p.Name, false); err != nil {
			return nil, err
		}
	}
	if opts.Progress {
		if _, ok := p.Meta.ProgressToken(); !ok {
			cp := *p
			cp.Meta = p.Meta.Clone()
			cp.Meta.SetProgressToken(s.NewProgressToken())
			p = &cp
		}
	}
	var r mcp.CallToolResult
	if err := s.call(ctx, mcp.MethodToolsCall, p, &r); err != nil {
		if s.modern != nil && needsTaskCall(err) {
			return nil, &TaskSupportError{Tool: p.Name, Support: mcp.TaskSupportRequired, Err: err}
		}
		return nil, err
	}
	return &r, nil
}

// ListPrompts returns one page of prompts; nil p asks for the first.
func (s *Session) ListPrompts(ctx context.Context, p *mcp.ListPromptsParams) (*mcp.ListPromptsResult, error) {
	return list[mcp.ListPromptsResult](ctx, s, mcp.MethodPromptsList, (*mcp.PaginatedParams)(p))
}

// Prompts ranges over every prompt from p's cursor on (nil p: from the first).
func (s *Session) Prompts(ctx context.Context, p *mcp.ListPromptsParams) iter.Seq2[mcp.Prompt, error] {
	return paginate(ctx, s, mcp.MethodPromptsList, (*mcp.PaginatedParams)(p), func(r *mcp.ListPromptsResult) ([]mcp.Prompt, string) {
		return r.Prompts, r.NextCursor
	})
}

// GetPrompt renders a prompt.
func (s *Session) GetPrompt(ctx context.Context, p *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
	var r mcp.GetPromptResult
	if err := s.call(ctx, mcp.MethodPromptsGet, p, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// ListResources returns one page of resources; nil p asks for the first.
func (s *Session) ListResources(ctx context.Context, p *mcp.ListResourcesParams) (*mcp.ListResourcesResult, error) {
	return list[mcp.ListResourcesResult](ctx, s, mcp.MethodResourcesList, (*mcp.PaginatedParams)(p))
}

// Resources ranges over every resource from p's cursor on (nil p: from the first).
func (s *Session) Resources(ctx context.Context, p *mcp.ListResourcesParams) iter.Seq2[mcp.Resource, error] {
	return paginate(ctx, s, mcp.MethodResourcesList, (*mcp.PaginatedParams)(p), func(r *mcp.ListResourcesResult) ([]mcp.Resource, string) {
		return r.Resources, r.NextCursor
	})
}

// ListResourceTemplates returns one page of resource templates; nil p asks for the
// first.
func (s *Session) ListResourceTemplates(ctx context.Context, p *mcp.ListResourceTemplatesParams) (*mcp.ListResourceTemplatesResult, error) {
	return list[mcp.ListResourceTemplatesResult](ctx, s, mcp.MethodResourcesTemplatesList, (*mcp.PaginatedParams)(p))
}

// ResourceTemplates ranges over every resource template from p's cursor on (nil p: from
// the first).
func (s *Session) ResourceTemplates(ctx context.Context, p *mcp.ListResourceTemplatesParams) iter.Seq2[mcp.ResourceTemplate, error] {
	return paginate(ctx, s, mcp.MethodResourcesTemplatesList, (*mcp.PaginatedParams)(p), func(r *mcp.ListResourceTemplatesResult) ([]mcp.ResourceTemplate, string) {
		return r.ResourceTemplates, r.NextCursor
	})
}

// ReadResource reads a resource.
func (s *Session) ReadResource(ctx context.Context, p *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
	var r mcp.ReadResourceResult
	if err := s.call(ctx, mcp.MethodResourcesRead, p, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// SubscribeResource asks for [ResourceUpdatedEvent]s about uri. In the 2026-07-28 era,
// which has no resources/subscribe, it opens a subscriptions/listen stream for uri that
// lasts until [Session.UnsubscribeResource] or the session's end, and returns once the
// server has acknowledged it: an error when the server refuses the stream, ends it first,
// or acknowledges it without uri ([ErrSubscriptionRefused]).
func (s *Session) SubscribeResource(ctx context.Context, uri string) error {
	if s.modern != nil {
		return s.listenResource(ctx, uri)
	}
	return s.call(ctx, mcp.MethodResourcesSubscribe, &mcp.SubscribeParams{URI: uri}, nil)
}

// ErrSubscriptionRefused is the error of a 2026-07-28 [Session.SubscribeResource] that
// the server acknowledged without the resource.
var ErrSubscriptionRefused = errors.New("the server acknowledged the subscription without the resource")

// resourceListen is a 2026-07-28 resource subscription: its stream, which cancel withdraws.
type resourceListen struct{ cancel context.CancelFunc }

// listenResource is SubscribeResource in the 2026-07-28 era.
func (s *Session) listenResource(ctx context.Context, uri string) error {
	w := s.modern
	raw, err := w.params(&mcp.ListenParams{Notifications: mcp.ListenFilter{ResourceSubscriptions: []string{uri}}}, false)
	if err != nil {
		return &jsonrpc.CallError{Method: mcp.MethodSubscriptionsListen, Op: jsonrpc.OpEncode, Err: err}
	}
	acked := make(chan []string, 1)
	ended := make(chan error, 1)
	lctx, cancel := context.WithCancel(context.Background())
	var id jsonrpc.ID
	gctx := jsonrpc.WithRequestID(lctx, func(i jsonrpc.ID) {
		// Before the request is written: its acknowledgement cannot come first.
		id = i
		w.listenMu.Lock()
		if w.resourceAcks == nil {
			w.resourceAcks = map[jsonrpc.ID]chan<- []string{}
		}
		w.resourceAcks[i] = acked
		w.listenMu.Unlock()
	})
	err = s.conn.Go(gctx, mcp.MethodSubscriptionsListen, raw, func(_ json.RawMessage, err error) {
		w.resourceAcked(id)
		if lctx.Err() != nil {
			err = nil // withdrawn: unsubscribed, or never acknowledged
		} else if err != nil {
			s.log.Warn("the resource subscription ended", "uri", uri, "error", err)
		}
		ended <- err
	})
	if err != nil {
		cancel()
		w.resourceAcked(id)
		return err
	}
	l := &resourceListen{cancel: cancel}
	drop := func() {
		cancel()
		s.mu.Lock()
		if s.listens[uri] == l {
			delete(s.listens, uri)
		}
		s.mu.Unlock()
	}
	s.mu.Lock()
	if s.listens == nil {
		s.listens = map[string]*resourceListen{}
	}
	if old := s.listens[uri]; old != nil {
		old.cancel()
	}
	s.listens[uri] = l
	s.mu.Unlock()
	select {
	case got := <-acked:
		if !slices.Contains(got, uri) {
			drop()
			return fmt.Errorf("%s of %s: %w", mcp.MethodSubscriptionsListen, uri, ErrSubscriptionRefused)
		}
		return nil
	case err := <-ended:
		drop()
		if err == nil {
			return fmt.Errorf("%s of %s: the server ended the stream before it acknowledged it", mcp.MethodSubscriptionsListen, uri)
		}
		return fmt.Errorf("%s: %w", mcp.MethodSubscriptionsListen, err)
	case <-ctx.Done():
		drop()
		return ctx.Err()
	}
}

// UnsubscribeResource undoes [Session.SubscribeResource].
func (s *Session) UnsubscribeResource(ctx context.Context, uri string) error {
	if s.modern != nil {
		s.mu.Lock()
		l := s.listens[uri]
		delete(s.listens, uri)
		s.mu.Unlock()
		if l != nil {
			l.cancel()
		}
		return nil
	}
	return s.call(ctx, mcp.MethodResourcesUnsubscribe, &mcp.UnsubscribeParams{URI: uri}, nil)
}

// SetLogLevel chooses which server log messages arrive. In the 2026-07-28 era, which
// has no logging/setLevel, every later request asks for them in its _meta.
func (s *Session) SetLogLevel(ctx context.Context, level mcp.LoggingLevel) error {
	if s.modern != nil {
		// Here no server sees the level before requests carry it: this is its check.
		if level.Severity() < 0 {
			return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "unknown logging level %q", level)
		}
		s.modern.logLevel.Store(&level)
		return nil
	}
	return s.call(ctx, mcp.MethodLoggingSetLevel, &mcp.SetLevelParams{Level: level}, nil)
}

// Complete asks for argument completions.
func (s *Session) Complete(ctx context.Context, p *mcp.CompleteParams) (*mcp.CompleteResult, error) {
	var r mcp.CompleteResult
	if err := s.call(ctx, mcp.MethodCompletionComplete, p, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// SetRoots replaces the roots and tells the server they changed.
func (s *Session) SetRoots(ctx context.Context, roots []mcp.Root) error {
	s.mu.Lock()
	s.roots = roots
	s.mu.Unlock()
	if s.modern != nil {
		return nil // the server asks for roots with each request that needs them
	}
	return s.conn.Notify(ctx, mcp.NotificationRootsListChanged, nil)
}

// list fetches one page of a list method; nil p asks for the first.
func list[R any](ctx context.Context, s *Session, method string, p *mcp.PaginatedParams) (*R, error) {
	if p == nil {
		p = &mcp.PaginatedParams{}
	}
	var r R
	if err := s.call(ctx, method, p, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// paginate ranges over the items of every page of a list method, from p's cursor on
// (nil p: from the first), with p's _meta on every request; page takes a result's items
// and next cursor. An error ends it, and so do a cursor the server gives twice and the
// bounds of [Options.MaxPages] and [Options.MaxItems].
func paginate[R, T any](ctx context.Context, s *Session, method string, p *mcp.PaginatedParams, page func(*R) ([]T, string)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		q := mcp.PaginatedParams{}
		if p != nil {
			q = *p
		}
		o := &s.client.opts
		limit := &ListLimitError{Method: method, MaxPages: o.MaxPages, MaxItems: o.MaxItems}
		seen := map[string]bool{}
		for {
			r, err := list[R](ctx, s, method, &q)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			limit.Pages++
			items, next := page(r)
			for _, it := range items {
				if o.MaxItems > 0 && limit.Items == o.MaxItems {
					var zero T
					limit.ItemBound = true
					yield(zero, limit)
					return
				}
				limit.Items++
				if !yield(it, nil) {
					return
				}
			}
			if next == "" {
				return
			}
			if o.MaxPages > 0 && limit.Pages == o.MaxPages {
				var zero T
				yield(zero, limit)
				return
			}
			if seen[next] {
				var zero T
				yield(zero, fmt.Errorf("the server returned cursor %q twice; stopping to avoid a loop", next))
				return
			}
			seen[next] = true
			q.Cursor = next
		}
	}
}

// ListLimitError ends a listing that reached [Options.MaxPages] or [Options.MaxItems]
// while the server had more to give: Pages and Items count what was fetched and yielded,
// and ItemBound tells which bound it was.
type ListLimitError struct {
	Method             string
	Pages, Items       int
	MaxPages, MaxItems int
	ItemBound          bool
}

func (e *ListLimitError) Error() string {
	if e.ItemBound {
		return fmt.Sprintf("%s: stopped at the bound of %s, with more to come", e.Method, plural.Count(e.MaxItems, "item", "items"))
	}
	return fmt.Sprintf("%s: stopped at the bound of %s, with more to come", e.Method, plural.Count(e.MaxPages, "page", "pages"))
}

// handle serves what the server sends: its requests, answered (those that wait for the
// user on their own goroutine), and its notifications, which the connection hands over
// one at a time on its reading goroutine and which therefore never wait. A request method
// sent as a notification (no id) is ignored, as there is no one to answer, and so is a
// notification whose params are an array; such a request gets -32602.
func (s *Session) handle(ctx context.Context, req *jsonrpc.Request) (any, error) {
	if p := req.Params; len(p) > 0 && p[0] == '[' {
		// JSON-RPC allows positional params; MCP names every one.
		if req.IsNotification() {
			return nil, nil
		}
		return nil, mcp.ErrParamsArray
	}
	if req.IsNotification() {
		s.notification(req)
		return nil, nil
	}
	if s.modern != nil {
		s.log.Warn("server bug: a server of the 2026-07-28 era sent a request", "method", req.Method)
		return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "a server of protocol version %s sends no requests (%s)", s.modern.version, req.Method)
	}
	switch req.Method {
	case mcp.MethodPing:
		return struct{}{}, nil
	case mcp.MethodRootsList:
		s.mu.Lock()
		roots := s.roots
		s.mu.Unlock()
		if roots == nil {
			roots = []mcp.Root{}
		}
		return &mcp.ListRootsResult{Roots: roots}, nil
	case mcp.MethodSamplingCreateMessage, mcp.MethodElicitationCreate:
		return s.queue(ctx, req)
	case mcp.MethodTasksGet, mcp.MethodTasksResult, mcp.MethodTasksList, mcp.MethodTasksCancel:
		return s.handleReceiverTasks(ctx, req)
	}
	return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "method not found: %s", req.Method)
}

// notification takes one notification of the server's.
func (s *Session) notification(req *jsonrpc.Request) {
	now := s.now()
	switch req.Method {
	case mcp.NotificationMessage:
		var p mcp.LoggingMessageNotificationParams
		if json.Unmarshal(req.Params, &p) == nil {
			s.events.publish(&LogEvent{At: At{now}, Params: p})
		}
	case mcp.NotificationProgress:
		var p mcp.ProgressNotificationParams
		if json.Unmarshal(req.Params, &p) == nil {
			s.events.publish(&ProgressEvent{At: At{now}, Params: p})
			s.progressed(&p)
		}
	case mcp.NotificationTasksStatus:
		var p mcp.TaskStatusNotificationParams
		if p.UnmarshalJSON(req.Params) == nil && p.TaskID != "" {
			s.statusNotification(p.Task)
		}
	case mcp.NotificationTasks:
		var d mcp.DetailedTask
		if d.UnmarshalJSON(req.Params) == nil && d.TaskID != "" {
			s.detailNotification(&d)
		}
	case mcp.NotificationSubscriptionsAcknowledged:
		s.listenAcknowledged(req.Params)
	case mcp.NotificationToolsListChanged:
		s.mu.Lock()
		clear(s.tools)
		s.mu.Unlock()
		s.events.publish(&ListChangedEvent{At: At{now}, Method: req.Method})
	case mcp.NotificationPromptsListChanged, mcp.NotificationResourcesListChanged:
		s.events.publish(&ListChangedEvent{At: At{now}, Method: req.Method})
	case mcp.NotificationResourcesUpdated:
		var p mcp.ResourceUpdatedNotificationParams
		if json.Unmarshal(req.Params, &p) == nil {
			s.events.publish(&ResourceUpdatedEvent{At: At{now}, URI: p.URI})
		}
	}
}

// errNoAnswer is the cause of a request withdrawn because the session ended.
var errNoAnswer = errors.New("the request was withdrawn before it was answered")

// AllCapabilities is what a client declares when a person answers every request a server
// may send: roots, sampling, form and URL elicitation, and (in 2025-11-25) sampling and
// elicitation run as tasks, listed and cancelled. mcpi's inspectors declare it.
func AllCapabilities() *mcp.ClientCapabilities {
	return &mcp.ClientCapabilities{
		Roots:       &mcp.RootsCapability{},
		Sampling:    &mcp.SamplingCapability{},
		Elicitation: &mcp.ElicitationCapability{Form: &struct{}{}, URL: &struct{}{}},
		Tasks: &mcp.ClientTasksCapability{
			List:   &struct{}{},
			Cancel: &struct{}{},
			Requests: &mcp.ClientTaskRequests{
				Sampling:    &mcp.TaskSamplingRequests{CreateMessage: &struct{}{}},
				Elicitation: &mcp.TaskElicitationRequests{Create: &struct{}{}},
			},
		},
	}
}

// reachability is a connection that says whether the server answers (HTTP, whose server
// can go away without ending anything).
type reachability interface {
	Reachability() (changed <-chan struct{}, err error)
}

// Unreachable returns why the server of a Streamable HTTP session is not answering: the
// error (matching transport.ErrUnreachable) of the latest request, which found nothing
// listening at its URL. It is nil while the server answers, and for other transports,
// whose end ends the session.
func (s *Session) Unreachable() error {
	if s.reach == nil {
		return nil
	}
	_, err := s.reach.Reachability()
	return err
}

// watchReach publishes a [ReachabilityEvent] at each change of the server's
// reachability, until the session ends.
func (s *Session) watchReach() {
	changed, _ := s.reach.Reachability()
	for {
		select {
		case <-changed:
		case <-s.conn.Done():
			return
		}
		var err error
		changed, err = s.reach.Reachability()
		if err != nil {
			// No notification comes from a server that is gone: the tasks that waited
			// for them poll at their own interval, and so learn of it sooner.
			for _, t := range s.tasks.all() {
				t.streamLost()
			}
		}
		s.events.publish(&ReachabilityEvent{At: At{s.now()}, Err: err})
	}
}
