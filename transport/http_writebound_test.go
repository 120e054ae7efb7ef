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

// postUnread sends request body to session sid from a client that reads the priming
// event and nothing more, and stays until ctx ends.
func (b *bubble) postUnread(ctx context.Context, sid, body string) (*unreadWriter, chan struct{}) {
	r := httptest.NewRequestWithContext(ctx, http.MethodPost, "http://localhost/mcp", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	r.Header.Set(HeaderSessionID, sid)
	return serveUnread(b, r, 512)
}

// TestUnreadPostStreamsWithinRetainedBytes: a client that sends calls and reads none of
// their answers, staying connected, does not make the session keep more than
// MaxRetainedBytes: each answer beyond the bound makes room by dropping the older ones
// still being written (the newest goes on), replaced by the short error that says so,
// and their writes are given a few seconds, not 30. A client that resumes such a call
// learns what became of it. (Each answer on its way to a connected client stayed whole:
// 60 answers of 4 MB kept 240 MB and more.)
func TestUnreadPostStreamsWithinRetainedBytes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const limit, size, calls = 64 << 10, 16 << 10, 10
		big := strings.Repeat("x", size)
		b := newBubble(t, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			return map[string]string{"x": big}, nil
		}, &HTTPOptions{MaxRetainedBytes: limit})
		sid := b.init(t)
		s := b.conn(0)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var ws []*unreadWriter
		var dones []chan struct{}
		for i := range calls {
			w, done := b.postUnread(ctx, sid, `{"jsonrpc":"2.0","id":`+jsonrpc.Int64ID(int64(10+i)).String()+`,"method":"big"}`)
			ws, dones = append(ws, w), append(dones, done)
			synctest.Wait()
		}
		if n := retained(s); n > limit {
			t.Errorf("%d bytes retained for %d calls whose client reads nothing, want at most %d", n, calls, limit)
		}
		time.Sleep(stalledWriteGrace + time.Second)
		synctest.Wait()
		if !returned(dones[0]) {
			t.Fatal("the write of the oldest answer, dropped to make room, still waits")
		}
		w := b.do(context.Background(), http.MethodGet, "", sid, map[string]string{"Last-Event-ID": firstEventID(t, ws[0].Body.String())})
		if r := lastResponse(t, w); r.ID.String() != "10" || r.Error == nil || r.Error.Code != jsonrpc.CodeInternalError ||
			!strings.Contains(r.Error.Message, "dropped its response to this request") {
			t.Errorf("resuming the oldest call: HTTP %d, id %v, error %v (%d bytes of result), want the error that says its response was dropped", w.Code, r.ID, r.Error, len(r.Result))
		}
		if returned(dones[calls-1]) {
			t.Error("the newest answer's write gave up before its 30 s")
		}
	})
}

// TestStalledStreamTrimmedWhenClientLeaves: a client that leaves while the answer it did
// not read was being written leaves the session within MaxRetainedBytes at once, the
// answer replaced by the short error that says so. (It stayed whole, past the bound,
// until the session's next message: 230 MB in one session.)
func TestStalledStreamTrimmedWhenClientLeaves(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const limit, size = 4 << 10, 16 << 10
		big := strings.Repeat("x", size)
		b := newBubble(t, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			return map[string]string{"x": big}, nil
		}, &HTTPOptions{MaxRetainedBytes: limit})
		sid := b.init(t)
		s := b.conn(0)
		ctx, cancel := context.WithCancel(context.Background())
		w, done := b.postUnread(ctx, sid, `{"jsonrpc":"2.0","id":2,"method":"big"}`)
		synctest.Wait()
		cancel()
		<-done
		synctest.Wait()
		if n := retained(s); n > limit {
			t.Errorf("%d bytes retained once the client left, want at most %d", n, limit)
		}
		g := b.do(context.Background(), http.MethodGet, "", sid, map[string]string{"Last-Event-ID": firstEventID(t, w.Body.String())})
		if r := lastResponse(t, g); r.ID.String() != "2" || r.Error == nil || !strings.Contains(r.Error.Message, "dropped its response") {
			t.Errorf("resuming the call: HTTP %d, id %v, error %v (%d bytes of result), want the error that says its response was dropped", g.Code, r.ID, r.Error, len(r.Result))
		}
	})
}

// TestDroppedAnswersWriteOneAtATime: of the answers dropped to keep a session within
// MaxRetainedBytes while their client reads none of them, at most one is still being
// written (given its few seconds): dropping another ends the earlier one's write at
// once, which let go of its bytes. (Each dropped answer's write held its bytes for 5 s
// more, so a handler that answered fast kept 5 s of answers beyond the bound.)
func TestDroppedAnswersWriteOneAtATime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const limit, size, calls = 64 << 10, 16 << 10, 10
		big := strings.Repeat("x", size)
		b := newBubble(t, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			return map[string]string{"x": big}, nil
		}, &HTTPOptions{MaxRetainedBytes: limit})
		sid := b.init(t)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var ws []*unreadWriter
		var dones []chan struct{}
		for i := range calls {
			w, done := b.postUnread(ctx, sid, `{"jsonrpc":"2.0","id":`+jsonrpc.Int64ID(int64(10+i)).String()+`,"method":"big"}`)
			ws, dones = append(ws, w), append(dones, done)
			synctest.Wait()
		}
		var writing []int
		for i, done := range dones {
			if !returned(done) {
				writing = append(writing, i)
			}
		}
		// The answers within the bound are still being written, and one dropped answer.
		if want := limit/size + 1; len(writing) > want {
			t.Errorf("calls %v still being written, want at most %d: the bound's worth and one dropped answer", writing, want)
		}
		if !returned(dones[0]) {
			t.Error("the write of the first answer dropped still waits once later ones were dropped")
		}
	})
}
