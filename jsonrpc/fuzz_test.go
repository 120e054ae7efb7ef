package jsonrpc_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/mcpi-dev/mcpi/jsonrpc"
)

// FuzzDecodeMessage checks that DecodeMessage never panics, that everything it refuses is
// refused with a wire error the connection can send back, and that everything it accepts
// re-encodes to bytes that decode to the same message (and encode to the same bytes).
func FuzzDecodeMessage(f *testing.F) {
	for _, tc := range malformed {
		f.Add([]byte(tc.frame))
	}
	for _, tc := range roundTrip {
		f.Add([]byte(tc.frame))
	}
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"a\u2028b"}]}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":"\ud83d\ude00","method":"m","params":{"a":"\u003c"}}`))
	f.Add([]byte("{\"jsonrpc\":\"2.0\",\"method\":\"\xff\xfe\"}"))
	f.Add([]byte(`{"JSONRPC":"2.0","ID":1,"METHOD":"ping"}`))

	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := jsonrpc.DecodeMessage(data)
		if err != nil {
			if m != nil {
				t.Fatalf("DecodeMessage returned both %#v and %v", m, err)
			}
			var de *jsonrpc.DecodeError
			if !errors.As(err, &de) || de.Err == nil {
				t.Fatalf("error %v (%T) is not a *DecodeError with a wire error", err, err)
			}
			if c := de.Err.Code; c != jsonrpc.CodeParseError && c != jsonrpc.CodeInvalidRequest {
				t.Fatalf("decode error code %d, want -32700 or -32600", c)
			}
			reply, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: de.ID, Error: de.Err})
			if err != nil {
				t.Fatalf("encoding the error reply: %v", err)
			}
			if _, err := jsonrpc.DecodeMessage(reply); err != nil {
				t.Fatalf("the error reply %s does not decode: %v", reply, err)
			}
			return
		}
		if m == nil {
			t.Fatal("DecodeMessage returned neither a message nor an error")
		}
		enc, err := jsonrpc.EncodeMessage(m)
		if err != nil {
			t.Fatalf("accepted %q but cannot encode it: %v", data, err)
		}
		m2, err := jsonrpc.DecodeMessage(enc)
		if err != nil {
			t.Fatalf("accepted %q, re-encoded as %s, which fails to decode: %v", data, enc, err)
		}
		if !sameMessage(m, m2) {
			t.Fatalf("accepted %q, re-encoded as %s, which decodes to a different message", data, enc)
		}
		enc2, err := jsonrpc.EncodeMessage(m2)
		if err != nil || !bytes.Equal(enc, enc2) {
			t.Fatalf("encoding is not stable:\n%s\n%s (%v)", enc, enc2, err)
		}
		if bytes.IndexByte(enc, '\n') >= 0 {
			t.Fatalf("encoding contains a newline, which would break line framing: %q", enc)
		}
	})
}
