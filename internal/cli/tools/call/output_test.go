package call

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/internal/clitest"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/tasks"
)

// outputServer serves a server whose tools "sum_text", "sum_none" and "sum_ok" have the
// output schema {sum: number, required: [sum]}, and return {"sum":"forty-two"}, no
// structured content, and {"sum":42}.
func outputServer(t *testing.T) string {
	t.Helper()
	srv := server.New(mcp.Implementation{Name: "output", Version: "1"}, &server.Options{Modern: true, Tasks: &tasks.Options{}})
	for name, sc := range map[string]string{"sum_text": `{"sum":"forty-two"}`, "sum_none": ``, "sum_ok": `{"sum":42}`} {
		srv.AddTool(&mcp.Tool{Name: name, InputSchema: []byte(`{"type":"object"}`),
			OutputSchema: []byte(`{"type":"object","properties":{"sum":{"type":"number"}},"required":["sum"]}`),
			Execution:    &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}},
			func(context.Context, *server.ToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("42")}, StructuredContent: json.RawMessage(sc)}, nil
			})
	}
	return clitest.Serve(t, srv).URL
}

// A result whose structuredContent does not fit the tool's output schema, or that has
// none, is printed, then said to be wrong on stderr, with exit status 1; --task --json
// puts the sentence in the result event.
func TestOutputSchemaChecked(t *testing.T) {
	url := outputServer(t)
	for _, protocol := range []string{mcp.LatestProtocolVersion, mcp.ProtocolVersion20260728} {
		for _, tt := range []struct {
			name string
			opts Options
			want string
			code int
		}{
			{"wrong type", Options{Name: "sum_text"}, `mcpi: the tool "sum_text" returned a structured result that does not fit its output schema: field "sum" must be a number, not a string`, 1},
			{"none", Options{Name: "sum_none"}, `mcpi: the tool "sum_none" returned no structuredContent, which its output schema calls for`, 1},
			{"fits", Options{Name: "sum_ok"}, ``, 0},
			{"wrong type --json", Options{Name: "sum_text", JSON: true}, `mcpi: the tool "sum_text" returned a structured result that does not fit its output schema: field "sum" must be a number, not a string`, 1},
			{"wrong type --task --json", Options{Name: "sum_text", Task: true, JSON: true}, `mcpi: the tool "sum_text" returned a structured result that does not fit its output schema: field "sum" must be a number, not a string`, 1},
		} {
			t.Run(protocol+"/"+tt.name, func(t *testing.T) {
				env := clitest.New(t, &connect.Selection{URL: url, Protocol: protocol})
				msg, code := clitest.Describe(runIn(t, env, &tt.opts))
				if msg != tt.want || code != tt.code {
					t.Errorf("got  %q (exit %d)\nwant %q (exit %d)", msg, code, tt.want, tt.code)
				}
				if !strings.Contains(env.Out.String(), "42") {
					t.Errorf("the result was not printed: %q", env.Out)
				}
				if tt.opts.Task && !strings.Contains(env.Out.String(), `"outputProblem":"the tool \"sum_text\" returned a structured result that does not fit its output schema`) {
					t.Errorf("the result event lacks the problem:\n%s", env.Out)
				}
			})
		}
	}
}

// The status line of a plain call's progress says the server's numbers as look.Progress
// words them: a total of -1 is none, and a progress beyond the total is the total.
func TestProgressLine(t *testing.T) {
	total := -1.0
	if got := progressLine(&mcp.ProgressNotificationParams{Progress: 1e300, Total: &total, Message: "prog"}); got != "progress 1e+300: prog" {
		t.Errorf("got %q", got)
	}
	total = 10
	if got := progressLine(&mcp.ProgressNotificationParams{Progress: 12, Total: &total}); got != "progress 10/10" {
		t.Errorf("got %q", got)
	}
}
