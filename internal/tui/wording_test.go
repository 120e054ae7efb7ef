package tui_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpi-dev/mcpi/internal/tui/internal/tuitest"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
)

// The header of a 2026-07-28 server says "connected" at 120 columns, whatever the
// length of its task dialect's explanation (a server without the Tasks extension); the
// tool pane says what the server does of tasks in words, not "tasks server"; a long
// description in a form's header ends in one ellipsis.
func TestModernHeaderAndToolWording(t *testing.T) {
	srv := server.New(mcp.Implementation{Name: "ts2-interop-server", Version: "1.0.0"}, &server.Options{Modern: true})
	desc := strings.Repeat("Starts a long piece of work which awaits the user's answer before it goes on; ", 6)
	srv.AddTool(&mcp.Tool{Name: "long_described", Description: desc, InputSchema: []byte(`{"type":"object","properties":{"x":{"type":"string"}}}`)},
		func(context.Context, *server.ToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	sess := tuitest.Connect(t, srv)
	if !sess.Modern() {
		t.Fatalf("the session speaks %s", sess.ProtocolVersion())
	}
	_, d := start(t, sess, 120, 35)
	screen := d.WaitText("ts2-interop-server 1.0.0", "▸ long_described")
	if head := tuitest.Line(screen, "ts2-interop-server 1.0.0"); !strings.Contains(head, "● connected") || !strings.Contains(head, "2026-07-28") {
		t.Errorf("the header reads %q, want the word connected and the protocol", head)
	}
	if strings.Contains(screen, "tasks server") {
		t.Errorf("the tool pane says %q:\n%s", "tasks server", screen)
	}
	if tuitest.Line(screen, "tasks: no tasks: the server declares no tasks extension") == "" {
		t.Errorf("the tool pane does not say what the server does of tasks:\n%s", screen)
	}
	d.Key("enter")
	screen = d.WaitText("tools/call long_described")
	var cut string
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, "piece of work") {
			_, pane, _ := strings.Cut(l, "│")
			cut += strings.TrimSpace(pane) + "\n"
		}
	}
	if strings.Count(cut, "…") != 1 || !strings.HasSuffix(cut, "…\n") {
		t.Errorf("the form's header cuts the description with %d ellipses:\n%s", strings.Count(cut, "…"), cut)
	}
}

// While a plain call waits on the user's answer to the server's request, the tool pane
// says so and points to the Requests view, not "waiting for the result". In 2026-07-28
// the server has answered input_required and holds nothing: mcpi waits for the user, and
// sends the call again with the answer.
func TestPlainCallWaitsOnRequest(t *testing.T) {
	for _, tt := range []struct {
		srv             *server.Server
		want, cancelled string
	}{
		{tuitest.Demo(), "the server waits on your answer to its elicitation request", "Cancelled ask_user"},
		// Stopped while it waits on the user, the call reads as stopped in both eras
		// (it read "Error from ask_user ... cancelled by the user" in 2026-07-28).
		{tuitest.DemoBoth(), "the server asked for your answer to an elicitation request", "Cancelled ask_user"},
	} {
		sess := tuitest.Connect(t, tt.srv)
		_, d := start(t, sess, 120, 35)
		selectTool(t, d, "ask_user")
		d.Key("enter")
		d.WaitText("tools/call ask_user")
		d.Key("ctrl+s")
		screen := d.WaitText(tt.want, "answer it in Requests (press 3)")
		if strings.Contains(screen, "waiting for the result") {
			t.Errorf("the pane says it waits for the result:\n%s", screen)
		}
		if sess.Modern() && !strings.Contains(screen, "mcpi sends the call again with it") {
			t.Errorf("the pane does not say that the call is sent again:\n%s", screen)
		}
		d.Key("x")
		screen = d.WaitText(tt.cancelled, "You cancelled the call")
		if strings.Contains(screen, "Error from") || strings.Contains(screen, "cancelled by the user") {
			t.Errorf("the stopped call reads as an error:\n%s", screen)
		}
	}
}
