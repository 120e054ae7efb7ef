package transport

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/mcpi-dev/mcpi/jsonrpc"
)

// TestHTTPServerUnreadableAnswer: a client's answer to the server's request that cannot
// be decoded (a NaN, nesting past the decoder's depth) but names the request's id fails
// the server's call at once with why: the call waited for an answer that had come (until
// its task ended). The POST itself is still refused (400), with no id.
func TestHTTPServerUnreadableAnswer(t *testing.T) {
	for _, tc := range []struct{ name, result, why string }{
		{"NaN", `{"action":NaN}`,
			"receiving the response to elicitation/create: malformed response: parse error: invalid JSON (invalid character 'N' looking for beginning of value at offset 43)"},
		{"too deep", deep(10001),
			"receiving the response to elicitation/create: malformed response: parse error: invalid JSON (exceeded max depth at offset 10032)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := newTestServer(t, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
				err := connFromContext(ctx).Call(ctx, "elicitation/create", map[string]any{"message": "name?"}, nil)
				var bad *jsonrpc.MalformedResponseError
				if !errors.As(err, &bad) {
					return nil, fmt.Errorf("the call ended with %v (%T), not a *jsonrpc.MalformedResponseError", err, err)
				}
				return nil, jsonrpc.NewError(1, err.Error())
			}, nil)
			sid := rawInit(t, ts.URL)
			hdr := map[string]string{HeaderSessionID: sid, HeaderProtocolVersion: "2025-11-25"}
			resp := rawPost(t, ts.URL, `{"jsonrpc":"2.0","id":7,"method":"tools/call"}`, hdr)
			sr := newSSEReader(resp.Body, 0)
			_, m := nextData(t, sr)
			call, ok := m.(*jsonrpc.Request)
			if !ok || call.Method != "elicitation/create" {
				t.Fatalf("first message %#v, want the elicitation request", m)
			}
			r := rawPost(t, ts.URL, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, call.ID, tc.result), hdr)
			if r.StatusCode != http.StatusBadRequest {
				t.Errorf("posting the answer: HTTP %d, want 400", r.StatusCode)
			}
			if e := errorBody(t, r); e.Code != jsonrpc.CodeParseError {
				t.Errorf("posting the answer: %v, want a parse error", e)
			}
			_, m = nextData(t, sr)
			if r, ok := m.(*jsonrpc.Response); !ok || r.ID != jsonrpc.Int64ID(7) || r.Error == nil || r.Error.Message != tc.why {
				t.Fatalf("the tool's response %#v, want the error:\n%s", m, tc.why)
			}
		})
	}
}

func deep(n int) string {
	b := make([]byte, 0, 2*n)
	for range n {
		b = append(b, '[')
	}
	for range n {
		b = append(b, ']')
	}
	return string(b)
}
