package client_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/transport"
)

// A scripted server of protocol 2026-07-28 (or of 2025-11-25, or of both), for the tests
// of the 2026-07-28 client: it records every message it receives and answers each
// request with the handler registered for its method. It speaks JSON-RPC over an
// in-memory pipe, and over Streamable HTTP (one JSON answer per POST) to check the
// headers.

const v2026 = mcp.ProtocolVersion20260728

// seen is one message the fake server received.
type seen struct {
	ID     jsonrpc.ID
	Method string
	Params json.RawMessage
	// Header is the HTTP request's headers (nil over the pipe).
	Header http.Header
}

// meta decodes the message's params._meta.
func (m seen) meta(t *testing.T) map[string]json.RawMessage {
	t.Helper()
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if err := json.Unmarshal(m.Params, &p); err != nil {
		t.Fatalf("%s: params %s: %v", m.Method, m.Params, err)
	}
	return p.Meta
}

// param decodes params[key] into v, reporting whether it was there.
func (m seen) param(t *testing.T, key string, v any) bool {
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

// fakeServer is the scripted server.
type fakeServer struct {
	t *testing.T

	mu       sync.Mutex
	handlers map[string]jsonrpc.HandlerFunc
	// fallback answers methods with no handler; nil: -32601.
	fallback jsonrpc.HandlerFunc
	log      []seen
	conns    []*jsonrpc.Conn
	// httpHook, when set, may answer a POST itself (reporting true), as servers that
	// answer with a bare status do.
	httpHook func(w http.ResponseWriter, req *jsonrpc.Request) bool
}

// newFake returns a server of 2026-07-28 only: it answers server/discover (tools,
// prompts, resources and the Tasks extension) and nothing else until told to.
func newFake(t *testing.T) *fakeServer {
	f := &fakeServer{t: t, handlers: map[string]jsonrpc.HandlerFunc{}}
	f.on(mcp.MethodServerDiscover, func(context.Context, *jsonrpc.Request) (any, error) {
		return raw(`{"resultType":"complete","supportedVersions":["2026-07-28"],
			"capabilities":{"tools":{},"prompts":{},"resources":{},"extensions":{"io.modelcontextprotocol/tasks":{}}},
			"instructions":"be nice","ttlMs":0,"cacheScope":"public",
			"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"fake2026","version":"9"}}}`), nil
	})
	f.on(mcp.MethodInitialize, func(context.Context, *jsonrpc.Request) (any, error) {
		return nil, jsonrpc.NewError(mcp.CodeUnsupportedProtocolVersion, "Unsupported protocol version").
			WithData(mcp.UnsupportedProtocolVersionData{Supported: []string{v2026}, Requested: mcp.LatestProtocolVersion})
	})
	return f
}

// newLegacy returns a server of 2025-11-25 only: discover is answered by discover (nil:
// -32601, as an unknown method), initialize by an initialize result.
func newLegacy(t *testing.T, discover jsonrpc.HandlerFunc) *fakeServer {
	f := &fakeServer{t: t, handlers: map[string]jsonrpc.HandlerFunc{}}
	if discover != nil {
		f.on(mcp.MethodServerDiscover, discover)
	}
	f.on(mcp.MethodInitialize, initializeOK)
	f.on(mcp.NotificationInitialized, func(context.Context, *jsonrpc.Request) (any, error) { return nil, nil })
	return f
}

func initializeOK(context.Context, *jsonrpc.Request) (any, error) {
	return &mcp.InitializeResult{
		ProtocolVersion: mcp.LatestProtocolVersion,
		ServerInfo:      mcp.Implementation{Name: "legacy", Version: "1"},
		Capabilities:    mcp.ServerCapabilities{Tools: &mcp.ToolsCapability{}},
	}, nil
}

// raw is a JSON result as it is.
func raw(s string) json.RawMessage { return json.RawMessage(s) }

// on answers method with h (replacing any earlier handler).
func (f *fakeServer) on(method string, h jsonrpc.HandlerFunc) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.handlers[method] = h
}

// answer answers method with the same JSON every time.
func (f *fakeServer) answer(method, result string) {
	f.on(method, func(context.Context, *jsonrpc.Request) (any, error) { return raw(result), nil })
}

// serve records req and answers it.
func (f *fakeServer) serve(ctx context.Context, req *jsonrpc.Request, h http.Header) (any, error) {
	f.mu.Lock()
	f.log = append(f.log, seen{ID: req.ID, Method: req.Method, Params: slices.Clone(req.Params), Header: h})
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

// requests returns the requests (not notifications) received, in order, with method
// among methods if any are given.
func (f *fakeServer) requests(methods ...string) []seen {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []seen
	for _, m := range f.log {
		if m.ID.IsValid() && (len(methods) == 0 || slices.Contains(methods, m.Method)) {
			out = append(out, m)
		}
	}
	return out
}

// methods returns the methods of every message received, in order.
func (f *fakeServer) methods() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, m := range f.log {
		out = append(out, m.Method)
	}
	return out
}

// requestMethods returns the methods of the requests received, in order.
func (f *fakeServer) requestMethods() []string {
	var out []string
	for _, m := range f.requests() {
		out = append(out, m.Method)
	}
	return out
}

// last returns the last request of method; it fails the test if there is none.
func (f *fakeServer) last(method string) seen {
	f.t.Helper()
	rs := f.requests(method)
	if len(rs) == 0 {
		f.t.Fatalf("the server received no %s (it received %v)", method, f.methods())
	}
	return rs[len(rs)-1]
}

// conn returns the server end of the latest pipe connection.
func (f *fakeServer) conn() *jsonrpc.Conn {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.conns) == 0 {
		f.t.Fatal("no connection")
	}
	return f.conns[len(f.conns)-1]
}

// pipe is a transport to the fake server over an in-memory pipe; each Connect is a new
// connection.
func (f *fakeServer) pipe() transport.Transport {
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

// connect connects a client with opts to the fake server over a pipe; the session is
// closed when the test ends.
func (f *fakeServer) connect(ctx context.Context, opts *client.Options) (*client.Session, error) {
	s, err := client.New(mcp.Implementation{Name: "mcpi-test", Version: "1.2.3"}, opts).Connect(ctx, f.pipe())
	if err == nil {
		f.t.Cleanup(func() { s.Close() })
	}
	return s, err
}

// mustConnect is connect that fails the test on an error.
func (f *fakeServer) mustConnect(ctx context.Context, opts *client.Options) *client.Session {
	f.t.Helper()
	s, err := f.connect(ctx, opts)
	if err != nil {
		f.t.Fatalf("Connect: %v", err)
	}
	return s
}

// httpServer serves the fake server over Streamable HTTP as a server of 2026-07-28
// does: one JSON answer per POST, its own errors with 400 (-32020, -32021, -32022) or
// 404 (-32601), 202 for a notification, 405 for anything but POST.
func (f *fakeServer) httpServer() *httptest.Server {
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
			f.log = append(f.log, seen{ID: req.ID, Method: req.Method, Params: slices.Clone(req.Params), Header: r.Header.Clone()})
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
				res = raw(`{}`)
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

// connectHTTP connects a client with opts to the fake server over Streamable HTTP.
func (f *fakeServer) connectHTTP(ctx context.Context, opts *client.Options) *client.Session {
	f.t.Helper()
	s, err := f.dialHTTP(ctx, opts)
	if err != nil {
		f.t.Fatalf("Connect over HTTP: %v", err)
	}
	return s
}

// dialHTTP is connectHTTP that returns the error.
func (f *fakeServer) dialHTTP(ctx context.Context, opts *client.Options) (*client.Session, error) {
	srv := f.httpServer()
	s, err := client.New(mcp.Implementation{Name: "mcpi-test", Version: "1.2.3"}, opts).Connect(ctx, &transport.HTTPClient{URL: srv.URL})
	if err == nil {
		f.t.Cleanup(func() { s.Close() })
	}
	return s, err
}
