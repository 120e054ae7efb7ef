package jsonwire

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpi-dev/mcpi/internal/jsonwire/jsonwiretest"
)

// The reference for everything here is encoding/json with HTML escaping off.

var refMarshal = jsonwiretest.Marshal

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// show quotes b for a failure message, cut short: some inputs are nested 10000 deep.
func show[T ~[]byte | ~string](b T) string {
	const max = 300
	if len(b) > max {
		return strconv.Quote(string(b[:max])) + "…"
	}
	return strconv.Quote(string(b))
}

var stringSeeds = []string{
	"", "done", "<b>&</b>", "quote \" backslash \\ slash /", "ctl \x00\x01\b\f\n\r\t\x1f\x7f",
	"é€😀", "bad \xff\xfe utf8 \xed\xa0\x80 \xe2\x82", "sep \u2028\u2029", strings.Repeat("long text ", 50),
	"eight by", "eight b\"", "seven b", "12345678\n", "1234567\xff", "1234567é89", "\u2028234567890",
	"abcdefgh\xe2\x80\xa8ijklmnop\xe2\x80", "abcdefghijklmno\x00", strings.Repeat("é", 20),
	"a<b>&c \u2028\u2029 \x00\x01\x1f\x7f \b\f\n\r\t \"\\ \xff\xfe\xc3 é 😀",
}

func checkString(t *testing.T, s string) {
	t.Helper()
	want, _ := refMarshal(s)
	if got := AppendString([]byte("prefix"), s); string(got) != "prefix"+string(want) {
		t.Fatalf("AppendString(%q) = %s, want %s", s, got[len("prefix"):], want)
	}
}

func TestAppendString(t *testing.T) {
	for _, s := range stringSeeds {
		checkString(t, s)
		// Every special byte at every offset of the eight-byte words.
		for i := range 17 {
			checkString(t, strings.Repeat("x", i)+s+strings.Repeat("y", 16-i))
		}
	}
	for c := range 256 {
		for i := range 9 {
			checkString(t, strings.Repeat("a", i)+string([]byte{byte(c)})+"bcdefghijk")
		}
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range stringSeeds {
		f.Add(s)
	}
	f.Fuzz(checkString)
}

var scanSeeds = []string{
	``, ` `, `{}`, ` { } `, `[]`, `null`, `nul`, `true`, `false`, `0`, `-0`, `01`, `1.`, `1.5e+3`, `-`, `1e`,
	`"s"`, `"\u00e9\ud83d\ude00"`, `"\x"`, `"\u12"`, "\"tab\there\"", "\"bad \xff utf8\"",
	`{"a":1,"b":[1,2,{"c":null}],"d":"x y"}`, ` { "a" : [ 1 , 2 ] , "b" : "x y" } `,
	"{\n\t\"a\": \"line\\nbreak\",\r\n\t\"b\": null\n}",
	`{"a":1}x`, `{"a":1}{}`, `{"a":1,}`, `[1,]`, `{"a"}`, `{"a":}`, `{1:2}`, `{"a" 1}`, `[1 2]`,
	`{"n\u0061me":"x","a\"b":1}`, `{"a":1,"a":2}`,
	strings.Repeat("[", 100) + strings.Repeat("]", 100),
	strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	`{"a":` + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + `}`,
	`{"a":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`,
}

// refMembers lists the members of data, an object, with encoding/json.
func refMembers(data []byte) (names []string, values [][]byte, ok bool) {
	if !json.Valid(data) {
		return nil, nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil, false
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, false
		}
		names = append(names, tok.(string))
		values = append(values, v)
	}
	return names, values, true
}

// checkScan holds Valid, AppendRaw and Members to encoding/json.
func checkScan(t *testing.T, data []byte) {
	t.Helper()
	if got, want := Valid(data), json.Valid(data); got != want {
		t.Fatalf("Valid(%s) = %v, json.Valid says %v", show(data), got, want)
	}
	var want bytes.Buffer
	wantErr := json.Compact(&want, data)
	got, gotErr := AppendRaw([]byte("prefix"), data)
	if wantErr != nil {
		if gotErr == nil || string(got) != "prefix" {
			t.Fatalf("AppendRaw(%s) = %s, %v; json.Compact fails with %v", show(data), show(got), gotErr, wantErr)
		}
	} else if gotErr != nil || string(got) != "prefix"+want.String() {
		t.Fatalf("AppendRaw(%s) = %s, %v; json.Compact gives %s", show(data), show(got), gotErr, show(want.String()))
	}

	wantNames, wantValues, ok := refMembers(data)
	var names []string
	var values [][]byte
	err := Members(data, func(name, value []byte) {
		var s string
		if err := json.Unmarshal(name, &s); err != nil {
			t.Fatalf("Members(%s): name %s is not a string literal: %v", show(data), show(name), err)
		}
		names = append(names, s)
		values = append(values, value)
	})
	if (err == nil) != ok {
		t.Fatalf("Members(%s): error %v, want an error: %v", show(data), err, !ok)
	}
	if ok && (!reflect.DeepEqual(names, wantNames) || !reflect.DeepEqual(values, wantValues)) {
		t.Fatalf("Members(%s) = %q %q\nwant %q %q", show(data), names, values, wantNames, wantValues)
	}
}

func TestScan(t *testing.T) {
	for _, s := range scanSeeds {
		checkScan(t, []byte(s))
	}
}

func FuzzScan(f *testing.F) {
	for _, s := range scanSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkScan(t, data)
	})
}

// fixedMarshaler returns its bytes, or its error, from MarshalJSON.
type fixedMarshaler struct {
	out []byte
	err error
}

func (m fixedMarshaler) MarshalJSON() ([]byte, error) { return m.out, m.err }

// ptrMarshaler implements json.Marshaler only through its pointer.
type ptrMarshaler struct{ out []byte }

func (m *ptrMarshaler) MarshalJSON() ([]byte, error) { return m.out, nil }

// checkMarshal holds Marshal and AppendMarshal to encoding/json, errors included.
func checkMarshal(t *testing.T, v any) {
	t.Helper()
	want, wantErr := refMarshal(v)
	got, gotErr := Marshal(v)
	if errString(gotErr) != errString(wantErr) || !bytes.Equal(got, want) || (got == nil) != (want == nil) {
		t.Fatalf("Marshal(%#v)\n got %s, %v\nwant %s, %v", v, show(got), gotErr, show(want), wantErr)
	}
	if wantErr != nil {
		var wm, gm *json.MarshalerError
		if errors.As(wantErr, &wm) != errors.As(gotErr, &gm) {
			t.Fatalf("Marshal(%#v): error %T, want %T", v, gotErr, wantErr)
		}
	}
	got, gotErr = AppendMarshal([]byte("prefix"), v)
	if wantErr != nil {
		want = nil
	}
	if errString(gotErr) != errString(wantErr) || string(got) != "prefix"+string(want) {
		t.Fatalf("AppendMarshal(%#v)\n got %s, %v\nwant prefix%s, %v", v, show(got), gotErr, show(want), wantErr)
	}
}

func TestMarshal(t *testing.T) {
	for _, s := range stringSeeds {
		checkMarshal(t, s)
	}
	for _, s := range scanSeeds {
		checkMarshal(t, json.RawMessage(s))
		checkMarshal(t, fixedMarshaler{out: []byte(s)})
		checkMarshal(t, &ptrMarshaler{out: []byte(s)})
	}
	for _, v := range []any{
		nil,
		json.RawMessage(nil),
		map[string]any{"html": "<a href='x'>&amp;</a>", "n": 1.5, "raw": json.RawMessage(` [ 1 ] `)},
		[]any{"<", fixedMarshaler{out: []byte(` { "a" : "<" } `)}},
		fixedMarshaler{err: errors.New("boom")},
		fixedMarshaler{out: []byte(`{"a":1} x`)},
		(*ptrMarshaler)(nil),
		ptrMarshaler{out: []byte(`"not called"`)},
		struct{ M *ptrMarshaler }{},
		func() {},
		make(chan int),
		map[string]any{"f": func() {}},
	} {
		checkMarshal(t, v)
	}
}

func FuzzMarshal(f *testing.F) {
	for _, s := range stringSeeds {
		f.Add(s, []byte(s))
	}
	for _, s := range scanSeeds {
		f.Add(s, []byte(s))
	}
	f.Fuzz(func(t *testing.T, s string, raw []byte) {
		checkMarshal(t, s)
		checkMarshal(t, json.RawMessage(raw))
		checkMarshal(t, fixedMarshaler{out: raw})
		checkMarshal(t, map[string]any{s: s, "raw": fixedMarshaler{out: raw}})
	})
}

// recorder keeps what its UnmarshalJSON was called with, and fails when told to.
type recorder struct {
	got   []byte
	calls int
	fail  bool
}

func (r *recorder) UnmarshalJSON(data []byte) error {
	r.got = append(r.got[:0], data...)
	r.calls++
	if r.fail {
		return errors.New("refused " + string(data))
	}
	return nil
}

// checkUnmarshal holds Unmarshal to json.Unmarshal, for an Unmarshaler and for other
// targets.
func checkUnmarshal(t *testing.T, data []byte) {
	t.Helper()
	for _, fail := range []bool{false, true} {
		got, want := &recorder{fail: fail}, &recorder{fail: fail}
		gotErr, wantErr := Unmarshal(data, got), json.Unmarshal(data, want)
		if errString(gotErr) != errString(wantErr) || !reflect.DeepEqual(got, want) {
			t.Fatalf("Unmarshal(%s) into a recorder: %+v, %v\nwant %+v, %v", show(data), got, gotErr, want, wantErr)
		}
	}
	var gotAny, wantAny any
	if gotErr, wantErr := Unmarshal(data, &gotAny), json.Unmarshal(data, &wantAny); errString(gotErr) != errString(wantErr) ||
		!reflect.DeepEqual(gotAny, wantAny) {
		t.Fatalf("Unmarshal(%s) into any: %v, %v\nwant %v, %v", show(data), gotAny, gotErr, wantAny, wantErr)
	}
	var gotRaw, wantRaw json.RawMessage
	if gotErr, wantErr := Unmarshal(data, &gotRaw), json.Unmarshal(data, &wantRaw); errString(gotErr) != errString(wantErr) ||
		!bytes.Equal(gotRaw, wantRaw) {
		t.Fatalf("Unmarshal(%s) into a RawMessage: %s, %v\nwant %s, %v", show(data), gotRaw, gotErr, wantRaw, wantErr)
	}
}

func TestUnmarshal(t *testing.T) {
	for _, s := range scanSeeds {
		checkUnmarshal(t, []byte(s))
	}
	for _, s := range []string{" null ", "\t\"s\"\n", " 12 ", " [1] ", `{"a":1} `} {
		checkUnmarshal(t, []byte(s))
	}
	// Targets encoding/json refuses.
	var nilRecorder *recorder
	for _, v := range []any{nilRecorder, recorder{}, nil} {
		if gotErr, wantErr := Unmarshal([]byte(`{}`), v), json.Unmarshal([]byte(`{}`), v); errString(gotErr) != errString(wantErr) {
			t.Errorf("Unmarshal into %#v: %v, want %v", v, gotErr, wantErr)
		}
	}
}

func FuzzUnmarshal(f *testing.F) {
	for _, s := range scanSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkUnmarshal(t, data)
	})
}

// A json.RawMessage's bytes are its holder's: Marshal copies them.
func TestMarshalCopiesRawMessage(t *testing.T) {
	raw := json.RawMessage(`{"a":1}`)
	b, err := Marshal(raw)
	if err != nil {
		t.Fatal(err)
	}
	raw[2] = 'b'
	if string(b) != `{"a":1}` {
		t.Errorf("Marshal's output changed with its input: %s", b)
	}
}

// String decodes what encoding/json decodes into a string, and refuses what it refuses.
func checkUnquote(t *testing.T, raw []byte) {
	t.Helper()
	got, ok := String(raw)
	var want string
	err := json.Unmarshal(raw, &want)
	wantOK := err == nil && len(raw) > 0 && raw[0] == '"' && raw[len(raw)-1] == '"'
	if ok != wantOK || got != want && ok {
		t.Errorf("String(%q) = %q, %v; want %q, %v", raw, got, ok, want, wantOK)
	}
}

func TestString(t *testing.T) {
	for _, s := range []string{`""`, `"abc"`, `"a\"b"`, `"\u00e9t\u00e9"`, "\"caf\xc3\xa9\"", "\"bad\xff\"", `"tab	in"`,
		`"12345678901234567890"`, `"a"b"`, `"a\"`, `"`, `null`, `12`, `{}`, ` "a"`, `"a" `, `"\ud83d\ude00"`, `"\ud83d"`} {
		checkUnquote(t, []byte(s))
	}
}

func FuzzString(f *testing.F) {
	for _, s := range []string{`"abc"`, `"a\nb"`, "\"\xff\"", `"\u0041"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkUnquote(t, raw)
	})
}

// EachMember finds in a valid object the members Members finds.
func checkEachMember(t *testing.T, data []byte) {
	t.Helper()
	var want, got [][2]string
	if Members(data, func(name, value []byte) { want = append(want, [2]string{string(name), string(value)}) }) != nil {
		EachMember(data, func(name, value []byte) {}) // stops, whatever it is
		return
	}
	EachMember(data, func(name, value []byte) { got = append(got, [2]string{string(name), string(value)}) })
	if !slices.Equal(got, want) {
		t.Errorf("EachMember(%s) = %q, want %q", data, got, want)
	}
}

var memberSeeds = []string{
	`{}`, ` { } `, `{"a":1}`, `{"a" : "x\"y" , "b":[1,{"c":"]}"}],"d":null,"e":true,"f":-1.5e3}`,
	`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"sampling":{}}}`,
	`{"k\\":"v\\\\","x":"\u00e9\ud83d\ude00 long enough to be read eight bytes at a time"}`,
	"{\"a\":\"tab\tx\"}", `{"a":1`, `[1]`, `{"a":}`, `{"a":"`, `{"a":{"b":[`, `{"a" 1}`, `{"a":1,}`,
}

func TestEachMember(t *testing.T) {
	for _, s := range memberSeeds {
		checkEachMember(t, []byte(s))
	}
}

func FuzzEachMember(f *testing.F) {
	for _, s := range memberSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkEachMember(t, data)
	})
}

// MembersWithin passes on what Members does, with the same error, and the members of
// the inner objects as Members finds them.
func checkWithin(t *testing.T, data []byte) {
	t.Helper()
	var want, got, inner, wantInner [][2]string
	wantErr := Members(data, func(name, value []byte) {
		want = append(want, [2]string{string(name), string(value)})
		if string(name) == `"_meta"` {
			_ = Members(value, func(n, v []byte) { wantInner = append(wantInner, [2]string{string(n), string(v)}) })
		}
	})
	err := MembersWithin(data, `"_meta"`,
		func(name, value []byte) { got = append(got, [2]string{string(name), string(value)}) },
		func(name, value []byte) { inner = append(inner, [2]string{string(name), string(value)}) })
	if errString(err) != errString(wantErr) || !slices.Equal(got, want) {
		t.Fatalf("MembersWithin(%s) = %q, %v; want %q, %v", data, got, err, want, wantErr)
	}
	if err == nil && !slices.Equal(inner, wantInner) {
		t.Fatalf("MembersWithin(%s) found inside %q, want %q", data, inner, wantInner)
	}
}

func TestMembersWithin(t *testing.T) {
	for _, s := range append(memberSeeds, `{"_meta":{}}`, `{"_meta":1,"_meta":{"a":[1]} , "b":2}`, `{"_meta":{"a":}}`,
		`{"x":{"_meta":{"no":1}},"_meta":{"k":"v","l":{"m":null}}}`, `{"_meta":{"a":1,}}`, `{"_meta":{"a":1} x`, `{"_meta":{"a":1}`) {
		checkWithin(t, []byte(s))
	}
}

func FuzzMembersWithin(f *testing.F) {
	for _, s := range append(memberSeeds, `{"_meta":{"a":1},"b":[{"_meta":2}]}`) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkWithin(t, data)
	})
}

// Member picks one member's value out of an object, the last of a repeated name as
// encoding/json would, with the name matched as written (escapes and all).
func TestMember(t *testing.T) {
	for _, c := range []struct {
		data, name, want string
		err              bool
	}{
		{`{"a":1,"b":{"a":2}}`, `"a"`, `1`, false},
		{`{"a":1,"a":[2]}`, `"a"`, `[2]`, false},
		{` {"b":null} `, `"b"`, `null`, false},
		{`{"b":1}`, `"a"`, ``, false},
		{`{"\u0061":1}`, `"a"`, ``, false},
		{`{"\u0061":1}`, `"\u0061"`, `1`, false},
		{`{"a":1,`, `"a"`, `1`, true},
		{`[1]`, `"a"`, ``, true},
	} {
		got, err := Member([]byte(c.data), c.name)
		if string(got) != c.want || (err != nil) != c.err {
			t.Errorf("Member(%s, %s) = %q, %v; want %q (error %v)", c.data, c.name, got, err, c.want, c.err)
		}
		if c.want == "" && got != nil {
			t.Errorf("Member(%s, %s) = %q, want nil", c.data, c.name, got)
		}
	}
}

// checkSkimString holds SkimString to Member: on a valid object with one member of the
// name, it finds that member's value when it is a string without escapes, and nothing
// else; on any bytes it never panics, and what it finds is a string's inside.
func checkSkimString(t *testing.T, data []byte, name string) {
	t.Helper()
	got, ok := SkimString(data, name)
	if ok && (bytes.IndexByte(got, '"') >= 0 || bytes.IndexByte(got, '\\') >= 0) {
		t.Fatalf("SkimString(%s, %s) = %q, not a string's inside", data, name, got)
	}
	n := 0
	if Members(data, func(m, _ []byte) {
		if string(m) == name {
			n++
		}
	}) != nil || n != 1 {
		return // not valid JSON, or not one such member: a guess either way
	}
	want, _ := Member(data, name)
	plain := len(want) >= 2 && want[0] == '"' && bytes.IndexByte(want, '\\') < 0
	if ok != plain || ok && `"`+string(got)+`"` != string(want) {
		t.Fatalf("SkimString(%s, %s) = %q, %v; Member gives %s", data, name, got, ok, want)
	}
}

func TestSkimString(t *testing.T) {
	for _, c := range []struct {
		data, want string
		ok         bool
	}{
		{`{"name":"echo","arguments":{}}`, "echo", true},
		{` {"_meta":{"name":"no","x":["}",{"name":"no"}]},"arguments":{"name":"no"} , "name" : "yes"} `, "yes", true},
		{`{"_meta":{"a":"\"name\":\"no\""},"name":"yes"}`, "yes", true},
		{`{"name":"a\"b"}`, "", false},
		{`{"name":1}`, "", false},
		{`{"name":"cut`, "", false},
		{`{"name":"`, "", false},
		{`{"other":"x"}`, "", false},
		{`["name","x"]`, "", false},
		{`{"a":{"name":"x"`, "", false},
	} {
		got, ok := SkimString([]byte(c.data), `"name"`)
		if string(got) != c.want || ok != c.ok {
			t.Errorf("SkimString(%s) = %q, %v; want %q, %v", c.data, got, ok, c.want, c.ok)
		}
		checkSkimString(t, []byte(c.data), `"name"`)
	}
	for _, s := range memberSeeds {
		checkSkimString(t, []byte(s), `"a"`)
	}
}

func FuzzSkimString(f *testing.F) {
	for _, s := range append(memberSeeds, `{"_meta":{"name":"x"},"name":"y"}`, `{"name":"y","name":"z"}`) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkSkimString(t, data, `"name"`)
		checkSkimString(t, data, `"a"`)
	})
}
