package tasks_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/internal/clitest"
	"github.com/mcpi-dev/mcpi/internal/cli/state"
	"github.com/mcpi-dev/mcpi/internal/cli/tasks/list"
	"github.com/mcpi-dev/mcpi/mcp"
)

// "tasks list --local" shows the names of the --header and --env values a task was
// recorded with, not the values (credentials, often), and whether mcpi keeps the task's
// session, not its id (the client's secret), nor the values of the URL's query (an
// API key in ?token=); the state file keeps them all, as later commands send them again.
func TestLocalListRedacts(t *testing.T) {
	dir := clitest.StateDir(t)
	sel := &connect.Selection{URL: "http://ada:pw-SECRET@127.0.0.1:9/mcp?token=tok-SECRET&api_key=k-SECRET&debug", Headers: []string{"Authorization=Bearer SECRET123", "X-Api-Key=k1-SECRET"}}
	session := &client.Resumption{SessionID: "sess-SECRET", Initialize: &mcp.InitializeResult{ProtocolVersion: mcp.LatestProtocolVersion}}
	if _, err := state.Remember(nil, sel, "greet", mcp.LatestProtocolVersion, mcp.Task{TaskID: "t1"}, session); err != nil {
		t.Fatal(err)
	}
	stdio := &connect.Selection{Stdio: "server --stdio", Env: []string{"API_KEY=env-SECRET", "EMPTY="}}
	if _, err := state.Remember(nil, stdio, "greet", mcp.LatestProtocolVersion, mcp.Task{TaskID: "t2"}, nil); err != nil {
		t.Fatal(err)
	}
	for _, jsonOut := range []bool{false, true} {
		env := fresh(t)
		if err := list.Run(clitest.Context(t), &list.Options{Options: sharedOpts(env, jsonOut), Local: true}); err != nil {
			t.Fatal(describe(err))
		}
		out := env.Out.String()
		if strings.Contains(out, "SECRET") {
			t.Errorf("tasks list --local (--json %v) shows a secret:\n%s", jsonOut, out)
		}
		if !jsonOut {
			if !strings.Contains(out, "http://ada:xxxxx@127.0.0.1:9/mcp?token=xxxxx&api_key=xxxxx&debug") {
				t.Errorf("tasks list --local:\n%s", out)
			}
			continue
		}
		var l struct {
			Tasks []map[string]json.RawMessage `json:"tasks"`
		}
		if err := json.Unmarshal(env.Out.Bytes(), &l); err != nil || len(l.Tasks) != 2 {
			t.Fatalf("--json: %v\n%s", err, out)
		}
		for i, want := range []struct{ server, session string }{
			{`{"url":"http://ada:xxxxx@127.0.0.1:9/mcp?token=xxxxx\u0026api_key=xxxxx\u0026debug","headers":["Authorization=[redacted]","X-Api-Key=[redacted]"]}`, "true"},
			{`{"stdio":"server --stdio","env":["API_KEY=[redacted]","EMPTY="]}`, "false"},
		} {
			if got := string(compact(t, l.Tasks[i]["server"])); got != want.server {
				t.Errorf("task %d: server %s, want %s", i, got, want.server)
			}
			if got := string(l.Tasks[i]["session"]); got != want.session {
				t.Errorf("task %d: session %s, want %s", i, got, want.session)
			}
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, state.FileName))
	if err != nil || !strings.Contains(string(data), "Bearer SECRET123") || !strings.Contains(string(data), "token=tok-SECRET") || !strings.Contains(string(data), "sess-SECRET") || !strings.Contains(string(data), "API_KEY=env-SECRET") {
		t.Errorf("the state file lost what later commands need (%v):\n%s", err, data)
	}
}

func compact(t *testing.T, raw json.RawMessage) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
