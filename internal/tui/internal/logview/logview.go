// Package logview is the Log view: every JSON-RPC message of the session, both ways,
// filterable by method and expandable one at a time; and, beside it, the server's log
// messages and progress notifications.
package logview

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/tui/internal/ui"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// Source is one of the view's three lists.
type Source int

// Sources.
const (
	Messages Source = iota
	ServerLog
	Progress
)

var sourceNames = [...]string{"Messages", "Server log", "Progress"}

// MaxEntries bounds each list; the oldest go first.
const MaxEntries = 5000

// maxUnanswered bounds the requests whose method the view remembers to name their
// responses: a server sends as many requests as it likes.
const maxUnanswered = 4 * MaxEntries

type entry struct {
	at     time.Time
	dir    jsonrpc.Direction
	msg    jsonrpc.Message
	method string
	id     string
	log    *mcp.LoggingMessageNotificationParams
	prog   *mcp.ProgressNotificationParams
	text   string // the searchable text
	gap    int    // events the view's subscription left out here (client.DroppedEvent)
}

// DefaultLevel is the server log level the view shows until the user picks another:
// the one a session for the terminal UI asks for from the start.
const DefaultLevel = ui.DefaultLogLevel

// levels are the logging levels from the least to the most severe.
var levels = []mcp.LoggingLevel{
	mcp.LoggingLevelDebug, mcp.LoggingLevelInfo, mcp.LoggingLevelNotice, mcp.LoggingLevelWarning,
	mcp.LoggingLevelError, mcp.LoggingLevelCritical, mcp.LoggingLevelAlert, mcp.LoggingLevelEmergency,
}

// Model is the Log view.
type Model struct {
	ctx  context.Context
	sess *client.Session
	// level is the server log level asked for: in 2025-11-25 with logging/setLevel, in
	// 2026-07-28 in the _meta of every request (a request without one gets no log).
	level     mcp.LoggingLevel
	gen       int
	src       Source
	entries   [3][]*entry
	visible   []int
	cursor    int
	offset    int
	follow    bool
	filter    textinput.Model
	filtering bool
	detail    bool
	pager     ui.Pager
	width     int
	height    int
	methods   map[string]string // "out:ID" / "in:ID" → the method of that request
}

// New returns the Log view of sess (nil in tests of the view alone), a session opened
// with [ui.ClientOptions], which asks for the server's log at [DefaultLevel].
func New(ctx context.Context, sess *client.Session) *Model {
	f := textinput.New()
	f.Prompt = "/"
	f.Placeholder = "method"
	s := textinput.DefaultDarkStyles()
	s.Cursor.Blink = false
	f.SetStyles(s)
	m := &Model{ctx: ctx, sess: sess, level: DefaultLevel, follow: true, filter: f, methods: map[string]string{}}
	m.addHandshake()
	return m
}

// addHandshake adds the messages of the session's start, which came before its events
// were subscribed to.
func (m *Model) addHandshake() {
	if m.sess == nil {
		return
	}
	for _, e := range m.sess.Handshake() {
		m.add(e)
	}
}

// Init does nothing: the session asked for the log as it started.
func (m *Model) Init() tea.Cmd { return nil }

// Level is the server log level the view asks for.
func (m *Model) Level() mcp.LoggingLevel { return m.level }

// levelSetMsg is the answer to logging/setLevel.
type levelSetMsg struct {
	gen   int
	level mcp.LoggingLevel
	err   error
}

// logging reports whether the session's server declares logging.
func (m *Model) logging() bool {
	return m.sess != nil && m.sess.ServerCapabilities() != nil && m.sess.ServerCapabilities().Logging != nil
}

// setLevel asks the server for its log at m.level ([client.Session.SetLogLevel], which
// knows how in each era).
func (m *Model) setLevel() tea.Cmd {
	if !m.logging() {
		return nil
	}
	sess, ctx, gen, lvl := m.sess, m.ctx, m.gen, m.level
	return func() tea.Msg { return levelSetMsg{gen: gen, level: lvl, err: sess.SetLogLevel(ctx, lvl)} }
}

// SetSize sets the size the view renders at.
func (m *Model) SetSize(w, h int) { m.width, m.height = w, h }

// Capturing reports whether the view wants every key (the filter is being typed).
func (m *Model) Capturing() bool { return m.filtering }

// Len is the number of entries of a source.
func (m *Model) Len(s Source) int { return len(m.entries[s]) }

// Keys.
var (
	keySource = key.NewBinding(key.WithKeys("t", "right", "left"), key.WithHelp("t/←→", "messages · server log · progress"))
	keyFilter = key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter by method"))
	keyClear  = key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear filter / back"))
	keyExpand = key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "expand"))
	keyFollow = key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "follow"))
	keyLevel  = key.NewBinding(key.WithKeys("L"), key.WithHelp("L", "server log level"))
	keyApply  = key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "apply filter"))
)

// ShortHelp is the help bar of the current mode.
func (m *Model) ShortHelp() []key.Binding {
	switch {
	case m.filtering:
		return []key.Binding{keyApply, keyClear}
	case m.detail:
		return []key.Binding{keyClear, ui.PagerUp, ui.PagerPageUp, ui.PagerWrap}
	}
	b := []key.Binding{ui.Up, ui.Down, keyExpand, keyFilter, keySource, keyFollow}
	if m.src == ServerLog && m.logging() {
		b = append(b, keyLevel)
	}
	return b
}

// FullHelp is the full help of the view.
func (m *Model) FullHelp() [][]key.Binding {
	g := [][]key.Binding{{ui.Up, ui.Down, ui.Home, ui.End, keyFollow}, {keyExpand, keyFilter, keyClear, keySource}}
	if m.logging() {
		g = append(g, []key.Binding{key.NewBinding(key.WithKeys("L"), key.WithHelp("L", "server log level (now "+string(m.level)+")"))})
	}
	return g
}

// Update handles client events, keys and the mouse.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case ui.EventsMsg:
		if msg.Gen != m.gen {
			return nil
		}
		for _, e := range msg.Events {
			m.add(e)
		}
	case ui.SessionMsg:
		m.gen = msg.Gen
		m.sess = msg.Session
		m.methods = map[string]string{}
		m.add(&client.MessageEvent{}) // a separator: nil message
		m.addHandshake()
		if m.level != DefaultLevel {
			return m.setLevel() // the session asked for the default as it started
		}
	case levelSetMsg:
		if msg.gen != m.gen {
			return nil
		}
		if msg.err != nil {
			return ui.FlashError("logging/setLevel "+string(msg.level)+": ", msg.err)
		}
	case tea.KeyPressMsg:
		return m.key(msg)
	case tea.MouseClickMsg:
		if !m.detail && msg.Button == tea.MouseLeft {
			i := m.offset + msg.Y - 1
			if i >= 0 && i < len(m.visible) {
				if i == m.cursor {
					m.expand()
				}
				m.cursor = i
				m.follow = false
			}
		}
	case tea.MouseWheelMsg:
		if m.detail {
			m.pager.Update(msg)
		} else if ui.Wheel(msg, &m.cursor, len(m.visible)) {
			m.follow = m.cursor == len(m.visible)-1
		}
	}
	return nil
}

func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	if m.filtering {
		switch {
		case key.Matches(msg, keyApply):
			m.filtering = false
			m.filter.Blur()
		case key.Matches(msg, keyClear):
			m.filtering = false
			m.filter.Blur()
			m.filter.SetValue("")
			m.rebuild()
		default:
			var cmd tea.Cmd
			before := m.filter.Value()
			m.filter, cmd = m.filter.Update(msg)
			if m.filter.Value() != before {
				m.rebuild()
			}
			return cmd
		}
		return nil
	}
	if m.detail {
		if key.Matches(msg, keyClear) {
			m.detail = false
		} else {
			m.pager.Update(msg)
		}
		return nil
	}
	switch {
	case ui.ListNav(msg, &m.cursor, len(m.visible), m.listHeight()):
		m.follow = m.cursor == len(m.visible)-1
	case key.Matches(msg, keyExpand):
		m.expand()
	case key.Matches(msg, keyFilter):
		m.filtering = true
		return m.filter.Focus()
	case key.Matches(msg, keyClear):
		if m.filter.Value() != "" {
			m.filter.SetValue("")
			m.rebuild()
		}
	case key.Matches(msg, keySource):
		if msg.String() == "left" {
			m.src = (m.src + 2) % 3
		} else {
			m.src = (m.src + 1) % 3
		}
		m.follow = true
		m.rebuild()
	case key.Matches(msg, keyFollow):
		m.follow = true
		m.cursor = len(m.visible) - 1
	case key.Matches(msg, keyLevel):
		if !m.logging() {
			return ui.Flash("the server declares no logging")
		}
		i := slices.Index(levels, m.level)
		m.level = levels[(i+1)%len(levels)]
		return tea.Batch(m.setLevel(), ui.Flash("server log level: "+string(m.level)+" and more severe"))
	}
	return nil
}

// SetFilter filters the messages by method (tests and the command line).
func (m *Model) SetFilter(s string) {
	m.filter.SetValue(s)
	m.rebuild()
}

// SetSource shows one of the lists.
func (m *Model) SetSource(s Source) {
	m.src = s
	m.rebuild()
}

func (m *Model) expand() {
	if m.cursor < 0 || m.cursor >= len(m.visible) {
		return
	}
	e := m.entries[m.src][m.visible[m.cursor]]
	m.detail = true
	m.pager = ui.Pager{}
	var lines []string
	head := e.at.Format("15:04:05.000") + "  "
	switch {
	case e.msg != nil:
		dir := "mcpi → server"
		if e.dir == jsonrpc.Inbound {
			dir = "server → mcpi"
		}
		head += dir + "  " + e.method
		lines = append([]string{ui.Title.Render(head), ""}, ui.HighlightMessage(e.msg)...)
	case e.log != nil:
		b, _ := json.Marshal(e.log)
		lines = append([]string{ui.Title.Render(head + "notifications/message"), ""}, ui.HighlightJSON(b)...)
	case e.prog != nil:
		b, _ := json.Marshal(e.prog)
		lines = append([]string{ui.Title.Render(head + "notifications/progress"), ""}, ui.HighlightJSON(b)...)
	case e.gap > 0:
		lines = []string{ui.Title.Render(head + "events not shown"), "",
			fmt.Sprintf("The server sent faster than this view could show: %s left out here.", ui.Count(e.gap, "event was", "events were")),
			"Tasks and requests are read again from the session; these lists keep only what was shown."}
	default:
		lines = []string{"reconnected"}
	}
	m.pager.SetLines(lines)
}

// add files one event in its list.
func (m *Model) add(ev client.Event) {
	var e *entry
	var src Source
	switch ev := ev.(type) {
	case *client.MessageEvent:
		e = &entry{at: ev.Time, dir: ev.Dir, msg: ev.Message}
		side := "out:"
		if ev.Dir == jsonrpc.Inbound {
			side = "in:"
		}
		switch msg := ev.Message.(type) {
		case *jsonrpc.Request:
			e.method = msg.Method
			if !msg.IsNotification() {
				e.id = msg.ID.String()
				if len(m.methods) >= maxUnanswered {
					// Requests never answered, or whose answers were left out (a
					// gap): their responses would only show as "response".
					clear(m.methods)
				}
				m.methods[side+e.id] = msg.Method
			}
		case *jsonrpc.Response:
			e.id = msg.ID.String()
			other := "in:"
			if ev.Dir == jsonrpc.Inbound {
				other = "out:"
			}
			e.method = m.methods[other+e.id]
			delete(m.methods, other+e.id)
		case nil:
			e.method = "── reconnected ──"
		}
		e.text = strings.ToLower(e.method)
	case *client.LogEvent:
		p := ev.Params
		e = &entry{at: ev.Time, log: &p, text: strings.ToLower(string(p.Level) + " " + p.Logger + " " + string(p.Data))}
		src = ServerLog
	case *client.ProgressEvent:
		p := ev.Params
		e = &entry{at: ev.Time, prog: &p, text: strings.ToLower(fmt.Sprint(p.ProgressToken) + " " + p.Message)}
		src = Progress
	case *client.DroppedEvent:
		// Any of the lists may have lost entries: each shows where.
		for src := range m.entries {
			m.file(Source(src), &entry{at: ev.Time, gap: ev.Count})
		}
		return
	default:
		return
	}
	m.file(src, e)
}

// file appends e to the list of src, dropping the oldest entries past MaxEntries.
func (m *Model) file(src Source, e *entry) {
	list := append(m.entries[src], e)
	if len(list) > MaxEntries {
		drop := len(list) - MaxEntries + MaxEntries/10
		list = append([]*entry(nil), list[drop:]...)
		m.entries[src] = list
		if src == m.src {
			m.rebuild()
		}
		return
	}
	m.entries[src] = list
	if src == m.src && m.matches(e) {
		m.visible = append(m.visible, len(list)-1)
		if m.follow {
			m.cursor = len(m.visible) - 1
		}
	}
}

func (m *Model) matches(e *entry) bool {
	if e.gap > 0 {
		return true // where entries are missing, whatever the filter
	}
	f := strings.ToLower(strings.TrimSpace(m.filter.Value()))
	return f == "" || strings.Contains(e.text, f)
}

func (m *Model) rebuild() {
	m.visible = m.visible[:0]
	for i, e := range m.entries[m.src] {
		if m.matches(e) {
			m.visible = append(m.visible, i)
		}
	}
	if m.follow || m.cursor >= len(m.visible) {
		m.cursor = len(m.visible) - 1
	}
	m.cursor = max(m.cursor, 0)
}

func (m *Model) listHeight() int { return max(m.height-2, 1) }

// View renders the view.
func (m *Model) View() string {
	w, h := m.width, m.height
	if w <= 0 || h <= 0 {
		return ""
	}
	var tabs []string
	for s := Messages; s <= Progress; s++ {
		t := fmt.Sprintf("%s (%d)", sourceNames[s], len(m.entries[s]))
		if s == m.src {
			t = ui.Selected.Render(" " + t + " ")
		} else {
			t = ui.Dim.Render(" " + t + " ")
		}
		tabs = append(tabs, t)
	}
	head := strings.Join(tabs, " ")
	switch {
	case m.filtering:
		m.filter.SetWidth(20)
		head += "  " + m.filter.View()
	case m.filter.Value() != "":
		head += "  " + ui.Accent.Render("/"+m.filter.Value()) + ui.Dim.Render(fmt.Sprintf(" %d shown", len(m.visible)))
	}
	if m.follow && !m.detail {
		head += ui.Dim.Render("  following")
	}
	if m.src == ServerLog && !m.detail && m.logging() {
		head += ui.Dim.Render("  level ") + string(m.level) + ui.Dim.Render(" (L changes it)")
	}
	lines := []string{head}
	if m.detail {
		return ui.Stack(w, h, ui.Block(lines, w, 1), m.pager.View(w, h-1))
	}
	lh := h - 1
	m.offset = ui.Window(m.offset, m.cursor, len(m.visible), lh)
	if m.follow {
		m.offset = max(len(m.visible)-lh, 0)
	}
	for i := m.offset; i < min(m.offset+lh, len(m.visible)); i++ {
		e := m.entries[m.src][m.visible[i]]
		line := m.line(e, w-2)
		if i == m.cursor {
			line = ui.Accent.Render("▸ ") + line
		} else {
			line = "  " + line
		}
		lines = append(lines, line)
	}
	if len(m.visible) == 0 {
		lines = append(lines, "", ui.Dim.Render("  nothing yet"))
	}
	return ui.Block(lines, w, h)
}

var levelStyle = map[mcp.LoggingLevel]func(...string) string{
	"debug": ui.Dim.Render, "info": ui.Accent.Render, "notice": ui.Accent.Render, "warning": ui.Warn.Render,
	"error": ui.Error.Render, "critical": ui.Error.Render, "alert": ui.Error.Render, "emergency": ui.Error.Render,
}

func (m *Model) line(e *entry, w int) string {
	ts := ui.Dim.Render(e.at.Format("15:04:05.000")) + " "
	switch {
	case e.log != nil:
		style := levelStyle[e.log.Level]
		if style == nil {
			style = ui.Bold.Render
		}
		data := string(e.log.Data)
		var s string
		if json.Unmarshal(e.log.Data, &s) == nil {
			data = s
		}
		return ts + style(ui.Fit(strings.ToUpper(string(e.log.Level)), 9)) + " " + ui.Dim.Render(ui.Fit(e.log.Logger, 10)) + " " + ui.OneLine(data)
	case e.prog != nil:
		p := strconv.FormatFloat(e.prog.Progress, 'f', -1, 64)
		if e.prog.Total != nil {
			p += "/" + strconv.FormatFloat(*e.prog.Total, 'f', -1, 64)
		}
		return ts + ui.Accent.Render(ui.Fit(fmt.Sprint(e.prog.ProgressToken), 12)) + " " + ui.Fit(p, 8) + " " + e.prog.Message
	case e.gap > 0:
		return ts + ui.Warn.Render(fmt.Sprintf("── %s not shown: this view fell behind the server ──", ui.Count(e.gap, "event", "events")))
	case e.msg == nil:
		return ui.Dim.Render("── reconnected: a new session starts here ──")
	}
	arrow := ui.Accent.Render("→")
	if e.dir == jsonrpc.Inbound {
		arrow = ui.Warn.Render("←")
	}
	var what, body string
	switch msg := e.msg.(type) {
	case *jsonrpc.Request:
		if msg.IsNotification() {
			what = e.method
		} else {
			what = "#" + e.id + " " + e.method
		}
		body = compact(msg.Params)
	case *jsonrpc.Response:
		method := e.method
		if method == "" {
			method = "response"
		}
		if msg.Error != nil {
			what = ui.Error.Render("#" + e.id + " ✗ " + method)
			body = ui.Error.Render(fmt.Sprintf("%d %s", msg.Error.Code, msg.Error.Message))
		} else {
			what = "#" + e.id + " ✓ " + method
			body = compact(msg.Result)
		}
	}
	return ts + arrow + " " + ui.Fit(what, 30) + " " + ui.Dim.Render(body)
}

func compact(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	if b.Len() > 400 {
		b.Truncate(400)
	}
	return b.String()
}
