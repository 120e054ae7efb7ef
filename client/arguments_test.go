package client

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/mcpi-dev/mcpi/mcp"
)

var addTool = &mcp.Tool{
	Name: "add",
	InputSchema: json.RawMessage(`{
		"type": "object",
		"properties": {
			"a": {"type": "number"},
			"b": {"type": "number"},
			"n": {"type": "integer", "minimum": 1},
			"mode": {"type": "string", "enum": ["fast", "slow"]},
			"flag": {"type": "boolean"},
			"tags": {"type": "array", "items": {"type": "string"}},
			"opts": {"type": "object", "properties": {"size": {"type": "integer"}}, "additionalProperties": false},
			"either": {"anyOf": [{"type": "number"}, {"type": "string"}]}
		},
		"required": ["a", "b"]
	}`),
}

func TestValidateArguments(t *testing.T) {
	tests := []struct {
		args string
		want string // "" means valid
	}{
		{`{"a": 2, "b": 3}`, ""},
		{``, `argument "a" is required`},
		{`{"a": 2}`, `argument "b" is required`},
		{`{"a": "x", "b": 3}`, `argument "a" must be a number, not a string`},
		{`{"a": 1, "b": true}`, `argument "b" must be a number, not a boolean`},
		{`{"a": 1, "b": 2, "n": 2.5}`, `argument "n" must be an integer, not 2.5`},
		{`{"a": 1, "b": 2, "n": 0}`, `argument "n" must be at least 1`},
		{`{"a": 1, "b": 2, "mode": "medium"}`, `argument "mode" must be one of "fast", "slow"`},
		{`{"a": 1, "b": 2, "tags": ["x", 3]}`, `argument "tags[1]" must be a string, not a number`},
		{`{"a": 1, "b": 2, "opts": {"size": "big"}}`, `argument "opts.size" must be an integer, not a string`},
		{`{"a": 1, "b": 2, "opts": {"colour": "red"}}`, `argument "opts.colour" is not allowed here`},
		{`{"a": 1, "b": 2, "either": true}`, `argument "either" does not match any of the forms the tool accepts`},
		{`[1, 2]`, `the arguments must be a JSON object, not an array`},
		{`{"a": 1,`, `the arguments are not valid JSON`},
	}
	for _, tt := range tests {
		err := ValidateArguments(addTool, json.RawMessage(tt.args))
		if tt.want == "" {
			if err != nil {
				t.Errorf("ValidateArguments(%s) = %v, want nil", tt.args, err)
			}
			continue
		}
		var ae *ArgumentError
		if !errors.As(err, &ae) {
			t.Errorf("ValidateArguments(%s) = %v (%T), want an *ArgumentError", tt.args, err, err)
			continue
		}
		if got := err.Error(); got != tt.want {
			t.Errorf("ValidateArguments(%s) = %q, want %q", tt.args, got, tt.want)
		}
	}
}

func TestValidateArgumentsLenientSchemas(t *testing.T) {
	for _, schema := range []string{``, `{"type":"object"}`, `{"$ref": "https://example.com/remote.json"}`, `not json`} {
		tool := &mcp.Tool{Name: "t", InputSchema: json.RawMessage(schema)}
		if err := ValidateArguments(tool, json.RawMessage(`{"anything": 1}`)); err != nil {
			t.Errorf("schema %q: %v, want nil", schema, err)
		}
	}
	tool := &mcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object","additionalProperties":false}`)}
	err := ValidateArguments(tool, json.RawMessage(`{"x": 1}`))
	if err == nil || err.Error() != `argument "x" is not a parameter of this tool` {
		t.Errorf("extra argument: %v", err)
	}
}
