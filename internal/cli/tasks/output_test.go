package tasks_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/internal/clitest"
	"github.com/mcpi-dev/mcpi/internal/cli/tasks/result"
	"github.com/mcpi-dev/mcpi/internal/cli/tasks/watch"
	"github.com/mcpi-dev/mcpi/internal/cli/taskview"
	"github.com/mcpi-dev/mcpi/internal/cli/tools/call"
	"github.com/mcpi-dev/mcpi/internal/scripted"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/tasks"
)

// outputSchema is the output schema of the tools of these tests: {"n": integer}.
const outputSchema = `{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`

// wantOutputProblem is what mcpi says of a result of the tool whose n is a string.
const wantOutputProblem = `the tool "%s" returned a structured result that does not fit its output schema: field "n" must be an integer, not a string`

// checkOutputChecked runs "tasks result ID" and "tasks watch ID --json" of the recorded
// task id, whose result does not fit the output schema of its tool: each says so and
// exits 1, as "tools call --task" does; the result is printed as it came, and the watch's
// "result" event carries the sentence as "outputProblem".
func checkOutputChecked(t *testing.T, tool, id, text string, newEnv func() *clitest.Env) {
	t.Helper()
	problem := strings.Replace(wantOutputProblem, "%s", tool, 1)
	env := newEnv()
	err := result.Run(clitest.Context(t), &result.Options{Options: sharedOpts(env, false), ID: id})
	if got, want := describe(err), "mcpi: "+problem+" (exit 1)"; got != want {
		t.Errorf("tasks result:\n got %q\nwant %q", got, want)
	}
	if env.Out.String() != text+"\n" {
		t.Errorf("tasks result printed %q", env.Out)
	}

	env = newEnv()
	err = watch.Run(clitest.Context(t), &watch.Options{Options: sharedOpts(env, true), ID: id})
	if got, want := describe(err), "mcpi: "+problem+" (exit 1)"; got != want {
		t.Errorf("tasks watch --json:\n got %q\nwant %q", got, want)
	}
	lines := strings.Split(strings.TrimSpace(env.Out.String()), "\n")
	var last taskview.Event
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || last.Event != "result" || last.OutputProblem != problem {
		t.Errorf("the last event: %s (%v), want a result with the output problem", lines[len(lines)-1], err)
	}
}

// The result of a 2026-07-28 task, inlined by tasks/get, is checked against the output
// schema of the tool the state file records (tools/list finds it).
func TestModernResultCheckedAgainstOutputSchema(t *testing.T) {
	clitest.StateDir(t)
	f, _, mark := modernDetached(t)
	f.Answer(mcp.MethodToolsList, `{"resultType":"complete","tools":[{"name":"greet","inputSchema":{"type":"object"},"outputSchema":`+outputSchema+`}]}`)
	f.Answer(mcp.MethodTasksGet, string(scripted.TaskJSON("complete", "t1", mcp.TaskStatusCompleted, 10,
		`"result":{"content":[{"type":"text","text":"three"}],"structuredContent":{"n":"three"}}`)))
	checkOutputChecked(t, "greet", "t1", "three", func() *clitest.Env { return fresh(t) })
	checkSince(t, f, mark, mcp.MethodServerDiscover, mcp.MethodTasksGet, mcp.MethodToolsList,
		mcp.MethodServerDiscover, mcp.MethodTasksGet, mcp.MethodToolsList)

	// A result that fits: exit 0.
	f.Answer(mcp.MethodTasksGet, string(scripted.TaskJSON("complete", "t1", mcp.TaskStatusCompleted, 10,
		`"result":{"content":[{"type":"text","text":"3"}],"structuredContent":{"n":3}}`)))
	env := fresh(t)
	if err := result.Run(clitest.Context(t), &result.Options{Options: sharedOpts(env, false), ID: "t1"}); err != nil || env.Out.String() != "3\n" {
		t.Errorf("tasks result of a result that fits: %s, stdout %q", describe(err), env.Out)
	}

	// A tool the server no longer lists: the result stands, unchecked, and stderr says so.
	f.Answer(mcp.MethodToolsList, `{"resultType":"complete","tools":[]}`)
	env = fresh(t)
	if err := result.Run(clitest.Context(t), &result.Options{Options: sharedOpts(env, false), ID: "t1"}); err != nil || env.Out.String() != "3\n" ||
		env.ErrOut.String() != "mcpi did not check the result against the output schema of the tool \"greet\": the server has no tool named \"greet\".\n" {
		t.Errorf("tasks result of a tool no longer listed: %s, stdout %q, stderr %q", describe(err), env.Out, env.ErrOut)
	}
}

// So is the result of a 2025-11-25 task (tasks/result).
func TestResultCheckedAgainstOutputSchema(t *testing.T) {
	clitest.StateDir(t)
	srv := server.New(mcp.Implementation{Name: "schemas", Version: "1"}, &server.Options{Tasks: &tasks.Options{PollInterval: 10 * time.Millisecond}})
	srv.AddTool(&mcp.Tool{Name: "count", InputSchema: []byte(`{"type":"object"}`), OutputSchema: []byte(outputSchema),
		Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}},
		func(context.Context, *server.ToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("three")}, StructuredContent: []byte(`{"n":"three"}`)}, nil
		})
	d := clitest.Serve(t, srv)

	// "tools call --task" says so.
	env := clitest.New(t, &connect.Selection{URL: d.URL})
	err := callTool(clitest.Context(t), env, &call.Options{Name: "count", Task: true})
	if got, want := describe(err), "mcpi: "+strings.Replace(wantOutputProblem, "%s", "count", 1)+" (exit 1)"; got != want {
		t.Errorf("tools call --task:\n got %q\nwant %q", got, want)
	}
	d.WaitIdle(t)

	id := detach(t, d, "count")
	checkOutputChecked(t, "count", id, "three", func() *clitest.Env { return freshOn(t, d) })
}
