package requestsview

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/tui/internal/ui"
	"github.com/mcpi-dev/mcpi/mcp"
)

// allocated is how many bytes f allocates, over 3 runs.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range 3 {
		f()
	}
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A server's question of megabytes (an elicitation's message, a sampling request's
// system prompt and messages) is drawn at the cost of what shows, in the list and in
// the answer form: the view is drawn at every tick and key, and each of a screenful of
// pending requests may be that large.
func TestRequestsOfHostileSizeDrawnCheaply(t *testing.T) {
	work := func(n int) (list, elicit, sample uint64) {
		text := strings.Repeat("word ", n)
		now := time.Now()
		m := New(t.Context(), nil, func() time.Time { return now })
		m.SetSize(100, 24)
		for range 20 {
			m.entries = append(m.entries, &entry{req: &client.Request{Method: mcp.MethodElicitationCreate, Received: now,
				Elicitation: &mcp.ElicitParams{Message: text, RequestedSchema: json.RawMessage(`{"type":"object","properties":{}}`)}}})
		}
		el := m.entries[0]
		sp := &entry{req: &client.Request{Method: mcp.MethodSamplingCreateMessage, Received: now, Sampling: &mcp.CreateMessageParams{
			SystemPrompt: text, MaxTokens: 10,
			Messages: []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: []mcp.Content{mcp.TextContent(text), mcp.TextContent(text)}}}}}}
		m.entries = append(m.entries, sp)
		if screen := ui.Strip(m.View()); !strings.Contains(screen, "“word word") {
			t.Fatalf("the list does not show the question:\n%s", screen)
		}
		list = allocated(func() { m.View() })
		m.openAnswer(el)
		if screen := ui.Strip(m.View()); !strings.Contains(screen, "word word") {
			t.Fatalf("the answer form does not show the question:\n%s", screen)
		}
		elicit = allocated(func() { m.View() })
		m.closeAnswer()
		m.openAnswer(sp)
		if screen := ui.Strip(m.View()); !strings.Contains(screen, "system: word word") || !strings.Contains(screen, "user: word word") {
			t.Fatalf("the answer form does not show the request:\n%s", screen)
		}
		sample = allocated(func() { m.View() })
		return list, elicit, sample
	}
	// Questions of 50 KB fill any screen already: ones of 2 MB must cost no more.
	sl, se, ss := work(10_000)
	ll, le, ls := work(400_000)
	for _, c := range []struct {
		what         string
		small, large uint64
	}{{"the list", sl, ll}, {"an elicitation's form", se, le}, {"a sampling request's form", ss, ls}} {
		if c.large > 2*c.small {
			t.Errorf("drawing %s with questions of 2 MB allocates %d bytes, with questions of 50 KB %d", c.what, c.large, c.small)
		}
	}
}
