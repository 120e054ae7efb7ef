package call

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/mcp"
)

// parseArgsJSON reads --args-json, which must be a JSON object.
func parseArgsJSON(s string) (map[string]json.RawMessage, error) {
	m := map[string]json.RawMessage{}
	if strings.TrimSpace(s) == "" {
		return m, nil
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return nil, cmdutil.UsageErrorf("--args-json is not valid JSON")
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, cmdutil.UsageErrorf("--args-json must be a JSON object, such as '{\"a\": 1}'")
	}
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return nil, cmdutil.UsageErrorf("--args-json is not valid JSON")
	}
	return m, nil
}

// coerceArgument turns a value typed by a user for the argument name of tool into JSON,
// by the type the tool's input schema gives the argument ([cmdutil.CoerceValue]).
func coerceArgument(tool *mcp.Tool, name, value string) json.RawMessage {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if tool != nil {
		_ = json.Unmarshal(tool.InputSchema, &s)
	}
	return cmdutil.CoerceValue(s.Properties[name], value)
}
