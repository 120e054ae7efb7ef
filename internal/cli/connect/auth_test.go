package connect_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/auth"
	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/oauthtest"
	"github.com/mcpi-dev/mcpi/mcp"
)

// A first login that takes far longer than the server/discover probe is given still
// ends in a session of the server's own era: the login happens before the session
// starts, on a request of its own, and the session's first request already carries
// the token.
func TestSlowLogin(t *testing.T) {
	const probe, login = 100 * time.Millisecond, time.Second
	for _, era := range []struct {
		name    string
		legacy  bool
		version string
	}{
		{"2025-11-25", true, mcp.LatestProtocolVersion},
		{"2026-07-28 (and 2025-11-25)", false, mcp.ProtocolVersion20260728},
	} {
		t.Run(era.name, func(t *testing.T) {
			srv := demo.New(&demo.Options{SideEffectDir: t.TempDir(), Legacy: era.legacy})
			t.Cleanup(srv.Close)
			p := oauthtest.Protect(t, srv.HTTPHandler(nil), nil)
			var opened atomic.Int32
			sel := &connect.Selection{URL: p.URL}
			sel.Auth.Store = &auth.MemoryStore{}
			sel.Auth.Show = func(_ context.Context, server, u string) error {
				opened.Add(1)
				go func() {
					time.Sleep(login) // the user reads the page, and approves
					if resp, err := http.Get(u); err == nil {
						resp.Body.Close()
					}
				}()
				return nil
			}
			ctx := testContext(t)
			start := time.Now()
			sess, err := sel.Connect(ctx, &client.Options{ProbeTimeout: probe})
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			if took := time.Since(start); took < login || sess.ProtocolVersion() != era.version || opened.Load() != 1 {
				t.Fatalf("protocol %s after %v, browser opened %d times; want %s after the login", sess.ProtocolVersion(), took, opened.Load(), era.version)
			}
			if _, err := sess.ListTools(ctx, nil); err != nil {
				t.Fatal(err)
			}
			seen := p.Guard.Seen()
			for i, h := range seen {
				if (i == 0) != (h == "") {
					t.Fatalf("authorization headers %q: want only the first request (the ping) without a token", seen)
				}
			}

			// With the token stored, nothing is asked first.
			n := len(p.Guard.Seen())
			sess2, err := sel.Connect(ctx, &client.Options{ProbeTimeout: probe})
			if err != nil {
				t.Fatal(err)
			}
			sess2.Close()
			for _, h := range p.Guard.Seen()[n:] {
				if h == "" {
					t.Fatal("a request without the stored token")
				}
			}
		})
	}
}

// A server that wants no token and never answers server/discover costs the probe's
// time, not the login check's as well: the GET that asks whether it wants a token is
// answered at once, and sends no JSON-RPC message.
func TestNoLoginNoWait(t *testing.T) {
	srv := demo.New(&demo.Options{SideEffectDir: t.TempDir(), Legacy: true})
	t.Cleanup(srv.Close)
	h := srv.HTTPHandler(nil)
	var pings, gets atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.Header.Get("Mcp-Session-Id") == "" {
			gets.Add(1) // the login check's (the session's own stream names its session)
		}
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var m struct{ Method string }
		_ = json.Unmarshal(body, &m)
		switch m.Method {
		case mcp.MethodServerDiscover:
			<-r.Context().Done() // never answered
			return
		case "ping":
			pings.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	sel := &connect.Selection{URL: ts.URL}
	sel.Auth.Store = &auth.MemoryStore{}
	const probe = 300 * time.Millisecond
	start := time.Now()
	sess, err := sel.Connect(testContext(t), &client.Options{ProbeTimeout: probe})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	// The login check's bound (5 s) would show; a few round trips beside the probe do not.
	if took := time.Since(start); took > probe+3*time.Second || sess.ProtocolVersion() != mcp.LatestProtocolVersion || pings.Load() != 0 || gets.Load() != 1 {
		t.Errorf("protocol %s after %v with %d pings and %d GETs; want %s after about %v, with one GET", sess.ProtocolVersion(), took, pings.Load(), gets.Load(), mcp.LatestProtocolVersion, probe)
	}
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// eras is an era memory in a map.
type eras struct {
	mu      sync.Mutex
	m       map[string]string
	guessed map[string]bool
}

func (e *eras) Lookup(server string) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.m[server]
}

func (e *eras) Remember(server, version string, guessed bool) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.m == nil {
		e.m, e.guessed = map[string]string{}, map[string]bool{}
	}
	e.m[server], e.guessed[server] = version, guessed
	return nil
}

// A stored token the server refuses, whose refresh the authorization server refuses
// too, takes the user to the browser while connecting; that login has its own time, not
// the server/discover probe's: the session is of the server's era after a login that
// outlasts the probe, and the era remembered stays.
func TestSlowLoginWithRevokedToken(t *testing.T) {
	const probe, login = 100 * time.Millisecond, time.Second
	srv := demo.New(&demo.Options{SideEffectDir: t.TempDir()})
	t.Cleanup(srv.Close)
	p := oauthtest.Protect(t, srv.HTTPHandler(nil), nil)
	var opened atomic.Int32
	var delay atomic.Int64
	mem := &eras{}
	sel := &connect.Selection{URL: p.URL, Eras: mem}
	sel.Auth.Store = &auth.MemoryStore{}
	sel.Auth.Show = func(_ context.Context, server, u string) error {
		opened.Add(1)
		go func() {
			time.Sleep(time.Duration(delay.Load())) // the user reads the page, and approves
			if resp, err := http.Get(u); err == nil {
				resp.Body.Close()
			}
		}()
		return nil
	}
	ctx := testContext(t)
	sess, err := sel.Connect(ctx, &client.Options{ProbeTimeout: probe})
	if err != nil {
		t.Fatal(err)
	}
	sess.Close()
	key := sel.Eras.(*eras)
	before := fmt.Sprint(key.m)
	if sess.ProtocolVersion() != mcp.ProtocolVersion20260728 || opened.Load() != 1 {
		t.Fatalf("first login: protocol %s, browser opened %d times", sess.ProtocolVersion(), opened.Load())
	}

	p.AS.RevokeAll()
	delay.Store(int64(login))
	start := time.Now()
	sess, err = sel.Connect(ctx, &client.Options{ProbeTimeout: probe})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if took := time.Since(start); took < login || sess.ProtocolVersion() != mcp.ProtocolVersion20260728 || opened.Load() != 2 {
		t.Fatalf("protocol %s after %v, browser opened %d times; want %s after the second login", sess.ProtocolVersion(), took, opened.Load(), mcp.ProtocolVersion20260728)
	}
	if after := fmt.Sprint(key.m); after != before {
		t.Errorf("eras remembered %s, then %s; want them unchanged", before, after)
	}
	if _, err := sess.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
}

// A login nobody finishes while connecting, with a token the server refuses, ends after
// the login's own time with the login's failure, not the initialization's.
func TestUnfinishedLoginWithRevokedToken(t *testing.T) {
	srv := demo.New(&demo.Options{SideEffectDir: t.TempDir()})
	t.Cleanup(srv.Close)
	p := oauthtest.Protect(t, srv.HTTPHandler(nil), nil)
	var finish atomic.Bool
	finish.Store(true)
	sel := &connect.Selection{URL: p.URL, InitTimeout: 200 * time.Millisecond}
	sel.Auth.Store = &auth.MemoryStore{}
	sel.Auth.AuthorizeTimeout = 600 * time.Millisecond
	sel.Auth.Show = func(_ context.Context, server, u string) error {
		if finish.Load() {
			go func() {
				if resp, err := http.Get(u); err == nil {
					resp.Body.Close()
				}
			}()
		}
		return nil
	}
	ctx := testContext(t)
	sess, err := sel.Connect(ctx, &client.Options{ProbeTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	sess.Close()
	p.AS.RevokeAll()
	finish.Store(false)
	_, err = sel.Connect(ctx, &client.Options{ProbeTimeout: 100 * time.Millisecond})
	if _, ok := errors.AsType[*auth.TimeoutError](err); !ok {
		t.Fatalf("connecting: %v; want the login's timeout", err)
	}
}
