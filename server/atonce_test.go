package server

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/tasks"
)

// atOnceCall picks out the calls of tools that are tasks at once from their raw params,
// as the tools are added, replaced and removed, wherever the name is among the params'
// members. A call that is no first round is never one.
func TestAtOnceCallGuess(t *testing.T) {
	srv := New(mcp.Implementation{Name: "s", Version: "1"}, &Options{Tasks: &tasks.Options{}, Modern: true})
	defer srv.Close()
	handler := func(context.Context, *ToolRequest) (*mcp.CallToolResult, error) { return &mcp.CallToolResult{}, nil }
	add := func(name string, p TaskPolicy) {
		srv.AddToolWith(&mcp.Tool{Name: name}, handler, &ToolOptions{TaskPolicy: p})
	}
	call := func(name string, extra string) []byte {
		return fmt.Appendf(nil, `{"name":%q,"arguments":{}%s,"_meta":{"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}}}`, name, extra)
	}
	check := func(when string, params []byte, want bool) {
		t.Helper()
		if got := srv.atOnceCall(params); got != want {
			t.Errorf("%s: atOnceCall(%s) = %v, want %v", when, params, got, want)
		}
	}

	check("no tools", call("a", ""), false)
	add("a", TaskAlways)
	add("r", TaskRequired)
	add("plain", TaskNever)
	add("slow", TaskWhenSlow)
	check("TaskAlways", call("a", ""), true)
	check("TaskRequired", call("r", ""), true)
	check("a plain tool", call("plain", ""), false)
	check("a tool that may become a task", call("slow", ""), false)
	check("an unknown tool", call("nope", ""), false)
	check("a retry with input", call("a", `,"inputResponses":{}`), false)
	check("a retry with state", call("a", `,"requestState":"x"`), false)

	add("a", TaskNever) // replaced
	check("replaced by a plain tool", call("a", ""), false)
	srv.RemoveTool("r")
	check("removed", call("r", ""), false)

	add("a", TaskAlways)
	check("added again", call("a", ""), true)
	check("the name last", []byte(`{"arguments":{"name":"plain"},"_meta":{"x":{"name":"plain"}},"name":"a"}`), true)
	check("a plain tool, an at-once name elsewhere", []byte(`{"_meta":{"name":"a"},"name":"plain","arguments":{"name":"a"}}`), false)
	check("an escaped name", []byte(`{"name":"\u0061"}`), false)
	check("cut short", []byte(`{"name":"a`), false)
	big := fmt.Appendf(nil, `{"name":"a","arguments":{"x":"%s"}}`, strings.Repeat("y", maxQuickCallParams))
	check("params too large to decode where they are read", big, false)
	if asksForTask(fmt.Appendf(nil, `{"name":"a","task":{},"arguments":{"x":"%s"}}`, strings.Repeat("y", maxQuickCallParams))) {
		t.Error("a 2025-11-25 call with params too large to decode where they are read was picked")
	}
	if !asksForTask([]byte(`{"name":"a","task":{}}`)) {
		t.Error("a 2025-11-25 call with params.task was not picked")
	}
}
