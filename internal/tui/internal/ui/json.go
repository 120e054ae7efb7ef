package ui

import (
	"bytes"
	"encoding/json"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/mcpi-dev/mcpi/jsonrpc"
)

var (
	jsonKey    = lipgloss.NewStyle().Foreground(Blue).Bold(true)
	jsonString = lipgloss.NewStyle().Foreground(Green)
	jsonNumber = lipgloss.NewStyle().Foreground(Cyan)
	jsonWord   = lipgloss.NewStyle().Foreground(Magenta)
	jsonPunct  = lipgloss.NewStyle().Foreground(Grey)
)

// PrettyJSON indents raw JSON with two spaces; what does not parse is returned as it is.
func PrettyJSON(raw []byte) string {
	var b bytes.Buffer
	if err := json.Indent(&b, bytes.TrimSpace(raw), "", "  "); err != nil {
		return string(raw)
	}
	return b.String()
}

// MarshalPretty encodes v as indented JSON.
func MarshalPretty(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return PrettyJSON(b)
}

// HighlightJSON indents raw JSON and colours it: keys, strings, numbers, literals and
// punctuation each in their own colour. It returns the lines.
func HighlightJSON(raw []byte) []string {
	pretty := PrettyJSON(raw)
	lines := strings.Split(pretty, "\n")
	for i, l := range lines {
		lines[i] = highlightLine(l)
	}
	return lines
}

// HighlightMessage is the whole JSON-RPC message, highlighted.
func HighlightMessage(m jsonrpc.Message) []string {
	b, err := jsonrpc.EncodeMessage(m)
	if err != nil {
		return []string{Error.Render(err.Error())}
	}
	return HighlightJSON(b)
}

// highlightLine colours one line of indented JSON; a string that ends the line's key
// part (followed by ':') is a key.
func highlightLine(l string) string {
	var b strings.Builder
	i := 0
	for i < len(l) {
		c := l[i]
		switch {
		case c == ' ':
			j := i
			for j < len(l) && l[j] == ' ' {
				j++
			}
			b.WriteString(l[i:j])
			i = j
		case c == '"':
			j := i + 1
			for j < len(l) {
				if l[j] == '\\' {
					j += 2
					continue
				}
				if l[j] == '"' {
					j++
					break
				}
				j++
			}
			j = min(j, len(l))
			tok := l[i:j]
			rest := strings.TrimLeft(l[j:], " ")
			if strings.HasPrefix(rest, ":") {
				b.WriteString(jsonKey.Render(tok))
			} else {
				b.WriteString(jsonString.Render(tok))
			}
			i = j
		case c == '-' || (c >= '0' && c <= '9'):
			j := i + 1
			for j < len(l) && strings.IndexByte("0123456789.eE+-", l[j]) >= 0 {
				j++
			}
			b.WriteString(jsonNumber.Render(l[i:j]))
			i = j
		case c >= 'a' && c <= 'z':
			j := i
			for j < len(l) && l[j] >= 'a' && l[j] <= 'z' {
				j++
			}
			b.WriteString(jsonWord.Render(l[i:j]))
			i = j
		default:
			b.WriteString(jsonPunct.Render(string(c)))
			i++
		}
	}
	return b.String()
}
