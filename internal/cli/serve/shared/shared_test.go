package shared

import (
	"context"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/transport"
)

func TestListenAddr(t *testing.T) {
	tests := []struct {
		in, addr string
		hosts    []string
		warn     bool
	}{
		{"8080", "127.0.0.1:8080", nil, false},
		{":8080", "127.0.0.1:8080", nil, false},
		{"127.0.0.1:0", "127.0.0.1:0", nil, false},
		{"localhost:3001", "localhost:3001", nil, false},
		{"[::1]:3001", "[::1]:3001", nil, false},
		// Every interface: the localhost names, then this machine's own (issue 12: no
		// longer "*", which let DNS-rebinding names through).
		{"0.0.0.0:3001", "0.0.0.0:3001", []string{"localhost", "127.0.0.1", "::1"}, true},
		{"10.1.2.3:3001", "10.1.2.3:3001", []string{"localhost", "127.0.0.1", "::1", "10.1.2.3"}, false},
	}
	for _, tt := range tests {
		addr, opts, warn, err := ListenAddr(tt.in)
		hosts := opts.AllowedHosts
		if tt.warn && len(hosts) >= len(tt.hosts) {
			hosts = hosts[:len(tt.hosts)]
		}
		if err != nil || addr != tt.addr || !reflect.DeepEqual(hosts, tt.hosts) || (warn != "") != tt.warn || slices.Contains(opts.AllowedHosts, "*") {
			t.Errorf("ListenAddr(%q) = %q, %v, %q, %v", tt.in, addr, opts.AllowedHosts, warn, err)
		}
	}
	if _, _, _, err := ListenAddr("nonsense"); err == nil {
		t.Error("ListenAddr(nonsense) succeeded")
	}
}

// initStatus is the HTTP status of an initialize with the given Host and Origin, to a
// server with opts.
func initStatus(t *testing.T, opts *transport.HTTPOptions, host, origin string) int {
	t.Helper()
	srv := server.New(mcp.Implementation{Name: "t", Version: "1"}, nil)
	defer srv.Close()
	h := srv.HTTPHandler(opts)
	defer h.Close()
	r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
	r.Host = host
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	if origin != "" {
		r.Header.Set("Origin", origin)
	}
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r.WithContext(ctx))
	return w.Code
}

// TestOriginCheckedOnEveryAddress: listening on every interface keeps the Origin check
// (only the server's own origin) and a Host check that a DNS-rebinding name fails; on
// loopback another local port is another origin.
func TestOriginCheckedOnEveryAddress(t *testing.T) {
	for _, tt := range []struct {
		listen, host, origin string
		status               int
	}{
		{"0.0.0.0:3001", "localhost:3001", "", http.StatusOK},
		{"0.0.0.0:3001", "127.0.0.1:3001", "http://127.0.0.1:3001", http.StatusOK},
		{"0.0.0.0:3001", "localhost:3001", "http://evil.example.com", http.StatusForbidden},
		{"0.0.0.0:3001", "evil.example.com:3001", "http://evil.example.com:3001", http.StatusForbidden}, // DNS rebinding
		{"[::]:3001", "evil.example.com:3001", "", http.StatusForbidden},
		{"127.0.0.1:3001", "127.0.0.1:3001", "http://127.0.0.1:3001", http.StatusOK},
		{"127.0.0.1:3001", "127.0.0.1:3001", "http://localhost:5173", http.StatusForbidden},
	} {
		_, opts, _, err := ListenAddr(tt.listen)
		if err != nil {
			t.Fatal(err)
		}
		if got := initStatus(t, opts, tt.host, tt.origin); got != tt.status {
			t.Errorf("--http %s, Host %q, Origin %q: HTTP %d, want %d", tt.listen, tt.host, tt.origin, got, tt.status)
		}
	}
}

// TestHTTPFlags: --allow-host and --allow-origin add to what is accepted, and the limits
// reach the transport (0 for no bound).
func TestHTTPFlags(t *testing.T) {
	f := &HTTPFlags{Addr: "127.0.0.1:3001", AllowHosts: []string{"mcp.example.com"},
		AllowOrigins: []string{"http://localhost:5173"}, MaxSessions: 3, SessionTimeout: 0}
	_, opts, _, err := f.HTTPOptions()
	if err != nil {
		t.Fatal(err)
	}
	if opts.MaxSessions != 3 || opts.SessionTimeout >= 0 {
		t.Errorf("MaxSessions %d, SessionTimeout %v; want 3 and no timeout (negative)", opts.MaxSessions, opts.SessionTimeout)
	}
	for _, tt := range []struct {
		host, origin string
		status       int
	}{
		{"127.0.0.1:3001", "", http.StatusOK},
		{"mcp.example.com:3001", "", http.StatusOK},
		{"127.0.0.1:3001", "http://localhost:5173", http.StatusOK},
		{"127.0.0.1:3001", "http://localhost:5174", http.StatusForbidden},
		{"evil.example.com:3001", "", http.StatusForbidden},
	} {
		if got := initStatus(t, opts, tt.host, tt.origin); got != tt.status {
			t.Errorf("Host %q, Origin %q: HTTP %d, want %d", tt.host, tt.origin, got, tt.status)
		}
	}
}

// TestHTTPServerTimeouts: slow requests and idle keep-alive connections are cut, SSE
// streams (long responses) are not.
func TestHTTPServerTimeouts(t *testing.T) {
	hs := NewHTTPServer(http.NotFoundHandler())
	if hs.ReadHeaderTimeout <= 0 || hs.ReadTimeout <= 0 || hs.IdleTimeout <= 0 {
		t.Errorf("ReadHeaderTimeout %v, ReadTimeout %v, IdleTimeout %v: want all set", hs.ReadHeaderTimeout, hs.ReadTimeout, hs.IdleTimeout)
	}
	if hs.WriteTimeout != 0 {
		t.Errorf("WriteTimeout %v would cut SSE streams", hs.WriteTimeout)
	}
}

// TestMaxSessionsHelp: --max-sessions's help says which session a new one replaces, that
// one with a request still in progress may go too once its client has been quiet for
// --session-timeout (the request ending with it), and when the new one is refused.
func TestMaxSessionsHelp(t *testing.T) {
	fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	(&HTTPFlags{}).Register(fs)
	want := "with --http, keep at most N sessions: a new one replaces, of those with no request in progress, the one " +
		"least recently sent a request, an open GET stream or not; else one with a request still in progress whose " +
		"client has sent nothing for --session-timeout, that request ended with it; with neither, the new one is " +
		"refused with 503 (0: no bound)"
	name, usage := pflag.UnquoteUsage(fs.Lookup("max-sessions"))
	if got := strings.ReplaceAll(usage, "`", ""); name != "N" || got != want {
		t.Errorf("--max-sessions %s: %s\nwant N: %s", name, got, want)
	}
}
