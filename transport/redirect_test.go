package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/mcpi-dev/mcpi/jsonrpc"
)

// headerRecorder is an MCP endpoint that answers initialize and records the headers of
// every request it gets.
type headerRecorder struct {
	mu   sync.Mutex
	seen []http.Header
}

func (h *headerRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.seen = append(h.seen, r.Header.Clone())
	h.mu.Unlock()
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	b, _ := io.ReadAll(r.Body)
	m, err := jsonrpc.DecodeMessage(b)
	req, ok := m.(*jsonrpc.Request)
	if err != nil || !ok || req.IsNotification() {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25"}}`, req.ID)
}

func (h *headerRecorder) requests() []http.Header {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]http.Header(nil), h.seen...)
}

// TestHTTPClientCrossOriginRedirect: a redirect to another origin is not followed (the
// user's headers, the session id and the message itself would go to a server the user
// did not name) and fails the request with a *RedirectError that names the target; a
// redirect within the origin is followed with every header.
func TestHTTPClientCrossOriginRedirect(t *testing.T) {
	other := &headerRecorder{}
	otherSrv := httptest.NewServer(other)
	defer otherSrv.Close()
	same := &headerRecorder{}
	mux := http.NewServeMux()
	mux.Handle("/mcp", same)
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/mcp", http.StatusPermanentRedirect)
	})
	mux.HandleFunc("/away", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, otherSrv.URL+"/mcp", http.StatusTemporaryRedirect)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	header := http.Header{"X-Api-Key": {"secret"}, "Authorization": {"Bearer secret"}, "X-Custom": {"c"}}

	for _, client := range []*http.Client{nil, {}} { // ours, and one of the caller's
		tr := &HTTPClient{URL: srv.URL + "/away", Header: header, Client: client}
		conn, err := tr.Connect(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		err = conn.Write(callCtx(t), &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "initialize"})
		var redirect *RedirectError
		if !errors.As(err, &redirect) || redirect.Location != otherSrv.URL+"/mcp" {
			t.Errorf("a redirect to another origin: %v, want a *RedirectError naming it", err)
		}
		conn.Close()
		if got := other.requests(); len(got) != 0 {
			t.Fatalf("the other origin got %d requests, the first with headers %v", len(got), got[0])
		}
		if client != nil && client.CheckRedirect != nil {
			t.Error("the caller's client was changed")
		}
	}

	// Within the origin, the redirect is followed with the headers.
	c, _ := dial(t, &HTTPClient{URL: srv.URL + "/moved", Header: header}, nil)
	if err := c.Call(callCtx(t), "ping", nil, nil); err != nil {
		t.Fatal(err)
	}
	for _, h := range same.requests() {
		if h.Get("X-Api-Key") != "secret" || h.Get("Authorization") != "Bearer secret" || h.Get("X-Custom") != "c" {
			t.Errorf("a request redirected within the origin lost headers: %v", h)
		}
	}
}
