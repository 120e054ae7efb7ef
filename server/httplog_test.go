package server_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/transport"
)

// syncBuffer is a log destination that the handler's goroutines may share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// TestHTTPHandlerLogsToServerLogger: the transport's warnings (here, a request from a
// host it refuses) reach the server's logger when the HTTP options name none, and the
// HTTP options' own logger when they do.
func TestHTTPHandlerLogsToServerLogger(t *testing.T) {
	refused := func(h http.Handler) {
		r := httptest.NewRequest(http.MethodPost, "http://evil.example/mcp", strings.NewReader(`{}`))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusForbidden {
			t.Fatalf("a request for host evil.example: HTTP %d, want 403", w.Code)
		}
	}
	var serverLog, httpLog syncBuffer
	srv := server.New(mcp.Implementation{Name: "t", Version: "1"},
		&server.Options{Logger: slog.New(slog.NewTextHandler(&serverLog, nil))})
	t.Cleanup(srv.Close)

	refused(srv.HTTPHandler(nil))
	if got := serverLog.String(); !strings.Contains(got, "request refused") || !strings.Contains(got, "evil.example") {
		t.Errorf("the server's log: %q, want the transport's warning about host evil.example", got)
	}

	before := serverLog.String()
	refused(srv.HTTPHandler(&transport.HTTPOptions{Logger: slog.New(slog.NewTextHandler(&httpLog, nil))}))
	if !strings.Contains(httpLog.String(), "request refused") {
		t.Errorf("the HTTP options' log: %q, want the transport's warning", httpLog.String())
	}
	if serverLog.String() != before {
		t.Errorf("the server's log grew to %q, though the HTTP options named their own logger", serverLog.String())
	}
}
