package requestsview

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/internal/tui/internal/tuitest"
	"github.com/mcpi-dev/mcpi/internal/tui/internal/ui"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
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

// A server that asks question after question over a long session does not grow the view
// without end: past MaxSettled answered requests the oldest go, the pending one stays,
// and the cursor keeps to its entry.
func TestSettledRequestsBounded(t *testing.T) {
	const asked = MaxSettled + 50
	srv := server.New(mcp.Implementation{Name: "asker", Version: "1"}, nil)
	t.Cleanup(srv.Close)
	srv.AddTool(&mcp.Tool{Name: "ask", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			for i := range asked + 1 {
				if _, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: fmt.Sprintf("question %d", i),
					RequestedSchema: json.RawMessage(`{"type":"object","properties":{}}`)}); err != nil {
					return nil, err
				}
			}
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("asked")}}, nil
		})
	sess := tuitest.Connect(t, srv)
	m := New(tuitest.Context(t), sess, nil)
	m.SetSize(100, 24)
	d := tuitest.New(t, m)
	d.Listen(sess, 0)

	// The user declines the first questions as they come, on their own goroutine.
	sub := sess.Subscribe()
	t.Cleanup(sub.Close)
	go func() {
		n := 0
		for e := range sub.All(tuitest.Context(t)) {
			if re, ok := e.(*client.RequestEvent); ok && !re.Settled && n < asked {
				n++
				re.Request.Decline()
			}
		}
	}()
	call(t, sess, "ask", `{}`)
	last := fmt.Sprintf("question %d", asked)
	d.WaitFor("the last question, pending", func(string) bool {
		n := len(m.entries)
		return n > 0 && m.entries[n-1].req.Elicitation.Message == last && !m.entries[n-1].settled
	})
	d.Drain()
	if len(m.entries) != MaxSettled+1 {
		t.Fatalf("the view holds %d requests, want %d", len(m.entries), MaxSettled+1)
	}
	if first := m.entries[0].req.Elicitation.Message; first != fmt.Sprintf("question %d", asked-MaxSettled) {
		t.Fatalf("the oldest request kept is %q", first)
	}
	// One more settled: the oldest goes, and the cursor stays on its entry.
	m.cursor = len(m.entries) - 1
	m.entries[m.cursor].settled, m.entries[m.cursor].outcome = true, "declined"
	m.trim()
	if len(m.entries) != MaxSettled || m.entries[m.cursor].req.Elicitation.Message != last {
		t.Fatalf("after one more settled: %d requests, the cursor on %q", len(m.entries), m.entries[m.cursor].req.Elicitation.Message)
	}
	for _, r := range sess.PendingRequests() {
		r.Decline()
	}
}
