package client_test

import (
	"encoding/json"
	"testing"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/mcp"
)

// A result is checked against the tool's output schema: the structured content must be
// there and fit; a tool without one, and a tool error, pass.
func TestValidateStructuredContent(t *testing.T) {
	sum := &mcp.Tool{Name: "add", OutputSchema: json.RawMessage(`{"type":"object","properties":{"sum":{"type":"number"}},"required":["sum"],"additionalProperties":false}`)}
	res := func(sc string) *mcp.CallToolResult {
		return &mcp.CallToolResult{StructuredContent: json.RawMessage(sc)}
	}
	for _, tt := range []struct {
		name string
		tool *mcp.Tool
		res  *mcp.CallToolResult
		want string
	}{
		{"fits", sum, res(`{"sum":42}`), ""},
		{"wrong type", sum, res(`{"sum":"forty-two"}`), `the structuredContent does not fit the tool's output schema: field "sum" must be a number, not a string`},
		{"missing field", sum, res(`{}`), `the structuredContent does not fit the tool's output schema: field "sum" is required`},
		{"extra field", sum, res(`{"sum":1,"x":2}`), `the structuredContent does not fit the tool's output schema: field "x" is not a field of the output schema`},
		{"not an object", sum, res(`[1]`), `the structuredContent does not fit the tool's output schema: it must be an object, not an array`},
		{"none", sum, res(``), `the result has no structuredContent, which the tool's output schema calls for`},
		{"tool error", sum, &mcp.CallToolResult{IsError: true}, ""},
		{"no output schema", &mcp.Tool{Name: "echo"}, res(`{"sum":"x"}`), ""},
	} {
		err := client.ValidateStructuredContent(tt.tool, tt.res)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("%s: got  %q\nwant %q", tt.name, got, tt.want)
		}
	}
}
