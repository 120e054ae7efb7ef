package jsonrpc_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpi-dev/mcpi/jsonrpc"
)

// TestUnreadableResponseFailsTheCall: a response that cannot be decoded (a NaN, nesting
// past encoding/json's limit, an error object of the wrong shape) but names the id of a
// call fails that call at once with why, and is not answered: a response is no request.
func TestUnreadableResponseFailsTheCall(t *testing.T) {
	for _, tc := range []struct {
		name, result, why string
	}{
		{"NaN", `"result":{"x":NaN}`,
			"malformed response: parse error: invalid JSON (invalid character 'N' looking for beginning of value at offset 38)"},
		{"too deep", `"result":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
			"malformed response: parse error: invalid JSON (exceeded max depth at offset 10032)"},
		{"error code a string", `"error":{"code":"x","message":"m"}`,
			"malformed response: invalid response: error code must be an integer"},
		// A response that says two things says neither: the call fails, as a request
		// with two methods is refused.
		{"two results", `"result":{"a":1},"result":{"b":2}`,
			"malformed response: invalid response: the result member appears more than once"},
		{"two results, one null", `"result":{},"result":null`,
			"malformed response: invalid response: the result member appears more than once"},
		{"two errors", `"error":{"code":-1,"message":"a"},"error":{"code":-2,"message":"b"}`,
			"malformed response: invalid response: the error member appears more than once"},
		{"two errors, one null", `"error":{"code":-1,"message":"a"},"error":null`,
			"malformed response: invalid response: the error member appears more than once"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, p := newRawPeer(t, jsonrpc.Options{Handler: pingHandler})
			ctx, cancel := context.WithTimeout(context.Background(), failsafe)
			defer cancel()
			errc := make(chan error, 1)
			go func() { errc <- c.Call(ctx, "tools/list", nil, nil) }()
			req := decodeLine(t, p.recv()).(*jsonrpc.Request)
			p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,%s}`, req.ID, tc.result))
			err := <-errc
			var ce *jsonrpc.CallError
			var bad *jsonrpc.MalformedResponseError
			if !errors.As(err, &ce) || ce.Op != jsonrpc.OpReceive || ce.Method != "tools/list" || !errors.As(err, &bad) {
				t.Fatalf("call: %v (%T), want a *CallError of OpReceive for tools/list with a *MalformedResponseError", err, err)
			}
			if bad.Error() != tc.why {
				t.Errorf("why:\n got %s\nwant %s", bad.Error(), tc.why)
			}
			if errors.As(err, new(*jsonrpc.Error)) {
				t.Errorf("the call's error %v holds a JSON-RPC error the server did not send", err)
			}
			// Nothing was written back for the response: the next line is the ping's answer.
			p.ping("after")
		})
	}
}
