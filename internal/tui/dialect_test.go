package tui

import (
	"encoding/json"
	"testing"

	"github.com/mcpi-dev/mcpi/mcp"
)

// The header's task dialect says plainly when the server declares no tasks, in either
// era, rather than naming a dialect it does not speak.
func TestDialect(t *testing.T) {
	ext := map[string]json.RawMessage{mcp.ExtensionTasks: json.RawMessage(`{}`)}
	for _, tt := range []struct {
		init *mcp.InitializeResult
		want string
	}{
		{&mcp.InitializeResult{ProtocolVersion: mcp.ProtocolVersion20260728, Capabilities: mcp.ServerCapabilities{Extensions: ext}}, "2026-07-28 tasks extension"},
		{&mcp.InitializeResult{ProtocolVersion: mcp.ProtocolVersion20260728}, "no tasks: the server declares no tasks extension (io.modelcontextprotocol/tasks)"},
		{&mcp.InitializeResult{ProtocolVersion: mcp.LatestProtocolVersion, Capabilities: mcp.ServerCapabilities{Tasks: &mcp.ServerTasksCapability{}}}, "2025-11-25 core tasks"},
		{&mcp.InitializeResult{ProtocolVersion: mcp.LatestProtocolVersion}, "no tasks: the server declares no tasks capability (2025-11-25 core tasks)"},
		{&mcp.InitializeResult{ProtocolVersion: "2025-06-18"}, "none (protocol 2025-06-18 has no tasks)"},
	} {
		if got := Dialect(tt.init); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.init.ProtocolVersion, got, tt.want)
		}
	}
}
