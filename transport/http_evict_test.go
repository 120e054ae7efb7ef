package transport

import (
	"context"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
)

// TestHTTPServerHeldSessionOutlivesIdleTimeout: a session held by its server (a task of
// its running, see HTTPServerConn.Hold) does not expire while held, however long its
// client stays away; once released, it expires SessionTimeout later. (A client that
// detached from a task of an hour and came back after 10 minutes found it cancelled with
// its session.)
func TestHTTPServerHeldSessionOutlivesIdleTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBubble(t, nil, &HTTPOptions{SessionTimeout: time.Minute})
		sid := b.init(t)
		release := b.conn(0).Hold()
		time.Sleep(time.Hour)
		synctest.Wait()
		if got := b.ping(sid); got != http.StatusOK {
			t.Fatalf("a held session after an hour without requests: HTTP %d, want it still there", got)
		}
		time.Sleep(time.Hour)
		release()
		release() // a second release changes nothing
		time.Sleep(time.Minute - time.Second)
		synctest.Wait()
		if n := b.SessionCount(); n != 1 {
			t.Fatal("the session expired before SessionTimeout after its release")
		}
		time.Sleep(2 * time.Second)
		synctest.Wait()
		if n := b.SessionCount(); n != 0 {
			t.Errorf("%d sessions SessionTimeout after the release, want the session expired", n)
		}
	})
}

// TestHTTPServerEvictsHeldSessionsLast: at MaxSessions a new session takes the place of
// the least recently active session that nobody holds, even a more recent one, and of a
// held one only when every session is held, so that held sessions cannot lock new
// clients out either. (Anyone's initialize requests evicted the oldest session, its
// running tasks and all.)
func TestHTTPServerEvictsHeldSessionsLast(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBubble(t, nil, &HTTPOptions{MaxSessions: 2})
		a := b.init(t)
		b.conn(0).Hold()
		time.Sleep(time.Second)
		c := b.init(t)
		time.Sleep(time.Second)
		d := b.init(t) // evicts c, not the older but held a
		synctest.Wait()
		if b.ping(c) != http.StatusNotFound || b.ping(a) != http.StatusOK {
			t.Fatal("the session evicted is not the one nobody holds")
		}
		b.conn(2).Hold()
		time.Sleep(time.Second)
		b.ping(a) // a becomes the more recently active
		time.Sleep(time.Second)
		e := b.init(t) // every session held: evicts d, the least recently active
		synctest.Wait()
		if b.ping(d) != http.StatusNotFound || b.ping(a) != http.StatusOK || b.ping(e) != http.StatusOK {
			t.Error("with every session held, the least recently active one is not the one evicted")
		}
	})
}

// TestHTTPServerOpenGETDoesNotLockOut: a session whose client keeps a GET stream open and
// sends nothing can be evicted for a new session (least recently requested first), its
// stream ended. (256 sessions each with a GET stream never read refused every new client
// with 503 for ever.)
func TestHTTPServerOpenGETDoesNotLockOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBubble(t, nil, &HTTPOptions{MaxSessions: 2})
		a := b.init(t)
		time.Sleep(time.Second)
		c := b.init(t)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		getA, getC := make(chan struct{}), make(chan struct{})
		go func() { b.do(ctx, http.MethodGet, "", a, nil); close(getA) }()
		go func() { b.do(ctx, http.MethodGet, "", c, nil); close(getC) }()
		synctest.Wait()
		time.Sleep(time.Second)
		w := b.do(context.Background(), http.MethodPost, initBody, "", nil)
		if w.Code != http.StatusOK {
			t.Fatalf("initialize with every session holding a GET stream: HTTP %d %s, want a session", w.Code, w.Body)
		}
		synctest.Wait()
		if !returned(getA) {
			t.Error("the GET stream of the evicted session is still open")
		}
		if returned(getC) || b.ping(c) != http.StatusOK || b.ping(a) != http.StatusNotFound {
			t.Error("the session evicted is not the least recently requested one")
		}
	})
}

// TestHTTPServerQuietBusySessionsEvictable: a session whose POST never ends (a call
// waiting for an answer its client never sends) and whose client has sent nothing for
// SessionTimeout can be evicted for a new session once no idle session is left, the
// least recently requested first; its POST ends with it. A session whose client sent a
// request more recently stays, and so does every busy one before SessionTimeout. (Such
// sessions, MaxSessions of them, refused every new client with 503 for ever.)
func TestHTTPServerQuietBusySessionsEvictable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		defer close(release)
		b := newBubble(t, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			if req.Method == "block" {
				select {
				case <-release:
				case <-ctx.Done():
				}
			}
			return map[string]bool{"ok": true}, nil
		}, &HTTPOptions{MaxSessions: 2, SessionTimeout: time.Minute})
		a := b.init(t)
		c := b.init(t)
		block := func(sid string) chan struct{} {
			done := make(chan struct{})
			go func() {
				defer close(done)
				b.do(context.Background(), http.MethodPost, `{"jsonrpc":"2.0","id":7,"method":"block"}`, sid, nil)
			}()
			return done
		}
		blockA, blockC := block(a), block(c)
		synctest.Wait()
		time.Sleep(time.Minute - time.Second)
		if w := b.do(context.Background(), http.MethodPost, initBody, "", nil); w.Code != http.StatusServiceUnavailable {
			t.Fatalf("initialize with every session busy for less than SessionTimeout: HTTP %d, want 503", w.Code)
		}
		if b.ping(c) != http.StatusOK { // c's client is still there
			t.Fatal("ping c")
		}
		time.Sleep(2 * time.Second)
		w := b.do(context.Background(), http.MethodPost, initBody, "", nil)
		if w.Code != http.StatusOK {
			t.Fatalf("initialize with a session busy and quiet for SessionTimeout: HTTP %d %s, want a session", w.Code, w.Body)
		}
		synctest.Wait()
		if !returned(blockA) {
			t.Error("the POST of the evicted session still waits")
		}
		if returned(blockC) || b.ping(c) != http.StatusOK || b.ping(a) != http.StatusNotFound {
			t.Error("the session evicted is not the quiet one")
		}
	})
}
