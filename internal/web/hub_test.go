package web

import (
	"encoding/json"
	"strings"
	"testing"
)

// A page that does not read its event stream while a server sends large things (requests
// of megabytes, tool lists, task rows) has its stream ended once about 64 MiB wait for
// it, not 8,192 events of any size: else one tab held gigabytes.
func TestStreamBoundedInBytes(t *testing.T) {
	h := newHub()
	defer h.close()
	ch, _ := h.subscribe()
	big := json.RawMessage(`"` + strings.Repeat("x", 1<<20) + `"`)
	for range 128 {
		h.publish(event{Type: evRequest, Conn: "c1", Data: big})
	}
	n, queued := 0, 0
	for b := range ch {
		n++
		queued += len(b)
		if n == 128 {
			t.Fatalf("the stream holds %d events, %d bytes, and goes on", n, queued)
		}
	}
	if queued > 64<<20 {
		t.Errorf("the stream held %d bytes before it was ended", queued)
	}
}
