package call

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/internal/clitest"
	"github.com/mcpi-dev/mcpi/mcp"
)

// A plain call with --json that the server answers with a JSON-RPC error prints the
// error on stdout, data included, for scripts: the sentence on stderr cannot carry the
// data.
func TestJSONRPCErrorOnStdout(t *testing.T) {
	for _, era := range []string{mcp.LatestProtocolVersion, ""} {
		env := clitest.New(t, &connect.Selection{Protocol: era})
		err := runIn(t, env, &Options{Name: "fail_task", Args: []string{"mode=error"}, JSON: true})
		checkErr(t, err, "mcpi: the server returned an error: fail_task failed on purpose (JSON-RPC error -32050)", 1)
		var out map[string]json.RawMessage
		if json.Unmarshal(env.Out.Bytes(), &out) != nil || len(out) != 1 ||
			string(compact(t, out["error"])) != `{"code":-32050,"message":"fail_task failed on purpose","data":{"reason":"demo"}}` {
			t.Errorf("protocol %q: stdout %q, want the error with its data", era, env.Out)
		}
	}
	// An error the server did not send (the tool is unknown to mcpi's list) has nothing
	// for stdout.
	env := clitest.New(t, nil)
	err := runIn(t, env, &Options{Name: "no_such_tool", JSON: true})
	if _, code := clitest.Describe(err); code != 2 || env.Out.Len() != 0 {
		t.Errorf("unknown tool: exit %d, stdout %q", code, env.Out)
	}
}

func compact(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		t.Fatalf("not JSON: %q", b)
	}
	return buf.Bytes()
}
