// Package toolsview is the Tools view: the server's tools with their execution.taskSupport,
// a form built from the chosen tool's input schema, and the call, plain or as a task
// with a TTL, as the tool's taskSupport allows.
package toolsview

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/look"
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

// Button labels.
const (
	BtnCall   = "Call"
	BtnTask   = "Call as task"
	fieldTTL  = "\x00ttl" // not an argument: never a property name
	ttlLabel  = "Task TTL (s)"
	listWidth = 34
)

// call is a plain call in flight.
type call struct {
	tool     string
	token    string
	cancel   context.CancelCauseFunc // the cause words the server's notifications/cancelled
	started  time.Time
	progress *mcp.ProgressNotificationParams
	stopped  bool // the user cancelled it (x)
}

// Model is the Tools view.
type Model struct {
	ctx        context.Context
	sess       *client.Session
	gen        int
	now        func() time.Time
	defaultTTL time.Duration

	tools   []mcp.Tool
	loading bool
	loadErr error
	cursor  int
	offset  int
	width   int
	height  int
	mode    mode

	tool    *mcp.Tool
	form    *form.Form
	calling *call
	title   string
	pager   ui.Pager
	// result is the tool result shown, nil for anything else; rawJSON shows it as the
	// JSON it came as rather than for reading (v), and stays chosen for the next ones.
	result  *resultView
	rawJSON bool

	// detailOf is the tool whose schema's fields detailFields are, for the list's pane.
	detailOf     *mcp.Tool
	detailFields []*form.Field
}

// New returns the Tools view of sess. defaultTTL prefills the task TTL field (0: empty,
// the server's default).
func New(ctx context.Context, sess *client.Session, defaultTTL time.Duration, now func() time.Time) *Model {
	if now == nil {
		now = time.Now
	}
	return &Model{ctx: ctx, sess: sess, now: now, defaultTTL: defaultTTL, loading: true}
}

// Init lists the tools.
func (m *Model) Init() tea.Cmd { return m.load() }

// SetSize sets the size the view renders at.
func (m *Model) SetSize(w, h int) { m.width, m.height = w, h }

// Capturing reports whether the view wants every key (its form is open).
func (m *Model) Capturing() bool { return m.mode == modeForm }

// Keys.
var (
	keyOpen   = key.NewBinding(key.WithKeys("enter", "right"), key.WithHelp("enter", "open the form"))
	keyReload = key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "reload"))
	keySubmit = key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "call"))
	keyTask   = key.NewBinding(key.WithKeys("ctrl+t"), key.WithHelp("ctrl+t", "call as task"))
	// keyCallModern is ctrl+s in 2026-07-28, where there is no ctrl+t.
	keyCallModern = key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "call (the server decides if it is a task)"))
	keyBack       = key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back"))
	keyStop       = key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "cancel the call"))
	keyRaw        = key.NewBinding(key.WithKeys("v"), key.WithHelp("v", "raw JSON"))
	keyReadable   = key.NewBinding(key.WithKeys("v"), key.WithHelp("v", "readable view"))
)

// ShortHelp is the help bar of the current mode.
func (m *Model) ShortHelp() []key.Binding {
	switch m.mode {
	case modeForm:
		b := []key.Binding{keyBack}
		for _, btn := range m.form.Buttons {
			if btn == BtnCall {
				b = append(b, keySubmit)
			} else {
				b = append(b, keyTask)
			}
		}
		return append(b, form.Keys()[:3]...)
	case modeResult:
		b := []key.Binding{keyBack, ui.PagerUp, ui.PagerPageUp, ui.PagerWrap}
		if m.calling != nil {
			b = append(b, keyStop)
		}
		if m.result != nil {
			b = append(b, m.viewKey())
		}
		return b
	}
	return []key.Binding{ui.Up, ui.Down, keyOpen, keyReload}
}

// FullHelp is the full help of the view. In 2026-07-28 the server decides whether a
// call runs as a task: there is no ctrl+t.
func (m *Model) FullHelp() [][]key.Binding {
	calls := []key.Binding{keySubmit, keyTask, keyBack, keyStop, m.viewKey()}
	if m.modern() {
		calls = []key.Binding{keyCallModern, keyBack, keyStop, m.viewKey()}
	}
	return [][]key.Binding{{ui.Up, ui.Down, keyOpen, keyReload}, calls, form.Keys()}
}

func (m *Model) modern() bool { return m.sess != nil && m.sess.Modern() }

type toolsMsg struct {
	gen   int
	tools []mcp.Tool
	err   error
}

type callMsg struct {
	gen     int
	c       *call
	res     *mcp.CallToolResult
	err     error
	elapsed time.Duration
}

type taskMsg struct {
	gen  int
	tool string
	task *client.Task
	err  error
	// from is the call that became the task, in 2026-07-28 (the server's choice).
	from *call
}

func (m *Model) load() tea.Cmd {
	sess, gen, ctx := m.sess, m.gen, m.ctx
	m.loading = true
	return func() tea.Msg {
		var list []mcp.Tool
		for t, err := range sess.Tools(ctx, nil) {
			if err != nil {
				return toolsMsg{gen: gen, tools: list, err: err}
			}
			list = append(list, t)
		}
		return toolsMsg{gen: gen, tools: list}
	}
}

// Update handles results, client events, keys and the mouse.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case toolsMsg:
		if msg.gen != m.gen {
			return nil
		}
		m.loading, m.tools, m.loadErr = false, msg.tools, msg.err
		m.cursor = max(min(m.cursor, len(m.tools)-1), 0)
		if m.tool != nil && m.mode == modeForm {
			if t := m.find(m.tool.Name); t == nil {
				m.mode, m.tool, m.form = modeList, nil, nil
				return ui.Flash("the tool is gone from the server's list")
			}
		}
	case ui.EventsMsg:
		if msg.Gen != m.gen {
			return nil
		}
		var cmd tea.Cmd
		for _, e := range msg.Events {
			switch e := e.(type) {
			case *client.ListChangedEvent:
				if e.Method == mcp.NotificationToolsListChanged {
					cmd = m.load()
				}
			case *client.ProgressEvent:
				if m.calling != nil && fmt.Sprint(e.Params.ProgressToken) == m.calling.token {
					p := e.Params
					m.calling.progress = &p
					m.showCalling()
				}
			case *client.RequestEvent:
				if m.calling != nil {
					m.showCalling()
				}
			}
		}
		return cmd
	case ui.TickMsg:
		if m.calling != nil {
			m.showCalling()
		}
	case ui.SessionMsg:
		m.sess, m.gen = msg.Session, msg.Gen
		if m.calling != nil {
			m.calling.cancel(nil)
			m.calling = nil
		}
		return m.load()
	case callMsg:
		if msg.gen != m.gen || msg.c != m.calling {
			return nil
		}
		m.calling = nil
		if msg.c.stopped && errors.Is(msg.err, context.Canceled) {
			m.mode, m.pager, m.result = modeResult, ui.Pager{}, nil
			m.title = ui.Warn.Render("Cancelled " + msg.c.tool + " after " + look.Duration(msg.elapsed))
			m.pager.SetLines([]string{"You cancelled the call: mcpi withdrew the request (the server is told) and waits for no answer."})
			return nil
		}
		m.showResult(msg.c.tool, msg.res, msg.err, msg.elapsed)
	case taskMsg:
		if msg.gen != m.gen {
			return nil
		}
		if msg.err != nil {
			if m.form != nil {
				m.form.SetFormError(look.Sentence(msg.err))
			}
			return ui.FlashError(msg.tool+" as a task: ", msg.err)
		}
		if msg.task.ID() == "" {
			// The server ignored the task and answered at once: that is the outcome.
			res, err := msg.task.Outcome()
			m.showResult(msg.tool, res, err, 0)
			m.title += ui.Warn.Render("  (the server ran it plainly, not as a task)")
			return nil
		}
		if msg.from != nil {
			if msg.from != m.calling {
				return ui.Emit(ui.TaskStartedMsg{Task: msg.task}) // the user has moved on
			}
			m.calling = nil
			m.mode = modeList
			return tea.Batch(ui.Emit(ui.TaskStartedMsg{Task: msg.task}),
				ui.Flash(fmt.Sprintf("the server runs %s as task %s", msg.tool, look.Safe(msg.task.ID()))))
		}
		if m.mode == modeForm {
			m.mode = modeList
		}
		return tea.Batch(ui.Emit(ui.TaskStartedMsg{Task: msg.task}),
			ui.Flash(fmt.Sprintf("%s runs as task %s", msg.tool, msg.task.ID())))
	case tea.KeyPressMsg:
		return m.key(msg)
	case tea.MouseClickMsg:
		if msg.Button != tea.MouseLeft || msg.X >= m.listW() {
			return nil
		}
		i := m.offset + msg.Y - 1
		if i >= 0 && i < len(m.tools) {
			if i == m.cursor && m.mode == modeList {
				return m.openForm()
			}
			m.cursor = i
			if m.mode != modeResult || m.calling == nil {
				m.mode = modeList
			}
		}
	case tea.MouseWheelMsg:
		if m.mode == modeResult {
			m.pager.Update(msg)
		} else if m.mode == modeList {
			ui.Wheel(msg, &m.cursor, len(m.tools))
		}
	default:
		if m.mode == modeForm {
			cmd, _ := m.form.Update(msg)
			return cmd
		}
	}
	return nil
}

func (m *Model) find(name string) *mcp.Tool {
	for i := range m.tools {
		if m.tools[i].Name == name {
			return &m.tools[i]
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
			return ui.FormDone()
		case key.Matches(msg, keySubmit):
			if m.hasButton(BtnCall) {
				return m.submit(false)
			}
			return m.submit(true)
		case key.Matches(msg, keyTask):
			if m.hasButton(BtnTask) {
				return m.submit(true)
			}
			if m.modern() {
				return ui.Flash("press ctrl+s: in 2026-07-28 the server decides whether a call runs as a task (then it shows in Tasks)")
			}
			return ui.Flash(fmt.Sprintf("%s cannot run as a task (%s)", m.tool.Name, m.words(m.tool)))
		}
		cmd, pressed := m.form.Update(msg)
		if pressed >= 0 {
			return m.submit(m.form.Buttons[pressed] == BtnTask)
		}
		return cmd
	case modeResult:
		switch {
		case key.Matches(msg, keyBack):
			if m.calling != nil {
				m.calling.cancel(client.ErrCancelledByUser)
			}
			m.mode = modeForm
			if m.form == nil {
				m.mode = modeList
			}
		case key.Matches(msg, keyStop) && m.calling != nil:
			m.calling.stopped = true
			m.calling.cancel(client.ErrCancelledByUser)
		case key.Matches(msg, keyRaw) && m.result != nil:
			m.rawJSON = !m.rawJSON
			m.pager.SetLines(m.result.lines(m.rawJSON))
		default:
			m.pager.Update(msg)
		}
		return nil
	}
	switch {
	case ui.ListNav(msg, &m.cursor, len(m.tools), m.height-2):
	case key.Matches(msg, keyOpen):
		return m.openForm()
	case key.Matches(msg, keyReload):
		return m.load()
	}
	return nil
}

func (m *Model) hasButton(b string) bool {
	if m.form == nil {
		return false
	}
	for _, x := range m.form.Buttons {
		if x == b {
			return true
		}
	}
	return false
}

func (m *Model) declared() bool { return m.sess.ServerCapabilities().Tasks.SupportsToolCall() }

// Buttons are the calls a tool's taskSupport allows: a required tool only runs as a
// task, a forbidden one (or one on a server that takes no tool tasks) only plainly.
func Buttons(t *mcp.Tool, serverTakesTasks bool) []string {
	switch t.TaskSupport() {
	case mcp.TaskSupportRequired:
		return []string{BtnTask}
	case mcp.TaskSupportOptional:
		if serverTakesTasks {
			return []string{BtnCall, BtnTask}
		}
	}
	return []string{BtnCall}
}

func (m *Model) openForm() tea.Cmd {
	if m.cursor >= len(m.tools) {
		return nil
	}
	t := m.tools[m.cursor]
	m.tool = &t
	fields, err := form.FromSchema(t.InputSchema)
	buttons := Buttons(&t, m.declared())
	if m.sess.Modern() {
		// The server decides, call by call: every call declares the Tasks extension, and
		// one the server makes a task moves to the Tasks view.
		buttons = []string{BtnCall}
	}
	if buttons[len(buttons)-1] == BtnTask && !m.sess.Modern() { // in 2026-07-28 the server picks the ttl
		ttl := form.NewField(fieldTTL, ttlLabel, form.Number)
		ttl.Extra = true
		ttl.Description = "How long the server keeps the task and its result; empty leaves it to the server."
		ttl.Hint = "seconds"
		if m.defaultTTL > 0 {
			ttl.SetText(strconv.FormatFloat(m.defaultTTL.Seconds(), 'f', -1, 64))
		}
		fields = append(fields, ttl)
	}
	m.form = form.New(fields, buttons...)
	m.form.Validate = form.SchemaValidator(t.InputSchema)
	if err != nil {
		m.form.SetFormError("the input schema cannot be read: " + err.Error())
	}
	if len(fields) == 0 || (len(fields) == 1 && fields[0].Extra) {
		m.form.FocusButton(buttons[0])
	}
	m.mode = modeForm
	return nil
}

// submit checks the arguments and calls the tool, plainly or as a task.
func (m *Model) submit(asTask bool) tea.Cmd {
	values, ok := m.form.Values()
	var ttl time.Duration
	if f := m.form.Field(fieldTTL); f != nil && f.Text() != "" {
		s, err := strconv.ParseFloat(strings.TrimSpace(f.Text()), 64)
		if err != nil || s < 0 {
			m.form.SetError(fieldTTL, "must be a number of seconds")
			ok = false
		}
		ttl = time.Duration(s * float64(time.Second))
	}
	if !ok {
		return ui.FormNotice("fix the highlighted arguments first; nothing was sent")
	}
	return tea.Batch(ui.FormDone(), m.send(asTask, values, ttl))
}

// send calls the tool with the form's checked values.
func (m *Model) send(asTask bool, values map[string]any, ttl time.Duration) tea.Cmd {
	p := &mcp.CallToolParams{Name: m.tool.Name, Arguments: form.Marshal(values)}
	sess, gen, ctx, tool := m.sess, m.gen, m.ctx, m.tool.Name
	if asTask {
		return func() tea.Msg {
			t, err := sess.StartToolTask(ctx, p, &client.CallOptions{TTL: ttl, Progress: true})
			return taskMsg{gen: gen, tool: tool, task: t, err: err}
		}
	}
	cctx, cancel := context.WithCancelCause(ctx)
	c := &call{tool: tool, token: sess.NewProgressToken(), cancel: cancel, started: m.now()}
	p.Meta.SetProgressToken(c.token)
	m.calling = c
	m.mode, m.result = modeResult, nil
	m.pager = ui.Pager{}
	m.showCalling()
	now := m.now
	if sess.Modern() {
		return func() tea.Msg {
			defer cancel(nil) // the task, if the server makes one, outlives the call
			t, err := sess.StartToolTask(cctx, p, nil)
			if err == nil && t.ID() != "" {
				return taskMsg{gen: gen, tool: tool, task: t, from: c}
			}
			var res *mcp.CallToolResult
			if err == nil {
				res, err = t.Outcome()
			}
			return callMsg{gen: gen, c: c, res: res, err: err, elapsed: now().Sub(c.started)}
		}
	}
	return func() tea.Msg {
		defer cancel(nil)
		res, err := sess.CallTool(cctx, p, nil)
		return callMsg{gen: gen, c: c, res: res, err: err, elapsed: now().Sub(c.started)}
	}
}

// awaited is a server request waiting for the user that no task of mcpi's is about: one
// the server made while a plain call runs (in 2026-07-28, the input it asked of the
// call), which the call waits on.
func (m *Model) awaited() *client.Request {
	if m.sess == nil {
		return nil
	}
	for _, r := range m.sess.PendingRequests() {
		if r.RelatedTask == "" && r.Task == "" {
			return r
		}
	}
	return nil
}

func (m *Model) showCalling() {
	c := m.calling
	m.title = fmt.Sprintf("Calling %s… %s", c.tool, look.Duration(m.now().Sub(c.started).Truncate(100*time.Millisecond)))
	lines := []string{ui.Dim.Render("waiting for the result; x cancels the call, esc goes back")}
	if r := m.awaited(); r != nil {
		// The call does not move until the request is answered, in Requests. In
		// 2025-11-25 the server holds the call open, waiting on the answer; in 2026-07-28
		// it has answered input_required and holds nothing: mcpi waits for the user, and
		// sends the call again with the answer.
		asks := "the server waits on your answer to its " + ui.RequestKind(r) + " request “" + ui.Cut(ui.RequestSummary(r), 60) + "”"
		if r.InputKey != "" {
			kind := ui.RequestKind(r)
			article := "a "
			if strings.ContainsAny(kind[:1], "aeiou") {
				article = "an "
			}
			asks = "the server asked for your answer to " + article + kind + " request “" + ui.Cut(ui.RequestSummary(r), 60) + "”; mcpi sends the call again with it"
		}
		lines = []string{
			ui.Warn.Render(asks),
			ui.Dim.Render("answer it in Requests (press 3); x cancels the call, esc goes back"),
		}
	}
	if p := c.progress; p != nil {
		lines = append(lines, "progress "+ui.Accent.Render(look.Progress(p.Progress, p.Total, progressWidth))+"  "+p.Message)
	}
	m.pager.SetLines(lines)
}

// progressWidth bounds a plain call's progress numbers, which are the server's.
const progressWidth = 24

// viewKey is the key that shows the result the other way.
func (m *Model) viewKey() key.Binding {
	if m.rawJSON {
		return keyReadable
	}
	return keyRaw
}

// resultView is a tool result as the view shows it: for reading (its content blocks as
// the CLI writes them), or as the JSON it came as, made when first asked for (a result
// can be megabytes). Both start with what is said of the output schema, if anything.
type resultView struct {
	res      *mcp.CallToolResult
	above    []string
	readable []string
	raw      []string
}

func (v *resultView) lines(raw bool) []string {
	if !raw {
		if v.readable == nil {
			v.readable = append(slices.Clip(v.above), ui.ToolResultLines(v.res)...)
		}
		return v.readable
	}
	if v.raw == nil {
		b, _ := json.Marshal(v.res)
		v.raw = append(slices.Clip(v.above), ui.HighlightJSON(b)...)
	}
	return v.raw
}

func (m *Model) showResult(tool string, res *mcp.CallToolResult, err error, elapsed time.Duration) {
	m.mode = modeResult
	m.pager = ui.Pager{}
	m.result = nil
	took := ""
	if elapsed > 0 {
		took = " in " + look.Duration(elapsed)
	}
	switch {
	case err != nil:
		m.title = ui.Error.Render("Error from " + tool + took)
		lines := []string{ui.Error.Render(look.Sentence(err))}
		m.pager.SetLines(lines)
	default:
		m.title = ui.OK.Render("Result of " + tool + took)
		if res.IsError {
			m.title = ui.Error.Render("Result of " + tool + took + " (isError: the tool reports a failure)")
		}
		v := &resultView{res: res}
		if err := client.ValidateStructuredContent(m.find(tool), res); err != nil {
			// The server broke its tool's output schema: said above the result.
			m.title += "  " + ui.Error.Render("(does not fit the output schema)")
			v.above = []string{ui.Error.Render(look.Sentence(err)), ""}
		}
		m.result = v
		m.pager.SetLines(v.lines(m.rawJSON))
	}
}
