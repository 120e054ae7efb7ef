package mcp

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// oldMeta is Meta as it decoded before the fast decoder: the reference that the
// differential tests hold the fast decoder to.
type oldMeta map[string]any

func (m *oldMeta) UnmarshalJSON(data []byte) error {
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		*m = nil
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var raw map[string]any
	if err := dec.Decode(&raw); err != nil {
		return err
	}
	*m = raw
	return nil
}

var metaSeeds = []string{
	`{}`,
	` { } `,
	"\t\r\n{\"a\" :\n1 , \"b\":[ ]}\n",
	`null`,
	` null `,
	"\vnull",
	`nul`,
	``,
	` `,
	`{"io.modelcontextprotocol/related-task":{"taskId":"6b0869bdf0eef31efc8c89e8022f384b"}}`,
	`{"progressToken":42,"tags":["a","b\n",true,false,null,-1.5e3,0,-0,1E+2,2e-2,0.5],"n":{"x":{"y":[{}, [], [[]]]}}}`,
	`{"a":1,"a":2}`,
	`{"a":{"b":1},"a":{"c":2}}`,
	`{"s":"\"\\\/\b\f\n\r\t\u0000\u001f\u00e9\u20AC\ud83d\ude00"}`,
	`{"lone high":"\ud800","lone low":"\udc00","high then char":"\ud800x","high high":"\ud800\ud800","high escape":"\ud800\n","reversed":"\udc00\ud800"}`,
	"{\"bad utf8\":\"\xff\xfe a \xc3\x28 \xed\xa0\x80 \xe2\x82\"}",
	"{\"\xff key\":1}",
	"{\"u2028\":\"\u2028\u2029\"}",
	`{"k\u0041y":"v","progressToken":"p","taskId":null}`,
	`{"a":01}`,
	`{"a":1.}`,
	`{"a":.5}`,
	`{"a":1e}`,
	`{"a":-}`,
	`{"a":+1}`,
	`{"a":tru}`,
	`{"a":truex}`,
	`{"a":nulll}`,
	`{"a":"\x"}`,
	`{"a":"\'"}`,
	`{"a":"\u12"}`,
	`{"a":"\u12G4"}`,
	"{\"a\":\"tab\there\"}",
	`{"a":1,}`,
	`{,"a":1}`,
	`{"a" 1}`,
	`{a:1}`,
	`{"a":[1,]}`,
	`{"a":[,1]}`,
	`{"a":1`,
	`{"a":"x`,
	`{"a":1}}`,
	`{"a":1} {"b":2}`,
	`{"a":1} x`,
	`{"a":1}null`,
	`[1,2]`,
	`[]`,
	`"str"`,
	`12`,
	`-1.5`,
	`true`,
	`false`,
	` [ ] `,
	`{"a":[1,2,{"b":[3,{"c":"d"}]}]}`,
	strings.Repeat(`{"a":`, 50) + `1` + strings.Repeat(`}`, 50),
	strings.Repeat(`[`, 60) + strings.Repeat(`]`, 60),
}

// checkMeta holds the fast decoder to the old one on data, called directly and from
// encoding/json inside a document.
func checkMeta(t *testing.T, data []byte) {
	t.Helper()
	var got Meta
	var want oldMeta
	gotErr := got.UnmarshalJSON(data)
	wantErr := want.UnmarshalJSON(data)
	if errString(gotErr) != errString(wantErr) {
		t.Fatalf("UnmarshalJSON(%q): error %v, want %v", data, gotErr, wantErr)
	}
	if !reflect.DeepEqual(map[string]any(got), map[string]any(want)) {
		t.Fatalf("UnmarshalJSON(%q) = %#v, want %#v", data, got, want)
	}
	if wantErr == nil && json.Valid(data) && bytes.TrimSpace(data)[0] == '{' {
		if _, ok := decodeMetaObject(data); !ok {
			t.Fatalf("the fast decoder rejected the valid object %q", data)
		}
	}

	doc := append(append([]byte(`{"x":1,"_meta":`), data...), `,"y":[2]}`...)
	var gotDoc struct {
		Meta Meta `json:"_meta"`
		Y    []int
	}
	var wantDoc struct {
		Meta oldMeta `json:"_meta"`
		Y    []int
	}
	gotErr = json.Unmarshal(doc, &gotDoc)
	wantErr = json.Unmarshal(doc, &wantDoc)
	if errString(gotErr) != errString(wantErr) {
		t.Fatalf("json.Unmarshal(%q): error %v, want %v", doc, gotErr, wantErr)
	}
	if !reflect.DeepEqual(map[string]any(gotDoc.Meta), map[string]any(wantDoc.Meta)) || !reflect.DeepEqual(gotDoc.Y, wantDoc.Y) {
		t.Fatalf("json.Unmarshal(%q) = %#v, want %#v", doc, gotDoc, wantDoc)
	}
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

func TestMetaUnmarshalMatchesEncodingJSON(t *testing.T) {
	for _, s := range metaSeeds {
		checkMeta(t, []byte(s))
	}
}

func TestMetaUnmarshalDepth(t *testing.T) {
	for _, n := range []int{maxMetaDepth - 1, maxMetaDepth, maxMetaDepth + 1} {
		open := `{"a":` + strings.Repeat("[", n-1)
		data := []byte(open + strings.Repeat("]", n-1) + "}")
		var got Meta
		var want oldMeta
		if errString(got.UnmarshalJSON(data)) != errString(want.UnmarshalJSON(data)) {
			t.Errorf("depth %d: errors differ", n)
		}
		if !reflect.DeepEqual(map[string]any(got), map[string]any(want)) {
			t.Errorf("depth %d: values differ", n)
		}
	}
}

func TestMetaUnmarshalValues(t *testing.T) {
	var m Meta
	if err := m.UnmarshalJSON([]byte(`{"progressToken":12345678901234567890,"s":"\ud83d\ude00\ud800","a":[],"o":{}}`)); err != nil {
		t.Fatal(err)
	}
	want := Meta{
		"progressToken": json.Number("12345678901234567890"),
		"s":             "\U0001F600\uFFFD",
		"a":             []any{},
		"o":             map[string]any{},
	}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("got %#v, want %#v", m, want)
	}
	// A Meta being decoded into is replaced, not merged into.
	if err := m.UnmarshalJSON([]byte(`{"x":true}`)); err != nil || !reflect.DeepEqual(m, Meta{"x": true}) {
		t.Errorf("second decode = %#v, %v", m, err)
	}
}

func FuzzMetaUnmarshal(f *testing.F) {
	for _, s := range metaSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkMeta(t, data)
	})
}
