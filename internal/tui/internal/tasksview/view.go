package tasksview

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/look"
	"github.com/mcpi-dev/mcpi/internal/tui/internal/ui"
	"github.com/mcpi-dev/mcpi/mcp"
)

func requestSummary(r *client.Request) string {
	return ui.RequestKind(r) + " “" + ui.RequestSummary(r) + "”"
}

// column is one column of the table; cells are cut to its width.
type column struct {
	title string
	width int
	right bool
	cell  func(m *Model, r *row, w int) string // w: the column's width
}

var allColumns = []column{
	{"ID", 8, false, func(m *Model, r *row, _ int) string { return look.ShortID(r.id) }},
	{"TOOL / METHOD", 0, false, func(m *Model, r *row, w int) string { return r.nameCell(w) }},
	{"STATUS", 16, false, func(m *Model, r *row, _ int) string { return m.renderStatus(r) }},
	{"MESSAGE", 0, false, func(m *Model, r *row, _ int) string { return ui.OneLine(m.messageText(r)) }},
	{"PROG", progWidth, true, func(m *Model, r *row, _ int) string { return progressText(r.progress) }},
	{"ELAPSED", 7, true, func(m *Model, r *row, _ int) string { return m.elapsed(r) }},
	{"TTL LEFT", 8, true, func(m *Model, r *row, _ int) string { return m.ttlLeft(r) }},
	{"POLLS", 5, true, func(m *Model, r *row, _ int) string { return fmt.Sprint(r.polls) }},
}

// nameCell is the TOOL / METHOD cell in w cells: the arrow, the name, and the dialect's
// tag; a name too long is cut in the middle, so that names that differ at their ends
// (trigger-sampling-request, trigger-sampling-request-async) stay told apart.
func (r *row) nameCell(w int) string {
	tag := r.dialectTag()
	return r.role.arrow() + " " + ui.CutMiddle(r.name, w-2-ui.Width(tag)) + tag
}

// nameWidth is the cells the TOOL / METHOD cell of r takes whole.
func (r *row) nameWidth() int { return 2 + ui.Width(r.name) + ui.Width(r.dialectTag()) }

// progWidth is the PROG column's: progressText fits the server's numbers in it.
const progWidth = 6

// Widths of the flexible columns.
const (
	toolMin  = 12
	toolMax  = 22 // TOOL / METHOD's width, unless its names need more
	toolWide = 40 // the most it takes for its names
	messMin  = 10
	messRoom = 24 // what MESSAGE keeps when TOOL / METHOD takes more than toolMax
	colGap   = 1
	cursorW  = 2
	minTable = 40
)

// columns fits the table to w cells, whose longest TOOL / METHOD cell takes names
// cells. TOOL / METHOD and MESSAGE share what the fixed columns leave: TOOL / METHOD
// takes toolMax, or up to names (at most toolWide) while MESSAGE keeps messRoom; when
// there is not room for both, MESSAGE goes (the lines under the table show the selected
// task's message), and on very narrow screens POLLS, TTL LEFT and PROG go too.
func columns(w, names int) []column {
	cols := append([]column(nil), allColumns...)
	drop := []string{"POLLS", "TTL LEFT", "PROG"}
	for {
		fixed := cursorW
		for _, c := range cols {
			if c.width > 0 {
				fixed += c.width + colGap
			}
		}
		rest := w - fixed
		if rest >= toolMin+colGap || len(drop) == 0 {
			tool, msg := rest-colGap, 0
			if rest >= toolMax+messMin+2*colGap {
				tool = max(toolMax, min(names, toolWide, rest-messRoom-2*colGap))
				msg = rest - tool - 2*colGap
			}
			out := cols[:0:0]
			for _, c := range cols {
				switch c.title {
				case "TOOL / METHOD":
					c.width = max(tool, 4)
				case "MESSAGE":
					if msg <= 0 {
						continue
					}
					c.width = msg
				}
				out = append(out, c)
			}
			return out
		}
		for i := range cols {
			if cols[i].title == drop[0] {
				cols = append(cols[:i], cols[i+1:]...)
				break
			}
		}
		drop = drop[1:]
	}
}

func renderCells(cols []column, cells []string) string {
	var b strings.Builder
	for i, c := range cols {
		if c.width <= 0 {
			continue
		}
		s := cells[i]
		if c.right {
			s = ui.Cut(s, c.width)
			s = strings.Repeat(" ", max(c.width-ui.Width(s), 0)) + s
		} else {
			s = ui.Fit(s, c.width)
		}
		b.WriteString(s)
		b.WriteString(" ")
	}
	return b.String()
}

// tableTop is the line of the first task row, below the summary and the heading.
func (m *Model) tableTop() int { return 2 }

// tableHeight is the number of task rows shown: what is left under the heading, less
// the two lines about the selected task.
func (m *Model) tableHeight() int { return max(m.height-m.tableTop()-3, 1) }

// View renders the view.
func (m *Model) View() string {
	w, h := m.width, m.height
	if w <= 0 || h <= 0 {
		return ""
	}
	switch m.mode {
	case modeDetail:
		return m.detailView(w, h)
	case modeConfirm:
		return m.confirmView(w, h)
	}
	return m.tableView(w, h)
}

func (m *Model) summary() string {
	counts := map[string]int{}
	var order []string
	for _, r := range m.rows {
		s := m.statusText(r)
		if counts[s] == 0 {
			order = append(order, s)
		}
		counts[s]++
	}
	var parts []string
	for _, s := range order {
		parts = append(parts, fmt.Sprintf("%d %s", counts[s], s))
	}
	head := fmt.Sprintf("%d tasks", len(m.rows))
	if len(m.rows) == 1 {
		head = "1 task"
	}
	if len(parts) > 0 {
		head += ": " + strings.Join(parts, " · ")
	}
	head = ui.Bold.Render(head)
	if legend := ui.Dim.Render("   → asked of the server  ← asked by the server"); ui.Width(head+legend) <= m.width {
		head += legend
	}
	return head
}

func (m *Model) tableView(w, h int) string {
	lines := []string{m.summary()}
	if len(m.rows) == 0 {
		lines = append(lines, "",
			"No tasks yet.",
			"",
			ui.Dim.Render("Call a tool as a task in Tools (press 1): slow_task, ask_task and the other *_task tools"),
			ui.Dim.Render("of the demo server. Sampling and elicitation that a server asks mcpi to run as tasks"),
			ui.Dim.Render("appear here too, marked ←."))
		return ui.Block(lines, w, h)
	}
	names := 0
	for _, r := range m.rows {
		names = max(names, r.nameWidth())
	}
	cols := columns(w, names)
	titles := make([]string, len(cols))
	for i, c := range cols {
		titles[i] = c.title
	}
	lines = append(lines, ui.Dim.Render("  "+renderCells(cols, titles)))
	th := m.tableHeight()
	m.offset = ui.Window(m.offset, m.cursor, len(m.rows), th)
	end := min(m.offset+th, len(m.rows))
	for i := m.offset; i < end; i++ {
		r := m.rows[i]
		cells := make([]string, len(cols))
		for j, c := range cols {
			cells[j] = c.cell(m, r, c.width)
		}
		line := renderCells(cols, cells)
		if r.gen != m.gen {
			// Dimmed whole: the cells' own styles go, their padding stays (the cells
			// have been through ui.Fit, so nothing in them is obeyed).
			line = ui.Dim.Render(ui.Strip(line))
		}
		if i == m.cursor {
			line = ui.Accent.Render("▸ ") + line
		} else {
			line = "  " + line
		}
		lines = append(lines, line)
	}
	lines = append(lines, ui.Dim.Render(strings.Repeat("─", w)))
	lines = append(lines, m.selectedLines(w)...)
	return ui.Block(lines, w, h)
}

// selectedLines are the two lines under the table about the selected task.
func (m *Model) selectedLines(w int) []string {
	r := m.selected()
	if r == nil {
		return nil
	}
	first := ui.Bold.Render(look.ShortID(r.id)) + " " + r.name + ": " + m.renderStatus(r)
	if msg := m.messageText(r); msg != "" {
		first += " — " + ui.OneLine(msg)
	}
	var second string
	switch {
	case r.lost:
		second = ui.Warn.Render("lost with "+m.sessionName(r)) + ui.Dim.Render(": mcpi no longer follows it, and cannot tell how it ended")
	case m.pendingRequest(r) != nil:
		second = ui.Warn.Render("waits on " + requestSummary(m.pendingRequest(r)) + ": press p to answer it")
	case r.outcome && r.err == nil && r.result != nil:
		second = withHint(ui.OK.Render("result: "), resultSummary(r), enterHint, w)
	case r.outcome && r.err != nil:
		second = withHint(ui.Error.Render("error: "), ui.Error.Render(look.Sentence(r.err)), enterHint, w)
	case r.gen != m.gen:
		second = ui.Dim.Render("from an earlier session")
	case m.noCancel(r) != "":
		second = ui.Dim.Render("enter: details   (no cancel: " + m.noCancel(r) + ")")
	default:
		second = ui.Dim.Render("enter: details   c: cancel")
	}
	return []string{first, second}
}

// enterHint ends the line under the table about an outcome.
var enterHint = ui.Dim.Render("  (enter shows it)")

// withHint is label, text cut to what is left of w cells, and hint, kept whole.
func withHint(label, text, hint string, w int) string {
	return label + ui.Cut(text, w-ui.Width(label)-ui.Width(hint)) + hint
}

func (m *Model) confirmView(w, h int) string {
	r := m.selected()
	if r == nil {
		return ui.Block(nil, w, h)
	}
	var q string
	if r.role == Receiver {
		q = fmt.Sprintf("Decline the server's %s, ending mcpi's task %s?", r.name, look.ShortID(r.id))
	} else {
		q = fmt.Sprintf("Cancel task %s (%s)? The server is asked with tasks/cancel.", look.ShortID(r.id), r.name)
	}
	lines := []string{"", ui.Warn.Render(q), "", "  " + ui.Key.Render("y") + " yes    " + ui.Key.Render("n") + " no"}
	return ui.Block(lines, w, h)
}

func (m *Model) detailView(w, h int) string {
	return m.pager.View(w, h)
}

// detailLines describe a task: its fields, what it waits on, and its outcome as
// highlighted JSON.
func (m *Model) detailLines(r *row) []string {
	role := "asked of the server (mcpi is the requestor)"
	method := "tools/call " + r.name
	if r.role == Receiver {
		role = "asked by the server (mcpi is the receiver)"
		method = r.name
	}
	field := func(name, value string) string { return ui.Dim.Render(ui.Fit(name, 13)) + value }
	st := r.state
	lines := []string{
		ui.Title.Render("Task "+r.id) + "  " + r.role.arrow() + " " + method,
		field("Role", role),
		field("Dialect", string(r.dialect())),
		field("Status", m.renderStatus(r)),
	}
	if st.StatusMessage != "" {
		lines = append(lines, field("Message", st.StatusMessage))
	}
	lines = append(lines,
		field("Created", orDash(st.CreatedAt)),
		field("Updated", orDash(st.LastUpdatedAt)),
		field("Elapsed", m.elapsed(r)),
	)
	ttl := look.TTL(st.TTL)
	if left := m.ttlLeft(r); st.TTL != nil && left != "-" {
		ttl += " (" + left + " left)"
	}
	lines = append(lines, field("TTL", ttl))
	if st.PollInterval != nil {
		lines = append(lines, field("Poll every", look.Duration(mcp.Milliseconds(*st.PollInterval))))
	}
	polls := fmt.Sprintf("%d tasks/get sent by mcpi", r.polls)
	if r.role == Receiver {
		polls = fmt.Sprintf("%d tasks/get received from the server", r.polls)
	}
	lines = append(lines, field("Polls", polls))
	if r.progress != nil {
		p := progressText(r.progress)
		if r.progress.Message != "" {
			p += "  " + r.progress.Message
		}
		lines = append(lines, field("Progress", p))
	}
	if req := m.pendingRequest(r); req != nil {
		lines = append(lines, field("Waits on", ui.Warn.Render(requestSummary(req))+"  "+ui.Key.Render("p")+" answers it"))
	}
	if why := m.noCancel(r); why != "" && !r.isEnded() {
		lines = append(lines, field("Cancel", "not offered: "+why))
	}
	if r.lost {
		lines = append(lines, field("Lost", "with "+m.sessionName(r)+", before it ended: mcpi no longer follows it, and cannot tell how it ended"))
	}
	if r.gone {
		lines = append(lines, field("Gone", "the receiver no longer knows this task (its TTL ran out, or it restarted)"))
	}
	if r.gen != m.gen {
		lines = append(lines, field("Session", "an earlier session; its state is the last one seen"))
	}
	lines = append(lines, "")
	switch {
	case r.result != nil:
		label, heading := "Result", ui.Heading
		if r.role == Receiver {
			label = "Answer sent to the server (tasks/result)"
		}
		o := r.outcomeView()
		if r.role == Requestor && o.isError() {
			// One style: an underlined style splits what it styles into characters, an
			// escape sequence too.
			label, heading = "Result (isError: the tool reports a failure)", ui.Heading.Foreground(ui.Red)
		}
		lines = append(lines, heading.Render(label))
		if read := o.readLines(r); read != nil && !m.rawJSON {
			lines = append(lines, read...)
		} else {
			lines = append(lines, o.jsonLines(r)...)
		}
	case st.Status == mcp.TaskStatusCancelled:
		lines = append(lines, ui.Heading.Render("Cancelled"), ui.Dim.Render("A cancelled task has no result."))
	case r.err != nil:
		lines = append(lines, ui.Heading.Render("Error"), ui.Error.Render(look.Sentence(r.err)))
		lines = append(lines, r.outcomeView().jsonLines(r)...)
	case st.Status.IsTerminal():
		lines = append(lines, ui.Dim.Render("fetching the outcome (tasks/result)…"))
	default:
		lines = append(lines, ui.Dim.Render("no outcome yet"))
	}
	return lines
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// resultSummary is a task's outcome in one line: a tool result's text, or the answer
// sent to the server without its _meta.
func resultSummary(r *row) string {
	o := r.outcomeView()
	if !o.summarized {
		o.summary, o.summarized = summarize(r), true
	}
	return o.summary
}

func summarize(r *row) string {
	if r.role == Requestor {
		var res mcp.CallToolResult
		if jsonUnmarshal(r.result, &res) == nil {
			var texts []string
			for _, c := range res.Content {
				if c.Type == mcp.ContentTypeText {
					texts = append(texts, c.Text)
				}
			}
			if len(texts) > 0 {
				s := ui.OneLine(strings.Join(texts, " "))
				if res.IsError {
					s = ui.Error.Render("isError: " + s)
				}
				return s
			}
		}
	}
	var obj map[string]json.RawMessage
	if jsonUnmarshal(r.result, &obj) == nil {
		delete(obj, "_meta")
		if b, err := jsonMarshal(obj); err == nil {
			return string(b)
		}
	}
	return ui.OneLine(string(r.result))
}

// dialect is the task protocol the row's task follows: a task mcpi hosts for the server
// exists only in the core Tasks of 2025-11-25.
func (r *row) dialect() client.Dialect {
	if r.task != nil {
		return r.task.Dialect()
	}
	return client.DialectCore
}

// dialectTag marks, in the table, a task of the Tasks extension of 2026-07-28; the core
// Tasks of 2025-11-25 go unmarked.
func (r *row) dialectTag() string {
	if r.dialect() == client.DialectExtension {
		return ui.Dim.Render(" (ext)")
	}
	return ""
}

// outcomeView is a row's outcome as the details and the table show it, made once per
// outcome: they are laid out again at every tick and every batch of events, and a
// server's result can be megabytes of JSON (highlighting 3 MB took seconds).
type outcomeView struct {
	result, errJSON json.RawMessage
	err             error

	checked, isErr bool
	lined          bool
	lines          []string // the result, or the error, as highlighted JSON
	summarized     bool
	summary        string
	read           bool
	readable       []string // a tool's result for reading; nil for another outcome
}

// outcomeView is r's outcome view, made anew when the outcome is another.
func (r *row) outcomeView() *outcomeView {
	o := r.shown
	if o == nil || !sameJSON(o.result, r.result) || !sameJSON(o.errJSON, r.errJSON) || !sameErr(o.err, r.err) {
		o = &outcomeView{result: r.result, errJSON: r.errJSON, err: r.err}
		r.shown = o
	}
	return o
}

// isError reports whether the result is a tool result with isError set.
func (o *outcomeView) isError() bool {
	if !o.checked {
		var res mcp.CallToolResult
		o.checked, o.isErr = true, jsonUnmarshal(o.result, &res) == nil && res.IsError
	}
	return o.isErr
}

// readLines are a tool's result for reading, as the Tools view shows it (its content
// blocks as the CLI writes them), or nil when the outcome is no tool result (the answer
// mcpi sent for a receiver task, an error): that one is shown as JSON only.
func (o *outcomeView) readLines(r *row) []string {
	if !o.read {
		o.read = true
		var res mcp.CallToolResult
		if r.role == Requestor && o.result != nil && jsonUnmarshal(o.result, &res) == nil {
			o.readable = ui.ToolResultLines(&res)
		}
	}
	return o.readable
}

// jsonLines are the result, or else the error object, highlighted.
func (o *outcomeView) jsonLines(r *row) []string {
	if !o.lined {
		o.lined = true
		switch {
		case o.result != nil:
			o.lines = ui.HighlightJSON(o.result)
		case o.errJSON != nil:
			o.lines = ui.HighlightJSON(o.errJSON)
		case o.err != nil:
			if rpc := asRPC(o.err); rpc != nil {
				b, _ := jsonMarshal(rpc)
				o.lines = ui.HighlightJSON(b)
			}
		}
	}
	return o.lines
}

// sameJSON reports whether a and b are the same bytes in memory (not merely equal).
func sameJSON(a, b json.RawMessage) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// sameErr reports whether a and b are the same error value; an error whose type cannot
// be compared is never the same.
func sameErr(a, b error) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	return va.Type() == vb.Type() && va.Comparable() && va.Equal(vb)
}
