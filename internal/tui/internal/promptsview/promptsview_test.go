package promptsview

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/mcpi-dev/mcpi/internal/tui/internal/tuitest"
	"github.com/mcpi-dev/mcpi/mcp"
)

// A prompt's arguments become a form; its required argument is checked before the
// prompt is fetched, and the messages it renders to are shown.
func TestGetPrompt(t *testing.T) {
	sess := tuitest.Connect(t, tuitest.Demo())
	m := New(tuitest.Context(t), sess)
	m.SetSize(100, 24)
	d := tuitest.New(t, m)
	d.Listen(sess, 0)
	d.Run(m.Init())
	screen := d.WaitLine("greet", "name*")
	if !strings.Contains(screen, "1 prompt ") || strings.Contains(screen, "1 prompts") {
		t.Errorf("the count of one prompt is not singular:\n%s", screen)
	}
	d.Key("enter")
	d.WaitText("prompts/get greet", "[ Get prompt ]")
	d.Key("ctrl+s")
	d.WaitText("is required")
	d.Type("Ada")
	d.Key("ctrl+s")
	d.WaitText("prompts/get greet", "[user]", "Ada")
}

// A prompt's messages that are not text read as the CLI shows them: an image by its
// MIME type and decoded size, an embedded resource by its URI, MIME type and size, or
// with its text under that header.
func TestPromptMessagesNotText(t *testing.T) {
	b55 := base64.StdEncoding.EncodeToString(make([]byte, 55))
	b56 := base64.StdEncoding.EncodeToString(make([]byte, 56))
	res := &mcp.GetPromptResult{Messages: []mcp.PromptMessage{
		{Role: mcp.RoleUser, Content: mcp.Content{Type: mcp.ContentTypeImage, MimeType: "image/png", Data: b55}},
		{Role: mcp.RoleUser, Content: mcp.Content{Type: mcp.ContentTypeResource, Resource: &mcp.ResourceContents{URI: "file:///a.bin", MimeType: "application/octet-stream", Blob: b56}}},
		{Role: mcp.RoleUser, Content: mcp.Content{Type: mcp.ContentTypeResource, Resource: &mcp.ResourceContents{URI: "file:///notes.md", MimeType: "text/markdown", Text: "# Notes\nline two\n"}}},
	}}
	got := ansi.Strip(strings.Join(messageLines(res, 100), "\n"))
	for _, want := range []string{
		"[user]\n[image image/png, 55 bytes]\n",
		"[user]\n[resource file:///a.bin, application/octet-stream, 56 bytes]\n",
		"[user]\n[resource file:///notes.md, text/markdown]\n# Notes\nline two\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the messages lack %q:\n%s", want, got)
		}
	}
}
