// Package tuitest drives the terminal UI's models in tests the way Bubble Tea would:
// messages go through Update one at a time, the commands Update returns run on their
// own goroutines and their messages come back, and the client's events arrive through
// the same pump as in the real program. Tests then read the screen (View without its
// styles) until it shows what they wait for.
package tuitest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/internal/tui/internal/ui"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/tasks"
	"github.com/mcpi-dev/mcpi/transport"
)

// Model is a view model (or the root model) as the driver sees it.
type Model interface {
	Update(tea.Msg) tea.Cmd
	View() string
}

// Driver runs a model.
type Driver struct {
	t    testing.TB
	m    Model
	msgs chan tea.Msg
	done chan struct{}
	// Timeout bounds each wait; 15s by default.
	Timeout time.Duration
	// Quit is set once a tea.QuitMsg went by.
	Quit bool
	seen []tea.Msg
}

// New returns a driver for m; the driver stops with the test.
func New(t testing.TB, m Model) *Driver {
	d := &Driver{t: t, m: m, msgs: make(chan tea.Msg, 1024), done: make(chan struct{}), Timeout: 15 * time.Second}
	t.Cleanup(func() { close(d.done) })
	return d
}

// Run runs cmd as Bubble Tea would: on its own goroutine, its message then delivered.
func (d *Driver) Run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		msg := cmd()
		if msg == nil {
			return
		}
		select {
		case d.msgs <- msg:
		case <-d.done:
		}
	}()
}

// Send updates the model with msg at once and runs the command it returns.
func (d *Driver) Send(msg tea.Msg) {
	d.t.Helper()
	switch msg := msg.(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			d.Run(c)
		}
		return
	case tea.QuitMsg:
		d.Quit = true
		return
	}
	d.seen = append(d.seen, msg)
	d.Run(d.m.Update(msg))
}

// Seen returns the messages delivered so far of type T.
func Seen[T tea.Msg](d *Driver) []T {
	var out []T
	for _, m := range d.seen {
		if t, ok := m.(T); ok {
			out = append(out, t)
		}
	}
	return out
}

// WaitMsg delivers messages until one of type T has been delivered, and returns it.
func WaitMsg[T tea.Msg](d *Driver, what string) T {
	d.t.Helper()
	var got T
	d.WaitFor(what, func(string) bool {
		if s := Seen[T](d); len(s) > 0 {
			got = s[len(s)-1]
			return true
		}
		return false
	})
	return got
}

// Key sends key presses, named as Bubble Tea names them: "enter", "esc", "tab",
// "shift+tab", "up", "ctrl+s", "space", "a", "?".
func (d *Driver) Key(names ...string) {
	d.t.Helper()
	for _, n := range names {
		d.Send(KeyPress(n))
	}
}

// Type types text, one key press per character.
func (d *Driver) Type(text string) {
	d.t.Helper()
	for _, r := range text {
		d.Send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

var named = map[string]rune{
	"enter": tea.KeyEnter, "tab": tea.KeyTab, "esc": tea.KeyEscape, "backspace": tea.KeyBackspace,
	"up": tea.KeyUp, "down": tea.KeyDown, "left": tea.KeyLeft, "right": tea.KeyRight,
	"home": tea.KeyHome, "end": tea.KeyEnd, "pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown,
	"space": tea.KeySpace, "delete": tea.KeyDelete,
}

// KeyPress returns the message of a key press named as in [Driver.Key].
func KeyPress(name string) tea.KeyPressMsg {
	var mod tea.KeyMod
	rest := name
	for {
		switch {
		case strings.HasPrefix(rest, "ctrl+") && len(rest) > 5:
			mod |= tea.ModCtrl
			rest = rest[5:]
			continue
		case strings.HasPrefix(rest, "alt+") && len(rest) > 4:
			mod |= tea.ModAlt
			rest = rest[4:]
			continue
		case strings.HasPrefix(rest, "shift+") && len(rest) > 6:
			mod |= tea.ModShift
			rest = rest[6:]
			continue
		}
		break
	}
	if code, ok := named[rest]; ok {
		k := tea.KeyPressMsg{Code: code, Mod: mod}
		if code == tea.KeySpace && mod == 0 {
			k.Text = " "
		}
		return k
	}
	r, _ := utf8.DecodeRuneInString(rest)
	k := tea.KeyPressMsg{Code: r, Mod: mod}
	if mod == 0 {
		k.Text = rest
	}
	return k
}

// Screen is the model's view without styles.
func (d *Driver) Screen() string { return ansi.Strip(d.m.View()) }

// Drain delivers the messages already waiting, without blocking.
func (d *Driver) Drain() {
	d.t.Helper()
	for {
		select {
		case msg := <-d.msgs:
			d.Send(msg)
		default:
			return
		}
	}
}

// WaitFor delivers messages until the screen satisfies cond, and returns that screen.
// It fails the test with the last screen when Timeout passes first.
func (d *Driver) WaitFor(what string, cond func(screen string) bool) string {
	d.t.Helper()
	deadline := time.NewTimer(d.Timeout)
	defer deadline.Stop()
	d.Drain()
	for {
		s := d.Screen()
		if cond(s) {
			return s
		}
		select {
		case msg := <-d.msgs:
			d.Send(msg)
		case <-deadline.C:
			d.t.Fatalf("timed out waiting for %s; the screen was:\n%s", what, s)
			return s
		}
	}
}

// WaitText waits until the screen contains every one of texts.
func (d *Driver) WaitText(texts ...string) string {
	d.t.Helper()
	return d.WaitFor(fmt.Sprintf("%q", texts), func(s string) bool {
		for _, t := range texts {
			if !strings.Contains(s, t) {
				return false
			}
		}
		return true
	})
}

// WaitLine waits until one line of the screen contains every one of texts.
func (d *Driver) WaitLine(texts ...string) string {
	d.t.Helper()
	return d.WaitFor(fmt.Sprintf("a line with %q", texts), func(s string) bool {
		return Line(s, texts...) != ""
	})
}

// Line returns the first line of screen that contains every one of texts, or "".
func Line(screen string, texts ...string) string {
	for l := range strings.SplitSeq(screen, "\n") {
		ok := true
		for _, t := range texts {
			if !strings.Contains(l, t) {
				ok = false
				break
			}
		}
		if ok {
			return l
		}
	}
	return ""
}

// Listen starts the event pump of sess into the driver, as the root model does: every
// batch is delivered as a [ui.EventsMsg] of generation gen.
func (d *Driver) Listen(sess *client.Session, gen int) {
	sub := sess.Subscribe()
	d.t.Cleanup(sub.Close)
	var pump func() tea.Msg
	listen := ui.Listen(sub, gen)
	pump = func() tea.Msg {
		msg := listen().(ui.EventsMsg)
		if !msg.Closed {
			d.Run(pump)
		}
		return msg
	}
	d.Run(pump)
}

// Context is a context that ends with the test.
func Context(t testing.TB) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return ctx
}

// Demo returns the demo server in 2025-11-25 only (the era of tasks the client asks for
// and receiver tasks, which most view tests are about) with a short task poll interval,
// so tests follow tasks quickly.
func Demo() *server.Server {
	return demo.New(&demo.Options{Legacy: true, Tasks: &tasks.Options{PollInterval: 50 * time.Millisecond}})
}

// DemoBoth is [Demo] speaking 2026-07-28 as well, as the embedded demo server does: the
// terminal UI's client speaks 2026-07-28 with it.
func DemoBoth() *server.Server {
	return demo.New(&demo.Options{Tasks: &tasks.Options{PollInterval: 50 * time.Millisecond}})
}

// Connect opens a session with srv over an in-memory pipe, with the terminal UI's
// client options (receiver tasks on, polled every 50ms). It is closed with the test.
func Connect(t testing.TB, srv *server.Server) *client.Session {
	t.Helper()
	sess, err := Dial(srv)
	if err != nil {
		t.Fatalf("connecting: %v", err)
	}
	t.Cleanup(func() {
		sess.Close()
		srv.Close()
	})
	return sess
}

// Dial is [Connect] for use off the test's goroutine: the caller closes the session.
func Dial(srv *server.Server) (*client.Session, error) {
	opts := ui.ClientOptions()
	opts.Receiver.PollInterval = 50 * time.Millisecond
	opts.PollFloor = 20 * time.Millisecond
	pipe := transport.PipeTransport{Serve: func(_ context.Context, conn jsonrpc.Connection) error {
		srv.Connect(context.Background(), conn)
		return nil
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return client.New(mcp.Implementation{Name: "mcpi-tui-test", Version: "test"}, opts).Connect(ctx, pipe)
}

// WaitFlash waits until a status-bar message containing text has been delivered (the
// root model shows those; a view alone does not).
func (d *Driver) WaitFlash(text string) ui.FlashMsg {
	d.t.Helper()
	var got ui.FlashMsg
	d.WaitFor(fmt.Sprintf("a status message with %q", text), func(string) bool {
		for _, f := range Seen[ui.FlashMsg](d) {
			if strings.Contains(f.Text, text) {
				got = f
				return true
			}
		}
		return false
	})
	return got
}
