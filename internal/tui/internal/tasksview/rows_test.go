package tasksview

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/internal/look"
	"github.com/mcpi-dev/mcpi/internal/tui/internal/tuitest"
	"github.com/mcpi-dev/mcpi/internal/tui/internal/ui"
	"github.com/mcpi-dev/mcpi/mcp"
)

// A task that had not ended when its session did (the server went) is lost with it: a
// row state of its own, counted as such, its TTL no longer counting, and c says so;
// a reconnection and a tasks/list that finds nothing leave it so. A receiver task that
// completed before keeps its status, and shows no TTL left of a session that is gone.
func TestTaskLostWithItsSession(t *testing.T) {
	srv := tuitest.Demo()
	sess := tuitest.Connect(t, srv)
	m, d := newView(t, sess, 120, 24)

	// A receiver task (←), answered: the server's elicitation as a task, declined.
	ctx := tuitest.Context(t)
	asked := make(chan error, 1)
	go func() {
		_, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: demo.ToolAskUserTask}, nil)
		asked <- err
	}()
	var recv string
	for deadline := time.Now().Add(10 * time.Second); recv == ""; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the server's elicitation task did not come")
		}
		for _, r := range sess.PendingRequests() {
			if r.Task != "" {
				recv = r.Task
				if err := r.Decline(); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if err := <-asked; err != nil {
		t.Fatal(err)
	}
	d.WaitLine(look.ShortID(recv), "✓ completed")

	task := start(t, sess, demo.ToolSleepTask, `{"seconds":60}`)
	d.Send(ui.TaskStartedMsg{Task: task})
	id := look.ShortID(task.ID())
	d.WaitLine(id, "◐ working")

	srv.Close() // the server goes, and the session with it
	select {
	case <-sess.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the session did not end with its server")
	}
	d.Send(ui.TickMsg{})
	screen := d.WaitLine(id, "⊗ lost")
	if !strings.Contains(screen, "1 lost") || strings.Contains(screen, "working") {
		t.Errorf("the summary does not count the task as lost:\n%s", screen)
	}
	if l := tuitest.Line(screen, look.ShortID(recv)); !strings.Contains(l, "✓ completed") {
		t.Errorf("the receiver task's row: %q, want ✓ completed", l)
	}
	for _, r := range m.rows {
		if got := m.ttlLeft(r); got != "-" {
			t.Errorf("task %s (%s) has %q TTL left after its session ended, want -", r.id, m.statusText(r), got)
		}
	}
	if m.Active() != 0 {
		t.Errorf("%d tasks are active", m.Active())
	}
	d.Key("c")
	if f := d.WaitFlash("lost with"); !strings.Contains(f.Text, "task "+id+" was lost with its session, which has ended") {
		t.Errorf("c says %q", f.Text)
	}

	// A new session, whose server lists no tasks.
	sess2 := tuitest.Connect(t, tuitest.Demo())
	m.Update(ui.SessionMsg{Session: sess2, Gen: 1})
	d.Key("r")
	d.WaitFlash("the server lists 0 tasks")
	screen = d.WaitLine(id, "⊗ lost")
	if !strings.Contains(screen, "1 lost") {
		t.Errorf("after the reconnection the summary does not count the task as lost:\n%s", screen)
	}
	for _, r := range m.rows {
		if r.id == task.ID() {
			m.selectRow(r)
		}
	}
	d.Key("c")
	if f := d.WaitFlash("old session"); !strings.Contains(f.Text, "task "+id+" was lost with the old session") {
		t.Errorf("c says %q", f.Text)
	}
}

// Two tasks whose tools' names differ only at their ends stay told apart in the table
// at 80x24 and at 120x35, as does a receiver task's method: TOOL / METHOD widens for
// long names while MESSAGE keeps room, and a name still too long is cut in the middle.
func TestLongNamesStayDistinct(t *testing.T) {
	sess := tuitest.Connect(t, tuitest.Demo())
	for _, size := range [][2]int{{80, 24}, {120, 35}} {
		m := New(tuitest.Context(t), sess, nil)
		m.SetSize(size[0], size[1]-4)
		for i, n := range []string{"trigger-sampling-request", "trigger-sampling-request-async"} {
			m.add(&row{key: n, id: fmt.Sprintf("task%d", i), role: Requestor, name: n, state: mcp.Task{TaskID: "t", Status: mcp.TaskStatusWorking}})
		}
		m.add(&row{key: "recv", id: "task3", role: Receiver, name: mcp.MethodSamplingCreateMessage, state: mcp.Task{TaskID: "r", Status: mcp.TaskStatusWorking}})
		screen := ui.Strip(m.View())
		cell := func(id string) string {
			l := tuitest.Line(screen, id)
			_, after, _ := strings.Cut(l, id)
			f := strings.Fields(after)
			if len(f) < 2 {
				return ""
			}
			return f[1]
		}
		a, b, c := cell("task0"), cell("task1"), cell("task3")
		if a == b || !strings.HasPrefix(a, "trigger-") || !strings.HasSuffix(b, "async") || !strings.HasSuffix(c, "Message") {
			t.Errorf("%dx%d: the names read %q, %q, %q:\n%s", size[0], size[1], a, b, c, screen)
		}
		if size[0] == 120 && (b != "trigger-sampling-request-async" || c != mcp.MethodSamplingCreateMessage) {
			t.Errorf("120x35: a name is cut: %q, %q\n%s", b, c, screen)
		}
	}
}

// The line under the table about a task's outcome keeps its "(enter shows it)" whole at
// 120 columns, however long the result's text or the error's sentence.
func TestEnterHintKeptWhole(t *testing.T) {
	sess := tuitest.Connect(t, tuitest.Demo())
	m := New(tuitest.Context(t), sess, nil)
	m.SetSize(120, 31)
	long := strings.Repeat("a long account of what happened ", 10)
	res, _ := json.Marshal(&mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(long)}})
	m.add(&row{key: "ok", id: "task-ok", role: Requestor, name: "t", outcome: true, result: res, state: mcp.Task{TaskID: "t1", Status: mcp.TaskStatusCompleted}})
	m.add(&row{key: "err", id: "task-err", role: Requestor, name: "t", outcome: true, err: errors.New(long), state: mcp.Task{TaskID: "t2", Status: mcp.TaskStatusFailed}})
	for i, want := range []string{"result: a long account", "error: a long account"} {
		m.cursor = i
		screen := ui.Strip(m.View())
		if l := tuitest.Line(screen, want); !strings.HasSuffix(strings.TrimRight(l, " "), "(enter shows it)") {
			t.Errorf("the line reads %q, want it to end with (enter shows it)", l)
		}
	}
}
