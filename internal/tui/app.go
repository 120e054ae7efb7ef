package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/look"
	"github.com/mcpi-dev/mcpi/internal/tui/internal/logview"
	"github.com/mcpi-dev/mcpi/internal/tui/internal/promptsview"
	"github.com/mcpi-dev/mcpi/internal/tui/internal/requestsview"
	"github.com/mcpi-dev/mcpi/internal/tui/internal/resourcesview"
	"github.com/mcpi-dev/mcpi/internal/tui/internal/tasksview"
	"github.com/mcpi-dev/mcpi/internal/tui/internal/toolsview"
	"github.com/mcpi-dev/mcpi/internal/tui/internal/ui"
	"github.com/mcpi-dev/mcpi/mcp"
)

// Tab is one of the views.
type Tab int

// The views, in tab order.
const (
	TabTools Tab = iota
	TabTasks
	TabRequests
	TabResources
	TabPrompts
	TabLog
	numTabs
)

var tabNames = [numTabs]string{"Tools", "Tasks", "Requests", "Resources", "Prompts", "Log"}

// view is what the root needs of a view model.
type view interface {
	Update(tea.Msg) tea.Cmd
	View() string
	SetSize(w, h int)
	Capturing() bool
	ui.Help
}

type connState int

const (
	connected connState = iota
	disconnected
	reconnecting
	// unreachable: an HTTP server stopped answering (nothing listens at its URL); the
	// session lives, and its next request that gets through makes it connected again.
	unreachable
)

// layout is how the screen's lines are shared: the header, then the tab bar, then the
// view, then the status and help bars. Small terminals lose the header's capability
// lines first, then the whole header, then the status bar.
type layout struct{ header, tabs, body, footer int }

func (m *Model) layout() layout {
	h := m.height
	l := layout{header: 3, tabs: 1, footer: 2}
	switch {
	case h < 4:
		l = layout{tabs: min(h, 1)}
	case h < 8:
		l = layout{tabs: 1, footer: 1}
	case h < 16:
		l.header = 1
	}
	l.body = max(h-l.header-l.tabs-l.footer, 0)
	return l
}

func (m *Model) bodyTop() int { l := m.layout(); return l.header + l.tabs }

// Model is the root model: it owns the session, routes messages to the views, and
// draws the header, tab bar and help around the active view.
type Model struct {
	ctx   context.Context
	opts  Options
	sess  *client.Session
	sub   *client.Subscription
	gen   int
	owned []*client.Session

	conn    connState
	connErr error
	// login is the authorization URL of the login the session waits for, shown until
	// the reconnection ends or the user puts it away (esc).
	login string

	tools     *toolsview.Model
	tasks     *tasksview.Model
	requests  *requestsview.Model
	resources *resourcesview.Model
	prompts   *promptsview.Model
	log       *logview.Model
	views     [numTabs]view

	active   Tab
	width    int
	height   int
	help     help.Model
	fullHelp bool
	// helpPager scrolls the help screen when it is taller than the view's room.
	helpPager ui.Pager
	tabX      [numTabs][2]int

	flash      string
	flashErr   bool
	flashForm  bool
	flashUntil time.Time
}

// New returns the root model for sess. [Run] runs it; tests drive it directly.
func New(ctx context.Context, sess *client.Session, opts Options) *Model {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.ClientCapabilities == nil {
		opts.ClientCapabilities = ClientCapabilities()
	}
	ttl := opts.TaskTTL
	if ttl == 0 {
		ttl = DefaultTaskTTL
	}
	m := &Model{ctx: ctx, opts: opts, sess: sess, help: help.New(), width: 80, height: 24}
	// Subscribed first: the views' first requests are in the Log, after the handshake
	// (see logview.New).
	m.sub = sess.Subscribe()
	m.tools = toolsview.New(ctx, sess, max(ttl, 0), opts.Now)
	m.tasks = tasksview.New(ctx, sess, opts.Now)
	m.requests = requestsview.New(ctx, sess, opts.Now)
	m.resources = resourcesview.New(ctx, sess)
	m.prompts = promptsview.New(ctx, sess)
	m.log = logview.New(ctx, sess)
	m.views = [numTabs]view{m.tools, m.tasks, m.requests, m.resources, m.prompts, m.log}
	listenForChanges(ctx, sess)
	select {
	case <-sess.Done():
		m.conn, m.connErr = disconnected, sess.Err()
	default:
		if err := sess.Unreachable(); err != nil {
			m.conn, m.connErr = unreachable, err
		}
	}
	m.resize()
	return m
}

// listenForChanges opens, in the 2026-07-28 era, the subscriptions/listen stream that
// brings the list changes the server declares it announces (in 2025-11-25 they come
// unasked). It lasts as long as the session.
func listenForChanges(ctx context.Context, sess *client.Session) {
	if !sess.Modern() {
		return
	}
	c := sess.ServerCapabilities()
	f := mcp.ListenFilter{
		ToolsListChanged:     c.Tools != nil && c.Tools.ListChanged,
		PromptsListChanged:   c.Prompts != nil && c.Prompts.ListChanged,
		ResourcesListChanged: c.Resources != nil && c.Resources.ListChanged,
	}
	if !f.ToolsListChanged && !f.PromptsListChanged && !f.ResourcesListChanged {
		return
	}
	lctx, cancel := context.WithCancel(ctx)
	go func() {
		defer cancel()
		select {
		case <-sess.Done():
		case <-lctx.Done():
		}
	}()
	go func() { _ = sess.Listen(lctx, f) }() // without it, lists are as fresh as their last fetch
}

// Init starts the event pump, the clock, and the first listings.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{ui.Listen(m.sub, m.gen), ui.Tick(time.Second), m.tools.Init(), m.resources.Init(), m.prompts.Init(), m.log.Init()}
	if m.opts.Logins != nil {
		cmds = append(cmds, listenLogins(m.ctx, m.opts.Logins))
	}
	return tea.Batch(cmds...)
}

// Active is the tab shown.
func (m *Model) Active() Tab { return m.active }

// Pending is the number of server requests waiting for the user (the badge).
func (m *Model) Pending() int { return m.requests.Pending() }

func (m *Model) closeOwned() {
	m.sub.Close()
	for _, s := range m.owned {
		s.Close()
	}
}

// Global keys.
var (
	keyQuit      = key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit"))
	keyForceQuit = key.NewBinding(key.WithKeys("ctrl+c"))
	keyHelp      = key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help"))
	keyTabs      = key.NewBinding(key.WithKeys("1", "2", "3", "4", "5", "6"), key.WithHelp("1-6", "views"))
	keyAltTabs   = key.NewBinding(key.WithKeys("alt+1", "alt+2", "alt+3", "alt+4", "alt+5", "alt+6"), key.WithHelp("alt+1-6", "views, also from a form"))
	keyNextTab   = key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next view"))
	keyPrevTab   = key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous view"))
	keyReconnect = key.NewBinding(key.WithKeys("R"), key.WithHelp("R", "reconnect"))
)

type reconnectedMsg struct {
	sess *client.Session
	err  error
}

// loginMsg is the authorization URL of a login a reconnection waits for.
type loginMsg struct{ url string }

// listenLogins waits for the next login URL.
func listenLogins(ctx context.Context, logins <-chan string) tea.Cmd {
	return func() tea.Msg {
		select {
		case u := <-logins:
			return loginMsg{url: u}
		case <-ctx.Done():
			return nil
		}
	}
}

// Update routes a message: keys and the mouse to the active view (after the global
// keys), client events and the clock to every view.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.resize()
		return nil
	case ui.EventsMsg:
		if msg.Gen != m.gen {
			return nil
		}
		for _, e := range msg.Events {
			switch e := e.(type) {
			case *client.ClosedEvent:
				m.connErr = e.Err
				if m.conn != reconnecting {
					m.conn = disconnected
				}
			case *client.ReachabilityEvent:
				switch {
				case e.Err != nil && m.conn == connected:
					m.conn, m.connErr = unreachable, e.Err
				case e.Err == nil && m.conn == unreachable:
					m.conn, m.connErr = connected, nil
				}
			}
		}
		cmds := m.broadcast(msg)
		if msg.Closed {
			// A reconnection under way (R after the first news of the end) stays so.
			if m.conn != disconnected && m.conn != reconnecting {
				m.conn, m.connErr = disconnected, m.sess.Err()
			}
		} else {
			cmds = append(cmds, ui.Listen(m.sub, m.gen))
		}
		return tea.Batch(cmds...)
	case ui.TickMsg:
		if !m.flashUntil.IsZero() && time.Time(msg).After(m.flashUntil) {
			m.flash, m.flashUntil = "", time.Time{}
		}
		return tea.Batch(append(m.broadcast(msg), ui.Tick(time.Second))...)
	case ui.FlashMsg:
		m.flash, m.flashErr, m.flashForm = msg.Text, msg.Err, msg.Form
		m.flashUntil = m.opts.Now().Add(8 * time.Second)
		return nil
	case ui.FormDoneMsg:
		if m.flashForm {
			m.flash, m.flashForm, m.flashUntil = "", false, time.Time{}
		}
		return nil
	case ui.FocusRequestMsg:
		m.active = TabRequests
		return m.requests.Update(msg)
	case ui.TaskStartedMsg:
		m.active = TabTasks
		return m.tasks.Update(msg)
	case loginMsg:
		m.login = msg.url
		return listenLogins(m.ctx, m.opts.Logins)
	case reconnectedMsg:
		m.login = ""
		if msg.err != nil {
			m.conn = disconnected
			if m.connErr == nil {
				m.connErr = m.sess.Err()
			}
			if m.sess.Err() == nil {
				m.conn = connected
			}
			return ui.FlashError("reconnecting: ", msg.err)
		}
		return m.swap(msg.sess)
	case tea.KeyPressMsg:
		return m.key(msg)
	case tea.MouseClickMsg:
		if l := m.layout(); l.tabs > 0 && msg.Y == l.header {
			for t := range numTabs {
				if msg.X >= m.tabX[t][0] && msg.X < m.tabX[t][1] {
					m.active = t
				}
			}
			return nil
		}
		if top := m.bodyTop(); msg.Y >= top && !m.fullHelp {
			msg.Y -= top
			return m.views[m.active].Update(msg)
		}
		return nil
	case tea.MouseWheelMsg:
		if m.fullHelp {
			m.helpPager.Update(msg)
			return nil
		}
		if top := m.bodyTop(); msg.Y >= top {
			msg.Y -= top
			return m.views[m.active].Update(msg)
		}
		return nil
	}
	// Results of the views' own commands, and anything else, go to every view: each
	// takes only its own.
	return tea.Batch(m.broadcast(msg)...)
}

func (m *Model) broadcast(msg tea.Msg) []tea.Cmd {
	cmds := make([]tea.Cmd, 0, len(m.views))
	for _, v := range m.views {
		if c := v.Update(msg); c != nil {
			cmds = append(cmds, c)
		}
	}
	return cmds
}

func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	if key.Matches(msg, keyForceQuit) {
		return tea.Quit
	}
	v := m.views[m.active]
	if m.fullHelp {
		// The scroll keys scroll a help taller than the screen; any other key closes it.
		if !m.helpPager.Scrollable() || !m.helpPager.Update(msg) {
			m.fullHelp = false
		}
		return nil
	}
	if m.login != "" && msg.String() == "esc" {
		m.login = ""
		return nil
	}
	if key.Matches(msg, keyAltTabs) {
		m.active = Tab(msg.String()[len(msg.String())-1] - '1')
		return nil
	}
	if v.Capturing() {
		return v.Update(msg)
	}
	switch {
	case key.Matches(msg, keyQuit):
		return tea.Quit
	case key.Matches(msg, keyHelp):
		m.fullHelp = true
		m.helpPager = ui.Pager{}
	case key.Matches(msg, keyTabs):
		m.active = Tab(msg.String()[0] - '1')
	case key.Matches(msg, keyNextTab):
		m.active = (m.active + 1) % numTabs
	case key.Matches(msg, keyPrevTab):
		m.active = (m.active + numTabs - 1) % numTabs
	case key.Matches(msg, keyReconnect):
		return m.reconnect()
	default:
		return v.Update(msg)
	}
	return nil
}

func (m *Model) reconnect() tea.Cmd {
	if m.opts.Reconnect == nil {
		return ui.Flash("reconnecting is not available here")
	}
	if m.conn == reconnecting {
		return nil
	}
	m.conn = reconnecting
	ctx, f := m.ctx, m.opts.Reconnect
	return func() tea.Msg {
		s, err := f(ctx)
		return reconnectedMsg{sess: s, err: err}
	}
}

// swap moves every view to a new session. Tasks and requests of the old one stay on
// screen with their last state.
func (m *Model) swap(s *client.Session) tea.Cmd {
	m.sub.Close()
	for _, o := range m.owned {
		if o == m.sess {
			go o.Close()
		}
	}
	m.owned = append(m.owned, s)
	m.sess = s
	m.gen++
	m.sub = s.Subscribe()
	listenForChanges(m.ctx, s)
	m.conn, m.connErr = connected, nil
	cmds := m.broadcast(ui.SessionMsg{Session: s, Gen: m.gen})
	cmds = append(cmds, ui.Listen(m.sub, m.gen), ui.Flash("reconnected: a new session"))
	return tea.Batch(cmds...)
}

func (m *Model) bodyHeight() int { return m.layout().body }

func (m *Model) resize() {
	for _, v := range m.views {
		v.SetSize(m.width, m.bodyHeight())
	}
	m.help.SetWidth(m.width)
}

// TeaView is the Bubble Tea view: the full screen, with the mouse on.
func (m *Model) TeaView() tea.View {
	v := tea.NewView(m.View())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	// The title goes to the terminal in an escape sequence of its own (OSC 2), which a
	// BEL or ESC in the server's name would end early.
	v.WindowTitle = "mcpi · " + look.Safe(m.serverName())
	return v
}

// View renders the screen.
func (m *Model) View() string {
	w, l := m.width, m.layout()
	var parts []string
	if l.header > 0 {
		parts = append(parts, ui.Stack(w, l.header, m.headerView(w)))
	}
	if l.tabs > 0 {
		parts = append(parts, m.tabBar(w))
	}
	if l.body > 0 {
		switch {
		case m.fullHelp:
			parts = append(parts, m.fullHelpView(w, l.body))
		case m.login != "":
			parts = append(parts, m.loginView(w, l.body))
		default:
			parts = append(parts, ui.Stack(w, l.body, m.views[m.active].View()))
		}
	}
	switch {
	case l.footer >= 2:
		parts = append(parts, m.statusLine(w), m.helpLine(w))
	case l.footer == 1 && m.flash != "":
		parts = append(parts, m.statusLine(w))
	case l.footer == 1:
		parts = append(parts, m.helpLine(w))
	}
	return ui.Stack(w, m.height, strings.Join(parts, "\n"))
}

// loginView is the screen of a reconnection that waits for the user to log in: the
// authorization URL whole, wrapped (mcpi has opened it in the browser, where it could),
// and what happens next.
func (m *Model) loginView(w, h int) string {
	lines := []string{
		ui.Warn.Render("Authorization needed"),
		"",
		"The server wants you to log in (OAuth). Open this page in a browser, if it did not open:",
		"",
	}
	lines = append(lines, ui.Wrap(m.login, max(w, 1))...)
	next := "mcpi goes on once you have logged in; esc puts this away."
	if m.conn == reconnecting {
		next = "mcpi reconnects once you have logged in; q quits."
	}
	lines = append(lines, "", ui.Dim.Render(next))
	return ui.Block(lines, w, h)
}

func (m *Model) tabBar(w int) string {
	var b strings.Builder
	x := 0
	for t := range numTabs {
		label := fmt.Sprintf(" %d %s", t+1, tabNames[t])
		switch t {
		case TabTasks:
			if n := m.tasks.Active(); n > 0 {
				label += fmt.Sprintf(" (%d)", n)
			}
		case TabRequests:
			if n := m.requests.Pending(); n > 0 {
				label += " " + ui.Badge.Render(fmt.Sprintf("%d", n))
			}
		}
		label += " "
		cell := label
		if t == m.active {
			cell = ui.Selected.Render(ui.Strip(label))
		}
		wd := ui.Width(label)
		m.tabX[t] = [2]int{x, x + wd}
		x += wd + 1
		b.WriteString(cell)
		b.WriteString(ui.Dim.Render("│"))
	}
	bar := b.String()
	if n := m.requests.Pending(); n > 0 {
		badge := ui.Badge.Render(fmt.Sprintf(" ⚑ %d pending ", n))
		if gap := w - ui.Width(bar) - ui.Width(badge); gap >= 1 {
			bar += strings.Repeat(" ", gap) + badge
		} else {
			bar = ui.Cut(bar, w-ui.Width(badge)-1) + " " + badge
		}
	}
	return ui.Fit(bar, w)
}

func (m *Model) statusLine(w int) string {
	switch {
	case m.flash != "" && m.flashErr:
		return ui.Fit(ui.Error.Render("✗ "+m.flash), w)
	case m.flash != "":
		return ui.Fit(ui.Accent.Render("• "+m.flash), w)
	case m.conn == disconnected:
		msg := "the session has ended"
		if why := look.Why(m.connErr); why != "" {
			msg += ": " + why
		}
		if m.opts.Reconnect != nil {
			msg += " — press R to reconnect"
		}
		return ui.Fit(ui.Error.Render(msg), w)
	case m.conn == unreachable:
		msg := look.Why(m.connErr) + " — the session goes on once it answers again"
		if m.opts.Reconnect != nil {
			msg += "; R reconnects"
		}
		return ui.Fit(ui.Error.Render(msg), w)
	}
	return ui.Fit("", w)
}

// helpScroll and helpClose are the help bar of the help screen.
var (
	helpScroll   = key.NewBinding(key.WithKeys("down"), key.WithHelp("↑↓ pgup pgdn g G", "scroll"))
	helpClose    = key.NewBinding(key.WithKeys("esc"), key.WithHelp("any other key", "close help"))
	helpCloseAny = key.NewBinding(key.WithKeys("esc"), key.WithHelp("any key", "close help"))
)

func (m *Model) globalKeys() []key.Binding {
	b := []key.Binding{keyHelp, keyTabs}
	if m.opts.Reconnect != nil {
		b = append(b, keyReconnect)
	}
	return append(b, keyQuit)
}

func (m *Model) helpLine(w int) string {
	v := m.views[m.active]
	var bindings []key.Binding
	if m.fullHelp {
		bindings = []key.Binding{helpCloseAny}
		if m.helpPager.Scrollable() {
			bindings = []key.Binding{helpScroll, helpClose}
		}
	} else {
		bindings = append(v.ShortHelp(), m.globalKeys()...)
		if v.Capturing() {
			bindings = append(v.ShortHelp(), keyAltTabs, key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit")))
		}
	}
	return ui.Fit(m.help.ShortHelpView(bindings), w)
}

// globalHelp is the help screen's groups of the keys that work in every view.
func (m *Model) globalHelp() [][]key.Binding {
	last := []key.Binding{keyHelp}
	if m.opts.Reconnect != nil {
		last = append(last, keyReconnect)
	}
	return [][]key.Binding{{keyNextTab, keyPrevTab, keyTabs, keyAltTabs}, append(last, keyQuit)}
}

// helpColumns lays groups of keys out as columns, as many side by side as fit in w
// cells, the others in rows of columns below: no key is cut.
func (m *Model) helpColumns(groups [][]key.Binding, w int) []string {
	h := m.help
	h.SetWidth(0) // measured here: the help model would cut the columns that do not fit
	var lines, row []string
	var cols [][]key.Binding
	flush := func() {
		if len(cols) > 0 {
			if len(lines) > 0 {
				lines = append(lines, "")
			}
			lines = append(lines, row...)
		}
		cols = nil
	}
	for _, g := range groups {
		next := append(cols[:len(cols):len(cols)], g)
		if len(cols) > 0 && maxWidth(strings.Split(h.FullHelpView(next), "\n")) > w {
			flush()
			next = [][]key.Binding{g}
		}
		cols = next
		row = strings.Split(h.FullHelpView(cols), "\n")
	}
	flush()
	return lines
}

// helpItems lays keys out one after another, as the help bar does, in lines of at
// most w cells: a key and what it does stay on one line.
func (m *Model) helpItems(keys []key.Binding, w int) []string {
	sep := m.help.Styles.ShortSeparator.Render(" • ")
	var lines []string
	line := ""
	for _, k := range keys {
		item := m.help.Styles.ShortKey.Render(k.Help().Key) + " " + m.help.Styles.ShortDesc.Render(k.Help().Desc)
		switch {
		case line == "":
			line = item
		case ui.Width(line+sep+item) <= w:
			line += sep + item
		default:
			lines = append(lines, line)
			line = item
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

func maxWidth(lines []string) int {
	n := 0
	for _, l := range lines {
		n = max(n, ui.Width(l))
	}
	return n
}

// fullHelpView is the help screen: the view's keys, the global keys, the mouse, the
// task status legend and the connection. When it is taller than h it scrolls, and its
// last line says so.
func (m *Model) fullHelpView(w, h int) string {
	lines := []string{ui.Title.Render("Keys of the " + tabNames[m.active] + " view"), ""}
	lines = append(lines, m.helpColumns(m.views[m.active].FullHelp(), w)...)
	lines = append(lines, "", ui.Title.Render("Keys of every view"))
	lines = append(lines, m.helpItems(slices.Concat(m.globalHelp()...), w)...)
	lines = append(lines, "",
		ui.Dim.Render("The mouse: click a tab to switch, click a row to select it and again to open it,"),
		ui.Dim.Render("and the wheel scrolls lists and results."),
		ui.Dim.Render("Task status: "+look.Legend()),
		ui.Dim.Render("→ a task mcpi asked of the server   ← a task the server asked of mcpi"), "")
	lines = append(lines, m.connectionLines(w)...)
	m.helpPager.SetLines(lines)
	return m.helpPager.View(w, h)
}
