package server

import (
	"strings"
	"testing"

	"github.com/mcpi-dev/mcpi/mcp"
)

// parseRequestMeta reads the members of the last _meta, and leaves the params with the
// others, in their order, written compactly.
func TestParseRequestMeta(t *testing.T) {
	const v, c = `"io.modelcontextprotocol/protocolVersion":"2026-07-28"`, `"io.modelcontextprotocol/clientCapabilities":{"sampling":{}}`
	for _, tc := range []struct {
		params, out, err     string
		logLevel, clientInfo string
	}{
		{params: `{"name":"a","_meta":{` + v + `,` + c + `}}`, out: `{"name":"a"}`},
		{params: `{"_meta":{` + v + `,` + c + `}, "name":"a"}`, out: `{ "name":"a"}`},
		{params: ` { "_meta" : {` + v + `,` + c + `} } `, out: ` {  } `},
		{params: `{"a":1 , "_meta":{` + v + `,` + c + `} ,"b":2}`, out: `{"a":1  ,"b":2}`},
		{params: `{"_meta":{"progressToken":7,` + v + `, "x" : [1, 2],` + c + `,"a":1,"b":2,"c":3,"d":{"e":4}},"arguments":{}}`,
			out: `{"_meta":{"progressToken":7,"x":[1, 2],"a":1,"b":2,"c":3,"d":{"e":4}},"arguments":{}}`},
		{params: `{"_meta":{"progressToken":1},"_meta":{` + v + `,` + c + `,"io.modelcontextprotocol/logLevel":"info","io.modelcontextprotocol/clientInfo":{"name":"n"}}}`,
			out: `{"_meta":{"progressToken":1}}`, logLevel: "info", clientInfo: `{"name":"n"}`},
		{params: `{"_meta":{` + v + `,` + c + `},"_meta":null}`, err: "params._meta is required"},
		{params: `{"_meta":{` + c + `}}`, err: "is required"},
		{params: `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01",` + c + `}}`, err: "unsupported protocol version"},
		{params: `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-2\u0038",` + c + `}}`, out: `{}`},
		{params: `{"_meta":{` + v + `,"io.modelcontextprotocol/clientCapabilities":[]}}`, err: "is required (an object"},
		{params: `{"_meta":{` + v + `,` + c + `,"io.modelcontextprotocol/logLevel":"loud"}}`, err: "unknown logging level"},
		{params: `{"_meta":{` + v + `,` + c + `}`, err: "invalid params"},
		{params: `[]`, err: "invalid params"},
	} {
		info, out, err := parseRequestMeta([]byte(tc.params))
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.params, err, tc.err)
			}
		case err != nil:
			t.Errorf("%s: %v", tc.params, err)
		case string(out) != tc.out || info.version != mcp.ProtocolVersion20260728 || string(info.rawCaps) != `{"sampling":{}}` ||
			string(info.logLevel) != tc.logLevel || string(info.clientInfo) != tc.clientInfo:
			t.Errorf("%s: %s, %s %s %s %s", tc.params, out, info.version, info.rawCaps, info.logLevel, info.clientInfo)
		}
	}
}
