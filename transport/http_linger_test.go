package transport

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpi-dev/mcpi/jsonrpc"
)

// Answers written before their POSTs begin to deliver them (a burst of quick answers on a
// busy machine: the request reached the server's code, which answered, before the HTTP
// handler that read it went on) all arrive, however many: they are on their way, not
// left behind by a client that went away, and are not among the lingering streams
// forgotten past maxLingeringStreams. (Before, the oldest beyond 64 lost their events:
// their streams ended without an answer, and the client waited on them.)
func TestAnswersBeforeDeliveryAreKept(t *testing.T) {
	h := NewHTTPHandler(func(ctx context.Context, conn jsonrpc.Connection) { <-ctx.Done() }, nil)
	t.Cleanup(func() { h.Close() })
	init := &jsonrpc.Request{ID: jsonrpc.Int64ID(0), Method: "initialize", Params: json.RawMessage(`{"protocolVersion":"2025-11-25"}`)}
	s := h.newSession(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/", nil), init)
	if s == nil {
		t.Fatal("no session")
	}
	const n = 3 * maxLingeringStreams
	type pending struct {
		st   *serverStream
		kick chan struct{}
	}
	var ps []pending
	for i := range n {
		st, kick, status, msg := s.openRequestStream(&jsonrpc.Request{ID: jsonrpc.Int64ID(int64(i + 1)), Method: "work"})
		if st == nil {
			t.Fatalf("request %d refused: %d %s", i+1, status, msg)
		}
		ps = append(ps, pending{st, kick})
	}
	for i := range n {
		if err := s.Write(context.Background(), &jsonrpc.Response{ID: jsonrpc.Int64ID(int64(i + 1)), Result: json.RawMessage(`{"n":` + jsonrpc.Int64ID(int64(i+1)).String() + `}`)}); err != nil {
			t.Fatal(err)
		}
	}
	lost := 0
	for i, p := range ps {
		w := httptest.NewRecorder()
		r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		s.deliver(w, r, p.st, 0, p.kick)
		if !strings.Contains(w.Body.String(), `"result":{"n":`+jsonrpc.Int64ID(int64(i+1)).String()+`}`) {
			lost++
		}
	}
	if lost > 0 {
		t.Fatalf("%d of %d answers written before their delivery did not arrive", lost, n)
	}
}
