package transport

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpi-dev/mcpi/jsonrpc"
)

// The examples of the 2026-07-28 specification (basic/transports/streamable-http).
func TestEncodeHeaderValue(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"us-west1", "us-west1"},
		{"", ""},
		{"Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="},
		{" padded ", "=?base64?IHBhZGRlZCA=?="},
		{"=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="},
		{"tab\tinside", "=?base64?dGFiCWluc2lkZQ==?="},
		{"line\r\nbreak", "=?base64?bGluZQ0KYnJlYWs=?="},
		{"\x1b]0;title\x07", "=?base64?G10wO3RpdGxlBw==?="},
		{"inner space ok", "inner space ok"},
	} {
		if got := EncodeHeaderValue(c.in); got != c.want {
			t.Errorf("EncodeHeaderValue(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestMirrorHeaders(t *testing.T) {
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`
	for _, c := range []struct {
		method, params string
		want           map[string]string // "" = absent
	}{
		{"tools/call", `{"name":"get_weather",` + meta + `}`, map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "get_weather"}},
		{"prompts/get", `{"name":"café",` + meta + `}`, map[string]string{"Mcp-Name": "=?base64?Y2Fmw6k=?="}},
		{"resources/read", `{"uri":"file:///a b",` + meta + `}`, map[string]string{"Mcp-Name": "file:///a b"}},
		{"tasks/get", `{"taskId":"t-1",` + meta + `}`, map[string]string{"Mcp-Method": "tasks/get", "Mcp-Name": "t-1"}},
		{"tools/list", `{` + meta + `}`, map[string]string{"Mcp-Method": "tools/list", "Mcp-Name": ""}},
		// 2025-11-25 requests get nothing from here.
		{"tools/call", `{"name":"x"}`, map[string]string{"Mcp-Method": "", "Mcp-Name": "", "Mcp-Protocol-Version": ""}},
	} {
		base := http.Header{"X-Keep": {"1"}}
		h, modern := mirrorHeaders(base, &jsonrpc.Request{Method: c.method, Params: []byte(c.params)})
		if modern != (c.want["Mcp-Method"] != "" || c.want["Mcp-Name"] != "" || c.want["Mcp-Protocol-Version"] != "") {
			t.Errorf("%s %s: modern = %v", c.method, c.params, modern)
		}
		for k, v := range c.want {
			if got := h.Get(k); got != v {
				t.Errorf("%s %s: %s = %q, want %q", c.method, c.params, k, got, v)
			}
		}
		if h.Get("X-Keep") != "1" || len(base) != 1 {
			t.Errorf("%s: the headers given were not kept as they were: %v, %v", c.method, h, base)
		}
	}
}

// FuzzMirrorHeaders checks mirrorHeaders, which reads the params with the scanner of
// internal/jsonwire, against encoding/json reading them into maps (exact names, the last
// of a repeated name counting, as the server reads them).
func FuzzMirrorHeaders(f *testing.F) {
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"x"}}`
	for _, seed := range []string{
		`{"name":"get_weather","arguments":{"name":1,"_meta":{}},` + meta + `}`,
		`{"uri":"file:///a b",` + meta + `}`,
		`{"taskId":"t-\u00e9",` + meta + `}`,
		`{"name":null,` + meta + `}`,
		`{"name":5,` + meta + `}`,
		`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"_meta":{}}`,
		`{"_meta":"io.modelcontextprotocol/protocolVersion"}`,
		`{"Name":"x",` + meta + `}`,
		`{"name":"x"}`,
	} {
		for _, m := range []string{"tools/call", "resources/read", "tasks/get", "tools/list"} {
			f.Add(m, seed)
		}
	}
	f.Fuzz(func(t *testing.T, method, params string) {
		h, modern := mirrorHeaders(nil, &jsonrpc.Request{Method: method, Params: []byte(params)})
		want := map[string]string{}
		wantModern := func() bool {
			if !strings.Contains(params, string(metaVersionKey)) {
				return false
			}
			var top map[string]json.RawMessage
			if json.Unmarshal([]byte(params), &top) != nil {
				return false
			}
			str := func(raw json.RawMessage) (*string, bool) {
				if raw == nil {
					return nil, true
				}
				var s *string
				return s, json.Unmarshal(raw, &s) == nil
			}
			var m map[string]json.RawMessage
			if json.Unmarshal(top["_meta"], &m) != nil {
				m = nil
			}
			v, ok := str(m[string(metaVersionKey[1:len(metaVersionKey)-1])])
			if !ok || v == nil || *v == "" {
				return false
			}
			name, ok1 := str(top["name"])
			uri, ok2 := str(top["uri"])
			task, ok3 := str(top["taskId"])
			if !ok1 || !ok2 || !ok3 {
				return false
			}
			want[HeaderProtocolVersion], want[HeaderMethod] = *v, method
			var n *string
			switch {
			case method == "tools/call" || method == "prompts/get":
				n = name
			case method == "resources/read":
				n = uri
			case strings.HasPrefix(method, "tasks/"):
				n = task
			}
			if n != nil {
				want[HeaderName] = EncodeHeaderValue(*n)
			}
			return true
		}()
		if modern != wantModern {
			t.Fatalf("%s %s: modern %v, want %v", method, params, modern, wantModern)
		}
		if !modern {
			if h != nil {
				t.Fatalf("%s %s: headers %v for a request that is not of 2026-07-28", method, params, h)
			}
			return
		}
		for _, k := range []string{HeaderProtocolVersion, HeaderMethod, HeaderName} {
			if got := h.Get(k); got != want[k] {
				t.Fatalf("%s %s: %s = %q, want %q", method, params, k, got, want[k])
			}
		}
	})
}

// BenchmarkMirrorHeaders: the headers of a tools/call as mcpi's client sends it in
// 2026-07-28 (the client's _meta, a few arguments).
func BenchmarkMirrorHeaders(b *testing.B) {
	r := &jsonrpc.Request{Method: "tools/call", Params: []byte(`{"name":"echo","arguments":{"text":"hello","n":3,"tags":["a","b"]},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"mcpi","version":"0.1.0"}}}`)}
	b.ReportAllocs()
	for b.Loop() {
		if _, modern := mirrorHeaders(nil, r); !modern {
			b.Fatal("not modern")
		}
	}
}
