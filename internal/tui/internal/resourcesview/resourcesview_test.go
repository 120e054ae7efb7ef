package resourcesview

import (
	"testing"

	"github.com/mcpi-dev/mcpi/internal/tui/internal/tuitest"
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
	d.WaitText("Read a resource from the template", "URI: demo://greetings/{name}")
	if !m.Capturing() {
		t.Fatal("the URI input does not have the keys")
	}
	for range len("{name}") {
		d.Key("backspace")
	}
	d.Type("Bob")
	d.Key("enter")
	d.WaitText("demo://greetings/Bob", "Bob")
}
