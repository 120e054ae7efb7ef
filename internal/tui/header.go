package tui

import (
	"maps"
	"slices"
	"strings"

	"github.com/mcpi-dev/mcpi/internal/tui/internal/ui"
	"github.com/mcpi-dev/mcpi/mcp"
)

// Dialect names the task dialect a session speaks.
func Dialect(init *mcp.InitializeResult) string {
	if init == nil {
		return "unknown"
	}
	switch {
	case mcp.IsModernProtocolVersion(init.ProtocolVersion):
		if _, ok := init.Capabilities.Extensions[mcp.ExtensionTasks]; !ok {
			return "no tasks: the server declares no tasks extension (" + mcp.ExtensionTasks + ")"
		}
		return "2026-07-28 tasks extension"
	case init.ProtocolVersion < mcp.LatestProtocolVersion:
		return "none (protocol " + init.ProtocolVersion + " has no tasks)"
	case init.Capabilities.Tasks == nil:
		return "no tasks: the server declares no tasks capability (2025-11-25 core tasks)"
	}
	return "2025-11-25 core tasks"
}

// shortDialect is [Dialect] in a few words, for a header with little room: "tasks
// extension", "core tasks" or "no tasks" (the help screen says why).
func shortDialect(init *mcp.InitializeResult) string {
	d := Dialect(init)
	switch {
	case d == "unknown":
		return "tasks unknown"
	case strings.HasPrefix(d, "no tasks"), strings.HasPrefix(d, "none"):
		return "no tasks"
	case strings.HasSuffix(d, "tasks extension"):
		return "tasks extension"
	}
	return "core tasks"
}

func (m *Model) serverName() string {
	if init := m.sess.InitializeResult(); init != nil && init.ServerInfo.Name != "" {
		return init.ServerInfo.Name
	}
	return m.opts.Server
}

// ServerCapabilityList names what the server declared.
func ServerCapabilityList(c *mcp.ServerCapabilities) string {
	var parts []string
	if t := c.Tasks; t != nil {
		parts = append(parts, "tasks"+flags(t.List != nil, "list", t.Cancel != nil, "cancel", t.SupportsToolCall(), "tools/call"))
	}
	for _, id := range slices.Sorted(maps.Keys(c.Extensions)) {
		parts = append(parts, "extension "+id)
	}
	if c.Tools != nil {
		parts = append(parts, "tools")
	}
	if c.Prompts != nil {
		parts = append(parts, "prompts")
	}
	if c.Resources != nil {
		parts = append(parts, "resources"+flags(c.Resources.Subscribe, "subscribe"))
	}
	if c.Logging != nil {
		parts = append(parts, "logging")
	}
	if c.Completions != nil {
		parts = append(parts, "completions")
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, " ")
}

// ClientCapabilityList names what mcpi declared.
func ClientCapabilityList(c *mcp.ClientCapabilities) string {
	if c == nil {
		return "unknown"
	}
	var parts []string
	if t := c.Tasks; t != nil {
		parts = append(parts, "tasks"+flags(t.List != nil, "list", t.Cancel != nil, "cancel",
			t.SupportsSamplingCreateMessage(), "sampling", t.SupportsElicitationCreate(), "elicitation"))
	}
	if c.Roots != nil {
		parts = append(parts, "roots")
	}
	if c.Sampling != nil {
		parts = append(parts, "sampling")
	}
	if e := c.Elicitation; e != nil {
		parts = append(parts, "elicitation"+flags(e.SupportsForm(), "form", e.SupportsURL(), "url"))
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, " ")
}

// clientCapabilities is ClientCapabilityList in the session's era: in 2026-07-28 core
// tasks are not declared, and every tool call declares the Tasks extension.
func (m *Model) clientCapabilities() string {
	c := m.opts.ClientCapabilities
	if c == nil || !m.sess.Modern() {
		return ClientCapabilityList(c)
	}
	modern := *c
	modern.Tasks = nil
	return ClientCapabilityList(&modern) + " extension " + mcp.ExtensionTasks + " (on tool calls)"
}

// flags renders "[a,b]" from (condition, name) pairs, or "" when none holds.
func flags(pairs ...any) string {
	var on []string
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i].(bool) {
			on = append(on, pairs[i+1].(string))
		}
	}
	if len(on) == 0 {
		return ""
	}
	return "[" + strings.Join(on, ",") + "]"
}

func (m *Model) headerView(w int) string {
	init := m.sess.InitializeResult()
	var state string
	switch {
	case m.conn == connected:
		state = ui.OK.Render("● connected")
	case m.conn == reconnecting && m.login != "":
		state = ui.Warn.Render("◌ authorization needed")
	case m.conn == reconnecting:
		state = ui.Warn.Render("◌ reconnecting…")
	case m.conn == unreachable:
		state = ui.Error.Render("○ unreachable")
	default:
		state = ui.Error.Render("○ disconnected")
	}
	name, version, proto := m.opts.Server, "", "?"
	if init != nil {
		name, version, proto = init.ServerInfo.Name, init.ServerInfo.Version, init.ProtocolVersion
	}
	sep := ui.Dim.Render(" · ")
	server := ui.Title.Render(name + " " + version)
	if m.opts.Transport != "" {
		server += sep + m.opts.Transport
	}
	// The longest of these that fits: labels go first, then the dialect's explanation
	// (the help screen has it), then the word "connected".
	short := state
	if m.conn == connected {
		short = ui.OK.Render("●")
	}
	dialect := Dialect(init)
	both := proto + sep + dialect
	if strings.HasPrefix(dialect, proto+" ") {
		both = dialect // "2025-11-25 core tasks" says the protocol too
	}
	brief := proto + sep + shortDialect(init)
	var first string
	for _, first = range []string{
		state + "  " + server + sep + ui.Dim.Render("protocol ") + proto + sep + ui.Dim.Render("tasks: ") + dialect,
		state + "  " + server + sep + proto + sep + dialect,
		state + "  " + server + sep + both,
		state + "  " + server + sep + brief,
		short + " " + server + sep + brief,
	} {
		if ui.Width(first) <= w {
			break
		}
	}
	second := ui.Dim.Render("server ") + ServerCapabilityList(m.sess.ServerCapabilities())
	third := ui.Dim.Render("mcpi   ") + m.clientCapabilities()
	return strings.Join([]string{ui.Fit(first, w), ui.Fit(second, w), ui.Fit(third, w)}, "\n")
}

// connectionLines describe the connection in full, wrapped (the help screen shows
// them; the header cuts them to one line each).
func (m *Model) connectionLines(w int) []string {
	init := m.sess.InitializeResult()
	var lines []string
	const labelW = len("Server has") + 1 // the widest label, and a gap
	add := func(label, text string) {
		for i, l := range ui.Wrap(text, max(w-labelW, 20)) {
			if i == 0 {
				lines = append(lines, ui.Dim.Render(ui.Fit(label, labelW))+l)
			} else {
				lines = append(lines, strings.Repeat(" ", labelW)+l)
			}
		}
	}
	if init != nil {
		add("Server", strings.TrimSpace(init.ServerInfo.Name+" "+init.ServerInfo.Version+" "+init.ServerInfo.Title))
		add("Protocol", init.ProtocolVersion+"; tasks: "+Dialect(init))
	}
	if m.opts.Server != "" || m.opts.Transport != "" {
		add("Reached", strings.TrimSpace(m.opts.Server+" ("+m.opts.Transport+")"))
	}
	add("Server has", ServerCapabilityList(m.sess.ServerCapabilities()))
	add("mcpi has", m.clientCapabilities())
	return lines
}
