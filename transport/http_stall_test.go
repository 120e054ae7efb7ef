package transport

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/mcpi-dev/mcpi/jsonrpc"
)

// stalledWriter is the response of a client that stops reading: the headers and the
// priming event go out, then every write waits until the request ends.
type stalledWriter struct {
	*httptest.ResponseRecorder
	ctx    context.Context
	writes int
}

func (w *stalledWriter) Write(p []byte) (int, error) {
	if w.writes++; w.writes > 1 {
		<-w.ctx.Done()
		return 0, w.ctx.Err()
	}
	return w.ResponseRecorder.Write(p)
}

func (w *stalledWriter) WriteString(s string) (int, error) { return w.Write([]byte(s)) }

// TestHTTPServerUnreadStreamWriteCostBounded: a client that opens its GET stream and
// stops reading keeps its undelivered events up to MaxRetainedBytes, and from then on
// every message written to the session makes room by dropping the oldest. Dropping one
// moved every event kept after it, so each write cost as much as the backlog (tens of
// thousands of small notifications in 4 MiB: 65 µs a write instead of 0.3 µs), and the
// writes are made under the task engine's announcement lock, which every client's task
// changes wait for. The events copied over many writes must stay a few per write.
func TestHTTPServerUnreadStreamWriteCostBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const limit = 256 << 10
		b := newBubble(t, nil, &HTTPOptions{MaxRetainedBytes: limit})
		sid := b.init(t)
		ctx, cancel := context.WithCancel(context.Background())
		held := make(chan struct{})
		go func() {
			defer close(held)
			r := httptest.NewRequestWithContext(ctx, http.MethodGet, "http://localhost/mcp", strings.NewReader(""))
			r.Header.Set("Accept", "text/event-stream")
			r.Header.Set(HeaderSessionID, sid)
			b.ServeHTTP(&stalledWriter{ResponseRecorder: httptest.NewRecorder(), ctx: ctx}, r)
		}()
		synctest.Wait()
		defer func() { cancel(); <-held }()

		s := b.conn(0)
		msg := &jsonrpc.Request{Method: "notifications/progress", Params: json.RawMessage(`{"progressToken":1,"progress":5}`)}
		write := func() {
			if err := s.Write(context.Background(), msg); err != nil {
				t.Fatal(err)
			}
		}
		// Fill the session to its bound: the first event is on its way (the stalled
		// write), the rest wait.
		for range limit / 40 {
			write()
		}
		synctest.Wait()
		// newest returns the address of the newest event kept, and how many are kept.
		newest := func() (*streamEvent, int) {
			s.mu.Lock()
			defer s.mu.Unlock()
			ev := s.standalone.events
			if s.standalone.owner == nil {
				t.Fatal("the GET stream is no longer held")
			}
			return &ev[len(ev)-1], len(ev)
		}
		const writes = 2000
		copied, backlog := 0, 0
		for range writes {
			last, n := newest()
			write()
			s.mu.Lock()
			ev := s.standalone.events
			// The event that was newest is now second newest: if it is not where it was,
			// the write moved every event it kept.
			if len(ev) < 2 || &ev[len(ev)-2] != last {
				copied += len(ev)
			}
			s.mu.Unlock()
			backlog = n
		}
		if backlog < 1000 {
			t.Fatalf("the stalled stream keeps %d events, want a backlog of over 1000 for the test to mean something", backlog)
		}
		if copied > 8*writes {
			t.Errorf("%d writes to a session whose client stopped reading copied %d events (%.0f a write, with %d kept), want a few a write",
				writes, copied, float64(copied)/writes, backlog)
		}
	})
}
