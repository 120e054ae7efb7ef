package logview

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/internal/tui/internal/tuitest"
	"github.com/mcpi-dev/mcpi/internal/tui/internal/ui"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// Every message shows both ways, responses named by their request's method; the filter
// keeps one method; a message expands to its JSON; server log messages and progress
// notifications have their own lists.
func TestLogMessagesLogsAndProgress(t *testing.T) {
	sess := tuitest.Connect(t, tuitest.Demo())
	m := New(tuitest.Context(t), nil)
	m.SetSize(120, 24)
	d := tuitest.New(t, m)
	d.Listen(sess, 0)
	ctx := tuitest.Context(t)
	if err := sess.SetLogLevel(ctx, mcp.LoggingLevelDebug); err != nil {
		t.Fatal(err)
	}
	if _, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: demo.ToolLogLevels, Arguments: json.RawMessage(`{"message":"hello log"}`)}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: demo.ToolSlow, Arguments: json.RawMessage(`{"seconds":0.2,"steps":2}`)}, &client.CallOptions{Progress: true}); err != nil {
		t.Fatal(err)
	}
	screen := d.WaitLine("→ #", "tools/call", `"name":"slow"`)
	for _, want := range [][]string{{"← #", "✓ tools/call"}, {"✓ logging/setLevel"}, {"← notifications/message"}, {"← notifications/progress"}} {
		if tuitest.Line(screen, want...) == "" {
			t.Errorf("no line with %q:\n%s", want, screen)
		}
	}

	d.Key("/")
	d.Type("setlevel")
	d.Key("enter")
	screen = d.WaitText("/setlevel 2 shown")
	if strings.Contains(screen, "tools/call") {
		t.Errorf("the filter shows other methods:\n%s", screen)
	}
	d.Key("home", "enter")
	d.WaitText("mcpi → server  logging/setLevel", `"level": "debug"`, `"method": "logging/setLevel"`)
	d.Key("esc", "esc")
	d.WaitText("tools/call")

	d.Key("t")
	d.WaitLine("EMERGENCY", "hello log")
	d.WaitLine("DEBUG", "hello log")
	d.WaitFor("one server log message per level", func(string) bool { return m.Len(ServerLog) == 8 })
	d.Key("t")
	d.WaitLine("mcpi-", "2/2")
}

// Where the view's subscription left events out (its reader fell behind a flood), each
// list shows how many, and the entry expands to say what it means.
func TestLogShowsEventsLeftOut(t *testing.T) {
	m := New(tuitest.Context(t), nil)
	m.SetSize(120, 24)
	d := tuitest.New(t, m)
	d.Send(ui.EventsMsg{Events: []client.Event{
		&client.LogEvent{Params: mcp.LoggingMessageNotificationParams{Level: mcp.LoggingLevelInfo, Data: json.RawMessage(`"before"`)}},
		&client.DroppedEvent{Count: 12345},
		&client.LogEvent{Params: mcp.LoggingMessageNotificationParams{Level: mcp.LoggingLevelInfo, Data: json.RawMessage(`"after"`)}},
	}})
	for _, src := range []Source{Messages, ServerLog, Progress} {
		screen := d.WaitLine("12345 events not shown")
		if src == ServerLog {
			before, after := strings.Index(screen, "before"), strings.Index(screen, "after")
			gap := strings.Index(screen, "12345 events")
			if before < 0 || after < 0 || !(before < gap && gap < after) {
				t.Errorf("the server log does not show the gap between its entries:\n%s", screen)
			}
		}
		if src != Progress {
			d.Key("t")
		}
	}
	d.Key("end", "enter")
	d.WaitText("events not shown", "12345 events were left out here")
	d.Key("esc", "t", "t", "/") // the server log
	d.Type("after")
	d.Key("enter")
	screen := d.WaitText("/after 2 shown")
	if !strings.Contains(screen, "12345 events not shown") || strings.Contains(screen, "before") {
		t.Errorf("a filter hides the gap, or shows what it should not:\n%s", screen)
	}
}

// Requests never answered (or whose answers a gap left out) do not pile up in the names
// the view keeps for responses.
func TestUnansweredRequestsBounded(t *testing.T) {
	m := New(tuitest.Context(t), nil)
	for i := range maxUnanswered + 10 {
		m.add(&client.MessageEvent{Dir: jsonrpc.Inbound, Message: &jsonrpc.Request{ID: jsonrpc.Int64ID(int64(i)), Method: "ping"}})
	}
	if n := len(m.methods); n > maxUnanswered {
		t.Fatalf("the view remembers %d unanswered requests", n)
	}
	m.add(&client.MessageEvent{Dir: jsonrpc.Outbound, Message: &jsonrpc.Response{ID: jsonrpc.Int64ID(maxUnanswered + 9), Result: json.RawMessage(`{}`)}})
	if e := m.entries[Messages][len(m.entries[Messages])-1]; e.method != "ping" {
		t.Fatalf("the latest request's response is named %q", e.method)
	}
}
