// Package promptsview is the Prompts view: the server's prompts, a form for a prompt's
// arguments, and the messages it renders to.
package promptsview

import (
	"context"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/look"
	"github.com/mcpi-dev/mcpi/internal/tui/internal/complete"
	"github.com/mcpi-dev/mcpi/internal/tui/internal/form"
	"github.com/mcpi-dev/mcpi/internal/tui/internal/ui"
	"github.com/mcpi-dev/mcpi/mcp"
)

type mode int

const (
	modeList mode = iota
	modeForm
	modeResult
)

const btnGet = "Get prompt"

// Model is the Prompts view.
type Model struct {
	ctx     context.Context
	sess    *client.Session
	gen     int
	prompts []mcp.Prompt
	loading bool
	err     error
	cursor  int
	offset  int
	width   int
	height  int
	mode    mode
	prompt  *mcp.Prompt
	form    *form.Form
	comp    *complete.Model // suggests the arguments' values
	title   string
	pager   ui.Pager
}

// New returns the Prompts view of sess.
func New(ctx context.Context, sess *client.Session) *Model {
	return &Model{ctx: ctx, sess: sess, loading: true}
}

// Init lists the prompts.
func (m *Model) Init() tea.Cmd { return m.load() }

// SetSize sets the size the view renders at.
func (m *Model) SetSize(w, h int) { m.width, m.height = w, h }

// Capturing reports whether the view wants every key (its form is open).
func (m *Model) Capturing() bool { return m.mode == modeForm }

// Keys.
var (
	keyOpen   = key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open"))
	keySubmit = key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "get prompt"))
	keyBack   = key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back"))
	keyReload = key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "reload"))
)

// ShortHelp is the help bar of the current mode.
func (m *Model) ShortHelp() []key.Binding {
	switch m.mode {
	case modeForm:
		keys := []key.Binding{keySubmit, keyBack}
		if m.comp != nil && m.comp.Showing(m.form) {
			keys = append(keys, complete.ShortKeys()...)
		}
		return append(keys, form.Keys()[:2]...)
	case modeResult:
		return []key.Binding{keyBack, ui.PagerUp, ui.PagerPageUp, ui.PagerWrap}
	}
	return []key.Binding{ui.Up, ui.Down, keyOpen, keyReload}
}

// FullHelp is the full help of the view.
func (m *Model) FullHelp() [][]key.Binding {
	keys := [][]key.Binding{{ui.Up, ui.Down, keyOpen, keyReload}, {keySubmit, keyBack}, form.Keys()}
	if m.sess.ServerCapabilities().Completions != nil {
		keys = append(keys, complete.Keys())
	}
	return keys
}

type listMsg struct {
	gen     int
	prompts []mcp.Prompt
	err     error
}

type getMsg struct {
	gen  int
	name string
	res  *mcp.GetPromptResult
	err  error
}

func (m *Model) load() tea.Cmd {
	sess, gen, ctx := m.sess, m.gen, m.ctx
	m.loading = true
	return func() tea.Msg {
		if sess.ServerCapabilities().Prompts == nil {
			return listMsg{gen: gen}
		}
		var list []mcp.Prompt
		for p, err := range sess.Prompts(ctx, nil) {
			if err != nil {
				return listMsg{gen: gen, prompts: list, err: err}
			}
			list = append(list, p)
		}
		return listMsg{gen: gen, prompts: list}
	}
}

// Update handles results, client events, keys and the mouse.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	if m.comp != nil {
		if cmd, ok := m.comp.Update(msg); ok {
			return cmd
		}
	}
	switch msg := msg.(type) {
	case listMsg:
		if msg.gen == m.gen {
			m.loading, m.prompts, m.err = false, msg.prompts, msg.err
			m.cursor = max(min(m.cursor, len(m.prompts)-1), 0)
		}
	case getMsg:
		if msg.gen != m.gen {
			return nil
		}
		m.mode = modeResult
		m.pager = ui.Pager{}
		if msg.err != nil {
			m.title = ui.Error.Render("Getting " + msg.name + " failed")
			m.pager.SetLines([]string{ui.Error.Render(look.Sentence(msg.err))})
			return nil
		}
		m.title = ui.OK.Render("prompts/get " + msg.name)
		m.pager.SetLines(messageLines(msg.res, m.width))
	case ui.EventsMsg:
		if msg.Gen != m.gen {
			return nil
		}
		for _, e := range msg.Events {
			if lc, ok := e.(*client.ListChangedEvent); ok && lc.Method == mcp.NotificationPromptsListChanged {
				return m.load()
			}
		}
	case ui.SessionMsg:
		m.sess, m.gen = msg.Session, msg.Gen
		m.mode = modeList
		m.closeForm()
		return m.load()
	case tea.KeyPressMsg:
		return m.key(msg)
	case tea.MouseClickMsg:
		if m.mode == modeList && msg.Button == tea.MouseLeft {
			i := m.offset + msg.Y - 1
			if i >= 0 && i < len(m.prompts) {
				if i == m.cursor {
					return m.openForm()
				}
				m.cursor = i
			}
		}
	case tea.MouseWheelMsg:
		if m.mode == modeResult {
			m.pager.Update(msg)
		} else if m.mode == modeList {
			ui.Wheel(msg, &m.cursor, len(m.prompts))
		}
	}
	return nil
}

func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	switch m.mode {
	case modeForm:
		switch {
		case key.Matches(msg, keyBack):
			m.mode = modeList
			m.closeForm()
			return ui.FormDone()
		case key.Matches(msg, keySubmit):
			return m.get()
		case m.comp.Key(msg, m.form):
			return nil
		}
		cmd, pressed := m.form.Update(msg)
		if pressed >= 0 {
			return m.get()
		}
		return tea.Batch(cmd, m.comp.Changed(m.form))
	case modeResult:
		if key.Matches(msg, keyBack) {
			m.mode = modeForm
		} else {
			m.pager.Update(msg)
		}
		return nil
	}
	switch {
	case ui.ListNav(msg, &m.cursor, len(m.prompts), m.height-1):
	case key.Matches(msg, keyOpen):
		return m.openForm()
	case key.Matches(msg, keyReload):
		return m.load()
	}
	return nil
}

// closeForm puts the form's completer away.
func (m *Model) closeForm() {
	if m.comp != nil {
		m.comp.Close()
	}
}

// openForm opens the form of the prompt under the cursor, asking for the completions
// of its first argument.
func (m *Model) openForm() tea.Cmd {
	if m.cursor >= len(m.prompts) {
		return nil
	}
	m.closeForm()
	p := m.prompts[m.cursor]
	m.prompt = &p
	var fields []*form.Field
	for _, a := range p.Arguments {
		f := form.NewField(a.Name, a.Title, form.String)
		f.Required = a.Required
		f.Description = a.Description
		f.Hint = "string"
		fields = append(fields, f)
	}
	m.form = form.New(fields, btnGet)
	if len(fields) == 0 {
		m.form.FocusButton(btnGet)
	}
	m.comp = complete.New(m.ctx, m.sess, mcp.CompleteReference{Type: mcp.RefTypePrompt, Name: p.Name})
	m.form.Below = m.comp.Lines
	m.mode = modeForm
	return m.comp.Changed(m.form)
}

func (m *Model) get() tea.Cmd {
	values, ok := m.form.Values()
	if !ok {
		return ui.FormNotice("fill in the required arguments first; nothing was sent")
	}
	args := map[string]string{}
	for k, v := range values {
		args[k] = fmt.Sprint(v)
	}
	sess, gen, ctx, name := m.sess, m.gen, m.ctx, m.prompt.Name
	return tea.Batch(ui.FormDone(), func() tea.Msg {
		res, err := sess.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: args})
		return getMsg{gen: gen, name: name, res: res, err: err}
	})
}

func messageLines(res *mcp.GetPromptResult, w int) []string {
	var lines []string
	if res.Description != "" {
		lines = append(lines, ui.Dim.Render(res.Description), "")
	}
	for _, msg := range res.Messages {
		lines = append(lines, ui.Accent.Render("["+string(msg.Role)+"]"))
		// As the CLI shows it: text as text, another block as the line that says what
		// it is ([image image/png, 55 bytes]).
		for _, l := range ui.ContentLines(msg.Content) {
			lines = append(lines, ui.Wrap(l, max(w-2, 10))...)
		}
		lines = append(lines, "")
	}
	return lines
}

// View renders the view.
func (m *Model) View() string {
	w, h := m.width, m.height
	if w <= 0 || h <= 0 {
		return ""
	}
	switch m.mode {
	case modeForm:
		head := []string{ui.Title.Render("prompts/get " + m.prompt.Name)}
		if m.prompt.Description != "" {
			head = append(head, ui.Dim.Render(ui.Cut(ui.OneLine(m.prompt.Description), w)))
		}
		head = append(head, "")
		return ui.Stack(w, h, ui.Block(head, w, len(head)), m.form.View(w, h-len(head)))
	case modeResult:
		return ui.Stack(w, h, ui.Block([]string{m.title}, w, 1), m.pager.View(w, h-1))
	}
	head := ui.Count(len(m.prompts), "prompt", "prompts")
	switch {
	case m.loading && m.prompts == nil:
		head = "listing prompts…"
	case m.sess.ServerCapabilities().Prompts == nil:
		head = "the server offers no prompts"
	}
	lines := []string{ui.Dim.Render(head)}
	if m.err != nil {
		lines = append(lines, ui.Error.Render(look.Sentence(m.err)))
	}
	lh := h - len(lines)
	m.offset = ui.Window(m.offset, m.cursor, len(m.prompts), lh)
	for i := m.offset; i < min(m.offset+lh, len(m.prompts)); i++ {
		p := m.prompts[i]
		var args []string
		for _, a := range p.Arguments {
			n := a.Name
			if a.Required {
				n += "*"
			}
			args = append(args, n)
		}
		line := ui.Fit(p.Name, 20) + " " + ui.Fit(ui.Accent.Render(strings.Join(args, " ")), 20) + " " + ui.Dim.Render(ui.OneLine(p.Description))
		if i == m.cursor {
			line = ui.Accent.Render("▸ ") + line
		} else {
			line = "  " + line
		}
		lines = append(lines, line)
	}
	return ui.Block(lines, w, h)
}
