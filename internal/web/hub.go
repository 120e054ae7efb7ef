package web

import (
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// event is one message of the page's event stream. Every event about a connection names
// it; Seq orders them, so the page can drop what its snapshot already holds.
type event struct {
	Type string `json:"type"`
	Conn string `json:"conn,omitempty"`
	Seq  uint64 `json:"seq"`
	Data any    `json:"data"`
}

// Event types.
const (
	evSnapshot = "snapshot" // everything, first on every stream
	evConn     = "conn"     // a connection's state
	evTools    = "tools"    // the server's tools, listed
	evTask     = "task"     // a task row, whole
	evRequest  = "request"  // a server request waiting for the user, or settled
	evMessage  = "message"  // one JSON-RPC message, either way
	evResource = "resource" // a subscribed resource changed
	evList     = "list"     // the server's tools, prompts or resources changed
	evProgress = "progress" // a plain call's progress (a task's is on its row)
)

// hub fans events out to the page's event streams. A stream that falls behind by more
// than streamBuffer events, or streamBytes of them, is ended: the page reconnects and
// starts from a snapshot, so a slow tab never holds the sessions up, never holds more
// than that of a server's large requests, tool lists and results, and never shows a
// state with holes.
type hub struct {
	mu     sync.Mutex
	subs   map[chan []byte]*atomic.Int64 // the bytes queued on each stream
	seq    uint64
	closed bool
	done   chan struct{}
}

const (
	streamBuffer = 8192
	streamBytes  = 64 << 20
)

// reconnectMillis is the page's wait before it opens its event stream again (the SSE
// retry field).
const reconnectMillis = 200

func newHub() *hub { return &hub{subs: map[chan []byte]*atomic.Int64{}, done: make(chan struct{})} }

// publish encodes e (with the next sequence number) and queues it on every stream.
func (h *hub) publish(e event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	h.seq++
	e.Seq = h.seq
	b, err := json.Marshal(e)
	if err != nil {
		return
	}
	for ch, queued := range h.subs {
		// One event larger than the bound still goes to a stream that has caught up.
		if q := queued.Add(int64(len(b))); q > int64(len(b)) && q > streamBytes {
			delete(h.subs, ch)
			close(ch)
			continue
		}
		select {
		case ch <- b:
		default:
			delete(h.subs, ch)
			close(ch)
		}
	}
}

// subscribe returns a stream of encoded events and the sequence number of the last event
// published before it, for the snapshot.
func (h *hub) subscribe() (chan []byte, uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	ch := make(chan []byte, streamBuffer)
	if h.closed {
		close(ch)
		return ch, h.seq
	}
	h.subs[ch] = new(atomic.Int64)
	return ch, h.seq
}

// taken returns what the reader of stream ch calls with the size of each event it takes.
func (h *hub) taken(ch chan []byte) func(int) {
	h.mu.Lock()
	queued := h.subs[ch]
	h.mu.Unlock()
	if queued == nil { // ended already
		return func(int) {}
	}
	return func(n int) { queued.Add(-int64(n)) }
}

func (h *hub) unsubscribe(ch chan []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.subs[ch]; ok {
		delete(h.subs, ch)
		close(ch)
	}
}

func (h *hub) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	h.closed = true
	close(h.done)
	for ch := range h.subs {
		close(ch)
	}
	h.subs = nil
}

// keepAlive is how often an idle stream gets a comment, so that proxies and the browser
// keep it open.
const keepAlive = 15 * time.Second

// serveEvents streams events as server-sent events: the snapshot first, then each event
// as it comes. It ends when the page goes away, the stream falls behind, or the server
// closes.
func (s *Server) serveEvents(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming is not supported", http.StatusInternalServerError)
		return
	}
	ch, seq := s.hub.subscribe()
	defer s.hub.unsubscribe(ch)
	taken := s.hub.taken(ch)
	snap, err := json.Marshal(event{Type: evSnapshot, Seq: seq, Data: s.snapshot()})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	write := func(b []byte) bool {
		if _, err := w.Write([]byte("data: ")); err != nil {
			return false
		}
		if _, err := w.Write(b); err != nil {
			return false
		}
		if _, err := w.Write([]byte("\n\n")); err != nil {
			return false
		}
		return true
	}
	// A stream ended because the page fell behind is opened again at once, not after the
	// browser's default wait (3 s in Chromium).
	if _, err := w.Write([]byte("retry: " + strconv.Itoa(reconnectMillis) + "\n\n")); err != nil {
		return
	}
	if !write(snap) {
		return
	}
	fl.Flush()
	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-tick.C:
			if _, err := w.Write([]byte(": keep-alive\n\n")); err != nil {
				return
			}
			fl.Flush()
		case b, ok := <-ch:
			if !ok {
				return
			}
			taken(len(b))
			if !write(b) {
				return
			}
			// Whatever else is queued goes in the same flush.
			for n := len(ch); n > 0; n-- {
				if b, ok = <-ch; !ok {
					return
				}
				taken(len(b))
				if !write(b) {
					return
				}
			}
			fl.Flush()
		}
	}
}
