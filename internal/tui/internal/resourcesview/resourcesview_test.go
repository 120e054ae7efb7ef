package resourcesview

import (
	"strings"
	"testing"

	"github.com/mcpi-dev/mcpi/internal/tui/internal/tuitest"
	"github.com/mcpi-dev/mcpi/server"
)

// Resources and templates are listed; a resource is read, a template read after its
// URI is filled in, and a subscription toggled.
func TestReadResourceAndTemplate(t *testing.T) {
	sess := tuitest.Connect(t, tuitest.Demo())
	m := New(tuitest.Context(t), sess)
	m.SetSize(100, 24)
	d := tuitest.New(t, m)
	d.Listen(sess, 0)
	d.Run(m.Init())
	d.WaitLine("demo://about", "resource")
	d.WaitLine("demo://greetings/{name}", "template")

	d.Key("home", "enter")
	d.WaitText("demo://about", "mcpi")
	d.Key("esc")

	d.Key("s")
	d.WaitFlash("subscribed to demo://about")
	d.WaitLine("demo://about", "subscribed")

	d.Key("down", "enter")
	d.WaitText("Read a resource from the template demo://greetings/{name}", "URI: demo://greetings/", "name")
	if !m.Capturing() {
		t.Fatal("the template's form does not have the keys")
	}
	d.Type("Bob")
	d.WaitText("URI: demo://greetings/Bob")
	d.Key("enter", "enter")
	d.WaitText("demo://greetings/Bob", "Hello, Bob!")
}

// A template's variable is completed from the demo server in both protocol revisions:
// the suggestions show under the field as it is typed, ctrl+space takes the
// highlighted one, and the URI it makes is read.
func TestCompleteTemplateVariable(t *testing.T) {
	for _, c := range []struct {
		era string
		srv func() *server.Server
	}{{"2026-07-28", tuitest.DemoBoth}, {"2025-11-25", tuitest.Demo}} {
		t.Run(c.era, func(t *testing.T) {
			sess := tuitest.Connect(t, c.srv())
			if sess.ProtocolVersion() != c.era {
				t.Fatalf("the session speaks %s", sess.ProtocolVersion())
			}
			m := New(tuitest.Context(t), sess)
			m.SetSize(100, 24)
			d := tuitest.New(t, m)
			d.Run(m.Init())
			d.WaitLine("demo://greetings/{name}", "template")
			d.Key("end", "enter")
			d.WaitText("▸ Ada", "Edsger", "… 3 more")
			d.Type("g")
			screen := d.WaitLine("▸ Grace")
			if strings.Contains(screen, "Ada") {
				t.Errorf("the suggestions for g show Ada:\n%s", screen)
			}
			d.Key("ctrl+space")
			if got := m.vars.Field("name").Text(); got != "Grace" {
				t.Fatalf("the name is %q after accepting Grace", got)
			}
			d.WaitText("URI: demo://greetings/Grace")
			d.Key("ctrl+s")
			d.WaitText("Hello, Grace!")
			d.Key("esc")
			d.WaitText("URI: demo://greetings/Grace")
		})
	}
}
