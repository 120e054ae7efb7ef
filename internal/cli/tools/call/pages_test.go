package call

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/internal/clitest"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/tasks"
)

// pagesServer serves a server whose tool "authorize" (taskSupport optional) answers
// every call with a URL-elicitation-required error (-32042) naming two pages: a web page,
// and a javascript: URL that must not be offered as one.
func pagesServer(t *testing.T) string {
	t.Helper()
	srv := server.New(mcp.Implementation{Name: "pages", Version: "1"}, &server.Options{Modern: true, Tasks: &tasks.Options{}})
	srv.AddTool(&mcp.Tool{Name: "authorize", InputSchema: []byte(`{"type":"object"}`),
		Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}},
		func(context.Context, *server.ToolRequest) (*mcp.CallToolResult, error) {
			return nil, jsonrpc.NewError(mcp.CodeURLElicitationRequired, "This request requires browser-based authorization").
				WithData(mcp.URLElicitationRequiredData{Elicitations: []mcp.ElicitParams{
					{Mode: mcp.ElicitModeURL, Message: "Authorize \x1b[2Jaccess.", URL: "https://auth.example/authorize?x=1", ElicitationID: "e1"},
					{Mode: mcp.ElicitModeURL, Message: "Run this", URL: "javascript:alert(1)", ElicitationID: "e2"},
				}})
		})
	return clitest.Serve(t, srv).URL
}

// A call the server refuses until the user has opened a page (-32042) says which pages,
// in one sentence on stderr (the server's text shown, not obeyed, and a URL that is no
// web page marked as such); with --json, stdout has the error with its data.
func TestURLElicitationRequired(t *testing.T) {
	url := pagesServer(t)
	const want = `mcpi: the server needs you to open https://auth.example/authorize?x=1 (Authorize ␛[2Jaccess) first ` +
		`(JSON-RPC error -32042: This request requires browser-based authorization); it also names "javascript:alert(1)" (Run this), no web address and not to be opened`
	for _, protocol := range []string{mcp.LatestProtocolVersion, mcp.ProtocolVersion20260728} {
		for _, tt := range []struct {
			name string
			opts Options
		}{
			{"plain", Options{Name: "authorize"}},
			{"--json", Options{Name: "authorize", JSON: true}},
			{"--task --json", Options{Name: "authorize", Task: true, JSON: true}},
		} {
			t.Run(protocol+"/"+tt.name, func(t *testing.T) {
				env := clitest.New(t, &connect.Selection{URL: url, Protocol: protocol})
				msg, code := clitest.Describe(runIn(t, env, &tt.opts))
				if msg != want || code != 1 {
					t.Errorf("got  %q (exit %d)\nwant %q (exit 1)", msg, code, want)
				}
				out := env.Out.String()
				switch {
				case !tt.opts.JSON && out != "":
					t.Errorf("stdout: %q", out)
				case tt.opts.JSON && (!strings.Contains(out, `-32042`) || !strings.Contains(out, `"https://auth.example/authorize?x=1"`) ||
					!strings.Contains(out, `"e1"`)):
					t.Errorf("stdout lacks the error with its pages:\n%s", out)
				case tt.opts.Task && !strings.Contains(out, `{"event":"error"`):
					t.Errorf("stdout has no error event:\n%s", out)
				}
			})
		}
	}
}
