package promptsview

import (
	"strings"
	"testing"

	"github.com/mcpi-dev/mcpi/internal/tui/internal/tuitest"
	"github.com/mcpi-dev/mcpi/server"
)

// The greet prompt's arguments are completed from the demo server in both protocol
// revisions: the suggestions show under the focused field as it is typed, ctrl+n moves
// among them, ctrl+space takes one into the field, and the prompt renders with it.
func TestCompletePromptArguments(t *testing.T) {
	for _, c := range []struct {
		name string
		srv  func() *server.Server
		era  string
	}{{"2026-07-28", tuitest.DemoBoth, "2026-07-28"}, {"2025-11-25", tuitest.Demo, "2025-11-25"}} {
		t.Run(c.name, func(t *testing.T) {
			sess := tuitest.Connect(t, c.srv())
			if got := sess.ProtocolVersion(); got != c.era {
				t.Fatalf("the session speaks %s, want %s", got, c.era)
			}
			m := New(tuitest.Context(t), sess)
			m.SetSize(100, 24)
			d := tuitest.New(t, m)
			d.Run(m.Init())
			d.WaitLine("greet", "name*")
			d.Key("enter")
			// The empty name is completed at once: the first five names, and how many more.
			d.WaitText("▸ Ada", "Alan", "Barbara", "Donald", "Edsger", "… 3 more")
			if !strings.Contains(d.Screen(), "ctrl+space") && !keysHelp(m, "ctrl+space") {
				t.Error("the help bar does not name the accept key")
			}
			d.Type("a")
			screen := d.WaitFor("the names with a", func(s string) bool {
				return strings.Contains(s, "Alan") && !strings.Contains(s, "Barbara")
			})
			if strings.Contains(screen, "more") {
				t.Errorf("two suggestions say there are more:\n%s", screen)
			}
			d.Key("ctrl+n")
			d.WaitLine("▸ Alan")
			d.Key("ctrl+space")
			if got := m.form.Field("name").Text(); got != "Alan" {
				t.Fatalf("the name is %q after accepting Alan", got)
			}
			screen = d.Screen()
			if strings.Contains(screen, "▸ Ada") || strings.Contains(screen, "▸ Alan") {
				t.Errorf("the suggestions still show once one is taken:\n%s", screen)
			}
			d.Key("tab")
			d.Type("fr")
			d.WaitLine("▸ French")
			d.Key("ctrl+space")
			if got := m.form.Field("language").Text(); got != "French" {
				t.Fatalf("the language is %q after accepting French", got)
			}
			d.Key("ctrl+s")
			d.WaitText("prompts/get greet", "[user]", "greeting for Alan in French")
		})
	}
}

func keysHelp(m *Model, k string) bool {
	for _, b := range m.ShortHelp() {
		if b.Help().Key == k || strings.HasPrefix(b.Help().Key, k) {
			return true
		}
	}
	return false
}
