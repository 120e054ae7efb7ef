// Package requestsview is the Requests view: the sampling and elicitation requests the
// server sent, waiting for the user. Each is marked plain, side-channel (input for a
// task mcpi asked for) or task-augmented (run as a task mcpi hosts), and is answered
// with a form built from the requested schema, or declined.
package requestsview

import (
	"context"
	"fmt"
	"strings"
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

type entry struct {
	req     *client.Request
	settled bool
	outcome string // what the user did, or "withdrawn"
}

type mode int

const (
	modeList mode = iota
	modeAnswer
)

// Model is the Requests view.
type Model struct {
	ctx     context.Context
	sess    *client.Session
	gen     int
	now     func() time.Time
	entries []*entry
	cursor  int
	offset  int
	width   int
	height  int
	mode    mode
	open    *entry
	form    *form.Form
}

// Sampling answer fields.
const (
	fieldReply      = "reply"
	fieldModel      = "model"
	fieldStopReason = "stopReason"
)

// Button labels.
const (
	btnAccept  = "Accept"
	btnDecline = "Decline"
	btnCancel  = "Cancel"
	btnSend    = "Send"
	btnReject  = "Reject"
)

// New returns the Requests view of sess.
func New(ctx context.Context, sess *client.Session, now func() time.Time) *Model {
	if now == nil {
		now = time.Now
	}
	m := &Model{ctx: ctx, sess: sess, now: now}
	m.sync()
	return m
}

// SetSize sets the size the view renders at.
func (m *Model) SetSize(w, h int) { m.width, m.height = w, h }

// Capturing reports whether the view wants every key (an answer form is open).
func (m *Model) Capturing() bool { return m.mode == modeAnswer }

// Pending is the number of requests waiting for an answer: the badge.
func (m *Model) Pending() int {
	n := 0
	for _, e := range m.entries {
		if !e.settled {
			n++
		}
	}
	return n
}

// Keys.
var (
	keyOpen    = key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "answer"))
	keyDecline = key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "decline"))
	keySubmit  = key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "accept / send"))
	keyRefuse  = key.NewBinding(key.WithKeys("ctrl+d"), key.WithHelp("ctrl+d", "decline / reject"))
	keyBack    = key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back (keep it pending)"))
)

// ShortHelp is the help bar of the current mode.
func (m *Model) ShortHelp() []key.Binding {
	if m.mode == modeAnswer {
		return append([]key.Binding{keySubmit, keyRefuse, keyBack}, form.Keys()[:2]...)
	}
	return []key.Binding{ui.Up, ui.Down, keyOpen, keyDecline}
}

// FullHelp is the full help of the view.
func (m *Model) FullHelp() [][]key.Binding {
	return [][]key.Binding{{ui.Up, ui.Down, keyOpen, keyDecline}, {keySubmit, keyRefuse, keyBack}, form.Keys()}
}

type answeredMsg struct {
	e       *entry
	outcome string
	err     error
}

// Update handles client events, keys and the mouse.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case ui.EventsMsg:
		if msg.Gen != m.gen {
			return nil
		}
		var cmds []tea.Cmd
		for _, e := range msg.Events {
			switch e := e.(type) {
			case *client.RequestEvent:
				cmds = append(cmds, m.requestEvent(e))
			case *client.DroppedEvent:
				m.sync() // requests may have come and gone unseen
			}
		}
		m.trim()
		return tea.Batch(cmds...)
	case ui.TickMsg:
		m.sync()
		m.trim()
	case ui.SessionMsg:
		m.sess, m.gen = msg.Session, msg.Gen
		m.sync()
	case ui.FocusRequestMsg:
		e := m.entry(msg.Request)
		for i, x := range m.entries {
			if x == e {
				m.cursor = i
			}
		}
		return m.openAnswer(e)
	case answeredMsg:
		if msg.err != nil {
			return ui.FlashError("answering: ", msg.err)
		}
		msg.e.outcome = msg.outcome
		msg.e.settled = true
		if m.open == msg.e {
			m.closeAnswer()
		}
		return ui.Flash(fmt.Sprintf("%s %s", msg.outcome, ui.RequestKind(msg.e.req)))
	case tea.KeyPressMsg:
		if m.mode == modeAnswer {
			return m.answerKey(msg)
		}
		switch {
		case ui.ListNav(msg, &m.cursor, len(m.entries), m.listHeight()):
		case key.Matches(msg, keyOpen):
			if e := m.selected(); e != nil {
				return m.openAnswer(e)
			}
		case key.Matches(msg, keyDecline):
			if e := m.selected(); e != nil && !e.settled {
				return m.refuse(e)
			}
		}
	case tea.MouseClickMsg:
		if m.mode == modeList && msg.Button == tea.MouseLeft {
			i := m.offset + msg.Y - 2
			if i >= 0 && i < len(m.entries) {
				if i == m.cursor {
					return m.openAnswer(m.entries[i])
				}
				m.cursor = i
			}
		}
	case tea.MouseWheelMsg:
		if m.mode == modeList {
			ui.Wheel(msg, &m.cursor, len(m.entries))
		}
	}
	return nil
}

func (m *Model) requestEvent(re *client.RequestEvent) tea.Cmd {
	e := m.entry(re.Request)
	if !re.Settled || e.settled {
		return nil
	}
	e.settled = true
	if e.outcome == "" {
		e.outcome = "withdrawn"
	}
	if m.open == e {
		m.closeAnswer()
		if e.outcome == "withdrawn" {
			return ui.Flash("the server withdrew the " + ui.RequestKind(e.req) + " request")
		}
	}
	return nil
}

// entry returns the entry of r, adding it if new.
func (m *Model) entry(r *client.Request) *entry {
	for _, e := range m.entries {
		if e.req == r {
			return e
		}
	}
	e := &entry{req: r}
	select {
	case <-r.Done():
		e.settled, e.outcome = true, "withdrawn"
	default:
	}
	m.entries = append(m.entries, e)
	return e
}

// sync adds requests already pending (queued before the view subscribed) and marks
// requests that ended unseen.
func (m *Model) sync() {
	if m.sess != nil {
		for _, r := range m.sess.PendingRequests() {
			m.entry(r)
		}
	}
	for _, e := range m.entries {
		if e.settled {
			continue
		}
		select {
		case <-e.req.Done():
			e.settled = true
			if e.outcome == "" {
				e.outcome = "withdrawn"
			}
			if m.open == e {
				m.closeAnswer()
			}
		default:
		}
	}
	m.cursor = max(min(m.cursor, len(m.entries)-1), 0)
}

// MaxSettled bounds the answered and withdrawn requests the view keeps, oldest first: a
// server asks as often as it likes over a session, and each request keeps what it asked.
const MaxSettled = 1000

// trim lets go of the oldest settled requests past MaxSettled, but not of the one open.
func (m *Model) trim() {
	m.entries, m.cursor = ui.DropOldest(m.entries, m.cursor, MaxSettled, func(e *entry) bool { return e.settled }, m.open, nil)
}

func (m *Model) selected() *entry {
	if m.cursor < 0 || m.cursor >= len(m.entries) {
		return nil
	}
	return m.entries[m.cursor]
}

func (m *Model) closeAnswer() {
	m.mode, m.open, m.form = modeList, nil, nil
}

// openAnswer opens the answer form of e.
func (m *Model) openAnswer(e *entry) tea.Cmd {
	if e.settled {
		return ui.Flash(fmt.Sprintf("this %s request is no longer pending (%s)", ui.RequestKind(e.req), e.outcome))
	}
	m.mode, m.open = modeAnswer, e
	r := e.req
	switch {
	case r.Elicitation != nil && r.Elicitation.EffectiveMode() == mcp.ElicitModeURL:
		if _, web := look.WebURL(r.Elicitation.URL); !web {
			// Nothing to have visited: accepting would say the user opened a script.
			m.form = form.New(nil, btnDecline, btnCancel)
			break
		}
		m.form = form.New(nil, btnAccept, btnDecline, btnCancel)
	case r.Elicitation != nil:
		fields, err := form.FromSchema(r.Elicitation.RequestedSchema)
		m.form = form.New(fields, btnAccept, btnDecline, btnCancel)
		m.form.Validate = form.SchemaValidator(r.Elicitation.RequestedSchema)
		if err != nil {
			m.form.SetFormError("the requested schema cannot be read: " + err.Error())
		}
	default:
		reply := form.NewField(fieldReply, "Reply", form.String)
		reply.Required = true
		reply.Description = "The model's answer, as text."
		model := form.NewField(fieldModel, "Model", form.String)
		model.SetText("mcpi-user")
		model.Description = "The model name reported to the server."
		stop := form.NewField(fieldStopReason, "Stop reason", form.Enum)
		stop.Choices = []form.Choice{{Value: mcp.StopReasonEndTurn, Label: mcp.StopReasonEndTurn},
			{Value: mcp.StopReasonMaxTokens, Label: mcp.StopReasonMaxTokens}, {Value: mcp.StopReasonStopSequence, Label: mcp.StopReasonStopSequence}}
		stop.Required = true
		stop.SetChoice(0)
		m.form = form.New([]*form.Field{reply, model, stop}, btnSend, btnReject)
	}
	return nil
}

func (m *Model) answerKey(msg tea.KeyPressMsg) tea.Cmd {
	e := m.open
	switch {
	case key.Matches(msg, keyBack):
		m.closeAnswer()
		return ui.FormDone()
	case key.Matches(msg, keySubmit):
		return m.accept(e)
	case key.Matches(msg, keyRefuse):
		return m.refuse(e)
	}
	cmd, pressed := m.form.Update(msg)
	if pressed < 0 {
		return cmd
	}
	switch m.form.Buttons[pressed] {
	case btnAccept, btnSend:
		return m.accept(e)
	case btnDecline, btnReject:
		return m.refuse(e)
	case btnCancel:
		return answer(e, "dismissed", e.req.Dismiss)
	}
	return nil
}

func answer(e *entry, outcome string, f func() error) tea.Cmd {
	return func() tea.Msg { return answeredMsg{e: e, outcome: outcome, err: f()} }
}

// accept answers with the form's values, unless they do not fit the schema: then the
// problems are shown and nothing is sent.
func (m *Model) accept(e *entry) tea.Cmd {
	r := e.req
	if r.Elicitation != nil && r.Elicitation.EffectiveMode() == mcp.ElicitModeURL {
		if _, web := look.WebURL(r.Elicitation.URL); !web {
			return ui.FormNotice("the server names no web address to open: decline or cancel; nothing was sent")
		}
		return answer(e, "accepted", func() error {
			return r.Respond(&mcp.ElicitResult{Action: mcp.ElicitActionAccept})
		})
	}
	values, ok := m.form.Values()
	if !ok {
		return ui.FormNotice("fix the highlighted fields first; nothing was sent")
	}
	if r.Elicitation != nil {
		return answer(e, "accepted", func() error { return r.Accept(values) })
	}
	reply, _ := values[fieldReply].(string)
	model, _ := values[fieldModel].(string)
	stop, _ := values[fieldStopReason].(string)
	res := &mcp.CreateMessageResult{
		Role:       mcp.RoleAssistant,
		Content:    []mcp.Content{mcp.TextContent(reply)},
		Model:      model,
		StopReason: stop,
	}
	return answer(e, "answered", func() error { return r.Respond(res) })
}

// refuse declines an elicitation, or rejects a sampling request with the error code
// the MCP spec suggests for a user's refusal (-1).
func (m *Model) refuse(e *entry) tea.Cmd {
	r := e.req
	if r.Elicitation != nil {
		return answer(e, "declined", r.Decline)
	}
	return answer(e, "rejected", func() error {
		return r.Refuse("the user rejected the sampling request")
	})
}

func (m *Model) listHeight() int { return max(m.height-2, 1) }

// View renders the view.
func (m *Model) View() string {
	w, h := m.width, m.height
	if w <= 0 || h <= 0 {
		return ""
	}
	if m.mode == modeAnswer && m.open != nil {
		return m.answerView(w, h)
	}
	pending := m.Pending()
	head := ui.Bold.Render(fmt.Sprintf("%d pending", pending))
	if pending > 0 {
		head = ui.Badge.Render(fmt.Sprintf(" %d pending ", pending))
	}
	lines := []string{head + ui.Dim.Render("   requests the server sent to mcpi, to answer or decline")}
	if len(m.entries) == 0 {
		lines = append(lines, "",
			"No requests from the server.",
			"",
			ui.Dim.Render("Sampling and elicitation requests appear here: plain ones, side-channel ones (a task"),
			ui.Dim.Render("waiting for input) and task-augmented ones (a task the server asked mcpi to run)."),
			ui.Dim.Render("Try ask_user, ask_model or ask_task in Tools."))
		return ui.Block(lines, w, h)
	}
	colKind, colChan, colAge := 18, 24, 8
	lines = append(lines, ui.Dim.Render("  "+ui.Fit("REQUEST", colKind+2)+ui.Fit("CHANNEL", colChan)+" "+ui.Fit("QUESTION", max(w-colKind-colChan-colAge-6, 0))+" "+"RECEIVED"))
	lh := m.listHeight()
	m.offset = ui.Window(m.offset, m.cursor, len(m.entries), lh)
	now := m.now()
	for i := m.offset; i < min(m.offset+lh, len(m.entries)); i++ {
		e := m.entries[i]
		// A request borrows the mark of the task status it is like: waiting for the user
		// as input_required, answered as completed, refused or withdrawn as failed.
		sym := ui.Warn.Render(look.Symbol(mcp.TaskStatusInputRequired))
		if e.settled {
			sym = ui.Dim.Render(look.Symbol(mcp.TaskStatusCompleted))
			if e.outcome == "withdrawn" || e.outcome == "declined" || e.outcome == "rejected" {
				sym = ui.Dim.Render(look.Symbol(mcp.TaskStatusFailed))
			}
		}
		ch := ui.Channel(e.req)
		if id := taskOf(e.req); id != "" {
			ch += " " + look.ShortID(id)
		}
		q := ui.RequestSummary(e.req)
		age := look.Duration(now.Sub(e.req.Received).Truncate(time.Second)) + " ago"
		if e.settled {
			age = e.outcome
		}
		line := sym + " " + ui.Fit(ui.RequestKind(e.req), colKind) + ui.Fit(ch, colChan) + " " +
			ui.Fit("“"+q+"”", max(w-colKind-colChan-colAge-6, 0)) + " " + age
		if e.settled {
			line = ui.Dim.Render(ansiStrip(line))
		}
		if i == m.cursor {
			line = ui.Accent.Render("▸ ") + line
		} else {
			line = "  " + line
		}
		lines = append(lines, line)
	}
	return ui.Block(lines, w, h)
}

func taskOf(r *client.Request) string {
	if r.Task != "" {
		return r.Task
	}
	return r.RelatedTask
}

func (m *Model) answerView(w, h int) string {
	r := m.open.req
	// A server's texts may be megabytes, and the view is drawn at every tick and key: only
	// as much of each as the screen can show is wrapped or cut (shown bytes).
	shown := 16 * max(w, 1) * max(h, 1)
	var lines []string
	lines = append(lines, ui.Title.Render("Answer the server's "+ui.RequestKind(r))+"  "+ui.Warn.Render(ui.ChannelLong(r)))
	switch {
	case r.Elicitation != nil:
		for _, l := range ui.Wrap(cut.Bytes(r.Elicitation.Message, shown), w) {
			lines = append(lines, ui.Bold.Render(l))
		}
		if r.Elicitation.EffectiveMode() == mcp.ElicitModeURL {
			if link, web := look.WebURL(r.Elicitation.URL); web {
				lines = append(lines, "Open: "+ui.Accent.Render(cut.Bytes(link, shown)), ui.Dim.Render("Accept once you have visited it."))
			} else {
				// The rule of the CLI and of the -32042 sentence: only an http: or https: URL
				// is offered; another is quoted and said not to be opened.
				quoted := fmt.Sprintf("%q", cut.Bytes(r.Elicitation.URL, min(shown, 200)))
				for _, l := range ui.Wrap("The server names no web address: "+quoted+", not to be opened.", w) {
					lines = append(lines, ui.Warn.Render(l))
				}
			}
		}
	case r.Sampling != nil:
		s := r.Sampling
		line := 16 * max(w, 1)
		if s.SystemPrompt != "" {
			lines = append(lines, ui.Dim.Render("system: ")+ui.Cut(ui.OneLine(cut.Bytes(s.SystemPrompt, line)), w-8))
		}
		msgs := s.Messages
		if len(msgs) > 4 {
			lines = append(lines, ui.Dim.Render(fmt.Sprintf("(%d earlier messages)", len(msgs)-4)))
			msgs = msgs[len(msgs)-4:]
		}
		for _, msg := range msgs {
			var texts strings.Builder
			for _, c := range msg.Content {
				if texts.Len() >= line {
					break
				}
				if texts.Len() > 0 {
					texts.WriteByte(' ')
				}
				if c.Type == mcp.ContentTypeText {
					texts.WriteString(cut.Bytes(c.Text, line))
				} else {
					texts.WriteString("[" + cut.Bytes(c.Type, line) + "]")
				}
			}
			lines = append(lines, ui.Accent.Render(string(msg.Role)+": ")+ui.Cut(ui.OneLine(texts.String()), w-len(msg.Role)-2))
		}
		lines = append(lines, ui.Dim.Render(fmt.Sprintf("max tokens %d", s.MaxTokens)))
	}
	lines = append(lines, "")
	top := strings.Join(lines, "\n")
	n := len(lines)
	if n > h/2 {
		lines = lines[:h/2]
		n = len(lines)
		top = strings.Join(lines, "\n")
	}
	return ui.Stack(w, h, ui.Block(strings.Split(top, "\n"), w, n), m.form.View(w, h-n))
}

func ansiStrip(s string) string { return ui.Strip(s) }
