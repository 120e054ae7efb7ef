// Package tasksview is the Tasks view: every task the connection knows, in both roles
// (tool calls mcpi asked the server to run as tasks, and sampling or elicitation the
// server asked mcpi to run as tasks), live, with details, cancel, the outcome, and a
// jump to the prompt a task waits on.
package tasksview

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/look"
	"github.com/mcpi-dev/mcpi/internal/tui/internal/ui"
	"github.com/mcpi-dev/mcpi/mcp"
)

// Role says who asked for a task.
type Role int

// Roles.
const (
	// Requestor tasks are tool calls mcpi asked the server to run as tasks.
	Requestor Role = iota
	// Receiver tasks are requests the server asked mcpi to run as tasks.
	Receiver
)

func (r Role) arrow() string {
	if r == Receiver {
		return ui.Warn.Render("←")
	}
	return ui.Accent.Render("→")
}

// row is one task on screen.
type row struct {
	key      string
	id       string
	role     Role
	gen      int
	task     *client.Task // requestor tasks
	name     string       // tool, or the method of a receiver task
	state    mcp.Task
	started  time.Time
	ended    time.Time
	progress *mcp.ProgressNotificationParams
	polls    int
	outcome  bool            // the outcome is known
	result   json.RawMessage // the tool's result, or the answer sent to the server
	err      error           // why there is no result
	errJSON  json.RawMessage // the JSON-RPC error object, when there is one
	gone     bool            // expired or unknown to its receiver
	lost     bool            // not ended when its session ended: no one follows it now
	request  *client.Request // the prompt it waits on, while one is pending
	shown    *outcomeView    // the outcome as shown, made once
}

type mode int

const (
	modeTable mode = iota
	modeDetail
	modeConfirm
)

// Model is the Tasks view.
type Model struct {
	ctx    context.Context
	sess   *client.Session
	gen    int
	now    func() time.Time
	rows   []*row
	byKey  map[string]*row
	cursor int
	offset int
	width  int
	height int
	mode   mode
	back   mode // the mode a confirmation returns to
	pager  ui.Pager
	// rawJSON shows a tool's result in the details as the JSON it came as, rather than
	// for reading (v); it stays chosen for the next ones.
	rawJSON bool
}

// New returns the Tasks view of sess; ctx bounds the calls it makes (cancel).
func New(ctx context.Context, sess *client.Session, now func() time.Time) *Model {
	if now == nil {
		now = time.Now
	}
	m := &Model{ctx: ctx, sess: sess, now: now, byKey: map[string]*row{}}
	m.refresh()
	return m
}

// SetSize sets the size the view renders at.
func (m *Model) SetSize(w, h int) { m.width, m.height = w, h }

// Capturing reports whether the view wants every key (a confirmation is open).
func (m *Model) Capturing() bool { return m.mode == modeConfirm }

// Active is the number of tasks not yet ended.
func (m *Model) Active() int {
	n := 0
	for _, r := range m.rows {
		if !r.ended.IsZero() || r.gone || r.lost || r.state.Status.IsTerminal() {
			continue
		}
		n++
	}
	return n
}

// Keys.
var (
	keyDetail   = key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "details"))
	keyCancel   = key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "cancel task"))
	keyPrompt   = key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "answer its prompt"))
	keyYes      = key.NewBinding(key.WithKeys("y", "enter"), key.WithHelp("y", "yes, cancel it"))
	keyNo       = key.NewBinding(key.WithKeys("n", "esc"), key.WithHelp("n/esc", "no"))
	keyBack     = key.NewBinding(key.WithKeys("esc", "backspace"), key.WithHelp("esc", "back to the table"))
	keyTop      = key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g/G", "first/last"))
	keyRefresh  = key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "find the server's tasks"))
	keyRaw      = key.NewBinding(key.WithKeys("v"), key.WithHelp("v", "raw JSON"))
	keyReadable = key.NewBinding(key.WithKeys("v"), key.WithHelp("v", "readable view"))
)

// ShortHelp is the help bar of the current mode.
func (m *Model) ShortHelp() []key.Binding {
	switch m.mode {
	case modeConfirm:
		return []key.Binding{keyYes, keyNo}
	case modeDetail:
		keys := m.offered(keyBack, ui.PagerUp, ui.PagerPageUp, ui.PagerWrap, keyCancel, keyPrompt)
		if r := m.selected(); r != nil && r.result != nil && r.outcomeView().readLines(r) != nil {
			keys = append(keys, m.viewKey())
		}
		return keys
	}
	return m.offered(ui.Up, ui.Down, keyDetail, keyCancel, keyPrompt, keyRefresh)
}

// FullHelp is the full help of the view.
func (m *Model) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{ui.Up, ui.Down, keyTop, keyDetail, keyBack},
		m.offered(keyCancel, keyPrompt, keyRefresh, ui.PagerPageUp, m.viewKey()),
	}
}

// viewKey is the key that shows a tool's result the other way.
func (m *Model) viewKey() key.Binding {
	if m.rawJSON {
		return keyReadable
	}
	return keyRaw
}

// offered is keys without the cancel when the selected task cannot be cancelled.
func (m *Model) offered(keys ...key.Binding) []key.Binding {
	if m.noCancel(m.selected()) == "" {
		return keys
	}
	return slices.DeleteFunc(keys, func(k key.Binding) bool { return k.Help().Key == keyCancel.Help().Key })
}

// noCancel says why the requestor task r cannot be cancelled, or is "" when it can be
// asked: a server of 2025-11-25 that declared no tasks.cancel is sent no tasks/cancel
// (the client refuses it, [client.ErrNoTaskCancel]).
func (m *Model) noCancel(r *row) string {
	if r == nil || r.role != Requestor || r.gen != m.gen || m.sess == nil || m.sess.CancelsTasks() {
		return ""
	}
	return look.Sentence(client.ErrNoTaskCancel)
}

type cancelledMsg struct {
	key string
	err error
}

type serverTasksMsg struct {
	gen   int
	tasks []mcp.Task
	err   error
}

// Update handles client events, the clock, keys and the mouse.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case ui.EventsMsg:
		if msg.Gen != m.gen {
			return nil
		}
		for _, e := range msg.Events {
			m.event(e)
		}
		m.refresh()
	case ui.TickMsg:
		m.refresh()
	case ui.SessionMsg:
		m.sess, m.gen = msg.Session, msg.Gen
		m.refresh()
	case ui.TaskStartedMsg:
		r := m.requestorRow(msg.Task)
		m.refresh()
		m.selectRow(r)
		m.mode = modeTable
	case cancelledMsg:
		if msg.err != nil {
			return ui.FlashError("cancel: ", msg.err)
		}
		m.refresh()
		if r := m.byKey[msg.key]; r != nil {
			return ui.Flash(fmt.Sprintf("asked to cancel task %s", look.ShortID(r.id)))
		}
	case serverTasksMsg:
		if msg.gen != m.gen {
			return nil
		}
		if msg.err != nil {
			return ui.FlashError("tasks/list: ", msg.err)
		}
		return m.adopt(msg.tasks)
	case tea.KeyPressMsg:
		return m.key(msg)
	case tea.MouseClickMsg:
		if m.mode == modeTable && msg.Button == tea.MouseLeft {
			i := m.offset + msg.Y - m.tableTop()
			if i >= 0 && i < len(m.rows) {
				if i == m.cursor {
					m.openDetail()
				}
				m.cursor = i
			}
		}
	case tea.MouseWheelMsg:
		switch m.mode {
		case modeTable:
			ui.Wheel(msg, &m.cursor, len(m.rows))
		case modeDetail:
			m.pager.Update(msg)
		}
	}
	return nil
}

func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	switch m.mode {
	case modeConfirm:
		switch {
		case key.Matches(msg, keyYes):
			m.mode = m.back
			return m.cancel(m.selected())
		case key.Matches(msg, keyNo):
			m.mode = m.back
		}
		return nil
	case modeDetail:
		switch {
		case key.Matches(msg, keyBack):
			m.mode = modeTable
		case key.Matches(msg, keyCancel):
			return m.askCancel()
		case key.Matches(msg, keyPrompt):
			return m.jump()
		case key.Matches(msg, keyRaw):
			if r := m.selected(); r != nil && r.result != nil && r.outcomeView().readLines(r) != nil {
				m.rawJSON = !m.rawJSON
				m.pager.SetLines(m.detailLines(r))
			}
		default:
			m.pager.Update(msg)
		}
		return nil
	}
	switch {
	case ui.ListNav(msg, &m.cursor, len(m.rows), m.tableHeight()):
	case key.Matches(msg, keyDetail):
		m.openDetail()
	case key.Matches(msg, keyCancel):
		return m.askCancel()
	case key.Matches(msg, keyPrompt):
		return m.jump()
	case key.Matches(msg, keyRefresh):
		return m.listServerTasks()
	}
	return nil
}

// MaxEnded bounds the ended tasks the view keeps, oldest first: the server starts as many
// receiver tasks as it likes over a session, each with the request it ran. It is more
// than the session keeps (client.Options.KeptTasks), so that a task the session still
// has is not let go of here.
const MaxEnded = 2000

// trim lets go of the oldest ended rows past MaxEnded, but not of the one shown in detail.
func (m *Model) trim() {
	var open *row
	if m.mode != modeTable {
		open = m.selected()
	}
	m.rows, m.cursor = ui.DropOldest(m.rows, m.cursor, MaxEnded, (*row).isEnded, open,
		func(r *row) { delete(m.byKey, r.key) })
}

// drop lets go of the row of key, if there is one.
func (m *Model) drop(key string) {
	r := m.byKey[key]
	if r == nil {
		return
	}
	delete(m.byKey, key)
	m.rows = slices.DeleteFunc(m.rows, func(x *row) bool { return x == r })
	m.cursor = max(min(m.cursor, len(m.rows)-1), 0)
}

func (r *row) isEnded() bool { return r.outcome || r.gone || r.lost || r.state.Status.IsTerminal() }

func (m *Model) selected() *row {
	if m.cursor < 0 || m.cursor >= len(m.rows) {
		return nil
	}
	return m.rows[m.cursor]
}

func (m *Model) selectRow(r *row) {
	for i, x := range m.rows {
		if x == r {
			m.cursor = i
		}
	}
}

func (m *Model) openDetail() {
	if m.selected() == nil {
		return
	}
	m.mode = modeDetail
	m.pager = ui.Pager{}
	m.pager.SetLines(m.detailLines(m.selected()))
}

func (m *Model) askCancel() tea.Cmd {
	r := m.selected()
	if r == nil {
		return nil
	}
	if r.lost {
		return ui.Flash(fmt.Sprintf("task %s was lost with %s: mcpi can no longer reach it to cancel it", look.ShortID(r.id), m.sessionName(r)))
	}
	if r.state.Status.IsTerminal() || r.outcome || r.gone {
		return ui.Flash(fmt.Sprintf("task %s has already ended (%s)", look.ShortID(r.id), m.statusText(r)))
	}
	if why := m.noCancel(r); why != "" {
		return ui.Flash(fmt.Sprintf("task %s cannot be cancelled: %s", look.ShortID(r.id), why))
	}
	if r.role == Receiver && m.pendingRequest(r) == nil {
		return ui.Flash(fmt.Sprintf("task %s was asked by the server and waits on no prompt mcpi could decline", look.ShortID(r.id)))
	}
	m.back = m.mode
	m.mode = modeConfirm
	return nil
}

// cancel cancels a requestor task with tasks/cancel; a receiver task is the server's, so
// mcpi ends it by declining the prompt it waits on.
func (m *Model) cancel(r *row) tea.Cmd {
	if r == nil {
		return nil
	}
	if r.role == Receiver {
		req := m.pendingRequest(r)
		if req == nil {
			return nil
		}
		k := r.key
		return func() tea.Msg {
			var err error
			if req.Elicitation != nil {
				err = req.Decline()
			} else {
				err = req.Refuse("the user declined the sampling request")
			}
			return cancelledMsg{key: k, err: err}
		}
	}
	t, ctx, k := r.task, m.ctx, r.key
	return func() tea.Msg {
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		_, err := t.Cancel(cctx)
		return cancelledMsg{key: k, err: err}
	}
}

// pendingRequest is the prompt a task waits on, if one is pending.
func (m *Model) pendingRequest(r *row) *client.Request {
	if r.request != nil && !isDone(r.request) {
		return r.request
	}
	if r.gen != m.gen {
		return nil
	}
	for _, req := range m.sess.PendingRequests() {
		if (r.role == Requestor && req.RelatedTask == r.id) || (r.role == Receiver && req.Task == r.id) {
			return req
		}
	}
	return nil
}

func isDone(r *client.Request) bool {
	select {
	case <-r.Done():
		return true
	default:
		return false
	}
}

func (m *Model) jump() tea.Cmd {
	r := m.selected()
	if r == nil {
		return nil
	}
	req := m.pendingRequest(r)
	if req == nil {
		return ui.Flash(fmt.Sprintf("task %s waits on no prompt (%s)", look.ShortID(r.id), m.statusText(r)))
	}
	return ui.Emit(ui.FocusRequestMsg{Request: req})
}

func (m *Model) listServerTasks() tea.Cmd {
	sess, gen, ctx := m.sess, m.gen, m.ctx
	if !sess.ServerCapabilities().Tasks.SupportsList() {
		return ui.Flash("the server does not offer tasks/list")
	}
	return func() tea.Msg {
		var list []mcp.Task
		for t, err := range sess.ServerTasks(ctx, nil) {
			if err != nil {
				return serverTasksMsg{gen: gen, err: err}
			}
			list = append(list, t)
		}
		return serverTasksMsg{gen: gen, tasks: list}
	}
}

// adopt shows the tasks the server lists that this view does not know (made by an
// earlier session or another client), with the state the server gave.
func (m *Model) adopt(list []mcp.Task) tea.Cmd {
	added := 0
	for _, t := range list {
		known := false
		for _, r := range m.rows {
			// A row of an earlier session is not this session's: the task is shown
			// again, as the current session's.
			if r.role == Requestor && r.id == t.TaskID && r.gen == m.gen {
				known = true
				if r.task == nil {
					r.state = t
				}
			}
		}
		if known {
			continue
		}
		r := &row{key: "listed:" + t.TaskID, id: t.TaskID, role: Requestor, gen: m.gen, name: "(listed)", state: t}
		if c, err := mcp.ParseTime(t.CreatedAt); err == nil {
			r.started = c
		}
		m.add(r)
		added++
	}
	return ui.Flash(fmt.Sprintf("the server lists %s, %d not shown before", ui.Count(len(list), "task", "tasks"), added))
}

// event takes what one client event says about tasks.
func (m *Model) event(e client.Event) {
	switch e := e.(type) {
	case *client.TaskEvent:
		if e.Task == nil {
			return
		}
		if e.Kind.IsOutcome() && e.Task.ID() == "" {
			// A call that made no task (the server answered it at once, or refused it,
			// or it was withdrawn): a row its early progress made was not a task after
			// all; the Tools view shows the outcome.
			m.drop(fmt.Sprintf("req:%p", e.Task))
			return
		}
		r := m.requestorRow(e.Task)
		switch e.Kind {
		case client.TaskProgress:
			r.progress = e.Progress
		case client.TaskInput:
			r.request = e.Request
		case client.TaskResult:
			r.result, _ = json.Marshal(e.Result)
			m.end(r, e.Time)
		case client.TaskError:
			r.err = e.Err
			m.end(r, e.Time)
		case client.TaskGone:
			r.gone, r.err = true, e.Err
			m.end(r, e.Time)
		}
	case *client.RequestEvent:
		req := e.Request
		switch {
		case req.Task != "":
			r := m.receiverRow(req.Task)
			r.name = req.Method
			r.request = req
			if e.Settled {
				r.request = nil
			}
		case req.RelatedTask != "":
			for _, r := range m.rows {
				if r.role == Requestor && r.id == req.RelatedTask && r.gen == m.gen {
					r.request = req
					if e.Settled {
						r.request = nil
					}
				}
			}
		}
	case *client.ReceiverPollEvent:
		r := m.receiverRow(e.Task.TaskID)
		r.polls, r.state = e.Polls, e.Task
		if e.Request != nil {
			r.name = e.Request.Method
		}
	case *client.ReceiverResultEvent:
		// The answer shows once it has gone back to the server.
		r := m.receiverRow(e.Task)
		if e.Err != nil {
			r.err = e.Err
			r.errJSON, _ = json.Marshal(e.Err)
		} else {
			r.result = e.Result
		}
		r.outcome = true
	}
}

func (m *Model) add(r *row) {
	m.rows = append(m.rows, r)
	m.byKey[r.key] = r
}

func (m *Model) requestorRow(t *client.Task) *row {
	k := fmt.Sprintf("req:%p", t)
	if r := m.byKey[k]; r != nil {
		return r
	}
	r := &row{key: k, role: Requestor, gen: m.gen, task: t, name: t.Tool, started: t.Started, state: t.State(), id: t.ID()}
	// A task found with tasks/list before is the same task: take its place.
	for i, x := range m.rows {
		if x.task == nil && x.role == Requestor && x.id == r.id && x.gen == r.gen {
			m.rows[i] = r
			delete(m.byKey, x.key)
			m.byKey[k] = r
			return r
		}
	}
	m.add(r)
	return r
}

func (m *Model) receiverRow(id string) *row {
	k := fmt.Sprintf("recv:%d:%s", m.gen, id)
	if r := m.byKey[k]; r != nil {
		return r
	}
	r := &row{key: k, id: id, role: Receiver, gen: m.gen, name: "(server task)", state: mcp.Task{TaskID: id}}
	m.add(r)
	return r
}

func (m *Model) end(r *row, at time.Time) {
	r.outcome = true
	if r.ended.IsZero() {
		r.ended = at
	}
}

// refresh reads the tasks' current state from the session: requestor tasks from the
// tasks the session follows, receiver tasks from the session's task engine.
func (m *Model) refresh() {
	if m.sess == nil {
		return
	}
	for _, t := range m.sess.Tasks() {
		m.requestorRow(t)
	}
	live := map[string]mcp.Task{}
	for _, t := range m.sess.ReceiverTasks() {
		live[t.TaskID] = t
		m.receiverRow(t.TaskID)
	}
	now := m.now()
	over := sessionOver(m.sess)
	for _, r := range m.rows {
		switch {
		case r.task != nil:
			r.state = r.task.State()
			r.id = r.state.TaskID
			r.polls = r.task.Polls()
			select {
			case <-r.task.Done():
				if !r.outcome {
					res, err := r.task.Outcome()
					if res != nil {
						r.result, _ = json.Marshal(res)
					}
					r.err = err
					if errors.Is(err, client.ErrTaskGone) {
						r.gone = true
					}
					m.end(r, now)
				}
			default:
			}
		case r.role == Receiver && r.gen == m.gen:
			if t, ok := live[r.id]; ok {
				r.state = t
				if c, err := mcp.ParseTime(t.CreatedAt); err == nil {
					r.started = c
				}
			} else if r.state.Status != "" && !r.gone && !over {
				r.gone = true // expired: its TTL ran out
				if !r.state.Status.IsTerminal() {
					m.end(r, now)
				}
			}
		}
		if !r.lost && (over || r.gen != m.gen) && !r.gone && !r.state.Status.IsTerminal() && r.result == nil {
			// Its session ended (the server went, or a reconnection replaced it) before
			// the task did: its fate is unknown, and no one follows it.
			r.lost = true
			if r.ended.IsZero() {
				r.ended = now
			}
		}
		if r.state.Status.IsTerminal() && r.ended.IsZero() {
			r.ended = now
			if u, err := mcp.ParseTime(r.state.LastUpdatedAt); err == nil && !u.Before(r.started) && !u.After(now) {
				r.ended = u
			}
		}
		if r.request != nil && isDone(r.request) {
			r.request = nil
		}
	}
	m.trim()
	m.cursor = max(min(m.cursor, len(m.rows)-1), 0)
	if m.mode != modeTable && m.selected() != nil {
		m.pager.SetLines(m.detailLines(m.selected()))
	}
}

// sessionOver reports whether s has ended.
func sessionOver(s *client.Session) bool { return s != nil && s.Err() != nil }

// sessionName names the session of r for a sentence: "the old session" once another has
// replaced it, else "its session, which has ended" or "its session".
func (m *Model) sessionName(r *row) string {
	switch {
	case r.gen != m.gen:
		return "the old session"
	case sessionOver(m.sess):
		return "its session, which has ended"
	}
	return "its session"
}

// lostStatus stands in for the status of a task whose session ended before it did.
const lostStatus = "⊗ lost"

// statusText is the status as words: the task status, "expired" or "lost".
func (m *Model) statusText(r *row) string {
	if r.lost {
		return "lost"
	}
	if r.gone && !r.state.Status.IsTerminal() {
		return "expired"
	}
	if r.state.Status == "" {
		return "starting"
	}
	return string(r.state.Status)
}

func (m *Model) renderStatus(r *row) string {
	if r.lost {
		return ui.Warn.Render(lostStatus)
	}
	if r.gone && !r.state.Status.IsTerminal() {
		return ui.Dim.Render(look.Expired)
	}
	if r.outcome && r.err != nil && !r.state.Status.IsTerminal() {
		return ui.Error.Render(look.Symbol(mcp.TaskStatusFailed) + " " + string(r.state.Status) + "?")
	}
	return ui.RenderStatus(r.state.Status)
}

func (m *Model) elapsed(r *row) string {
	if r.started.IsZero() {
		return "-"
	}
	end := r.ended
	if end.IsZero() {
		end = m.now()
	}
	return look.Duration(end.Sub(r.started))
}

// ttlLeft is the time the task's receiver keeps it yet: "-" once its session has ended,
// as the TTL counted on a server (or in mcpi) that no longer holds it for this client.
func (m *Model) ttlLeft(r *row) string {
	if r.state.TaskID == "" || r.state.CreatedAt == "" || r.lost || r.gen != m.gen || sessionOver(m.sess) {
		return "-"
	}
	if r.state.TTL == nil {
		return "∞"
	}
	at, ok := r.state.ExpiresAt()
	if !ok {
		return "-"
	}
	left := at.Sub(m.now())
	switch {
	case left <= 0 || r.gone:
		return "0s"
	case left < time.Second:
		return "<1s" // not "0ms": zero reads one way, "0s"
	}
	return look.Duration(left.Truncate(time.Second))
}

func progressText(p *mcp.ProgressNotificationParams) string {
	if p == nil {
		return "-"
	}
	return look.Progress(p.Progress, p.Total, progWidth)
}

func (m *Model) messageText(r *row) string {
	if r.lost {
		msg := "lost with " + m.sessionName(r)
		if r.err != nil {
			msg += " (" + look.Sentence(r.err) + ")"
		}
		return msg
	}
	if r.state.Status == mcp.TaskStatusCancelled && r.state.StatusMessage != "" {
		return r.state.StatusMessage
	}
	if r.err != nil && r.outcome {
		if rpc := asRPC(r.err); rpc != nil {
			return fmt.Sprintf("error %d: %s", rpc.Code, rpc.Message)
		}
		return look.Sentence(r.err)
	}
	if r.state.StatusMessage != "" {
		return r.state.StatusMessage
	}
	if r.progress != nil && r.progress.Message != "" {
		return r.progress.Message
	}
	if r.request != nil {
		return "waits on " + requestSummary(r.request)
	}
	return ""
}
