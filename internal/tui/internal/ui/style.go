package ui

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/mcpi-dev/mcpi/internal/look"
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

// Fit cuts s (which may hold ANSI styles) to w cells with an ellipsis, and pads it
// with spaces to exactly w cells.
func Fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidth(s) > w {
		s = ansi.Truncate(s, w, "…")
	}
	if pad := w - ansi.StringWidth(s); pad > 0 {
		s += strings.Repeat(" ", pad)
	}
	return s
}

// Cut cuts s to at most w cells with an ellipsis, without padding.
func Cut(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidth(s) > w {
		return ansi.Truncate(s, w, "…")
	}
	return s
}

// Width is the number of cells s takes.
func Width(s string) int { return ansi.StringWidth(s) }

// Wrap word-wraps plain or styled text to w cells.
func Wrap(s string, w int) []string {
	if w <= 0 {
		return nil
	}
	return strings.Split(ansi.Wrap(s, w, " -"), "\n")
}

// OneLine collapses whitespace, so that a multi-line text fits a table cell.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Block joins lines into exactly h lines of at most w cells: longer lists are cut,
// shorter ones padded with empty lines. Every view's View returns a Block, so the
// screen layout never depends on content.
func Block(lines []string, w, h int) string {
	if h <= 0 {
		return ""
	}
	out := make([]string, h)
	for i := range out {
		if i < len(lines) {
			out[i] = Fit(lines[i], w)
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
