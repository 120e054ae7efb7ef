package toolsview

import (
	"context"
	"encoding/base64"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/tui/internal/tuitest"
	"github.com/mcpi-dev/mcpi/internal/tui/internal/ui"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
)

func newView(t *testing.T, w, h int) (*Model, *tuitest.Driver, *client.Session) {
	sess := tuitest.Connect(t, tuitest.Demo())
	m := New(tuitest.Context(t), sess, time.Minute, nil)
	m.SetSize(w, h)
	d := tuitest.New(t, m)
	d.Listen(sess, 0)
	d.Run(m.Init())
	d.WaitLine("▸ add", "forbidden")
	return m, d, sess
}

func selectTool(t *testing.T, d *tuitest.Driver, name string) {
	t.Helper()
	d.Key("home")
	for range 30 {
		if strings.Contains(tuitest.Line(d.Screen(), "▸"), "▸ "+name+" ") {
			return
		}
		d.Key("down")
	}
	t.Fatalf("could not select %s:\n%s", name, d.Screen())
}

// The list shows each tool's execution.taskSupport.
func TestListShowsTaskSupport(t *testing.T) {
	_, d, _ := newView(t, 100, 30)
	screen := d.Screen()
	for _, c := range [][]string{{"slow_task", "required"}, {"ask_task", "required"}, {"sleep_task", "optional"}, {"add", "forbidden"}, {"echo ", " -"}} {
		if tuitest.Line(screen, c...) == "" {
			t.Errorf("no line with %q:\n%s", c, screen)
		}
	}
	selectTool(t, d, "slow_task")
	d.WaitText("execution.taskSupport required", "only runs as a task", "seconds", "steps")
}

// The calls offered follow taskSupport and whether the server takes tool tasks.
func TestButtons(t *testing.T) {
	tool := func(s mcp.TaskSupport) *mcp.Tool {
		if s == "" {
			return &mcp.Tool{Name: "t"}
		}
		return &mcp.Tool{Name: "t", Execution: &mcp.ToolExecution{TaskSupport: s}}
	}
	for _, c := range []struct {
		support  mcp.TaskSupport
		declared bool
		want     []string
	}{
		{mcp.TaskSupportRequired, true, []string{BtnTask}},
		{mcp.TaskSupportOptional, true, []string{BtnCall, BtnTask}},
		{mcp.TaskSupportOptional, false, []string{BtnCall}},
		{mcp.TaskSupportForbidden, true, []string{BtnCall}},
		{"", true, []string{BtnCall}},
	} {
		if got := Buttons(tool(c.support), c.declared); !slices.Equal(got, c.want) {
			t.Errorf("Buttons(%q, declared %v) = %q, want %q", c.support, c.declared, got, c.want)
		}
	}
}

// The form is built from the schema, checks the arguments before anything is sent,
// and calls an optional tool plainly or as a task with the TTL given.
func TestFormValidatesThenCalls(t *testing.T) {
	m, d, sess := newView(t, 100, 30)
	selectTool(t, d, "sleep_task")
	d.Key("enter")
	d.WaitText("Seconds*", "Task TTL (s)", "60", "[ Call ]", "[ Call as task ]")

	d.Key("ctrl+s")
	d.WaitText("Seconds is required")
	d.WaitFlash("nothing was sent")
	d.Type("700")
	d.WaitText("Seconds must be at most 600")
	d.Key("ctrl+t")
	d.WaitFlash("nothing was sent")
	if n := len(sess.Tasks()); n != 0 {
		t.Fatalf("%d tasks started with invalid arguments", n)
	}
	d.Key("backspace", "backspace", "backspace")
	d.Type("0")
	d.Key("tab", "ctrl+a", "ctrl+k")
	d.Type("90")
	d.Key("ctrl+t")
	started := tuitest.WaitMsg[ui.TaskStartedMsg](d, "the task to start")
	if ttl := started.Task.State().TTL; ttl == nil || *ttl != 90000 {
		t.Errorf("the task's ttl is %v, want 90000 ms", ttl)
	}
	if m.Capturing() {
		t.Errorf("the form still has the keys after the task started")
	}

	selectTool(t, d, "instant_task")
	d.Key("enter")
	d.WaitText("tools/call instant_task")
	d.Key("ctrl+s")
	d.WaitLine("Result of instant_task")
	d.WaitLine("done")
	d.Key("v")
	d.WaitText(`"text": "done"`)
}

// A call the server refuses until the user opens a page (-32042) shows the pages in the
// result view.
func TestResultNamesPagesToOpen(t *testing.T) {
	m, _, _ := newView(t, 100, 30)
	err := jsonrpc.NewError(mcp.CodeURLElicitationRequired, "Needs a login").
		WithData(mcp.URLElicitationRequiredData{Elicitations: []mcp.ElicitParams{
			{Mode: mcp.ElicitModeURL, URL: "https://auth.example/login", Message: "Log in", ElicitationID: "e1"}}})
	m.showResult("authorize", nil, err, 0)
	if got := strings.Join(m.pager.Lines(), "\n"); !strings.Contains(got, "open https://auth.example/login (Log in)") {
		t.Errorf("the result view does not name the page:\n%s", got)
	}
}

// A result whose structuredContent does not fit the tool's output schema is flagged in
// the result view, above the result; one that fits is not.
func TestResultFlagsOutputSchema(t *testing.T) {
	m, _, _ := newView(t, 100, 30)
	bad := &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("42")}, StructuredContent: []byte(`{"sum":"forty-two"}`)}
	m.showResult("add", bad, nil, 0)
	want := `field "sum" must be a number, not a string`
	if got := strings.Join(m.pager.Lines(), "\n"); !strings.Contains(got, want) || !strings.Contains(m.title, "output schema") {
		t.Errorf("the result view does not flag the result (title %q):\n%s", m.title, got)
	}
	m.showResult("add", &mcp.CallToolResult{StructuredContent: []byte(`{"sum":42}`)}, nil, 0)
	if got := strings.Join(m.pager.Lines(), "\n"); strings.Contains(got, "output schema") || strings.Contains(m.title, "output schema") {
		t.Errorf("a result that fits is flagged (title %q):\n%s", m.title, got)
	}
}

// A tool of a 2026-07-28 server without the Tasks extension reads as having no tasks,
// not as one whose server decides per call.
func TestDetailWithoutTasksExtension(t *testing.T) {
	srv := server.New(mcp.Implementation{Name: "no-tasks", Version: "1"}, &server.Options{Modern: true})
	srv.AddTool(&mcp.Tool{Name: "noop", InputSchema: []byte(`{"type":"object"}`)},
		func(context.Context, *server.ToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	sess := tuitest.Connect(t, srv)
	if !sess.Modern() {
		t.Fatalf("the session speaks %s", sess.ProtocolVersion())
	}
	m := New(tuitest.Context(t), sess, time.Minute, nil)
	m.SetSize(120, 30)
	d := tuitest.New(t, m)
	d.Run(m.Init())
	d.WaitText("no tasks: the server declares no tasks extension")
	if strings.Contains(d.Screen(), "decides per call") {
		t.Errorf("the detail says the server decides per call:\n%s", d.Screen())
	}
}

// A result reads as its content: a text of several lines as lines, an image as one line
// that says what it is, a block for the assistant marked so; v shows the raw JSON (and
// says so in the help), and again the readable view. The output schema's flag stays
// above either.
func TestResultReadableThenRaw(t *testing.T) {
	m, d, _ := newView(t, 100, 30)
	png := base64.StdEncoding.EncodeToString(make([]byte, 300))
	res := &mcp.CallToolResult{Content: []mcp.Content{
		mcp.TextContent("first line\nsecond line\x1b[2J"),
		{Type: mcp.ContentTypeImage, MimeType: "image/png", Data: png},
		{Type: mcp.ContentTypeText, Text: "for the model", Annotations: &mcp.Annotations{Audience: []mcp.Role{mcp.RoleAssistant}}},
	}, StructuredContent: []byte(`{"sum":"forty-two"}`)}
	m.showResult("add", res, nil, 0)
	help := func(want string) {
		t.Helper()
		for _, k := range m.ShortHelp() {
			if k.Help().Key == "v" && k.Help().Desc == want {
				return
			}
		}
		t.Errorf("the help does not offer v %q", want)
	}
	screen := d.WaitText("first line", "second line␛[2J", "[image image/png, 300 bytes]", "[audience: assistant]", "for the model", `field "sum" must be a number`)
	if strings.Contains(screen, `\n`) || strings.Contains(screen, png[:40]) || strings.Contains(tuitest.Line(screen, "first line"), "second") {
		t.Errorf("the readable view shows escapes or base64, or the text on one line:\n%s", screen)
	}
	help("raw JSON")
	d.Key("v")
	d.WaitText(`"text": "first line\nsecond line\u001b[2J"`, `field "sum" must be a number`)
	if raw := ansi.Strip(strings.Join(m.pager.Lines(), "\n")); !strings.Contains(raw, `"data": "`+png) {
		t.Errorf("the raw JSON lacks the image's data:\n%s", raw)
	}
	help("readable view")
	d.Key("v")
	d.WaitText("[image image/png, 300 bytes]")
}

// Two tools whose names differ only at their ends stay told apart in the list at 80x24
// and at 120x35: the list widens for long names while the pane keeps its room, and a
// name still too long is cut in the middle.
func TestLongNamesStayDistinct(t *testing.T) {
	srv := server.New(mcp.Implementation{Name: "long-names", Version: "1"}, nil)
	for _, n := range []string{"trigger-sampling-request", "trigger-sampling-request-async"} {
		srv.AddTool(&mcp.Tool{Name: n, InputSchema: []byte(`{"type":"object"}`)},
			func(context.Context, *server.ToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{}, nil
			})
	}
	sess := tuitest.Connect(t, srv)
	for _, size := range [][2]int{{80, 24}, {120, 35}} {
		m := New(tuitest.Context(t), sess, time.Minute, nil)
		m.SetSize(size[0], size[1]-4) // less the header, tabs and help
		d := tuitest.New(t, m)
		d.Run(m.Init())
		screen := d.WaitText("2 tools")
		var cells []string
		for _, l := range strings.Split(screen, "\n")[1:3] {
			cell, _, _ := strings.Cut(strings.TrimLeft(l, " ▸"), " ")
			cells = append(cells, cell)
		}
		if cells[0] == cells[1] || !strings.HasPrefix(cells[0], "trigger-") || !strings.HasSuffix(cells[1], "async") {
			t.Errorf("%dx%d: the names read %q:\n%s", size[0], size[1], cells, screen)
		}
		if size[0] == 120 && cells[1] != "trigger-sampling-request-async" {
			t.Errorf("120x35: the long name is cut: %q", cells[1])
		}
	}
}
