package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
)

// recordSleep replaces real waits between reconnections: it records each requested delay
// and returns at once.
type recordSleep struct {
	mu     sync.Mutex
	delays []time.Duration
}

func (r *recordSleep) sleep(ctx context.Context, d time.Duration) error {
	r.mu.Lock()
	r.delays = append(r.delays, d)
	r.mu.Unlock()
	return ctx.Err()
}

func (r *recordSleep) get() []time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]time.Duration(nil), r.delays...)
}

// dial connects a jsonrpc.Conn over an HTTPClient to url and initializes it like an MCP
// client.
func dial(t *testing.T, tr *HTTPClient, h jsonrpc.HandlerFunc) (*jsonrpc.Conn, *HTTPClientConn) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := tr.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var opts jsonrpc.Options
	if h != nil {
		opts.Handler = h
	}
	c := jsonrpc.NewConn(conn, opts)
	t.Cleanup(func() { c.Close() })
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := c.Call(ctx, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}}, &res); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if err := c.Notify(ctx, "notifications/initialized", nil); err != nil {
		t.Fatalf("initialized: %v", err)
	}
	return c, conn.(*HTTPClientConn)
}

func callCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestHTTPClientServerRoundTrip(t *testing.T) {
	for _, jsonMode := range []bool{false, true} {
		t.Run(fmt.Sprintf("json=%v", jsonMode), func(t *testing.T) {
			ts := newTestServer(t, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
				switch req.Method {
				case "echo":
					return req.Params, nil
				case "fail":
					return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "no good")
				}
				return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "unknown %s", req.Method)
			}, &HTTPOptions{JSONResponse: jsonMode})
			c, conn := dial(t, &HTTPClient{URL: ts.URL, Header: http.Header{"Authorization": {"Bearer x"}}}, nil)
			ctx := callCtx(t)
			var got map[string]int
			if err := c.Call(ctx, "echo", map[string]int{"n": 1}, &got); err != nil || got["n"] != 1 {
				t.Fatalf("echo: %v %v", got, err)
			}
			if err := c.Call(ctx, "fail", nil, nil); !errors.Is(err, jsonrpc.ErrInvalidParams) {
				t.Fatalf("fail: %v, want -32602", err)
			}
			if conn.SessionID() == "" || conn.ProtocolVersion() != "2025-11-25" {
				t.Fatalf("session %q version %q", conn.SessionID(), conn.ProtocolVersion())
			}
			// Header behaviour on the wire.
			for i, r := range ts.seen() {
				if r.Header.Get("Authorization") != "Bearer x" {
					t.Errorf("request %d (%s) lacks the extra header", i, r.Method)
				}
				if i == 0 {
					if r.Header.Get(HeaderSessionID) != "" || r.Header.Get(HeaderProtocolVersion) != "" {
						t.Errorf("initialize carried session %q / version %q", r.Header.Get(HeaderSessionID), r.Header.Get(HeaderProtocolVersion))
					}
					continue
				}
				if r.Header.Get(HeaderSessionID) != conn.SessionID() || r.Header.Get(HeaderProtocolVersion) != "2025-11-25" {
					t.Errorf("request %d (%s) carried session %q / version %q", i, r.Method, r.Header.Get(HeaderSessionID), r.Header.Get(HeaderProtocolVersion))
				}
			}
		})
	}
}

// TestHTTPClientServerRequestDuringCall: the server asks the client something while
// handling the client's call; the question arrives on the POST stream (or, in JSON mode,
// the GET stream) and the answer gets back.
func TestHTTPClientServerRequestDuringCall(t *testing.T) {
	for _, jsonMode := range []bool{false, true} {
		t.Run(fmt.Sprintf("json=%v", jsonMode), func(t *testing.T) {
			ts := newTestServer(t, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
				var answer json.RawMessage
				if err := connFromContext(ctx).Call(ctx, "elicitation/create", map[string]string{"message": "name?"}, &answer); err != nil {
					return nil, err
				}
				return answer, nil
			}, &HTTPOptions{JSONResponse: jsonMode})
			c, _ := dial(t, &HTTPClient{URL: ts.URL}, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
				if req.Method != "elicitation/create" {
					return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "no")
				}
				return map[string]any{"action": "accept", "content": map[string]string{"name": "Ada"}}, nil
			})
			var got struct {
				Action  string            `json:"action"`
				Content map[string]string `json:"content"`
			}
			if err := c.Call(callCtx(t), "tools/call", nil, &got); err != nil {
				t.Fatal(err)
			}
			if got.Action != "accept" || got.Content["name"] != "Ada" {
				t.Fatalf("got %+v", got)
			}
		})
	}
}

// TestHTTPClientStandaloneStream: a notification unrelated to any request reaches the
// client through the GET stream, including one sent before the stream opened.
func TestHTTPClientStandaloneStream(t *testing.T) {
	var mu sync.Mutex
	var sconn *jsonrpc.Conn
	ts := newTestServer(t, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		mu.Lock()
		sconn = connFromContext(ctx)
		mu.Unlock()
		return nil, nil
	}, nil)
	got := make(chan string, 10)
	c, _ := dial(t, &HTTPClient{URL: ts.URL}, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		got <- req.Method
		return nil, nil
	})
	if err := c.Call(callCtx(t), "hello", nil, nil); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	s := sconn
	mu.Unlock()
	if err := s.Notify(context.Background(), "notifications/tools/list_changed", nil); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-got:
		if m != "notifications/tools/list_changed" {
			t.Fatalf("got %s", m)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the notification did not arrive")
	}
	var gets int
	for _, r := range ts.seen() {
		if r.Method == http.MethodGet {
			gets++
			if r.Header.Get("Accept") != "text/event-stream" || r.Header.Get(HeaderSessionID) == "" {
				t.Errorf("GET headers %v", r.Header)
			}
		}
	}
	if gets != 1 {
		t.Fatalf("%d GET requests, want 1", gets)
	}
}

func TestHTTPClientCloseSendsDelete(t *testing.T) {
	ts := newTestServer(t, nil, nil)
	c, conn := dial(t, &HTTPClient{URL: ts.URL}, nil)
	sid := conn.SessionID()
	c.Close()
	if _, err := conn.Read(context.Background()); !errors.Is(err, io.EOF) {
		t.Fatalf("Read after Close: %v, want io.EOF", err)
	}
	var deleted bool
	for _, r := range ts.seen() {
		if r.Method == http.MethodDelete && r.Header.Get(HeaderSessionID) == sid {
			deleted = true
		}
	}
	if !deleted {
		t.Fatal("no DELETE with the session id")
	}
	if n := ts.h.SessionCount(); n != 0 {
		t.Fatalf("%d sessions left on the server", n)
	}
	if err := conn.Write(context.Background(), &jsonrpc.Request{Method: "x"}); !errors.Is(err, jsonrpc.ErrClosed) {
		t.Fatalf("Write after Close: %v, want an error that matches jsonrpc.ErrClosed", err)
	}
}

func TestHTTPClientSessionExpired(t *testing.T) {
	ts := newTestServer(t, nil, nil)
	c, conn := dial(t, &HTTPClient{URL: ts.URL}, nil)
	ts.h.Close() // the server forgets every session
	err := c.Call(callCtx(t), "ping", nil, nil)
	if !errors.Is(err, ErrSessionExpired) {
		t.Fatalf("call after the session ended: %v, want ErrSessionExpired", err)
	}
	var herr *HTTPError
	if !errors.As(err, &herr) || herr.StatusCode != 404 || !strings.Contains(err.Error(), "HTTP 404 from "+ts.URL+": session not found") {
		t.Fatalf("error %q does not read well", err)
	}
	select {
	case <-c.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the connection did not end")
	}
	if !errors.Is(c.Err(), ErrSessionExpired) {
		t.Fatalf("connection ended with %v", c.Err())
	}
	_ = conn
}

func TestHTTPClientUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String() + "/mcp"
	l.Close()
	conn, err := (&HTTPClient{URL: url}).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	err = conn.Write(callCtx(t), &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "initialize"})
	if !errors.Is(err, ErrUnreachable) {
		t.Fatalf("Write: %v, want ErrUnreachable", err)
	}
	if !strings.Contains(err.Error(), url) {
		t.Errorf("error %q does not name the URL", err)
	}

	// A refused connection fails the write at once: no retry, no backoff.
	synctest.Test(t, func(t *testing.T) {
		refused := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return nil, &net.OpError{Op: "dial", Net: network, Err: syscall.ECONNREFUSED}
		}}}
		conn, err := (&HTTPClient{URL: url, Client: refused}).Connect(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		start := time.Now()
		err = conn.Write(t.Context(), &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "initialize"})
		if !errors.Is(err, ErrUnreachable) {
			t.Fatalf("Write: %v, want ErrUnreachable", err)
		}
		if waited := time.Since(start); waited != 0 {
			t.Errorf("the write failed after %s, want at once", waited)
		}
	})
}

func TestHTTPClientBadURL(t *testing.T) {
	for _, u := range []string{"", "localhost:8080", "ftp://x/", "http://"} {
		if _, err := (&HTTPClient{URL: u}).Connect(context.Background()); err == nil {
			t.Errorf("Connect(%q) succeeded", u)
		}
	}
}

func TestHTTPClientErrorStatus(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "go away\nnow", http.StatusForbidden)
	}))
	defer srv.Close()
	conn, _ := (&HTTPClient{URL: srv.URL}).Connect(context.Background())
	defer conn.Close()
	err := conn.Write(callCtx(t), &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "initialize"})
	if err == nil || err.Error() != "HTTP 403 from "+srv.URL+": go away now" {
		t.Fatalf("error %q", err)
	}
}

// fakeServer is a hand-written Streamable HTTP server for client tests: initialize gets a
// JSON answer with a session id; the test supplies the rest.
type fakeServer struct {
	*httptest.Server
	mu   sync.Mutex
	gets []http.Header
}

func newFakeServer(t *testing.T, post func(w http.ResponseWriter, m *jsonrpc.Request), get func(w http.ResponseWriter, r *http.Request, n int)) *fakeServer {
	fs := &fakeServer{}
	fs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(HeaderSessionID, "s1")
		switch r.Method {
		case http.MethodGet:
			fs.mu.Lock()
			fs.gets = append(fs.gets, r.Header.Clone())
			n := len(fs.gets)
			fs.mu.Unlock()
			get(w, r, n)
		case http.MethodPost:
			b, _ := io.ReadAll(r.Body)
			m, err := jsonrpc.DecodeMessage(b)
			if err != nil {
				t.Errorf("bad POST %s", b)
				return
			}
			req, ok := m.(*jsonrpc.Request)
			switch {
			case ok && req.Method == "initialize":
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25"}}`, req.ID)
			case !ok || req.IsNotification():
				w.WriteHeader(http.StatusAccepted)
			default:
				post(w, req)
			}
		case http.MethodDelete:
			w.WriteHeader(http.StatusMethodNotAllowed)
		}
	}))
	t.Cleanup(fs.Close)
	return fs
}

func (fs *fakeServer) getHeaders() []http.Header {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return append([]http.Header(nil), fs.gets...)
}

func sseWrite(w http.ResponseWriter, s string) {
	_, _ = io.WriteString(w, s)
	w.(http.Flusher).Flush()
}

// TestHTTPClientResumesPostStream: the server closes a request's stream after a priming
// event; the client waits the advertised retry, resumes with GET and Last-Event-ID, and
// gets the response there.
func TestHTTPClientResumesPostStream(t *testing.T) {
	fs := newFakeServer(t, func(w http.ResponseWriter, req *jsonrpc.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		sseWrite(w, "id: p-1\nretry: 2500\ndata: \n\n")
		sseWrite(w, "id: p-2\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n")
		// and end the response: the stream is dropped before the result
	}, func(w http.ResponseWriter, r *http.Request, n int) {
		switch r.Header.Get("Last-Event-ID") {
		case "": // the standalone stream: offer none
			w.WriteHeader(http.StatusMethodNotAllowed)
		case "p-2":
			w.Header().Set("Content-Type", "text/event-stream")
			sseWrite(w, "id: p-3\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"ok\":true}}\n\n")
			<-r.Context().Done() // keep the stream open: the client must end it itself
		default:
			http.Error(w, "bad Last-Event-ID", http.StatusBadRequest)
		}
	})
	rs := &recordSleep{}
	progress := make(chan struct{}, 1)
	c, _ := dial(t, &HTTPClient{URL: fs.URL, sleep: rs.sleep}, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		if req.Method == "notifications/progress" {
			progress <- struct{}{}
		}
		return nil, nil
	})
	var res struct{ OK bool }
	if err := c.Call(callCtx(t), "tools/call", nil, &res); err != nil || !res.OK {
		t.Fatalf("call: %+v %v", res, err)
	}
	select {
	case <-progress:
	default:
		t.Error("the notification sent before the drop was not delivered")
	}
	if d := rs.get(); len(d) != 1 || d[0] != 2500*time.Millisecond {
		t.Fatalf("reconnection delays %v, want [2.5s] from the retry field", d)
	}
	gets := fs.getHeaders()
	if len(gets) != 2 || gets[1].Get("Last-Event-ID") != "p-2" || gets[1].Get(HeaderSessionID) != "s1" {
		t.Fatalf("GETs %v", gets)
	}
}

// TestHTTPClientResumeGivesUp: a stream that can never be resumed fails the call instead
// of leaving it waiting forever.
func TestHTTPClientResumeGivesUp(t *testing.T) {
	fs := newFakeServer(t, func(w http.ResponseWriter, req *jsonrpc.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		if req.Method == "no-id" {
			sseWrite(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n")
			return
		}
		sseWrite(w, "id: x\ndata:\n\n")
	}, func(w http.ResponseWriter, r *http.Request, n int) {
		if r.Header.Get("Last-Event-ID") == "" {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		http.Error(w, "busy", http.StatusServiceUnavailable)
	})
	rs := &recordSleep{}
	c, _ := dial(t, &HTTPClient{URL: fs.URL, sleep: rs.sleep, MaxReconnects: 3}, nil)
	err := c.Call(callCtx(t), "tools/call", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "3 attempts to resume it failed") || !strings.Contains(err.Error(), "HTTP 503") {
		t.Fatalf("call: %v", err)
	}
	if d := rs.get(); len(d) != 3 || d[0] != time.Second || d[1] != 2*time.Second || d[2] != 4*time.Second {
		t.Fatalf("delays %v, want 1s 2s 4s", d)
	}
	err = c.Call(callCtx(t), "no-id", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "cannot be resumed") {
		t.Fatalf("call without event ids: %v", err)
	}
}

// A server that refuses to resume a stream with a client error (ours answers 400 for a
// stream it no longer has) is taken at its word: the call fails at once with its reason,
// without waiting out the retries.
func TestHTTPClientResumeRefused(t *testing.T) {
	fs := newFakeServer(t, func(w http.ResponseWriter, req *jsonrpc.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		sseWrite(w, "id: x\ndata:\n\n")
	}, func(w http.ResponseWriter, r *http.Request, n int) {
		if r.Header.Get("Last-Event-ID") == "" {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		writeHTTPError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "bad request: Last-Event-ID x names no stream of this session")
	})
	rs := &recordSleep{}
	c, _ := dial(t, &HTTPClient{URL: fs.URL, sleep: rs.sleep}, nil)
	err := c.Call(callCtx(t), "tools/call", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "refused to resume it") || !strings.Contains(err.Error(), "names no stream") {
		t.Fatalf("call: %v", err)
	}
	if d := rs.get(); len(d) != 1 {
		t.Fatalf("delays %v, want the one before the only attempt", d)
	}
}

// TestHTTPClientStandaloneReconnects: the GET stream is reopened with Last-Event-ID after
// the advertised retry whenever the server ends it; 405 is accepted silently.
func TestHTTPClientStandaloneReconnects(t *testing.T) {
	fs := newFakeServer(t, nil, func(w http.ResponseWriter, r *http.Request, n int) {
		if n > 3 {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		sseWrite(w, fmt.Sprintf("id: g-%d\nretry: %d\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"n%d\"}\n\n", n, 100*n, n))
	})
	rs := &recordSleep{}
	got := make(chan string, 10)
	_, conn := dial(t, &HTTPClient{URL: fs.URL, sleep: rs.sleep}, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		got <- req.Method
		return nil, nil
	})
	for i := 1; i <= 3; i++ {
		select {
		case m := <-got:
			if m != fmt.Sprintf("n%d", i) {
				t.Fatalf("got %s", m)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("notification %d did not arrive", i)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(fs.getHeaders()) < 4 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	gets := fs.getHeaders()
	if len(gets) != 4 {
		t.Fatalf("%d GETs, want 4 (3 streams, then 405)", len(gets))
	}
	for i, want := range []string{"", "g-1", "g-2", "g-3"} {
		if got := gets[i].Get("Last-Event-ID"); got != want {
			t.Errorf("GET %d Last-Event-ID %q, want %q", i, got, want)
		}
	}
	conn.Close()
	if d := rs.get(); len(d) != 3 || d[0] != 100*time.Millisecond || d[2] != 300*time.Millisecond {
		t.Fatalf("delays %v", d)
	}
}

// TestHTTPClientServerResume runs our client against our server with a tool that drops
// its stream mid-call (SSE polling): the client resumes and gets everything.
func TestHTTPClientServerResume(t *testing.T) {
	ts := newTestServer(t, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		r, _ := jsonrpc.RequestFromContext(ctx)
		c := connFromContext(ctx)
		_ = c.Notify(ctx, "notifications/message", map[string]string{"data": "1"})
		serverConnFromContext(ctx).CloseSSEStream(r.ID)
		_ = c.Notify(ctx, "notifications/message", map[string]string{"data": "2"})
		return map[string]bool{"ok": true}, nil
	}, &HTTPOptions{Retry: 1234 * time.Millisecond})
	var mu sync.Mutex
	var logs []string
	rs := &recordSleep{}
	c, _ := dial(t, &HTTPClient{URL: ts.URL, sleep: rs.sleep}, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		var p struct{ Data string }
		_ = json.Unmarshal(req.Params, &p)
		mu.Lock()
		logs = append(logs, p.Data)
		mu.Unlock()
		return nil, nil
	})
	var res struct{ OK bool }
	if err := c.Call(callCtx(t), "tools/call", nil, &res); err != nil || !res.OK {
		t.Fatalf("call: %+v %v", res, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(logs, ",") != "1,2" {
		t.Fatalf("notifications %q, want 1,2 in order", logs)
	}
	if d := rs.get(); len(d) != 1 || d[0] != 1234*time.Millisecond {
		t.Fatalf("delays %v", d)
	}
}

// TestHTTPClientToleratesOddServers: a server without sessions that answers notifications
// with a JSON body lacking an id, and the standalone GET with 400, still works; the GET is
// not retried and nothing of that reaches Read.
func TestHTTPClientToleratesOddServers(t *testing.T) {
	var mu sync.Mutex
	var gets, deletes int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
			mu.Lock()
			gets++
			mu.Unlock()
			w.WriteHeader(http.StatusBadRequest)
			return
		case http.MethodDelete:
			mu.Lock()
			deletes++
			mu.Unlock()
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		b, _ := io.ReadAll(r.Body)
		m, _ := jsonrpc.DecodeMessage(b)
		w.Header().Set("Content-Type", "application/json")
		req := m.(*jsonrpc.Request)
		if req.IsNotification() {
			io.WriteString(w, `{"jsonrpc":"2.0","result":{}}`)
			return
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18"}}`, req.ID)
	}))
	defer srv.Close()
	rs := &recordSleep{}
	c, conn := dial(t, &HTTPClient{URL: srv.URL, sleep: rs.sleep}, nil)
	if err := c.Call(callCtx(t), "ping", nil, nil); err != nil {
		t.Fatal(err)
	}
	if conn.SessionID() != "" || conn.ProtocolVersion() != "2025-06-18" {
		t.Fatalf("session %q version %q", conn.SessionID(), conn.ProtocolVersion())
	}
	c.Close()
	mu.Lock()
	defer mu.Unlock()
	if gets != 1 || deletes != 0 || len(rs.get()) != 0 {
		t.Fatalf("%d GETs, %d DELETEs, delays %v; want 1 GET, no DELETE without a session, no retry", gets, deletes, rs.get())
	}
}

// TestHTTPClientAnswerOfAnotherType: a 200 whose Content-Type is neither JSON nor an event
// stream fails its call with a *NoResponseError saying so, and no JSON-RPC error: the
// server sent none.
func TestHTTPClientAnswerOfAnotherType(t *testing.T) {
	fs := newFakeServer(t, func(w http.ResponseWriter, req *jsonrpc.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, req.ID)
	}, func(w http.ResponseWriter, r *http.Request, n int) { w.WriteHeader(http.StatusMethodNotAllowed) })
	c, _ := dial(t, &HTTPClient{URL: fs.URL}, nil)
	err := c.Call(callCtx(t), "tools/list", nil, nil)
	var none *NoResponseError
	if !errors.As(err, &none) || errors.As(err, new(*jsonrpc.Error)) {
		t.Fatalf("call: %v (%T), want a *NoResponseError and no JSON-RPC error", err, err)
	}
	const want = `the server answered HTTP 200 with Content-Type "text/html", which holds no JSON-RPC message (application/json or text/event-stream)`
	if none.Error() != want {
		t.Errorf("error\n got %s\nwant %s", none.Error(), want)
	}
}

// TestHTTPClientUnreadableAnswer: a JSON answer, or an event, that cannot be decoded but
// names its request fails that call at once with why, rather than "no response".
func TestHTTPClientUnreadableAnswer(t *testing.T) {
	for _, sse := range []bool{false, true} {
		fs := newFakeServer(t, func(w http.ResponseWriter, req *jsonrpc.Request) {
			body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"x":NaN}}`, req.ID)
			if sse {
				w.Header().Set("Content-Type", "text/event-stream")
				sseWrite(w, "data: "+body+"\n\n")
				return
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, body)
		}, func(w http.ResponseWriter, r *http.Request, n int) { w.WriteHeader(http.StatusMethodNotAllowed) })
		c, _ := dial(t, &HTTPClient{URL: fs.URL}, nil)
		err := c.Call(callCtx(t), "tools/list", nil, nil)
		var bad *jsonrpc.MalformedResponseError
		if !errors.As(err, &bad) || bad.Detail == "" {
			t.Errorf("sse=%v: call: %v (%T), want a *MalformedResponseError saying where", sse, err, err)
		}
	}
}

// TestHTTPClientInvalidMessagesLoggedBriefly: a server that sends many events that are
// no JSON-RPC message makes a few log lines, not one each: the first ten, then a
// summary of how many more when the connection closes.
func TestHTTPClientInvalidMessagesLoggedBriefly(t *testing.T) {
	const events = 500
	fs := newFakeServer(t, func(w http.ResponseWriter, req *jsonrpc.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		var b strings.Builder
		for range events {
			b.WriteString("data: not json\n\n")
		}
		fmt.Fprintf(&b, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{}}\n\n", req.ID)
		sseWrite(w, b.String())
	}, func(w http.ResponseWriter, r *http.Request, n int) { w.WriteHeader(http.StatusMethodNotAllowed) })
	var log strings.Builder
	var mu sync.Mutex
	logger := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return log.Write(p)
	}), nil))
	c, _ := dial(t, &HTTPClient{URL: fs.URL, Logger: logger}, nil)
	if err := c.Call(callCtx(t), "tools/list", nil, nil); err != nil {
		t.Fatal(err)
	}
	c.Close()
	mu.Lock()
	defer mu.Unlock()
	one := strings.Count(log.String(), `msg="invalid message from the server"`)
	summary := strings.Count(log.String(), fmt.Sprintf(`msg="invalid messages from the server not logged one by one" count=%d`, events-10))
	if one != 10 || summary != 1 {
		t.Errorf("%d lines one by one and %d summaries, want 10 and 1:\n%s", one, summary, log.String())
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
