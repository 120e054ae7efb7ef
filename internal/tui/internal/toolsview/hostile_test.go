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

// Why the tools could not be listed is shown whole in the narrow list, wrapped, at 80
// and 120 columns: a login that failed is told in a long sentence whose end says why.
func TestListErrorShownWhole(t *testing.T) {
	sess := tuitest.Connect(t, tuitest.Demo())
	why := "the OAuth login failed: the authorization response does not carry the state of the request (a forged or stale redirect)"
	for _, w := range []int{80, 120} {
		m := New(tuitest.Context(t), sess, time.Minute, nil)
		m.SetSize(w, 24)
		m.Update(toolsMsg{gen: m.gen, err: fmt.Errorf("%s", why)})
		screen := ui.Strip(m.View())
		var got []string
		for _, l := range strings.Split(screen, "\n") {
			if i := strings.Index(l, "│"); i >= 0 {
				l = l[:i] // the list, left of the pane
			}
			got = append(got, strings.TrimSpace(l))
		}
		if flat := strings.Join(strings.Fields(strings.Join(got, " ")), " "); !strings.Contains(flat, why) {
			t.Errorf("at %d columns the list does not show the whole sentence:\n%s", w, screen)
		}
	}
}
