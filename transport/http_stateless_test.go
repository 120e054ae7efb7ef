package transport

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpi-dev/mcpi/internal/jsonwire"
	"github.com/mcpi-dev/mcpi/jsonrpc"
)

// checkProbe holds statelessProbe.read to encoding/json: where it reads params, it reads
// what encoding/json decodes into the struct the check used before it.
func checkProbe(t *testing.T, params []byte) {
	t.Helper()
	var p statelessProbe
	if !jsonwire.Valid(params) || !p.read(params) {
		return // encoding/json decides
	}
	var want struct {
		Name   *string                    `json:"name"`
		URI    *string                    `json:"uri"`
		TaskID *string                    `json:"taskId"`
		Meta   map[string]json.RawMessage `json:"_meta"`
	}
	if err := json.Unmarshal(params, &want); err != nil {
		t.Fatalf("read %s, which encoding/json refuses: %v", params, err)
	}
	same := func(a text, b *string) bool {
		return !a.present() && b == nil || a.present() && b != nil && a.String() == *b && a.is(*b) && !a.is(*b+"x")
	}
	raw := func(m map[string]json.RawMessage, k string) []byte { return m[k] }
	if !same(p.name, want.Name) || !same(p.uri, want.URI) || !same(p.taskID, want.TaskID) ||
		string(p.version) != string(raw(want.Meta, metaProtocolVersion)) || string(p.caps) != string(raw(want.Meta, metaClientCapabilities)) {
		t.Fatalf("read %s as %+v, encoding/json as %+v", params, p, want)
	}
}

var probeSeeds = []string{
	`{"name":"instant","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`,
	`{"uri":"file:///a","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"x":1}}}`,
	`{"taskId":"t-1","_meta":null}`,
	`{"name":null,"name":"b","arguments":{"name":5}}`,
	`{"Name":"a"}`, `{"NAME":"a","name":"b"}`, `{"n\u0061me":"a"}`, `{"taſkId":"a"}`,
	`{"name":5}`, `{"_meta":[]}`, `{"_meta":{"a":1},"_meta":{"b":2}}`,
	`{"_meta":{"io.modelcontextprotocol/protocolVersion":"x","io.modelcontextprotocol/protocolVersion":"y"}}`,
	`{"_meta":{"io.modelcontextprotocol\/protocolVersion":"x"}}`,
	`{"name":"h\u00e9llo","uri":"\ud83d\ude00"}`, "{\"name\":\"bad\xff\"}",
	`[]`, `null`, `"s"`, `{}`, ` { "name" : "a" , "_meta" : { } } `,
}

func TestStatelessProbe(t *testing.T) {
	for _, s := range probeSeeds {
		checkProbe(t, []byte(s))
	}
	var p statelessProbe
	if !p.read([]byte(probeSeeds[0])) || !p.name.is("instant") || string(p.version) != `"2026-07-28"` {
		t.Errorf("the usual params read as %+v", p)
	}
}

func FuzzStatelessProbe(f *testing.F) {
	for _, s := range probeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, params []byte) {
		checkProbe(t, params)
	})
}

// statelessServer serves stateless requests as a generic serve function does, with a
// jsonrpc.Conn that reads the connection on goroutines of its own; h gets the Conn.
func statelessServer(t *testing.T, opts HTTPOptions, h func(ctx context.Context, c *jsonrpc.Conn, req *jsonrpc.Request) (any, error)) (*HTTPHandler, string) {
	t.Helper()
	opts.ModernProtocolVersions = DefaultModernProtocolVersions
	handler := NewHTTPHandler(func(ctx context.Context, conn jsonrpc.Connection) {
		if _, ok := conn.(*StatelessConn); !ok {
			t.Errorf("served a %T", conn)
		}
		var c *jsonrpc.Conn
		ready := make(chan struct{})
		c = jsonrpc.NewConn(conn, jsonrpc.Options{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			<-ready
			return h(ctx, c, req)
		})})
		close(ready)
		<-c.Done()
	}, &opts)
	ts := httptest.NewServer(handler)
	t.Cleanup(func() {
		ts.Close()
		handler.Close()
	})
	return handler, ts.URL
}

func statelessRequest(ctx context.Context, url, accept string) *http.Request {
	body := `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	req.Header.Set(HeaderProtocolVersion, "2026-07-28")
	req.Header.Set(HeaderMethod, "tools/list")
	return req
}

// A notification opens an event stream that the response ends; a client that accepts
// only JSON gets the response alone; without notifications the response is JSON.
func TestStatelessNotificationsThenResponse(t *testing.T) {
	for _, tc := range []struct {
		accept      string
		notify      bool
		contentType string
	}{
		{"application/json, text/event-stream", true, "text/event-stream"},
		{"application/json, text/event-stream", false, "application/json"},
		{"application/json", true, "application/json"},
	} {
		handler, url := statelessServer(t, HTTPOptions{JSONResponse: tc.accept == "application/json"},
			func(ctx context.Context, c *jsonrpc.Conn, req *jsonrpc.Request) (any, error) {
				if tc.notify {
					if err := c.Notify(ctx, "notifications/progress", map[string]any{"progressToken": 1, "progress": 1}); err != nil {
						t.Errorf("notify: %v", err)
					}
				}
				return map[string]any{"tools": []any{}}, nil
			})
		resp, err := http.DefaultClient.Do(statelessRequest(t.Context(), url, tc.accept))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if ct := resp.Header.Get("Content-Type"); ct != tc.contentType || resp.StatusCode != http.StatusOK {
			t.Errorf("%+v: HTTP %d, %s", tc, resp.StatusCode, ct)
		}
		progress := strings.Contains(string(body), "notifications/progress")
		if progress != (tc.notify && tc.contentType == "text/event-stream") || !strings.Contains(string(body), `"id":3,"result":{"tools":[]}`) {
			t.Errorf("%+v: %s", tc, body)
		}
		if err := handler.Close(); err != nil {
			t.Error(err)
		}
	}
}

// A client that leaves ends the request: the handler's context is cancelled and the
// serve function returns.
func TestStatelessClientLeaves(t *testing.T) {
	started := make(chan struct{})
	cancelled := make(chan struct{})
	handler, url := statelessServer(t, HTTPOptions{}, func(ctx context.Context, c *jsonrpc.Conn, req *jsonrpc.Request) (any, error) {
		close(started)
		<-ctx.Done()
		close(cancelled)
		return nil, ctx.Err()
	})
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-started
		cancel()
	}()
	if resp, err := http.DefaultClient.Do(statelessRequest(ctx, url, "application/json, text/event-stream")); err == nil {
		resp.Body.Close()
		t.Fatal("a response")
	}
	select {
	case <-cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the handler's context was not cancelled when the client left")
	}
	closed := make(chan struct{})
	go func() {
		handler.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("the serve function did not return")
	}
}

// Stateless requests have no session to be counted by: those of all clients together
// are bounded (MaxStatelessInFlight). One more is refused at once with 429, its id and a
// sentence; one answered makes room again.
func TestStatelessInFlightBounded(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 8)
	_, url := statelessServer(t, HTTPOptions{MaxStatelessInFlight: 2, MaxStatelessPerCaller: -1}, func(ctx context.Context, c *jsonrpc.Conn, req *jsonrpc.Request) (any, error) {
		started <- struct{}{}
		select {
		case <-release:
		case <-ctx.Done():
		}
		return map[string]any{"tools": []any{}}, nil
	})
	type answer struct {
		status int
		body   string
	}
	answers := make(chan answer, 2)
	for range 2 {
		go func() {
			resp, err := http.DefaultClient.Do(statelessRequest(t.Context(), url, "application/json, text/event-stream"))
			if err != nil {
				answers <- answer{body: err.Error()}
				return
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			answers <- answer{resp.StatusCode, string(body)}
		}()
	}
	<-started
	<-started
	resp, err := http.DefaultClient.Do(statelessRequest(t.Context(), url, "application/json, text/event-stream"))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" ||
		!strings.Contains(string(body), `"id":3`) || !strings.Contains(string(body), "too many requests") {
		t.Errorf("the third request: HTTP %d %s, want 429 with its id", resp.StatusCode, body)
	}
	close(release)
	for range 2 {
		if a := <-answers; a.status != http.StatusOK || !strings.Contains(a.body, `"tools":[]`) {
			t.Errorf("a request admitted: HTTP %d %s", a.status, a.body)
		}
	}
	resp, err = http.DefaultClient.Do(statelessRequest(t.Context(), url, "application/json, text/event-stream"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("a request once the others were answered: HTTP %d", resp.StatusCode)
	}
}

// TestStatelessInFlightSharedByCallers: one caller (by default an address) has at most
// its share of MaxStatelessInFlight, half unless MaxStatelessPerCaller says otherwise:
// one more of its requests is refused with 429 and a sentence that says they are its
// own, while another caller's is served. (4,096 listens held open by one client refused
// every other client's requests with 429 for as long as they stayed open.)
func TestStatelessInFlightSharedByCallers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		h := NewHTTPHandler(func(ctx context.Context, conn jsonrpc.Connection) {
			c := jsonrpc.NewConn(conn, jsonrpc.Options{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
				select {
				case <-release:
				case <-ctx.Done():
				}
				return map[string]any{"tools": []any{}}, nil
			})})
			<-c.Done()
		}, &HTTPOptions{ModernProtocolVersions: DefaultModernProtocolVersions, MaxStatelessInFlight: 4})
		defer h.Close()
		answers := make(chan *httptest.ResponseRecorder, 8)
		from := func(addr string) {
			r := statelessRequest(context.Background(), "http://localhost/mcp", "application/json, text/event-stream")
			r.RemoteAddr = addr
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			answers <- w
		}
		for port := range 4 {
			go from("192.0.2.1:" + strconv.Itoa(1000+port))
		}
		synctest.Wait()
		if len(answers) != 2 {
			close(release)
			t.Fatalf("%d of one caller's 4 requests refused at once, want 2 (its half of MaxStatelessInFlight 4)", len(answers))
		}
		for range 2 {
			if w := <-answers; w.Code != http.StatusTooManyRequests || !strings.Contains(w.Body.String(), `"id":3`) ||
				!strings.Contains(w.Body.String(), "too many requests: you already have 2 requests waiting") {
				t.Errorf("a request of one caller beyond its share: HTTP %d %s, want 429 that says the requests are its own", w.Code, w.Body)
			}
		}
		go from("198.51.100.7:1000")
		synctest.Wait()
		if len(answers) != 0 {
			t.Errorf("another caller's request refused: %s", (<-answers).Body)
		}
		close(release)
		for range 3 {
			if w := <-answers; w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"tools":[]`) {
				t.Errorf("a request admitted: HTTP %d %s", w.Code, w.Body)
			}
		}
	})
}
