package resourcesview

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/mcpi-dev/mcpi/internal/tui/internal/tuitest"
	"github.com/mcpi-dev/mcpi/mcp"
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

// A blob reads as the size it decodes to (not the length of its base64); one that is
// text (text/* or UTF-8 bytes) is offered as text, and t shows it, made safe; a blob
// that is not text is not offered.
func TestBlobSizeAndText(t *testing.T) {
	text := "line one\nline two \x1b[2J\n" + strings.Repeat("x", 32) // 55 bytes
	m := New(tuitest.Context(t), nil)
	m.SetSize(100, 24)
	d := tuitest.New(t, m)
	m.mode, m.openURI = modeContent, "mem://blobs"
	d.Send(readMsg{uri: "mem://blobs", res: &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{
		{URI: "mem://a.txt", MimeType: "text/plain", Blob: base64.StdEncoding.EncodeToString([]byte(text))},
		{URI: "mem://zeros", MimeType: "application/octet-stream", Blob: base64.StdEncoding.EncodeToString(make([]byte, 56))},
	}}})
	screen := d.WaitText("mem://a.txt", "binary, 55 bytes; it is text: t shows it", "binary, 56 bytes")
	if strings.Contains(screen, "base64") || strings.Contains(screen, "line one") {
		t.Errorf("the blobs read:\n%s", screen)
	}
	if l := tuitest.Line(screen, "binary, 56 bytes"); strings.Contains(l, "text") {
		t.Errorf("the zeros are offered as text: %q", l)
	}
	help := false
	for _, k := range m.ShortHelp() {
		help = help || k.Help().Key == "t"
	}
	if !help {
		t.Error("the help does not offer t")
	}
	d.Key("t")
	screen = d.WaitText("binary, 55 bytes, shown as text", "line one", "line two ␛[2J")
	if strings.Contains(screen, "\x1b[2J") {
		t.Errorf("the text reaches the terminal unsafe:\n%q", screen)
	}
	d.Key("t")
	d.WaitText("binary, 55 bytes; it is text: t shows it")
}
