package tui_test

import (
	"strings"
	"testing"

	"github.com/mcpi-dev/mcpi/internal/hostile"
	"github.com/mcpi-dev/mcpi/internal/tui"
	"github.com/mcpi-dev/mcpi/internal/tui/internal/tuitest"
)

// selectPrefix moves the cursor of the list on screen to the row that starts with
// prefix.
func selectPrefix(t *testing.T, d *tuitest.Driver, prefix string) {
	t.Helper()
	d.WaitText(prefix)
	d.Key("home")
	for range 20 {
		if strings.Contains(tuitest.Line(d.Screen(), "▸"), "▸ "+prefix) {
			return
		}
		d.Key("down")
	}
	t.Fatalf("could not select %s:\n%s", prefix, d.Screen())
}

// toolList goes back from a tool's form or result to the list of tools.
func toolList(t *testing.T, d *tuitest.Driver) {
	t.Helper()
	d.Key("1")
	for range 3 {
		if strings.Contains(d.Screen(), "enter opens the form") {
			return
		}
		d.Key("esc")
	}
	d.WaitText("enter opens the form")
}

// A server that puts escape sequences and control characters in every text it sends
// cannot retitle the terminal, write its clipboard, erase the screen, go back over a
// line or reverse text from any view: the screen shows those characters instead, and
// the only escape sequences on it are the UI's own styles.
func TestHostileServerCannotDriveTheTerminal(t *testing.T) {
	sess := tuitest.Connect(t, hostile.New())
	m, d := start(t, sess, 120, 40)
	check := func(step string) {
		t.Helper()
		d.Drain()
		view := m.View()
		if bad := hostile.Injected(hostile.WithoutStyles(view)); bad != "" {
			t.Errorf("%s: the screen has %s", step, bad)
		}
		screen := d.Screen()
		if !strings.Contains(screen, hostile.Shown[0]) {
			t.Errorf("%s: the screen does not show %q:\n%s", step, hostile.Shown[0], screen)
		}
		checkSize(t, screen, 120, 40)
		if testing.Verbose() {
			t.Logf("%s:\n%s", step, screen)
		}
		if bad := hostile.Injected(m.TeaView().WindowTitle); bad != "" {
			t.Errorf("%s: the window title has %s", step, bad)
		}
	}
	d.WaitText("hostile<", "5 tools")
	check("the Tools view")

	selectPrefix(t, d, "plain<")
	d.Key("enter")
	d.WaitText("tools/call plain<")
	check("the form of a tool")
	d.Key("ctrl+s")
	d.WaitText("Result of plain<")
	check("a tool's result")
	toolList(t, d)

	selectPrefix(t, d, "fail<")
	d.Key("enter")
	d.WaitText("tools/call fail<")
	d.Key("ctrl+s")
	d.WaitText("Error from fail<")
	check("a tool's error")
	toolList(t, d)

	selectPrefix(t, d, "slow<")
	d.Key("enter")
	d.WaitText("tools/call slow<", "[ Call as task ]")
	d.Key("ctrl+s")
	d.WaitLine("slow<", "✓ completed")
	check("the Tasks view")
	d.Key("r") // tasks/list finds the server's other task
	d.WaitText("2 tasks")
	check("the Tasks view with the listed task")
	d.Key("enter")
	d.WaitText("Task ")
	check("a task's details")
	d.Key("esc")

	toolList(t, d)
	selectPrefix(t, d, "ask<")
	d.Key("enter")
	d.WaitText("tools/call ask<")
	d.Key("ctrl+s")
	d.WaitText("⚑ 1 pending")
	d.Key("3")
	check("the Requests view")
	d.Key("enter")
	d.WaitText("Answer the server's elicitation")
	check("an elicitation form")
	d.Key("esc")

	d.Key("4")
	d.WaitText(hostile.ResourceURI)
	check("the Resources view")
	d.Key("enter")
	d.WaitText("text/plain")
	check("a resource's content")
	d.Key("esc")

	d.Key("5")
	d.WaitText("prompt<")
	check("the Prompts view")
	d.Key("enter")
	d.WaitText("[ Get prompt ]")
	d.Key("ctrl+s")
	d.WaitFor("the prompt", func(s string) bool { return !strings.Contains(s, "[ Get prompt ]") })
	check("a prompt")
	d.Key("esc", "esc")

	d.Key("6")
	d.WaitText("Server log (1)", "elicitation/create")
	check("the Log view")
	d.Key("g", "enter")
	d.WaitText("jsonrpc")
	check("a message of the Log")
	d.Key("esc", "t")
	d.WaitText("ERROR")
	check("the server's log")
	d.Key("t")
	d.WaitText("mcpi-")
	check("the progress notifications")

	d.Key("?")
	d.WaitText("Keys of the Log view")
	check("the help screen")
	if m.Active() != tui.TabLog {
		t.Errorf("the help screen is not over the Log view")
	}
}
