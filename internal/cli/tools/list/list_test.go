package list

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/internal/clitest"
	"github.com/mcpi-dev/mcpi/mcp"
)

func TestTable(t *testing.T) {
	env := clitest.New(t, &connect.Selection{Protocol: mcp.LatestProtocolVersion})
	if err := Run(clitest.Context(t), &Options{IO: env.IO, Connect: env.Factory.Connect}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(env.Out.String(), "\n"), "\n")
	header := lines[0]
	if !strings.HasPrefix(header, "NAME ") || !strings.Contains(header, "TASK SUPPORT") || !strings.HasSuffix(header, "DESCRIPTION") {
		t.Fatalf("header = %q", header)
	}
	col := strings.Index(header, "TASK SUPPORT")
	desc := strings.Index(header, "DESCRIPTION")
	found := map[string]bool{}
	for _, l := range lines[1:] {
		name := strings.Fields(l)[0]
		found[name] = true
		// Aligned: every row's task support starts under the header's.
		support := strings.Fields(l[col:])[0]
		switch mcp.TaskSupport(support) {
		case mcp.TaskSupportForbidden, mcp.TaskSupportOptional, mcp.TaskSupportRequired:
		default:
			t.Errorf("row %q: task support column reads %q", l, support)
		}
		if len(l) < desc || l[desc-1] != ' ' {
			t.Errorf("row %q is not aligned with the DESCRIPTION column", l)
		}
	}
	for _, want := range []string{"echo", "add", "slow", "ask_user", "ask_model", "bench_stats"} {
		if !found[want] {
			t.Errorf("tool %q missing from\n%s", want, env.Out)
		}
	}
	if env.ErrOut.Len() != 0 {
		t.Errorf("stderr: %s", env.ErrOut)
	}
}

// TestTable2026: in 2026-07-28 the embedded demo's tools say nothing of tasks, and the
// table has no column for it.
func TestTable2026(t *testing.T) {
	env := clitest.New(t, nil)
	if err := Run(clitest.Context(t), &Options{IO: env.IO, Connect: env.Factory.Connect}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(env.Out.String(), "\n"), "\n")
	if !regexp.MustCompile(`^NAME +DESCRIPTION$`).MatchString(lines[0]) {
		t.Fatalf("header = %q", lines[0])
	}
	desc := strings.Index(lines[0], "DESCRIPTION")
	found := map[string]bool{}
	for _, l := range lines[1:] {
		found[strings.Fields(l)[0]] = true
		if len(l) < desc || l[desc-1] != ' ' || l[desc] == ' ' {
			t.Errorf("row %q is not aligned with the DESCRIPTION column", l)
		}
	}
	for _, want := range []string{"echo", "slow_task", "ask_task"} {
		if !found[want] {
			t.Errorf("tool %q missing from\n%s", want, env.Out)
		}
	}
}

func TestJSON(t *testing.T) {
	env := clitest.New(t, nil)
	if err := Run(clitest.Context(t), &Options{IO: env.IO, Connect: env.Factory.Connect, JSON: true}); err != nil {
		t.Fatal(err)
	}
	var got map[string]json.RawMessage
	if err := json.Unmarshal(env.Out.Bytes(), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, env.Out)
	}
	if len(got) != 1 || got["tools"] == nil {
		t.Fatalf("want exactly {\"tools\": [...]}, got keys %v", keys(got))
	}
	var res mcp.ListToolsResult
	if err := json.Unmarshal(env.Out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if tool.Name == "add" {
			if len(tool.InputSchema) == 0 {
				t.Error("add has no inputSchema in the JSON output")
			}
			return
		}
	}
	t.Errorf("no add tool in %s", env.Out)
}

func keys(m map[string]json.RawMessage) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
