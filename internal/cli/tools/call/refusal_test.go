package call

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/internal/clitest"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/tasks"
)

// copingServer serves a server whose tool "prefs" asks the user for a theme and, when the
// question fails, says so in a normal result instead of failing; it returns the URL and
// the error messages the tool got.
func copingServer(t *testing.T) (string, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var got []string
	srv := server.New(mcp.Implementation{Name: "coping", Version: "1"}, &server.Options{Modern: true, Tasks: &tasks.Options{}})
	srv.AddTool(&mcp.Tool{Name: "prefs", InputSchema: []byte(`{"type":"object"}`)},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Your theme?",
				RequestedSchema: []byte(`{"type":"object","properties":{"theme":{"type":"string"}}}`)})
			if err != nil {
				mu.Lock()
				got = append(got, err.Error())
				mu.Unlock()
				return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("kept the default theme")}}, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("theme: " + res.Action)}}, nil
		})
	return clitest.Serve(t, srv).URL, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), got...)
	}
}

// A question mcpi refused for a mistake of its own use (an answers file that does not fit
// the form, no terminal) ends the command with exit status 2 and the sentence that says
// so, even when the server copes with the refusal and answers normally; the server is
// told only that the client could not answer, not the local sentence.
func TestRefusalTheServerCopesWith(t *testing.T) {
	url, errs := copingServer(t)
	bad := clitest.WriteFile(t, "ans.json", `{"elicitation": {"prefs": {"colour": "blue"}}}`)
	for _, tt := range []struct {
		name    string
		answers string
		want    string
	}{
		{"answers file that does not fit", bad, `the answers file ` + bad + ` does not fit the form`},
		{"no terminal", "", `the server asked for the user's input (elicitation for the tool "prefs"), which mcpi can only give on a terminal or from an answers file`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env := clitest.New(t, &connect.Selection{URL: url, Protocol: mcp.LatestProtocolVersion})
			msg, code := clitest.Describe(runIn(t, env, &Options{Name: "prefs", Answers: tt.answers}))
			if !strings.Contains(msg, tt.want) || code != 2 {
				t.Errorf("got %q (exit %d), want one with %q (exit 2)", msg, code, tt.want)
			}
			if !strings.Contains(env.Out.String(), "kept the default theme") {
				t.Errorf("stdout lacks the tool's result: %q", env.Out)
			}
			seen := errs()
			if len(seen) == 0 {
				t.Fatal("the server's question did not fail")
			}
			if last := seen[len(seen)-1]; strings.Contains(last, "ans.json") || strings.Contains(last, "terminal") ||
				!strings.Contains(last, "the client could not answer this request") {
				t.Errorf("the server was told %q, want the short refusal alone", last)
			}
		})
	}
}
