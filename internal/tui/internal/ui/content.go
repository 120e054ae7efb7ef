package ui

import (
	"encoding/json"
	"strings"

	"github.com/mcpi-dev/mcpi/internal/look"
	"github.com/mcpi-dev/mcpi/mcp"
)

// ContentLines is a content block as the views show it, as the CLI writes it: its
// annotations' mark and the line that says what it is ([look.ContentHeader]), dimmed,
// then its text, a line per line (a pager wraps the long ones). The text goes through
// [look.SafeLines]: an escape sequence in it is shown, not obeyed, even a style.
func ContentLines(c mcp.Content) []string {
	var lines []string
	if mark := look.Annotations(c.Annotations); mark != "" {
		lines = append(lines, Dim.Render("["+mark+"]"))
	}
	if head := look.ContentHeader(c); head != "" {
		lines = append(lines, Dim.Render(head))
	}
	if text, ok := look.ContentText(c); ok {
		lines = append(lines, TextLines(text)...)
	}
	return lines
}

// TextLines is a server's text as lines to show: made safe ([look.SafeLines]), tabs as
// four spaces, split at its line feeds, without the one that ends it.
func TextLines(text string) []string {
	text = strings.ReplaceAll(look.SafeLines(strings.TrimRight(text, "\n")), "\t", "    ")
	return strings.Split(text, "\n")
}

// ToolResultLines is a tool's result for reading: its content blocks ([ContentLines]),
// then its structured content as highlighted JSON. The raw result is the views' other
// way of showing it.
func ToolResultLines(res *mcp.CallToolResult) []string {
	var lines []string
	for _, c := range res.Content {
		lines = append(lines, ContentLines(c)...)
	}
	if len(res.StructuredContent) > 0 && json.Valid(res.StructuredContent) {
		if len(lines) > 0 {
			lines = append(lines, "")
		}
		lines = append(lines, Dim.Render("structuredContent:"))
		lines = append(lines, HighlightJSON(res.StructuredContent)...)
	}
	if len(lines) == 0 {
		lines = append(lines, Dim.Render("(no content)"))
	}
	return lines
}
