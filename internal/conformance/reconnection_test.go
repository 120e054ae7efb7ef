package conformance_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/conformance"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/transport"
)

// sseEvent is one server-sent event.
type sseEvent struct {
	id, data string
	retry    bool
}

// readSSE reads events until the body ends or stop says so.
func readSSE(t *testing.T, body io.Reader, stop func(sseEvent) bool) []sseEvent {
	t.Helper()
	var out []sseEvent
	var cur sseEvent
	var data []string
	sc := bufio.NewScanner(body)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			cur.data = strings.Join(data, "\n")
			out = append(out, cur)
			if stop != nil && stop(cur) {
				return out
			}
			cur, data = sseEvent{}, nil
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "id":
			cur.id = value
		case "data":
			data = append(data, value)
		case "retry":
			cur.retry = true
		}
	}
	return out
}

// TestReconnectionClosesStream walks the server-sse-polling scenario as the conformance
// suite does: the POST stream of test_reconnection starts with a priming event (id, retry,
// empty data) and ends without the result; GET with Last-Event-ID resumes it and carries
// the result.
func TestReconnectionClosesStream(t *testing.T) {
	h := conformance.NewServer().HTTPHandler(nil)
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer h.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()

	do := func(method, body string, hdr map[string]string) *http.Response {
		t.Helper()
		var r io.Reader
		if body != "" {
			r = strings.NewReader(body)
		}
		req, err := http.NewRequestWithContext(ctx, method, ts.URL+"/mcp", r)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	init := do(http.MethodPost, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`, nil)
	sid := init.Header.Get(transport.HeaderSessionID)
	io.Copy(io.Discard, init.Body)
	init.Body.Close()
	if sid == "" {
		t.Fatal("no session id")
	}
	hdr := map[string]string{transport.HeaderSessionID: sid, "Mcp-Protocol-Version": "2025-03-26"}
	do(http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, hdr).Body.Close()

	post := do(http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_reconnection","arguments":{}}}`, hdr)
	if post.StatusCode != http.StatusOK || !strings.HasPrefix(post.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("POST: HTTP %d %s", post.StatusCode, post.Header.Get("Content-Type"))
	}
	events := readSSE(t, post.Body, nil)
	post.Body.Close()
	if len(events) == 0 || events[0].id == "" || strings.TrimSpace(events[0].data) != "" || !events[0].retry {
		t.Fatalf("POST stream %+v: want a priming event (id, retry, empty data) first", events)
	}
	for _, e := range events {
		if strings.Contains(e.data, `"result"`) {
			t.Fatalf("the result came on the POST stream (%s); want the stream closed before it", e.data)
		}
	}

	resumeHdr := map[string]string{transport.HeaderSessionID: sid, "Mcp-Protocol-Version": "2025-03-26",
		"Last-Event-ID": events[len(events)-1].id, "Accept": "text/event-stream"}
	get := do(http.MethodGet, "", resumeHdr)
	defer get.Body.Close()
	if get.StatusCode != http.StatusOK {
		t.Fatalf("resuming GET: HTTP %d", get.StatusCode)
	}
	var result *jsonrpc.Response
	readSSE(t, get.Body, func(e sseEvent) bool {
		m, err := jsonrpc.DecodeMessage([]byte(e.data))
		if r, ok := m.(*jsonrpc.Response); err == nil && ok && r.ID == jsonrpc.Int64ID(1) {
			result = r
			return true
		}
		return false
	})
	if result == nil || result.Error != nil {
		t.Fatalf("the resumed stream carried no result: %+v", result)
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal(result.Result, &res); err != nil || len(res.Content) != 1 ||
		res.Content[0].Text != "Reconnection test completed successfully" {
		t.Errorf("result %s", result.Result)
	}
}

// TestReconnectionWithClient: mcpi's own client resumes the closed stream and gets the
// result; over a transport without streams the tool just answers.
func TestReconnectionWithClient(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	srv := conformance.NewServer()
	defer srv.Close()
	// A short retry delay, so that the client resumes at once.
	h := srv.HTTPHandler(&transport.HTTPOptions{Retry: 5 * time.Millisecond})
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer h.Close()

	c := client.New(mcp.Implementation{Name: "x", Version: "1"}, nil)
	for name, tr := range map[string]transport.Transport{
		"http": &transport.HTTPClient{URL: ts.URL + "/mcp"},
		"pipe": transport.PipeTransport{Serve: func(ctx context.Context, conn jsonrpc.Connection) error {
			srv.Connect(ctx, conn)
			return nil
		}},
	} {
		s, err := c.Connect(ctx, tr)
		if err != nil {
			t.Fatal(err)
		}
		sub := s.Subscribe()
		res := call(t, ctx, s, &mcp.CallToolParams{Name: "test_reconnection"})
		if len(res.Content) != 1 || res.Content[0].Text != "Reconnection test completed successfully" {
			t.Errorf("over %s: %+v", name, res)
		}
		if got := rawResult(t, drain(sub), mcp.MethodToolsCall); !strings.Contains(got, "Reconnection test completed") {
			t.Errorf("over %s: raw result %s", name, got)
		}
		sub.Close()
		s.Close()
	}
}
