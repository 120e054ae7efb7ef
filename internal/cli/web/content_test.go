package web_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/internal/bounce"
	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/look"
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

	// A resource read is shown alike; a long URI in the list is cut, whole in its title,
	// and the list does not scroll sideways.
	s.run("read the PNG",
		chromedp.Click(chromedp.CSS(`button[data-view="resources"]`)),
		chromedp.WaitVisible(chromedp.CSS(`li[data-uri="content://png"]`)),
		chromedp.Click(chromedp.CSS(`li[data-uri="content://png"]`)),
		waitJS(`document.querySelector('.pane .content.resource img[src^="data:image/png;base64,"]') !== null`),
	)
	if got := value(s, "the header", chromedp.Evaluate[string](`document.querySelector('.pane .content.resource').firstChild.textContent`)); got != "resource content://png · image/png · 70 bytes" {
		t.Errorf("the read PNG's header: %q", got)
	}
	side := value(s, "the list", chromedp.Evaluate[map[string]any](`(() => {
		const side = document.querySelector('aside.side');
		const uri = document.querySelector('li[data-uri="`+longURI+`"] .uri');
		return {over: side.scrollWidth - side.clientWidth, title: uri.title, cut: uri.scrollWidth > uri.clientWidth};
	})()`))
	if side["over"].(float64) > 0 || side["title"] != longURI || side["cut"] != true {
		t.Errorf("the list with a long URI: %v", side)
	}

	// A form's long label wraps in its column: the fields stay in line.
	s.run("a question with a long label",
		openTool("ask_long"),
		chromedp.WaitVisible(chromedp.CSS(`button[data-action="call"]`)),
		chromedp.Click(chromedp.CSS(`button[data-action="call"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#pending-badge`)),
		chromedp.Click(chromedp.CSS(`button[data-view="requests"]`)),
		chromedp.WaitVisible(chromedp.CSS(`.pane select[name="long"]`)),
	)
	lefts := value(s, "the selects", chromedp.Evaluate[[]float64](`['short', 'long'].map(n => document.querySelector('.pane select[name="' + n + '"]').getBoundingClientRect().left)`))
	if lefts[0] != lefts[1] {
		t.Errorf("the fields of a short and a long label start at %v: not in line", lefts)
	}
}

// A call that waits on the user's answer to the server's request says so, with the way
// to the Requests view, instead of "no progress from the server yet". In 2026-07-28 the
// server has answered input_required and holds nothing: mcpi sends the call again.
func TestBrowserCallWaitsOnRequest(t *testing.T) {
	for protocol, says := range map[string]string{
		mcp.LatestProtocolVersion:   "The server waits on your answer to a request of its own; the call goes on once you answer.",
		mcp.ProtocolVersion20260728: "The server asked for your answer to a request and holds nothing meanwhile; mcpi sends the call again once you answer.",
	} {
		t.Run(protocol, func(t *testing.T) {
			s := startWebOn(t, &connect.Selection{Protocol: protocol})
			s.run("open", chromedp.Navigate(s.url), chromedp.WaitVisible(chromedp.CSS(`li[data-tool="ask_user"]`)))
			s.watchBlocked()
			s.run("call ask_user",
				openTool("ask_user"),
				chromedp.WaitVisible(chromedp.CSS(`button[data-action="call"]`)),
				chromedp.Click(chromedp.CSS(`button[data-action="call"]`)),
				chromedp.WaitVisible(chromedp.CSS(`#pending-badge`)),
				waitJS(`document.querySelector('.call-asks') !== null && !document.querySelector('.call-asks').hidden`),
			)
			out := value(s, "the call's pane", chromedp.Evaluate[map[string]any](`(() => {
				const out = document.querySelector('.call-out');
				return {text: out.innerText, progress: !document.querySelector('.call-progress').hidden};
			})()`))
			if text := out["text"].(string); !strings.Contains(text, says) || strings.Contains(text, "no progress") || out["progress"] == true {
				t.Errorf("the pane of a call that waits on a request: %v", out)
			}
			s.run("to the Requests view",
				chromedp.Click(chromedp.CSS(`.call-asks button[data-action="requests"]`)),
				chromedp.WaitVisible(chromedp.CSS(`main[data-view="requests"] li[data-request]`)),
			)
		})
	}
}

// swap is a handler that can be replaced: the server "restarts" as a new process would,
// at the same address, knowing none of the old sessions.
type swap struct{ h atomic.Pointer[http.Handler] }

func (s *swap) ServeHTTP(w http.ResponseWriter, r *http.Request) { (*s.h.Load()).ServeHTTP(w, r) }

func (s *swap) set(h http.Handler) { s.h.Store(&h) }

// An HTTP server that stops answering is said to be unreachable, truthfully (the
// session goes on only if the same server process answers), with a Reconnect at hand; a
// call that fails because the restarted server forgot the session offers one too, and
// Reconnect opens a new session that answers.
func TestBrowserReconnect(t *testing.T) {
	first := demo.New(nil)
	t.Cleanup(first.Close)
	h := &swap{}
	h.set(first.HTTPHandler(nil))
	bs := bounce.New(t, h)
	s := startWebOn(t, &connect.Selection{URL: bs.URL, Protocol: mcp.LatestProtocolVersion})
	s.run("open", chromedp.Navigate(s.url), chromedp.WaitVisible(chromedp.CSS(`li[data-tool="echo"]`)))
	s.watchBlocked()
	if n := value(s, "a Reconnect while connected", chromedp.Evaluate[int](`document.querySelectorAll('#conn-header button[data-action="reconnect"]').length`)); n != 0 {
		t.Errorf("the header offers %d Reconnect buttons while the server answers", n)
	}

	bs.Stop()
	s.run("a call to a server that is gone",
		chromedp.Evaluate[chromedp.Void](`fetch('/api/c1/call', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({name: 'echo', arguments: {text: 'x'}})})`),
		chromedp.WaitVisible(chromedp.CSS(`#unreachable`)),
		chromedp.WaitVisible(chromedp.CSS(`#conn-header button[data-action="reconnect"]`)),
	)
	header := value(s, "the header", chromedp.Text(chromedp.CSS(`#conn-header`)))
	if !strings.Contains(header, "not answering") || !strings.Contains(header, "the session goes on if the same server process answers again; a server that restarted has forgotten it") || strings.Contains(header, "connected") {
		t.Errorf("the header of an unreachable server: %q", header)
	}

	// The server comes back as a new process: it does not know the session.
	second := demo.New(nil)
	t.Cleanup(second.Close)
	h.set(second.HTTPHandler(nil))
	bs.Start()
	s.run("a call the new server refuses",
		openTool("echo"),
		chromedp.WaitVisible(chromedp.CSS(`input[name="text"]`)),
		chromedp.SendKeys(chromedp.CSS(`input[name="text"]`), "again"),
		chromedp.Click(chromedp.CSS(`button[data-action="call"]`)),
		chromedp.WaitVisible(chromedp.CSS(`.call-out h3.error`)),
		chromedp.WaitVisible(chromedp.CSS(`.call-out button[data-action="reconnect"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#conn-header button[data-action="reconnect"]`)),
	)
	if got := value(s, "the call's error", chromedp.Text(chromedp.CSS(`.call-out div.error`))); !strings.Contains(got, "ended the session") {
		t.Errorf("the call's error: %q", got)
	}
	s.run("reconnect from the call",
		chromedp.Click(chromedp.CSS(`.call-out button[data-action="reconnect"]`)),
		waitJS(`document.querySelector('#conn-header .state').textContent === 'connected' && !document.querySelector('#unreachable') && !document.querySelector('button[data-action="reconnect"]')`),
		openTool("echo"),
		chromedp.WaitVisible(chromedp.CSS(`input[name="text"]`)),
		chromedp.Evaluate[chromedp.Void](`window.__lastResult = undefined`),
		chromedp.Click(chromedp.CSS(`button[data-action="call"]`)),
		waitJS(`window.__lastResult !== undefined && JSON.stringify(window.__lastResult).includes('again')`),
	)
}

// At 420 px wide the page does not scroll sideways: the view tabs wrap, each in sight;
// the server's tab names its protocol whole; a tool's tag keeps its height next to a
// long name; the Tasks count speaks of one task as one.
func TestBrowserPhoneWidth(t *testing.T) {
	s := startWeb(t)
	s.run("open at 420 px",
		chromedp.EmulateViewport(420, 800),
		chromedp.Navigate(s.url),
		chromedp.WaitVisible(chromedp.CSS(`li[data-tool="slow_task"]`)),
	)
	s.watchBlocked()
	layout := value(s, "the layout", chromedp.Evaluate[map[string]any](`(() => {
		const out = {pageOver: document.documentElement.scrollWidth - window.innerWidth, bodyOver: document.body.scrollWidth - window.innerWidth, hidden: []};
		for (const b of document.querySelectorAll('#views .view-tab')) {
			const r = b.getBoundingClientRect();
			if (r.width === 0 || r.left < 0 || r.right > window.innerWidth || r.bottom > window.innerHeight) out.hidden.push(b.textContent);
		}
		out.tab = document.querySelector('.conn-tab .name').textContent;
		return out;
	})()`))
	if layout["pageOver"].(float64) > 0 || layout["bodyOver"].(float64) > 0 || len(layout["hidden"].([]any)) > 0 {
		t.Errorf("at 420 px: %v", layout)
	}
	if tab := layout["tab"].(string); !strings.HasSuffix(tab, "· 2026-07-28") {
		t.Errorf("the server's tab: %q, want the protocol whole", tab)
	}
	// A long tool name wraps; its tag stays one line high.
	tag := value(s, "a tool's tag", chromedp.Evaluate[map[string]float64](`(() => {
		const li = document.querySelector('li[data-tool="slow_task"]');
		li.querySelector('.name').textContent = 'a-tool-name-long-enough-to-wrap-in-the-list-of-tools-at-this-width-of-the-window';
		const tag = li.querySelector('.tag') || li.appendChild(Object.assign(document.createElement('span'), {className: 'tag', textContent: 'optional'}));
		return {tag: tag.getBoundingClientRect().height, name: li.querySelector('.name').getBoundingClientRect().height};
	})()`))
	if tag["name"] < 2*tag["tag"] || tag["tag"] > 24 {
		t.Errorf("next to a wrapped name (%.0f px high) the tag is %.0f px high", tag["name"], tag["tag"])
	}
	s.run("a task",
		openTool("slow_task"),
		chromedp.WaitVisible(chromedp.CSS(`input[name="seconds"]`)),
		chromedp.SetValue(chromedp.CSS(`input[name="seconds"]`), "0.1"),
		chromedp.Click(chromedp.CSS(`button[data-action="call"]`)),
		chromedp.WaitVisible(chromedp.CSS(`main[data-view="tasks"] .trow[data-status="completed"]`)),
	)
	row := value(s, "the task row", chromedp.Evaluate[map[string]any](`(() => {
		const id = document.querySelector('.trow .c-id');
		return {count: document.querySelector('main').innerText.match(/\d+ tasks? · \d+ active/)[0], title: id.title, shown: id.textContent, cut: id.scrollWidth > id.clientWidth,
			pageOver: document.documentElement.scrollWidth - window.innerWidth};
	})()`))
	if row["count"] != "1 task · 0 active" || len(row["title"].(string)) < 8 || row["cut"] != false || row["pageOver"].(float64) > 0 {
		t.Errorf("the Tasks view at 420 px: %v", row)
	}
}

// A 2026-07-28 server keeps no session: one that stops answering is said to be taken up
// again by whatever server answers at its address, and Reconnect is at hand.
func TestBrowserUnreachableModern(t *testing.T) {
	srv := demo.New(nil)
	t.Cleanup(srv.Close)
	bs := bounce.New(t, srv.HTTPHandler(nil))
	s := startWebOn(t, &connect.Selection{URL: bs.URL, Protocol: mcp.ProtocolVersion20260728})
	s.run("open", chromedp.Navigate(s.url), chromedp.WaitVisible(chromedp.CSS(`li[data-tool="echo"]`)))
	s.watchBlocked()
	bs.Stop()
	s.run("a call to a server that is gone",
		chromedp.Evaluate[chromedp.Void](`fetch('/api/c1/call', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({name: 'echo', arguments: {text: 'x'}})})`),
		chromedp.WaitVisible(chromedp.CSS(`#unreachable`)),
		chromedp.WaitVisible(chromedp.CSS(`#conn-header button[data-action="reconnect"]`)),
	)
	if header := value(s, "the header", chromedp.Text(chromedp.CSS(`#unreachable`))); !strings.Contains(header, "mcpi goes on once a server answers there again (this protocol keeps no session)") {
		t.Errorf("the header of an unreachable 2026-07-28 server: %q", header)
	}
	bs.Start()
	s.run("reconnect",
		chromedp.Click(chromedp.CSS(`#conn-header button[data-action="reconnect"]`)),
		waitJS(`document.querySelector('#conn-header .state').textContent === 'connected' && !document.querySelector('#unreachable')`),
	)
}

// The page shows a server's text as the terminal front ends do (look.SafeLines): controls
// as pictures or escapes, invisible characters as escapes, an emoji's joiners, selectors
// and flag tags as they are.
func TestBrowserCleanAgreesWithLook(t *testing.T) {
	texts := []string{
		"plain ✓ 日本", "x\ry\x1bz", "one\r\ntwo\n", "\u009b2J\u202e", "add\u200b", "soft\u00adhyphen", "\ufeffbom",
		"w\u2060\u2064", "ok\U000E0001\U000E0048\U000E0069\U000E007F", "👩\u200d👩\u200d👧", "می\u200cخواهم",
		"add\u200d", "👩\u200d\u200d👧", "❤\ufe0f\u200d🔥", "#\ufe0f\u20e3", "add\ufe0f", "😀\ufe01\ufe02\U000E0110",
		"🏴\U000E0067\U000E0062\U000E0065\U000E006E\U000E0067\U000E007F", "🏴\U000E0067\U000E0062", "hangul\u3164",
	}
	s := startWeb(t)
	in, _ := json.Marshal(texts)
	s.run("clean the texts",
		chromedp.Navigate(s.url),
		waitJS(`document.readyState === 'complete'`),
		chromedp.Evaluate[chromedp.Void](`import('/js/dom.js').then((d) => { window.__cleaned = `+string(in)+`.map(d.clean); })`),
		waitJS(`window.__cleaned !== undefined`),
	)
	got := value(s, "the cleaned texts", chromedp.Evaluate[[]string](`window.__cleaned`))
	if len(got) != len(texts) {
		t.Fatalf("%d texts cleaned, want %d", len(got), len(texts))
	}
	for i, text := range texts {
		if want := look.SafeLines(text); got[i] != want {
			t.Errorf("clean(%+q) = %+q, want %+q as look.SafeLines", text, got[i], want)
		}
	}
}
