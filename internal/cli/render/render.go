// Package render writes MCP results for people: text as text, everything else as a short
// description. Machine output (--json) does not come through here. Everything in a result
// is the server's, so it is written as [look.SafeLines] (a text block) or [look.Safe] (a
// name or a type in a description) shows it: no character that a terminal obeys.
package render

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpi-dev/mcpi/internal/cli/iostreams"
	"github.com/mcpi-dev/mcpi/internal/cut"
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

// Content writes one content block, ending with a newline. A block whose annotations
// say it is not for the user (audience without "user"), or give it a priority, is marked
// so on a line of its own before it.
func Content(w io.Writer, c mcp.Content) {
	if mark := annotations(c.Annotations); mark != "" {
		fmt.Fprintf(w, "[%s]\n", mark)
	}
	switch c.Type {
	case mcp.ContentTypeText:
		fmt.Fprintln(w, look.SafeLines(strings.TrimRight(c.Text, "\n")))
	case mcp.ContentTypeImage, mcp.ContentTypeAudio:
		fmt.Fprintf(w, "[%s %s, %s]\n", look.Safe(c.Type), look.Safe(c.MimeType), size(base64Len(c.Data)))
	case mcp.ContentTypeResourceLink:
		fmt.Fprintf(w, "[resource link %s", look.Safe(c.URI))
		if c.Name != "" {
			fmt.Fprintf(w, " %q", c.Name)
		}
		fmt.Fprintln(w, "]")
	case mcp.ContentTypeResource:
		if c.Resource == nil {
			fmt.Fprintln(w, "[empty embedded resource]")
			return
		}
		if c.Resource.IsBlob() {
			fmt.Fprintf(w, "[%s]\n", describe("resource "+look.Safe(c.Resource.URI), c.Resource.MimeType, size(base64Len(c.Resource.Blob))))
			return
		}
		// The same header as a blob's, so that the text is not taken for the tool's own.
		fmt.Fprintf(w, "[%s]\n", describe("resource "+look.Safe(c.Resource.URI), c.Resource.MimeType, ""))
		fmt.Fprintln(w, look.SafeLines(strings.TrimRight(c.Resource.Text, "\n")))
	default:
		b, _ := json.Marshal(c)
		fmt.Fprintf(w, "[%s content] %s\n", look.Safe(c.Type), look.Safe(string(b)))
	}
}

// describe joins what a content block is, its MIME type and its size, leaving out those
// that are empty: "resource file:///a.png, image/png, 56 bytes".
func describe(what, mime, size string) string {
	parts := []string{what}
	if mime != "" {
		parts = append(parts, look.Safe(mime))
	}
	if size != "" {
		parts = append(parts, size)
	}
	return strings.Join(parts, ", ")
}

// annotations describes the annotations worth a mark: an audience without the user
// ("audience: assistant"), and a priority; "" for none.
func annotations(a *mcp.Annotations) string {
	if a == nil {
		return ""
	}
	var parts []string
	if len(a.Audience) > 0 && !slices.Contains(a.Audience, mcp.RoleUser) {
		var roles []string
		for i, r := range a.Audience {
			if i == 4 { // a server's list can be of any length
				roles = append(roles, "…")
				break
			}
			roles = append(roles, look.Safe(cut.Bytes(string(r), 32)))
		}
		parts = append(parts, "audience: "+strings.Join(roles, ", "))
	}
	if a.Priority != nil {
		parts = append(parts, "priority "+strconv.FormatFloat(*a.Priority, 'g', 3, 64))
	}
	return strings.Join(parts, "; ")
}

// base64Len is the number of bytes that the base64 text s encodes, its padding left out
// (a length times 3/4 counts one byte too many for each "=").
func base64Len(s string) int {
	s = strings.TrimRight(s, "=")
	return len(s) * 3 / 4
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
			fmt.Fprintf(ios.Out, "[binary %s, %s; redirect to a file to get it]\n", look.Safe(c.MimeType), size(len(data)))
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
	// encoding/json escapes C0 controls, not C1 or bidi ones.
	b, _ := json.MarshalIndent(v, "", "  ")
	_, err := fmt.Fprintln(w, look.SafeLines(string(b)))
	return err
}

func size(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
