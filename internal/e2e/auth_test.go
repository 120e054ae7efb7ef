package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/auth"
	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/internal/oauthtest"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/transport"
)

// guardedDemo is the demo server over Streamable HTTP behind bearer-token checking, with
// its own authorization server: every MCP request needs a token issued for it with
// scope mcp:read, and tools/call mcp:tools as well. Its clock (the authorization
// server's and the guard's) is the test's.
type guardedDemo struct {
	*oauthtest.Protected
	as    *oauthtest.Server
	guard *oauthtest.Guard
	mux   *http.ServeMux
	url   string
}

func newGuardedDemo(t *testing.T, legacy bool, clock func() time.Time) *guardedDemo {
	t.Helper()
	srv := demo.New(&demo.Options{SideEffectDir: t.TempDir(), Legacy: legacy})
	p := oauthtest.Protect(t, srv.HTTPHandler(nil), func(p *oauthtest.Protected) {
		p.AS.Now, p.AS.ExpiresIn = clock, 10*time.Minute
		p.AS.ScopesSupported = []string{"mcp:read", "mcp:tools", "offline_access"}
		p.Guard.ScopesSupported = []string{"mcp:read"}
		p.Guard.Now = clock
		p.Guard.Required = func(method string) []string {
			if method == mcp.MethodToolsCall {
				return []string{"mcp:read", "mcp:tools"}
			}
			return []string{"mcp:read"}
		}
	})
	return &guardedDemo{Protected: p, as: p.AS, guard: p.Guard, mux: p.Mux, url: p.URL}
}

// playUser opens the authorization URL as a browser would, following the redirects to
// the flow's loopback listener; opened counts the times.
func playUser(opened *atomic.Int32) func(ctx context.Context, u string) error {
	return func(ctx context.Context, u string) error {
		opened.Add(1)
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("HTTP %d at %s", resp.StatusCode, resp.Request.URL)
		}
		return nil
	}
}

// TestAuthDemoServer: a session with the demo server behind OAuth, in both eras. The
// first request's 401 takes the user through the browser (the test plays it, through
// the loopback redirect); a call that needs more scope steps up; a token that expires
// is refreshed without the user; after logout the user is asked again; the tokens are
// never logged.
func TestAuthDemoServer(t *testing.T) {
	for _, era := range []struct {
		name    string
		legacy  bool
		version string
	}{
		{"2025-11-25", true, mcp.LatestProtocolVersion},
		{"2026-07-28", false, mcp.ProtocolVersion20260728},
	} {
		t.Run(era.name, func(t *testing.T) {
			ctx := testContext(t)
			var now atomic.Int64
			now.Store(time.Now().UnixNano())
			clock := func() time.Time { return time.Unix(0, now.Load()) }
			g := newGuardedDemo(t, era.legacy, clock)

			var opened atomic.Int32
			browser := &auth.Loopback{Open: playUser(&opened)}
			defer browser.Close()
			logs := &lockedBuffer{}
			logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			store := &auth.MemoryStore{}
			flow, err := auth.New(g.url, &auth.Config{Browser: browser, Store: store, Now: clock, Logger: logger})
			if err != nil {
				t.Fatal(err)
			}
			c := client.New(mcp.Implementation{Name: "auth-e2e", Version: "1"}, &client.Options{ProtocolVersion: era.version, Logger: logger})
			s, err := c.Connect(ctx, &transport.HTTPClient{URL: g.url, Auth: flow, Logger: logger})
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			defer s.Close()
			if _, err := s.ListTools(ctx, nil); err != nil {
				t.Fatalf("tools/list: %v", err)
			}
			if opened.Load() != 1 {
				t.Fatalf("the browser opened %d times for the login, want 1", opened.Load())
			}
			rec, _ := flow.Record(ctx)
			if rec == nil || rec.Scope != "mcp:read offline_access" || rec.Resource != g.url || rec.Issuer != g.as.Issuer {
				t.Fatalf("after login: %+v", rec)
			}

			// Step-up: tools/call needs mcp:tools, which the first token lacks.
			add := func() {
				t.Helper()
				res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: demo.ToolAdd, Arguments: json.RawMessage(`{"a":2,"b":3}`)}, nil)
				if err != nil {
					t.Fatalf("tools/call: %v", err)
				}
				if res.IsError || len(res.Content) == 0 || !strings.Contains(res.Content[0].Text, "5") {
					t.Fatalf("add answered %+v", res)
				}
			}
			add()
			_, auths, _ := g.as.Snapshot()
			if opened.Load() != 2 || len(auths) != 2 || auths[1].Get("scope") != "mcp:read offline_access mcp:tools" {
				t.Fatalf("step-up: browser opened %d times, authorization requests %v", opened.Load(), auths)
			}

			// Refresh: past the token's expiry, the next request refreshes it first.
			now.Add(int64(11 * time.Minute))
			add()
			_, _, tokens := g.as.Snapshot()
			last := tokens[len(tokens)-1]
			if opened.Load() != 2 || last.Get("grant_type") != "refresh_token" || last.Get("resource") != g.url {
				t.Fatalf("refresh: browser opened %d times, last token request %v", opened.Load(), last)
			}

			// Logout: the tokens are gone, and the next request needs the user again.
			if err := flow.Logout(ctx); err != nil {
				t.Fatal(err)
			}
			if r, _ := store.Load(ctx, flow.Server()); r != nil {
				t.Fatal("the store still holds the tokens after logout")
			}
			if _, err := s.ListTools(ctx, nil); err != nil {
				t.Fatalf("tools/list after logout: %v", err)
			}
			if opened.Load() != 3 {
				t.Fatalf("after logout the browser opened %d times in all, want 3", opened.Load())
			}

			out := logs.String()
			if !strings.Contains(out, "obtained a token") {
				t.Fatal("the flow logged nothing (is the test's logger wired?)")
			}
			for _, h := range g.guard.Seen() {
				if tok, ok := strings.CutPrefix(h, "Bearer "); ok && strings.Contains(out, tok) {
					t.Fatalf("a token is in the log")
				}
			}
			for _, tr := range tokens {
				if rt := tr.Get("refresh_token"); rt != "" && strings.Contains(out, rt) {
					t.Fatalf("a refresh token is in the log")
				}
			}
		})
	}
}

// lockedBuffer is a log sink that goroutines may share.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestAuthTokenStaysHome: a request that a server redirects to another origin carries
// no token there, though the HTTP client follows every redirect; nor does the flow run
// for that origin's 401.
func TestAuthTokenStaysHome(t *testing.T) {
	ctx := testContext(t)
	home := newGuardedDemo(t, false, time.Now)
	away := newGuardedDemo(t, false, time.Now)
	home.mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, away.url, http.StatusTemporaryRedirect)
	})
	var opened atomic.Int32
	browser := &auth.Loopback{Open: playUser(&opened)}
	defer browser.Close()
	flow, err := auth.New(home.url, &auth.Config{Browser: browser})
	if err != nil {
		t.Fatal(err)
	}
	c := client.New(mcp.Implementation{Name: "auth-e2e", Version: "1"}, &client.Options{ProtocolVersion: mcp.ProtocolVersion20260728})
	s, err := c.Connect(ctx, &transport.HTTPClient{URL: home.url, Auth: flow})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}

	followAll := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return nil }}
	moved := strings.TrimSuffix(home.url, "/mcp") + "/moved"
	_, err = c.Connect(ctx, &transport.HTTPClient{URL: moved, Auth: flow, Client: followAll})
	var herr *transport.HTTPError
	if !errors.As(err, &herr) || herr.StatusCode != http.StatusUnauthorized {
		t.Fatalf("connecting through the redirect: %v, want the other origin's 401", err)
	}
	for _, h := range away.guard.Seen() {
		if h != "" {
			t.Fatalf("the other origin saw Authorization %q", h)
		}
	}
	if len(away.guard.Seen()) == 0 {
		t.Fatal("the redirect was not followed")
	}
	if _, auths, _ := away.as.Snapshot(); len(auths) != 0 || opened.Load() != 1 {
		t.Errorf("the flow ran for the other origin (%d authorizations there, browser opened %d times)", len(auths), opened.Load())
	}
	if !slices.ContainsFunc(home.guard.Seen(), func(h string) bool { return strings.HasPrefix(h, "Bearer ") }) {
		t.Error("home never saw the token")
	}
}
