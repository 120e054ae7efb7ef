package tasks

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpi-dev/mcpi/mcp"
)

// oldWithRelatedTaskMeta is WithRelatedTaskMeta as it was before the splice: the
// reference for the meaning of its output.
func oldWithRelatedTaskMeta(result json.RawMessage, id string) (json.RawMessage, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(result, &obj); err != nil {
		return nil, err
	}
	if obj == nil {
		obj = map[string]json.RawMessage{}
	}
	meta := map[string]json.RawMessage{}
	if raw, ok := obj["_meta"]; ok {
		if err := json.Unmarshal(raw, &meta); err != nil || meta == nil {
			meta = map[string]json.RawMessage{}
		}
	}
	rel, _ := json.Marshal(mcp.RelatedTaskMetadata{TaskID: id})
	meta[mcp.MetaRelatedTask] = rel
	obj["_meta"], _ = json.Marshal(meta)
	return json.Marshal(obj)
}

const relID = "6b0869bdf0eef31efc8c89e8022f384b"

func TestWithRelatedTaskMetaSplices(t *testing.T) {
	const meta = `"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"` + relID + `"}}`
	for in, want := range map[string]string{
		`{"content":[{"type":"text","text":"done"}]}`: `{` + meta + `,"content":[{"type":"text","text":"done"}]}`,
		// Every other byte stays: order, spacing, escapes, nested _meta.
		" \n{ \"b\" : 1,\"a\":[ 1, 2 ] ,\"c\":\"\\u003c<\"}\t":        " \n{" + meta + ", \"b\" : 1,\"a\":[ 1, 2 ] ,\"c\":\"\\u003c<\"}\t",
		`{"content":[{"_meta":{"x":1}}],"m":{"_meta":2},"s":"_meta"}`: `{` + meta + `,"content":[{"_meta":{"x":1}}],"m":{"_meta":2},"s":"_meta"}`,
		`{"isError":true,"content":[{"type":"text","text":"<b>&"}]}`:  `{` + meta + `,"isError":true,"content":[{"type":"text","text":"<b>&"}]}`,
		`{}`:     `{` + meta + `}`,
		`{ } `:   `{` + meta + ` } `,
		`{"":0}`: `{` + meta + `,"":0}`,
	} {
		got, err := WithRelatedTaskMeta(json.RawMessage(in), relID)
		if err != nil || string(got) != want {
			t.Errorf("WithRelatedTaskMeta(%q) = %s, %v\nwant %s", in, got, err, want)
		}
		checkRelated(t, []byte(in), relID)
	}
}

// The splice writes what the old re-encoding wrote for a compact result whose member
// names sort after "_meta", such as every result encoded from this module's types.
func TestWithRelatedTaskMetaMatchesOldBytes(t *testing.T) {
	for _, in := range []string{
		`{"content":[{"type":"text","text":"done"}]}`,
		`{"content":[],"isError":true,"structuredContent":{"a":1}}`,
		`{"role":"assistant","content":{"type":"text","text":"hi"},"model":"m"}`,
		`{"action":"accept","content":{"name":"x"}}`,
	} {
		got, err := WithRelatedTaskMeta(json.RawMessage(in), relID)
		if err != nil {
			t.Fatal(err)
		}
		old, _ := oldWithRelatedTaskMeta(json.RawMessage(in), relID)
		var a, b map[string]json.RawMessage
		_ = json.Unmarshal(got, &a)
		_ = json.Unmarshal(old, &b)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("WithRelatedTaskMeta(%s) = %s, old %s", in, got, old)
		}
		if strings.HasPrefix(in, `{"content"`) && string(got) != string(old) {
			t.Errorf("WithRelatedTaskMeta(%s) = %s, old wrote %s", in, got, old)
		}
	}
}

func TestWithRelatedTaskMetaMerges(t *testing.T) {
	for in, want := range map[string]string{
		`{"content":[],"_meta":{"progressToken":7}}`:                                  `{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t"},"progressToken":7},"content":[]}`,
		`{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"old"},"a":"<"}}`: `{"_meta":{"a":"<","io.modelcontextprotocol/related-task":{"taskId":"t"}}}`,
		`{"_meta":null,"x":1}`: `{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t"}},"x":1}`,
		`{"_meta":[1],"x":1}`:  `{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t"}},"x":1}`,
		// An escaped member name is read as a decoder reads it.
		`{"\u005fmeta":{"a":1}}`: `{"_meta":{"a":1,"io.modelcontextprotocol/related-task":{"taskId":"t"}}}`,
		`{"\u0061":1}`:           `{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t"}},"a":1}`,
		// null was taken for an empty object.
		`null`: `{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t"}}}`,
	} {
		got, err := WithRelatedTaskMeta(json.RawMessage(in), "t")
		if err != nil || string(got) != want {
			t.Errorf("WithRelatedTaskMeta(%s) = %s, %v\nwant %s", in, got, err, want)
		}
		checkRelated(t, []byte(in), "t")
	}
}

func TestWithRelatedTaskMetaRejectsNonObjects(t *testing.T) {
	for _, in := range []string{``, ` `, `[]`, `[{}]`, `"s"`, `1`, `true`, `{`, `{"a":}`, `{"a":1}x`, `{"a":1}{}`, `nul`} {
		got, err := WithRelatedTaskMeta(json.RawMessage(in), relID)
		if err == nil {
			t.Errorf("WithRelatedTaskMeta(%q) = %s, want an error", in, got)
			continue
		}
		if !strings.HasPrefix(err.Error(), "tasks: stored result is not an object: ") {
			t.Errorf("WithRelatedTaskMeta(%q): error %q", in, err)
		}
		checkRelated(t, []byte(in), relID)
	}
}

func TestWithRelatedTaskMetaQuotesID(t *testing.T) {
	for _, id := range []string{`a"b`, `a\b`, "tab\t", "é", "<&>"} {
		got, err := WithRelatedTaskMeta(json.RawMessage(`{"x":1}`), id)
		if err != nil {
			t.Fatal(err)
		}
		var r struct {
			Meta mcp.Meta `json:"_meta"`
		}
		if err := json.Unmarshal(got, &r); err != nil {
			t.Fatalf("%s: %v", got, err)
		}
		if tid, _ := r.Meta.RelatedTask(); tid != id {
			t.Errorf("id %q came back as %q in %s", id, tid, got)
		}
	}
}

// checkRelated holds WithRelatedTaskMeta to the old implementation: the same errors,
// and output that decodes to the same value.
func checkRelated(t *testing.T, in []byte, id string) {
	t.Helper()
	got, gotErr := WithRelatedTaskMeta(in, id)
	want, wantErr := oldWithRelatedTaskMeta(in, id)
	if (gotErr == nil) != (wantErr == nil) || gotErr != nil && !strings.HasSuffix(gotErr.Error(), wantErr.Error()) {
		t.Fatalf("WithRelatedTaskMeta(%q): error %v, old %v", in, gotErr, wantErr)
	}
	if gotErr != nil {
		return
	}
	if !json.Valid(got) {
		t.Fatalf("WithRelatedTaskMeta(%q) = %q: not JSON", in, got)
	}
	// Numbers as they are written: valid JSON may hold numbers no float64 holds.
	var a, b any
	for _, c := range []struct {
		raw []byte
		v   *any
	}{{got, &a}, {want, &b}} {
		d := json.NewDecoder(bytes.NewReader(c.raw))
		d.UseNumber()
		if err := d.Decode(c.v); err != nil {
			t.Fatal(err)
		}
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("WithRelatedTaskMeta(%q) = %s\nold %s", in, got, want)
	}
}

func FuzzWithRelatedTaskMeta(f *testing.F) {
	for _, s := range []string{`{"content":[{"type":"text","text":"done"}]}`, `{"_meta":{"a":1}}`, `{"a":"\"}\\"}`,
		`{"a":{"_meta":1},"b":[{"c":"]"}]}`, `{"\u005fmeta":1}`, `null`, `[]`, `{}`, ` { } `, `{"a":1}x`} {
		f.Add([]byte(s), relID)
	}
	f.Fuzz(func(t *testing.T, in []byte, id string) {
		checkRelated(t, in, id)
	})
}
