// Package render writes MCP results for people: text as text, everything else as a short
// description. Machine output (--json) does not come through here. Everything in a result
// is the server's, so it is written as [look.SafeLines] (a text block) or [look.Safe] (a
// name or a type in a description) shows it: no character that a terminal obeys.
package render

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/mcpi-dev/mcpi/internal/cli/iostreams"
	"github.com/mcpi-dev/mcpi/internal/look"
	"github.com/mcpi-dev/mcpi/mcp"
)

// ToolResult writes a tool's result: its content blocks, or its structured content when
// it has no content.
func ToolResult(ios *iostreams.IOStreams, r *mcp.CallToolResult) error {
	w := ios.Out
	if len(r.Content) == 0 && len(r.StructuredContent) > 0 {
		return indentJSON(w, r.StructuredContent)
	}
	for _, c := range r.Content {
		Content(w, c)
	}
	return nil
}

// Content writes one content block, ending with a newline: its text, or the line that
// says what it is ([look.ContentHeader]) above the text it may have. A block whose
// annotations say it is not for the user (audience without "user"), or give it a
// priority, is marked so on a line of its own before it ([look.Annotations]).
func Content(w io.Writer, c mcp.Content) {
	if mark := look.Annotations(c.Annotations); mark != "" {
		fmt.Fprintf(w, "[%s]\n", mark)
	}
	if head := look.ContentHeader(c); head != "" {
		fmt.Fprintln(w, head)
	}
	if text, ok := look.ContentText(c); ok {
		fmt.Fprintln(w, look.SafeLines(strings.TrimRight(text, "\n")))
	}
}

// PromptResult writes a rendered prompt: each message under its role.
func PromptResult(ios *iostreams.IOStreams, r *mcp.GetPromptResult) {
	for i, m := range r.Messages {
		if i > 0 {
			fmt.Fprintln(ios.Out)
		}
		fmt.Fprintf(ios.Out, "[%s]\n", look.Safe(string(m.Role)))
		Content(ios.Out, m.Content)
	}
}

// Resource writes a read resource: text as it is, or on a terminal as [look.SafeLines]
// shows it; binary data as it is when stdout is not a terminal, else a description. What
// goes to a file or a pipe is the resource's exact bytes, as "cat" would give them.
func Resource(ios *iostreams.IOStreams, r *mcp.ReadResourceResult) error {
	for _, c := range r.Contents {
		if !c.IsBlob() {
			if !ios.IsStdoutTTY() {
				fmt.Fprint(ios.Out, c.Text)
				continue
			}
			fmt.Fprint(ios.Out, look.SafeLines(c.Text))
			if !strings.HasSuffix(c.Text, "\n") {
				fmt.Fprintln(ios.Out)
			}
			continue
		}
		data, err := c.DecodeBlob()
		if err != nil {
			return fmt.Errorf("the server sent %s as invalid base64", c.URI)
		}
		if ios.IsStdoutTTY() {
			fmt.Fprintf(ios.Out, "[binary %s, %s; redirect to a file to get it]\n", look.Safe(c.MimeType), look.Size(len(data)))
			continue
		}
		if _, err := ios.Out.Write(data); err != nil {
			return err
		}
	}
	return nil
}

func indentJSON(w io.Writer, raw json.RawMessage) error {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		_, err := fmt.Fprintln(w, look.SafeLines(string(raw)))
		return err
	}
	// encoding/json escapes C0 controls, not C1, bidi or invisible ones.
	b, _ := json.MarshalIndent(v, "", "  ")
	_, err := fmt.Fprintln(w, string(look.SafeJSON(b)))
	return err
}
