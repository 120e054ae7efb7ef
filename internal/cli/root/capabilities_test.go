package root

import (
	"context"
	"testing"

	"github.com/mcpi-dev/mcpi/internal/cli/internal/clitest"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
)

// A server that declares no prompts or resources capability is not asked for them: the
// command says so in one sentence, exit status 2 as for a server without tasks.list,
// in either era (the capabilities of initialize, or of server/discover).
func TestNoPromptsNoResources(t *testing.T) {
	srv := server.New(mcp.Implementation{Name: "tools-only", Version: "1"}, &server.Options{Modern: true})
	srv.AddTool(&mcp.Tool{Name: "noop", InputSchema: []byte(`{"type":"object"}`)},
		func(context.Context, *server.ToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	url := clitest.Serve(t, srv).URL
	const prompts = "mcpi: the server offers no prompts (it declares no prompts capability)\n"
	const resources = "mcpi: the server offers no resources (it declares no resources capability)\n"
	for _, protocol := range []string{mcp.LatestProtocolVersion, mcp.ProtocolVersion20260728} {
		for _, tt := range []struct {
			args []string
			want string
		}{
			{[]string{"prompts", "list"}, prompts},
			{[]string{"prompts", "get", "hello"}, prompts},
			{[]string{"resources", "list"}, resources},
			{[]string{"resources", "templates"}, resources},
			{[]string{"resources", "read", "file:///x"}, resources},
		} {
			args := append([]string{"--url", url, "--protocol", protocol}, tt.args...)
			stdout, stderr, code := run(t, t.TempDir(), args...)
			if code != 2 || stderr != tt.want || stdout != "" {
				t.Errorf("%s %v: exit %d, stdout %q, stderr %q\nwant exit 2, stderr %q", protocol, tt.args, code, stdout, stderr, tt.want)
			}
		}
	}
}
