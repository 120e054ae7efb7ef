package transport

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
)

// The tests of this file run the handler in a synctest bubble: requests go straight to
// ServeHTTP with a recorder, a client that goes away is a cancelled request context, and
// timeouts pass in fake time.

// bubble is an [HTTPHandler] whose sessions run mcpHandler(h), and the connections of
// those sessions in the order they started.
type bubble struct {
	*HTTPHandler
	mu    sync.Mutex
	conns []*HTTPServerConn
}

func newBubble(t *testing.T, h jsonrpc.HandlerFunc, opts *HTTPOptions) *bubble {
	b := &bubble{}
	b.HTTPHandler = NewHTTPHandler(func(ctx context.Context, conn jsonrpc.Connection) {
		b.mu.Lock()
		b.conns = append(b.conns, conn.(*HTTPServerConn))
		b.mu.Unlock()
		c := jsonrpc.NewConn(conn, jsonrpc.Options{Handler: mcpHandler(h)})
		<-c.Done()
	}, opts)
	t.Cleanup(func() { b.Close() })
	return b
}

func (b *bubble) conn(i int) *HTTPServerConn {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.conns[i]
}

// do serves one request with the usual MCP headers; ctx ends it early, as a client that
// goes away does.
func (b *bubble) do(ctx context.Context, method, body, sid string, hdr map[string]string) *httptest.ResponseRecorder {
	r := httptest.NewRequestWithContext(ctx, method, "http://localhost/mcp", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	if method == http.MethodGet {
		r.Header.Set("Accept", "text/event-stream")
	}
	if sid != "" {
		r.Header.Set(HeaderSessionID, sid)
	}
	for k, v := range hdr {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	b.ServeHTTP(w, r)
	return w
}

// init starts a session and returns its id.
func (b *bubble) init(t *testing.T) string {
	t.Helper()
	w := b.do(context.Background(), http.MethodPost, initBody, "", nil)
	sid := w.Header().Get(HeaderSessionID)
	if w.Code != http.StatusOK || sid == "" {
		t.Fatalf("initialize: HTTP %d %s", w.Code, w.Body)
	}
	return sid
}

// ping reports the HTTP status of a ping in session sid.
func (b *bubble) ping(sid string) int {
	return b.do(context.Background(), http.MethodPost, `{"jsonrpc":"2.0","id":99,"method":"ping"}`, sid, nil).Code
}

// hold opens the standalone GET stream of session sid and keeps it open until the
// returned function is called.
func (b *bubble) hold(sid string) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		b.do(ctx, http.MethodGet, "", sid, nil)
	}()
	synctest.Wait()
	return func() { cancel(); <-done }
}

// recorderError decodes the JSON-RPC error a recorder holds.
func recorderError(t *testing.T, w *httptest.ResponseRecorder) *jsonrpc.Response {
	t.Helper()
	m, err := jsonrpc.DecodeMessage(w.Body.Bytes())
	r, ok := m.(*jsonrpc.Response)
	if err != nil || !ok || r.Error == nil {
		t.Fatalf("body %q is not a JSON-RPC error (%v)", w.Body, err)
	}
	return r
}

// TestHTTPServerSessionCap: beyond MaxSessions a new session takes the place of the least
// recently active idle one, and is refused with 503 when every session is busy (a POST
// in progress).
func TestHTTPServerSessionCap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		b := newBubble(t, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			if req.Method == "block" {
				<-release
			}
			return map[string]bool{"ok": true}, nil
		}, &HTTPOptions{MaxSessions: 2})
		a := b.init(t)
		time.Sleep(time.Second)
		c := b.init(t)
		time.Sleep(time.Second)
		if b.ping(a) != http.StatusOK { // a becomes the more recently active
			t.Fatal("ping a")
		}
		time.Sleep(time.Second)
		d := b.init(t) // evicts c, the least recently active
		synctest.Wait()
		if n := b.SessionCount(); n != 2 {
			t.Fatalf("%d sessions, want the cap, 2", n)
		}
		if got := b.ping(c); got != http.StatusNotFound {
			t.Errorf("the evicted session answered HTTP %d, want 404", got)
		}
		if b.ping(a) != http.StatusOK || b.ping(d) != http.StatusOK {
			t.Error("a session that was not evicted fails")
		}

		// Both sessions busy: the next one is refused.
		var wg sync.WaitGroup
		for _, sid := range []string{a, d} {
			wg.Go(func() {
				b.do(context.Background(), http.MethodPost, `{"jsonrpc":"2.0","id":7,"method":"block"}`, sid, nil)
			})
		}
		synctest.Wait()
		w := b.do(context.Background(), http.MethodPost, initBody, "", nil)
		if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" {
			t.Errorf("initialize beyond the cap with every session busy: HTTP %d (Retry-After %q), want 503",
				w.Code, w.Header().Get("Retry-After"))
		}
		if r := recorderError(t, w); r.ID != jsonrpc.Int64ID(1) || !strings.Contains(r.Error.Message, "sessions") {
			t.Errorf("refusal %+v %v, want the initialize id and a message about sessions", r.ID, r.Error)
		}
		if n := b.SessionCount(); n != 2 {
			t.Errorf("%d sessions after the refusal", n)
		}
		close(release)
		wg.Wait()
	})
}

// TestHTTPServerIdleExpiryByDefault: with no options sessions expire after
// DefaultSessionTimeout of idleness; a negative SessionTimeout keeps them.
func TestHTTPServerIdleExpiryByDefault(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBubble(t, nil, nil)
		b.init(t)
		time.Sleep(DefaultSessionTimeout - time.Second)
		synctest.Wait()
		if b.SessionCount() != 1 {
			t.Fatal("expired too early")
		}
		time.Sleep(2 * time.Second)
		synctest.Wait()
		if n := b.SessionCount(); n != 0 {
			t.Errorf("%d sessions after %v idle, want 0", n, DefaultSessionTimeout+time.Second)
		}

		forever := newBubble(t, nil, &HTTPOptions{SessionTimeout: -1})
		forever.init(t)
		time.Sleep(30 * 24 * time.Hour)
		synctest.Wait()
		if forever.SessionCount() != 1 {
			t.Error("SessionTimeout -1: the session expired")
		}
	})
}

// retained returns the bytes of event data a session holds.
func retained(s *HTTPServerConn) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	seen := map[*serverStream]bool{}
	for _, st := range s.streams {
		seen[st] = true
		for _, ev := range st.events {
			n += len(ev.data)
		}
	}
	if !seen[s.standalone] {
		for _, ev := range s.standalone.events {
			n += len(ev.data)
		}
	}
	return n
}

// firstEventID returns the id of the first event of an SSE body.
func firstEventID(t *testing.T, body string) string {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		if id, ok := strings.CutPrefix(sc.Text(), "id: "); ok {
			return id
		}
	}
	t.Fatalf("no event id in %q", body)
	return ""
}

// TestHTTPServerRetainedBytes: the responses a session keeps for clients that went away,
// and the messages waiting for a GET stream the client never opens, stay within
// MaxRetainedBytes; the most recent ones stay resumable.
func TestHTTPServerRetainedBytes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const limit, size, calls = 64 << 10, 16 << 10, 20
		// Call i answers once gates[i] is closed, so that the answers come in call order.
		gates := make([]chan struct{}, calls)
		for i := range gates {
			gates[i] = make(chan struct{})
		}
		b := newBubble(t, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			i, _ := strconv.Atoi(req.ID.String())
			<-gates[i-10]
			return map[string]string{"x": strings.Repeat("x", size)}, nil
		}, &HTTPOptions{MaxRetainedBytes: limit})
		sid := b.init(t)

		// Each call's client reads the priming event and goes away before the response.
		ids := make([]string, calls)
		for i := range calls {
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan *httptest.ResponseRecorder)
			go func() {
				done <- b.do(ctx, http.MethodPost, `{"jsonrpc":"2.0","id":`+strconv.Itoa(10+i)+`,"method":"big"}`, sid, nil)
			}()
			synctest.Wait()
			cancel()
			ids[i] = firstEventID(t, (<-done).Body.String())
		}
		for _, g := range gates {
			close(g)
			synctest.Wait()
		}
		s := b.conn(0)
		if n := retained(s); n > limit {
			t.Errorf("%d bytes retained for clients that went away, want at most %d", n, limit)
		}
		// The newest response is still there for its client to resume; the oldest is gone.
		w := b.do(context.Background(), http.MethodGet, "", sid, map[string]string{"Last-Event-ID": ids[calls-1]})
		if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), strings.Repeat("x", size)) {
			t.Errorf("resuming the newest call: HTTP %d, %d bytes", w.Code, w.Body.Len())
		}
		// The oldest response is gone, and a short error in its place says so.
		w = b.do(context.Background(), http.MethodGet, "", sid, map[string]string{"Last-Event-ID": ids[0]})
		if w.Code != http.StatusOK || strings.Contains(w.Body.String(), strings.Repeat("x", size)) ||
			!strings.Contains(w.Body.String(), `"id":10,"error":{"code":-32603,"message":"the server dropped its response to this request`) {
			t.Errorf("resuming the oldest call: HTTP %d %.300q, want the error that replaced its response", w.Code, w.Body)
		}

		// Messages for a standalone stream the client never opens.
		for i := range 1000 {
			msg := &jsonrpc.Request{Method: "n", Params: json.RawMessage(`{"i":` + strings.Repeat("1", 1000) + `}`)}
			if err := s.Write(context.Background(), msg); err != nil {
				t.Fatalf("write %d: %v", i, err)
			}
		}
		if n := retained(s); n > limit {
			t.Errorf("%d bytes retained for the standalone stream, want at most %d", n, limit)
		}
		s.mu.Lock()
		counted := s.retained
		s.mu.Unlock()
		if n := retained(s); counted != n {
			t.Errorf("the session counts %d bytes retained, its streams hold %d", counted, n)
		}
	})
}

// TestHTTPServerInFlightCap: beyond MaxInFlight unanswered requests, one more is refused
// at once with 429 and a JSON-RPC error carrying its id, instead of waiting.
func TestHTTPServerInFlightCap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		b := newBubble(t, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			if req.Method == "block" {
				<-release
			}
			return map[string]bool{"ok": true}, nil
		}, &HTTPOptions{MaxInFlight: 2})
		sid := b.init(t)
		var wg sync.WaitGroup
		for _, id := range []string{"1", "2"} {
			wg.Go(func() {
				b.do(context.Background(), http.MethodPost, `{"jsonrpc":"2.0","id":`+id+`,"method":"block"}`, sid, nil)
			})
		}
		synctest.Wait()
		for _, body := range []string{
			`{"jsonrpc":"2.0","id":3,"method":"block"}`,
			`{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"x"}}`,
		} {
			res := make(chan *httptest.ResponseRecorder, 1)
			go func() { res <- b.do(context.Background(), http.MethodPost, body, sid, nil) }()
			synctest.Wait()
			select {
			case w := <-res:
				if w.Code != http.StatusTooManyRequests {
					t.Errorf("%s beyond the cap: HTTP %d, want 429", body, w.Code)
				}
				if r := recorderError(t, w); r.ID != jsonrpc.Int64ID(3) {
					t.Errorf("refusal carries id %v, want 3", r.ID)
				}
			default:
				t.Errorf("%s beyond the cap waits instead of failing", body)
				close(release)
				<-res
				wg.Wait()
				return
			}
		}
		close(release)
		wg.Wait()
		if got := b.ping(sid); got != http.StatusOK {
			t.Errorf("after the calls ended: HTTP %d", got)
		}
	})
}

// TestHTTPServerJSONOutlivesReadTimeout: a request answered with a JSON body after the
// http.Server's ReadTimeout still gets its answer (the timeout would otherwise end the
// request's context).
func TestHTTPServerJSONOutlivesReadTimeout(t *testing.T) {
	release := make(chan struct{})
	ts := newTestServer(t, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		<-release
		return map[string]bool{"ok": true}, nil
	}, &HTTPOptions{JSONResponse: true})
	ts.Server.Close()
	ts.Server = httptest.NewUnstartedServer(ts.h)
	ts.Server.Config.ReadTimeout = 50 * time.Millisecond
	ts.Server.Start()
	defer ts.Server.Close()
	init := rawPost(t, ts.URL, initBody, map[string]string{"Accept": "application/json"})
	sid := init.Header.Get(HeaderSessionID)
	time.AfterFunc(300*time.Millisecond, func() { close(release) })
	resp := rawPost(t, ts.URL, `{"jsonrpc":"2.0","id":2,"method":"slow"}`, map[string]string{HeaderSessionID: sid})
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || string(b) != `{"jsonrpc":"2.0","id":2,"result":{"ok":true}}` {
		t.Fatalf("HTTP %d %q, want the answer", resp.StatusCode, b)
	}
}
