package info_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/info"
	"github.com/mcpi-dev/mcpi/internal/cli/internal/clitest"
	"github.com/mcpi-dev/mcpi/internal/scripted"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// run runs "info" (with --json when jsonOut) against the server at url.
func run(t *testing.T, url string, jsonOut bool) string {
	t.Helper()
	env := clitest.New(t, &connect.Selection{URL: url})
	if err := info.Run(clitest.Context(t), &info.Options{IO: env.IO, Connect: env.Factory.Connect, JSON: jsonOut}); err != nil {
		msg, code := clitest.Describe(err)
		t.Fatalf("info: %s (exit %d)", msg, code)
	}
	return env.Out.String()
}

// A 2026-07-28 server names itself in the _meta of server/discover: info shows its name
// and version, and --json the serverInfo as it came.
func TestInfoServerInfo(t *testing.T) {
	f := scripted.New(t)
	if out := run(t, f.HTTP(), false); !strings.HasPrefix(out, "server        fake2026 9\n") {
		t.Errorf("info:\n%s", out)
	}
	var r info.Result
	if err := json.Unmarshal([]byte(run(t, f.HTTP(), true)), &r); err != nil || r.ServerInfo == nil || r.ServerInfo.Name != "fake2026" || r.ServerInfo.Version != "9" {
		t.Errorf("info --json: serverInfo %+v (%v)", r.ServerInfo, err)
	}
}

// A 2026-07-28 server may send no serverInfo: info says it was not given, and --json
// has none, rather than a name and version that the server never sent.
func TestInfoNoServerInfo(t *testing.T) {
	f := scripted.New(t)
	f.On(mcp.MethodServerDiscover, func(context.Context, *jsonrpc.Request) (any, error) {
		return scripted.Raw(`{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}}}`), nil
	})
	out := run(t, f.HTTP(), false)
	if !strings.HasPrefix(out, "server        not given (the server sent no serverInfo)\nprotocol      2026-07-28 ") {
		t.Errorf("info:\n%s", out)
	}
	var r map[string]json.RawMessage
	if err := json.Unmarshal([]byte(run(t, f.HTTP(), true)), &r); err != nil || r["protocolVersion"] == nil {
		t.Fatalf("info --json: %v", err)
	}
	if si, ok := r["serverInfo"]; ok {
		t.Errorf("info --json has serverInfo %s, which the server did not send", si)
	}
}
