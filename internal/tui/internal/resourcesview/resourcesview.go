// Package resourcesview is the Resources view: the server's resources and resource
// templates, reading one (a template after filling in its URI), and subscribing to
// updates.
package resourcesview

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/look"
	"github.com/mcpi-dev/mcpi/internal/tui/internal/complete"
	"github.com/mcpi-dev/mcpi/internal/tui/internal/form"
	"github.com/mcpi-dev/mcpi/internal/tui/internal/ui"
	"github.com/mcpi-dev/mcpi/mcp"
)

type item struct {
	res  *mcp.Resource
	tmpl *mcp.ResourceTemplate
}

func (it item) name() string {
	if it.res != nil {
		return it.res.URI
	}
	return it.tmpl.URITemplate
}

type mode int

const (
	modeList mode = iota
	modeURI
	modeTemplate // a template's variables, filled in a form
	modeContent
)

const btnRead = "Read"

// Model is the Resources view.
type Model struct {
	ctx        context.Context
	sess       *client.Session
	gen        int
	items      []item
	loading    bool
	err        error
	cursor     int
	offset     int
	width      int
	height     int
	mode       mode
	uri        textinput.Model
	tmpl       *mcp.ResourceTemplate
	vars       *form.Form      // the variables of tmpl
	comp       *complete.Model // suggests their values
	openURI    string
	title      string
	pager      ui.Pager
	subscribed map[string]bool
	read       *mcp.ReadResourceResult // what was read, shown in modeContent
	textBlob   bool                    // it has a blob that is text
	asText     bool                    // such blobs shown as text (t); kept for a new read of the URI
}

// New returns the Resources view of sess.
func New(ctx context.Context, sess *client.Session) *Model {
	in := textinput.New()
	in.Prompt = "URI: "
	s := textinput.DefaultDarkStyles()
	s.Cursor.Blink = false
	in.SetStyles(s)
	return &Model{ctx: ctx, sess: sess, uri: in, loading: true, subscribed: map[string]bool{}}
}

// Init lists the resources.
func (m *Model) Init() tea.Cmd { return m.load() }

// SetSize sets the size the view renders at.
func (m *Model) SetSize(w, h int) { m.width, m.height = w, h }

// Capturing reports whether the view wants every key (a URI or a template's variables
// are being typed).
func (m *Model) Capturing() bool { return m.mode == modeURI || m.mode == modeTemplate }

// Keys.
var (
	keyRead      = key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "read"))
	keySubscribe = key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "subscribe"))
	keyReload    = key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "reload"))
	keyBack      = key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back"))
	keyReadForm  = key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "read"))
	keyText      = key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "blob as text/as bytes"))
)

// ShortHelp is the help bar of the current mode.
func (m *Model) ShortHelp() []key.Binding {
	switch m.mode {
	case modeURI:
		return []key.Binding{keyRead, keyBack}
	case modeTemplate:
		keys := []key.Binding{keyReadForm, keyBack}
		if m.comp.Showing(m.vars) {
			keys = append(keys, complete.ShortKeys()...)
		}
		return append(keys, form.Keys()[:2]...)
	case modeContent:
		keys := []key.Binding{keyBack, ui.PagerUp, ui.PagerPageUp, ui.PagerWrap, keyReload}
		if m.textBlob {
			keys = append(keys, keyText)
		}
		return keys
	}
	return []key.Binding{ui.Up, ui.Down, keyRead, keySubscribe, keyReload}
}

// FullHelp is the full help of the view.
func (m *Model) FullHelp() [][]key.Binding {
	keys := [][]key.Binding{{ui.Up, ui.Down, keyRead, keyBack}, {keySubscribe, keyReload}}
	// A template's form: its keys show here too, as '?' is typed into a form.
	keys = append(keys, []key.Binding{keyReadForm}, form.Keys())
	if m.sess.ServerCapabilities().Completions != nil {
		keys = append(keys, complete.Keys())
	}
	return keys
}

type listMsg struct {
	gen   int
	items []item
	err   error
}

type readMsg struct {
	gen int
	uri string
	res *mcp.ReadResourceResult
	err error
}

type subMsg struct {
	uri string
	on  bool
	err error
}

func (m *Model) load() tea.Cmd {
	sess, gen, ctx := m.sess, m.gen, m.ctx
	m.loading = true
	return func() tea.Msg {
		var items []item
		if sess.ServerCapabilities().Resources == nil {
			return listMsg{gen: gen}
		}
		for r, err := range sess.Resources(ctx, nil) {
			if err != nil {
				return listMsg{gen: gen, items: items, err: err}
			}
			items = append(items, item{res: &r})
		}
		for t, err := range sess.ResourceTemplates(ctx, nil) {
			if err != nil {
				return listMsg{gen: gen, items: items, err: err}
			}
			items = append(items, item{tmpl: &t})
		}
		return listMsg{gen: gen, items: items}
	}
}

func (m *Model) readURI(uri string) tea.Cmd {
	sess, gen, ctx := m.sess, m.gen, m.ctx
	if uri != m.openURI {
		m.asText = false
	}
	m.mode, m.openURI, m.title = modeContent, uri, "Reading "+uri+"…"
	m.read, m.textBlob = nil, false
	m.pager = ui.Pager{}
	m.pager.SetLines(nil)
	return func() tea.Msg {
		res, err := sess.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		return readMsg{gen: gen, uri: uri, res: res, err: err}
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
			m.loading, m.items, m.err = false, msg.items, msg.err
			m.cursor = max(min(m.cursor, len(m.items)-1), 0)
		}
	case readMsg:
		if msg.gen != m.gen || msg.uri != m.openURI {
			return nil
		}
		if msg.err != nil {
			m.title = ui.Error.Render("Reading " + msg.uri + " failed")
			m.pager.SetLines([]string{ui.Error.Render(look.Sentence(msg.err))})
			return nil
		}
		m.title = ui.OK.Render(msg.uri)
		m.read, m.textBlob = msg.res, hasTextBlob(msg.res)
		m.pager.SetLines(contentLines(msg.res, m.asText))
	case subMsg:
		if msg.err != nil {
			return ui.FlashError("subscribe: ", msg.err)
		}
		m.subscribed[msg.uri] = msg.on
		if msg.on {
			return ui.Flash("subscribed to " + msg.uri)
		}
		return ui.Flash("unsubscribed from " + msg.uri)
	case ui.EventsMsg:
		if msg.Gen != m.gen {
			return nil
		}
		var cmds []tea.Cmd
		for _, e := range msg.Events {
			switch e := e.(type) {
			case *client.ListChangedEvent:
				if e.Method == mcp.NotificationResourcesListChanged {
					cmds = append(cmds, m.load())
				}
			case *client.ResourceUpdatedEvent:
				cmds = append(cmds, ui.Flash("the server says "+e.URI+" changed"))
				if m.mode == modeContent && m.openURI == e.URI {
					cmds = append(cmds, m.readURI(e.URI))
				}
			}
		}
		return tea.Batch(cmds...)
	case ui.SessionMsg:
		m.sess, m.gen = msg.Session, msg.Gen
		m.subscribed = map[string]bool{}
		m.mode = modeList
		m.closeTemplate()
		return m.load()
	case tea.KeyPressMsg:
		return m.key(msg)
	case tea.MouseClickMsg:
		if m.mode == modeList && msg.Button == tea.MouseLeft {
			i := m.offset + msg.Y - 1
			if i >= 0 && i < len(m.items) {
				if i == m.cursor {
					return m.open()
				}
				m.cursor = i
			}
		}
	case tea.MouseWheelMsg:
		if m.mode == modeContent {
			m.pager.Update(msg)
		} else if m.mode == modeList {
			ui.Wheel(msg, &m.cursor, len(m.items))
		}
	}
	return nil
}

func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	switch m.mode {
	case modeURI:
		switch {
		case key.Matches(msg, keyBack):
			m.mode = modeList
			m.uri.Blur()
		case key.Matches(msg, keyRead):
			m.uri.Blur()
			return m.readURI(strings.TrimSpace(m.uri.Value()))
		default:
			var cmd tea.Cmd
			m.uri, cmd = m.uri.Update(msg)
			return cmd
		}
		return nil
	case modeTemplate:
		switch {
		case key.Matches(msg, keyBack):
			m.mode = modeList
			m.closeTemplate()
			return nil
		case key.Matches(msg, keyReadForm):
			return m.readTemplate()
		case m.comp.Key(msg, m.vars):
			return nil
		}
		cmd, pressed := m.vars.Update(msg)
		if pressed >= 0 {
			return m.readTemplate()
		}
		return tea.Batch(cmd, m.comp.Changed(m.vars))
	case modeContent:
		switch {
		case key.Matches(msg, keyBack):
			m.mode = modeList
			if m.vars != nil {
				m.mode = modeTemplate // back to the variables read with
			}
		case key.Matches(msg, keyReload):
			return m.readURI(m.openURI)
		case key.Matches(msg, keyText) && m.textBlob:
			m.asText = !m.asText
			m.pager.SetLines(contentLines(m.read, m.asText))
		default:
			m.pager.Update(msg)
		}
		return nil
	}
	switch {
	case ui.ListNav(msg, &m.cursor, len(m.items), m.height-1):
	case key.Matches(msg, keyRead):
		return m.open()
	case key.Matches(msg, keyReload):
		return m.load()
	case key.Matches(msg, keySubscribe):
		return m.toggleSubscription()
	}
	return nil
}

func (m *Model) open() tea.Cmd {
	if m.cursor >= len(m.items) {
		return nil
	}
	it := m.items[m.cursor]
	if it.res != nil {
		m.closeTemplate()
		return m.readURI(it.res.URI)
	}
	if vars := templateVars(it.tmpl.URITemplate); len(vars) > 0 {
		return m.openTemplate(it.tmpl, vars)
	}
	m.closeTemplate()
	m.mode = modeURI
	m.uri.SetValue(it.tmpl.URITemplate)
	return m.uri.Focus()
}

// openTemplate opens a form of the template's variables, asking for the completions of
// the first.
func (m *Model) openTemplate(t *mcp.ResourceTemplate, vars []string) tea.Cmd {
	m.closeTemplate()
	var fields []*form.Field
	for _, v := range vars {
		f := form.NewField(v, "", form.String)
		f.Hint = "a variable of the URI template"
		fields = append(fields, f)
	}
	m.tmpl = t
	m.vars = form.New(fields, btnRead)
	m.comp = complete.New(m.ctx, m.sess, mcp.CompleteReference{Type: mcp.RefTypeResource, URI: t.URITemplate})
	m.vars.Below = m.comp.Lines
	m.mode = modeTemplate
	return m.comp.Changed(m.vars)
}

// closeTemplate puts the variables' form away.
func (m *Model) closeTemplate() {
	if m.comp != nil {
		m.comp.Close()
	}
	m.tmpl, m.vars, m.comp = nil, nil, nil
}

// templateURI is the template with the variables as filled in.
func (m *Model) templateURI() string {
	values := map[string]string{}
	for _, f := range m.vars.Fields {
		values[f.Name] = f.Text()
	}
	return expand(m.tmpl.URITemplate, values)
}

// readTemplate reads the URI the variables make (a variable left empty is left out, as
// RFC 6570 leaves out an undefined one).
func (m *Model) readTemplate() tea.Cmd {
	return tea.Batch(ui.FormDone(), m.readURI(m.templateURI()))
}

func (m *Model) toggleSubscription() tea.Cmd {
	if m.cursor >= len(m.items) || m.items[m.cursor].res == nil {
		return nil
	}
	caps := m.sess.ServerCapabilities().Resources
	if caps == nil || !caps.Subscribe {
		return ui.Flash("the server does not offer resource subscriptions")
	}
	uri := m.items[m.cursor].res.URI
	on := !m.subscribed[uri]
	sess, ctx := m.sess, m.ctx
	return func() tea.Msg {
		var err error
		if on {
			err = sess.SubscribeResource(ctx, uri)
		} else {
			err = sess.UnsubscribeResource(ctx, uri)
		}
		return subMsg{uri: uri, on: on, err: err}
	}
}

func contentLines(res *mcp.ReadResourceResult, asText bool) []string {
	var lines []string
	for _, c := range res.Contents {
		// Side by side: an underlined style splits what it styles into characters, the
		// escape sequences of another style too.
		head := ui.Heading.Render(c.URI)
		if c.MimeType != "" {
			head += "  " + ui.Dim.Render(c.MimeType)
		}
		lines = append(lines, head)
		switch {
		case c.Blob != "":
			lines = append(lines, blobLines(c, asText)...)
		case strings.Contains(c.MimeType, "json"):
			lines = append(lines, ui.HighlightJSON([]byte(c.Text))...)
		default:
			lines = append(lines, strings.Split(strings.ReplaceAll(c.Text, "\t", "    "), "\n")...)
		}
		lines = append(lines, "")
	}
	return lines
}

// blobLines describe a blob by the size it decodes to; one that is text (its MIME type
// is text/*, or its bytes are UTF-8 without NUL) is offered as text, and shown so when
// asText is set, as safely as any text of a server.
func blobLines(c mcp.ResourceContents, asText bool) []string {
	data, err := c.DecodeBlob()
	if err != nil {
		return []string{ui.Error.Render(fmt.Sprintf("binary, but not valid base64 (%s)", ui.Count(len(c.Blob), "character", "characters")))}
	}
	desc := "binary, " + look.Size(len(data))
	switch {
	case !isText(c.MimeType, data):
		return []string{ui.Dim.Render(desc)}
	case !asText:
		return []string{ui.Dim.Render(desc + "; it is text: t shows it")}
	}
	return append([]string{ui.Dim.Render(desc + ", shown as text (t: as bytes)")}, ui.TextLines(string(data))...)
}

// isText reports whether a blob of the MIME type mime holds text: its type says so
// (text/*), or its bytes are UTF-8 without NUL.
func isText(mime string, data []byte) bool {
	if strings.HasPrefix(strings.ToLower(strings.TrimSpace(mime)), "text/") {
		return true
	}
	return utf8.Valid(data) && !bytes.Contains(data, []byte{0})
}

// hasTextBlob reports whether res holds a blob that is text.
func hasTextBlob(res *mcp.ReadResourceResult) bool {
	if res == nil {
		return false
	}
	for _, c := range res.Contents {
		if c.Blob == "" {
			continue
		}
		if data, err := c.DecodeBlob(); err == nil && isText(c.MimeType, data) {
			return true
		}
	}
	return false
}

// View renders the view.
func (m *Model) View() string {
	w, h := m.width, m.height
	if w <= 0 || h <= 0 {
		return ""
	}
	switch m.mode {
	case modeContent:
		return ui.Stack(w, h, ui.Block([]string{m.title}, w, 1), m.pager.View(w, h-1))
	case modeTemplate:
		head := []string{ui.Title.Render("Read a resource from the template " + m.tmpl.URITemplate)}
		if m.tmpl.Description != "" {
			head = append(head, ui.Dim.Render(ui.Cut(ui.OneLine(m.tmpl.Description), w)))
		}
		head = append(head, ui.Dim.Render("URI: ")+ui.Cut(m.templateURI(), w-5), "")
		return ui.Stack(w, h, ui.Block(head, w, len(head)), m.vars.View(w, h-len(head)))
	case modeURI:
		m.uri.SetWidth(w - 8)
		lines := []string{ui.Title.Render("Read a resource from the template " + m.items[m.cursor].tmpl.URITemplate), "",
			m.uri.View(), "", ui.Dim.Render("Fill in the {variables}, then enter.")}
		return ui.Block(lines, w, h)
	}
	head := ui.Count(len(m.items), "resource or template", "resources and templates")
	switch {
	case m.loading && m.items == nil:
		head = "listing resources…"
	case m.sess.ServerCapabilities().Resources == nil:
		head = "the server offers no resources"
	}
	lines := []string{ui.Dim.Render(head)}
	if m.err != nil {
		lines = append(lines, ui.Error.Render(look.Sentence(m.err)))
	}
	lh := h - len(lines)
	m.offset = ui.Window(m.offset, m.cursor, len(m.items), lh)
	uriW := min(max(w/2, 20), 48)
	for i := m.offset; i < min(m.offset+lh, len(m.items)); i++ {
		it := m.items[i]
		var kind, about string
		if it.res != nil {
			kind = "resource"
			if m.subscribed[it.res.URI] {
				kind = ui.OK.Render("subscribed")
			}
			about = it.res.Name
			if it.res.Description != "" {
				about += " — " + it.res.Description
			}
		} else {
			kind = ui.Accent.Render("template")
			about = it.tmpl.Name
			if it.tmpl.Description != "" {
				about += " — " + it.tmpl.Description
			}
		}
		line := ui.Fit(it.name(), uriW) + " " + ui.Fit(kind, 10) + " " + ui.Dim.Render(ui.OneLine(about))
		if i == m.cursor {
			line = ui.Accent.Render("▸ ") + line
		} else {
			line = "  " + line
		}
		lines = append(lines, line)
	}
	return ui.Block(lines, w, h)
}
