package toolsview

import (
	"fmt"
	"strings"

	"github.com/mcpi-dev/mcpi/internal/cut"
	"github.com/mcpi-dev/mcpi/internal/look"
	"github.com/mcpi-dev/mcpi/internal/tui/internal/ui"
	"github.com/mcpi-dev/mcpi/mcp"
)

// supportTag is a tool's taskSupport as the list shows it.
func supportTag(t *mcp.Tool) string {
	raw := ""
	if t.Execution != nil {
		raw = string(t.Execution.TaskSupport)
	}
	switch t.TaskSupport() {
	case mcp.TaskSupportRequired:
		return ui.Warn.Render("required")
	case mcp.TaskSupportOptional:
		return ui.Accent.Render("optional")
	}
	if raw == "" {
		return ui.Dim.Render("-")
	}
	return ui.Dim.Render("forbidden")
}

// supportWords explains what a tool's taskSupport means for the calls offered.
func supportWords(t *mcp.Tool, serverTakesTasks bool) string {
	switch t.TaskSupport() {
	case mcp.TaskSupportRequired:
		return "only runs as a task"
	case mcp.TaskSupportOptional:
		if !serverTakesTasks {
			return "the server declares no tool tasks: plain call only"
		}
		return "runs plainly or as a task"
	}
	if t.Execution == nil || t.Execution.TaskSupport == "" {
		return "not declared, so forbidden: plain call only"
	}
	return "plain call only"
}

// listW is the width of the list beside the pane: listWidth, or more for long names
// while the pane keeps two thirds of the screen (its schema, form and result need the
// room); a name longer than that is cut in the middle.
func (m *Model) listW() int {
	if m.width < 70 {
		if m.mode == modeList {
			return m.width
		}
		return 0
	}
	longest := 0
	for i := range m.tools {
		longest = max(longest, ui.Width(m.tools[i].Name))
	}
	return min(max(listWidth, longest+listChrome), m.width/3+4)
}

// listChrome is what a row of the list takes besides the name: the cursor, the space and
// task column after it, and the border.
const listChrome = 13

// View renders the list on the left and the selected tool, its form or its result on
// the right (on narrow screens, one at a time).
func (m *Model) View() string {
	w, h := m.width, m.height
	if w <= 0 || h <= 0 {
		return ""
	}
	lw := m.listW()
	if lw >= w {
		return m.listView(w, h)
	}
	right := m.paneView(w-lw, h)
	if lw == 0 {
		return right
	}
	left := strings.Split(m.listView(lw-1, h), "\n")
	rl := strings.Split(right, "\n")
	out := make([]string, h)
	for i := range out {
		out[i] = left[i] + ui.Dim.Render("│") + rl[i]
	}
	return strings.Join(out, "\n")
}

func (m *Model) listView(w, h int) string {
	head := ui.Count(len(m.tools), "tool", "tools")
	if m.loading && m.tools == nil {
		head = "listing tools…"
	}
	// In 2026-07-28 tools say nothing of tasks (the server decides per call): no column
	// that would read the same on every row.
	modern := m.sess.Modern()
	lines := []string{ui.Dim.Render(ui.Fit(head, w-10) + " TASK")}
	if modern {
		lines = []string{ui.Dim.Render(ui.Fit(head, w-2))}
	}
	if m.loadErr != nil {
		// Wrapped, not cut: the list is narrow, and why the tools could not be listed
		// (a login that failed, say) is told in a sentence that needs its end.
		why := ui.Wrap(ui.OneLine(look.Sentence(m.loadErr)), max(w-1, 8))
		if most := max(h/2, 1); len(why) > most {
			why = append(why[:most-1], ui.Cut(why[most-1]+"…", max(w-1, 8)))
		}
		for _, l := range why {
			lines = append(lines, ui.Error.Render(l))
		}
	}
	lh := h - len(lines)
	m.offset = ui.Window(m.offset, m.cursor, len(m.tools), lh)
	for i := m.offset; i < min(m.offset+lh, len(m.tools)); i++ {
		t := &m.tools[i]
		name, tag := ui.FitMiddle(t.Name, max(w-12, 4)), " "+m.tag(t)
		if modern {
			name, tag = ui.FitMiddle(t.Name, max(w-3, 4)), ""
		}
		line := "  " + name + tag
		if i == m.cursor {
			line = ui.Accent.Render("▸ ") + ui.Bold.Render(name) + tag
		}
		lines = append(lines, line)
	}
	return ui.Block(lines, w, h)
}

func (m *Model) paneView(w, h int) string {
	pad := func(s string) string { return " " + s }
	switch m.mode {
	case modeForm:
		head := []string{
			pad(ui.Title.Render("tools/call "+m.tool.Name) + "  " + m.support(m.tool)),
		}
		if m.tool.Description != "" {
			desc := ui.Wrap(ui.OneLine(m.tool.Description), w-2)
			if len(desc) > 2 {
				desc = append(desc[:1], ui.Cut(desc[1]+"…", w-2)) // one ellipsis, cut or not
			}
			for _, l := range desc {
				head = append(head, pad(ui.Dim.Render(l)))
			}
		}
		head = append(head, "")
		body := strings.Split(m.form.View(w-1, h-len(head)), "\n")
		for i := range body {
			body[i] = pad(body[i])
		}
		return ui.Block(append(head, body...), w, h)
	case modeResult:
		head := []string{pad(m.title)}
		body := strings.Split(m.pager.View(w-1, h-1), "\n")
		for i := range body {
			body[i] = pad(body[i])
		}
		return ui.Block(append(head, body...), w, h)
	}
	if m.cursor >= len(m.tools) {
		return ui.Block(nil, w, h)
	}
	return ui.Block(m.detailLines(&m.tools[m.cursor], w-1, h), w, h)
}

// detailLines describe a tool in at most about h lines. The view is drawn at every key
// and every second: the tool's schema is read once, not at each drawing, and only as
// much of a long description and of a long list of arguments as fits is laid out.
func (m *Model) detailLines(t *mcp.Tool, w, h int) []string {
	pad := func(s string) string { return " " + s }
	lines := []string{pad(ui.Title.Render(t.DisplayName()) + ui.Dim.Render("  "+t.Name))}
	for _, l := range ui.Wrap(ui.OneLine(cut.Bytes(t.Description, 16*max(w, 1)*max(h, 1))), w) {
		lines = append(lines, pad(l))
	}
	if m.sess.Modern() {
		// Tools say nothing of tasks in 2026-07-28: what there is to say is the server's.
		lines = append(lines, "", pad(ui.Bold.Render("tasks: ")+ui.Dim.Render(m.words(t))))
	} else {
		lines = append(lines, "", pad(ui.Bold.Render("execution.taskSupport ")+m.tag(t)), pad(ui.Dim.Render(m.words(t))))
	}
	if a := t.Annotations; a != nil {
		var hints []string
		for _, h := range []struct {
			name string
			v    *bool
		}{{"read-only", a.ReadOnlyHint}, {"destructive", a.DestructiveHint}, {"idempotent", a.IdempotentHint}, {"open-world", a.OpenWorldHint}} {
			if h.v != nil {
				if *h.v {
					hints = append(hints, h.name)
				} else {
					hints = append(hints, "not "+h.name)
				}
			}
		}
		if len(hints) > 0 {
			lines = append(lines, pad(ui.Dim.Render("hints: "+strings.Join(hints, ", "))))
		}
	}
	if m.detailOf != t {
		m.detailOf = t
		m.detailFields, _ = formFields(t)
	}
	fields := m.detailFields
	if len(fields) > 0 {
		lines = append(lines, "", pad(ui.Bold.Render("Arguments")))
		for i, f := range fields {
			if len(lines) >= h && len(fields)-i > 1 {
				lines = append(lines, pad(ui.Dim.Render(fmt.Sprintf("  … %d more", len(fields)-i))))
				break
			}
			name := f.Name
			if f.Required {
				name += "*"
			}
			lines = append(lines, pad("  "+ui.Accent.Render(name)+" "+ui.Dim.Render(f.Hint)))
		}
	} else {
		lines = append(lines, "", pad(ui.Dim.Render("No arguments.")))
	}
	lines = append(lines, "", pad(ui.Dim.Render("enter opens the form")))
	return lines
}

// tag is supportTag in the session's era: in 2026-07-28 tools say nothing of tasks, and
// there is no tag ([Model.words] says what the server does).
func (m *Model) tag(t *mcp.Tool) string {
	if m.sess.Modern() {
		return ""
	}
	return supportTag(t)
}

// support is the tag and the words of a tool's task support, for the form's header.
func (m *Model) support(t *mcp.Tool) string {
	if tag := m.tag(t); tag != "" {
		return tag + " " + ui.Dim.Render(m.words(t))
	}
	return ui.Dim.Render(m.words(t))
}

// words is supportWords in the session's era.
func (m *Model) words(t *mcp.Tool) string {
	if m.sess.Modern() {
		if _, ok := m.sess.ServerCapabilities().Extensions[mcp.ExtensionTasks]; !ok {
			return "no tasks: the server declares no tasks extension, so it answers every call at once"
		}
		return "the server decides per call (Tasks extension of 2026-07-28): a call it makes a task moves to the Tasks view"
	}
	return supportWords(t, m.declared())
}
