// Package render writes MCP results for people: text as text, everything else as a short
// description. Machine output (--json) does not come through here.
package render

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/mcpi-dev/mcpi/internal/cli/iostreams"
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

// Content writes one content block, ending with a newline.
func Content(w io.Writer, c mcp.Content) {
	switch c.Type {
	case mcp.ContentTypeText:
		fmt.Fprintln(w, strings.TrimRight(c.Text, "\n"))
	case mcp.ContentTypeImage, mcp.ContentTypeAudio:
		fmt.Fprintf(w, "[%s %s, %s]\n", c.Type, c.MimeType, size(len(c.Data)*3/4))
	case mcp.ContentTypeResourceLink:
		fmt.Fprintf(w, "[resource link %s", c.URI)
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
			fmt.Fprintf(w, "[resource %s, %s, %s]\n", c.Resource.URI, c.Resource.MimeType, size(len(c.Resource.Blob)*3/4))
			return
		}
		fmt.Fprintln(w, strings.TrimRight(c.Resource.Text, "\n"))
	default:
		b, _ := json.Marshal(c)
		fmt.Fprintf(w, "[%s content] %s\n", c.Type, b)
	}
}

// PromptResult writes a rendered prompt: each message under its role.
func PromptResult(ios *iostreams.IOStreams, r *mcp.GetPromptResult) {
	for i, m := range r.Messages {
		if i > 0 {
			fmt.Fprintln(ios.Out)
		}
		fmt.Fprintf(ios.Out, "[%s]\n", m.Role)
		Content(ios.Out, m.Content)
	}
}

// Resource writes a read resource: text as it is; binary data as it is when stdout is
// not a terminal, else a description.
func Resource(ios *iostreams.IOStreams, r *mcp.ReadResourceResult) error {
	for _, c := range r.Contents {
		if !c.IsBlob() {
			fmt.Fprint(ios.Out, c.Text)
			if !strings.HasSuffix(c.Text, "\n") && ios.IsStdoutTTY() {
				fmt.Fprintln(ios.Out)
			}
			continue
		}
		data, err := c.DecodeBlob()
		if err != nil {
			return fmt.Errorf("the server sent %s as invalid base64", c.URI)
		}
		if ios.IsStdoutTTY() {
			fmt.Fprintf(ios.Out, "[binary %s, %s; redirect to a file to get it]\n", c.MimeType, size(len(data)))
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
		_, err := fmt.Fprintf(w, "%s\n", raw)
		return err
	}
	b, _ := json.MarshalIndent(v, "", "  ")
	_, err := fmt.Fprintf(w, "%s\n", b)
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
