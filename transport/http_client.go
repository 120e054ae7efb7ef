package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mcpi-dev/mcpi/internal/loglimit"
	"github.com/mcpi-dev/mcpi/internal/pause"
	"github.com/mcpi-dev/mcpi/internal/plural"
	"github.com/mcpi-dev/mcpi/internal/redact"
	"github.com/mcpi-dev/mcpi/jsonrpc"
)

// HTTPClient is a [Transport] that speaks MCP's Streamable HTTP transport to the server at
// URL: every message is POSTed, responses arrive as a JSON body or an SSE stream, the
// server's own messages also arrive on a standalone GET stream, and dropped streams are
// resumed with Last-Event-ID.
type HTTPClient struct {
	// URL is the server's endpoint. The errors of the connection name it with its
	// password and the values of its query as xxxxx (?token=xxxxx), since errors are
	// logged and a server's key is often passed there.
	URL string
	// Header holds extra headers for every request, such as Authorization.
	Header http.Header
	// Client sends the requests; nil means a client of the connection's own, without an
	// overall timeout (SSE streams last as long as the session), whose transport keeps up
	// to [MaxIdleConnsPerHost] idle connections to the server and drops them when the
	// connection is closed; a burst of requests is spread over that many connections
	// rather than dialling one each. Whatever the client, redirects are followed only
	// within the server's origin (see [RedirectError]), unless it has a CheckRedirect of
	// its own.
	Client *http.Client
	// Auth, when set, authorizes the requests: it wraps the round tripper of Client (or
	// of the client made for the connection). [auth.Flow] is one, which runs the MCP
	// authorization flow when the server answers 401 or 403 insufficient_scope and sends
	// the request again with its token; a request it cannot authorize fails with the
	// flow's error.
	Auth Authorizer
	// MaxMessageSize bounds one inbound message; 0 means [DefaultMaxMessageSize].
	MaxMessageSize int
	// MaxReconnects bounds consecutive failed attempts to resume a dropped stream; 0
	// means 5.
	MaxReconnects int
	Logger        *slog.Logger

	// sleep waits between reconnection attempts; tests replace it.
	sleep func(ctx context.Context, d time.Duration) error
}

// An Authorizer adds authorization to the HTTP requests of an [HTTPClient] by wrapping
// their round tripper; [auth.Flow] is one.
type Authorizer interface {
	Wrap(base http.RoundTripper) http.RoundTripper
}

// wrapAuth puts a in front of base, telling the errors of a's own from those of base
// that a passes on: the connection reports the former as they are (see authFailure).
func wrapAuth(a Authorizer, base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return authTagger{rt: a.Wrap(baseTagger{rt: base})}
}

// authFailure is an error of an [Authorizer]'s round tripper that is not its base's.
type authFailure struct{ err error }

func (e *authFailure) Error() string { return e.err.Error() }
func (e *authFailure) Unwrap() error { return e.err }

// baseError is an error of the base round tripper, on its way through an Authorizer.
type baseError struct{ err error }

func (e *baseError) Error() string { return e.err.Error() }
func (e *baseError) Unwrap() error { return e.err }

type baseTagger struct{ rt http.RoundTripper }

func (t baseTagger) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.rt.RoundTrip(r)
	if err != nil {
		return nil, &baseError{err}
	}
	return resp, nil
}

func (t baseTagger) CloseIdleConnections() { closeIdle(t.rt) }

type authTagger struct{ rt http.RoundTripper }

func (t authTagger) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.rt.RoundTrip(r)
	if err != nil {
		if be, ok := errors.AsType[*baseError](err); ok {
			return nil, be.err
		}
		return nil, &authFailure{err}
	}
	return resp, nil
}

func (t authTagger) CloseIdleConnections() { closeIdle(t.rt) }

func closeIdle(rt http.RoundTripper) {
	if c, ok := rt.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// ErrUnreachable wraps the error of a request that could not reach the server at all
// (nothing listening, unknown host, no route), as opposed to a server that answered badly.
var ErrUnreachable = errors.New("server unreachable")

// ErrSessionExpired ends a connection whose server answered 404 to a request carrying the
// session id: the server ended the session, and a new one must be initialized.
var ErrSessionExpired = errors.New("the server ended the session")

// errClientClosed is returned by writes after Close, and by those Close ended while they
// waited for the answer to start. It matches [jsonrpc.ErrClosed], as the end of every
// connection does.
var errClientClosed error = closedError("transport: the HTTP connection is closed")

// closedError is an error that matches [jsonrpc.ErrClosed].
type closedError string

func (e closedError) Error() string { return string(e) }

// Is reports whether target is [jsonrpc.ErrClosed].
func (e closedError) Is(target error) bool { return target == jsonrpc.ErrClosed }

// RedirectError is a redirect to another origin (scheme, host and port), which the HTTP
// client does not follow: the request would take the caller's headers (credentials
// among them), the session id and the message itself to a server the caller did not
// name, and a session lives on one endpoint. The caller may name Location instead.
//
// URL is the server's URL, its password and the values of its query as xxxxx, as every
// URL in the HTTP client's errors (which are logged); Location is as the server sent it,
// for a caller that chooses to follow it, and redacted in the message.
type RedirectError struct {
	URL, Location string
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("%s redirected to %s, another origin, which is not followed", e.URL, redact.URL(e.Location))
}

// redirectWithinOrigin is the CheckRedirect of the HTTP client: redirects are followed
// within the origin of the first request, up to ten of them as net/http does.
func redirectWithinOrigin(req *http.Request, via []*http.Request) error {
	first := via[0].URL
	if origin(req.URL) != origin(first) {
		return &RedirectError{URL: redact.URL(first.String()), Location: req.URL.String()}
	}
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	return nil
}

// origin is u's scheme, host and port, the port spelled out when it is the scheme's.
func origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return u.Scheme + "://" + strings.ToLower(u.Hostname()) + ":" + port
}

// HTTPError is a non-2xx answer from the server.
type HTTPError struct {
	Method string
	// URL is the server's URL, its password and the values of its query as xxxxx: the
	// error is logged, and a server's key is often passed there.
	URL        string
	StatusCode int
	// Message is the server's explanation: the message of a JSON-RPC error body, or the
	// start of the body, or the status text.
	Message string
	// Header holds the response headers (e.g. WWW-Authenticate for a 401).
	Header http.Header
	// RPC is the JSON-RPC error the body held, if it held one: revision 2026-07-28
	// answers its own errors (-32020, -32021, -32022) with HTTP 400 and such a body, and
	// errors.As finds it.
	RPC *jsonrpc.Error
}

func (e *HTTPError) Error() string {
	return fmt.Sprintf("HTTP %d from %s: %s", e.StatusCode, e.URL, e.Message)
}

// Unwrap returns the JSON-RPC error of the body, if any.
func (e *HTTPError) Unwrap() error {
	if e.RPC == nil {
		return nil
	}
	return e.RPC
}

const (
	defaultMaxReconnects = 5
	defaultClientRetry   = time.Second
	maxReconnectDelay    = 30 * time.Second
	// standaloneWait bounds how long sending notifications/initialized waits for the
	// standalone GET stream to be answered, so that server messages sent right after
	// initialization find the stream open.
	standaloneWait = 2 * time.Second
	deleteTimeout  = 5 * time.Second
	// methodListen is the request of 2026-07-28 that holds its stream open.
	methodListen = "subscriptions/listen"
	// drainWait bounds how long the rest of an event stream is read after the response
	// it was opened for has arrived (see HTTPClientConn.finish).
	drainWait = 250 * time.Millisecond
)

// MaxIdleConnsPerHost is how many idle connections to the server the HTTP client of an
// [HTTPClient] without a Client of its own keeps for the next requests. Over HTTP/1.1
// every request in flight takes a connection of its own, so a burst of concurrent calls
// opens as many as it has calls in flight; net/http's default transport keeps only 2 of
// them afterwards, and each later wave of requests (the results of a burst of tasks, the
// next burst) dialled them all again. Each idle connection costs two goroutines and
// about 10 KB of buffers, and all are closed with the connection. It is also how many
// requests of a burst go at once (see requestGate).
const MaxIdleConnsPerHost = 100

// requestGate spreads a burst of requests over few connections. Over HTTP/1.1 a request
// in flight takes a connection of its own, so 1,000 calls launched at once dial 1,000
// connections, on both ends, though each is answered in a millisecond or two. The gate
// lets MaxIdleConnsPerHost requests go at once; the others wait for one of them to end,
// and take its connection, idle by then, instead of dialling another. A request held
// longer than gateHold (a slow tool answering on its event stream, which may ask the
// client something first) gives its place up all the same, so that no request waits on
// another's for long, and none forever.
type requestGate struct{ slots chan struct{} }

// gateHold is how long a request keeps its place in the gate at most (a variable for
// tests).
var gateHold = 100 * time.Millisecond

func newRequestGate(n int) *requestGate { return &requestGate{slots: make(chan struct{}, n)} }

// enter waits for a place, unless ctx ends or done is closed first, and returns the
// function that gives it up (at the latest gateHold from now; calling it again does
// nothing).
func (g *requestGate) enter(ctx context.Context, done <-chan struct{}) (func(), error) {
	select {
	case g.slots <- struct{}{}:
	default:
		select {
		case g.slots <- struct{}{}:
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		case <-done:
			return nil, errClientClosed
		}
	}
	var once sync.Once
	leave := func() { once.Do(func() { <-g.slots }) }
	t := time.AfterFunc(gateHold, leave)
	return func() {
		t.Stop()
		leave()
	}, nil
}

// newHTTPClient is the client of a connection that was given none: net/http's default
// transport, with room for MaxIdleConnsPerHost idle connections.
func newHTTPClient() *http.Client {
	var t *http.Transport
	if dt, ok := http.DefaultTransport.(*http.Transport); ok {
		t = dt.Clone()
	} else {
		t = &http.Transport{Proxy: http.ProxyFromEnvironment, ForceAttemptHTTP2: true}
	}
	t.MaxIdleConnsPerHost = MaxIdleConnsPerHost
	t.MaxIdleConns = max(t.MaxIdleConns, MaxIdleConnsPerHost)
	return &http.Client{Transport: t}
}

// Connect checks the URL and returns a connection. No request is sent until the first
// Write (normally initialize), so an unreachable server shows up there, as an error that
// matches [ErrUnreachable].
func (c *HTTPClient) Connect(ctx context.Context) (jsonrpc.Connection, error) {
	u, err := url.Parse(c.URL)
	if err != nil {
		return nil, fmt.Errorf("invalid server URL %q: %w", redact.URL(c.URL), redact.URLErrors(err))
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("invalid server URL %q: want http:// or https:// and a host", redact.URL(c.URL))
	}
	conn := &HTTPClientConn{
		url:     u.String(),
		shown:   redact.URL(u.String()),
		header:  c.Header.Clone(),
		client:  c.Client,
		max:     c.MaxMessageSize,
		retries: c.MaxReconnects,
		log:     c.Logger,
		sleep:   c.sleep,
		qwake:   make(chan struct{}, 1),
		done:    make(chan struct{}),
		invalidLog: loglimit.Repeated{Level: slog.LevelWarn, Msg: "invalid message from the server",
			Summary: "invalid messages from the server not logged one by one"},
	}
	if conn.client == nil {
		conn.client = newHTTPClient()
		conn.ownClient = true
		conn.gate = newRequestGate(MaxIdleConnsPerHost)
	}
	if conn.client.CheckRedirect == nil || c.Auth != nil {
		hc := *conn.client // the caller's client stays as it is
		if hc.CheckRedirect == nil {
			hc.CheckRedirect = redirectWithinOrigin
		}
		if c.Auth != nil {
			hc.Transport = wrapAuth(c.Auth, hc.Transport)
		}
		conn.client = &hc
	}
	if conn.max <= 0 {
		conn.max = DefaultMaxMessageSize
	}
	if conn.retries <= 0 {
		conn.retries = defaultMaxReconnects
	}
	if conn.log == nil {
		conn.log = slog.New(slog.DiscardHandler)
	}
	if conn.sleep == nil {
		conn.sleep = pause.For
	}
	conn.ctx, conn.cancel = context.WithCancel(context.Background())
	return conn, nil
}

// HTTPClientConn is the client end of a Streamable HTTP session, returned by
// [HTTPClient.Connect].
type HTTPClientConn struct {
	url string
	// shown is url as the connection's errors name it, its secrets as xxxxx (see
	// [HTTPError.URL]).
	shown  string
	header http.Header
	client *http.Client
	// ownClient is set when client was made for this connection: its idle connections
	// are closed with it, and gate spreads its requests over them.
	ownClient bool
	gate      *requestGate
	max       int
	retries   int
	log       *slog.Logger
	sleep     func(ctx context.Context, d time.Duration) error
	// invalidLog bounds the log lines of messages from the server that do not decode:
	// the server sends as many as it likes.
	invalidLog loglimit.Repeated

	ctx    context.Context // lives until Close or a fatal error; parent of every stream
	cancel context.CancelFunc
	wg     sync.WaitGroup

	qmu    sync.Mutex
	queue  []inbound
	qwake  chan struct{}
	done   chan struct{}
	endErr error
	ended  bool

	mu        sync.Mutex
	sessionID string
	version   string
	initID    jsonrpc.ID
	// wrote is set by the first Write; resumed by ResumeSession, until the first answer
	// to a request of the resumed session opens the standalone stream.
	wrote, resumed bool
	// keep is set by KeepSession: Close sends no DELETE.
	keep       bool
	retry      time.Duration // the latest retry any stream advertised
	getStarted bool
	closing    bool // set by Close before it waits for wg: no goroutine may join wg after
	closeOnce  sync.Once

	// unreachable is the error of the latest request that found nothing listening at
	// the URL, nil once a later one got an answer; reachChange is closed when it goes
	// from one to the other (made when first asked for).
	rmu         sync.Mutex
	unreachable error
	reachChange chan struct{}
}

// Reachability returns the error of the latest request that found nothing listening at
// the server's URL (nil: the latest got an answer, or none was sent yet), and a channel
// closed when that changes: over HTTP a server that went away ends no connection, and
// the requests after it fail one by one.
func (c *HTTPClientConn) Reachability() (changed <-chan struct{}, err error) {
	c.rmu.Lock()
	defer c.rmu.Unlock()
	if c.reachChange == nil {
		c.reachChange = make(chan struct{})
	}
	return c.reachChange, c.unreachable
}

// noteReach records how the latest request went: err matching [ErrUnreachable], or nil.
func (c *HTTPClientConn) noteReach(err error) {
	c.rmu.Lock()
	defer c.rmu.Unlock()
	changed := (c.unreachable == nil) != (err == nil)
	c.unreachable = err
	if changed && c.reachChange != nil {
		close(c.reachChange)
		c.reachChange = nil
	}
}

// track adds one goroutine to wg, unless Close has begun waiting for them (a WaitGroup
// must not grow while Wait runs): then it reports false and the goroutine must not start.
func (c *HTTPClientConn) track() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closing {
		return false
	}
	c.wg.Add(1)
	return true
}

// ParamHeaders reports that requests of revision 2026-07-28 written here carry tool
// arguments marked x-mcp-header as Mcp-Param-* headers (given with [WithHeader]).
func (c *HTTPClientConn) ParamHeaders() bool { return true }

// SessionID returns the session id the server assigned, or "" before initialization or
// when the server uses no sessions.
func (c *HTTPClientConn) SessionID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sessionID
}

// ProtocolVersion returns the protocol version of the initialize result, sent as the
// MCP-Protocol-Version header since; "" before then.
func (c *HTTPClientConn) ProtocolVersion() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.version
}

// ResumeSession takes up, on a connection that has sent nothing yet, a session of the
// 2025-11-25 era that the server began on an earlier connection (one that was closed
// after [HTTPClientConn.KeepSession]), instead of beginning one with initialize: every
// request carries id as Mcp-Session-Id, and version, the protocol version the session's
// initialize negotiated, as MCP-Protocol-Version, from the first on. No initialize is to
// be sent on it. A server that has ended the session answers the first request 404, which
// ends the connection with [ErrSessionExpired], as it does for any session the server
// ends; so does a 400 before the server has answered any request of the resumed session,
// as some servers answer a session id they do not know as they answer a request without
// one. The standalone GET stream opens once the server has answered a request. It fails
// once a message has been written, and for an id or version that is not a header value
// of visible ASCII characters (as the transport requires of session ids).
func (c *HTTPClientConn) ResumeSession(id, version string) error {
	if !visibleASCII(id) {
		return fmt.Errorf("transport: cannot resume a session whose id %q is not visible ASCII", id)
	}
	if !visibleASCII(version) {
		return fmt.Errorf("transport: cannot resume a session in protocol version %q", version)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.wrote {
		return errors.New("transport: a session can be resumed only before the connection's first message")
	}
	c.sessionID, c.version, c.resumed = id, version, true
	return nil
}

// visibleASCII reports whether s is a non-empty string of the characters 0x21 to 0x7E.
func visibleASCII(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// KeepSession makes Close leave the session to the server instead of ending it with
// DELETE: the server keeps it, and what it binds to it (some servers bind tasks to the
// session that created them), until it ends the session itself, and a later connection
// may take it up with [HTTPClientConn.ResumeSession]. It returns the session id, or ""
// when there is no session to keep (the server gave none, or has ended it).
func (c *HTTPClientConn) KeepSession() string {
	if errors.Is(c.endError(), ErrSessionExpired) {
		return ""
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.keep = true
	return c.sessionID
}

// inbound is what Read returns next: a message, or a [*jsonrpc.DecodeError] for one that
// was dropped.
type inbound struct {
	m   jsonrpc.Message
	err error
}

// Read returns the next message from any response or stream, or a [*jsonrpc.DecodeError]
// for one over the size limit whose id could be read (a response, to fail its call, or a
// request, to answer it). It returns io.EOF after Close, or the error that ended the
// connection (see [ErrSessionExpired]).
func (c *HTTPClientConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		c.qmu.Lock()
		if len(c.queue) > 0 {
			in := c.queue[0]
			c.queue[0] = inbound{}
			c.queue = c.queue[1:]
			c.qmu.Unlock()
			return in.m, in.err
		}
		if c.ended {
			err := c.endErr
			c.qmu.Unlock()
			return nil, err
		}
		c.qmu.Unlock()
		select {
		case <-c.qwake:
		case <-c.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// enqueue hands a message to Read. It never blocks.
func (c *HTTPClientConn) enqueue(m jsonrpc.Message) {
	if r, ok := m.(*jsonrpc.Response); ok && r.Error == nil {
		c.mu.Lock()
		if c.initID.IsValid() && r.ID == c.initID {
			var res struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			if json.Unmarshal(r.Result, &res) == nil && res.ProtocolVersion != "" {
				c.version = res.ProtocolVersion
			}
			c.initID = jsonrpc.ID{}
		}
		c.mu.Unlock()
	}
	c.push(inbound{m: m})
}

// push hands in to Read. It never blocks.
func (c *HTTPClientConn) push(in inbound) {
	c.qmu.Lock()
	if !c.ended {
		c.queue = append(c.queue, in)
	}
	c.qmu.Unlock()
	select {
	case c.qwake <- struct{}{}:
	default:
	}
}

// dropped hands Read the error of a message dropped for its size, read by k, if it names
// an id: the call it answers fails, or the request it is gets an error. It reports the id
// and whether the message was a response.
func (c *HTTPClientConn) dropped(k *skimmer) (id jsonrpc.ID, response bool) {
	de := k.decodeError(c.max)
	if !de.ID.IsValid() {
		return jsonrpc.ID{}, false
	}
	c.push(inbound{err: de})
	return de.ID, de.Response
}

// failRequest fails a request locally when its response can no longer arrive, so that
// the caller gets an error instead of waiting forever: a [*NoResponseError], not a
// JSON-RPC error the server never sent.
func (c *HTTPClientConn) failRequest(id jsonrpc.ID, format string, args ...any) {
	c.failRequestErr(id, &NoResponseError{Reason: fmt.Sprintf(format, args...)})
}

// failRequestErr is failRequest with a Go error, which the call fails with as it is
// (errors.Is finds what it wraps, such as [ErrUnreachable]): the connection is told of it
// as of a response that could not be taken ([jsonrpc.DecodeError] with Response and
// Cause).
func (c *HTTPClientConn) failRequestErr(id jsonrpc.ID, err error) {
	if !id.IsValid() || c.ctx.Err() != nil {
		return
	}
	c.log.Warn("request failed in transport", "id", id.String(), "reason", err)
	c.push(inbound{err: &jsonrpc.DecodeError{ID: id, Response: true,
		Err: jsonrpc.NewError(jsonrpc.CodeConnectionClosed, err.Error()), Cause: err}})
}

// unreadable hands Read the error of a response that could not be decoded but names the
// call it answers (see [jsonrpc.DecodeMessage]), so that the call fails with why; it
// reports that id.
func (c *HTTPClientConn) unreadable(err error) (jsonrpc.ID, bool) {
	var de *jsonrpc.DecodeError
	if !errors.As(err, &de) || !de.Response || !de.ID.IsValid() || c.ctx.Err() != nil {
		return jsonrpc.ID{}, false
	}
	c.push(inbound{err: de})
	return de.ID, true
}

// end makes Read return err (after queued messages) and stops every stream.
func (c *HTTPClientConn) end(err error) {
	c.qmu.Lock()
	if c.ended {
		c.qmu.Unlock()
		return
	}
	c.ended, c.endErr = true, err
	close(c.done)
	c.qmu.Unlock()
	c.cancel()
}

func (c *HTTPClientConn) endError() error {
	c.qmu.Lock()
	defer c.qmu.Unlock()
	if !c.ended {
		return nil
	}
	if errors.Is(c.endErr, io.EOF) {
		return errClientClosed
	}
	return c.endErr
}

// Close stops every stream, ends the session with DELETE (a 405 is fine) unless
// [HTTPClientConn.KeepSession] said to keep it, and makes Read return io.EOF.
func (c *HTTPClientConn) Close() error {
	c.closeOnce.Do(func() {
		expired := c.endError() != nil
		c.end(io.EOF)
		c.mu.Lock()
		sid, keep := c.sessionID, c.keep
		c.mu.Unlock()
		if sid != "" && !expired && !keep {
			ctx, cancel := context.WithTimeout(context.Background(), deleteTimeout)
			resp, err := c.do(ctx, http.MethodDelete, nil, "", nil)
			cancel()
			switch {
			case err != nil:
				c.log.Debug("ending the session failed", "error", err)
			default:
				resp.Body.Close()
				if resp.StatusCode >= 300 && resp.StatusCode != http.StatusMethodNotAllowed {
					c.log.Debug("ending the session failed", "status", resp.StatusCode)
				}
			}
		}
		c.mu.Lock()
		c.closing = true
		c.mu.Unlock()
		c.wg.Wait()
		if c.ownClient {
			c.client.CloseIdleConnections()
		}
		c.invalidLog.Flush(c.log)
	})
	return nil
}

// do sends one HTTP request with the session headers, and extra.
func (c *HTTPClientConn) do(ctx context.Context, method string, body []byte, lastEventID string, extra http.Header) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.url, rd)
	if err != nil {
		return nil, err
	}
	for k, v := range c.header {
		req.Header[k] = v
	}
	switch method {
	case http.MethodPost:
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	case http.MethodGet:
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Cache-Control", "no-cache")
	}
	c.mu.Lock()
	if c.sessionID != "" {
		req.Header.Set(HeaderSessionID, c.sessionID)
	}
	if c.version != "" {
		req.Header.Set(HeaderProtocolVersion, c.version)
	}
	c.mu.Unlock()
	if lastEventID != "" {
		req.Header.Set(headerLastEventID, lastEventID)
	}
	for k, v := range extra {
		req.Header[k] = v
	}
	resp, err := c.client.Do(req)
	if err != nil {
		var redirect *RedirectError
		if errors.As(err, &redirect) {
			return nil, redirect // not the *url.Error around it, which repeats the URL
		}
		var af *authFailure
		if errors.As(err, &af) {
			// The Authorizer's own error (which may be a failure to reach an
			// authorization server, not the MCP server), without the *url.Error around it.
			return nil, redact.URLErrors(af.err)
		}
		var op *net.OpError
		if errors.As(err, &op) && op.Op == "dial" {
			err = fmt.Errorf("%w: cannot connect to %s: %w", ErrUnreachable, c.shown, op)
			c.noteReach(err)
			return nil, err
		}
		return nil, redact.URLErrors(err)
	}
	c.noteReach(nil)
	return resp, nil
}

// httpError reads a non-2xx response into an [*HTTPError] and closes its body.
func (c *HTTPClientConn) httpError(method string, resp *http.Response) *HTTPError {
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	e := &HTTPError{Method: method, URL: c.shown, StatusCode: resp.StatusCode, Header: resp.Header}
	var rpc struct {
		Error *jsonrpc.Error `json:"error"`
	}
	if json.Unmarshal(b, &rpc) == nil && rpc.Error != nil && rpc.Error.Message != "" {
		e.Message = rpc.Error.Message
		e.RPC = rpc.Error
	} else if s := strings.Join(strings.Fields(string(b)), " "); s != "" {
		if len(s) > 200 {
			s = strings.ToValidUTF8(s[:200], "") + "…"
		}
		e.Message = s
	} else {
		e.Message = strings.ToLower(http.StatusText(resp.StatusCode))
	}
	return e
}

// Write POSTs m and returns once the response headers have arrived. A request's response
// (a JSON body or an SSE stream) is read on another goroutine and delivered to Read.
func (c *HTTPClientConn) Write(ctx context.Context, m jsonrpc.Message) error {
	if err := c.endError(); err != nil {
		return err
	}
	body, err := jsonrpc.EncodeMessage(m)
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.wrote = true
	c.mu.Unlock()
	var reqID jsonrpc.ID
	var extra http.Header
	modern := false // of revision 2026-07-28, which has no session
	method := ""
	if r, ok := m.(*jsonrpc.Request); ok {
		method = r.Method
		extra, _ = ctx.Value(headerKey{}).(http.Header)
		extra, modern = mirrorHeaders(extra, r)
		if !r.IsNotification() {
			reqID = r.ID
			if r.Method == "initialize" {
				c.mu.Lock()
				c.initID = r.ID
				c.mu.Unlock()
			}
		}
	}
	// A request that expects an answer waits for its place in the gate (a response or a
	// notification, answered 202 at once, and a subscriptions/listen, held open, do not);
	// it gives it up when its answer has been read, with its connection idle again.
	leave := func() {}
	if c.gate != nil && reqID.IsValid() && method != methodListen {
		var err error
		if leave, err = c.gate.enter(ctx, c.done); err != nil {
			if e := c.endError(); e != nil {
				return e
			}
			return err
		}
	}
	// The response stream lives as long as the connection, and as long as the caller's
	// interest until the response has arrived; after that the rest of the stream is read
	// to its end whatever the caller's context does (see finish), so that the HTTP
	// connection can be reused. The request's context keeps ctx's values.
	sctx, scancel := context.WithCancelCause(context.WithoutCancel(ctx))
	stopConn := context.AfterFunc(c.ctx, func() { scancel(nil) })
	stopCaller := context.AfterFunc(ctx, func() { scancel(context.Cause(ctx)) })
	cancel := func() { stopConn(); stopCaller(); scancel(nil); leave() }

	c.mu.Lock()
	sentSession := c.sessionID != ""
	unconfirmed := c.resumed
	c.mu.Unlock()
	resp, err := c.do(sctx, http.MethodPost, body, "", extra)
	if err != nil {
		cancel()
		if c.ctx.Err() != nil && ctx.Err() == nil {
			if e := c.endError(); e != nil {
				return e
			}
		}
		return err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		herr := c.httpError(http.MethodPost, resp)
		cancel()
		if sentSession && (resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusBadRequest && unconfirmed) {
			err := fmt.Errorf("%w: %w", ErrSessionExpired, herr)
			c.end(err)
			return err
		}
		if herr.RPC != nil && reqID.IsValid() && resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
			// A JSON-RPC error in the body is the request's answer (revision 2026-07-28
			// sends its own errors with 400, and -32601 with 404): it is delivered as the
			// response, so that the caller gets it as such and the traffic shows it.
			c.enqueue(&jsonrpc.Response{ID: reqID, Error: herr.RPC})
			return nil
		}
		return herr
	}
	if sid := resp.Header.Get(HeaderSessionID); sid != "" && !modern {
		c.mu.Lock()
		if c.sessionID == "" {
			c.sessionID = sid
		}
		c.mu.Unlock()
	}

	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch {
	case (ct == "text/event-stream" || ct == "application/json" && reqID.IsValid()) && !c.track():
		// Closed while the request was in flight: nobody reads the answer.
		resp.Body.Close()
		cancel()
		if e := c.endError(); e != nil {
			return e
		}
		return io.EOF
	case ct == "text/event-stream":
		go c.readRequestStream(sctx, cancel, stopCaller, resp.Body, reqID)
	case ct == "application/json" && reqID.IsValid():
		go func() {
			defer c.wg.Done()
			defer cancel()
			c.readJSONBody(resp.Body, resp.ContentLength, reqID)
		}()
	default:
		// Includes any body answering a notification or a response: there is nothing to
		// deliver (some servers send an empty JSON-RPC result there).
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		cancel()
		if reqID.IsValid() {
			c.failRequest(reqID, "the server answered HTTP %d with Content-Type %q, which holds no JSON-RPC message (application/json or text/event-stream)", resp.StatusCode, ct)
		}
	}
	c.mu.Lock()
	resumed := c.resumed && reqID.IsValid()
	c.resumed = c.resumed && !resumed
	c.mu.Unlock()
	if method == "notifications/initialized" || resumed {
		// A resumed session has no notifications/initialized: its stream opens once the
		// server has shown, by answering, that it still has the session.
		c.startStandalone(ctx)
	}
	return nil
}

// readJSONBody delivers the message(s) of an application/json response of size bytes
// (-1: unknown).
func (c *HTTPClientConn) readJSONBody(body io.ReadCloser, size int64, reqID jsonrpc.ID) {
	defer body.Close()
	b, err := io.ReadAll(io.LimitReader(body, int64(c.max)+1))
	if err != nil {
		c.failRequest(reqID, "reading the response from %s: %v", c.shown, redact.URLErrors(err))
		return
	}
	if len(b) > c.max {
		// Only the start was read: what the body says of itself is not known, but it
		// answers reqID all the same.
		if c.ctx.Err() == nil {
			c.push(inbound{err: &jsonrpc.DecodeError{ID: reqID, Response: true,
				Err:   jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "message too large: the limit is %d bytes", c.max),
				Cause: &MessageTooLargeError{Size: size, Limit: int64(c.max)}}})
		}
		return
	}
	frames := []json.RawMessage{b}
	if t := bytes.TrimSpace(b); len(t) > 0 && t[0] == '[' {
		if err := json.Unmarshal(t, &frames); err != nil {
			c.failRequest(reqID, "the response from %s is not valid JSON: %v", c.shown, err)
			return
		}
	}
	got := false
	for _, f := range frames {
		m, err := jsonrpc.DecodeMessage(f)
		if err != nil {
			c.invalidLog.Log(c.log, "error", err)
			if id, ok := c.unreadable(err); ok && id == reqID {
				got = true
			}
			continue
		}
		if r, ok := m.(*jsonrpc.Response); ok && r.ID == reqID {
			got = true
		}
		c.enqueue(m)
	}
	if !got {
		c.failRequest(reqID, "the server's JSON answer from %s holds no response to the request", c.shown)
	}
}

// consume delivers the messages of one SSE response until it ends, or until the response
// to want (if valid) has been delivered; answered, if not nil, is called just before that
// response is. It reports how many events arrived.
func (c *HTTPClientConn) consume(sr *sseReader, want jsonrpc.ID, answered func()) (events int, got bool, err error) {
	for {
		ev, err := sr.Next()
		if err != nil {
			return events, false, err
		}
		events++
		if sr.Retry > 0 {
			c.mu.Lock()
			c.retry = sr.Retry
			c.mu.Unlock()
		}
		if ev.TooLarge {
			c.log.Warn("skipped an SSE event larger than the message size limit", "limit", c.max, "id", ev.ID)
			if id, response := c.dropped(ev.Skim); response && want.IsValid() && id == want {
				if answered != nil {
					answered() // after the error went out: the stream may be lost with it, rarely
				}
				return events, true, nil // the call has its answer: an error
			}
			continue
		}
		if len(ev.Data) == 0 || (ev.Type != "" && ev.Type != "message") {
			continue
		}
		m, err := jsonrpc.DecodeMessage(ev.Data)
		if err != nil {
			c.invalidLog.Log(c.log, "error", err)
			if id, ok := c.unreadable(err); ok && want.IsValid() && id == want {
				if answered != nil {
					answered()
				}
				return events, true, nil // the call has its answer: an error
			}
			continue
		}
		if r, ok := m.(*jsonrpc.Response); ok && want.IsValid() && r.ID == want {
			if answered != nil {
				answered()
			}
			c.enqueue(m)
			return events, true, nil
		}
		c.enqueue(m)
	}
}

// reconnectDelay is the wait before a reconnection: the stream's retry, else the latest
// one any stream advertised, else one second; doubled for each failed attempt; never
// more than maxReconnectDelay, whatever the server asked for.
func (c *HTTPClientConn) reconnectDelay(streamRetry time.Duration, failures int) time.Duration {
	d := streamRetry
	if d <= 0 {
		c.mu.Lock()
		d = c.retry
		c.mu.Unlock()
	}
	if d <= 0 {
		d = defaultClientRetry
	}
	d = min(d, maxReconnectDelay)
	for range failures {
		d *= 2
		if d >= maxReconnectDelay {
			return maxReconnectDelay
		}
	}
	return d
}

// resume opens a GET that continues a stream after lastID.
func (c *HTTPClientConn) resume(ctx context.Context, lastID string) (*http.Response, error) {
	c.mu.Lock()
	sentSession := c.sessionID != ""
	c.mu.Unlock()
	resp, err := c.do(ctx, http.MethodGet, nil, lastID, nil)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		herr := c.httpError(http.MethodGet, resp)
		if resp.StatusCode == http.StatusNotFound && sentSession && lastID != "" {
			return nil, fmt.Errorf("%w: %w", ErrSessionExpired, herr)
		}
		return nil, herr
	}
	if ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); ct != "text/event-stream" {
		resp.Body.Close()
		return nil, fmt.Errorf("GET %s answered Content-Type %q, not text/event-stream", c.shown, ct)
	}
	return resp, nil
}

// finish reads the rest of an event stream whose awaited response has arrived, for at
// most drainWait, and delivers whatever else it holds. net/http reuses a connection only
// when its response body was read to the end; one closed before is closed with its
// connection, and the next request dials another. A server ends the stream after the
// response, but its end is often a few bytes that arrive just after the event, which the
// reader has not asked for yet. detached says the stream was untied from the caller's
// context before the response was delivered (false when that context had ended already:
// then the connection is lost anyway); cancel ends the stream.
func (c *HTTPClientConn) finish(sr *sseReader, detached bool, cancel func()) {
	if !detached {
		return
	}
	t := time.AfterFunc(drainWait, cancel)
	defer t.Stop()
	_, _, _ = c.consume(sr, jsonrpc.ID{}, nil)
}

// readRequestStream delivers the SSE stream answering request id, resuming it with GET
// and Last-Event-ID whenever it ends before the response has arrived. detach unties the
// stream from the caller's context, just before the response is delivered (see finish).
func (c *HTTPClientConn) readRequestStream(ctx context.Context, cancel func(), detach func() bool, body io.ReadCloser, id jsonrpc.ID) {
	defer c.wg.Done()
	defer cancel()
	// The stream is untied from the caller's context before its response is delivered:
	// a caller that ends its context as soon as it has the answer (as most do) would
	// otherwise, now and then, abort the request before the stream's end was read, and
	// net/http would close the connection instead of keeping it.
	detached := false
	answered := func() { detached = detach() }
	sr := newSSEReader(body, c.max)
	_, got, err := c.consume(sr, id, answered)
	if got {
		c.finish(sr, detached, cancel)
	}
	body.Close()
	sr.release()
	failures := 0
	for !got && id.IsValid() {
		if ctx.Err() != nil {
			return
		}
		if sr.LastID == "" {
			c.failRequest(id, "the server closed the event stream before responding, and the stream cannot be resumed (no event id)%s", errSuffix(err))
			return
		}
		if failures >= c.retries {
			c.failRequest(id, "the event stream ended before the response and %s to resume it failed%s", plural.Count(failures, "attempt", "attempts"), errSuffix(err))
			return
		}
		if c.sleep(ctx, c.reconnectDelay(sr.Retry, failures)) != nil {
			return
		}
		resp, rerr := c.resume(ctx, sr.LastID)
		if rerr != nil {
			if ctx.Err() != nil {
				return
			}
			if errors.Is(rerr, ErrSessionExpired) {
				c.end(rerr)
				return
			}
			if errors.Is(rerr, ErrUnreachable) {
				// Nothing listens at the server's address any more (it exited, or was
				// killed, as the dropped stream suggested): the stream it held went with
				// it, and waiting out the retries would only keep the caller waiting, up
				// to half a minute, for an answer that cannot come. The call fails now,
				// with an error that matches ErrUnreachable.
				c.failRequestErr(id, fmt.Errorf("the event stream ended before the response, and the server can no longer be reached to resume it: %w", rerr))
				return
			}
			var herr *HTTPError
			if errors.As(rerr, &herr) && herr.StatusCode == http.StatusMethodNotAllowed {
				c.failRequest(id, "the event stream ended before the response, and the server does not allow resuming it: %v", rerr)
				return
			}
			if errors.As(rerr, &herr) && definitive(herr.StatusCode) {
				// The server said why it will not resume this stream (ours answers 400 for
				// one it no longer has): asking again would only wait out the retries.
				c.failRequest(id, "the event stream ended before the response, and the server refused to resume it: %v", rerr)
				return
			}
			c.log.Debug("resuming an event stream failed", "error", rerr)
			failures++
			err = rerr
			continue
		}
		next := newSSEReader(resp.Body, c.max)
		next.LastID, next.Retry = sr.LastID, sr.Retry
		var n int
		n, got, err = c.consume(next, id, answered)
		if got {
			c.finish(next, detached, cancel)
		}
		resp.Body.Close()
		next.release()
		sr = next
		if n == 0 {
			failures++
		} else {
			failures = 0
		}
	}
}

// definitive reports whether an HTTP status refusing to resume a stream is the server's
// last word: a client error, but for a timeout, a rate limit and the authorization
// answers (which a new token may change).
func definitive(status int) bool {
	switch status {
	case http.StatusRequestTimeout, http.StatusTooManyRequests, http.StatusUnauthorized, http.StatusForbidden:
		return false
	}
	return status >= 400 && status < 500
}

func errSuffix(err error) string {
	if err == nil || errors.Is(err, io.EOF) {
		return ""
	}
	return ": " + err.Error()
}

// startStandalone opens the standalone GET stream once, and waits (briefly) until the
// server has answered it, so that messages the server sends right after initialization
// find it open.
func (c *HTTPClientConn) startStandalone(ctx context.Context) {
	c.mu.Lock()
	started := c.getStarted
	c.getStarted = true
	c.mu.Unlock()
	if started {
		return
	}
	ready := make(chan struct{})
	if !c.track() {
		return
	}
	go c.runStandalone(ready)
	t := time.NewTimer(standaloneWait)
	defer t.Stop()
	select {
	case <-ready:
	case <-t.C:
	case <-ctx.Done():
	case <-c.done:
	}
}

// runStandalone keeps the standalone GET stream open: it reconnects with Last-Event-ID
// after the advertised retry delay whenever the stream ends, and stops for good on 405
// (the server offers no such stream) or another 4xx, or after repeated failures. None of
// that ends the connection, except a 404 to a resumption (the session is gone).
func (c *HTTPClientConn) runStandalone(ready chan struct{}) {
	defer c.wg.Done()
	var once sync.Once
	markReady := func() { once.Do(func() { close(ready) }) }
	defer markReady()
	state := &sseReader{}
	failures := 0
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			if failures >= c.retries {
				c.log.Warn("giving up on the standalone event stream", "attempts", failures)
				return
			}
			if c.sleep(c.ctx, c.reconnectDelay(state.Retry, failures)) != nil {
				return
			}
		}
		resp, err := c.resume(c.ctx, state.LastID)
		markReady()
		if err != nil {
			if c.ctx.Err() != nil {
				return
			}
			if errors.Is(err, ErrSessionExpired) {
				c.end(err)
				return
			}
			var herr *HTTPError
			if errors.As(err, &herr) && herr.StatusCode >= 400 && herr.StatusCode < 500 &&
				herr.StatusCode != http.StatusRequestTimeout && herr.StatusCode != http.StatusConflict &&
				herr.StatusCode != http.StatusTooManyRequests {
				// 405 is how a server says it offers no such stream; other 4xx answers
				// will not change on retry either (409 may: the server may not have
				// noticed yet that our previous stream is gone). Requests keep working
				// without the stream.
				c.log.Debug("the server offers no standalone event stream", "error", err)
				return
			}
			c.log.Debug("opening the standalone event stream failed", "error", err)
			failures++
			continue
		}
		sr := newSSEReader(resp.Body, c.max)
		sr.LastID, sr.Retry = state.LastID, state.Retry
		n, _, err := c.consume(sr, jsonrpc.ID{}, nil)
		resp.Body.Close()
		sr.release()
		state = sr
		if c.ctx.Err() != nil {
			return
		}
		c.log.Debug("the standalone event stream ended", "events", n, "error", err)
		if n == 0 {
			failures++
		} else {
			failures = 0
		}
	}
}

// NoResponseError is a request that the server's HTTP answer leaves without a response:
// a body of another Content-Type, a JSON body that holds no response to it, an event
// stream that ended before its response and could not be resumed. The server sent no
// JSON-RPC error; the call fails with this, inside a [*jsonrpc.CallError].
type NoResponseError struct {
	// Reason says what the server did.
	Reason string
}

func (e *NoResponseError) Error() string { return e.Reason }
