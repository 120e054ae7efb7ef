package tasksview

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/internal/look"
	"github.com/mcpi-dev/mcpi/internal/tui/internal/tuitest"
	"github.com/mcpi-dev/mcpi/internal/tui/internal/ui"
	"github.com/mcpi-dev/mcpi/mcp"
)

func start(t *testing.T, sess *client.Session, tool, args string) *client.Task {
	t.Helper()
	task, err := sess.StartToolTask(tuitest.Context(t), &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)},
		&client.CallOptions{TTL: time.Minute, Progress: true})
	if err != nil {
		t.Fatalf("starting %s: %v", tool, err)
	}
	return task
}

func newView(t *testing.T, sess *client.Session, w, h int) (*Model, *tuitest.Driver) {
	m := New(tuitest.Context(t), sess, nil)
	m.SetSize(w, h)
	d := tuitest.New(t, m)
	d.Listen(sess, 0)
	return m, d
}

// A task tool called as a task shows up working, with its progress and status
// message, then completed; its details show the result.
func TestTaskMovesFromWorkingToCompleted(t *testing.T) {
	sess := tuitest.Connect(t, tuitest.Demo())
	_, d := newView(t, sess, 100, 20)
	d.WaitText("No tasks yet")

	task := start(t, sess, demo.ToolSlowTask, `{"seconds":1.5,"steps":3}`)
	d.Send(ui.TaskStartedMsg{Task: task})
	id := look.ShortID(task.ID())
	d.WaitLine(id, "slow_task", "◐ working")
	d.WaitLine(id, "step 1 of 3", "1/3")
	screen := d.WaitLine(id, "✓ completed", "3/3")
	if l := tuitest.Line(screen, id); !strings.Contains(l, "s ") {
		t.Errorf("the completed row lacks its elapsed time or TTL: %q", l)
	}
	d.WaitText("result: done: worked 1.5s in 3 steps")

	d.Key("enter")
	// The result reads as its text; v shows the raw JSON.
	screen = d.WaitText("Task "+task.ID(), "Result", "done: worked 1.5s in 3 steps")
	for _, want := range []string{"tools/call slow_task", "TTL", "Polls", "Progress"} {
		if !strings.Contains(screen, want) {
			t.Errorf("details lack %q:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, `"text"`) {
		t.Errorf("the result is shown as JSON:\n%s", screen)
	}
	d.Key("v")
	d.WaitText("Task "+task.ID(), "Result", `"text": "done: worked 1.5s in 3 steps"`)
	d.Key("v")
	d.WaitFor("the readable result", func(s string) bool { return !strings.Contains(s, `"text"`) })
	d.Key("esc")
	d.WaitText("1 task: 1 completed")
}

// Cancel asks for confirmation, then sends tasks/cancel; the task ends cancelled.
func TestCancelTask(t *testing.T) {
	sess := tuitest.Connect(t, tuitest.Demo())
	_, d := newView(t, sess, 80, 24)
	task := start(t, sess, demo.ToolSleepTask, `{"seconds":60}`)
	d.Send(ui.TaskStartedMsg{Task: task})
	id := look.ShortID(task.ID())
	d.WaitLine(id, "◐ working")

	d.Key("c")
	d.WaitText("Cancel task " + id)
	d.Key("n")
	d.WaitLine(id, "◐ working")
	if st := task.State().Status; st != mcp.TaskStatusWorking {
		t.Fatalf("after answering no, the task is %s", st)
	}

	d.Key("c")
	d.WaitText("Cancel task " + id)
	d.Key("y")
	d.WaitLine(id, "⊘ cancelled")
	select {
	case <-task.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the task did not end after cancel")
	}
	d.Key("c")
	d.WaitText("1 task: 1 cancelled")
}

// A server that runs receiver task after receiver task on the client over a long session
// does not grow the view without end: past MaxEnded ended tasks the oldest go, never one
// still running nor the one open in detail, and the cursor stays on its row.
func TestEndedTasksBounded(t *testing.T) {
	m := New(tuitest.Context(t), nil, nil)
	const extra = 10
	for i := range MaxEnded + extra {
		r := m.receiverRow(fmt.Sprintf("ended-%d", i))
		r.outcome = true
		if i%100 == 50 {
			m.receiverRow(fmt.Sprintf("live-%d", i))
		}
	}
	check := func(step string) {
		t.Helper()
		live, ended := 0, 0
		for _, r := range m.rows {
			if r.isEnded() {
				ended++
			} else {
				live++
			}
			if m.byKey[r.key] != r {
				t.Fatalf("%s: row %q is not under its key", step, r.id)
			}
		}
		if len(m.byKey) != len(m.rows) || live != (MaxEnded+extra)/100 || ended != MaxEnded {
			t.Fatalf("%s: %d rows (%d keys): %d live, %d ended", step, len(m.rows), len(m.byKey), live, ended)
		}
	}

	m.mode, m.cursor = modeDetail, 3
	open := m.rows[3]
	m.trim()
	check("in detail")
	if m.rows[m.cursor] != open || m.cursor != 0 {
		t.Fatalf("the task open in detail is not kept under the cursor: %q at %d", m.rows[m.cursor].id, m.cursor)
	}

	// In the table, the row that was open goes too, and the cursor keeps to its row.
	m.mode, m.cursor = modeTable, 5
	sel := m.rows[m.cursor]
	for _, id := range []string{"one more", "and another"} {
		m.receiverRow(id).outcome = true
	}
	m.trim()
	check("in the table")
	if m.rows[m.cursor] != sel || m.byKey[open.key] != nil {
		t.Fatalf("after trimming, the cursor is on %q, not %q", m.rows[m.cursor].id, sel.id)
	}
}

// In 2026-07-28 every call declares the Tasks extension and the server decides: a call it
// answers at once made no task, and the view shows none for it (it counted a "starting"
// row for each plain call).
func TestPlainAnswersMakeNoRows(t *testing.T) {
	sess := tuitest.Connect(t, tuitest.DemoBoth())
	if !sess.Modern() {
		t.Fatal("the demo session is not of 2026-07-28")
	}
	_, d := newView(t, sess, 100, 20)
	d.WaitText("No tasks yet")
	// add answers at once; slow sends progress first, which the view hears of before
	// it knows the call made no task.
	for _, c := range [][2]string{{demo.ToolAdd, `{"a":1,"b":2}`}, {demo.ToolSlow, `{"seconds":0.1,"steps":2}`}, {demo.ToolAdd, `{"a":1,"b":2}`}} {
		plain := start(t, sess, c[0], c[1])
		if res, err := plain.Outcome(); err != nil || plain.ID() != "" || res.IsError {
			t.Fatalf("%s: %+v, %v, id %q", c[0], res, err, plain.ID())
		}
	}
	task := start(t, sess, demo.ToolSlowTask, `{"seconds":0.2,"steps":1}`)
	d.Send(ui.TaskStartedMsg{Task: task})
	// Its end comes after the plain calls' ends in the session's events.
	screen := d.WaitLine(look.ShortID(task.ID()), "slow_task", "✓ completed")
	if strings.Contains(screen, "starting") || !strings.Contains(screen, "1 task") {
		t.Errorf("plain calls show as tasks:\n%s", screen)
	}
}

// After a reconnect the rows of the earlier session are dimmed, and keep the columns
// of the table: each cell starts under its heading (PROG, a right-aligned one, ends
// under its heading).
func TestEarlierSessionRowsKeepColumns(t *testing.T) {
	sess := tuitest.Connect(t, tuitest.Demo())
	m, d := newView(t, sess, 120, 20)
	task := start(t, sess, demo.ToolSlowTask, `{"seconds":0.1,"steps":2}`)
	d.Send(ui.TaskStartedMsg{Task: task})
	id := look.ShortID(task.ID())
	d.WaitLine(id, "✓ completed", "2/2")
	m.Update(ui.SessionMsg{Session: sess, Gen: 1})
	screen := d.Screen()
	head, row := tuitest.Line(screen, "STATUS", "TTL LEFT"), tuitest.Line(screen, id)
	col := func(s, sub string) int {
		i := strings.Index(s, sub)
		if i < 0 {
			return -1
		}
		return utf8.RuneCountInString(s[:i])
	}
	for _, c := range []struct{ head, cell string }{
		{"TOOL / METHOD", "→ slow_task"}, {"STATUS", "✓ completed"}, {"MESSAGE", "step 2 of 2"},
	} {
		if h, at := col(head, c.head), col(row, c.cell); h < 0 || h != at {
			t.Errorf("%q starts at column %d, its heading at %d:\n%s\n%s", c.cell, at, h, head, row)
		}
	}
	if h, at := col(head, "PROG")+4, col(row, " 2/2 ")+4; h != at {
		t.Errorf("2/2 ends at column %d, its heading at %d:\n%s\n%s", at, h, head, row)
	}
}

// TTL LEFT says zero one way, "0s", and less than a second as such.
func TestTTLLeftZero(t *testing.T) {
	created := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	now := created
	m := New(tuitest.Context(t), nil, func() time.Time { return now })
	ttl := int64(2000)
	r := &row{state: mcp.Task{TaskID: "t", CreatedAt: created.Format(time.RFC3339Nano), TTL: &ttl}}
	for _, c := range []struct {
		after time.Duration
		want  string
	}{{0, "2.0s"}, {1500 * time.Millisecond, "<1s"}, {2 * time.Second, "0s"}, {2500 * time.Millisecond, "0s"}, {time.Hour, "0s"}} {
		now = created.Add(c.after)
		if got := m.ttlLeft(r); got != c.want {
			t.Errorf("%s after creation, TTL LEFT is %q, want %q", c.after, got, c.want)
		}
	}
}

// The PROG cell says the server's numbers in its six cells without cutting one: 1e300
// of -1 is 1e+300 (no total), not "10000…", which reads as ten thousand.
func TestProgressCellOfAbsurdNumbers(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	for _, tt := range []struct {
		p    mcp.ProgressNotificationParams
		want string
	}{
		{mcp.ProgressNotificationParams{Progress: 1e300, Total: f(-1)}, "1e+300"},
		{mcp.ProgressNotificationParams{Progress: 2, Total: f(2)}, "2/2"},
		{mcp.ProgressNotificationParams{Progress: 30, Total: f(20)}, "20/20"},
		{mcp.ProgressNotificationParams{Progress: 123456789}, "1e+08"},
		{mcp.ProgressNotificationParams{Progress: 1234, Total: f(5000)}, "24%"},
	} {
		if got := progressText(&tt.p); got != tt.want || ui.Width(got) > 6 {
			t.Errorf("progressText(%+v) = %q, want %q", tt.p, got, tt.want)
		}
	}
}
