package transport

import (
	"net/http"
	"strings"
	"testing"

	"github.com/mcpi-dev/mcpi/jsonrpc"
)

// TestSSEHugeRetry: a retry field of any size is read without overflow and bounded by
// maxReconnectDelay, so that a dropped stream is resumed within it rather than after the
// 24 days that "retry: 2147483647" asked for (larger values were ignored).
func TestSSEHugeRetry(t *testing.T) {
	for _, retry := range []string{"2147483647", "9000000000000", "99999999999999999999999"} {
		t.Run(retry, func(t *testing.T) {
			r := newSSEReader(strings.NewReader("retry: 500\n\nretry: "+retry+"\n\n"), 0)
			if _, err := r.Next(); err == nil {
				t.Fatal("an event without data or id was dispatched")
			}
			if r.Retry != maxReconnectDelay {
				t.Errorf("retry %s read as %v, want the bound %v", retry, r.Retry, maxReconnectDelay)
			}

			fs := newFakeServer(t, func(w http.ResponseWriter, req *jsonrpc.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				sseWrite(w, "id: p-1\nretry: "+retry+"\ndata: \n\n")
			}, func(w http.ResponseWriter, r *http.Request, n int) {
				switch r.Header.Get("Last-Event-ID") {
				case "": // the standalone stream: offer none
					w.WriteHeader(http.StatusMethodNotAllowed)
				default:
					w.Header().Set("Content-Type", "text/event-stream")
					sseWrite(w, "id: p-2\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n\n")
				}
			})
			rs := &recordSleep{}
			c, _ := dial(t, &HTTPClient{URL: fs.URL, sleep: rs.sleep}, nil)
			if err := c.Call(callCtx(t), "tools/call", nil, nil); err != nil {
				t.Fatal(err)
			}
			if d := rs.get(); len(d) != 1 || d[0] <= 0 || d[0] > maxReconnectDelay {
				t.Fatalf("reconnection delays %v, want one within %v", d, maxReconnectDelay)
			}
		})
	}
}
