package web_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/transport"
)

// contentEnv makes TestContentServerProcess serve: tools whose results hold the content
// the page must show as the server sent it (text with line ends and controls, blobs,
// annotations), a resource of each kind, and a question whose form has a long label.
const contentEnv = "MCPI_TEST_CONTENT_SERVER"

// The texts of the "texts" tool: a literal backslash escape, which is text and no line
// break; CRLF line ends; a lone CR and an ESC, which are controls to show, not obey.
const (
	literalEscape = `a "\u000a" b`
	crlfText      = "one\r\ntwo\r\nthree"
	controlText   = "x\ry\x1bz"
)

// A 1×1 PNG (70 bytes) and a text blob.
const (
	pngBlob  = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
	blobText = "hello\nblob world, 55 bytes long: the decoded size......"
)

// longURI is a resource's URI without a place to break.
const longURI = "content://" + "a-very-long-resource-path-segment/with/many/parts/and_no_spaces_at_all_" + "0123456789012345678901234567890123456789"

func TestContentServerProcess(t *testing.T) {
	if os.Getenv(contentEnv) != "1" {
		t.Skip("the content server for TestBrowserContent")
	}
	srv := server.New(mcp.Implementation{Name: "content", Version: "1"}, nil)
	quarter := 0.25
	srv.AddTool(&mcp.Tool{Name: "texts", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				mcp.TextContent(literalEscape),
				mcp.TextContent(crlfText),
				mcp.TextContent(controlText),
				{Type: "resource", Resource: &mcp.ResourceContents{URI: "content://text", MimeType: "text/plain", Text: crlfText + "\r\n" + literalEscape}},
			}}, nil
		})
	srv.AddTool(&mcp.Tool{Name: "annotated", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				{Type: "text", Text: "for the model", Annotations: &mcp.Annotations{Audience: []mcp.Role{mcp.RoleAssistant}, Priority: &quarter}},
				{Type: "text", Text: "for the user", Annotations: &mcp.Annotations{Audience: []mcp.Role{mcp.RoleUser, mcp.RoleAssistant}}},
				mcp.TextContent("plain"),
			}}, nil
		})
	srv.AddTool(&mcp.Tool{Name: "blobs", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				{Type: "resource", Resource: &mcp.ResourceContents{URI: "content://png", MimeType: "image/png", Blob: pngBlob}},
				{Type: "resource", Resource: &mcp.ResourceContents{URI: "content://text-blob", MimeType: "text/plain; charset=utf-8", Blob: base64.StdEncoding.EncodeToString([]byte(blobText))}},
				{Type: "resource", Resource: &mcp.ResourceContents{URI: "content://bin", MimeType: "application/octet-stream", Blob: base64.StdEncoding.EncodeToString(make([]byte, 56))}},
			}}, nil
		})
	srv.AddTool(&mcp.Tool{Name: "ask_long", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			r, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Pick", RequestedSchema: json.RawMessage(`{"type":"object","properties":{
				"short":{"type":"string","title":"Short","enum":["a","b"]},
				"long":{"type":"string","title":"A label much wider than the column of the form's labels","enum":["c","d"]}}}`)})
			if err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("action " + r.Action)}}, nil
		})
	srv.AddResource(&mcp.Resource{URI: "content://png", Name: "png", MimeType: "image/png"}, func(ctx context.Context, _ *server.Session, p *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{{URI: p.URI, MimeType: "image/png", Blob: pngBlob}}}, nil
	})
	srv.AddResource(&mcp.Resource{URI: longURI, Name: "long"}, func(ctx context.Context, _ *server.Session, p *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{{URI: p.URI, MimeType: "text/plain", Text: "long"}}}, nil
	})
	if err := srv.Run(context.Background(), transport.StdioTransport{}); err != nil {
		t.Fatal(err)
	}
}

// callTool calls tool (which takes no arguments) from its pane and waits for its result.
func callTool(tool string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		chromedp.Evaluate[chromedp.Void](`window.__lastResult = undefined`),
		openTool(tool),
		chromedp.WaitVisible(chromedp.CSS(`button[data-action="call"]`)),
		chromedp.Click(chromedp.CSS(`button[data-action="call"]`)),
		waitJS(`window.__lastResult !== undefined && document.querySelector('.call-out .result') !== null`),
	)
}

// A server's text is shown as it is: a literal "\u000a" stays text, a line feed and a
// CRLF end a line, and a lone CR or an ESC is shown as its control picture. A blob says
// the bytes it decodes to, an image blob is shown as an image, a text blob offers its
// text; a content item's annotations are marked as the CLI marks them.
func TestBrowserContent(t *testing.T) {
	s := startWebOn(t, processServer("TestContentServerProcess", contentEnv))
	s.run("open", chromedp.Navigate(s.url), chromedp.WaitVisible(chromedp.CSS(`li[data-tool="texts"]`)))
	s.watchBlocked()

	s.run("texts", callTool("texts"))
	texts := value(s, "the texts", chromedp.Evaluate[[]string](`[...document.querySelectorAll('.call-out .result pre')].map(p => p.textContent)`))
	want := []string{literalEscape, "one\ntwo\nthree", "x␍y␛z", "one\ntwo\nthree\n" + literalEscape}
	if strings.Join(texts, "|") != strings.Join(want, "|") {
		t.Errorf("the texts shown:\n%q\nwant\n%q", texts, want)
	}
	// The line feeds show as line breaks: three lines are three times as tall as one.
	lines := value(s, "the lines", chromedp.Evaluate[float64](`(() => {
		const ps = document.querySelectorAll('.call-out .result pre.content.text');
		return ps[1].getBoundingClientRect().height / ps[0].getBoundingClientRect().height;
	})()`))
	if lines < 2 {
		t.Errorf("the CRLF text is %.1f times as tall as one line, want about 3 (its line ends shown as line breaks)", lines)
	}

	s.run("annotated", callTool("annotated"))
	marks := value(s, "the marks", chromedp.Evaluate[[]string](`[...document.querySelectorAll('.call-out .result > *')].filter(e => e.matches('.annotated, .content')).map(e => (e.querySelector('.annot') ? '[' + e.querySelector('.annot').textContent + '] ' : '') + (e.querySelector('pre') || e).textContent)`))
	if got := strings.Join(marks, "|"); got != "[audience: assistant; priority 0.25] for the model|for the user|plain" {
		t.Errorf("the annotated items: %q", marks)
	}

	s.run("blobs", callTool("blobs"))
	blobs := value(s, "the blobs", chromedp.Evaluate[[]string](`[...document.querySelectorAll('.call-out .result .content.resource')].map(e => e.firstChild.textContent)`))
	if got := strings.Join(blobs, "|"); got != "resource content://png · image/png · 70 bytes|resource content://text-blob · text/plain; charset=utf-8 · 55 bytes|resource content://bin · application/octet-stream · 56 bytes" {
		t.Errorf("the blobs' headers: %q", blobs)
	}
	if n := value(s, "the image", chromedp.Evaluate[int](`document.querySelectorAll('.call-out .content.resource img[src^="data:image/png;base64,"]').length`)); n != 1 {
		t.Errorf("%d images of the image/png blob shown, want 1", n)
	}
	s.run("the text blob's text",
		chromedp.Click(chromedp.CSS(`.call-out details.blob summary`)),
		waitJS(`document.querySelector('.call-out details.blob pre').textContent.length > 0`),
	)
	if got := value(s, "the decoded text", chromedp.Text(chromedp.CSS(`.call-out details.blob pre`))); got != blobText {
		t.Errorf("the text blob decodes to %q, want %q", got, blobText)
	}

	// A resource read is shown alike.
	s.run("read the PNG",
		chromedp.Click(chromedp.CSS(`button[data-view="resources"]`)),
		chromedp.WaitVisible(chromedp.CSS(`li[data-uri="content://png"]`)),
		chromedp.Click(chromedp.CSS(`li[data-uri="content://png"]`)),
		waitJS(`document.querySelector('.pane .content.resource img[src^="data:image/png;base64,"]') !== null`),
	)
	if got := value(s, "the header", chromedp.Evaluate[string](`document.querySelector('.pane .content.resource').firstChild.textContent`)); got != "resource content://png · image/png · 70 bytes" {
		t.Errorf("the read PNG's header: %q", got)
	}
}
