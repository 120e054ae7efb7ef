package call

import (
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
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		// Where it goes wrong, as a config file's error says: a quote left out by the
		// shell is hard to see in a long object.
		return nil, cmdutil.UsageErrorf("--args-json is not valid JSON: %v", cmdutil.JSONSyntaxError([]byte(s), err))
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
