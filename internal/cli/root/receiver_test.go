package root

import (
	"encoding/json"
	"testing"

	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/internal/cli/internal/clitest"
	"github.com/mcpi-dev/mcpi/mcp"
)

// Receiver tasks through the built binary: the embedded demo server and a stdio one run
// their questions as tasks on mcpi, answered from a file, and mcpi prints the polls.
func TestReceiverTasksBinary(t *testing.T) {
	state := t.TempDir()
	answers := clitest.WriteFile(t, "answers.json",
		`{"elicitation": {"ask_user_task": {"name": "Ada"}}, "sampling": {"ask_model_task": "Hello, Ada!"}}`)

	// Embedded server, plain call with --json: the result alone on stdout, the polls on
	// stderr as event lines.
	stdout, stderr, code := run(t, state, "--protocol", "2025-11-25", "tools", "call", "ask_user_task", "--json", "--answers", answers)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("stdout is not one CallToolResult: %v\n%s", err, stdout)
	}
	var rep demo.ClientTaskReport
	json.Unmarshal(res.StructuredContent, &rep)
	if res.IsError || rep.Mode != demo.ModeTask || rep.Status != mcp.TaskStatusCompleted || rep.Polls < 1 {
		t.Fatalf("result: %s", stdout)
	}
	polled := 0
	for _, ev := range eventLines(t, stderr) {
		if ev.Event == "polled" && ev.Polled != nil && ev.Polled.TaskID == rep.TaskID {
			polled++
		}
	}
	if polled != rep.Polls {
		t.Errorf("%d polled lines for %d polls:\n%s", polled, rep.Polls, stderr)
	}

	// A stdio server, the sampling tool called as a task with --json: mcpi's task belongs
	// to the tool task, and its polls are event lines among the task's events.
	server := "'" + mcpiBin + "' serve demo --legacy" // receiver tasks are of 2025-11-25
	stdout, stderr, code = run(t, state, "--stdio", server, "tools", "call", "ask_model_task", "--arg", "prompt=Greet Ada",
		"--task", "--json", "--answers", answers)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	evs := eventLines(t, stdout)
	last := evs[len(evs)-1]
	if evs[0].Event != "created" || last.Event != "result" {
		t.Fatalf("events:\n%s", stdout)
	}
	rep = demo.ClientTaskReport{}
	json.Unmarshal(last.Result.StructuredContent, &rep)
	var reply mcp.CreateMessageResult
	json.Unmarshal(rep.Result, &reply)
	if last.Result.IsError || rep.ToolTask != evs[0].Task.TaskID || len(reply.Content) != 1 || reply.Content[0].Text != "Hello, Ada!" {
		t.Fatalf("result: %s", stdout)
	}
	polled = 0
	for _, ev := range evs {
		if ev.Event == "polled" && ev.Polled.TaskID == rep.TaskID && ev.Polled.RelatedTask == rep.ToolTask {
			polled++
		}
	}
	if polled != rep.Polls || polled < 1 {
		t.Errorf("%d polled events for %d polls:\n%s", polled, rep.Polls, stdout)
	}
}
