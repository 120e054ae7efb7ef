package call

import (
	"encoding/json"
	"testing"

	"github.com/mcpi-dev/mcpi/mcp"
)

// coerceTool has an argument of each JSON type, and one of either of two.
var coerceTool = &mcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"type": "object", "properties": {
	"a": {"type": "number"}, "n": {"type": "integer"}, "mode": {"type": "string", "enum": ["fast", "slow"]},
	"flag": {"type": "boolean"}, "tags": {"type": "array"}, "opts": {"type": "object"},
	"either": {"anyOf": [{"type": "number"}, {"type": "string"}]}}}`)}

func TestCoerceArgument(t *testing.T) {
	tests := []struct{ name, value, want string }{
		{"a", "2", `2`},
		{"a", "2.5", `2.5`},
		{"a", "abc", `"abc"`},
		{"a", "true", `true`},
		{"n", "7", `7`},
		{"mode", "fast", `"fast"`},
		{"mode", "123", `"123"`},
		{"flag", "false", `false`},
		{"tags", `["x","y"]`, `["x","y"]`},
		{"tags", `x`, `"x"`},
		{"opts", `{"size": 2}`, `{"size": 2}`},
		{"either", `5`, `5`},
		{"either", `five`, `"five"`},
		{"unknown", `5`, `"5"`},
	}
	for _, tt := range tests {
		if got := string(coerceArgument(coerceTool, tt.name, tt.value)); got != tt.want {
			t.Errorf("coerceArgument(%s=%s) = %s, want %s", tt.name, tt.value, got, tt.want)
		}
	}
}
