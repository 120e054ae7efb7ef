package transport

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
)

// unreadWriter is the response of a client that stops reading once allow bytes have
// gone out (what its socket buffers take): every later write waits until the write
// deadline set through http.ResponseController passes, as a net.Conn's does (a deadline
// moved while a write waits applies to it), or the request ends.
type unreadWriter struct {
	*httptest.ResponseRecorder
	ctx   context.Context
	allow int

	mu       sync.Mutex
	deadline time.Time
	moved    chan struct{}
}

func newUnreadWriter(ctx context.Context, allow int) *unreadWriter {
	return &unreadWriter{ResponseRecorder: httptest.NewRecorder(), ctx: ctx, allow: allow, moved: make(chan struct{})}
}

func (w *unreadWriter) SetWriteDeadline(t time.Time) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.deadline = t
	close(w.moved)
	w.moved = make(chan struct{})
	return nil
}

func (w *unreadWriter) SetReadDeadline(time.Time) error { return nil }

func (w *unreadWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	if len(p) <= w.allow {
		w.allow -= len(p)
		w.mu.Unlock()
		return w.ResponseRecorder.Write(p)
	}
	w.mu.Unlock()
	for {
		w.mu.Lock()
		d, moved := w.deadline, w.moved
		w.mu.Unlock()
		var expired <-chan time.Time
		if !d.IsZero() {
			t := time.NewTimer(time.Until(d))
			defer t.Stop()
			expired = t.C
		}
		select {
		case <-w.ctx.Done():
			return 0, w.ctx.Err()
		case <-expired:
			return 0, os.ErrDeadlineExceeded
		case <-moved:
		}
	}
}

func (w *unreadWriter) WriteString(s string) (int, error) { return w.Write([]byte(s)) }

// serveUnread serves r to a client that reads nothing past allow bytes and stays
// connected; the channel is closed when ServeHTTP returns.
func serveUnread(h http.Handler, r *http.Request, allow int) (*unreadWriter, chan struct{}) {
	w := newUnreadWriter(r.Context(), allow)
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.ServeHTTP(w, r)
	}()
	return w, done
}

func returned(done chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// TestJSONAnswerToUnreadClientBounded: an answer sent as one JSON body to a client that
// reads nothing gives up after the bound every SSE write has, as one to a client that
// stopped reading should. It waited for ever: a stateless 2026-07-28 request held its
// MaxStatelessInFlight slot, and a session's tasks/get kept its session busy, never to
// expire.
func TestJSONAnswerToUnreadClientBounded(t *testing.T) {
	big := strings.Repeat("x", 64<<10)
	t.Run("stateless", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			h := NewHTTPHandler(func(ctx context.Context, conn jsonrpc.Connection) {
				c := jsonrpc.NewConn(conn, jsonrpc.Options{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
					return map[string]string{"x": big}, nil
				})})
				<-c.Done()
			}, &HTTPOptions{ModernProtocolVersions: DefaultModernProtocolVersions, MaxStatelessInFlight: 1})
			defer h.Close()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			_, done := serveUnread(h, statelessRequest(ctx, "http://localhost/mcp", "application/json, text/event-stream"), 0)
			synctest.Wait()
			time.Sleep(sseWriteTimeout + time.Second)
			synctest.Wait()
			if !returned(done) {
				t.Fatal("the answer to a client that reads nothing still waits after the write bound")
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, statelessRequest(context.Background(), "http://localhost/mcp", "application/json, text/event-stream"))
			if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), big) {
				t.Errorf("the next request: HTTP %d %.100q, want its answer (the slot free again)", w.Code, w.Body)
			}
		})
	})
	t.Run("session", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			b := newBubble(t, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
				return map[string]string{"x": big}, nil
			}, &HTTPOptions{SessionTimeout: time.Minute})
			sid := b.init(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			r := httptest.NewRequestWithContext(ctx, http.MethodPost, "http://localhost/mcp",
				strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"t"}}`))
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("Accept", "application/json, text/event-stream")
			r.Header.Set(HeaderSessionID, sid)
			_, done := serveUnread(b, r, 0)
			synctest.Wait()
			time.Sleep(sseWriteTimeout + time.Second)
			synctest.Wait()
			if !returned(done) {
				t.Fatal("the JSON answer to a client that reads nothing still waits after the write bound")
			}
			time.Sleep(time.Minute + time.Second)
			synctest.Wait()
			if n := b.SessionCount(); n != 0 {
				t.Errorf("%d sessions a minute after the unread answer gave up, want the session expired", n)
			}
		})
	})
}
