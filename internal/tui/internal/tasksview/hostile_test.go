package tasksview

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/internal/tui/internal/tuitest"
	"github.com/mcpi-dev/mcpi/internal/tui/internal/ui"
	"github.com/mcpi-dev/mcpi/mcp"
)

// A server's result of megabytes is highlighted once, not again at every tick and every
// batch of events while its details are open: highlighting 3 MB of JSON took seconds,
// so a task's details with a large result kept the whole UI busy. The work of a tick
// is counted in allocations, which do not grow with the result.
func TestDetailsOfLargeResultNotRedoneEachTick(t *testing.T) {
	sess := tuitest.Connect(t, tuitest.Demo())
	work := func(items int) float64 {
		m := New(tuitest.Context(t), sess, nil)
		m.SetSize(100, 30)
		r := m.receiverRow("big")
		r.state.Status, r.outcome = mcp.TaskStatusCompleted, true
		r.result = []byte(`{"content":[],"structuredContent":[` + strings.Repeat("0,", items) + `0]}`)
		m.openDetail()
		if !strings.Contains(ui.Strip(m.View()), "structuredContent") {
			t.Fatalf("the details do not show the result:\n%s", ui.Strip(m.View()))
		}
		return testing.AllocsPerRun(5, func() {
			m.Update(ui.TickMsg(time.Now()))
			m.View()
		})
	}
	small, large := work(10), work(20_000)
	if large > 2*small+200 {
		t.Errorf("a tick with the details of a result of 20,000 items open allocates %.0f times, of 10 items %.0f: the result is laid out again at every tick", large, small)
	}
}
