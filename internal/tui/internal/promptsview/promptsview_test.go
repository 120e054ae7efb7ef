package promptsview

import (
	"strings"
	"testing"

	"github.com/mcpi-dev/mcpi/internal/tui/internal/tuitest"
)

// A prompt's arguments become a form; its required argument is checked before the
// prompt is fetched, and the messages it renders to are shown.
func TestGetPrompt(t *testing.T) {
	sess := tuitest.Connect(t, tuitest.Demo())
	m := New(tuitest.Context(t), sess)
	m.SetSize(100, 24)
	d := tuitest.New(t, m)
	d.Listen(sess, 0)
	d.Run(m.Init())
	screen := d.WaitLine("greet", "name*")
	if !strings.Contains(screen, "1 prompt ") || strings.Contains(screen, "1 prompts") {
		t.Errorf("the count of one prompt is not singular:\n%s", screen)
	}
	d.Key("enter")
	d.WaitText("prompts/get greet", "[ Get prompt ]")
	d.Key("ctrl+s")
	d.WaitText("is required")
	d.Type("Ada")
	d.Key("ctrl+s")
	d.WaitText("prompts/get greet", "[user]", "Ada")
}
