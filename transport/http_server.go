package transport

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpi-dev/mcpi/internal/plural"
	"github.com/mcpi-dev/mcpi/jsonrpc"
)

// Header names of the Streamable HTTP transport.
const (
	HeaderSessionID       = "Mcp-Session-Id"
	HeaderProtocolVersion = "Mcp-Protocol-Version"
	headerLastEventID     = "Last-Event-Id"
)

// DefaultHTTPProtocolVersions are the MCP-Protocol-Version header values an [HTTPHandler]
// accepts unless [HTTPOptions.ProtocolVersions] says otherwise.
var DefaultHTTPProtocolVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26"}

// assumedProtocolVersion is the revision a server assumes when a request carries no
// MCP-Protocol-Version header and nothing else tells it.
const assumedProtocolVersion = "2025-03-26"

// primingVersion is the first revision whose clients expect priming events (an event with
// an id and empty data). Older clients may choke on the empty data.
const primingVersion = "2025-11-25"

// Defaults of [HTTPOptions]. They suit a test server that a few people and programs talk
// to: generous for real clients, small enough that clients which never come back, or
// come back with far too much, cannot exhaust the process.
const (
	// DefaultMaxSessions is the default of [HTTPOptions.MaxSessions].
	DefaultMaxSessions = 256
	// DefaultSessionTimeout is the default of [HTTPOptions.SessionTimeout]: a client that
	// is still there keeps its GET stream open or sends requests, so only abandoned
	// sessions go.
	DefaultSessionTimeout = 10 * time.Minute
	// DefaultMaxInFlight is the default of [HTTPOptions.MaxInFlight]: room for the 1,000
	// concurrent calls on one session of mcpi's scale tests and benchmark bursts.
	DefaultMaxInFlight = 1024
	// DefaultMaxStatelessInFlight is the default of [HTTPOptions.MaxStatelessInFlight]:
	// room for the 1,000-task bursts of mcpi's benchmarks, their listens, and more.
	DefaultMaxStatelessInFlight = 4096
	// DefaultMaxRetainedBytes is the default of [HTTPOptions.MaxRetainedBytes]: room for one
	// message of [DefaultMaxMessageSize], the largest a peer accepts by default.
	DefaultMaxRetainedBytes = DefaultMaxMessageSize
)

const (
	defaultEventRetention = 512
	defaultRetry          = time.Second
	// sseWriteTimeout bounds one write to an SSE response, so a client that stopped
	// reading cannot hold a stream's delivery forever; the stream stays resumable.
	sseWriteTimeout = 30 * time.Second
	// stalledWriteGrace is what is left to a write to a connected client once the session
	// is over MaxRetainedBytes and the message being written is dropped to make room:
	// enough for a client that reads to take what it was sent, and a client that reads
	// nothing holds the message's bytes a few seconds, not sseWriteTimeout, and only
	// until the session drops another message.
	stalledWriteGrace = 5 * time.Second
	// maxLingeringStreams bounds per session the finished streams kept only because their
	// connection dropped before everything was delivered.
	maxLingeringStreams = 64
)

// HTTPOptions configures an [HTTPHandler]. The zero value is usable, with every bound on.
// In the bounds, zero means the default and a negative value means no bound.
type HTTPOptions struct {
	// AllowedHosts lists the host names (optionally with ":port") accepted in the Host
	// header, as protection against DNS rebinding. Empty means localhost, 127.0.0.1 and
	// [::1] on any port; "*" accepts any host.
	AllowedHosts []string
	// AllowedOrigins lists the origins ("https://app.example.com") accepted in the Origin
	// header besides the server's own (the host and port of the request's Host header);
	// "*" accepts any origin. Requests without Origin (non-browser clients) are always
	// accepted.
	AllowedOrigins []string
	// JSONResponse answers each request with one application/json body instead of an SSE
	// stream. Messages the server sends while handling the request then travel on the
	// standalone GET stream.
	JSONResponse bool
	// SessionTimeout closes a session after this long without any HTTP request of its
	// (an open GET stream counts as activity) and without a hold of its server
	// ([HTTPServerConn.Hold]: the server library holds a session while a 2025-11-25
	// task of its runs, when tasks end with their session, so that a client that
	// detaches from a long task finds it on its return, for as long as the task's TTL).
	// Zero means [DefaultSessionTimeout]; negative means sessions never expire.
	SessionTimeout time.Duration
	// MaxSessions bounds the open sessions. A new session beyond it takes the place of
	// the session whose client least recently sent a POST, among those with no POST in
	// progress: first of those nobody holds, then of the held ones (sessions with tasks
	// running go after the others, not never, so that they cannot lock new clients out),
	// and last of the sessions with a POST in progress whose client has sent nothing for
	// SessionTimeout (a call waiting on input its client never sends would keep its
	// session for ever), their POSTs ended with them. An open GET stream does not keep a
	// session: it ends with the session, which ends as if it had expired. When every
	// session has a POST in progress and its client sent a request within
	// SessionTimeout, initialize is refused with 503. Zero means [DefaultMaxSessions].
	MaxSessions int
	// MaxInFlight bounds the requests of one session received and not answered yet; one
	// more is refused at once with 429 and a JSON-RPC error. Zero means
	// [DefaultMaxInFlight].
	MaxInFlight int
	// MaxStatelessInFlight bounds the stateless requests (2026-07-28) of all clients
	// together that are received and not answered yet, each holding its params (up to
	// MaxMessageSize) until it is: they have no session to be counted by. A
	// subscriptions/listen counts while it is open. One more is refused at once with 429
	// and a JSON-RPC error. Zero means [DefaultMaxStatelessInFlight].
	MaxStatelessInFlight int
	// MaxStatelessPerCaller bounds the stateless requests in flight of one caller (see
	// StatelessCaller), so that one client cannot take every MaxStatelessInFlight slot
	// and have every other client's requests refused (with listens held open, for as
	// long as it likes). One more is refused at once with 429 and a JSON-RPC error.
	// Zero means half of MaxStatelessInFlight; negative means no bound but that one.
	MaxStatelessPerCaller int
	// StatelessCaller names the caller of a stateless request for
	// MaxStatelessPerCaller; requests it names the same share one bound. Nil, or "",
	// means the host of the request's RemoteAddr: not its Authorization header, which
	// any client can make up afresh for each request to get a share of its own.
	// Behind a reverse proxy every request comes from the proxy's address: name the
	// caller there (an identity the server checked, the proxy's forwarded address).
	// The server package's Server.HTTPHandler names it by its Options.TaskOwner when set.
	StatelessCaller func(r *http.Request) string
	// SessionCaller, when set, names the caller that opens a session, from the POST of
	// its initialize while that request is being handled (its headers and context);
	// the session's connection reports it ([HTTPServerConn.Caller]). Only the name is
	// kept, not the request. The server package's Server.HTTPHandler sets its own:
	// the identity a session's tasks are bound to.
	SessionCaller func(r *http.Request) string
	// MaxRetainedBytes bounds the bytes of messages one session keeps for clients that are
	// not reading them now: streams kept for resumption after the client went away,
	// events already delivered, and messages waiting for a GET stream. Beyond it the
	// oldest go first. It bounds what is kept for replay, not the size of a message: a
	// connected client gets every message of a stream it reads, however large, while it
	// keeps up, and the newest one in any case; only a stream whose client is still busy
	// reading earlier messages when the session is over the bound loses the older of
	// those it has not had. Messages being written to connected clients that have not
	// taken them count too (a client that sends calls and reads none of their answers):
	// over the bound, the older of them go, the session's newest excepted, and their
	// writes are given 5 seconds more instead of 30, one at a time (the write of a
	// message dropped ends at once when another is dropped: each holds its message's
	// bytes until it ends, beyond the bound). A response that must go is
	// replaced by a short JSON-RPC error (-32603) for its request, kept beyond the
	// bound, so that a client that resumes the stream learns what became of its
	// request. Zero means [DefaultMaxRetainedBytes].
	MaxRetainedBytes int
	// EventRetention is how many events each stream keeps for resumption (and for a
	// standalone stream the client has not opened yet). Zero means 512.
	EventRetention int
	// Retry is the reconnection delay advertised in the `retry:` field of priming events.
	// Zero means one second.
	Retry time.Duration
	// ProtocolVersions lists the accepted MCP-Protocol-Version header values. Nil means
	// [DefaultHTTPProtocolVersions].
	ProtocolVersions []string
	// MaxMessageSize bounds a POST body; larger bodies get 413. Zero means
	// [DefaultMaxMessageSize].
	MaxMessageSize int
	// ModernProtocolVersions lists the stateless revisions (2026-07-28 and later) served
	// without a session; see [StatelessConn]. Empty means none: every request is handled
	// as 2025-11-25 handles it. [DefaultModernProtocolVersions] lists those this package
	// knows.
	ModernProtocolVersions []string
	// SupportedVersions is what an UnsupportedProtocolVersion error (-32022) lists. Nil
	// means ModernProtocolVersions followed by ProtocolVersions.
	SupportedVersions []string
	Logger            *slog.Logger
}

// HTTPHandler serves MCP over Streamable HTTP (revision 2025-11-25 and the revisions it
// stays compatible with): POST carries client messages, GET opens the standalone SSE
// stream or resumes any stream with Last-Event-ID, DELETE ends a session. Each session is
// one [HTTPServerConn], handed to the serve function given to [NewHTTPHandler].
type HTTPHandler struct {
	serve func(ctx context.Context, conn jsonrpc.Connection)
	opts  HTTPOptions
	log   *slog.Logger

	mu       sync.Mutex
	sessions map[string]*HTTPServerConn
	closed   bool
	wg       sync.WaitGroup
	// stateless counts the stateless requests being served (MaxStatelessInFlight), and
	// statelessBy those of each caller (MaxStatelessPerCaller).
	stateless   int
	statelessBy map[string]int
}

// NewHTTPHandler returns a handler that calls serve once per new session, on its own
// goroutine, with the session's connection. serve must return once the connection is
// closed (its Read returns an error); the session is closed when serve returns.
func NewHTTPHandler(serve func(ctx context.Context, conn jsonrpc.Connection), opts *HTTPOptions) *HTTPHandler {
	h := &HTTPHandler{serve: serve, sessions: map[string]*HTTPServerConn{}}
	if opts != nil {
		h.opts = *opts
	}
	if h.opts.EventRetention <= 0 {
		h.opts.EventRetention = defaultEventRetention
	}
	if h.opts.Retry <= 0 {
		h.opts.Retry = defaultRetry
	}
	if h.opts.ProtocolVersions == nil {
		h.opts.ProtocolVersions = DefaultHTTPProtocolVersions
	}
	if h.opts.SupportedVersions == nil {
		h.opts.SupportedVersions = slices.Concat(h.opts.ModernProtocolVersions, h.opts.ProtocolVersions)
	}
	if h.opts.MaxMessageSize <= 0 {
		h.opts.MaxMessageSize = DefaultMaxMessageSize
	}
	// From here on a bound of 0 means none.
	h.opts.SessionTimeout = orDefault(h.opts.SessionTimeout, DefaultSessionTimeout)
	h.opts.MaxSessions = orDefault(h.opts.MaxSessions, DefaultMaxSessions)
	h.opts.MaxInFlight = orDefault(h.opts.MaxInFlight, DefaultMaxInFlight)
	h.opts.MaxStatelessInFlight = orDefault(h.opts.MaxStatelessInFlight, DefaultMaxStatelessInFlight)
	h.opts.MaxStatelessPerCaller = orDefault(h.opts.MaxStatelessPerCaller, max(1, h.opts.MaxStatelessInFlight/2))
	h.opts.MaxRetainedBytes = orDefault(h.opts.MaxRetainedBytes, DefaultMaxRetainedBytes)
	h.log = h.opts.Logger
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	return h
}

// orDefault maps an option's zero to def and a negative value to 0, "no bound".
func orDefault[T int | time.Duration](v, def T) T {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}

// Close closes every session and waits for their serve functions to return. Later
// requests get 503.
func (h *HTTPHandler) Close() error {
	h.mu.Lock()
	h.closed = true
	sessions := make([]*HTTPServerConn, 0, len(h.sessions))
	for _, s := range h.sessions {
		sessions = append(sessions, s)
	}
	h.mu.Unlock()
	for _, s := range sessions {
		s.Close()
	}
	h.wg.Wait()
	return nil
}

// SessionCount returns the number of open sessions.
func (h *HTTPHandler) SessionCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.sessions)
}

// ServeHTTP implements [http.Handler].
func (h *HTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if msg := h.checkHostOrigin(r); msg != "" {
		h.log.Warn("request refused", "reason", msg, "host", echo(r.Host), "origin", echo(r.Header.Get("Origin"))) // a caller's headers, quoted and cut
		writeHTTPError(w, http.StatusForbidden, jsonrpc.CodeInvalidRequest, msg)
		return
	}
	switch r.Method {
	case http.MethodPost:
		h.servePOST(w, r)
	case http.MethodGet:
		h.serveGET(w, r)
	case http.MethodDelete:
		h.serveDELETE(w, r)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		writeHTTPError(w, http.StatusMethodNotAllowed, jsonrpc.CodeInvalidRequest, "method not allowed: use POST, GET or DELETE")
	}
}

// writeHTTPError answers with status and a JSON-RPC error response without an id.
func writeHTTPError(w http.ResponseWriter, status int, code int64, msg string) {
	writeHTTPErrorID(w, status, jsonrpc.ID{}, code, msg)
}

// writeHTTPErrorID answers with status and a JSON-RPC error response to request id.
func writeHTTPErrorID(w http.ResponseWriter, status int, id jsonrpc.ID, code int64, msg string) {
	b, _ := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: jsonrpc.NewError(code, msg)})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// maxEcho bounds what an error answer quotes of a request's header: a client learns which
// value was refused without the server sending back whatever size it was sent.
const maxEcho = 64

// echo quotes a header value for an error answer, cut to maxEcho bytes.
func echo(v string) string {
	if len(v) <= maxEcho {
		return strconv.Quote(v)
	}
	return strconv.Quote(strings.ToValidUTF8(v[:maxEcho], "")) + "…"
}

// codeSessionNotFound is the JSON-RPC code sent with 404 for an unknown session (the
// official SDKs use the same).
const codeSessionNotFound = -32001

func (h *HTTPHandler) checkHostOrigin(r *http.Request) string {
	return CheckHostOrigin(r, h.opts.AllowedHosts, h.opts.AllowedOrigins)
}

// CheckHostOrigin is the check against DNS rebinding that a server on this machine
// makes of each request: its Host must be a loopback name (localhost, 127.0.0.1, ::1)
// or, when hosts is not empty, one of hosts ("*" for any); its Origin, when it has one,
// must name the server itself or one of origins. It returns why r fails, or "".
func CheckHostOrigin(r *http.Request, hosts, origins []string) string {
	if !hostAllowed(hosts, r.Host) {
		return fmt.Sprintf("forbidden: host %s is not allowed", echo(r.Host))
	}
	origin := r.Header.Get("Origin")
	if origin == "" || sameOrigin(origin, r.Host) {
		return ""
	}
	o := strings.TrimSuffix(strings.ToLower(origin), "/")
	for _, a := range origins {
		if a == "*" || strings.TrimSuffix(strings.ToLower(a), "/") == o {
			return ""
		}
	}
	return fmt.Sprintf("forbidden: origin %s is not allowed", echo(origin))
}

// LoopbackHosts are the Host names [CheckHostOrigin] accepts when given no others.
func LoopbackHosts() []string { return slices.Clone(localHosts) }

// sameOrigin reports whether origin names the server the request reached: the host and
// port of its Host header. Any other origin, even another port of localhost, is another
// web application, which must not drive this server from its users' browsers.
func sameOrigin(origin, hostport string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]"), ""
	}
	if !strings.EqualFold(host, u.Hostname()) {
		return false
	}
	oport := u.Port()
	if oport == "" {
		oport = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	if port == "" {
		// A Host without a port names the default port of a scheme this handler cannot
		// see behind a proxy that ends TLS: either default will do.
		return oport == "80" || oport == "443"
	}
	return port == oport
}

var localHosts = []string{"localhost", "127.0.0.1", "::1"}

// hostAllowed reports whether hostport (a Host header or the host of an Origin) matches
// allowed; an entry matches the whole "host:port" or just the host name.
func hostAllowed(allowed []string, hostport string) bool {
	hostport = strings.ToLower(hostport)
	name := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		name = h
	}
	name = strings.TrimSuffix(strings.TrimPrefix(name, "["), "]")
	if len(allowed) == 0 {
		return slices.Contains(localHosts, name)
	}
	for _, a := range allowed {
		a = strings.ToLower(a)
		if a == "*" || a == hostport || strings.TrimSuffix(strings.TrimPrefix(a, "["), "]") == name {
			return true
		}
	}
	return false
}

// mediaTypes returns the media types listed in a header such as Accept.
func mediaTypes(values []string) []string {
	var out []string
	for _, v := range values {
		for part := range strings.SplitSeq(v, ",") {
			mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err == nil {
				out = append(out, strings.ToLower(mt))
			}
		}
	}
	return out
}

// acceptsJSON and acceptsSSE read an Accept header, with wildcards.
func acceptsJSON(types []string) bool {
	return slices.ContainsFunc(types, func(t string) bool {
		return t == "application/json" || t == "application/*" || t == "*/*"
	})
}

func acceptsSSE(types []string) bool {
	return slices.ContainsFunc(types, func(t string) bool {
		return t == "text/event-stream" || t == "text/*" || t == "*/*"
	})
}

func (h *HTTPHandler) checkProtocolVersion(w http.ResponseWriter, r *http.Request) bool {
	v := r.Header.Get(HeaderProtocolVersion)
	if v == "" || slices.Contains(h.opts.ProtocolVersions, v) {
		return true
	}
	writeHTTPError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest,
		fmt.Sprintf("unsupported MCP-Protocol-Version %s (supported: %s)", echo(v), strings.Join(h.opts.ProtocolVersions, ", ")))
	return false
}

// lookup returns the session the request names. It answers the request itself and returns
// nil when the id is missing (400) or unknown (404).
func (h *HTTPHandler) lookup(w http.ResponseWriter, r *http.Request) *HTTPServerConn {
	id := r.Header.Get(HeaderSessionID)
	if id == "" {
		writeHTTPError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "bad request: missing Mcp-Session-Id header")
		return nil
	}
	h.mu.Lock()
	s := h.sessions[id]
	h.mu.Unlock()
	if s == nil {
		writeHTTPError(w, http.StatusNotFound, codeSessionNotFound, "session not found")
		return nil
	}
	return s
}

func (h *HTTPHandler) servePOST(w http.ResponseWriter, r *http.Request) {
	ct, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || ct != "application/json" {
		writeHTTPError(w, http.StatusUnsupportedMediaType, jsonrpc.CodeInvalidRequest,
			"unsupported media type: Content-Type must be application/json")
		return
	}
	accept := mediaTypes(r.Header.Values("Accept"))
	if !acceptsJSON(accept) || (!h.opts.JSONResponse && !acceptsSSE(accept)) {
		writeHTTPError(w, http.StatusNotAcceptable, jsonrpc.CodeInvalidRequest,
			"not acceptable: Accept must list both application/json and text/event-stream")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, int64(h.opts.MaxMessageSize)))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeHTTPError(w, http.StatusRequestEntityTooLarge, jsonrpc.CodeInvalidRequest,
				fmt.Sprintf("message too large: the limit is %d bytes", h.opts.MaxMessageSize))
			return
		}
		writeHTTPError(w, http.StatusBadRequest, jsonrpc.CodeParseError, "reading the body: "+err.Error())
		return
	}
	msg, err := jsonrpc.DecodeMessage(body)
	if err != nil {
		var de *jsonrpc.DecodeError
		if errors.As(err, &de) {
			id := de.ID
			if de.Response {
				id = jsonrpc.ID{} // the id of the call it answers, not of a request
				h.unreadableAnswer(r, de)
			}
			b, _ := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: de.Err})
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write(b)
			return
		}
		writeHTTPError(w, http.StatusBadRequest, jsonrpc.CodeParseError, err.Error())
		return
	}
	req, _ := msg.(*jsonrpc.Request)
	if h.isStateless(r, req) {
		h.serveStateless(w, r, req, accept)
		return
	}
	if !h.checkProtocolVersion(w, r) {
		return
	}
	isInit := req != nil && !req.IsNotification() && req.Method == "initialize"

	var s *HTTPServerConn
	if r.Header.Get(HeaderSessionID) == "" && isInit {
		if s = h.newSession(w, r, req); s == nil {
			return
		}
	} else {
		if s = h.lookup(w, r); s == nil {
			return
		}
		if isInit {
			writeHTTPError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest,
				"bad request: initialize sent within an initialized session")
			return
		}
		if !s.begin(false) {
			writeHTTPError(w, http.StatusNotFound, codeSessionNotFound, "session not found")
			return
		}
	}
	defer s.end(false)
	w.Header().Set(HeaderSessionID, s.id)

	if req == nil || req.IsNotification() {
		if req != nil && req.Method == jsonrpc.CancelledMethod {
			s.cancelStream(req.Params)
		}
		if resp, ok := msg.(*jsonrpc.Response); ok {
			s.mu.Lock()
			delete(s.asked, resp.ID)
			s.mu.Unlock()
		}
		if !s.push(r.Context(), msg) {
			writeHTTPError(w, http.StatusNotFound, codeSessionNotFound, "session not found")
			return
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}

	if h.opts.JSONResponse || s.answersInBody(req) {
		if !s.serveJSON(w, r, req) && isInit {
			s.Close() // the client left before its session could start
		}
		return
	}
	st, kick, status, errMsg := s.openRequestStream(req)
	if st == nil {
		refuse(w, req, status, errMsg)
		return
	}
	if !s.push(r.Context(), msg) {
		s.dropRequestStream(st)
		if isInit {
			s.Close()
		}
		return
	}
	s.deliver(w, r, st, 0, kick)
}

// unreadableAnswer hands the session the POST names an answer to one of its requests
// that could not be decoded but whose id could be read: the session's call fails at once
// with why ([jsonrpc.MalformedResponseError]) rather than waiting for an answer that has
// come. The POST is refused all the same.
func (h *HTTPHandler) unreadableAnswer(r *http.Request, de *jsonrpc.DecodeError) {
	if !de.ID.IsValid() {
		return
	}
	h.mu.Lock()
	s := h.sessions[r.Header.Get(HeaderSessionID)]
	h.mu.Unlock()
	if s == nil || !s.begin(false) {
		return
	}
	defer s.end(false)
	s.mu.Lock()
	delete(s.asked, de.ID)
	s.mu.Unlock()
	select {
	case s.unreadable <- de:
	case <-s.done:
	case <-r.Context().Done():
	}
}

// refuse answers a request the session cannot take now (see admitLocked).
func refuse(w http.ResponseWriter, req *jsonrpc.Request, status int, msg string) {
	if status != http.StatusTooManyRequests {
		// Without the id: it belongs to the request already in progress.
		writeHTTPError(w, status, jsonrpc.CodeInvalidRequest, msg)
		return
	}
	w.Header().Set("Retry-After", "1")
	writeHTTPErrorID(w, status, req.ID, jsonrpc.CodeInvalidRequest, msg)
}

// plainJSONMethods are answered with a JSON body even in SSE mode: MCP Tasks asks servers
// not to open an SSE stream in reply to tasks/get, and nothing travels with these replies.
var plainJSONMethods = map[string]bool{"tasks/get": true, "tasks/list": true, "tasks/cancel": true}

func (h *HTTPHandler) serveGET(w http.ResponseWriter, r *http.Request) {
	if !acceptsSSE(mediaTypes(r.Header.Values("Accept"))) {
		writeHTTPError(w, http.StatusNotAcceptable, jsonrpc.CodeInvalidRequest,
			"not acceptable: Accept must list text/event-stream")
		return
	}
	if !h.checkProtocolVersion(w, r) {
		return
	}
	s := h.lookup(w, r)
	if s == nil {
		return
	}
	if !s.begin(true) {
		writeHTTPError(w, http.StatusNotFound, codeSessionNotFound, "session not found")
		return
	}
	defer s.end(true)
	if last := r.Header.Get(headerLastEventID); last != "" {
		st, after, ok := s.resumable(last)
		if !ok {
			writeHTTPError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest,
				fmt.Sprintf("bad request: Last-Event-ID %s names no stream of this session", echo(last)))
			return
		}
		s.deliver(w, r, st, after, nil)
		return
	}
	st, after, ok := s.standaloneStream()
	if !ok {
		writeHTTPError(w, http.StatusConflict, jsonrpc.CodeInvalidRequest,
			"conflict: this session already has a standalone SSE stream open")
		return
	}
	s.deliver(w, r, st, after, nil)
}

func (h *HTTPHandler) serveDELETE(w http.ResponseWriter, r *http.Request) {
	s := h.lookup(w, r)
	if s == nil {
		return
	}
	h.log.Debug("session deleted by the client", "session", s.id)
	s.Close()
	w.WriteHeader(http.StatusNoContent)
}

// newSession creates and registers a session for an initialize request and starts serve.
// The session comes back begun (see [HTTPServerConn.begin]): the caller ends it.
func (h *HTTPHandler) newSession(w http.ResponseWriter, r *http.Request, init *jsonrpc.Request) *HTTPServerConn {
	ctx, cancel := context.WithCancel(context.Background())
	var caller string
	if f := h.opts.SessionCaller; f != nil {
		caller = f(r)
	}
	s := &HTTPServerConn{
		h:           h,
		id:          rand.Text(),
		caller:      caller,
		ctx:         ctx,
		cancel:      cancel,
		in:          make(chan jsonrpc.Message),
		unreadable:  make(chan *jsonrpc.DecodeError),
		done:        make(chan struct{}),
		streams:     map[string]*serverStream{},
		byRequest:   map[jsonrpc.ID]*serverStream{},
		waiters:     map[jsonrpc.ID]chan *jsonrpc.Response{},
		initID:      init.ID,
		active:      1, // so that no other new session evicts it before its first request ends
		lastRequest: time.Now(),
	}
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if json.Unmarshal(init.Params, &p) == nil {
		s.version = p.ProtocolVersion
	}
	s.standalone = s.newStreamLocked(jsonrpc.ID{})
	if h.opts.SessionTimeout > 0 {
		// Armed by end, once the initialize request is over.
		s.timer = time.AfterFunc(h.opts.SessionTimeout, s.expire)
		s.timer.Stop()
	}
	if status, msg := h.register(s); status != 0 {
		cancel()
		if status == http.StatusServiceUnavailable {
			w.Header().Set("Retry-After", "10")
		}
		writeHTTPErrorID(w, status, init.ID, jsonrpc.CodeInternalError, msg)
		return nil
	}
	h.log.Debug("session started", "session", s.id)
	go func() {
		defer h.wg.Done()
		defer s.Close()
		h.serve(ctx, s)
	}()
	return s
}

// register adds s to the sessions. At MaxSessions it first ends the least recently
// active idle session; it returns the HTTP status and message of a refusal when no
// session is idle or the handler is closed.
func (h *HTTPHandler) register(s *HTTPServerConn) (int, string) {
	// Each round ends a session or finds none idle; a few rounds only fail when every
	// session keeps turning busy, and then the server is busy indeed.
	for range 4 {
		h.mu.Lock()
		if h.closed {
			h.mu.Unlock()
			return http.StatusServiceUnavailable, "the server is shutting down"
		}
		if h.opts.MaxSessions <= 0 || len(h.sessions) < h.opts.MaxSessions {
			h.sessions[s.id] = s
			h.wg.Add(1)
			h.mu.Unlock()
			return 0, ""
		}
		victim := h.idlestLocked()
		h.mu.Unlock()
		if victim == nil {
			break
		}
		victim.evict()
	}
	h.log.Warn("new session refused: every session has a request in progress", "sessions", h.opts.MaxSessions)
	return http.StatusServiceUnavailable, fmt.Sprintf(
		"too many sessions: the server holds %d, each with a request in progress; try again later or end a session (DELETE)", h.opts.MaxSessions)
}

// idlestLocked returns the session to evict for a new one, or nil: of the sessions
// without a POST in progress, the least recently requested that its server does not
// hold (see [HTTPServerConn.Hold]), else the least recently requested held one, else
// the least recently requested of those whose client has sent nothing for
// SessionTimeout though a POST of theirs is in progress. An open GET stream does not
// count: it is the client's to keep open, for as long as it likes, and 256 of them never
// read locked every new client out. A held session goes after the idle ones, not never,
// so that sessions with tasks running cannot lock new clients out either; nor can
// sessions whose calls wait for ever on a client that never answers. h.mu is held; each
// session's own lock is taken inside it (never the other way).
func (h *HTTPHandler) idlestLocked() *HTTPServerConn {
	var victim *HTTPServerConn
	var vrank int
	var since time.Time
	now := time.Now()
	for _, s := range h.sessions {
		s.mu.Lock()
		rank, last := s.evictRankLocked(now), s.lastRequest
		s.mu.Unlock()
		if rank > 0 && (victim == nil || rank < vrank || rank == vrank && last.Before(since)) {
			victim, vrank, since = s, rank, last
		}
	}
	return victim
}

// HTTPServerConn is the server's end of one Streamable HTTP session, the
// [jsonrpc.Connection] given to the serve function of [NewHTTPHandler].
//
// Write routes each message: a response goes to the SSE stream of the POST that carried
// its request (ending that stream); a request or notification goes to the stream of
// [jsonrpc.RelatedRequest] of the write's context while that request's stream is open,
// and otherwise to the standalone GET stream, where it waits (bounded) until the client
// opens one. Write never waits for the network.
type HTTPServerConn struct {
	h      *HTTPHandler
	id     string
	caller string // see HTTPOptions.SessionCaller
	ctx    context.Context
	cancel context.CancelFunc
	in     chan jsonrpc.Message
	// unreadable carries the client's answers that could not be decoded but name the
	// request they answer, for Read to return as a [*jsonrpc.DecodeError].
	unreadable chan *jsonrpc.DecodeError
	done       chan struct{}
	once       sync.Once

	mu         sync.Mutex
	version    string     // negotiated protocol version (proposed one until the result)
	initID     jsonrpc.ID // id of the initialize request, whose result names the version
	nextStream int
	streams    map[string]*serverStream
	byRequest  map[jsonrpc.ID]*serverStream // SSE streams awaiting the response to a request
	waiters    map[jsonrpc.ID]chan *jsonrpc.Response
	standalone *serverStream
	lingering  []*serverStream
	retained   int // bytes of event data in streams
	// graced is the stream whose write of a dropped message has stalledWriteGrace to
	// finish, if that write goes on: the one such write of the session (see trimLocked).
	graced *serverStream
	order  uint64 // events appended to any stream of the session so far
	active int    // HTTP requests of the session in progress
	gets   int    // of which GET requests, which a client keeps open as it likes
	held   int    // holds of the server (see Hold)
	// lastRequest is when a POST of the session last began or ended: how recently
	// its client did something, for the choice of a session to evict.
	lastRequest time.Time
	closing     bool // ending: no new request may begin, the idle timer stays off
	timer       *time.Timer

	inBody atomic.Pointer[func(*jsonrpc.Request) bool] // see AnswerInBody

	// asked holds the seq of the server's requests on the standalone stream until the
	// client answers them (see RequestUnheard); at most maxAsked.
	asked map[jsonrpc.ID]int
}

// maxAsked bounds HTTPServerConn.asked: a client that answers nothing does not grow it.
const maxAsked = 256

// AnswerInBody has the requests for which f reports true answered with one
// application/json body instead of an SSE stream, as tasks/get always is. f is for the
// requests whose answer is all their response will carry, known before they are handled
// (a tasks/result for a task that has ended: no input request or progress can come
// first): such a body is one write for the server and one read for the client, where a
// stream takes three and an SSE parse. A message the session sends while handling such a
// request travels on the standalone GET stream, as with [HTTPOptions.JSONResponse]. f
// runs on the HTTP request's goroutine before the request is handed to the session, so
// it must be quick and must not wait for the session.
func (s *HTTPServerConn) AnswerInBody(f func(*jsonrpc.Request) bool) {
	s.inBody.Store(&f)
}

// answersInBody reports whether req is answered with a JSON body.
func (s *HTTPServerConn) answersInBody(req *jsonrpc.Request) bool {
	if plainJSONMethods[req.Method] {
		return true
	}
	f := s.inBody.Load()
	return f != nil && (*f)(req)
}

// serverStream is one logical SSE stream: its events outlive the HTTP response that
// carries them, so a client can resume it with Last-Event-ID.
type serverStream struct {
	id     string
	req    jsonrpc.ID // the request whose response ends the stream; zero for standalone
	events []streamEvent
	bytes  int  // data bytes of events, counted in the session's retained
	seq    int  // seq of the last event added
	sent   int  // highest seq written to any delivery
	done   bool // the response has been added (or the request cancelled): no more events
	// answered: the last event is the response to req (false for a cancelled request).
	answered bool
	// writing: the delivery holding the stream is writing events it took; while it waits
	// for more, the events it has not had are on their way and stay.
	writing bool
	wake    chan struct{}
	owner   chan struct{} // kick channel of the delivery holding the stream, nil if none
	// cut shortens the write the delivery holding the stream is making to end within
	// grace from now (see stalledWriteGrace); nil when it is not writing.
	cut    func(grace time.Duration)
	from   int  // the seq after which the delivery that took the stream over began
	warned bool // an overflow was logged
}

type streamEvent struct {
	seq   int
	order uint64 // the session's order, to find the oldest event of any stream
	data  []byte
	// final: the response that stays to the end of its stream, in its place or as the
	// short error that replaced it (see keepResponseLocked).
	final bool
}

func (st *serverStream) eventID(seq int) string { return st.id + ":" + strconv.Itoa(seq) }

func (st *serverStream) signal() {
	select {
	case st.wake <- struct{}{}:
	default:
	}
}

// Caller returns the name [HTTPOptions.SessionCaller] gave the caller that opened the
// session; "" without it.
func (s *HTTPServerConn) Caller() string { return s.caller }

// SessionID returns the value of the session's Mcp-Session-Id header.
func (s *HTTPServerConn) SessionID() string { return s.id }

// ProtocolVersion returns the protocol version of the session: the one the initialize
// result chose, or the client's proposal until then.
func (s *HTTPServerConn) ProtocolVersion() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version
}

// Read returns the next message the client POSTed, a [*jsonrpc.DecodeError] for an
// answer it POSTed that could not be decoded, and io.EOF once the session is closed.
func (s *HTTPServerConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m := <-s.in:
		return m, nil
	case de := <-s.unreadable:
		return nil, de
	case <-s.done:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// errSessionClosed is returned by writes to a closed session.
var errSessionClosed = errors.New("transport: the HTTP session is closed")

// Write queues m on the stream it belongs to; see [HTTPServerConn].
func (s *HTTPServerConn) Write(ctx context.Context, m jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(m)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.done:
		return errSessionClosed
	default:
	}
	switch m := m.(type) {
	case *jsonrpc.Response:
		if m.ID.IsValid() && m.ID == s.initID && m.Error == nil {
			var r struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			if json.Unmarshal(m.Result, &r) == nil && r.ProtocolVersion != "" {
				s.version = r.ProtocolVersion
			}
		}
		if ch, ok := s.waiters[m.ID]; ok {
			delete(s.waiters, m.ID)
			ch <- m // buffered
			return nil
		}
		st, ok := s.byRequest[m.ID]
		if !ok {
			return fmt.Errorf("transport: no open HTTP request awaits the response to request %s", m.ID)
		}
		delete(s.byRequest, m.ID)
		// Done before it is added, so that the trimming the addition makes knows the
		// event for the response it is.
		st.done, st.answered = true, true
		s.appendLocked(st, data)
		if st.owner == nil {
			s.lingerLocked(st)
		}
		return nil
	default:
		st := s.standalone
		if id, ok := jsonrpc.RelatedRequest(ctx); ok {
			if rs, ok := s.byRequest[id]; ok {
				st = rs
			}
		}
		s.appendLocked(st, data)
		if r, ok := m.(*jsonrpc.Request); ok && st == s.standalone && !r.IsNotification() {
			if s.asked == nil {
				s.asked = make(map[jsonrpc.ID]int)
			}
			if len(s.asked) >= maxAsked {
				for id := range s.asked {
					delete(s.asked, id)
					break
				}
			}
			s.asked[r.ID] = st.seq
		}
		return nil
	}
}

// RequestUnheard reports whether the server's request id, written on the session's
// standalone stream, went to a client that has gone without answering it: no GET holds
// the stream now, or the one that does began after the request, so that nobody will
// see it there. A request not yet written to any GET (the next one gets it), or
// answered, is not unheard. A client that leaves a session it means to resume (its
// process ends; it opens a new GET later, from the newest event) leaves such requests.
func (s *HTTPServerConn) RequestUnheard(id jsonrpc.ID) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	seq, ok := s.asked[id]
	st := s.standalone
	if !ok || st.sent < seq {
		return false
	}
	return st.owner == nil || st.from >= seq
}

// appendLocked adds an event to st, dropping the oldest beyond the retention bounds.
func (s *HTTPServerConn) appendLocked(st *serverStream, data []byte) {
	st.seq++
	s.order++
	st.events = append(st.events, streamEvent{seq: st.seq, order: s.order, data: data})
	st.bytes += len(data)
	s.retained += len(data)
	if n := len(st.events) - s.h.opts.EventRetention; n > 0 {
		if st.owner != nil {
			// A client is reading the stream: the events it has not had yet are on their
			// way, and only those it had go (the session's bytes bound, trimLocked,
			// still drops undelivered ones from a client that reads too slowly).
			n = min(n, sort.Search(len(st.events), func(i int) bool { return st.events[i].seq > st.sent }))
		}
		if n > 0 {
			s.dropEventsLocked(st, n)
		}
	}
	s.trimLocked()
	st.signal()
}

// dropEventsLocked drops the n oldest events of st, warning once per stream when some
// were never delivered.
func (s *HTTPServerConn) dropEventsLocked(st *serverStream, n int) {
	if last := st.events[n-1].seq; last > st.sent && !st.warned {
		st.warned = true
		s.h.log.Warn("SSE stream buffer full: dropping undelivered events",
			"session", s.id, "stream", st.id, "dropped", last-st.sent)
	}
	for _, ev := range st.events[:n] {
		st.bytes -= len(ev.data)
		s.retained -= len(ev.data)
	}
	// Cut from the front, not moved down: a session over its bytes drops one event at
	// each write, and moving the rest cost each write as much as a stalled stream's
	// backlog. The slots let go of their data now; append drops the slots themselves
	// when it next grows the array.
	clear(st.events[:n])
	st.events = st.events[n:]
}

// forgetLocked drops a stream: it can no longer be resumed. A delivery that holds it
// keeps the events it has yet to write.
func (s *HTTPServerConn) forgetLocked(st *serverStream) {
	if s.streams[st.id] == st {
		delete(s.streams, st.id)
	}
	s.lingering = slices.DeleteFunc(s.lingering, func(x *serverStream) bool { return x == st })
	s.retained -= st.bytes
	st.bytes = 0
	if st.owner == nil {
		st.events = nil
	}
}

// trimLocked keeps the session within MaxRetainedBytes, dropping the oldest first: the
// streams kept only for clients that went away (down to their responses, see
// keepResponseLocked), then events delivered already, then events no client is reading
// now, and last the older undelivered events of a client that reads too slowly. What a
// connected client is being sent stays: the newest event of a stream it reads, and every
// event while the stream's delivery waits for more.
func (s *HTTPServerConn) trimLocked() {
	limit := s.h.opts.MaxRetainedBytes
	for limit > 0 && s.retained > limit {
		if i := slices.IndexFunc(s.lingering, func(st *serverStream) bool {
			return st.owner == nil && (len(st.events) != 1 || !st.events[0].final)
		}); i >= 0 {
			if st := s.lingering[i]; st.answered && len(st.events) > 0 && st.events[len(st.events)-1].seq > st.sent {
				if n := len(st.events) - 1; n > 0 {
					s.dropEventsLocked(st, n)
				}
				s.keepResponseLocked(st)
			} else {
				s.forgetLocked(st)
			}
			continue
		}
		var victim, newest *serverStream
		var vrank int
		for _, st := range s.streams {
			r := s.dropRank(st)
			if r == rankBeingWritten && (newest == nil || st.events[0].order > newest.events[0].order) {
				newest = st
			}
			if r > 0 && (victim == nil || r < vrank ||
				r == vrank && st.events[0].order < victim.events[0].order) {
				victim, vrank = st, r
			}
		}
		if vrank == rankBeingWritten && victim == newest {
			// The newest message being written goes on whatever its size: a client
			// that keeps up gets every message. The session is over its bound by it
			// alone, and sheds it once it is written or the write fails.
			return
		}
		if victim == nil {
			return
		}
		if vrank == rankBeingWritten {
			// The client has not taken it: it reads nothing, or too slowly for the
			// messages of its streams to fit the bound. Its write is given a few seconds
			// more, not 30, and the message goes from what is kept, so that a client
			// that resumes the stream learns of it. The write holds the message's bytes
			// until it ends, beyond the bound: one such write at a time, the earlier
			// one ended now, so that a handler answering fast does not pile up a few
			// seconds of answers.
			if g := s.graced; g != nil && g != victim && g.cut != nil {
				g.cut(0)
			}
			victim.cutLocked()
			s.graced = victim
		}
		if (vrank == 2 || vrank == rankBeingWritten) && victim.answered && len(victim.events) == 1 {
			s.keepResponseLocked(victim)
			continue
		}
		s.dropEventsLocked(victim, 1)
		if victim != s.standalone && victim.done && victim.owner == nil && len(victim.events) == 0 {
			s.forgetLocked(victim)
		}
	}
}

// rankBeingWritten is the dropRank of the newest event of a stream that a delivery is
// writing: it goes last, and the newest such event of the session never does.
const rankBeingWritten = 4

// dropRank says how readily the oldest event of st goes when the session is over its
// bytes (lowest first): 1 delivered, 2 no client reading, 3 a client reading but busy
// with earlier events, 4 (rankBeingWritten) being written to a client that has not
// taken it yet; 0 never.
func (s *HTTPServerConn) dropRank(st *serverStream) int {
	if len(st.events) == 0 {
		return 0
	}
	ev := st.events[0]
	switch {
	case ev.final:
		return 0
	case ev.seq <= st.sent:
		return 1
	case st.owner == nil:
		return 2
	case !st.writing:
		// On its way: the delivery takes it at once.
		return 0
	case ev.seq == st.seq:
		return rankBeingWritten
	}
	return 3
}

// cutLocked shortens the write in progress of the delivery holding st to
// stalledWriteGrace from now.
func (st *serverStream) cutLocked() {
	if st.cut != nil {
		st.cut(stalledWriteGrace)
	}
}

// notWritingLocked marks st's delivery as done with the write it was making.
func (s *HTTPServerConn) notWritingLocked(st *serverStream) {
	st.writing, st.cut = false, nil
	if s.graced == st {
		s.graced = nil
	}
}

// maxKeptResponse is the size up to which a response that has to go stays as it is: the
// short error that replaces a larger one is about as long.
const maxKeptResponse = 512

// keepResponseLocked makes the response of st, its only event now and not delivered, the
// event that stays to the end of the stream, for its client to resume: as it is when it
// is short, else replaced by a short JSON-RPC error for its request that says it was
// dropped. Such an event never goes to make room (it is small, and the streams that
// hold one are few: see maxLingeringStreams).
func (s *HTTPServerConn) keepResponseLocked(st *serverStream) {
	ev := &st.events[0]
	if len(ev.data) > maxKeptResponse {
		if !st.warned {
			st.warned = true
			s.h.log.Warn("SSE stream buffer full: dropping an undelivered response",
				"session", s.id, "stream", st.id, "bytes", len(ev.data))
		}
		msg := fmt.Sprintf("the server dropped its response to this request (%d bytes) before the client read it: "+
			"the session keeps at most %d bytes of messages for clients that are not reading", len(ev.data), s.h.opts.MaxRetainedBytes)
		data, _ := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: st.req, Error: jsonrpc.NewError(jsonrpc.CodeInternalError, msg)})
		st.bytes += len(data) - len(ev.data)
		s.retained += len(data) - len(ev.data)
		ev.data = data
	}
	ev.final = true
}

// lingerLocked keeps a finished but not fully delivered stream for a while, so that the
// client can still resume it, and forgets the oldest such streams beyond a bound.
func (s *HTTPServerConn) lingerLocked(st *serverStream) {
	if s.streams[st.id] != st || slices.Contains(s.lingering, st) {
		return // forgotten already (see trimLocked), or lingering
	}
	s.lingering = append(s.lingering, st)
	if len(s.lingering) > maxLingeringStreams {
		s.forgetLocked(s.lingering[0])
	}
}

// Close ends the session: Read returns io.EOF, open streams end, and later requests with
// the session id get 404.
func (s *HTTPServerConn) Close() error {
	s.once.Do(func() {
		s.h.mu.Lock()
		delete(s.h.sessions, s.id)
		s.h.mu.Unlock()
		s.mu.Lock()
		close(s.done)
		s.closing = true
		if s.timer != nil {
			s.timer.Stop()
		}
		s.mu.Unlock()
		s.cancel()
		s.h.log.Debug("session closed", "session", s.id)
	})
	return nil
}

// CloseSSEStream ends the HTTP response currently carrying the SSE stream of the request
// with the given id, without ending the stream: the client reconnects after the advertised
// retry delay with Last-Event-ID and receives what was written meanwhile, including the
// response. This is SSE polling (SEP-1699). It reports whether such a stream was open.
func (s *HTTPServerConn) CloseSSEStream(id jsonrpc.ID) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.byRequest[id]
	if !ok || st.owner == nil {
		return false
	}
	close(st.owner)
	st.owner = nil
	return true
}

// begin and end bracket every HTTP request of the session, for the idle timeout and the
// choice of a session to evict; get says the request is a GET.
func (s *HTTPServerConn) begin(get bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.done:
		return false
	default:
	}
	if s.closing {
		return false
	}
	s.active++
	if get {
		s.gets++
	} else {
		s.lastRequest = time.Now()
	}
	if s.timer != nil {
		s.timer.Stop()
	}
	return true
}

func (s *HTTPServerConn) end(get bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.active--
	if get {
		s.gets--
	} else {
		s.lastRequest = time.Now()
	}
	s.armLocked()
}

// armLocked starts the idle timer when nothing keeps the session: no request or stream
// in progress, no hold.
func (s *HTTPServerConn) armLocked() {
	if s.active == 0 && s.held == 0 && s.timer != nil && !s.closing {
		s.timer.Reset(s.h.opts.SessionTimeout)
	}
}

// Hold keeps the session while its server does work for its client that the client
// will come back for (a task running): the session does not expire while held, and is
// evicted for a new session ([HTTPOptions.MaxSessions]) only when every session without
// a POST in progress is held. The server bounds how long it holds (a task's TTL).
// release ends the hold; from then on the session expires SessionTimeout after its last
// request, or later. Calling release again does nothing.
func (s *HTTPServerConn) Hold() (release func()) {
	s.mu.Lock()
	s.held++
	if s.timer != nil {
		s.timer.Stop()
	}
	s.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.held--
			s.armLocked()
		})
	}
}

func (s *HTTPServerConn) expire() {
	s.closeIf("expired", func() bool { return s.active == 0 && s.held == 0 })
}

// evictableLocked reports whether the session is idle: no POST in progress.
func (s *HTTPServerConn) evictableLocked() bool { return s.active == s.gets && !s.closing }

// evictRankLocked says how readily the session goes for a new one (lowest first): 1 idle
// and not held, 2 idle and held, 3 a POST in progress but nothing from its client for
// SessionTimeout (a call that waits on a client that never answers would otherwise keep
// its session for ever); 0 never.
func (s *HTTPServerConn) evictRankLocked(now time.Time) int {
	switch {
	case s.closing:
		return 0
	case s.evictableLocked() && s.held == 0:
		return 1
	case s.evictableLocked():
		return 2
	case s.h.opts.SessionTimeout > 0 && now.Sub(s.lastRequest) >= s.h.opts.SessionTimeout:
		return 3
	}
	return 0
}

// evict ends the session, its streams with it, unless a POST of its began since it was
// chosen (which makes an idle session busy, and a quiet busy one not quiet).
func (s *HTTPServerConn) evict() {
	s.closeIf("evicted to make room for a new session", func() bool { return s.evictRankLocked(time.Now()) > 0 })
}

// closeIf ends the session if idle, called with s.mu held, still says so. From the
// moment it decides, begin refuses new requests, so none slips in before Close.
func (s *HTTPServerConn) closeIf(why string, idle func() bool) {
	s.mu.Lock()
	ok := !s.closing && idle()
	if ok {
		s.closing = true
	}
	s.mu.Unlock()
	if ok {
		s.h.log.Debug("session "+why, "session", s.id)
		s.Close()
	}
}

// push hands a message to Read, waiting for the reader.
func (s *HTTPServerConn) push(ctx context.Context, m jsonrpc.Message) bool {
	select {
	case s.in <- m:
		return true
	case <-s.done:
		return false
	case <-ctx.Done():
		return false
	}
}

func (s *HTTPServerConn) newStreamLocked(req jsonrpc.ID) *serverStream {
	st := &serverStream{id: strconv.Itoa(s.nextStream), req: req, wake: make(chan struct{}, 1)}
	s.nextStream++
	s.streams[st.id] = st
	return st
}

// admitLocked reports whether req may wait for its response: its id must not be in use
// and the session below MaxInFlight. A refusal comes as an HTTP status and a message.
func (s *HTTPServerConn) admitLocked(req *jsonrpc.Request) (int, string) {
	_, dup1 := s.byRequest[req.ID]
	_, dup2 := s.waiters[req.ID]
	if dup1 || dup2 {
		return http.StatusBadRequest, fmt.Sprintf("invalid request: request id %s is already in use", req.ID)
	}
	if limit := s.h.opts.MaxInFlight; limit > 0 && len(s.byRequest)+len(s.waiters) >= limit {
		return http.StatusTooManyRequests, fmt.Sprintf(
			"too many requests: this session already has %s waiting for a response; send more once one is answered", plural.Count(limit, "request", "requests"))
	}
	return 0, ""
}

// openRequestStream creates the SSE stream of a request, to be registered before the
// request reaches Read so that its response finds the stream.
// openRequestStream opens the stream that answers req, held from the start by the POST
// that sent it (the kick returned, for deliver): a response written before that POST's
// delivery begins is on its way, not left behind by a client that went away, and must
// not be among the lingering streams forgotten beyond maxLingeringStreams (a burst of
// quick answers on a busy machine lost some that way, events and all).
func (s *HTTPServerConn) openRequestStream(req *jsonrpc.Request) (*serverStream, chan struct{}, int, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if status, msg := s.admitLocked(req); status != 0 {
		return nil, nil, status, msg
	}
	st := s.newStreamLocked(req.ID)
	st.owner = make(chan struct{})
	s.byRequest[req.ID] = st
	return st, st.owner, 0, ""
}

func (s *HTTPServerConn) dropRequestStream(st *serverStream) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byRequest[st.req] == st {
		delete(s.byRequest, st.req)
	}
	s.forgetLocked(st)
}

// cancelStream ends the stream of a request the client cancelled: the server sends no
// response to it, so nothing else would.
func (s *HTTPServerConn) cancelStream(params json.RawMessage) {
	var p struct {
		RequestID jsonrpc.ID `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || !p.RequestID.IsValid() {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := s.byRequest[p.RequestID]; ok {
		delete(s.byRequest, p.RequestID)
		st.done = true
		st.signal()
		if st.owner == nil {
			s.forgetLocked(st)
		}
	}
	if ch, ok := s.waiters[p.RequestID]; ok {
		delete(s.waiters, p.RequestID)
		close(ch)
	}
}

// resumable finds the stream and position named by a Last-Event-ID.
func (s *HTTPServerConn) resumable(lastID string) (*serverStream, int, bool) {
	sid, seqStr, ok := strings.Cut(lastID, ":")
	if !ok {
		return nil, 0, false
	}
	seq, err := strconv.Atoi(seqStr)
	if err != nil || seq < 0 {
		return nil, 0, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.streams[sid]
	if !ok || seq > st.seq {
		return nil, 0, false
	}
	return st, seq, true
}

// standaloneStream returns the standalone stream if no delivery holds it, with the
// position after which its events have not been written anywhere yet.
func (s *HTTPServerConn) standaloneStream() (*serverStream, int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.standalone
	if st.owner != nil {
		return nil, 0, false
	}
	return st, st.sent, true
}

// primes reports whether streams of this session start with a priming event: only for
// clients of 2025-11-25 or later (by the version the session negotiated, whatever a
// request's MCP-Protocol-Version header says), as older clients may fail on empty data.
func (s *HTTPServerConn) primes() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.version
	if v == "" {
		v = assumedProtocolVersion
	}
	return v >= primingVersion
}

// deliver streams st's events after seq `after` as the response to r, until the stream is
// done and fully written, the client goes away, another delivery takes the stream over,
// or the session ends. kick is the hold openRequestStream gave the POST that sent the
// request; nil takes the stream over (a resumption, the standalone stream).
func (s *HTTPServerConn) deliver(w http.ResponseWriter, r *http.Request, st *serverStream, after int, kick chan struct{}) {
	s.mu.Lock()
	if kick == nil {
		kick = make(chan struct{})
		if st.owner != nil {
			close(st.owner) // a resumption takes over from a connection the client gave up
		}
		s.notWritingLocked(st)
		st.owner, st.from = kick, after
	}
	s.mu.Unlock()

	rc := http.NewResponseController(w)
	hdr := w.Header()
	hdr.Set("Content-Type", "text/event-stream")
	hdr.Set("Cache-Control", "no-cache")
	hdr.Set("X-Accel-Buffering", "no")
	hdr.Set(HeaderSessionID, s.id)
	w.WriteHeader(http.StatusOK)
	// A long-lived stream must outlive any http.Server ReadTimeout/WriteTimeout: clear the
	// read deadline and bound each write instead.
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Now().Add(sseWriteTimeout))
	if s.primes() {
		if err := writeSSEEvent(w, st.eventID(after), s.h.opts.Retry, nil); err != nil {
			s.release(st, kick)
			return
		}
	}
	if err := rc.Flush(); err != nil {
		s.release(st, kick)
		return
	}

	cursor := after
	for {
		s.mu.Lock()
		if st.owner != kick {
			s.mu.Unlock()
			return
		}
		var batch []streamEvent
		for _, ev := range st.events {
			if ev.seq > cursor {
				batch = append(batch, ev)
			}
		}
		if len(batch) > 0 && batch[0].seq > cursor+1 {
			s.h.log.Warn("SSE stream resumed past its retained events: some were lost",
				"session", s.id, "stream", st.id, "lost", batch[0].seq-cursor-1)
		}
		finished := st.done && (len(batch) == 0 || batch[len(batch)-1].seq == st.seq)
		st.writing = len(batch) > 0
		if st.writing {
			deadline := time.Now().Add(sseWriteTimeout)
			_ = rc.SetWriteDeadline(deadline)
			st.cut = func(grace time.Duration) {
				if d := time.Now().Add(grace); d.Before(deadline) {
					deadline = d
					_ = rc.SetWriteDeadline(d)
				}
			}
		}
		s.mu.Unlock()

		if len(batch) > 0 {
			for _, ev := range batch {
				if err := writeSSEEvent(w, st.eventID(ev.seq), 0, ev.data); err != nil {
					s.release(st, kick)
					return
				}
			}
			if err := rc.Flush(); err != nil {
				s.release(st, kick)
				return
			}
			cursor = batch[len(batch)-1].seq
			s.mu.Lock()
			st.sent = max(st.sent, cursor)
			if st.owner == kick {
				s.notWritingLocked(st)
			}
			s.trimLocked() // what was kept only until it was written may go now
			s.mu.Unlock()
		}
		if finished {
			s.mu.Lock()
			if st.owner == kick {
				st.owner = nil
				if st != s.standalone {
					s.forgetLocked(st)
				}
			}
			s.mu.Unlock()
			return
		}
		select {
		case <-st.wake:
		case <-kick:
			return
		case <-r.Context().Done():
			s.release(st, kick)
			return
		case <-s.done:
			return
		}
	}
}

// release detaches a delivery that ended early; the stream stays resumable.
func (s *HTTPServerConn) release(st *serverStream, kick chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st.owner == kick {
		st.owner = nil
		s.notWritingLocked(st)
		if st.done && st != s.standalone {
			s.lingerLocked(st)
		}
		// What was on its way to the client, kept whole while the client was there, is
		// now kept for a client that went away, within the bound.
		s.trimLocked()
	}
}

// serveJSON answers a request with a single JSON body once its response is written. It
// reports whether the request reached Read.
func (s *HTTPServerConn) serveJSON(w http.ResponseWriter, r *http.Request, req *jsonrpc.Request) bool {
	ch := make(chan *jsonrpc.Response, 1)
	s.mu.Lock()
	if status, msg := s.admitLocked(req); status != 0 {
		s.mu.Unlock()
		refuse(w, req, status, msg)
		return false
	}
	s.waiters[req.ID] = ch
	s.mu.Unlock()
	forget := func() {
		s.mu.Lock()
		if s.waiters[req.ID] == ch {
			delete(s.waiters, req.ID)
		}
		s.mu.Unlock()
	}
	if !s.push(r.Context(), req) {
		forget()
		return false
	}
	select {
	case resp, ok := <-ch:
		boundWrites(w)
		if !ok { // cancelled by the client
			w.WriteHeader(http.StatusAccepted)
			return true
		}
		b, err := jsonrpc.EncodeMessage(resp)
		if err != nil {
			writeHTTPError(w, http.StatusInternalServerError, jsonrpc.CodeInternalError, err.Error())
			return true
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(b)
	case <-r.Context().Done():
		forget()
	case <-s.done:
		forget()
		boundWrites(w)
		writeHTTPError(w, http.StatusNotFound, codeSessionNotFound, "session closed")
	}
	return true
}

// boundWrites gives the writes of a response from now on sseWriteTimeout in all: the
// http.Server has no WriteTimeout (it would end every SSE stream), so without it a JSON
// body of megabytes to a client that reads nothing would hold its handler, and whatever
// that handler holds (a session kept busy, a MaxStatelessInFlight slot), for ever.
func boundWrites(w http.ResponseWriter) {
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(sseWriteTimeout))
}
