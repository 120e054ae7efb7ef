package transport

import (
	"net/http"
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
