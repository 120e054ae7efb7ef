package tasksview

import (
	"context"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/key"

	"github.com/mcpi-dev/mcpi/internal/look"
	"github.com/mcpi-dev/mcpi/internal/scripted"
	"github.com/mcpi-dev/mcpi/internal/tui/internal/ui"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// A server of 2025-11-25 that declares no tasks.cancel is not offered the cancel of its
// tasks: the help has no "c cancel task", and c says why instead of asking; nothing goes
// to the server.
func TestNoCancelOfferedWithoutTasksCancel(t *testing.T) {
	f := scripted.NewLegacy(t, nil)
	f.On(mcp.MethodInitialize, func(context.Context, *jsonrpc.Request) (any, error) {
		return scripted.Raw(`{"protocolVersion":"2025-11-25","serverInfo":{"name":"nocancel","version":"1"},
			"capabilities":{"tools":{},"tasks":{"list":{},"requests":{"tools":{"call":{}}}}}}`), nil
	})
	f.Answer(mcp.MethodToolsList, `{"tools":[{"name":"slow","inputSchema":{"type":"object"},"execution":{"taskSupport":"optional"}}]}`)
	task := `{"taskId":"nocancel-task","status":"working","createdAt":"2000-01-01T00:00:00Z","lastUpdatedAt":"2000-01-01T00:00:00Z","ttl":600000,"pollInterval":60000}`
	f.Answer(mcp.MethodToolsCall, `{"task":`+task+`}`)
	f.Answer(mcp.MethodTasksGet, task)
	f.Answer(mcp.MethodTasksCancel, `{}`)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sess := f.MustConnect(ctx, ui.ClientOptions())

	m, d := newView(t, sess, 120, 24)
	tk := start(t, sess, "slow", `{}`)
	d.Send(ui.TaskStartedMsg{Task: tk})
	id := look.ShortID(tk.ID())
	screen := d.WaitLine(id, "◐ working")
	if !strings.Contains(screen, "no cancel: the server does not cancel tasks") {
		t.Errorf("the selected task's lines do not say why it cannot be cancelled:\n%s", screen)
	}
	help := func(keys []key.Binding) {
		t.Helper()
		for _, k := range keys {
			if k.Help().Desc == "cancel task" {
				t.Errorf("the help offers %q %q", k.Help().Key, k.Help().Desc)
			}
		}
	}
	help(m.ShortHelp())
	for _, col := range m.FullHelp() {
		help(col)
	}

	d.Key("c")
	f2 := d.WaitFlash("cannot be cancelled")
	if want := "task " + id + " cannot be cancelled: the server does not cancel tasks (it declares no tasks.cancel capability)"; f2.Text != want {
		t.Errorf("c says %q, want %q", f2.Text, want)
	}
	if strings.Contains(d.Screen(), "Cancel task") {
		t.Errorf("c asks to cancel:\n%s", d.Screen())
	}
	d.Key("enter")
	d.WaitText("Task nocancel-task", "Cancel", "not offered: the server does not cancel tasks")
	help(m.ShortHelp())
	d.Key("c")
	d.Drain()
	if n := len(f.Requests(mcp.MethodTasksCancel)); n != 0 {
		t.Errorf("%d tasks/cancel went to the server", n)
	}
}
