// Package complete offers a server's argument completions (completion/complete) under
// the focused text field of a form: a prompt's arguments, a resource template's
// variables. It asks as the user types, once the typing pauses for [Debounce]; an
// answer for a text that has changed since is dropped; the other fields' values go
// along as the completion context. Suggestions are a server's text: a bounded number
// of them is kept, each bounded in length, and each is drawn through the ui helpers
// that show control characters rather than obey them.
package complete

import (
	"context"
	"strconv"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/cut"
	"github.com/mcpi-dev/mcpi/internal/look"
	"github.com/mcpi-dev/mcpi/internal/tui/internal/form"
	"github.com/mcpi-dev/mcpi/internal/tui/internal/ui"
	"github.com/mcpi-dev/mcpi/mcp"
)

const (
	// Debounce is how long the typing must pause before the server is asked.
	Debounce = 150 * time.Millisecond
	// Shown is how many suggestions show at once; the others scroll into view.
	Shown = 5
	// MaxValues is how many suggestions are kept of an answer: the spec's bound, which
	// a server may not keep.
	MaxValues = 100
	// MaxValueBytes bounds each suggestion kept (the spec has no bound of its own).
	MaxValueBytes = 1024
	// timeout bounds one request: a server that never answers costs nothing more.
	timeout = 30 * time.Second
)

// Keys.
var (
	// KeyAccept takes the highlighted suggestion into the field. Tab and the arrows move
	// between a form's fields; ctrl+space is the editors' completion key, and ctrl+y
	// (vi's) stands in where the system keeps ctrl+space (macOS input sources).
	KeyAccept = key.NewBinding(key.WithKeys("ctrl+space", "ctrl+@", "ctrl+y"), key.WithHelp("ctrl+space", "take suggestion"))
	KeyNext   = key.NewBinding(key.WithKeys("ctrl+n"), key.WithHelp("ctrl+n/p", "pick"))
	KeyPrev   = key.NewBinding(key.WithKeys("ctrl+p"))

	keyAcceptHelp = key.NewBinding(key.WithKeys("ctrl+space"), key.WithHelp("ctrl+space/ctrl+y", "take the suggestion"))
	keyNextHelp   = key.NewBinding(key.WithKeys("ctrl+n"), key.WithHelp("ctrl+n/ctrl+p", "next/previous suggestion"))
)

// ShortKeys are the completion keys for the help bar.
func ShortKeys() []key.Binding { return []key.Binding{KeyAccept, KeyNext} }

// Keys are the completion keys for the help screen.
func Keys() []key.Binding { return []key.Binding{keyAcceptHelp, keyNextHelp} }

// Model completes the text fields of one form against one reference (a prompt or a
// resource template). The zero of its state shows nothing.
type Model struct {
	ctx  context.Context
	sess *client.Session
	ref  mcp.CompleteReference
	on   bool

	// Debounce is how long the typing must pause before the server is asked;
	// [Debounce] by default.
	Debounce time.Duration

	seq    int    // bumped at every change of field or text: answers of older ones are stale
	field  string // the field and text last seen
	text   string
	cancel context.CancelFunc // of the request in flight

	// What shows, for field at text.
	values []string
	more   string // "3 more", "95+ more", ""
	cursor int
	offset int
	err    string
}

// New returns a completer of ref's arguments over sess; it asks nothing of a server
// that does not declare the completions capability.
func New(ctx context.Context, sess *client.Session, ref mcp.CompleteReference) *Model {
	on := sess != nil && sess.ServerCapabilities() != nil && sess.ServerCapabilities().Completions != nil
	return &Model{ctx: ctx, sess: sess, ref: ref, on: on, Debounce: Debounce}
}

// On reports whether the server offers completion.
func (c *Model) On() bool { return c.on }

type tickMsg struct {
	owner *Model
	seq   int
	req   mcp.CompleteParams
}

type answerMsg struct {
	owner *Model
	seq   int
	res   *mcp.CompleteResult
	err   error
}

// Showing reports whether suggestions show for the focused field of f.
func (c *Model) Showing(f *form.Form) bool {
	fl := f.Focused()
	return fl != nil && fl.Name == c.field && len(c.values) > 0
}

// Key handles the completion keys while suggestions show, before the form sees the
// key: it reports whether it took the key.
func (c *Model) Key(msg tea.KeyPressMsg, f *form.Form) bool {
	if !c.Showing(f) {
		return false
	}
	switch {
	case key.Matches(msg, KeyNext):
		c.cursor = (c.cursor + 1) % len(c.values)
	case key.Matches(msg, KeyPrev):
		c.cursor = (c.cursor - 1 + len(c.values)) % len(c.values)
	case key.Matches(msg, KeyAccept):
		f.SetFieldText(c.field, c.values[c.cursor])
		c.clear()
		// The accepted text is not a change to complete: the next key is.
		c.text = f.Focused().Text()
		c.seq++
	default:
		return false
	}
	return true
}

// Changed looks at the focused field of f after a key went to the form: when the
// field or its text changed, what shows is dropped and the server is asked again once
// the typing pauses.
func (c *Model) Changed(f *form.Form) tea.Cmd {
	fl := f.Focused()
	if fl == nil || fl.Kind != form.String {
		if c.field != "" {
			c.field, c.text = "", ""
			c.seq++
			c.clear()
		}
		return nil
	}
	if fl.Name == c.field && fl.Text() == c.text {
		return nil
	}
	c.field, c.text = fl.Name, fl.Text()
	c.seq++
	c.clear()
	if !c.on {
		return nil
	}
	req := mcp.CompleteParams{Ref: c.ref, Argument: mcp.CompleteArgument{Name: fl.Name, Value: fl.Text()}}
	args := map[string]string{}
	for _, o := range f.Fields {
		if o != fl && !o.Extra && o.Kind == form.String && o.Text() != "" {
			args[o.Name] = o.Text()
		}
	}
	if len(args) > 0 {
		req.Context = &mcp.CompleteContext{Arguments: args}
	}
	seq := c.seq
	return tea.Tick(c.Debounce, func(time.Time) tea.Msg { return tickMsg{owner: c, seq: seq, req: req} })
}

func (c *Model) clear() {
	c.values, c.more, c.cursor, c.offset, c.err = nil, "", 0, 0, ""
}

// Close cancels the request in flight (the form is put away).
func (c *Model) Close() {
	c.seq++
	if c.cancel != nil {
		c.cancel()
		c.cancel = nil
	}
}

// Update handles the completer's own messages; it reports whether msg was one.
func (c *Model) Update(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case tickMsg:
		if msg.owner != c {
			return nil, false
		}
		if msg.seq != c.seq {
			return nil, true // typed on since
		}
		if c.cancel != nil {
			c.cancel() // the answer for an older text is not wanted
		}
		ctx, cancel := context.WithTimeout(c.ctx, timeout)
		c.cancel = cancel
		sess, req, seq := c.sess, msg.req, msg.seq
		return func() tea.Msg {
			defer cancel()
			res, err := sess.Complete(ctx, &req)
			return answerMsg{owner: c, seq: seq, res: res, err: err}
		}, true
	case answerMsg:
		if msg.owner != c {
			return nil, false
		}
		if msg.seq != c.seq {
			return nil, true // an answer for an older text
		}
		c.cancel = nil
		c.clear()
		if msg.err != nil {
			c.err = "completion: " + look.Sentence(msg.err)
			return nil, true
		}
		c.take(msg.res.Completion)
		return nil, true
	}
	return nil, false
}

// take keeps a bounded copy of an answer's values.
func (c *Model) take(comp mcp.Completion) {
	n := len(comp.Values)
	kept := make([]string, 0, min(n, MaxValues))
	for _, v := range comp.Values[:min(n, MaxValues)] {
		kept = append(kept, cut.Bytes(v, MaxValueBytes))
	}
	c.values = kept
	total := int64(n)
	if comp.Total != nil && *comp.Total > total {
		total = *comp.Total
	}
	rest := total - int64(min(len(kept), Shown))
	switch {
	case rest > 0 && comp.HasMore && (comp.Total == nil || *comp.Total <= int64(n)):
		c.more = strconv.FormatInt(rest, 10) + "+ more"
	case rest > 0:
		c.more = strconv.FormatInt(rest, 10) + " more"
	case comp.HasMore:
		c.more = "more"
	}
}

// Lines are the lines that show under the field fl, w cells wide: the suggestions
// (the highlighted one marked), how many more there are, or why there are none.
func (c *Model) Lines(fl *form.Field, w int) []string {
	if fl.Name != c.field {
		return nil
	}
	if c.err != "" {
		return []string{ui.Dim.Render(ui.Cut(ui.OneLine(c.err), w))}
	}
	if len(c.values) == 0 {
		return nil
	}
	c.offset = ui.Window(c.offset, c.cursor, len(c.values), Shown)
	var lines []string
	for i := c.offset; i < min(c.offset+Shown, len(c.values)); i++ {
		v := ui.Cut(ui.OneLine(c.values[i]), max(w-2, 1))
		if i == c.cursor {
			lines = append(lines, ui.Accent.Render("▸ ")+ui.Selected.Render(v))
		} else {
			lines = append(lines, "  "+v)
		}
	}
	if c.more != "" {
		lines = append(lines, ui.Dim.Render(ui.Cut("  … "+c.more, w)))
	}
	return lines
}
