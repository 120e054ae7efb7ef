package mcp

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestHeaderParams(t *testing.T) {
	for _, c := range []struct {
		name, schema string
		want         []HeaderParam
		bad          string // part of the reason, when invalid
	}{
		{"none", `{"type":"object","properties":{"a":{"type":"string"}}}`, nil, ""},
		{"flat", `{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"n":{"type":"integer","x-mcp-header":"N"},"b":{"type":"boolean","x-mcp-header":"B"}}}`,
			[]HeaderParam{{"B", []string{"b"}, "boolean"}, {"N", []string{"n"}, "integer"}, {"Region", []string{"region"}, "string"}}, ""},
		{"nested", `{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"string","x-mcp-header":"AB"}}}}}`,
			[]HeaderParam{{"AB", []string{"a", "b"}, "string"}}, ""},
		{"number", `{"type":"object","properties":{"x":{"type":"number","x-mcp-header":"X"}}}`, nil, "type number"},
		{"array", `{"type":"object","properties":{"x":{"type":"array","x-mcp-header":"X"}}}`, nil, "type array"},
		{"no type", `{"type":"object","properties":{"x":{"x-mcp-header":"X"}}}`, nil, "only string"},
		{"empty", `{"type":"object","properties":{"x":{"type":"string","x-mcp-header":""}}}`, nil, "not a valid header name"},
		{"space", `{"type":"object","properties":{"x":{"type":"string","x-mcp-header":"A B"}}}`, nil, "not a valid header name"},
		{"colon", `{"type":"object","properties":{"x":{"type":"string","x-mcp-header":"A:B"}}}`, nil, "not a valid header name"},
		{"non-ascii", `{"type":"object","properties":{"x":{"type":"string","x-mcp-header":"Régión"}}}`, nil, "not a valid header name"},
		{"twice", `{"type":"object","properties":{"x":{"type":"string","x-mcp-header":"Dup"},"y":{"type":"string","x-mcp-header":"dup"}}}`, nil, "declared twice"},
		{"items", `{"type":"object","properties":{"l":{"type":"array","items":{"type":"string","x-mcp-header":"L"}}}}`, nil, "reached through properties alone"},
		{"anyOf", `{"type":"object","properties":{"u":{"anyOf":[{"type":"string","x-mcp-header":"U"}]}}}`, nil, "reached through properties alone"},
		{"defs", `{"type":"object","$defs":{"d":{"type":"string","x-mcp-header":"D"}},"properties":{"x":{"$ref":"#/$defs/d"}}}`, nil, "reached through properties alone"},
		{"not a string", `{"type":"object","properties":{"x":{"type":"string","x-mcp-header":5}}}`, nil, "must be a string"},
	} {
		tool := Tool{Name: c.name, InputSchema: json.RawMessage(c.schema)}
		got, err := tool.HeaderParams()
		var hp *HeaderParamError
		switch {
		case c.bad == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.bad != "" && (!errors.As(err, &hp) || !strings.Contains(err.Error(), c.bad)):
			t.Errorf("%s: error %v, want a *HeaderParamError saying %q", c.name, err, c.bad)
		case c.bad == "" && !reflect.DeepEqual(got, c.want):
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}

func TestHeaderParamValues(t *testing.T) {
	params := []HeaderParam{{"S", []string{"s"}, "string"}, {"I", []string{"i"}, "integer"}, {"B", []string{"o", "b"}, "boolean"}}
	got, err := HeaderParamValues(params, json.RawMessage(`{"s":"x y","i":-7,"o":{"b":true}}`))
	if err != nil || !reflect.DeepEqual(got, map[string]string{"S": "x y", "I": "-7", "B": "true"}) {
		t.Errorf("values = %v, %v", got, err)
	}
	// Absent and null give no header.
	got, err = HeaderParamValues(params, json.RawMessage(`{"s":null}`))
	if err != nil || len(got) != 0 {
		t.Errorf("absent/null: %v, %v", got, err)
	}
	for _, args := range []string{`{"i":9007199254740992}`, `{"i":1.5}`, `{"i":"7"}`, `{"s":["a"]}`, `{"s":true}`} {
		if _, err := HeaderParamValues(params, json.RawMessage(args)); err == nil {
			t.Errorf("%s: no error", args)
		}
	}
	if got, err := HeaderParamValues(params, json.RawMessage(`{"i":9007199254740991}`)); err != nil || got["I"] != "9007199254740991" {
		t.Errorf("2^53-1: %v, %v", got, err)
	}
}
