package jsonrpc_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcpi-dev/mcpi/jsonrpc"
)

// malformed lists frames DecodeMessage must refuse, with the code of the error response
// the connection sends back and whether that response may name the request's id.
var malformed = []struct {
	name   string
	frame  string
	code   int64
	wantID any // the id the error names (the request's for its reply, or the call a response answers); nil for a null id
}{
	{"empty", ``, jsonrpc.CodeParseError, nil},
	{"only whitespace", " \t\r\n", jsonrpc.CodeParseError, nil},
	{"truncated object", `{"jsonrpc":"2.0","id":1,"method":"ping"`, jsonrpc.CodeParseError, nil},
	{"truncated string", `{"jsonrpc":"2.0","id":1,"method":"pi`, jsonrpc.CodeParseError, nil},
	{"truncated batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}`, jsonrpc.CodeParseError, nil},
	{"not JSON", `hello`, jsonrpc.CodeParseError, nil},
	{"not JSON, brace", `{hello}`, jsonrpc.CodeParseError, nil},
	{"single quotes", `{'jsonrpc':'2.0','method':'ping'}`, jsonrpc.CodeParseError, nil},
	{"trailing object", `{"jsonrpc":"2.0","method":"a"} {"jsonrpc":"2.0","method":"b"}`, jsonrpc.CodeParseError, nil},
	{"trailing bracket", `{"jsonrpc":"2.0","method":"a"}]`, jsonrpc.CodeParseError, nil},
	{"trailing brace", `{"jsonrpc":"2.0","method":"a"}}`, jsonrpc.CodeParseError, nil},
	{"trailing garbage", `{"jsonrpc":"2.0","method":"a"}x`, jsonrpc.CodeParseError, nil},

	{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":7,"method":"ping"}`, jsonrpc.CodeInvalidRequest, int64(7)},
	{"jsonrpc missing", `{"id":"a","method":"ping"}`, jsonrpc.CodeInvalidRequest, "a"},
	{"jsonrpc number", `{"jsonrpc":2.0,"id":1,"method":"ping"}`, jsonrpc.CodeInvalidRequest, nil},
	{"id object", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, jsonrpc.CodeInvalidRequest, nil},
	{"id array", `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, jsonrpc.CodeInvalidRequest, nil},
	{"id bool", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, jsonrpc.CodeInvalidRequest, nil},
	{"id float", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, jsonrpc.CodeInvalidRequest, nil},
	{"id exponent", `{"jsonrpc":"2.0","id":1e3,"method":"ping"}`, jsonrpc.CodeInvalidRequest, nil},
	{"id overflows int64", `{"jsonrpc":"2.0","id":9223372036854775808,"method":"ping"}`, jsonrpc.CodeInvalidRequest, nil},
	{"null id on a request", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, jsonrpc.CodeInvalidRequest, nil},
	// An id the reply could not give back byte for byte, or two of them: the peer could
	// not match the reply to its request.
	{"id of invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"ping\"}", jsonrpc.CodeInvalidRequest, nil},
	{"id of a lone surrogate", `{"jsonrpc":"2.0","id":"\ud800","method":"ping"}`, jsonrpc.CodeInvalidRequest, nil},
	{"two ids", `{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`, jsonrpc.CodeInvalidRequest, nil},
	{"two ids, one null", `{"jsonrpc":"2.0","id":1,"id":null,"method":"ping"}`, jsonrpc.CodeInvalidRequest, nil},
	{"two ids on a response", `{"jsonrpc":"2.0","id":1,"id":2,"result":{}}`, jsonrpc.CodeInvalidRequest, nil},
	// Two methods or two params: which one is meant is as much a guess.
	{"two methods", `{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/call"}`, jsonrpc.CodeInvalidRequest, nil},
	{"two methods, one null", `{"jsonrpc":"2.0","id":1,"method":"ping","method":null}`, jsonrpc.CodeInvalidRequest, nil},
	{"two params", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{},"params":{"a":1}}`, jsonrpc.CodeInvalidRequest, nil},
	{"two params, one null", `{"jsonrpc":"2.0","method":"ping","params":{},"params":null}`, jsonrpc.CodeInvalidRequest, nil},
	{"two results", `{"jsonrpc":"2.0","id":6,"result":{"a":1},"result":{"b":2}}`, jsonrpc.CodeInvalidRequest, int64(6)},
	{"two errors", `{"jsonrpc":"2.0","id":6,"error":{"code":1,"message":"a"},"error":{"code":2,"message":"b"}}`, jsonrpc.CodeInvalidRequest, int64(6)},
	{"params string", `{"jsonrpc":"2.0","id":2,"method":"ping","params":"x"}`, jsonrpc.CodeInvalidRequest, int64(2)},
	{"params number", `{"jsonrpc":"2.0","id":2,"method":"ping","params":3}`, jsonrpc.CodeInvalidRequest, int64(2)},
	{"params null", `{"jsonrpc":"2.0","method":"ping","params":null}`, jsonrpc.CodeInvalidRequest, nil},
	{"method number", `{"jsonrpc":"2.0","id":1,"method":5}`, jsonrpc.CodeInvalidRequest, nil},
	{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`, jsonrpc.CodeInvalidRequest, nil},
	{"empty batch", `[]`, jsonrpc.CodeInvalidRequest, nil},
	{"string", `"hello"`, jsonrpc.CodeInvalidRequest, nil},
	{"number", `42`, jsonrpc.CodeInvalidRequest, nil},
	{"null", `null`, jsonrpc.CodeInvalidRequest, nil},
	{"empty object", `{}`, jsonrpc.CodeInvalidRequest, nil},
	{"no method, result or error", `{"jsonrpc":"2.0","id":3}`, jsonrpc.CodeInvalidRequest, int64(3)},
	{"request with result", `{"jsonrpc":"2.0","id":3,"method":"ping","result":{}}`, jsonrpc.CodeInvalidRequest, int64(3)},
	{"result and error", `{"jsonrpc":"2.0","id":4,"result":{},"error":{"code":-32603,"message":"x"}}`, jsonrpc.CodeInvalidRequest, int64(4)},
	{"result without id", `{"jsonrpc":"2.0","result":{}}`, jsonrpc.CodeInvalidRequest, nil},
	{"result with null id", `{"jsonrpc":"2.0","id":null,"result":{}}`, jsonrpc.CodeInvalidRequest, nil},
	{"error without code or message", `{"jsonrpc":"2.0","id":5,"error":{}}`, jsonrpc.CodeInvalidRequest, int64(5)},
	{"error is a string", `{"jsonrpc":"2.0","id":5,"error":"boom"}`, jsonrpc.CodeInvalidRequest, int64(5)},
	{"error code is a float", `{"jsonrpc":"2.0","id":5,"error":{"code":1.5,"message":"x"}}`, jsonrpc.CodeInvalidRequest, int64(5)},
}

func TestDecodeMessageMalformed(t *testing.T) {
	for _, tc := range malformed {
		t.Run(tc.name, func(t *testing.T) {
			m, err := jsonrpc.DecodeMessage([]byte(tc.frame))
			if err == nil {
				t.Fatalf("DecodeMessage(%s) = %#v, want an error", tc.frame, m)
			}
			if m != nil {
				t.Errorf("DecodeMessage returned a message with its error: %#v", m)
			}
			var de *jsonrpc.DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("error %v (%T) is not a *DecodeError", err, err)
			}
			if de.Err == nil || de.Err.Code != tc.code {
				t.Fatalf("code = %v, want %d (error %q)", de.Err, tc.code, err)
			}
			if de.Err.Message == "" {
				t.Error("the error has no message")
			}
			// The DecodeError unwraps to the wire error, so errors.Is works on codes.
			if !errors.Is(err, &jsonrpc.Error{Code: tc.code}) {
				t.Errorf("errors.Is(err, code %d) = false", tc.code)
			}
			if got := de.ID.Raw(); got != tc.wantID {
				t.Errorf("reply id = %v (%T), want %v", got, got, tc.wantID)
			}
			// The reply the connection would send encodes, and names the id or null.
			b, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: de.ID, Error: de.Err})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := jsonrpc.DecodeMessage(b); err != nil {
				t.Errorf("the error reply %s does not decode: %v", b, err)
			}
		})
	}
}

func TestDecodeSentinels(t *testing.T) {
	_, err := jsonrpc.DecodeMessage([]byte(`{"jsonrpc":"2.0"`))
	if !errors.Is(err, jsonrpc.ErrParse) {
		t.Errorf("truncated JSON: errors.Is(%v, ErrParse) = false", err)
	}
	_, err = jsonrpc.DecodeMessage([]byte(`[]`))
	if !errors.Is(err, jsonrpc.ErrInvalidRequest) {
		t.Errorf("batch: errors.Is(%v, ErrInvalidRequest) = false", err)
	}
	if errors.Is(err, jsonrpc.ErrParse) {
		t.Errorf("batch: errors.Is(%v, ErrParse) = true", err)
	}
	if !strings.Contains(err.Error(), "batch") {
		t.Errorf("batch error %q does not say why", err)
	}
}

// roundTrip lists valid frames in the member order and compact form EncodeMessage
// writes, so encoding the decoded message must reproduce them byte for byte.
var roundTrip = []struct {
	name  string
	frame string
	want  jsonrpc.Message
}{
	{"request int id", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		&jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "tools/list"}},
	{"request zero id", `{"jsonrpc":"2.0","id":0,"method":"ping"}`,
		&jsonrpc.Request{ID: jsonrpc.Int64ID(0), Method: "ping"}},
	{"request negative id", `{"jsonrpc":"2.0","id":-42,"method":"ping"}`,
		&jsonrpc.Request{ID: jsonrpc.Int64ID(-42), Method: "ping"}},
	{"request max id", `{"jsonrpc":"2.0","id":9223372036854775807,"method":"ping"}`,
		&jsonrpc.Request{ID: jsonrpc.Int64ID(9223372036854775807), Method: "ping"}},
	{"request min id", `{"jsonrpc":"2.0","id":-9223372036854775808,"method":"ping"}`,
		&jsonrpc.Request{ID: jsonrpc.Int64ID(-9223372036854775808), Method: "ping"}},
	{"request string id", `{"jsonrpc":"2.0","id":"abc-1","method":"tools/call","params":{"name":"echo","arguments":{"x":[1,2.5,"y",null,true]}}}`,
		&jsonrpc.Request{ID: jsonrpc.StringID("abc-1"), Method: "tools/call", Params: json.RawMessage(`{"name":"echo","arguments":{"x":[1,2.5,"y",null,true]}}`)}},
	{"request numeric string id", `{"jsonrpc":"2.0","id":"1","method":"ping"}`,
		&jsonrpc.Request{ID: jsonrpc.StringID("1"), Method: "ping"}},
	{"request empty string id", `{"jsonrpc":"2.0","id":"","method":"ping"}`,
		&jsonrpc.Request{ID: jsonrpc.StringID(""), Method: "ping"}},
	{"request escaped string id", `{"jsonrpc":"2.0","id":"a\"b\\c\n","method":"ping"}`,
		&jsonrpc.Request{ID: jsonrpc.StringID("a\"b\\c\n"), Method: "ping"}},
	{"request array params", `{"jsonrpc":"2.0","id":2,"method":"sum","params":[1,2,3]}`,
		&jsonrpc.Request{ID: jsonrpc.Int64ID(2), Method: "sum", Params: json.RawMessage(`[1,2,3]`)}},
	{"request html in params", `{"jsonrpc":"2.0","id":"<&>","method":"tools/call","params":{"code":"if a < b && c > d {}"}}`,
		&jsonrpc.Request{ID: jsonrpc.StringID("<&>"), Method: "tools/call", Params: json.RawMessage(`{"code":"if a < b && c > d {}"}`)}},
	{"request unicode", `{"jsonrpc":"2.0","id":"é","method":"ping","params":{"text":"héllo ☃ 😀"}}`,
		&jsonrpc.Request{ID: jsonrpc.StringID("é"), Method: "ping", Params: json.RawMessage(`{"text":"héllo ☃ 😀"}`)}},
	{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		&jsonrpc.Request{Method: "notifications/initialized"}},
	{"notification with params", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}`,
		&jsonrpc.Request{Method: "notifications/progress", Params: json.RawMessage(`{"progressToken":"t","progress":1}`)}},
	{"result", `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`,
		&jsonrpc.Response{ID: jsonrpc.Int64ID(1), Result: json.RawMessage(`{"tools":[]}`)}},
	{"result string id", `{"jsonrpc":"2.0","id":"x","result":{}}`,
		&jsonrpc.Response{ID: jsonrpc.StringID("x"), Result: json.RawMessage(`{}`)}},
	{"null result", `{"jsonrpc":"2.0","id":1,"result":null}`,
		&jsonrpc.Response{ID: jsonrpc.Int64ID(1), Result: json.RawMessage(`null`)}},
	{"error", `{"jsonrpc":"2.0","id":9,"error":{"code":-32601,"message":"method not found: x"}}`,
		&jsonrpc.Response{ID: jsonrpc.Int64ID(9), Error: &jsonrpc.Error{Code: -32601, Message: "method not found: x"}}},
	{"error with data", `{"jsonrpc":"2.0","id":"q","error":{"code":-32002,"message":"resource not found","data":{"uri":"file:///a"}}}`,
		&jsonrpc.Response{ID: jsonrpc.StringID("q"), Error: &jsonrpc.Error{Code: -32002, Message: "resource not found", Data: json.RawMessage(`{"uri":"file:///a"}`)}}},
	{"error with null id", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`,
		&jsonrpc.Response{Error: &jsonrpc.Error{Code: -32700, Message: "parse error"}}},
}

func TestRoundTripByteExact(t *testing.T) {
	for _, tc := range roundTrip {
		t.Run(tc.name, func(t *testing.T) {
			m, err := jsonrpc.DecodeMessage([]byte(tc.frame))
			if err != nil {
				t.Fatalf("DecodeMessage: %v", err)
			}
			assertSameMessage(t, m, tc.want)
			b, err := jsonrpc.EncodeMessage(m)
			if err != nil {
				t.Fatalf("EncodeMessage: %v", err)
			}
			if string(b) != tc.frame {
				t.Errorf("re-encoded\n got %s\nwant %s", b, tc.frame)
			}
			b, err = jsonrpc.EncodeMessage(tc.want)
			if err != nil {
				t.Fatalf("EncodeMessage: %v", err)
			}
			if string(b) != tc.frame {
				t.Errorf("encoded\n got %s\nwant %s", b, tc.frame)
			}
		})
	}
}

func TestDecodeTolerates(t *testing.T) {
	for _, tc := range []struct {
		name, frame string
		want        jsonrpc.Message
	}{
		{"whitespace and CRLF", " \t{ \"jsonrpc\" : \"2.0\" , \"id\" : 1 , \"method\" : \"ping\" }\r\n",
			&jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "ping"}},
		{"other member order", `{"method":"ping","id":"z","jsonrpc":"2.0"}`,
			&jsonrpc.Request{ID: jsonrpc.StringID("z"), Method: "ping"}},
		{"unknown members", `{"jsonrpc":"2.0","method":"ping","id":1,"extra":{"a":[1]}}`,
			&jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "ping"}},
		{"negative zero id", `{"jsonrpc":"2.0","id":-0,"method":"ping"}`,
			&jsonrpc.Request{ID: jsonrpc.Int64ID(0), Method: "ping"}},
		// MCP 2025-11-25 makes the id of an error response optional.
		{"error response without id", `{"jsonrpc":"2.0","error":{"code":-32700,"message":"parse error"}}`,
			&jsonrpc.Response{Error: &jsonrpc.Error{Code: -32700, Message: "parse error"}}},
		{"error with code only", `{"jsonrpc":"2.0","id":1,"error":{"code":-1}}`,
			&jsonrpc.Response{ID: jsonrpc.Int64ID(1), Error: &jsonrpc.Error{Code: -1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := jsonrpc.DecodeMessage([]byte(tc.frame))
			if err != nil {
				t.Fatalf("DecodeMessage: %v", err)
			}
			assertSameMessage(t, m, tc.want)
		})
	}
}

func TestNotificationHasNoID(t *testing.T) {
	m, err := jsonrpc.DecodeMessage([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`))
	if err != nil {
		t.Fatal(err)
	}
	req, ok := m.(*jsonrpc.Request)
	if !ok {
		t.Fatalf("decoded %T, want *Request", m)
	}
	if !req.IsNotification() || req.ID.IsValid() || req.ID.Raw() != nil {
		t.Errorf("notification has an id: %v", req.ID)
	}
	b, err := jsonrpc.EncodeMessage(&jsonrpc.Request{Method: "notifications/initialized"})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte(`"id"`)) {
		t.Errorf("an encoded notification carries an id: %s", b)
	}
	if bytes.Contains(b, []byte(`"params"`)) {
		t.Errorf("a notification without params carries params: %s", b)
	}
	req2 := &jsonrpc.Request{ID: jsonrpc.Int64ID(0), Method: "ping"}
	if req2.IsNotification() {
		t.Error("a request with id 0 is a notification")
	}
}

func TestEncodeErrorResponseNullID(t *testing.T) {
	b, err := jsonrpc.EncodeMessage(&jsonrpc.Response{Error: jsonrpc.NewError(jsonrpc.CodeParseError, "parse error")})
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}

func TestEncodeResponseWithoutResult(t *testing.T) {
	b, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: jsonrpc.Int64ID(1)})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"jsonrpc":"2.0","id":1,"result":{}}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}

func TestEncodeUnknownMessage(t *testing.T) {
	if _, err := jsonrpc.EncodeMessage(nil); err == nil {
		t.Error("EncodeMessage(nil) succeeded")
	}
}

func TestIDs(t *testing.T) {
	for _, tc := range []struct {
		id    jsonrpc.ID
		valid bool
		raw   any
		str   string
		json  string
	}{
		{jsonrpc.ID{}, false, nil, "null", "null"},
		{jsonrpc.Int64ID(0), true, int64(0), "0", "0"},
		{jsonrpc.Int64ID(-5), true, int64(-5), "-5", "-5"},
		{jsonrpc.StringID(""), true, "", `""`, `""`},
		{jsonrpc.StringID("a<b"), true, "a<b", `"a<b"`, `"a<b"`},
	} {
		if tc.id.IsValid() != tc.valid || tc.id.Raw() != tc.raw || tc.id.String() != tc.str {
			t.Errorf("%#v: IsValid %v Raw %#v String %q", tc.id, tc.id.IsValid(), tc.id.Raw(), tc.id.String())
		}
		b, err := tc.id.MarshalJSON()
		if err != nil || string(b) != tc.json {
			t.Errorf("%v.MarshalJSON() = %s, %v; want %s", tc.id, b, err, tc.json)
		}
		var back jsonrpc.ID
		if err := back.UnmarshalJSON(b); err != nil || back != tc.id {
			t.Errorf("UnmarshalJSON(%s) = %#v, %v; want %#v", b, back, err, tc.id)
		}
	}
	// A string id and a numeric id with the same digits are different ids.
	if jsonrpc.StringID("1") == jsonrpc.Int64ID(1) {
		t.Error(`StringID("1") == Int64ID(1)`)
	}
	for _, bad := range []string{`1.5`, `true`, `{}`, `[]`, `"unterminated`, `1e2`, ``} {
		var id jsonrpc.ID
		if err := id.UnmarshalJSON([]byte(bad)); err == nil {
			t.Errorf("UnmarshalJSON(%s) accepted %v", bad, id)
		}
	}
}

func TestErrorValues(t *testing.T) {
	e := jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "bad %s", "x")
	if e.Code != jsonrpc.CodeInvalidParams || e.Message != "bad x" {
		t.Fatalf("Errorf = %+v", e)
	}
	if got := e.Error(); got != "bad x (-32602)" {
		t.Errorf("Error() = %q", got)
	}
	if !errors.Is(e, jsonrpc.ErrInvalidParams) || errors.Is(e, jsonrpc.ErrInternal) {
		t.Error("errors.Is does not match by code")
	}
	// A target with a message matches only itself.
	if errors.Is(e, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "other")) {
		t.Error("errors.Is matched a target with a different message")
	}
	d := e.WithData(map[string]int{"n": 1})
	if string(d.Data) != `{"n":1}` || e.Data != nil {
		t.Errorf("WithData: copy %s, original %s", d.Data, e.Data)
	}
	var nilErr *jsonrpc.Error
	if nilErr.Error() != "<nil>" {
		t.Error("nil *Error does not print")
	}

	plain := errors.New("disk full")
	if w := jsonrpc.AsError(plain); w.Code != jsonrpc.CodeInternalError || w.Message != "disk full" {
		t.Errorf("AsError(plain) = %+v", w)
	}
	wrapped := errors.Join(errors.New("context"), e)
	if w := jsonrpc.AsError(wrapped); w != e {
		t.Errorf("AsError(wrapped) = %+v, want the wrapped *Error", w)
	}
}

// assertSameMessage compares two messages, with raw JSON compared after compaction.
func assertSameMessage(t *testing.T, got, want jsonrpc.Message) {
	t.Helper()
	if !sameMessage(got, want) {
		gb, _ := jsonrpc.EncodeMessage(got)
		wb, _ := jsonrpc.EncodeMessage(want)
		t.Errorf("message mismatch\n got %T %s\nwant %T %s", got, gb, want, wb)
	}
}

func sameMessage(a, b jsonrpc.Message) bool {
	switch a := a.(type) {
	case *jsonrpc.Request:
		b, ok := b.(*jsonrpc.Request)
		return ok && a.ID == b.ID && a.Method == b.Method && sameRaw(a.Params, b.Params)
	case *jsonrpc.Response:
		b, ok := b.(*jsonrpc.Response)
		if !ok || a.ID != b.ID || (a.Error == nil) != (b.Error == nil) {
			return false
		}
		if a.Error != nil {
			return a.Error.Code == b.Error.Code && a.Error.Message == b.Error.Message && sameRaw(a.Error.Data, b.Error.Data)
		}
		return sameRaw(a.Result, b.Result)
	}
	return false
}

func sameRaw(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return false
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}
