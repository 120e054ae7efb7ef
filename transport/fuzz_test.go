package transport

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
)

// The transports read what an untrusted peer sends. These targets feed them arbitrary
// bytes and check that they end, answer in bounds and never panic; scripts/fuzz.sh runs
// each for a while in CI, and `go test` runs their seeds.

// FuzzStreamRead reads newline-delimited messages, as from a stdio server, until the
// input ends: each line is a message or an error, and the reader always gets to the end.
func FuzzStreamRead(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n",
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":0.5}}` + "\n\n",
		"not json\n" + `{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"no"}}`,
		"\x00\xff\n\r\n{\n",
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]` + "\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := NewStream(bytes.NewReader(data), io.Discard, 1<<12)
		ctx := context.Background()
		for reads := 0; ; reads++ {
			if reads > len(data)+1 {
				t.Fatalf("%d reads of %d bytes: the reader does not reach the end", reads, len(data))
			}
			if _, err := s.Read(ctx); err == io.EOF {
				return
			} else if err != nil && !isFrameError(err) {
				return // the stream ended otherwise
			}
		}
	})
}

// isFrameError reports whether err is about one frame, after which reading goes on.
func isFrameError(err error) bool {
	var de *jsonrpc.DecodeError
	return errors.As(err, &de)
}

// FuzzSSERead reads server-sent events until the input ends.
func FuzzSSERead(f *testing.F) {
	for _, seed := range []string{
		"id: a:0\nretry: 500\ndata: \n\n",
		"event: message\r\nid: a:1\r\ndata: {\"x\":\r\ndata: 1}\r\n\r\n",
		": comment\nretry: 99999999999999999999\ndata: x\n\n",
		"data: " + string(bytes.Repeat([]byte("y"), 300)) + "\n\n",
		"id\n\rdata\r\r",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := newSSEReader(bytes.NewReader(data), 256)
		defer r.release()
		for events := 0; ; events++ {
			if events > len(data)+1 {
				t.Fatalf("%d events from %d bytes", events, len(data))
			}
			ev, err := r.Next()
			if err != nil {
				return
			}
			if len(ev.Data) > 256 {
				t.Fatalf("an event of %d bytes passed the 256-byte bound", len(ev.Data))
			}
		}
	})
}

// FuzzHTTPHandler sends the Streamable HTTP server one request of arbitrary method,
// headers and body. It must answer within the request's deadline, with a status of its
// own choosing and a bounded body, whatever it is sent.
func FuzzHTTPHandler(f *testing.F) {
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}`
	for _, seed := range []struct {
		method, contentType, accept, session, version, origin, host, body string
	}{
		{"POST", "application/json", "application/json, text/event-stream", "", "", "", "127.0.0.1", initialize},
		{"POST", "application/json", "text/event-stream", "", "", "", "localhost:8080", initialize},
		{"POST", "application/json", "application/json, text/event-stream", "nope", "2025-11-25", "", "127.0.0.1", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`},
		{"POST", "text/plain", "*/*", "", "", "http://evil.example", "127.0.0.1", "{"},
		{"GET", "", "text/event-stream", "x", "2025-11-25", "", "127.0.0.1", ""},
		{"DELETE", "", "", "x", "", "", "127.0.0.1", ""},
		{"POST", "application/json", "application/json", "", "1999-01-01", "", "evil.example", `[` + initialize + `]`},
		{"PUT", "application/json", "", "", "", "null", "[::1]", "\x00"},
	} {
		f.Add(seed.method, seed.contentType, seed.accept, seed.session, seed.version, seed.origin, seed.host, []byte(seed.body))
	}
	f.Fuzz(func(t *testing.T, method, contentType, accept, session, version, origin, host string, body []byte) {
		if !validMethod(method) {
			return // net/http refuses such a request before a handler sees it
		}
		h := NewHTTPHandler(func(ctx context.Context, conn jsonrpc.Connection) {
			c := jsonrpc.NewConn(conn, jsonrpc.Options{Handler: jsonrpc.HandlerFunc(
				func(ctx context.Context, req *jsonrpc.Request) (any, error) { return struct{}{}, nil })})
			<-c.Done()
		}, &HTTPOptions{MaxMessageSize: 1 << 12})
		defer h.Close()
		req := httptest.NewRequest(http.MethodPost, "/mcp", bytes.NewReader(body))
		req.Method = method
		for k, v := range map[string]string{"Content-Type": contentType, "Accept": accept, HeaderSessionID: session,
			HeaderProtocolVersion: version, "Origin": origin} {
			if v != "" {
				req.Header.Set(k, v)
			}
		}
		req.Host = host
		ctx, cancel := context.WithTimeout(req.Context(), 200*time.Millisecond)
		defer cancel()
		rec := httptest.NewRecorder()
		done := make(chan struct{})
		go func() {
			defer close(done)
			h.ServeHTTP(rec, req.WithContext(ctx))
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s with a %d-byte body: no answer 5 s after the request's deadline", method, len(body))
		}
		if rec.Code < 100 || rec.Code > 599 {
			t.Fatalf("status %d", rec.Code)
		}
		if rec.Code >= 400 && rec.Body.Len() > 1<<12 {
			t.Fatalf("an error answer of %d bytes", rec.Body.Len())
		}
	})
}

// validMethod reports whether m is an HTTP method token that net/http would pass on.
func validMethod(m string) bool {
	if m == "" {
		return false
	}
	for _, c := range []byte(m) {
		if c <= ' ' || c >= 0x7f || bytes.IndexByte([]byte(`()<>@,;:\"/[]?={}`), c) >= 0 {
			return false
		}
	}
	return true
}
