package transport

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mcpi-dev/mcpi/internal/jsonwire"
	"github.com/mcpi-dev/mcpi/internal/plural"
	"github.com/mcpi-dev/mcpi/jsonrpc"
)

// Stateless requests of revision 2026-07-28 over Streamable HTTP.
//
// A POST without Mcp-Session-Id whose MCP-Protocol-Version header is not one of
// [HTTPOptions.ProtocolVersions] (the 2025 revisions), or whose params carry
// _meta["io.modelcontextprotocol/protocolVersion"], is a stateless request: no session
// is created and no GET stream is needed. The handler checks the headers that mirror the
// body (MCP-Protocol-Version, Mcp-Method, Mcp-Name, the last decoded from
// =?base64?...?=) and the required _meta members, then hands the request to the serve
// function as a connection of its own ([StatelessConn]). The answer is one JSON body, or
// an SSE stream as soon as the server sends a notification related to the request
// (progress, log messages, a subscriptions/listen stream). Errors answered before any
// stream get the HTTP status revision 2026-07-28 gives them: 400 for -32020, -32021,
// -32022 and a malformed _meta (-32602), 404 for -32601.

// DefaultModernProtocolVersions are the stateless revisions this package can serve; an
// [HTTPHandler] serves them when [HTTPOptions.ModernProtocolVersions] lists them.
var DefaultModernProtocolVersions = []string{"2026-07-28"}

// JSON-RPC codes of revision 2026-07-28 that the transport sends itself.
const (
	codeHeaderMismatch              = -32020
	codeMissingClientCapability     = -32021
	codeUnsupportedProtocolVersion  = -32022
	metaProtocolVersion             = "io.modelcontextprotocol/protocolVersion"
	metaClientCapabilities          = "io.modelcontextprotocol/clientCapabilities"
	statelessNotificationWriteLimit = sseWriteTimeout
)

// isStateless reports whether a POST is a stateless 2026-07-28 request.
func (h *HTTPHandler) isStateless(r *http.Request, req *jsonrpc.Request) bool {
	if len(h.opts.ModernProtocolVersions) == 0 || r.Header.Get(HeaderSessionID) != "" || req == nil {
		return false
	}
	if v := r.Header.Get(HeaderProtocolVersion); v != "" && !slices.Contains(h.opts.ProtocolVersions, v) {
		return true
	}
	return bytes.Contains(req.Params, metaVersionKey)
}

// statusOf is the HTTP status of an error answered before any stream.
func statusOf(code int64) int {
	switch code {
	case codeHeaderMismatch, codeMissingClientCapability, codeUnsupportedProtocolVersion:
		return http.StatusBadRequest
	case jsonrpc.CodeMethodNotFound:
		return http.StatusNotFound
	}
	return http.StatusOK
}

func writeStatelessError(w http.ResponseWriter, status int, id jsonrpc.ID, e *jsonrpc.Error) {
	b, _ := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: e})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// DecodeHeaderValue reads a header value that may be =?base64?...?= (standard, padded
// base64 of UTF-8 bytes); ok is false when the base64 is invalid. A value without the
// whole wrapper is taken literally.
func DecodeHeaderValue(v string) (_ string, ok bool) {
	inner, ok := strings.CutPrefix(v, "=?base64?")
	if !ok {
		return v, true
	}
	inner, ok = strings.CutSuffix(inner, "?=")
	if !ok {
		return v, true
	}
	b, err := base64.StdEncoding.DecodeString(inner)
	if err != nil {
		return "", false
	}
	return string(b), true
}

// checkStateless checks the _meta and the mirrored headers of a stateless request; it
// returns the error to answer with and its HTTP status, or nil.
func (h *HTTPHandler) checkStateless(r *http.Request, req *jsonrpc.Request) (*jsonrpc.Error, int) {
	var probe statelessProbe
	if len(req.Params) > 0 && !probe.read(req.Params) {
		var plain struct {
			Name   *string                    `json:"name"`
			URI    *string                    `json:"uri"`
			TaskID *string                    `json:"taskId"`
			Meta   map[string]json.RawMessage `json:"_meta"`
		}
		if json.Unmarshal(req.Params, &plain) != nil {
			return jsonrpc.NewError(jsonrpc.CodeInvalidParams, "params must be an object"), http.StatusBadRequest
		}
		probe = statelessProbe{name: text{s: plain.Name}, uri: text{s: plain.URI}, taskID: text{s: plain.TaskID},
			version: plain.Meta[metaProtocolVersion], caps: plain.Meta[metaClientCapabilities]}
	}
	// Anything but a string literal is no version (null decodes as "", and
	// encoding/json refuses the rest).
	var version text
	if len(probe.version) > 0 && probe.version[0] == '"' {
		version.lit = probe.version
	}
	if version.is("") {
		return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "params._meta[%q] is required", metaProtocolVersion), http.StatusBadRequest
	}
	if raw := bytes.TrimSpace(probe.caps); len(raw) == 0 || raw[0] != '{' {
		return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "params._meta[%q] is required (an object)", metaClientCapabilities), http.StatusBadRequest
	}
	mismatch := func(format string, args ...any) (*jsonrpc.Error, int) {
		return jsonrpc.Errorf(codeHeaderMismatch, "Header mismatch: "+format, args...), http.StatusBadRequest
	}
	hv := r.Header.Get(HeaderProtocolVersion)
	switch {
	case hv == "":
		return mismatch("the MCP-Protocol-Version header is missing")
	case !version.is(hv):
		return mismatch("MCP-Protocol-Version header value %s does not match _meta value %s", echo(hv), echo(version.String()))
	}
	if version := hv; !slices.Contains(h.opts.ModernProtocolVersions, version) {
		return jsonrpc.Errorf(codeUnsupportedProtocolVersion, "Unsupported protocol version %s", echo(version)).
			WithData(map[string]any{"supported": h.opts.SupportedVersions, "requested": version}), http.StatusBadRequest
	}
	if req.IsNotification() {
		return nil, 0
	}
	switch m := r.Header.Get(HeaderMethod); {
	case m == "":
		return mismatch("the Mcp-Method header is missing")
	case m != req.Method:
		return mismatch("Mcp-Method header value %s does not match body value %s", echo(m), echo(req.Method))
	}
	var name text
	switch {
	case req.Method == "tools/call" || req.Method == "prompts/get":
		name = probe.name
	case req.Method == "resources/read":
		name = probe.uri
	case req.Method == "tasks/get" || req.Method == "tasks/update" || req.Method == "tasks/cancel":
		// The Tasks extension's methods; tasks/result and tasks/list are not of this
		// revision and get -32601 from the server, whatever their headers.
		name = probe.taskID
	}
	if name.present() {
		raw := r.Header.Get(HeaderName)
		if raw == "" && len(r.Header.Values(HeaderName)) == 0 {
			return mismatch("the Mcp-Name header is missing")
		}
		v, ok := DecodeHeaderValue(raw)
		if !ok {
			return mismatch("Mcp-Name header value %s is not valid base64", echo(raw))
		}
		if !name.is(v) {
			return mismatch("Mcp-Name header value %s does not match body value %s", echo(v), echo(name.String()))
		}
	}
	return nil, 0
}

// statelessProbe is what the transport checks in a stateless request's params: the
// name its Mcp-Name header mirrors and the _meta members it requires.
type statelessProbe struct {
	name, uri, taskID text
	version, caps     []byte // raw values; nil when absent
}

// text is a string member of the params: its literal as sent (nil when absent or null),
// or the value encoding/json decoded.
type text struct {
	lit []byte
	s   *string
}

func (t text) present() bool { return t.lit != nil || t.s != nil }

// String returns the string; "" when absent.
func (t text) String() string {
	if t.s != nil {
		return *t.s
	}
	s, _ := jsonwire.String(t.lit)
	return s
}

// is reports whether the string is v, without decoding a literal that has no escapes
// and is valid UTF-8: such a literal stands for its bytes.
func (t text) is(v string) bool {
	if t.s == nil && len(t.lit) >= 2 {
		if body := t.lit[1 : len(t.lit)-1]; bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
			return string(body) == v
		}
	}
	return t.String() == v
}

// read fills p from params as encoding/json would decode them into a struct of the three
// names (pointers to strings) and _meta (a map of raw values), for the usual shape:
// member names as they are spelled on the wire, without escapes, _meta once, and values
// of their types. It reports false for anything else, which encoding/json then
// decodes (or refuses).
func (p *statelessProbe) read(params []byte) bool {
	var metaSeen, ok bool
	ok = true
	err := jsonwire.Members(params, func(name, value []byte) {
		if !ok {
			return
		}
		var dst *text
		switch string(name) {
		case `"name"`:
			dst = &p.name
		case `"uri"`:
			dst = &p.uri
		case `"taskId"`:
			dst = &p.taskID
		case `"_meta"`:
			if metaSeen { // encoding/json merges a second object into the first
				ok = false
				return
			}
			metaSeen = true
			ok = p.readMeta(value)
			return
		default:
			// encoding/json matches names without regard to case, and unescapes them.
			ok = plainName(name) && !slices.ContainsFunc(probeNames, func(n string) bool {
				return strings.EqualFold(string(name[1:len(name)-1]), n)
			})
			return
		}
		switch {
		case string(value) == "null":
			*dst = text{}
		case value[0] == '"':
			*dst = text{lit: value}
		default:
			ok = false // a type error, in encoding/json's words
		}
	})
	return err == nil && ok
}

// probeNames are the members of params that statelessProbe reads.
var probeNames = []string{"name", "uri", "taskId", "_meta"}

// readMeta reads the _meta object for statelessProbe.read.
func (p *statelessProbe) readMeta(meta []byte) bool {
	p.version, p.caps = nil, nil
	if string(meta) == "null" {
		return true
	}
	if len(meta) == 0 || meta[0] != '{' {
		return false
	}
	ok := true
	_ = jsonwire.Members(meta, func(name, value []byte) {
		switch {
		case !plainName(name):
			ok = false // a key to unescape
		case string(name) == `"`+metaProtocolVersion+`"`:
			p.version = value
		case string(name) == `"`+metaClientCapabilities+`"`:
			p.caps = value
		}
	})
	return ok
}

// plainName reports whether a member name's literal holds only printable ASCII without
// escapes: the name is then its bytes, and folds as encoding/json folds ASCII.
func plainName(lit []byte) bool {
	for _, c := range lit[1 : len(lit)-1] {
		if c < 0x20 || c >= 0x80 || c == '\\' {
			return false
		}
	}
	return true
}

// serveStateless answers one stateless request. The serve function runs on the
// request's own goroutine, and what the connection writes goes straight to the response:
// one JSON body, or an SSE stream from the first notification on.
func (h *HTTPHandler) serveStateless(w http.ResponseWriter, r *http.Request, req *jsonrpc.Request, accept []string) {
	if e, status := h.checkStateless(r, req); e != nil {
		writeStatelessError(w, status, req.ID, e)
		return
	}
	if req.IsNotification() {
		// No client notification is defined on HTTP in 2026-07-28: cancelling means
		// closing the response.
		w.WriteHeader(http.StatusAccepted)
		return
	}
	caller := h.caller(r) // a function of the server's, called without the lock
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		writeStatelessError(w, http.StatusServiceUnavailable, req.ID, jsonrpc.NewError(jsonrpc.CodeInternalError, "server shutting down"))
		return
	}
	if limit := h.opts.MaxStatelessInFlight; limit > 0 && h.stateless >= limit {
		h.mu.Unlock()
		h.log.Warn("stateless request refused: too many in flight", "limit", limit, "remote", r.RemoteAddr)
		refuse(w, req, http.StatusTooManyRequests, fmt.Sprintf(
			"too many requests: the server already has %s waiting for a response; send more once one is answered", plural.Count(limit, "request", "requests")))
		return
	}
	if limit := h.opts.MaxStatelessPerCaller; limit > 0 && h.statelessBy[caller] >= limit {
		h.mu.Unlock()
		h.log.Warn("stateless request refused: too many in flight from one caller", "limit", limit, "remote", r.RemoteAddr)
		refuse(w, req, http.StatusTooManyRequests, fmt.Sprintf(
			"too many requests: you already have %s waiting for a response at this server; send more once one is answered", plural.Count(limit, "request", "requests")))
		return
	}
	if h.statelessBy == nil {
		h.statelessBy = map[string]int{}
	}
	h.stateless++
	h.statelessBy[caller]++
	h.wg.Add(1)
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		h.stateless--
		if h.statelessBy[caller]--; h.statelessBy[caller] == 0 {
			delete(h.statelessBy, caller)
		}
		h.mu.Unlock()
		h.wg.Done()
	}()
	ctx := r.Context()
	c := &StatelessConn{req: req, hreq: r, hdr: r.Header, remote: r.RemoteAddr, ctx: ctx, w: w, canSSE: acceptsSSE(accept), done: make(chan struct{})}
	h.serve(ctx, c)
	// A serve function that runs the connection on other goroutines may return before
	// the answer is written: wait for it, or for the client to leave.
	select {
	case <-c.done:
	case <-ctx.Done():
	}
	c.end()
}

// caller names the caller of a stateless request for MaxStatelessPerCaller.
func (h *HTTPHandler) caller(r *http.Request) string {
	if f := h.opts.StatelessCaller; f != nil {
		if c := f(r); c != "" {
			return "named " + c
		}
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return "addr " + host
}

// StatelessConn is the connection of one stateless 2026-07-28 request over Streamable
// HTTP: Read returns the request, then waits for the end; Write takes the notifications
// related to it and then its response, and writes them to the HTTP response at once.
// The server sends no requests in 2026-07-28: writing one fails.
//
// The serve function given to [NewHTTPHandler] is called with a StatelessConn on the
// request's own goroutine, with the request's context, which ends when the client leaves.
// It may serve the request on that goroutine (read it, answer it, return) or hand the
// connection to others and return: the HTTP request then ends when the response is
// written or the client leaves. A write that fails (a client that stopped reading an
// event stream) ends the connection, and the writes after it fail too.
type StatelessConn struct {
	req    *jsonrpc.Request
	hreq   *http.Request
	hdr    http.Header
	remote string
	ctx    context.Context // the HTTP request's: ends when the client leaves
	w      http.ResponseWriter
	canSSE bool

	mu   sync.Mutex // held while writing to w
	read bool
	sse  bool // the response is an event stream

	done   chan struct{} // closed when nothing more is to be written
	ending sync.Once
}

// Stateless reports that the connection carries one request of revision 2026-07-28.
func (c *StatelessConn) Stateless() bool { return true }

// Header returns the HTTP headers of the request, for the checks only the server can
// make (the Mcp-Param-* headers of a tool's x-mcp-header arguments). They must not be
// modified.
func (c *StatelessConn) Header() http.Header { return c.hdr }

// RemoteAddr is the address the request came from (http.Request.RemoteAddr).
func (c *StatelessConn) RemoteAddr() string { return c.remote }

// HTTPRequest returns the HTTP request that carried the message, for what the server
// learns of its caller there (an identity an authentication middleware put in its
// context, a TLS client certificate). Its body has been read; it must not be modified.
func (c *StatelessConn) HTTPRequest() *http.Request { return c.hreq }

// Read returns the request, then io.EOF once the connection is closed, its response
// written or its client gone.
func (c *StatelessConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	c.mu.Lock()
	first := !c.read
	c.read = true
	c.mu.Unlock()
	if first {
		return c.req, nil
	}
	select {
	case <-c.done:
		return nil, io.EOF
	case <-c.ctx.Done():
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

var errServerRequest = errors.New("transport: a 2026-07-28 server sends no requests")

// Write writes m to the HTTP response: the request's response as the JSON body, or, once
// a notification has opened an event stream (when the client accepts one; otherwise
// notifications are dropped and the response comes alone), as an event.
func (c *StatelessConn) Write(ctx context.Context, m jsonrpc.Message) error {
	if req, ok := m.(*jsonrpc.Request); ok && !req.IsNotification() {
		return fmt.Errorf("%w (%s)", errServerRequest, req.Method)
	}
	b, err := jsonrpc.EncodeMessage(m)
	if err != nil {
		return err
	}
	resp, final := m.(*jsonrpc.Response)
	c.mu.Lock()
	defer c.mu.Unlock()
	select {
	case <-c.done:
		return errSessionClosed
	default:
	}
	if !c.sse && final {
		status := http.StatusOK
		if resp.Error != nil {
			status = statusOf(resp.Error.Code)
		}
		c.w.Header().Set("Content-Type", "application/json")
		c.w.WriteHeader(status)
		boundWrites(c.w)
		_, _ = c.w.Write(b)
		c.Close()
		return nil
	}
	rc := http.NewResponseController(c.w)
	if !c.sse {
		if !c.canSSE {
			return nil // a JSON-only client gets the response alone
		}
		hdr := c.w.Header()
		hdr.Set("Content-Type", "text/event-stream")
		hdr.Set("Cache-Control", "no-cache")
		hdr.Set("X-Accel-Buffering", "no")
		c.w.WriteHeader(http.StatusOK)
		_ = rc.SetReadDeadline(time.Time{})
		c.sse = true
	}
	_ = rc.SetWriteDeadline(time.Now().Add(statelessNotificationWriteLimit))
	if err := writeSSEEvent(c.w, "", 0, b); err == nil {
		err = rc.Flush()
	}
	if err != nil || final {
		// A client that does not read, or is gone, ends the request.
		c.Close()
	}
	return err
}

// end closes the connection when the HTTP request ends, waiting for a write in
// progress: the response is not to be touched after that.
func (c *StatelessConn) end() {
	c.mu.Lock()
	c.Close()
	c.mu.Unlock()
}

// Close ends the connection: nothing more is written.
func (c *StatelessConn) Close() error {
	c.ending.Do(func() { close(c.done) })
	return nil
}
