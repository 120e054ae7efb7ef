package transport

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

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
	statelessOutBuffer              = 64
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
	var probe struct {
		Name   *string                    `json:"name"`
		URI    *string                    `json:"uri"`
		TaskID *string                    `json:"taskId"`
		Meta   map[string]json.RawMessage `json:"_meta"`
	}
	if len(req.Params) > 0 && json.Unmarshal(req.Params, &probe) != nil {
		return jsonrpc.NewError(jsonrpc.CodeInvalidParams, "params must be an object"), http.StatusBadRequest
	}
	var version string
	if raw, ok := probe.Meta[metaProtocolVersion]; !ok || json.Unmarshal(raw, &version) != nil || version == "" {
		return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "params._meta[%q] is required", metaProtocolVersion), http.StatusBadRequest
	}
	if raw, ok := probe.Meta[metaClientCapabilities]; !ok || len(bytes.TrimSpace(raw)) == 0 || bytes.TrimSpace(raw)[0] != '{' {
		return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "params._meta[%q] is required (an object)", metaClientCapabilities), http.StatusBadRequest
	}
	mismatch := func(format string, args ...any) (*jsonrpc.Error, int) {
		return jsonrpc.Errorf(codeHeaderMismatch, "Header mismatch: "+format, args...), http.StatusBadRequest
	}
	hv := r.Header.Get(HeaderProtocolVersion)
	switch {
	case hv == "":
		return mismatch("the MCP-Protocol-Version header is missing")
	case hv != version:
		return mismatch("MCP-Protocol-Version header value %s does not match _meta value %s", echo(hv), echo(version))
	}
	if !slices.Contains(h.opts.ModernProtocolVersions, version) {
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
	var name *string
	switch {
	case req.Method == "tools/call" || req.Method == "prompts/get":
		name = probe.Name
	case req.Method == "resources/read":
		name = probe.URI
	case req.Method == "tasks/get" || req.Method == "tasks/update" || req.Method == "tasks/cancel":
		// The Tasks extension's methods; tasks/result and tasks/list are not of this
		// revision and get -32601 from the server, whatever their headers.
		name = probe.TaskID
	}
	if name != nil {
		raw := r.Header.Get(HeaderName)
		if raw == "" && len(r.Header.Values(HeaderName)) == 0 {
			return mismatch("the Mcp-Name header is missing")
		}
		v, ok := DecodeHeaderValue(raw)
		if !ok {
			return mismatch("Mcp-Name header value %s is not valid base64", echo(raw))
		}
		if v != *name {
			return mismatch("Mcp-Name header value %s does not match body value %s", echo(v), echo(*name))
		}
	}
	return nil, 0
}

// serveStateless answers one stateless request.
func (h *HTTPHandler) serveStateless(w http.ResponseWriter, r *http.Request, req *jsonrpc.Request) {
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
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		writeStatelessError(w, http.StatusServiceUnavailable, req.ID, jsonrpc.NewError(jsonrpc.CodeInternalError, "server shutting down"))
		return
	}
	h.wg.Add(1)
	h.mu.Unlock()
	c := newStatelessConn(req, r.Header.Clone())
	c.remote = r.RemoteAddr
	go func() {
		defer h.wg.Done()
		h.serve(context.WithoutCancel(r.Context()), c)
	}()
	defer c.Close()

	sse := false
	canSSE := acceptsSSE(mediaTypes(r.Header.Values("Accept")))
	rc := http.NewResponseController(w)
	for {
		select {
		case m := <-c.out:
			b, err := jsonrpc.EncodeMessage(m)
			if err != nil {
				h.log.Warn("encoding a message failed", "error", err)
				continue
			}
			resp, final := m.(*jsonrpc.Response)
			if !sse && final {
				status := http.StatusOK
				if resp.Error != nil {
					status = statusOf(resp.Error.Code)
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(status)
				_, _ = w.Write(b)
				return
			}
			if !sse {
				if !canSSE {
					continue // a JSON-only client gets the response alone
				}
				hdr := w.Header()
				hdr.Set("Content-Type", "text/event-stream")
				hdr.Set("Cache-Control", "no-cache")
				hdr.Set("X-Accel-Buffering", "no")
				w.WriteHeader(http.StatusOK)
				_ = rc.SetReadDeadline(time.Time{})
				sse = true
			}
			_ = rc.SetWriteDeadline(time.Now().Add(statelessNotificationWriteLimit))
			if err := writeSSEEvent(w, "", 0, b); err != nil {
				return
			}
			if err := rc.Flush(); err != nil {
				return
			}
			if final {
				return
			}
		case <-r.Context().Done():
			return
		}
	}
}

// StatelessConn is the connection of one stateless 2026-07-28 request over Streamable
// HTTP: Read returns the request, then waits for the end; Write takes the notifications
// related to it and then its response. The server sends no requests in 2026-07-28:
// writing one fails.
type StatelessConn struct {
	req    *jsonrpc.Request
	hdr    http.Header
	remote string
	out    chan jsonrpc.Message
	done   chan struct{}

	mu   sync.Mutex
	read bool
	once sync.Once
}

func newStatelessConn(req *jsonrpc.Request, hdr http.Header) *StatelessConn {
	return &StatelessConn{req: req, hdr: hdr, out: make(chan jsonrpc.Message, statelessOutBuffer), done: make(chan struct{})}
}

// Stateless reports that the connection carries one request of revision 2026-07-28.
func (c *StatelessConn) Stateless() bool { return true }

// Header returns the HTTP headers of the request, for the checks only the server can
// make (the Mcp-Param-* headers of a tool's x-mcp-header arguments).
func (c *StatelessConn) Header() http.Header { return c.hdr }

// RemoteAddr is the address the request came from (http.Request.RemoteAddr).
func (c *StatelessConn) RemoteAddr() string { return c.remote }

// Read returns the request, then io.EOF once the connection is closed.
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
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

var errServerRequest = errors.New("transport: a 2026-07-28 server sends no requests")

// Write queues m for the HTTP response.
func (c *StatelessConn) Write(ctx context.Context, m jsonrpc.Message) error {
	if req, ok := m.(*jsonrpc.Request); ok && !req.IsNotification() {
		return fmt.Errorf("%w (%s)", errServerRequest, req.Method)
	}
	select {
	case c.out <- m:
		return nil
	case <-c.done:
		return errSessionClosed
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close ends the connection.
func (c *StatelessConn) Close() error {
	c.once.Do(func() { close(c.done) })
	return nil
}
