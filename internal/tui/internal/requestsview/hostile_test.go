package requestsview

import (
	"encoding/json"
	"fmt"
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

// A URL elicitation offers only a web page (an absolute http: or https: URL) to open, as
// the CLI does; another URL (javascript:, file:) is quoted and said not to be opened, and
// the form can only decline or cancel.
func TestURLElicitationOffersOnlyWebPages(t *testing.T) {
	now := time.Now()
	m := New(t.Context(), nil, func() time.Time { return now })
	m.SetSize(100, 24)
	web := &entry{req: &client.Request{Method: mcp.MethodElicitationCreate, Received: now,
		Elicitation: &mcp.ElicitParams{Mode: mcp.ElicitModeURL, Message: "Log in", URL: "https://example.com/login", ElicitationID: "e1"}}}
	script := &entry{req: &client.Request{Method: mcp.MethodElicitationCreate, Received: now,
		Elicitation: &mcp.ElicitParams{Mode: mcp.ElicitModeURL, Message: "Log in", URL: "javascript:alert(1)//x", ElicitationID: "e2"}}}
	m.entries = append(m.entries, web, script)

	m.openAnswer(web)
	screen := ui.Strip(m.View())
	if !strings.Contains(screen, "Open: https://example.com/login") || !strings.Contains(screen, "Accept") {
		t.Errorf("the web page is not offered:\n%s", screen)
	}
	m.closeAnswer()

	m.openAnswer(script)
	screen = ui.Strip(m.View())
	if !strings.Contains(screen, `The server names no web address: "javascript:alert(1)//x", not to be opened.`) ||
		strings.Contains(screen, "Open:") || strings.Contains(screen, "Accept") {
		t.Errorf("the script URL is offered:\n%s", screen)
	}
	if msg := m.accept(script)(); !strings.Contains(fmt.Sprint(msg), "no web address") {
		t.Errorf("ctrl+s on the script URL gives %#v, not a notice", msg)
	}
}
