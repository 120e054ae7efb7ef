package root

import (
	"encoding/json"
	"strings"
	"testing"
)

// "mcpi info" shows what the server declared, in the session's era: the demo's name,
// the protocol agreed, its capabilities, its task support in that era's terms and its
// instructions; --json gives the same as the server sent it.
func TestInfo(t *testing.T) {
	for _, tt := range []struct {
		protocol string
		want     []string
	}{
		{"2025-11-25", []string{
			"server        mcpi-demo ",
			"protocol      2025-11-25 (legacy era)\n",
			"resources     yes (subscriptions, tells of list changes)\n",
			"tasks         tools/call as tasks, tasks/list, tasks/cancel\n",
			"instructions\n  mcpi's demo server.",
		}},
		{"2026-07-28", []string{
			"protocol      2026-07-28 (modern era); the server supports 2026-07-28, 2025-11-25\n",
			"tasks         the Tasks extension (io.modelcontextprotocol/tasks): the server decides per call\n",
			"extensions    io.modelcontextprotocol/tasks\n",
		}},
	} {
		t.Run(tt.protocol, func(t *testing.T) {
			stdout, stderr, code := mcpi(t, "--protocol", tt.protocol, "info")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			for _, want := range tt.want {
				if !strings.Contains(stdout, want) {
					t.Errorf("the output does not have %q:\n%s", want, stdout)
				}
			}
			stdout, stderr, code = mcpi(t, "--protocol", tt.protocol, "info", "--json")
			var r struct {
				ServerInfo struct {
					Name string `json:"name"`
				} `json:"serverInfo"`
				ProtocolVersion string                     `json:"protocolVersion"`
				Capabilities    map[string]json.RawMessage `json:"capabilities"`
				Instructions    string                     `json:"instructions"`
			}
			if err := json.Unmarshal([]byte(stdout), &r); err != nil || code != 0 {
				t.Fatalf("--json: %v, exit %d: %s%s", err, code, stdout, stderr)
			}
			if r.ServerInfo.Name != "mcpi-demo" || r.ProtocolVersion != tt.protocol || r.Capabilities["tools"] == nil || r.Instructions == "" {
				t.Errorf("--json = %+v", r)
			}
		})
	}
}

// The same over each transport, in both eras.
func TestInfoOverEachTransport(t *testing.T) {
	eachServerAndEra(t, serveDemoHTTP(t), func(t *testing.T, args []string) {
		protocol := args[len(args)-1]
		stdout, stderr, code := mcpi(t, append(args, "info")...)
		if code != 0 || !strings.Contains(stdout, "protocol      "+protocol+" (") || !strings.Contains(stdout, "\ninstructions\n  mcpi's demo server.") {
			t.Errorf("exit %d:\n%s%s", code, stdout, stderr)
		}
	})
}
