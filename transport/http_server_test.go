package transport

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
)

// testServer is an HTTPHandler on a real loopback listener whose sessions run a
// jsonrpc.Conn with the given handler. The handler can reach the session's Conn (to call
// the client) through connFromContext.
type testServer struct {
	*httptest.Server
	h *HTTPHandler

	mu       sync.Mutex
	requests []*http.Request // clones of every request received, in order
	conns    []*jsonrpc.Conn
}

type connKey struct{}

func connFromContext(ctx context.Context) *jsonrpc.Conn { return ctx.Value(connKey{}).(*jsonrpc.Conn) }

type serverConnKey struct{}

func serverConnFromContext(ctx context.Context) *HTTPServerConn {
	return ctx.Value(serverConnKey{}).(*HTTPServerConn)
}

// mcpHandler answers initialize like an MCP server (echoing the proposed version) and
// defers every other request to h.
func mcpHandler(h jsonrpc.HandlerFunc) jsonrpc.HandlerFunc {
	return func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		if req.Method == "initialize" {
			var p struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			_ = json.Unmarshal(req.Params, &p)
			return map[string]any{"protocolVersion": p.ProtocolVersion, "capabilities": map[string]any{}, "serverInfo": map[string]any{"name": "test", "version": "1"}}, nil
		}
		if req.IsNotification() {
			return nil, nil // notifications are handled inline and must not block
		}
		if h == nil {
			return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "method not found: %s", req.Method)
		}
		return h(ctx, req)
	}
}

func newTestServer(t *testing.T, h jsonrpc.HandlerFunc, opts *HTTPOptions) *testServer {
	t.Helper()
	ts := &testServer{}
	ts.h = NewHTTPHandler(func(ctx context.Context, conn jsonrpc.Connection) {
		var c *jsonrpc.Conn
		ready := make(chan struct{})
		handler := mcpHandler(h)
		c = jsonrpc.NewConn(conn, jsonrpc.Options{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			<-ready // NewConn reads at once; c is set just after it returns
			ctx = context.WithValue(ctx, connKey{}, c)
			ctx = context.WithValue(ctx, serverConnKey{}, conn.(*HTTPServerConn))
			return handler(ctx, req)
		})})
		ts.mu.Lock()
		ts.conns = append(ts.conns, c)
		ts.mu.Unlock()
		close(ready)
		<-c.Done()
	}, opts)
	ts.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ts.mu.Lock()
		ts.requests = append(ts.requests, r.Clone(context.Background()))
		ts.mu.Unlock()
		ts.h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		ts.h.Close()
		ts.Server.Close()
	})
	return ts
}

func (ts *testServer) seen() []*http.Request {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return append([]*http.Request(nil), ts.requests...)
}

// rawPost POSTs body with the usual MCP headers plus extra ones.
func rawPost(t *testing.T, url, body string, hdr map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func rawGet(t *testing.T, url string, hdr map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// rawInit initializes a session by hand and returns its id.
func rawInit(t *testing.T, url string) string {
	t.Helper()
	resp := rawPost(t, url, initBody, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("initialize: HTTP %d", resp.StatusCode)
	}
	sid := resp.Header.Get(HeaderSessionID)
	if sid == "" {
		t.Fatal("initialize: no Mcp-Session-Id")
	}
	sr := newSSEReader(resp.Body, 0)
	for {
		ev, err := sr.Next()
		if err != nil {
			t.Fatalf("initialize stream: %v", err)
		}
		if len(ev.Data) > 0 {
			break
		}
	}
	return sid
}

// readEvents reads SSE events until one has data, returning the events seen.
func nextData(t *testing.T, sr *sseReader) (sseEvent, jsonrpc.Message) {
	t.Helper()
	for {
		ev, err := sr.Next()
		if err != nil {
			t.Fatalf("reading the event stream: %v", err)
		}
		if len(ev.Data) == 0 {
			continue
		}
		m, err := jsonrpc.DecodeMessage(ev.Data)
		if err != nil {
			t.Fatalf("event %q: %v", ev.Data, err)
		}
		return ev, m
	}
}

func errorBody(t *testing.T, resp *http.Response) *jsonrpc.Error {
	t.Helper()
	b, _ := io.ReadAll(resp.Body)
	m, err := jsonrpc.DecodeMessage(b)
	if err != nil {
		t.Fatalf("error body %q: %v", b, err)
	}
	r, ok := m.(*jsonrpc.Response)
	if !ok || r.Error == nil {
		t.Fatalf("error body %q is not an error response", b)
	}
	return r.Error
}

func TestHTTPServerPostStreamShape(t *testing.T) {
	ts := newTestServer(t, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		return map[string]string{"echo": string(req.Params)}, nil
	}, &HTTPOptions{Retry: 750 * time.Millisecond})

	resp := rawPost(t, ts.URL, initBody, nil)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type = %q", ct)
	}
	sid := resp.Header.Get(HeaderSessionID)
	if len(sid) < 22 {
		t.Fatalf("session id %q is too short for 128 random bits", sid)
	}
	for _, c := range sid {
		if c < 0x21 || c > 0x7e {
			t.Fatalf("session id %q has a non-visible character", sid)
		}
	}
	sr := newSSEReader(resp.Body, 0)
	prime, err := sr.Next()
	if err != nil {
		t.Fatal(err)
	}
	if !prime.HasID || prime.ID == "" || len(prime.Data) != 0 || sr.Retry != 750*time.Millisecond {
		t.Fatalf("first event = %+v retry %v, want a priming event with an id and retry 750ms", prime, sr.Retry)
	}
	ev, m := nextData(t, sr)
	if !ev.HasID || ev.ID == prime.ID {
		t.Errorf("response event id %q, want a fresh id", ev.ID)
	}
	if r, ok := m.(*jsonrpc.Response); !ok || r.ID != jsonrpc.Int64ID(1) || r.Error != nil {
		t.Fatalf("got %#v, want the initialize result", m)
	}
	if _, err := sr.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("after the response: %v, want the stream to end", err)
	}

	// Notifications get 202 and no body.
	resp = rawPost(t, ts.URL, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, map[string]string{HeaderSessionID: sid, HeaderProtocolVersion: "2025-11-25"})
	if b, _ := io.ReadAll(resp.Body); resp.StatusCode != http.StatusAccepted || len(b) != 0 {
		t.Fatalf("notification: HTTP %d %q, want 202 and no body", resp.StatusCode, b)
	}
	// So do responses (to a request the server never sent: still accepted).
	resp = rawPost(t, ts.URL, `{"jsonrpc":"2.0","id":"x","result":{}}`, map[string]string{HeaderSessionID: sid})
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("response: HTTP %d, want 202", resp.StatusCode)
	}
}

func TestHTTPServerNoPrimingForOldClients(t *testing.T) {
	ts := newTestServer(t, nil, nil)
	resp := rawPost(t, ts.URL, strings.Replace(initBody, "2025-11-25", "2025-06-18", 1), nil)
	sr := newSSEReader(resp.Body, 0)
	ev, err := sr.Next()
	if err != nil {
		t.Fatal(err)
	}
	if len(ev.Data) == 0 {
		t.Fatalf("first event %+v: a 2025-06-18 client must not get an empty priming event", ev)
	}
}

func TestHTTPServerRejects(t *testing.T) {
	ts := newTestServer(t, nil, &HTTPOptions{MaxMessageSize: 1024})
	sid := rawInit(t, ts.URL)
	withSession := map[string]string{HeaderSessionID: sid}
	ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`

	tests := []struct {
		name   string
		method string
		body   string
		hdr    map[string]string
		status int
		code   int64
	}{
		{"bad host", "POST", initBody, map[string]string{"Host": "evil.example.com"}, 403, jsonrpc.CodeInvalidRequest},
		{"bad host with port", "POST", initBody, map[string]string{"Host": "evil.example.com:80"}, 403, jsonrpc.CodeInvalidRequest},
		{"bad origin", "POST", initBody, map[string]string{"Origin": "http://evil.example.com"}, 403, jsonrpc.CodeInvalidRequest},
		{"null origin", "POST", initBody, map[string]string{"Origin": "null"}, 403, jsonrpc.CodeInvalidRequest},
		{"bad origin on GET", "GET", "", map[string]string{HeaderSessionID: sid, "Origin": "https://evil.example.com"}, 403, jsonrpc.CodeInvalidRequest},
		{"malformed", "POST", `{"jsonrpc":"2.0",`, withSession, 400, jsonrpc.CodeParseError},
		{"malformed initialize", "POST", `{"jsonrpc":"2.0","id":1,"method":"initialize"`, nil, 400, jsonrpc.CodeParseError},
		{"batch", "POST", `[` + ping + `]`, withSession, 400, jsonrpc.CodeInvalidRequest},
		{"not a message", "POST", `{"jsonrpc":"2.0","id":3}`, withSession, 400, jsonrpc.CodeInvalidRequest},
		{"too large", "POST", `{"jsonrpc":"2.0","id":4,"method":"ping","params":{"x":"` + strings.Repeat("a", 2000) + `"}}`, withSession, 413, jsonrpc.CodeInvalidRequest},
		{"content type", "POST", ping, map[string]string{HeaderSessionID: sid, "Content-Type": "text/plain"}, 415, jsonrpc.CodeInvalidRequest},
		{"accept json only", "POST", ping, map[string]string{HeaderSessionID: sid, "Accept": "application/json"}, 406, jsonrpc.CodeInvalidRequest},
		{"accept sse only", "POST", ping, map[string]string{HeaderSessionID: sid, "Accept": "text/event-stream"}, 406, jsonrpc.CodeInvalidRequest},
		{"missing session", "POST", ping, nil, 400, jsonrpc.CodeInvalidRequest},
		{"unknown session", "POST", ping, map[string]string{HeaderSessionID: "nope"}, 404, codeSessionNotFound},
		{"unknown session notification", "POST", `{"jsonrpc":"2.0","method":"notifications/x"}`, map[string]string{HeaderSessionID: "nope"}, 404, codeSessionNotFound},
		{"initialize twice", "POST", initBody, withSession, 400, jsonrpc.CodeInvalidRequest},
		{"bad protocol version", "POST", ping, map[string]string{HeaderSessionID: sid, HeaderProtocolVersion: "1999-01-01"}, 400, jsonrpc.CodeInvalidRequest},
		{"GET missing session", "GET", "", nil, 400, jsonrpc.CodeInvalidRequest},
		{"GET unknown session", "GET", "", map[string]string{HeaderSessionID: "nope"}, 404, codeSessionNotFound},
		{"GET bad accept", "GET", "", map[string]string{HeaderSessionID: sid, "Accept": "application/json"}, 406, jsonrpc.CodeInvalidRequest},
		{"GET bad Last-Event-ID", "GET", "", map[string]string{HeaderSessionID: sid, "Last-Event-ID": "99:1"}, 400, jsonrpc.CodeInvalidRequest},
		{"PUT", "PUT", "", withSession, 405, jsonrpc.CodeInvalidRequest},
		{"DELETE unknown", "DELETE", "", map[string]string{HeaderSessionID: "nope"}, 404, codeSessionNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var body io.Reader
			if tt.body != "" {
				body = strings.NewReader(tt.body)
			}
			req, _ := http.NewRequest(tt.method, ts.URL, body)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if tt.method == "GET" {
				req.Header.Set("Accept", "text/event-stream")
			}
			for k, v := range tt.hdr {
				if k == "Host" {
					req.Host = v
				} else {
					req.Header.Set(k, v)
				}
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != tt.status {
				b, _ := io.ReadAll(resp.Body)
				t.Fatalf("HTTP %d %s, want %d", resp.StatusCode, b, tt.status)
			}
			if e := errorBody(t, resp); e.Code != tt.code {
				t.Errorf("error %v, want code %d", e, tt.code)
			}
		})
	}
}

func TestHTTPServerAllowedHostsAndOrigins(t *testing.T) {
	for _, tt := range []struct {
		opts         HTTPOptions
		host, origin string
		ok           bool
	}{
		{HTTPOptions{}, "localhost:8080", "", true},
		// Another port of localhost is another web application (issue 12): refused.
		{HTTPOptions{}, "127.0.0.1", "http://localhost:3000", false},
		{HTTPOptions{}, "[::1]:9", "http://[::1]:3000", false},
		{HTTPOptions{}, "LOCALHOST", "", true},
		{HTTPOptions{}, "example.com", "", false},
		{HTTPOptions{}, "localhost", "http://localhost.evil.com", false},
		{HTTPOptions{AllowedHosts: []string{"mcp.example.com"}}, "mcp.example.com:443", "https://mcp.example.com", true},
		{HTTPOptions{AllowedHosts: []string{"mcp.example.com"}}, "localhost", "", false},
		{HTTPOptions{AllowedHosts: []string{"mcp.example.com:8443"}}, "mcp.example.com:443", "", false},
		{HTTPOptions{AllowedHosts: []string{"*"}}, "anything", "", true},
		{HTTPOptions{AllowedOrigins: []string{"https://app.example.com"}}, "localhost", "https://app.example.com", true},
		{HTTPOptions{AllowedOrigins: []string{"https://app.example.com"}}, "localhost", "http://localhost:1", false},
		{HTTPOptions{AllowedOrigins: []string{"*"}}, "localhost", "https://x.example", true},
		// Without AllowedOrigins only the server's own origin (the host and port of the
		// Host header) passes, whatever AllowedHosts says; AllowedOrigins adds others.
		{HTTPOptions{}, "localhost:8080", "http://localhost:8080", true},
		{HTTPOptions{}, "localhost:8080", "http://localhost:3000", false}, // another local web app
		{HTTPOptions{}, "127.0.0.1:8080", "http://127.0.0.1:5173", false},
		{HTTPOptions{}, "127.0.0.1:8080", "http://localhost:8080", false},
		{HTTPOptions{}, "localhost", "http://localhost", true},
		{HTTPOptions{}, "localhost", "http://localhost:80", true},
		{HTTPOptions{}, "localhost", "http://localhost:3000", false},
		{HTTPOptions{}, "[::1]:9", "http://[::1]:9", true},
		{HTTPOptions{AllowedHosts: []string{"mcp.example.com"}}, "mcp.example.com", "https://mcp.example.com", true},
		{HTTPOptions{AllowedHosts: []string{"*"}}, "10.0.0.5:8080", "http://10.0.0.5:8080", true},
		{HTTPOptions{AllowedHosts: []string{"*"}}, "10.0.0.5:8080", "http://evil.example.com", false},
		{HTTPOptions{AllowedHosts: []string{"*"}}, "10.0.0.5:8080", "http://localhost:8080", false},
		{HTTPOptions{AllowedOrigins: []string{"http://localhost:3000"}}, "localhost:8080", "http://localhost:3000", true},
		{HTTPOptions{AllowedOrigins: []string{"http://localhost:3000"}}, "localhost:8080", "http://localhost:8080", true},
		{HTTPOptions{AllowedOrigins: []string{"http://localhost:3000"}}, "localhost:8080", "http://localhost:3001", false},
	} {
		h := NewHTTPHandler(func(context.Context, jsonrpc.Connection) {}, &tt.opts)
		r := httptest.NewRequest("POST", "/", nil)
		r.Host = tt.host
		if tt.origin != "" {
			r.Header.Set("Origin", tt.origin)
		}
		if got := h.checkHostOrigin(r) == ""; got != tt.ok {
			t.Errorf("%+v host %q origin %q: allowed = %v, want %v", tt.opts, tt.host, tt.origin, got, tt.ok)
		}
	}
}

// TestHTTPServerRoutesRelatedMessages checks the wire: a server request made while
// handling a client request travels on that request's POST stream, before the response.
func TestHTTPServerRoutesRelatedMessages(t *testing.T) {
	ts := newTestServer(t, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		c := connFromContext(ctx)
		if err := c.Notify(ctx, "notifications/progress", map[string]any{"progress": 1}); err != nil {
			return nil, err
		}
		var answer map[string]any
		if err := c.Call(ctx, "elicitation/create", map[string]any{"message": "name?"}, &answer); err != nil {
			return nil, err
		}
		return answer, nil
	}, nil)
	sid := rawInit(t, ts.URL)
	hdr := map[string]string{HeaderSessionID: sid, HeaderProtocolVersion: "2025-11-25"}
	resp := rawPost(t, ts.URL, `{"jsonrpc":"2.0","id":7,"method":"tools/call"}`, hdr)
	sr := newSSEReader(resp.Body, 0)
	_, m := nextData(t, sr)
	if n, ok := m.(*jsonrpc.Request); !ok || n.Method != "notifications/progress" {
		t.Fatalf("first message %#v, want the progress notification", m)
	}
	_, m = nextData(t, sr)
	call, ok := m.(*jsonrpc.Request)
	if !ok || call.Method != "elicitation/create" || call.IsNotification() {
		t.Fatalf("second message %#v, want the elicitation request", m)
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": call.ID, "result": map[string]any{"action": "accept"}})
	if r := rawPost(t, ts.URL, string(b), hdr); r.StatusCode != http.StatusAccepted {
		t.Fatalf("posting the answer: HTTP %d", r.StatusCode)
	}
	_, m = nextData(t, sr)
	if r, ok := m.(*jsonrpc.Response); !ok || r.ID != jsonrpc.Int64ID(7) || !strings.Contains(string(r.Result), "accept") {
		t.Fatalf("third message %#v, want the tool result carrying the answer", m)
	}
	if _, err := sr.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("stream did not end after the response: %v", err)
	}
}

// TestHTTPServerStandaloneQueueAndConflict: messages without a related request wait for
// the GET stream; a second GET gets 409.
func TestHTTPServerStandaloneQueueAndConflict(t *testing.T) {
	ts := newTestServer(t, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		c := connFromContext(ctx)
		// Unrelated to any request: context.Background carries no related id.
		return nil, c.Notify(context.Background(), "notifications/tools/list_changed", nil)
	}, nil)
	sid := rawInit(t, ts.URL)
	hdr := map[string]string{HeaderSessionID: sid}
	resp := rawPost(t, ts.URL, `{"jsonrpc":"2.0","id":2,"method":"poke"}`, hdr)
	sr := newSSEReader(resp.Body, 0)
	if _, m := nextData(t, sr); m.(*jsonrpc.Response).ID != jsonrpc.Int64ID(2) {
		t.Fatalf("POST stream carried %#v, want only the response", m)
	}

	get := rawGet(t, ts.URL, hdr)
	if get.StatusCode != http.StatusOK || get.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET: HTTP %d %s", get.StatusCode, get.Header.Get("Content-Type"))
	}
	gsr := newSSEReader(get.Body, 0)
	ev, m := nextData(t, gsr)
	if n, ok := m.(*jsonrpc.Request); !ok || n.Method != "notifications/tools/list_changed" {
		t.Fatalf("GET stream carried %#v", m)
	}
	if second := rawGet(t, ts.URL, hdr); second.StatusCode != http.StatusConflict {
		t.Fatalf("second GET: HTTP %d, want 409", second.StatusCode)
	}

	// Resuming the standalone stream from before the notification replays it; the
	// resumption takes the stream over from the first GET, which ends.
	replay := rawGet(t, ts.URL, map[string]string{HeaderSessionID: sid, "Last-Event-ID": strings.Split(ev.ID, ":")[0] + ":0"})
	if _, err := io.Copy(io.Discard, get.Body); err != nil {
		t.Fatalf("the first GET did not end cleanly: %v", err)
	}
	if replay.StatusCode != http.StatusOK {
		t.Fatalf("resume GET: HTTP %d", replay.StatusCode)
	}
	if ev2, _ := nextData(t, newSSEReader(replay.Body, 0)); ev2.ID != ev.ID {
		t.Fatalf("replayed event %q, want %q", ev2.ID, ev.ID)
	}
}

// TestHTTPServerResumePostStream: the server drops a POST stream mid-request (SSE
// polling); GET with Last-Event-ID continues it and carries the response.
func TestHTTPServerResumePostStream(t *testing.T) {
	release := make(chan struct{})
	ts := newTestServer(t, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		r, _ := jsonrpc.RequestFromContext(ctx)
		c := connFromContext(ctx)
		_ = c.Notify(ctx, "notifications/message", map[string]any{"data": "before"})
		// The POST's stream starts delivering a moment after the handler starts: under
		// load CloseSSEStream can come first, so try until the stream is there.
		closed := false
		for deadline := time.Now().Add(5 * time.Second); !closed && time.Now().Before(deadline); {
			if closed = serverConnFromContext(ctx).CloseSSEStream(r.ID); !closed {
				time.Sleep(time.Millisecond)
			}
		}
		if !closed {
			return nil, errors.New("no stream to close")
		}
		<-release
		_ = c.Notify(ctx, "notifications/message", map[string]any{"data": "after"})
		return map[string]any{"done": true}, nil
	}, nil)
	sid := rawInit(t, ts.URL)
	hdr := map[string]string{HeaderSessionID: sid}
	resp := rawPost(t, ts.URL, `{"jsonrpc":"2.0","id":1,"method":"tools/call"}`, hdr)
	sr := newSSEReader(resp.Body, 0)
	var events []sseEvent
	for {
		ev, err := sr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, ev)
	}
	if len(events) < 1 || len(events[0].Data) != 0 {
		t.Fatalf("events before the drop: %+v, want a priming event first", events)
	}
	// Resume from the priming event: the notification sent before the drop is replayed.
	close(release)
	get := rawGet(t, ts.URL, map[string]string{HeaderSessionID: sid, "Last-Event-ID": events[0].ID})
	if get.StatusCode != http.StatusOK {
		t.Fatalf("resume: HTTP %d", get.StatusCode)
	}
	gsr := newSSEReader(get.Body, 0)
	var got []string
	for {
		_, m := nextData(t, gsr)
		b, _ := jsonrpc.EncodeMessage(m)
		got = append(got, string(b))
		if _, ok := m.(*jsonrpc.Response); ok {
			break
		}
	}
	if len(got) != 3 || !strings.Contains(got[0], "before") || !strings.Contains(got[1], "after") || !strings.Contains(got[2], `"done":true`) {
		t.Fatalf("resumed stream carried %q", got)
	}
	if _, err := gsr.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("resumed stream did not end after the response: %v", err)
	}
}

func TestHTTPServerJSONResponse(t *testing.T) {
	ts := newTestServer(t, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		return map[string]int{"n": 42}, nil
	}, &HTTPOptions{JSONResponse: true})
	resp := rawPost(t, ts.URL, initBody, map[string]string{"Accept": "application/json"})
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("initialize: HTTP %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	sid := resp.Header.Get(HeaderSessionID)
	resp = rawPost(t, ts.URL, `{"jsonrpc":"2.0","id":"a","method":"x"}`, map[string]string{HeaderSessionID: sid})
	b, _ := io.ReadAll(resp.Body)
	if string(b) != `{"jsonrpc":"2.0","id":"a","result":{"n":42}}` {
		t.Fatalf("body %s", b)
	}
}

func TestHTTPServerDeleteEndsSession(t *testing.T) {
	ts := newTestServer(t, nil, nil)
	sid := rawInit(t, ts.URL)
	req, _ := http.NewRequest(http.MethodDelete, ts.URL, nil)
	req.Header.Set(HeaderSessionID, sid)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: HTTP %d", resp.StatusCode)
	}
	ts.mu.Lock()
	c := ts.conns[0]
	ts.mu.Unlock()
	select {
	case <-c.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the session's connection did not end")
	}
	if r := rawPost(t, ts.URL, `{"jsonrpc":"2.0","id":2,"method":"ping"}`, map[string]string{HeaderSessionID: sid}); r.StatusCode != http.StatusNotFound {
		t.Fatalf("after DELETE: HTTP %d, want 404", r.StatusCode)
	}
	if n := ts.h.SessionCount(); n != 0 {
		t.Fatalf("%d sessions left", n)
	}
}

// TestHTTPServerSessionTimeout runs the handler in a synctest bubble (no network: the
// requests go straight to ServeHTTP), so the idle timeout passes in fake time.
func TestHTTPServerSessionTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var served sync.WaitGroup
		h := NewHTTPHandler(func(ctx context.Context, conn jsonrpc.Connection) {
			served.Add(1)
			defer served.Done()
			c := jsonrpc.NewConn(conn, jsonrpc.Options{Handler: mcpHandler(nil)})
			<-c.Done()
		}, &HTTPOptions{JSONResponse: true, SessionTimeout: time.Minute})
		defer h.Close()
		post := func(body, sid string) *httptest.ResponseRecorder {
			r := httptest.NewRequest("POST", "http://localhost/mcp", strings.NewReader(body))
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("Accept", "application/json, text/event-stream")
			if sid != "" {
				r.Header.Set(HeaderSessionID, sid)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			return w
		}
		w := post(initBody, "")
		sid := w.Header().Get(HeaderSessionID)
		if w.Code != 200 || sid == "" {
			t.Fatalf("initialize: %d %q", w.Code, w.Body)
		}
		time.Sleep(59 * time.Second)
		if w := post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, sid); w.Code != http.StatusAccepted {
			t.Fatalf("before the timeout: HTTP %d", w.Code)
		}
		time.Sleep(59 * time.Second) // activity restarted the clock
		synctest.Wait()
		if h.SessionCount() != 1 {
			t.Fatal("session expired too early")
		}
		time.Sleep(2 * time.Second)
		synctest.Wait()
		if h.SessionCount() != 0 {
			t.Fatal("idle session was not closed")
		}
		if w := post(`{"jsonrpc":"2.0","id":3,"method":"ping"}`, sid); w.Code != http.StatusNotFound {
			t.Fatalf("after the timeout: HTTP %d, want 404", w.Code)
		}
		served.Wait()
	})
}

// TestHTTPServerWriteNeverBlocks: a flood to a session whose client never opens the GET
// stream is bounded and never blocks the writer.
func TestHTTPServerWriteNeverBlocks(t *testing.T) {
	var conn *HTTPServerConn
	got := make(chan struct{})
	ts := newTestServer(t, nil, &HTTPOptions{EventRetention: 8})
	ts.h.serve = func(ctx context.Context, c jsonrpc.Connection) {
		conn = c.(*HTTPServerConn)
		close(got)
		for { // read, never answer
			if _, err := c.Read(ctx); err != nil {
				return
			}
		}
	}
	resp := rawPost(t, ts.URL, initBody, nil)
	<-got
	for i := range 1000 {
		if err := conn.Write(context.Background(), &jsonrpc.Request{Method: "n", Params: json.RawMessage(fmt.Sprintf(`{"i":%d}`, i))}); err != nil {
			t.Fatal(err)
		}
	}
	conn.mu.Lock()
	n := len(conn.standalone.events)
	conn.mu.Unlock()
	if n != 8 {
		t.Fatalf("%d queued events, want the 8 retained", n)
	}
	// The initialize stream is still open (never answered); closing the session ends it.
	conn.Close()
	if _, err := io.Copy(io.Discard, bufio.NewReader(resp.Body)); err != nil {
		t.Fatal(err)
	}
}

// TestHTTPServerOutlivesServerTimeouts: an SSE stream stays open past the http.Server's
// ReadTimeout and WriteTimeout.
func TestHTTPServerOutlivesServerTimeouts(t *testing.T) {
	release := make(chan struct{})
	ts := newTestServer(t, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		<-release
		return map[string]bool{"ok": true}, nil
	}, nil)
	ts.Server.Close()
	ts.Server = httptest.NewUnstartedServer(ts.h)
	ts.Server.Config.ReadTimeout = 50 * time.Millisecond
	ts.Server.Config.WriteTimeout = 50 * time.Millisecond
	ts.Server.Start()
	defer ts.Server.Close()
	sid := rawInit(t, ts.URL)
	resp := rawPost(t, ts.URL, `{"jsonrpc":"2.0","id":2,"method":"slow"}`, map[string]string{HeaderSessionID: sid})
	time.AfterFunc(300*time.Millisecond, func() { close(release) })
	if _, m := nextData(t, newSSEReader(resp.Body, 0)); m.(*jsonrpc.Response).ID != jsonrpc.Int64ID(2) {
		t.Fatalf("got %#v", m)
	}
}

// TestHTTPServerAnswerInBody: the requests the session's AnswerInBody predicate picks
// are answered with one JSON body; the others keep their SSE stream, and a message sent
// while a picked request is handled travels on the GET stream.
func TestHTTPServerAnswerInBody(t *testing.T) {
	h := NewHTTPHandler(func(ctx context.Context, conn jsonrpc.Connection) {
		sc := conn.(*HTTPServerConn)
		sc.AnswerInBody(func(req *jsonrpc.Request) bool { return req.Method == "quick" })
		var c *jsonrpc.Conn
		ready := make(chan struct{})
		handler := mcpHandler(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			<-ready
			if req.Method == "quick" {
				if err := c.Notify(jsonrpc.WithRelatedRequest(ctx, req.ID), "note", map[string]string{"for": "quick"}); err != nil {
					return nil, err
				}
			}
			return map[string]string{"method": req.Method}, nil
		})
		c = jsonrpc.NewConn(conn, jsonrpc.Options{Handler: handler})
		close(ready)
		<-c.Done()
	}, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		h.Close()
		ts.Close()
	})
	sid := rawInit(t, ts.URL)
	hdr := map[string]string{HeaderSessionID: sid, HeaderProtocolVersion: "2025-11-25"}
	get := rawGet(t, ts.URL, hdr)
	defer get.Body.Close()

	resp := rawPost(t, ts.URL, `{"jsonrpc":"2.0","id":7,"method":"quick"}`, hdr)
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("quick answered with Content-Type %q, want application/json", ct)
	}
	body, _ := io.ReadAll(resp.Body)
	if msg, err := jsonrpc.DecodeMessage(body); err != nil || msg.(*jsonrpc.Response).ID != jsonrpc.Int64ID(7) || !strings.Contains(string(msg.(*jsonrpc.Response).Result), "quick") {
		t.Fatalf("quick: body %s (%v)", body, err)
	}
	if _, m := nextData(t, newSSEReader(get.Body, 0)); m.(*jsonrpc.Request).Method != "note" {
		t.Fatalf("the GET stream carried %#v, want the note sent while quick was handled", m)
	}

	resp = rawPost(t, ts.URL, `{"jsonrpc":"2.0","id":8,"method":"other"}`, hdr)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("other answered with Content-Type %q, want an SSE stream", ct)
	}
	if _, m := nextData(t, newSSEReader(resp.Body, 0)); m.(*jsonrpc.Response).ID != jsonrpc.Int64ID(8) {
		t.Fatalf("other: got %#v", m)
	}
}

// TestHTTPServerTaskPollsGetJSON: MCP Tasks asks servers not to open an SSE stream in
// reply to tasks/get, so task polls are answered with a JSON body, while other requests
// keep their SSE stream.
func TestHTTPServerTaskPollsGetJSON(t *testing.T) {
	ts := newTestServer(t, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		return map[string]string{"method": req.Method}, nil
	}, nil)
	init := rawPost(t, ts.URL, initBody, nil)
	sid := init.Header.Get(HeaderSessionID)
	hdr := map[string]string{HeaderSessionID: sid, HeaderProtocolVersion: "2025-11-25"}
	for _, m := range []string{"tasks/get", "tasks/list", "tasks/cancel"} {
		resp := rawPost(t, ts.URL, `{"jsonrpc":"2.0","id":7,"method":"`+m+`","params":{"taskId":"x"}}`, hdr)
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			t.Errorf("%s answered with Content-Type %q, want application/json", m, ct)
			continue
		}
		body, _ := io.ReadAll(resp.Body)
		msg, err := jsonrpc.DecodeMessage(body)
		if r, ok := msg.(*jsonrpc.Response); err != nil || !ok || r.ID != jsonrpc.Int64ID(7) || !strings.Contains(string(r.Result), m) {
			t.Errorf("%s: body %s (%v)", m, body, err)
		}
	}
	resp := rawPost(t, ts.URL, `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{}}`, hdr)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("tools/call answered with %q, want an SSE stream", ct)
	}
}

// A refused request's Host and Origin reach the log quoted and cut as its answer quotes
// them: a caller's header may be a megabyte, and the log line is written for each.
func TestRefusedRequestLoggedBriefly(t *testing.T) {
	var log strings.Builder
	h := NewHTTPHandler(func(context.Context, jsonrpc.Connection) {}, &HTTPOptions{Logger: slog.New(slog.NewTextHandler(&log, nil))})
	r := httptest.NewRequest("POST", "/", nil)
	r.Host = "localhost:8080"
	r.Header.Set("Origin", "http://evil.example/"+strings.Repeat("a", 100<<10)+"\n")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusForbidden {
		t.Fatalf("status %d", w.Code)
	}
	line := log.String()
	if !strings.Contains(line, `request refused`) || !strings.Contains(line, "evil.example") || strings.Count(line, "\n") != 1 {
		t.Errorf("log: %.300s", line)
	}
	if len(line) > 2*maxEcho+1000 {
		t.Errorf("the log line is %d bytes: a caller's header is not cut", len(line))
	}
}
