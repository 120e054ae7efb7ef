package complete

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpi-dev/mcpi/internal/tui/internal/form"
	"github.com/mcpi-dev/mcpi/internal/tui/internal/tuitest"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
)

// recorder is a server whose prompt "pick" has the arguments "first" and "second" and
// whose completion is the test's: it records what it was asked, and answer decides.
type recorder struct {
	mu     sync.Mutex
	asked  []mcp.CompleteParams
	answer func(ctx context.Context, p *mcp.CompleteParams) (*mcp.CompleteResult, error)
}

func (r *recorder) server() *server.Server {
	return server.New(mcp.Implementation{Name: "completer", Version: "1"}, &server.Options{
		Complete: func(ctx context.Context, s *server.Session, p *mcp.CompleteParams) (*mcp.CompleteResult, error) {
			r.mu.Lock()
			r.asked = append(r.asked, *p)
			r.mu.Unlock()
			return r.answer(ctx, p)
		},
	})
}

// harness is a form of two text fields with a completer, keyed as the views key theirs.
type harness struct {
	f *form.Form
	c *Model
}

func (h *harness) Update(msg tea.Msg) tea.Cmd {
	if cmd, ok := h.c.Update(msg); ok {
		return cmd
	}
	k, ok := msg.(tea.KeyPressMsg)
	if !ok || h.c.Key(k, h.f) {
		return nil
	}
	cmd, _ := h.f.Update(k)
	return tea.Batch(cmd, h.c.Changed(h.f))
}

func (h *harness) View() string { return h.f.View(80, 20) }

func open(t *testing.T, r *recorder) (*harness, *tuitest.Driver) {
	t.Helper()
	sess := tuitest.Connect(t, r.server())
	h := &harness{f: form.New([]*form.Field{form.NewField("first", "", form.String), form.NewField("second", "", form.String)}, "Go")}
	h.c = New(tuitest.Context(t), sess, mcp.CompleteReference{Type: mcp.RefTypePrompt, Name: "pick"})
	h.f.Below = h.c.Lines
	d := tuitest.New(t, h)
	d.Run(h.c.Changed(h.f))
	return h, d
}

// An answer for a text typed on since is not shown: the server is slow on "s", the
// user types "sl" meanwhile, and only the answer for "sl" shows, even when the one for
// "s" comes after it. Typing in a burst asks once, after the pause; the other fields'
// values go along as the context.
func TestStaleAnswerIsDropped(t *testing.T) {
	release, slow := make(chan struct{}), make(chan struct{})
	r := &recorder{answer: func(ctx context.Context, p *mcp.CompleteParams) (*mcp.CompleteResult, error) {
		switch p.Argument.Value {
		case "s":
			close(slow)
			<-release
			return &mcp.CompleteResult{Completion: mcp.Completion{Values: []string{"stale-s"}}}, nil
		case "":
			return &mcp.CompleteResult{Completion: mcp.Completion{Values: []string{}}}, nil
		}
		return &mcp.CompleteResult{Completion: mcp.Completion{Values: []string{"fresh-" + p.Argument.Value}}}, nil
	}}
	defer close(release)
	h, d := open(t, r)
	d.Type("s")
	d.WaitFor("the pause after s", func(string) bool {
		for _, m := range tuitest.Seen[tickMsg](d) {
			if m.req.Argument.Value == "s" {
				return true
			}
		}
		return false
	})
	select {
	case <-slow:
	case <-time.After(d.Timeout):
		t.Fatal("the server was not asked for s")
	}
	first := h.c.seq
	d.Type("l")
	d.WaitLine("▸ fresh-sl")
	// The answer for "s" arriving late, as the client would hand it over.
	d.Send(answerMsg{owner: h.c, seq: first, res: &mcp.CompleteResult{Completion: mcp.Completion{Values: []string{"stale-s"}}}})
	if s := d.Screen(); strings.Contains(s, "stale-s") || !strings.Contains(s, "fresh-sl") {
		t.Fatalf("the answer for s shows for sl:\n%s", s)
	}

	// A burst of keys asks once, for its last text, with the other field's value.
	d.Key("tab")
	d.Type("xyz")
	d.WaitLine("▸ fresh-xyz")
	r.mu.Lock()
	defer r.mu.Unlock()
	var second []mcp.CompleteParams
	for _, p := range r.asked {
		if p.Argument.Name == "second" && p.Argument.Value != "" {
			second = append(second, p)
		}
	}
	if len(second) != 1 || second[0].Argument.Value != "xyz" {
		t.Fatalf("typing xyz asked %+v, want one request for xyz", second)
	}
	if ctx := second[0].Context; ctx == nil || ctx.Arguments["first"] != "sl" || len(ctx.Arguments) != 1 {
		t.Errorf("the context of second is %+v, want first=sl", ctx)
	}
}

// A server's suggestions are hostile text: control characters and escape sequences are
// shown, not obeyed; of 10,000 values a handful shows, with how many more there are;
// a value of a megabyte is cut to the field; an error is one dim line.
func TestHostileSuggestions(t *testing.T) {
	many := make([]string, 10_000)
	for i := range many {
		many[i] = fmt.Sprintf("v%05d", i)
	}
	total := int64(-5)
	r := &recorder{answer: func(ctx context.Context, p *mcp.CompleteParams) (*mcp.CompleteResult, error) {
		switch p.Argument.Value {
		case "":
			return &mcp.CompleteResult{Completion: mcp.Completion{Values: []string{
				"\x1b]0;pwned\x07title", "\x1b[2Jclear\r\nnext", "ok\tvalue", strings.Repeat("long", 250_000),
			}, Total: &total}}, nil
		case "m":
			return &mcp.CompleteResult{Completion: mcp.Completion{Values: many, HasMore: true}}, nil
		}
		return nil, fmt.Errorf("nothing for %q\x1b[31m\nsecond line", p.Argument.Value)
	}}
	h, d := open(t, r)
	screen := d.WaitText("title", "clear")
	view := h.View()
	for _, bad := range []string{"\x1b]", "\x1b[2J", "\x07", "\r"} {
		if strings.Contains(view, bad) {
			t.Errorf("the view holds %q", bad)
		}
	}
	for _, l := range strings.Split(screen, "\n") {
		if w := utf8.RuneCountInString(l); w > 80 {
			t.Errorf("a line of %d cells in a view of 80: %q", w, l)
		}
	}
	if strings.Contains(screen, "more") {
		t.Errorf("a negative total says there are more:\n%s", screen)
	}
	if len(h.c.values[3]) > MaxValueBytes+len("…") {
		t.Errorf("a suggestion of %d bytes is kept", len(h.c.values[3]))
	}
	d.Key("ctrl+space")
	if got := h.f.Field("first").Text(); strings.ContainsAny(got, "\x1b\x07\r\n") || !strings.HasSuffix(got, "title") {
		t.Errorf("the accepted value is %q", got)
	}

	h.f.SetFieldText("first", "")
	d.Type("m")
	screen = d.WaitText("v00000", "v00004", "9995+ more")
	if strings.Contains(screen, "v00005") {
		t.Errorf("more than five suggestions show:\n%s", screen)
	}
	if len(h.c.values) != MaxValues {
		t.Errorf("%d suggestions kept, want %d", len(h.c.values), MaxValues)
	}
	for range 150 {
		d.Key("ctrl+n")
	}
	d.WaitLine("▸ v00050") // 150 steps round a ring of 100
	d.Key("ctrl+p")
	d.WaitLine("▸ v00049")

	d.Type("x")
	screen = d.WaitText("nothing for")
	if l := tuitest.Line(screen, "second line"); l != "" && !strings.Contains(l, "nothing for") {
		t.Errorf("the error is not one line:\n%s", screen)
	}
	if strings.Contains(h.View(), "\x1b[31m") {
		t.Error("the error's escape sequence reaches the view")
	}
}

// A server without the completions capability is not asked.
func TestNoCapabilityNoRequest(t *testing.T) {
	srv := server.New(mcp.Implementation{Name: "plain", Version: "1"}, nil)
	sess := tuitest.Connect(t, srv)
	c := New(tuitest.Context(t), sess, mcp.CompleteReference{Type: mcp.RefTypePrompt, Name: "x"})
	f := form.New([]*form.Field{form.NewField("a", "", form.String)})
	if c.On() || c.Changed(f) != nil {
		t.Fatal("a server without completions is asked")
	}
}
