package jsonrpc_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpi-dev/mcpi/jsonrpc"
)

var memberNames = []string{"jsonrpc", "id", "method", "params", "result", "error"}

// show quotes b for a failure message, cut short: some inputs are nested 10000 deep.
func show[T ~[]byte | ~string](b T) string {
	const max = 300
	if len(b) > max {
		return strconv.Quote(string(b[:max])) + "…"
	}
	return strconv.Quote(string(b))
}

// foldsOntoMember reports whether data is an object with a member name that encoding/json
// would have matched to a JSON-RPC member case-insensitively ("Method", "ID"): the one
// place where DecodeMessage departs from the reference on purpose.
func foldsOntoMember(data []byte) bool {
	var obj map[string]json.RawMessage
	if json.Unmarshal(bytes.TrimSpace(data), &obj) != nil {
		return false
	}
	for name := range obj {
		for _, m := range memberNames {
			if name != m && strings.EqualFold(name, m) {
				return true
			}
		}
	}
	return false
}

// describe shows a message field by field, raw members cut short.
func describe(m jsonrpc.Message) string {
	switch m := m.(type) {
	case *jsonrpc.Request:
		return fmt.Sprintf("Request{ID: %v, Method: %s, Params: %s (nil %v)}", m.ID, show(m.Method), show(m.Params), m.Params == nil)
	case *jsonrpc.Response:
		e := "nil"
		if m.Error != nil {
			e = fmt.Sprintf("{Code: %d, Message: %s, Data: %s}", m.Error.Code, show(m.Error.Message), show(m.Error.Data))
		}
		return fmt.Sprintf("Response{ID: %v, Result: %s (nil %v), Error: %s}", m.ID, show(m.Result), m.Result == nil, e)
	}
	return fmt.Sprintf("%T", m)
}

// checkDecode holds DecodeMessage to the reference: the same message, or errors with the
// same code naming the same id.
func checkDecode(t *testing.T, data []byte) {
	t.Helper()
	if foldsOntoMember(data) {
		return
	}
	want, wantErr := refDecodeMessage(data)
	got, gotErr := jsonrpc.DecodeMessage(bytes.Clone(data))
	if (wantErr == nil) != (gotErr == nil) {
		t.Fatalf("DecodeMessage(%s)\n got %s, %v\nwant %s, %v", show(data), describe(got), gotErr, describe(want), wantErr)
	}
	if wantErr != nil {
		var wde, gde *jsonrpc.DecodeError
		if !errors.As(wantErr, &wde) || !errors.As(gotErr, &gde) {
			t.Fatalf("DecodeMessage(%s): errors %v and %v, want *DecodeErrors", show(data), gotErr, wantErr)
		}
		if got != nil {
			t.Fatalf("DecodeMessage(%s) returned %s with its error", show(data), describe(got))
		}
		// A refused response names the call it answers, for the call to fail; the
		// reference names the id of a reply, which a response never gets.
		if gde.Response {
			wde.ID = gde.ID
		}
		if gde.Err.Code != wde.Err.Code || gde.ID != wde.ID || gde.Err.Message == "" {
			t.Fatalf("DecodeMessage(%s)\n got error %d %q naming %v\nwant error %d %q naming %v",
				show(data), gde.Err.Code, gde.Err.Message, gde.ID, wde.Err.Code, wde.Err.Message, wde.ID)
		}
		return
	}
	if !identical(got, want) {
		t.Fatalf("DecodeMessage(%s)\n got %s\nwant %s", show(data), describe(got), describe(want))
	}
}

// identical compares messages exactly: raw members byte for byte, absent apart from empty.
func identical(a, b jsonrpc.Message) bool {
	sameRaw := func(x, y []byte) bool { return (x == nil) == (y == nil) && bytes.Equal(x, y) }
	switch a := a.(type) {
	case *jsonrpc.Request:
		b, ok := b.(*jsonrpc.Request)
		return ok && a.ID == b.ID && a.Method == b.Method && sameRaw(a.Params, b.Params)
	case *jsonrpc.Response:
		b, ok := b.(*jsonrpc.Response)
		if !ok || a.ID != b.ID || !sameRaw(a.Result, b.Result) || (a.Error == nil) != (b.Error == nil) {
			return false
		}
		return a.Error == nil || a.Error.Code == b.Error.Code && a.Error.Message == b.Error.Message && sameRaw(a.Error.Data, b.Error.Data)
	}
	return false
}

// checkEncode holds EncodeMessage to the reference: the same bytes, or both errors.
func checkEncode(t *testing.T, m jsonrpc.Message) {
	t.Helper()
	want, wantErr := refEncodeMessage(m)
	got, gotErr := jsonrpc.EncodeMessage(m)
	if (wantErr == nil) != (gotErr == nil) || !bytes.Equal(got, want) {
		t.Fatalf("EncodeMessage(%s)\n got %s, %v\nwant %s, %v", describe(m), show(got), gotErr, show(want), wantErr)
	}
}

// checkMarshal holds jsonwire.Marshal, as the connection uses it, to the reference for v.
func checkMarshal(t *testing.T, v any) {
	t.Helper()
	want, wantErr := refMarshalNoEscape(v)
	got, gotErr := jsonrpc.MarshalNoEscape(v)
	if (wantErr == nil) != (gotErr == nil) || !bytes.Equal(got, want) {
		t.Fatalf("jsonwire.Marshal(%T)\n got %s, %v\nwant %s, %v", v, show(got), gotErr, show(want), wantErr)
	}
}

// checkScan holds the scanner to encoding/json's Valid and Compact.
func checkScan(t *testing.T, data []byte) {
	t.Helper()
	if got, want := jsonrpc.Valid(data), json.Valid(data); got != want {
		t.Fatalf("valid(%s) = %v, json.Valid says %v", show(data), got, want)
	}
	var want bytes.Buffer
	wantErr := json.Compact(&want, data)
	got, gotErr := jsonrpc.AppendRaw([]byte("prefix"), data)
	if wantErr != nil {
		if gotErr == nil || string(got) != "prefix" {
			t.Fatalf("appendRaw(%s) = %s, %v; json.Compact fails with %v", show(data), show(got), gotErr, wantErr)
		}
		return
	}
	if gotErr != nil || string(got) != "prefix"+want.String() {
		t.Fatalf("appendRaw(%s) = %s, %v; json.Compact gives %s", show(data), show(got), gotErr, show(want.String()))
	}
}

// decodeCases are frames beyond the malformed and roundTrip tables that reach the corners
// of the old decoder: duplicates, nulls, escapes, wrong types, and the JSON grammar.
var decodeCases = []string{
	`{"jsonrpc":"2.0","method":"a","method":"b","id":1}`,
	`{"jsonrpc":"2.0","method":"a","method":null,"id":1}`,
	`{"jsonrpc":"2.0","method":null,"id":1}`,
	`{"jsonrpc":"2.0","jsonrpc":null,"method":"a"}`,
	`{"jsonrpc":null,"method":"a"}`,
	`{"jsonrpc":"1.0","jsonrpc":"2.0","method":"a"}`,
	`{"jsonrpc":"2.0","method":"a","id":1,"id":null}`,
	`{"jsonrpc":"2.0","method":"a","id":null,"id":"x"}`,
	`{"jsonrpc":"2.0","method":"a","params":[],"params":{"b":1}}`,
	`{"jsonrpc":"2.0","method":"a","params":{},"params":null}`,
	`{"jsonrpc":"2.0","method":"","id":1,"result":1}`,
	`{"jsonrpc":"2.0","method":"","id":1}`,
	`{"jsonrpc":"2.0","id":1,"result":{},"result":null}`,
	`{"jsonrpc":"2.0","id":1,"result":1}`,
	`{"jsonrpc":"2.0","id":1,"result":"s"}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":1},"error":{"message":"x"}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":1},"error":null}`,
	`{"jsonrpc":"2.0","id":1,"error":null,"result":{}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x","data":[1, 2]}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"Code":1,"MESSAGE":"x"}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":"1"}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":5}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":1e400}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":99999999999999999999}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":1.0}}`,
	`{"jsonrpc":"2.0","id":1,"error":[]}`,
	`{"jsonrpc":"2.0","id":1,"error":1}`,
	`{"jsonrpc":"2.0","id":1,"error":true}`,
	`{"jsonrpc":true,"id":1,"method":"a"}`,
	`{"jsonrpc":"2.0","id":1,"method":{}}`,
	`{"jsonrpc":"2.0","id":1,"method":[]}`,
	`{"jsonrpc":"2.0","id":1,"method":false}`,
	`{"jsonrpc":"2.0","id":{},"method":5}`,
	`{"jsonrpc":"2.0","id":1,"method":5,"x":}`,
	`{"jsonrpc":"2.0","id":1,"error":"x","y":[}`,
	`{"\u006a\u0073\u006f\u006e\u0072\u0070\u0063":"2\u002e0","\u006dethod":"to\/ols","i\u0064":"\u00e9"}`,
	`{"jsonrpc":"2.0","method":"\ud83d\ude00\ud800x","id":"\udc00"}`,
	"{\"jsonrpc\":\"2.0\",\"method\":\"a\xffb\",\"id\":\"\xc3\"}",
	"{\"jsonrpc\":\"2.0\",\"meth\xffod\":\"a\",\"id\":1}",
	"{\"jsonrpc\":\"2.0\",\"method\":\"tab\there\"}",
	"{\"jsonrpc\":\"2.0\",\"method\":\"a\x7f\"}",
	"\x0b\f{\"jsonrpc\":\"2.0\",\"method\":\"a\"}\u00a0\u0085",
	"\u2028{\"jsonrpc\":\"2.0\",\"method\":\"a\"}",
	"{\"jsonrpc\":\"2.0\",\"method\":\"a\"}\x00",
	" { \"jsonrpc\" : \"2.0\" , \"method\" : \"a\" , \"params\" : { \"a\" : [ 1 , 2 ] } } ",
	`{ }`, `{`, `{"`, `{"a"`, `{"a":`, `{"a":1`, `{"a":1,`, `{"a":1,}`, `{,}`, `{"a" 1}`, `{1:2}`,
	`{"jsonrpc":"2.0","id":-0,"method":"a"}`,
	`{"jsonrpc":"2.0","id":01,"method":"a"}`,
	`{"jsonrpc":"2.0","id":1.0,"method":"a"}`,
	`{"jsonrpc":"2.0","id":1E2,"method":"a"}`,
	`{"jsonrpc":"2.0","id":-,"method":"a"}`,
	`{"jsonrpc":"2.0","id":"1","id":2,"method":"a"}`,
	`{"jsonrpc":"2.0","method":"a","x":[1.e5]}`,
	`{"jsonrpc":"2.0","method":"a","x":.5}`,
	`{"jsonrpc":"2.0","method":"a","x":+1}`,
	`{"jsonrpc":"2.0","method":"a","x":1e+}`,
	`{"jsonrpc":"2.0","method":"a","x":[1e+5,-0.0e-0,12.34E12]}`,
	`{"jsonrpc":"2.0","method":"a","x":[1,]}`,
	`{"jsonrpc":"2.0","method":"a","x":[,1]}`,
	`{"jsonrpc":"2.0","method":"a","x":[1 2]}`,
	`{"jsonrpc":"2.0","method":"a","x":[tru]}`,
	`{"jsonrpc":"2.0","method":"a","x":nulll}`,
	`{"jsonrpc":"2.0","method":"a","x":[true,false,null,[],{},[[]],{"":{}}]}`,
	`{"jsonrpc":"2.0","method":"a","x":"\u12G4"}`,
	`{"jsonrpc":"2.0","method":"a","x":"\u12"}`,
	`{"jsonrpc":"2.0","method":"a","x":"\a"}`,
	`{"jsonrpc":"2.0","method":"a","x":"\/\b\f\n\r\t\"\\"}`,
	`{"jsonrpc":"2.0","method":"a","x":"abcdefgh\"ijklmnop\\qrstuvwxyz0123456789"}`,
	`[1,2`, `[`, `]`, `"x`, `-`, `tru`, `nul`, `1 2`, `[1]]`, ` [ ] `, `true`, `{}}`, `{}]`,
}

func allDecodeSeeds() [][]byte {
	var seeds [][]byte
	for _, tc := range malformed {
		seeds = append(seeds, []byte(tc.frame))
	}
	for _, tc := range roundTrip {
		seeds = append(seeds, []byte(tc.frame))
	}
	for _, s := range decodeCases {
		seeds = append(seeds, []byte(s))
	}
	return seeds
}

func TestDecodeMatchesReference(t *testing.T) {
	for _, s := range allDecodeSeeds() {
		checkDecode(t, s)
		checkScan(t, s)
	}
}

// nested returns n arrays inside each other.
func nested(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

// encoding/json refuses input nested deeper than 10000 arrays and objects as invalid
// JSON, and so must the scanner, counting the frame's own object.
func TestNestingLimit(t *testing.T) {
	for _, n := range []int{9998, 9999, 10000, 10001} {
		checkScan(t, []byte(nested(n)))
		checkDecode(t, []byte(`{"jsonrpc":"2.0","method":"a","params":`+nested(n)+`}`))
		checkDecode(t, []byte(`{"jsonrpc":"2.0","method":"a","params":{"a":`+nested(n)+`}}`))
		checkEncode(t, &jsonrpc.Request{Method: "a", Params: json.RawMessage(nested(n))})
	}
	_, err := jsonrpc.DecodeMessage([]byte(`{"jsonrpc":"2.0","method":"a","params":` + nested(10000) + `}`))
	if !errors.Is(err, jsonrpc.ErrParse) {
		t.Errorf("10001 levels: %v, want a parse error", err)
	}
}

// Member names are matched as JSON-RPC spells them; encoding/json matched "Method" too.
func TestMemberNamesAreCaseSensitive(t *testing.T) {
	_, err := jsonrpc.DecodeMessage([]byte(`{"JSONRPC":"2.0","ID":1,"METHOD":"ping"}`))
	if !errors.Is(err, jsonrpc.ErrInvalidRequest) {
		t.Errorf("upper-case member names: %v, want an invalid request", err)
	}
	m, err := jsonrpc.DecodeMessage([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping","Params":"x","Method":"other"}`))
	if err != nil {
		t.Fatal(err)
	}
	if req := m.(*jsonrpc.Request); req.Method != "ping" || req.Params != nil {
		t.Errorf("members that differ in case were read: %+v", req)
	}
}

func TestDecodeTypeMismatchesSayWhich(t *testing.T) {
	for frame, want := range map[string]string{
		`{"jsonrpc":"2.0","id":1,"method":5}`:                           "method must be a string",
		`{"jsonrpc":2,"id":1,"method":"a"}`:                             `jsonrpc must be "2.0"`,
		`{"jsonrpc":"2.0","id":1,"error":"x"}`:                          "error must be an object",
		`{"jsonrpc":"2.0","id":1,"error":{"code":"x"}}`:                 "error code must be an integer",
		`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":[]}}`:      "error message must be a string",
		`{"jsonrpc":"2.0","id":1,"method":"a","params":"s"}`:            "params must be an object or an array",
		`{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}`:            "invalid request: the method member appears more than once",
		`{"jsonrpc":"2.0","id":1,"method":"a","params":{},"params":[]}`: "invalid request: the params member appears more than once",
	} {
		_, err := jsonrpc.DecodeMessage([]byte(frame))
		if !errors.Is(err, jsonrpc.ErrInvalidRequest) || !strings.Contains(err.Error(), want) {
			t.Errorf("DecodeMessage(%s) = %v, want an invalid request saying %q", frame, err, want)
		}
	}
}

// Params and Result do not alias the frame: the caller may reuse its buffer.
func TestDecodeCopiesRawMembers(t *testing.T) {
	frame := []byte(`{"jsonrpc":"2.0","id":1,"method":"a","params":{"x":1}}`)
	m, err := jsonrpc.DecodeMessage(frame)
	if err != nil {
		t.Fatal(err)
	}
	for i := range frame {
		frame[i] = ' '
	}
	if p := m.(*jsonrpc.Request).Params; string(p) != `{"x":1}` {
		t.Errorf("params changed with the frame: %s", p)
	}
}

func FuzzDecodeDifferential(f *testing.F) {
	for _, s := range allDecodeSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkDecode(t, data)
		checkScan(t, data)
	})
}

// encodeCase is the input of FuzzEncodeDifferential: kind chooses a request, a result
// response or an error response; raw is the params or the result.
type encodeCase struct {
	kind, idKind uint8
	idNum        int64
	idStr        string
	method       string
	raw          []byte
	code         int64
	message      string
	data         []byte
}

func (c encodeCase) build() jsonrpc.Message {
	var id jsonrpc.ID
	switch c.idKind % 3 {
	case 1:
		id = jsonrpc.Int64ID(c.idNum)
	case 2:
		id = jsonrpc.StringID(c.idStr)
	}
	switch c.kind % 3 {
	case 0:
		return &jsonrpc.Request{ID: id, Method: c.method, Params: c.raw}
	case 1:
		return &jsonrpc.Response{ID: id, Result: c.raw}
	}
	return &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: c.code, Message: c.message, Data: c.data}}
}

func checkEncodeCase(t *testing.T, c encodeCase) {
	t.Helper()
	checkEncode(t, c.build())
	checkMarshal(t, json.RawMessage(c.raw))
	checkMarshal(t, c.method)
	if got, _ := jsonrpc.StringID(c.idStr).MarshalJSON(); !bytes.Equal(got, refMarshalID(jsonrpc.StringID(c.idStr))) {
		t.Fatalf("StringID(%q).MarshalJSON() = %s, want %s", c.idStr, got, refMarshalID(jsonrpc.StringID(c.idStr)))
	}
	if b, err := jsonrpc.EncodeMessage(c.build()); err == nil && bytes.ContainsAny(b, "\r\n") {
		t.Fatalf("encoding %q contains a line break", b)
	}
}

var encodeCases = []encodeCase{
	{raw: []byte(` { "a" : [ 1 , 2 ] , "b" : "x y" } `), method: "m"},
	{raw: []byte("{\n\t\"a\": \"line\\nbreak\",\r\n\t\"b\": null\n}"), method: "m", idKind: 1, idNum: -3},
	{raw: []byte(`{"a":1}x`), method: "m"},
	{raw: []byte(`{`), kind: 1, idKind: 1},
	{raw: []byte(` `), method: "m"},
	{raw: []byte{}, kind: 1, idKind: 2},
	{raw: []byte(`"x"`), method: "m"},
	{raw: []byte(`null`), kind: 1, idKind: 1},
	{raw: []byte("\"\u2028<&>\xff\""), kind: 1, idKind: 1},
	{method: "a<b>&c \u2028\u2029 \x00\x01\x1f\x7f \b\f\n\r\t \"\\ \xff\xfe\xc3 é 😀", idKind: 2, idStr: "<\u2029\xe2\x80>"},
	{kind: 2, code: -32603, message: "boom <&> \n\xff", data: []byte(` { "uri" : "file:///a" } `)},
	{kind: 2, idKind: 1, code: 1, data: []byte(`[1,`)},
	{kind: 2, idKind: 2, idStr: "q"},
}

func TestEncodeMatchesReference(t *testing.T) {
	for _, c := range encodeCases {
		checkEncodeCase(t, c)
	}
	for _, tc := range roundTrip {
		checkEncode(t, tc.want)
	}
	for _, tc := range malformed {
		_, err := refDecodeMessage([]byte(tc.frame))
		var de *jsonrpc.DecodeError
		if errors.As(err, &de) {
			checkEncode(t, &jsonrpc.Response{ID: de.ID, Error: de.Err})
		}
	}
	checkMarshal(t, json.RawMessage(nil))
	checkMarshal(t, map[string]any{"html": "<a href='x'>&amp;</a>", "n": 1.5, "raw": json.RawMessage(` [ 1 ] `)})
	checkMarshal(t, func() {})
}

func FuzzEncodeDifferential(f *testing.F) {
	for _, c := range encodeCases {
		f.Add(c.kind, c.idKind, c.idNum, c.idStr, c.method, c.raw, c.code, c.message, c.data)
	}
	for _, tc := range roundTrip {
		c := encodeCase{}
		switch m := tc.want.(type) {
		case *jsonrpc.Request:
			c.method, c.raw = m.Method, m.Params
			c.idKind, c.idNum, c.idStr = idFields(m.ID)
		case *jsonrpc.Response:
			c.kind, c.raw = 1, m.Result
			if m.Error != nil {
				c.kind, c.code, c.message, c.data = 2, m.Error.Code, m.Error.Message, m.Error.Data
			}
			c.idKind, c.idNum, c.idStr = idFields(m.ID)
		}
		f.Add(c.kind, c.idKind, c.idNum, c.idStr, c.method, c.raw, c.code, c.message, c.data)
	}
	for _, tc := range malformed {
		f.Add(uint8(0), uint8(2), int64(0), tc.name, tc.name, []byte(tc.frame), int64(tc.code), tc.name, []byte(tc.frame))
	}
	f.Fuzz(func(t *testing.T, kind, idKind uint8, idNum int64, idStr, method string, raw []byte, code int64, message string, data []byte) {
		checkEncodeCase(t, encodeCase{kind, idKind, idNum, idStr, method, raw, code, message, data})
	})
}

func idFields(id jsonrpc.ID) (kind uint8, n int64, s string) {
	switch v := id.Raw().(type) {
	case int64:
		return 1, v, ""
	case string:
		return 2, 0, v
	}
	return 0, 0, ""
}
