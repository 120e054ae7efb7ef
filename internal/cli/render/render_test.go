package render

import (
	"bytes"
	"encoding/base64"
	"testing"

	"github.com/mcpi-dev/mcpi/mcp"
)

func ptr[T any](v T) *T { return &v }

// Each block reads as what it is: an embedded text resource under the header a blob
// has (URI and MIME type), a blob with the exact size it decodes to, and a block the
// annotations say is not for the user marked so.
func TestContent(t *testing.T) {
	b56 := base64.StdEncoding.EncodeToString(make([]byte, 56)) // one "=" of padding
	b55 := base64.StdEncoding.EncodeToString(make([]byte, 55)) // two
	for _, tt := range []struct {
		name string
		c    mcp.Content
		want string
	}{
		{"text resource", mcp.Content{Type: mcp.ContentTypeResource, Resource: &mcp.ResourceContents{URI: "file:///notes.md", MimeType: "text/markdown", Text: "# Notes\n"}},
			"[resource file:///notes.md, text/markdown]\n# Notes\n"},
		{"text resource without a MIME type", mcp.Content{Type: mcp.ContentTypeResource, Resource: &mcp.ResourceContents{URI: "mem://a", Text: "hi"}},
			"[resource mem://a]\nhi\n"},
		{"blob resource", mcp.Content{Type: mcp.ContentTypeResource, Resource: &mcp.ResourceContents{URI: "file:///a.bin", MimeType: "application/octet-stream", Blob: b56}},
			"[resource file:///a.bin, application/octet-stream, 56 bytes]\n"},
		{"image", mcp.Content{Type: mcp.ContentTypeImage, MimeType: "image/png", Data: b55}, "[image image/png, 55 bytes]\n"},
		{"for the assistant", mcp.Content{Type: mcp.ContentTypeText, Text: "internal note", Annotations: &mcp.Annotations{Audience: []mcp.Role{mcp.RoleAssistant}}},
			"[audience: assistant]\ninternal note\n"},
		{"for both", mcp.Content{Type: mcp.ContentTypeText, Text: "hello", Annotations: &mcp.Annotations{Audience: []mcp.Role{mcp.RoleUser, mcp.RoleAssistant}}},
			"hello\n"},
		{"priority", mcp.Content{Type: mcp.ContentTypeText, Text: "x", Annotations: &mcp.Annotations{Audience: []mcp.Role{"assistant", "\x1b[2J"}, Priority: ptr(0.25)}},
			"[audience: assistant, ␛[2J; priority 0.25]\nx\n"},
	} {
		var b bytes.Buffer
		Content(&b, tt.c)
		if got := b.String(); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
}
