// Package scripted is a scripted MCP server of protocol 2026-07-28 (or of 2025-11-25, or
// of both), the fixture of the tests of the 2026-07-28 client and of the commands that
// use it: it records every message it receives and answers each request with the
// handler registered for its method. It speaks JSON-RPC over an in-memory pipe, and over
// Streamable HTTP (one JSON answer per POST) to check the headers.
package scripted

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/transport"
)

// Version is the protocol version the server of [New] speaks.
const Version = mcp.ProtocolVersion20260728

// Message is one message the server received.
type Message struct {
	ID     jsonrpc.ID
	Method string
	Params json.RawMessage
	// Header is the HTTP request's headers (nil over the pipe).
	Header http.Header
}

// Meta decodes the message's params._meta.
func (m Message) Meta(t testing.TB) map[string]json.RawMessage {
	t.Helper()
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if err := json.Unmarshal(m.Params, &p); err != nil {
		t.Fatalf("%s: params %s: %v", m.Method, m.Params, err)
	}
	return p.Meta
}

// Param decodes params[key] into v (unless nil), reporting whether it was there.
func (m Message) Param(t testing.TB, key string, v any) bool {
	t.Helper()
	var p map[string]json.RawMessage
	if err := json.Unmarshal(m.Params, &p); err != nil {
		t.Fatalf("%s: params %s: %v", m.Method, m.Params, err)
	}
	r, ok := p[key]
	if !ok {
		return false
	}
	if v != nil {
		if err := json.Unmarshal(r, v); err != nil {
			t.Fatalf("%s: params.%s %s: %v", m.Method, key, r, err)
		}
	}
	return true
}

// HTTPHook may answer a POST itself, reporting true, as servers that answer with a bare
// status do.
type HTTPHook func(w http.ResponseWriter, req *jsonrpc.Request) bool

// Server is the scripted server.
type Server struct {
	t testing.TB

	mu       sync.Mutex
	handlers map[string]jsonrpc.HandlerFunc
	// fallback answers methods with no handler; nil: -32601.
	fallback jsonrpc.HandlerFunc
	log      []Message
	conns    []*jsonrpc.Conn
	httpHook HTTPHook
}

// New returns a server of 2026-07-28 only: it answers server/discover (tools, prompts,
// resources and the Tasks extension) and nothing else until told to; initialize is
// refused with -32022.
func New(t testing.TB) *Server {
	f := &Server{t: t, handlers: map[string]jsonrpc.HandlerFunc{}}
	f.On(mcp.MethodServerDiscover, func(context.Context, *jsonrpc.Request) (any, error) {
		return Raw(`{"resultType":"complete","supportedVersions":["2026-07-28"],
			"capabilities":{"tools":{},"prompts":{},"resources":{},"extensions":{"io.modelcontextprotocol/tasks":{}}},
			"instructions":"be nice","ttlMs":0,"cacheScope":"public",
			"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"fake2026","version":"9"}}}`), nil
	})
	f.On(mcp.MethodInitialize, func(context.Context, *jsonrpc.Request) (any, error) {
		return nil, jsonrpc.NewError(mcp.CodeUnsupportedProtocolVersion, "Unsupported protocol version").
			WithData(mcp.UnsupportedProtocolVersionData{Supported: []string{Version}, Requested: mcp.LatestProtocolVersion})
	})
	return f
}

// NewLegacy returns a server of 2025-11-25 only: discover is answered by discover (nil:
// -32601, as an unknown method), initialize by [InitializeOK].
func NewLegacy(t testing.TB, discover jsonrpc.HandlerFunc) *Server {
	f := &Server{t: t, handlers: map[string]jsonrpc.HandlerFunc{}}
	if discover != nil {
		f.On(mcp.MethodServerDiscover, discover)
	}
	f.On(mcp.MethodInitialize, InitializeOK)
	f.On(mcp.NotificationInitialized, func(context.Context, *jsonrpc.Request) (any, error) { return nil, nil })
	return f
}

// InitializeOK answers initialize as a server of 2025-11-25 with tools.
func InitializeOK(context.Context, *jsonrpc.Request) (any, error) {
	return &mcp.InitializeResult{
		ProtocolVersion: mcp.LatestProtocolVersion,
		ServerInfo:      mcp.Implementation{Name: "legacy", Version: "1"},
		Capabilities:    mcp.ServerCapabilities{Tools: &mcp.ToolsCapability{}},
	}, nil
}

// Raw is a JSON result as it is.
func Raw(s string) json.RawMessage { return json.RawMessage(s) }

// On answers method with h (replacing any earlier handler).
func (f *Server) On(method string, h jsonrpc.HandlerFunc) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.handlers[method] = h
}

// Answer answers method with the same JSON every time.
func (f *Server) Answer(method, result string) {
	f.On(method, func(context.Context, *jsonrpc.Request) (any, error) { return Raw(result), nil })
}

// Handler returns the handler of method (nil if none).
func (f *Server) Handler(method string) jsonrpc.HandlerFunc {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.handlers[method]
}

// SetFallback makes h answer the methods with no handler (nil: -32601).
func (f *Server) SetFallback(h jsonrpc.HandlerFunc) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fallback = h
}

// SetHTTPHook lets h answer POSTs first over HTTP (nil: none).
func (f *Server) SetHTTPHook(h HTTPHook) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.httpHook = h
}

// serve records req and answers it.
func (f *Server) serve(ctx context.Context, req *jsonrpc.Request, h http.Header) (any, error) {
	f.mu.Lock()
	f.log = append(f.log, Message{ID: req.ID, Method: req.Method, Params: slices.Clone(req.Params), Header: h})
	handler, fallback := f.handlers[req.Method], f.fallback
	f.mu.Unlock()
	switch {
	case handler != nil:
		return handler(ctx, req)
	case fallback != nil:
		return fallback(ctx, req)
	case req.IsNotification():
		return nil, nil
	}
	return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "method not found: %s", req.Method)
}

// Requests returns the requests (not notifications) received, in order, with method
// among methods if any are given.
func (f *Server) Requests(methods ...string) []Message {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []Message
	for _, m := range f.log {
		if m.ID.IsValid() && (len(methods) == 0 || slices.Contains(methods, m.Method)) {
			out = append(out, m)
		}
	}
	return out
}

// Notifications returns the notifications of method received, in order.
func (f *Server) Notifications(method string) []Message {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []Message
	for _, m := range f.log {
		if !m.ID.IsValid() && m.Method == method {
			out = append(out, m)
		}
	}
	return out
}

// Methods returns the methods of every message received, in order.
func (f *Server) Methods() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, m := range f.log {
		out = append(out, m.Method)
	}
	return out
}

// RequestMethods returns the methods of the requests received, in order.
func (f *Server) RequestMethods() []string {
	var out []string
	for _, m := range f.Requests() {
		out = append(out, m.Method)
	}
	return out
}

// Last returns the last request of method; it fails the test if there is none.
func (f *Server) Last(method string) Message {
	f.t.Helper()
	rs := f.Requests(method)
	if len(rs) == 0 {
		f.t.Fatalf("the server received no %s (it received %v)", method, f.Methods())
	}
	return rs[len(rs)-1]
}

// Conn returns the server end of the latest pipe connection.
func (f *Server) Conn() *jsonrpc.Conn {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.conns) == 0 {
		f.t.Fatal("no connection")
	}
	return f.conns[len(f.conns)-1]
}

// Conns returns how many pipe connections were made.
func (f *Server) Conns() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.conns)
}

// Pipe is a transport to the server over an in-memory pipe; each Connect is a new
// connection.
func (f *Server) Pipe() transport.Transport {
	return transport.PipeTransport{Serve: func(_ context.Context, conn jsonrpc.Connection) error {
		c := jsonrpc.NewConn(conn, jsonrpc.Options{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			return f.serve(ctx, req, nil)
		})})
		f.mu.Lock()
		f.conns = append(f.conns, c)
		f.mu.Unlock()
		f.t.Cleanup(func() { c.Close() })
		return nil
	}}
}

// newClient is the client the Connect methods use.
func newClient(opts *client.Options) *client.Client {
	return client.New(mcp.Implementation{Name: "mcpi-test", Version: "1.2.3"}, opts)
}

// Connect connects a client with opts to the server over a pipe; the session is closed
// when the test ends.
func (f *Server) Connect(ctx context.Context, opts *client.Options) (*client.Session, error) {
	s, err := newClient(opts).Connect(ctx, f.Pipe())
	if err == nil {
		f.t.Cleanup(func() { s.Close() })
	}
	return s, err
}

// MustConnect is Connect that fails the test on an error.
func (f *Server) MustConnect(ctx context.Context, opts *client.Options) *client.Session {
	f.t.Helper()
	s, err := f.Connect(ctx, opts)
	if err != nil {
		f.t.Fatalf("Connect: %v", err)
	}
	return s
}

// HTTPServer serves the server over Streamable HTTP as a server of 2026-07-28 does, until
// the test ends: one JSON answer per POST, its own errors with 400 (-32020, -32021,
// -32022) or 404 (-32601), 202 for a notification, 405 for anything but POST.
func (f *Server) HTTPServer() *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		m, err := jsonrpc.DecodeMessage(body)
		req, ok := m.(*jsonrpc.Request)
		if err != nil || !ok {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		hook := f.httpHook
		f.mu.Unlock()
		if hook != nil && hook(w, req) {
			f.mu.Lock()
			f.log = append(f.log, Message{ID: req.ID, Method: req.Method, Params: slices.Clone(req.Params), Header: r.Header.Clone()})
			f.mu.Unlock()
			return
		}
		res, herr := f.serve(r.Context(), req, r.Header.Clone())
		if req.IsNotification() {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		resp := &jsonrpc.Response{ID: req.ID}
		status := http.StatusOK
		if herr != nil {
			resp.Error = jsonrpc.AsError(herr)
			switch resp.Error.Code {
			case mcp.CodeHeaderMismatch, mcp.CodeMissingRequiredClientCapability, mcp.CodeUnsupportedProtocolVersion:
				status = http.StatusBadRequest
			case jsonrpc.CodeMethodNotFound:
				status = http.StatusNotFound
			}
		} else {
			if res == nil {
				res = Raw(`{}`)
			}
			b, err := json.Marshal(res)
			if err != nil {
				panic(fmt.Sprintf("encoding the result of %s: %v", req.Method, err))
			}
			resp.Result = b
		}
		out, err := jsonrpc.EncodeMessage(resp)
		if err != nil {
			panic(err)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write(out)
	}))
	f.t.Cleanup(srv.Close)
	return srv
}

// HTTP is the URL of a new [Server.HTTPServer].
func (f *Server) HTTP() string { return f.HTTPServer().URL }

// ConnectHTTP connects a client with opts to the server over Streamable HTTP; the
// session is closed when the test ends.
func (f *Server) ConnectHTTP(ctx context.Context, opts *client.Options) *client.Session {
	f.t.Helper()
	s, err := f.DialHTTP(ctx, opts)
	if err != nil {
		f.t.Fatalf("Connect over HTTP: %v", err)
	}
	return s
}

// DialHTTP is ConnectHTTP that returns the error.
func (f *Server) DialHTTP(ctx context.Context, opts *client.Options) (*client.Session, error) {
	srv := f.HTTPServer()
	s, err := newClient(opts).Connect(ctx, &transport.HTTPClient{URL: srv.URL})
	if err == nil {
		f.t.Cleanup(func() { s.Close() })
	}
	return s, err
}

// TaskJSON is a task of the Tasks extension as the server sends it: resultType rt (""
// for none, as in a notification), the time now as lastUpdatedAt (in a synctest bubble,
// the bubble's), pollMs (0: no pollIntervalMs) and extra members (the inlined result,
// error or input requests), with a ttlMs of 600000.
func TaskJSON(rt, id string, status mcp.TaskStatus, pollMs int, extra string) json.RawMessage {
	now := mcp.FormatTime(time.Now())
	var b strings.Builder
	b.WriteString("{")
	if rt != "" {
		fmt.Fprintf(&b, `"resultType":%q,`, rt)
	}
	fmt.Fprintf(&b, `"taskId":%q,"status":%q,"createdAt":"2000-01-01T00:00:00Z","lastUpdatedAt":%q,"ttlMs":600000`, id, status, now)
	if pollMs > 0 {
		fmt.Fprintf(&b, `,"pollIntervalMs":%d`, pollMs)
	}
	if extra != "" {
		b.WriteString("," + extra)
	}
	b.WriteString("}")
	return json.RawMessage(b.String())
}

// Pieces of tasks and input requests for [TaskJSON] and handlers.
const (
	// ElicitName is an input request: a form elicitation asking "Your name?" for a
	// string field "name".
	ElicitName = `{"method":"elicitation/create","params":{"mode":"form","message":"Your name?",
	"requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}`
	// AskName is the inputRequests member of a task waiting for ElicitName under the
	// key "name".
	AskName = `"inputRequests":{"name":` + ElicitName + `}`
	// ResultDone is the result member of a task whose tool returned the text "done".
	ResultDone = `"result":{"content":[{"type":"text","text":"done"}],"isError":false}`
	// AckComplete is the empty complete result (the answer to tasks/update and
	// tasks/cancel).
	AckComplete = `{"resultType":"complete"}`
)
