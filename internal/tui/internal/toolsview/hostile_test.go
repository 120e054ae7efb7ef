package toolsview

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/internal/tui/internal/tuitest"
	"github.com/mcpi-dev/mcpi/internal/tui/internal/ui"
	"github.com/mcpi-dev/mcpi/mcp"
)

// The list's pane describes the selected tool at every drawing (every key, every
// second): a server's tool of 20,000 properties, or a description of megabytes, costs
// that drawing no more than what fits on screen. Before, each drawing read the whole
// schema again and made a field of each property. The work is counted in allocations.
func TestSelectedToolOfHostileSizeDrawnCheaply(t *testing.T) {
	sess := tuitest.Connect(t, tuitest.Demo())
	work := func(n int) float64 {
		m := New(tuitest.Context(t), sess, time.Minute, nil)
		m.SetSize(120, 30)
		var props []string
		for i := range n {
			props = append(props, fmt.Sprintf(`"p%d":{"type":"string"}`, i))
		}
		tool := mcp.Tool{Name: "big", Description: strings.Repeat("word ", 50*n),
			InputSchema: json.RawMessage(`{"type":"object","properties":{` + strings.Join(props, ",") + `}}`)}
		m.Update(toolsMsg{gen: m.gen, tools: []mcp.Tool{tool}})
		if screen := ui.Strip(m.View()); !strings.Contains(screen, "big") {
			t.Fatalf("the pane does not show the tool:\n%s", screen)
		}
		return testing.AllocsPerRun(5, func() { m.View() })
	}
	small, large := work(10), work(20_000)
	if large > 2*small+200 {
		t.Errorf("drawing the list with a tool of 20,000 properties selected allocates %.0f times, with one of 10 %.0f", large, small)
	}
}
