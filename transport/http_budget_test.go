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

// TestHTTPServerMessageOverBudget: MaxRetainedBytes bounds what a session keeps for
// replay, not the size of a message. A response or a notification larger than the whole
// budget reaches a client that is connected and reading; a response larger than it whose
// client went away is replaced by a short JSON-RPC error for its request, which the
// client gets when it resumes the stream; and the smaller messages of the session stay
// resumable as before.
func TestHTTPServerMessageOverBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const limit, size = 4 << 10, 16 << 10
		big := strings.Repeat("x", size)
		gate := make(chan struct{})
		b := newBubble(t, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			switch req.Method {
			case "big":
				return map[string]string{"x": big}, nil
			case "bigLater":
				<-gate
				return map[string]string{"x": big}, nil
			}
			<-gate
			return map[string]string{"small": "yes"}, nil
		}, &HTTPOptions{MaxRetainedBytes: limit})
		sid := b.init(t)
		s := b.conn(0)

		// A connected client gets a response four times the budget.
		for i := range 3 {
			w := b.do(context.Background(), http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"big"}`, sid, nil)
			if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"id":2,"result":{"x":"`+big+`"}`) {
				t.Fatalf("call %d: HTTP %d, %d bytes, want the response of %d bytes", i, w.Code, w.Body.Len(), size)
			}
		}

		// A connected client reading the GET stream gets a notification that large too,
		// and the next one.
		ctx, cancel := context.WithCancel(context.Background())
		get := make(chan *httptest.ResponseRecorder)
		go func() { get <- b.do(ctx, http.MethodGet, "", sid, nil) }()
		synctest.Wait()
		for _, p := range []string{`{"big":"` + big + `"}`, `{"small":1}`} {
			if err := s.Write(context.Background(), &jsonrpc.Request{Method: "n", Params: json.RawMessage(p)}); err != nil {
				t.Fatal(err)
			}
		}
		synctest.Wait()
		cancel()
		if w := <-get; !strings.Contains(w.Body.String(), `"params":{"big":"`+big+`"}`) || !strings.Contains(w.Body.String(), `{"small":1}`) {
			t.Errorf("the GET stream carried %d bytes, without both notifications", w.Body.Len())
		}

		// Clients that go away after the priming event, before their responses: a
		// response over the budget, then a small one.
		away := func(body string) string {
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan *httptest.ResponseRecorder)
			go func() { done <- b.do(ctx, http.MethodPost, body, sid, nil) }()
			synctest.Wait()
			cancel()
			return firstEventID(t, (<-done).Body.String())
		}
		bigID := away(`{"jsonrpc":"2.0","id":3,"method":"bigLater"}`)
		smallID := away(`{"jsonrpc":"2.0","id":4,"method":"small"}`)
		close(gate)
		synctest.Wait()
		if n := retained(s); n > limit {
			t.Errorf("%d bytes retained, want at most %d", n, limit)
		}
		w := b.do(context.Background(), http.MethodGet, "", sid, map[string]string{"Last-Event-ID": bigID})
		r := lastResponse(t, w)
		if w.Code != http.StatusOK || r.ID.String() != "3" || r.Error == nil || r.Error.Code != jsonrpc.CodeInternalError ||
			!strings.Contains(r.Error.Message, "dropped its response to this request (16") {
			t.Errorf("resuming the call whose response was over the budget: HTTP %d, %+v, want the error for request 3 that says its response was dropped", w.Code, r)
		}
		w = b.do(context.Background(), http.MethodGet, "", sid, map[string]string{"Last-Event-ID": smallID})
		if r := lastResponse(t, w); w.Code != http.StatusOK || r.ID.String() != "4" || string(r.Result) != `{"small":"yes"}` {
			t.Errorf("resuming the small call: HTTP %d, %+v, want its response", w.Code, r)
		}
	})
}

// lastResponse decodes the last event of an SSE body, a response.
func lastResponse(t *testing.T, w *httptest.ResponseRecorder) *jsonrpc.Response {
	t.Helper()
	var last string
	for line := range strings.Lines(w.Body.String()) {
		if d, ok := strings.CutPrefix(line, "data: "); ok && strings.TrimSpace(d) != "" {
			last = d
		}
	}
	m, err := jsonrpc.DecodeMessage([]byte(last))
	r, ok := m.(*jsonrpc.Response)
	if err != nil || !ok {
		t.Fatalf("the last event of %.200q is not a response (%v)", w.Body, err)
	}
	return r
}
