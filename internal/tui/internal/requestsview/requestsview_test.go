package requestsview

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/internal/tui/internal/tuitest"
	"github.com/mcpi-dev/mcpi/internal/tui/internal/ui"
	"github.com/mcpi-dev/mcpi/mcp"
)

type outcome struct {
	res *mcp.CallToolResult
	err error
}

func call(t *testing.T, sess *client.Session, tool, args string) <-chan outcome {
	ch := make(chan outcome, 1)
	go func() {
		res, err := sess.CallTool(tuitest.Context(t), &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)}, nil)
		ch <- outcome{res, err}
	}()
	return ch
}

// result waits for the tool call's outcome, as text.
func result(t *testing.T, ch <-chan outcome) string {
	t.Helper()
	select {
	case o := <-ch:
		return text(o)
	case <-time.After(15 * time.Second):
		t.Fatal("the tool call did not return")
		return ""
	}
}

func text(o outcome) string {
	if o.err != nil {
		return "error: " + o.err.Error()
	}
	var parts []string
	for _, c := range o.res.Content {
		parts = append(parts, c.Text)
	}
	return strings.Join(parts, " ")
}

func newView(t *testing.T) (*Model, *tuitest.Driver, *client.Session) {
	sess := tuitest.Connect(t, tuitest.Demo())
	m := New(tuitest.Context(t), sess, nil)
	m.SetSize(100, 24)
	d := tuitest.New(t, m)
	d.Listen(sess, 0)
	d.Send(ui.TickMsg{})
	return m, d, sess
}

// A plain elicitation is listed, marked plain, and answered with a form built from its
// schema (a required text, an enum with a default, a boolean).
func TestAnswerElicitationForm(t *testing.T) {
	m, d, sess := newView(t)
	done := call(t, sess, demo.ToolAskUser, `{"message":"Tell me about you"}`)
	screen := d.WaitLine("? elicitation", "plain", "Tell me about you")
	if m.Pending() != 1 || !strings.Contains(screen, "1 pending") {
		t.Errorf("the count of pending requests is %d:\n%s", m.Pending(), screen)
	}
	d.Key("enter")
	d.WaitText("Answer the server's elicitation", "plain request", "Name*", "‹ blue ›", "[ ] false")
	d.Key("ctrl+s")
	d.WaitText("Name is required")
	d.Type("Grace")
	d.Key("tab", "right", "right") // colour: blue -> (none) -> red
	d.WaitText("‹ red ›")
	d.Key("tab", "space") // subscribe: false -> true
	d.WaitText("[x] true")
	d.Key("ctrl+s")
	d.WaitFlash("accepted elicitation")
	got := result(t, done)
	for _, want := range []string{"Grace", "red", "yes"} {
		if !strings.Contains(got, want) {
			t.Errorf("the tool's result %q lacks %q", got, want)
		}
	}
	d.WaitLine("elicitation", "accepted")
	if m.Pending() != 0 {
		t.Errorf("%d still pending", m.Pending())
	}
}

// Declining from the list answers "decline"; a sampling request is answered with a
// reply, or rejected.
func TestDeclineAndSampling(t *testing.T) {
	_, d, sess := newView(t)
	done := call(t, sess, demo.ToolAskUser, `{}`)
	d.WaitLine("? elicitation", "plain")
	d.Key("d")
	d.WaitFlash("declined elicitation")
	if got := result(t, done); !strings.Contains(got, "decline") {
		t.Errorf("after declining, the tool says %q", got)
	}

	done = call(t, sess, demo.ToolAskModel, `{"prompt":"What is 2+2?"}`)
	d.WaitLine("? sampling", "plain", "What is 2+2?")
	d.Key("down")
	d.Key("enter")
	d.WaitText("Answer the server's sampling", "user: What is 2+2?", "Reply*", "mcpi-user", "‹ endTurn ›")
	d.Type("4")
	d.Key("ctrl+s")
	d.WaitFlash("answered sampling")
	if got := result(t, done); !strings.Contains(got, "4") {
		t.Errorf("the tool's result %q lacks the reply", got)
	}

	done = call(t, sess, demo.ToolAskModel, `{"prompt":"Again?"}`)
	d.WaitLine("? sampling", "Again?")
	d.Key("G", "enter")
	d.WaitText("Answer the server's sampling")
	d.Key("ctrl+d")
	d.WaitFlash("rejected sampling")
	if got := result(t, done); !strings.Contains(got, "rejected") {
		t.Errorf("after rejecting, the tool says %q", got)
	}
}
