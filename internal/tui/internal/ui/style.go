package ui

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/mcpi-dev/mcpi/internal/look"
	"github.com/mcpi-dev/mcpi/internal/plural"
	"github.com/mcpi-dev/mcpi/mcp"
)

// The 16 ANSI colours: the user's terminal theme decides how they look, so the UI
// reads on dark and light backgrounds alike.
var (
	Red     = lipgloss.Color("1")
	Green   = lipgloss.Color("2")
	Yellow  = lipgloss.Color("3")
	Blue    = lipgloss.Color("4")
	Magenta = lipgloss.Color("5")
	Cyan    = lipgloss.Color("6")
	Grey    = lipgloss.Color("8")
)

// Styles used across the views.
var (
	Bold     = lipgloss.NewStyle().Bold(true)
	Dim      = lipgloss.NewStyle().Foreground(Grey)
	Error    = lipgloss.NewStyle().Foreground(Red)
	OK       = lipgloss.NewStyle().Foreground(Green)
	Warn     = lipgloss.NewStyle().Foreground(Yellow)
	Accent   = lipgloss.NewStyle().Foreground(Cyan)
	Selected = lipgloss.NewStyle().Reverse(true)
	Title    = lipgloss.NewStyle().Bold(true).Foreground(Cyan)
	Heading  = lipgloss.NewStyle().Bold(true).Underline(true)
	Badge    = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("0")).Background(Yellow)
	Key      = lipgloss.NewStyle().Bold(true)
)

// StatusStyle is the colour of a task status.
func StatusStyle(s mcp.TaskStatus) lipgloss.Style {
	switch s {
	case mcp.TaskStatusWorking:
		return lipgloss.NewStyle().Foreground(Blue)
	case mcp.TaskStatusInputRequired:
		return lipgloss.NewStyle().Foreground(Yellow).Bold(true)
	case mcp.TaskStatusCompleted:
		return lipgloss.NewStyle().Foreground(Green)
	case mcp.TaskStatusFailed:
		return lipgloss.NewStyle().Foreground(Red)
	case mcp.TaskStatusCancelled:
		return lipgloss.NewStyle().Foreground(Magenta)
	}
	return Dim
}

// RenderStatus is a task status with its symbol and colour, as "✓ completed".
func RenderStatus(s mcp.TaskStatus) string { return StatusStyle(s).Render(look.Status(s)) }

// Safe returns s, a line of text that may hold the views' styles, as it may reach the
// terminal: the SGR sequences that styles are made of (ESC [ digits m) stay, and every
// other escape sequence and control character, which only a server's text can hold, is
// shown as [look.Safe] shows it (␛]0;title␇, ␛[2J, ␍, \u202e). [Fit], [Cut], [Width],
// [Wrap], [Block] and [Stack] see text through it, and every view's screen is a Block
// and the root's a Stack, so no text reaches the terminal without passing here. Line
// feeds are shown too: a line is one line.
//
// A server's text that holds an SGR sequence of its own can only restyle the rest of its
// line ([Block] ends every styled line with a reset); [OneLine] shows those too.
func Safe(s string) string {
	if safe(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for s != "" {
		text, style, rest := nextStyle(s)
		b.WriteString(look.Safe(text))
		b.WriteString(style)
		s = rest
	}
	return b.String()
}

// safe reports whether [Safe] leaves s as it is.
func safe(s string) bool {
	for s != "" {
		text, _, rest := nextStyle(s)
		if look.Safe(text) != text {
			return false
		}
		s = rest
	}
	return true
}

// nextStyle splits s at its first SGR sequence: the text before it, the sequence, and
// the rest; style is "" when s has none.
func nextStyle(s string) (text, style, rest string) {
	for i := 0; i < len(s); i++ {
		j := strings.IndexByte(s[i:], '\x1b')
		if j < 0 {
			break
		}
		i += j
		if n := sgrLen(s[i:]); n > 0 {
			return s[:i], s[i : i+n], s[i+n:]
		}
	}
	return s, "", ""
}

// sgrLen is the length of the SGR sequence s starts with, or 0: ESC [, parameters
// (digits, ';' and ':'), m. Private and intermediate bytes are not SGR.
func sgrLen(s string) int {
	if len(s) < 3 || s[0] != '\x1b' || s[1] != '[' {
		return 0
	}
	for j := 2; j < len(s); j++ {
		switch c := s[j]; {
		case c == 'm':
			return j + 1
		case c >= '0' && c <= '9', c == ';', c == ':':
		default:
			return 0
		}
	}
	return 0
}

// Fit cuts s (which may hold ANSI styles) to w cells with an ellipsis, and pads it
// with spaces to exactly w cells. It sees s through [Safe].
func Fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	s = Safe(s)
	if ansi.StringWidth(s) > w {
		s = ansi.Truncate(s, w, "…")
	}
	if pad := w - ansi.StringWidth(s); pad > 0 {
		s += strings.Repeat(" ", pad)
	}
	return s
}

// Cut cuts s to at most w cells with an ellipsis, without padding. It sees s through
// [Safe].
func Cut(s string, w int) string {
	if w <= 0 {
		return ""
	}
	s = Safe(s)
	if ansi.StringWidth(s) > w {
		return ansi.Truncate(s, w, "…")
	}
	return s
}

// CutMiddle cuts a name (plain text) to at most w cells with an ellipsis in the
// middle, keeping its start and its end: names that differ at their ends
// (trigger-sampling-request, trigger-sampling-request-async) stay told apart. It sees s
// through [Safe].
func CutMiddle(s string, w int) string {
	if w <= 0 {
		return ""
	}
	s = Safe(s)
	n := ansi.StringWidth(s)
	if n <= w {
		return s
	}
	if w < 3 {
		return ansi.Truncate(s, w, "…")
	}
	tail := (w - 1) / 2
	head := w - 1 - tail
	return ansi.Truncate(s, head, "") + "…" + ansi.TruncateLeft(s, n-tail, "")
}

// FitMiddle is [CutMiddle], padded with spaces to exactly w cells.
func FitMiddle(s string, w int) string {
	s = CutMiddle(s, w)
	if pad := w - ansi.StringWidth(s); pad > 0 {
		s += strings.Repeat(" ", pad)
	}
	return s
}

// Width is the number of cells s takes once shown, as [Safe] shows it.
func Width(s string) int { return ansi.StringWidth(Safe(s)) }

// Wrap word-wraps plain or styled text of one line to w cells. It sees s through
// [Safe].
func Wrap(s string, w int) []string {
	if w <= 0 {
		return nil
	}
	return strings.Split(ansi.Wrap(Safe(s), w, " -"), "\n")
}

// Count says n things: "1 tool", "2 tools" ([plural.Count]).
func Count(n int, one, many string) string { return plural.Count(n, one, many) }

// OneLine collapses whitespace, so that a multi-line text fits a table cell. It is for
// a server's plain text, which it shows as [look.Safe] does: an escape sequence in it,
// a style one too, is shown rather than obeyed.
func OneLine(s string) string { return look.Safe(strings.Join(strings.Fields(s), " ")) }

// reset ends every style.
const reset = "\x1b[m"

// Block joins lines into exactly h lines of at most w cells: longer lists are cut,
// shorter ones padded with empty lines. Every view's View returns a Block, so the
// screen layout never depends on content. The lines are seen through [Safe].
func Block(lines []string, w, h int) string {
	if h <= 0 {
		return ""
	}
	out := make([]string, h)
	for i := range out {
		if i < len(lines) {
			out[i] = Fit(lines[i], w)
			// A style a server's text began must not run on into the next lines.
			if strings.Contains(out[i], "\x1b[") && !strings.HasSuffix(out[i], reset) {
				out[i] += reset
			}
		} else {
			out[i] = strings.Repeat(" ", max(w, 0))
		}
	}
	return strings.Join(out, "\n")
}

// Window returns the offset of a scrolled list of n rows shown h at a time, so that
// row cur is visible, moving as little as possible from off.
func Window(off, cur, n, h int) int {
	if h <= 0 {
		return 0
	}
	if cur < off {
		off = cur
	}
	if cur >= off+h {
		off = cur - h + 1
	}
	off = min(off, max(n-h, 0))
	return max(off, 0)
}

// Strip removes styles from s.
func Strip(s string) string { return ansi.Strip(s) }

// Stack puts rendered parts one under the other and makes the result exactly h lines
// of w cells, whatever the parts' heights.
func Stack(w, h int, parts ...string) string {
	var lines []string
	for _, p := range parts {
		if p == "" {
			continue
		}
		lines = append(lines, strings.Split(p, "\n")...)
	}
	return Block(lines, w, h)
}
