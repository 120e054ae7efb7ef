package tui_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/bounce"
	"github.com/mcpi-dev/mcpi/internal/tui"
	"github.com/mcpi-dev/mcpi/internal/tui/internal/tuitest"
	"github.com/mcpi-dev/mcpi/internal/tui/internal/ui"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/transport"
)

// start runs the root model over sess at w x h.
func start(t *testing.T, sess *client.Session, w, h int) (*tui.Model, *tuitest.Driver) {
	t.Helper()
	m := tui.New(tuitest.Context(t), sess, tui.Options{Server: "test server", Transport: "in-memory pipe"})
	d := tuitest.New(t, m)
	d.Send(tea.WindowSizeMsg{Width: w, Height: h})
	d.Run(m.Init())
	return m, d
}

// selectTool moves the Tools list's cursor to name.
func selectTool(t *testing.T, d *tuitest.Driver, name string) {
	t.Helper()
	d.WaitFor("the tool "+name, func(s string) bool { return strings.Contains(s, "  "+name+" ") || strings.Contains(s, "▸ "+name+" ") })
	for range 50 {
		if strings.Contains(tuitest.Line(d.Screen(), "▸"), " "+name+" ") {
			return
		}
		d.Key("down")
	}
	t.Fatalf("could not select %s:\n%s", name, d.Screen())
}

// checkSize fails when the screen is not exactly w x h cells.
func checkSize(t *testing.T, screen string, w, h int) {
	t.Helper()
	lines := strings.Split(screen, "\n")
	if len(lines) != h {
		t.Errorf("the screen has %d lines, want %d:\n%s", len(lines), h, screen)
	}
	for i, l := range lines {
		if n := len([]rune(l)); n > w { // the UI draws only single-width characters
			t.Errorf("line %d is %d cells wide, more than %d: %q", i, n, w, l)
		}
	}
}

// The header says who the server is, how mcpi reaches it, the protocol and task
// dialect and both sides' capabilities; the screen fits 80x24 and follows a resize.
func TestHeaderAndSizes(t *testing.T) {
	sess := tuitest.Connect(t, tuitest.Demo())
	_, d := start(t, sess, 80, 24)
	screen := d.WaitText("mcpi-demo 0.1.0", "● connected", "▸ add")
	for _, want := range []string{"in-memory pipe", "2025-11-25", "server tasks[list,cancel,tools/call]",
		"mcpi   tasks[list,cancel,sampling,elicitation]", "1 Tools", "6 Log", "? help"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the screen lacks %q:\n%s", want, screen)
		}
	}
	checkSize(t, screen, 80, 24)
	d.Key("?")
	screen = d.WaitText("Keys of the Tools view")
	checkSize(t, screen, 80, 24)
	d.Key("esc")
	for i := range 6 {
		d.Key(fmt.Sprint(i + 1))
		checkSize(t, d.Screen(), 80, 24)
	}
	// The mouse: a click on a tab shows it; a click on a row selects it.
	d.Send(tea.MouseClickMsg{X: 13, Y: 3, Button: tea.MouseLeft})
	d.WaitText("No tasks yet")
	d.Send(tea.MouseClickMsg{X: 1, Y: 3, Button: tea.MouseLeft})
	d.WaitLine("▸ add", "forbidden")
	d.Send(tea.MouseClickMsg{X: 4, Y: 4 + 1 + 1, Button: tea.MouseLeft}) // the second tool
	d.WaitLine("▸ ask_model ")

	d.Send(tea.WindowSizeMsg{Width: 120, Height: 40})
	screen = d.WaitText("2025-11-25 core tasks")
	checkSize(t, screen, 120, 40)
	d.Send(tea.WindowSizeMsg{Width: 60, Height: 15})
	checkSize(t, d.Screen(), 60, 15)
}

// The whole path of a task in the UI: the Tools form calls slow_task as a task (the
// only call a required tool offers), the Tasks view follows it from working to
// completed and shows the result.
func TestCallTaskToolFromTools(t *testing.T) {
	sess := tuitest.Connect(t, tuitest.Demo())
	m, d := start(t, sess, 100, 30)
	selectTool(t, d, "slow_task")
	d.Key("enter")
	screen := d.WaitText("tools/call slow_task", "[ Call as task ]", "Task TTL (s)")
	if strings.Contains(screen, "[ Call ]") {
		t.Errorf("a required tool offers a plain call:\n%s", screen)
	}
	d.Key("ctrl+a", "ctrl+k") // clear the seconds field
	d.Type("x")
	d.WaitText("must be a number")
	d.Key("ctrl+s")
	d.WaitText("nothing was sent")
	if n := len(sess.Tasks()); n != 0 {
		t.Fatalf("%d tasks started from an invalid form", n)
	}
	d.Key("backspace")
	d.Type("0.6")
	d.Key("ctrl+s")
	d.WaitLine("slow_task", "◐ working")
	if m.Active() != tui.TabTasks {
		t.Errorf("the Tasks view is not shown after starting a task")
	}
	d.WaitLine("slow_task", "✓ completed", "5/5")
	d.WaitText("result: done: worked 600ms in 5 steps")
	d.Key("enter")
	d.WaitText("Result", "done: worked 600ms in 5 steps")
	d.Key("v")
	d.WaitText(`"text": "done: worked 600ms in 5 steps"`)
}

// add is taskSupport forbidden: only the plain call is offered, and its result shows.
func TestForbiddenToolOffersPlainCallOnly(t *testing.T) {
	sess := tuitest.Connect(t, tuitest.Demo())
	_, d := start(t, sess, 100, 30)
	selectTool(t, d, "add")
	d.Key("enter")
	screen := d.WaitText("tools/call add", "[ Call ]")
	if strings.Contains(screen, "Call as task") || strings.Contains(screen, "Task TTL") {
		t.Errorf("a forbidden tool offers a task call:\n%s", screen)
	}
	d.Type("2")
	d.Key("tab")
	d.Type("3")
	d.Key("ctrl+t")
	d.WaitText("cannot run as a task")
	d.Key("ctrl+s")
	d.WaitText("Result of add", `"sum": 5`)
}

// ask_task goes input_required twice: the Tasks view jumps to each prompt, which is
// answered in the Requests view, and the task completes with both answers.
func TestAnswerInputRequiredFromTasksView(t *testing.T) {
	sess := tuitest.Connect(t, tuitest.Demo())
	m, d := start(t, sess, 100, 30)
	selectTool(t, d, "ask_task")
	d.Key("enter")
	d.WaitText("tools/call ask_task")
	d.Key("ctrl+s")
	d.WaitLine("ask_task", "? input_required")
	screen := d.WaitText("press p to answer it", "⚑ 1 pending")
	if !strings.Contains(screen, "What is your name?") {
		t.Errorf("the Tasks view does not say what the task waits on:\n%s", screen)
	}

	d.Key("p")
	screen = d.WaitText("Answer the server's elicitation", "side-channel of task", "What is your name?", "Name*")
	if m.Active() != tui.TabRequests {
		t.Fatalf("p did not open the Requests view")
	}
	d.Key("ctrl+s") // empty: refused before sending
	d.WaitText("Name is required")
	d.Type("Ada")
	d.Key("ctrl+s")
	d.WaitText("accepted elicitation")

	d.Key("2")
	d.WaitText("waits on sampling", "press p to answer it")
	d.Key("p")
	d.WaitText("Answer the server's sampling", "Please greet Ada", "Reply*")
	d.Type("Hello, Ada!")
	d.Key("ctrl+s")
	d.WaitText("answered sampling")

	d.Key("2")
	screen = d.WaitLine("ask_task", "✓ completed")
	if strings.Contains(screen, "pending") {
		t.Errorf("a request is still pending:\n%s", screen)
	}
	d.Key("enter")
	d.WaitText(`"name": "Ada"`, `"model": "Hello, Ada!"`)
}

// In 2026-07-28 (the embedded demo server speaks it) a tool has one Call button: the
// server decides. slow_task becomes a task, and the Tasks view follows it with the
// steps in its status message; echo is answered at once, in the Tools view.
func TestCall2026ServerDecides(t *testing.T) {
	sess := tuitest.Connect(t, tuitest.DemoBoth())
	if !sess.Modern() {
		t.Fatalf("connected at %s", sess.ProtocolVersion())
	}
	m, d := start(t, sess, 100, 30)
	selectTool(t, d, "echo")
	if head := tuitest.Line(d.Screen(), "tools"); strings.Contains(head, "TASK") {
		t.Errorf("the tool list has a task column in 2026-07-28: %q", head)
	}
	d.Key("enter")
	d.WaitText("tools/call echo", "[ Call ]")
	d.Type("hi")
	d.Key("ctrl+s")
	d.WaitText("Result of echo")
	d.WaitLine(" hi ")
	if n := len(sess.Tasks()); n != 0 {
		t.Errorf("echo made %d tasks", n)
	}

	d.Key("esc", "esc") // the result, then the form
	d.WaitText("enter open the form")
	selectTool(t, d, "slow_task")
	d.Key("enter")
	screen := d.WaitText("tools/call slow_task", "[ Call ]")
	if strings.Contains(screen, "Call as task") || strings.Contains(screen, "Task TTL") {
		t.Errorf("2026-07-28 offers the client's task choice:\n%s", screen)
	}
	d.Key("ctrl+a", "ctrl+k")
	d.Type("0.6")
	d.Key("ctrl+s")
	d.WaitLine("slow_task (ext)", "◐ working", "step")
	if m.Active() != tui.TabTasks {
		t.Errorf("the Tasks view is not shown once the server made the call a task")
	}
	d.WaitLine("slow_task (ext)", "✓ completed")
	d.WaitText("result: done: worked 600ms in 5 steps")
}

// ask_task in 2026-07-28: its questions are the task's inputRequests, answered in the
// Requests view and sent with tasks/update; the task completes with both answers.
func TestAnswerInputRequests2026(t *testing.T) {
	sess := tuitest.Connect(t, tuitest.DemoBoth())
	_, d := start(t, sess, 100, 30)
	selectTool(t, d, "ask_task")
	d.Key("enter")
	d.WaitText("tools/call ask_task")
	d.Key("ctrl+s")
	d.WaitLine("ask_task (ext)", "? input_required")
	d.WaitText("⚑ 1 pending")
	d.Key("3")
	d.WaitLine("elicitation", "task input", "What is your name?")
	d.Key("enter")
	d.WaitText("Name*")
	d.Type("Ada")
	d.Key("ctrl+s")
	d.WaitText("accepted elicitation")
	d.WaitLine("sampling", "task input")
	d.Key("down", "enter")
	d.WaitText("Please greet Ada", "Reply*")
	d.Type("Hello, Ada!")
	d.Key("ctrl+s")
	d.WaitText("answered sampling")
	d.Key("2")
	d.WaitLine("ask_task (ext)", "✓ completed")
	d.Key("enter")
	d.WaitText("name: Ada; model: Hello, Ada!")
}

// confirmServer is a server whose tool asks the client, as a task mcpi hosts, to
// confirm (elicitation/create with params.task), polls that task, and returns the
// answer.
func confirmServer() *server.Server {
	srv := server.New(mcp.Implementation{Name: "confirm-server", Version: "1.0"}, nil)
	srv.AddTool(&mcp.Tool{Name: "confirm", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			ct, err := req.Session.ElicitTask(ctx, &mcp.ElicitParams{
				Message:         "Proceed with the deployment?",
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean","title":"OK"},"note":{"type":"string"}},"required":["ok"]}`),
			}, time.Minute)
			if err != nil {
				return nil, err
			}
			var res mcp.ElicitResult
			if err := ct.Result(ctx, &res); err != nil {
				return nil, err
			}
			b, _ := json.Marshal(res.Content)
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(res.Action + " " + string(b))}}, nil
		})
	return srv
}

// A receiver task: the server asks mcpi to run an elicitation as a task. It appears in
// the Tasks view marked ←, is answered from there, and its answer goes back through
// the server's polls and tasks/result.
func TestReceiverTaskAppearsAndIsAnswered(t *testing.T) {
	sess := tuitest.Connect(t, confirmServer())
	_, d := start(t, sess, 100, 30)
	selectTool(t, d, "confirm")
	d.Key("enter")
	d.WaitText("tools/call confirm", "[ Call ]")
	d.Key("ctrl+s")
	d.WaitText("Calling confirm")

	d.Key("2")
	d.WaitLine("← elicitation/create", "◐ working")
	d.WaitText("⚑ 1 pending", "press p to answer it")
	d.Key("p")
	d.WaitText("Answer the server's elicitation", "task-augmented", "Proceed with the deployment?")
	d.Key("space") // ok: false -> true
	d.WaitText("[x] true")
	d.Key("ctrl+s")
	d.WaitText("accepted elicitation")

	d.Key("2")
	d.WaitLine("← elicitation/create", "✓ completed")
	// The answer goes back when the server polls the task and asks for its result.
	screen := d.WaitText(`result: {"action":"accept","content":{"ok":true}`)
	row := tuitest.Line(screen, "← elicitation/create")
	fields := strings.Fields(row)
	if polls := fields[len(fields)-1]; polls == "0" {
		t.Errorf("no polls counted for the receiver task: %q", row)
	}
	d.Key("enter")
	d.WaitText("Answer sent to the server (tasks/result)", `"action": "accept"`, "tasks/get received from the server")

	d.Key("1")
	d.WaitText("Result of confirm", `accept {"ok":true}`)
}

// The badge counts pending server requests from every view; the Log shows the traffic,
// filters it by method and expands a message.
func TestBadgeAndLog(t *testing.T) {
	sess := tuitest.Connect(t, confirmServer())
	_, d := start(t, sess, 100, 30)
	go func() { _, _ = sess.CallTool(context.Background(), &mcp.CallToolParams{Name: "confirm"}, nil) }()
	for _, k := range []string{"1", "2", "4", "5", "6"} {
		d.Key(k)
		d.WaitText("3 Requests 1", "⚑ 1 pending")
	}
	d.Key("/")
	d.Type("elicitation")
	d.Key("enter")
	screen := d.WaitText("← #", "elicitation/create", "/elicitation")
	if strings.Contains(screen, "tools/list") {
		t.Errorf("the filter lets other methods through:\n%s", screen)
	}
	d.Key("g", "enter")
	d.WaitText("server → mcpi  elicitation/create", `"method": "elicitation/create"`, `"jsonrpc": "2.0"`)
	d.Key("esc", "esc")
	d.WaitText("tools/call")
}

// When the session ends the header says so; R opens a new session through
// Options.Reconnect, and the tasks of the old one stay on screen.
func TestReconnect(t *testing.T) {
	sess := tuitest.Connect(t, tuitest.Demo())
	var mu sync.Mutex
	var opened []*client.Session
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, s := range opened {
			s.Close()
		}
	})
	m := tui.New(tuitest.Context(t), sess, tui.Options{
		Server: "demo", Transport: "in-memory pipe",
		Reconnect: func(ctx context.Context) (*client.Session, error) {
			s, err := tuitest.Dial(tuitest.Demo())
			if err == nil {
				mu.Lock()
				opened = append(opened, s)
				mu.Unlock()
			}
			return s, err
		},
	})
	d := tuitest.New(t, m)
	d.Send(tea.WindowSizeMsg{Width: 100, Height: 30})
	d.Run(m.Init())
	old, err := sess.StartToolTask(tuitest.Context(t), &mcp.CallToolParams{Name: "instant_task"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	d.Key("2")
	d.WaitLine(old.ID()[:8], "✓ completed")

	sess.Close()
	d.WaitText("○ disconnected", "the session has ended", "press R to reconnect")
	d.Key("R")
	d.WaitText("● connected", "reconnected: a new session")
	d.WaitLine(old.ID()[:8], "instant_task")

	var now *client.Session
	mu.Lock()
	now = opened[0]
	mu.Unlock()
	task, err := now.StartToolTask(tuitest.Context(t), &mcp.CallToolParams{Name: "instant_task"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	screen := d.WaitLine(task.ID()[:8], "✓ completed")
	if tuitest.Line(screen, old.ID()[:8]) == "" {
		t.Errorf("the old session's task is gone:\n%s", screen)
	}
	d.Key("1")
	d.WaitLine("▸ add", "forbidden")
}

// Every view, in its list and its open modes, renders exactly the terminal's size, down
// to very small terminals.
func TestEverySizeEveryView(t *testing.T) {
	sess := tuitest.Connect(t, tuitest.Demo())
	task, err := sess.StartToolTask(tuitest.Context(t), &mcp.CallToolParams{Name: "instant_task"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	<-task.Done()
	_, d := start(t, sess, 100, 30)
	d.WaitLine("▸ add", "forbidden")
	d.Key("2")
	d.WaitText("1 completed")
	d.Key("6")
	d.WaitText("tools/list")
	// Each step opens something, then the sizes are tried.
	steps := [][]string{
		{"1"}, {"1", "enter"}, {"esc", "2"}, {"2", "enter"}, {"esc", "3"}, {"4"}, {"4", "enter"}, {"esc", "5"},
		{"5", "enter"}, {"esc", "6"}, {"6", "enter"}, {"esc", "?"}, {"esc"},
	}
	sizes := [][2]int{{100, 30}, {80, 24}, {60, 15}, {40, 10}, {20, 6}, {10, 3}}
	for _, keys := range steps {
		d.Key(keys...)
		d.Drain()
		for _, sz := range sizes {
			d.Send(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
			checkSize(t, d.Screen(), sz[0], sz[1])
		}
		d.Send(tea.WindowSizeMsg{Width: 100, Height: 30})
	}
}

// A reconnection that waits for a login shows its authorization URL whole, and the
// views again once it has reconnected.
func TestReconnectLogin(t *testing.T) {
	sess := tuitest.Connect(t, tuitest.Demo())
	logins := make(chan string, 1)
	release := make(chan struct{})
	var opened *client.Session
	t.Cleanup(func() {
		if opened != nil {
			opened.Close()
		}
	})
	const authURL = "https://as.example.com/authorize?client_id=mcpi-client&redirect_uri=http%3A%2F%2F127.0.0.1%3A40969%2Fcallback&state=0123456789abcdefghijklmnopqrstuvwxyz"
	m := tui.New(tuitest.Context(t), sess, tui.Options{
		Server: "demo", Transport: "Streamable HTTP", Logins: logins,
		Reconnect: func(ctx context.Context) (*client.Session, error) {
			logins <- authURL
			select {
			case <-release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			s, err := tuitest.Dial(tuitest.Demo())
			opened = s
			return s, err
		},
	})
	d := tuitest.New(t, m)
	d.Send(tea.WindowSizeMsg{Width: 100, Height: 30})
	d.Run(m.Init())
	d.WaitLine("▸ add", "forbidden")
	sess.Close()
	d.WaitText("press R to reconnect")
	d.Key("R")
	// The old session's end may reach the model after R, in a batch of its own (CI saw
	// it): a reconnection under way stays so.
	d.Send(ui.EventsMsg{Gen: 0, Events: []client.Event{&client.ClosedEvent{}}, Closed: true})
	screen := d.WaitText("◌ authorization needed", "Authorization needed", "mcpi reconnects once you have logged in")
	if got := strings.Join(strings.Fields(strings.ReplaceAll(screen, "│", "")), ""); !strings.Contains(got, authURL) {
		t.Errorf("the URL is not on the screen whole:\n%s", screen)
	}
	close(release)
	d.WaitText("● connected", "reconnected: a new session")
	d.WaitLine("▸ add", "forbidden")
}

// The server's log reaches the Log view in both eras, at the web inspector's default
// level (info and more severe): in 2025-11-25 mcpi asks with logging/setLevel, in
// 2026-07-28 in the _meta of every request. L picks the next more severe level.
func TestServerLogBothEras(t *testing.T) {
	for _, era := range []struct {
		name string
		srv  func() *server.Server
	}{{"2025-11-25", tuitest.Demo}, {"2026-07-28", tuitest.DemoBoth}} {
		t.Run(era.name, func(t *testing.T) {
			sess := tuitest.Connect(t, era.srv())
			_, d := start(t, sess, 120, 35)
			call := func() {
				t.Helper()
				d.Key("1")
				selectTool(t, d, "log_levels")
				d.Key("enter")
				d.WaitText("tools/call log_levels")
				d.Key("ctrl+s")
				d.WaitText("Result of log_levels", "at 8 levels")
				d.Key("esc", "esc")
			}
			setLevels := func(n int) {
				t.Helper()
				if sess.Modern() {
					return // no request: the level goes with every request
				}
				d.Key("/")
				d.Type("setlevel")
				d.Key("enter")
				d.WaitText(fmt.Sprintf("/setlevel %d shown", 2*n)) // the requests and their answers
				d.WaitFor("the answers to logging/setLevel", func(s string) bool {
					return strings.Count(s, "✓ logging/setLevel") == n
				})
				d.Key("esc")
			}
			// The session asked for info as it connected (client.Options.LogLevel): the Log
			// shows that request with the handshake; 7 messages, no debug, show it.
			call()
			d.Key("6", "t")
			screen := d.WaitText("Server log (7)", "level info (L changes it)")
			for _, lvl := range []string{"INFO", "NOTICE", "WARNING", "ERROR", "CRITICAL", "ALERT", "EMERGENCY"} {
				if tuitest.Line(screen, lvl, "a message from the demo server") == "" {
					t.Errorf("no %s message:\n%s", lvl, screen)
				}
			}
			if tuitest.Line(screen, "DEBUG") != "" {
				t.Errorf("a debug message came at level info:\n%s", screen)
			}
			d.Key("L")
			d.WaitFlash("server log level: notice")
			d.WaitText("level notice (L changes it)")
			d.Key("t", "t") // the messages
			setLevels(2)    // the handshake's and the L key's
			call()
			d.Key("6", "t")
			d.WaitText("Server log (13)")
			d.Key("?")
			d.WaitText("server log level")
		})
	}
}

// The help shows every key of the view and every global key at 80x24 and 120x35, none
// cut; what does not fit (the connection's description) is reached by scrolling, and
// the help says so. Any other key closes it.
func TestHelpShowsEveryKey(t *testing.T) {
	sess := tuitest.Connect(t, tuitest.Demo())
	m := tui.New(tuitest.Context(t), sess, tui.Options{Server: "demo", Transport: "in-memory pipe",
		Reconnect: func(context.Context) (*client.Session, error) { return nil, fmt.Errorf("no") }})
	d := tuitest.New(t, m)
	d.Run(m.Init())
	global := []string{"? ", "help", "1-6 ", "views", "alt+1-6 ", "also from a form", "tab ", "next view",
		"shift+tab ", "previous view", "R ", "reconnect", "q ", "quit"}
	views := map[string][]string{
		"1": {"unset a choice", "cancel the call", "call as task", "reload"},
		"2": {"cancel task", "answer its prompt", "find the server's tasks", "back to the table"},
		"3": {"unset a choice"},
		"4": {"subscribe"},
		"5": {"unset a choice"},
		"6": {"follow", "messages · server log · progress", "server log level (now info)"},
	}
	for _, size := range [][2]int{{80, 24}, {120, 35}} {
		d.Send(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		d.Key("1")
		d.WaitLine("▸ add", "forbidden")
		for v := range 6 {
			tab := fmt.Sprint(v + 1)
			d.Key(tab, "?")
			screen := d.WaitText("Keys of the")
			checkSize(t, screen, size[0], size[1])
			keys := screen[strings.Index(screen, "Keys of the"):]
			if i := strings.Index(keys, "The mouse"); i >= 0 {
				keys = keys[:i]
			}
			for _, want := range append(views[tab], global...) {
				if !strings.Contains(keys, want) {
					t.Errorf("%dx%d, view %s: the help lacks %q:\n%s", size[0], size[1], tab, want, screen)
				}
			}
			if strings.Contains(keys, "…") {
				t.Errorf("%dx%d, view %s: the help's keys are cut:\n%s", size[0], size[1], tab, screen)
			}
			if !strings.Contains(screen, "mcpi has") {
				if !strings.Contains(screen, "── lines 1-") || !strings.Contains(screen, "scroll") {
					t.Errorf("%dx%d, view %s: the help is cut without saying it scrolls:\n%s", size[0], size[1], tab, screen)
				}
				d.Key("G")
				if s := d.Screen(); !strings.Contains(s, "mcpi has") || !strings.Contains(s, "Keys of the") && !strings.Contains(s, "── lines") {
					t.Errorf("%dx%d, view %s: G does not reach the help's end:\n%s", size[0], size[1], tab, s)
				}
			}
			d.Key("x")
			if s := d.Screen(); strings.Contains(s, "Keys of the") || strings.Contains(s, "any key close help") {
				t.Errorf("a key other than a scroll key did not close the help:\n%s", s)
			}
		}
	}
}

// A form's "nothing was sent" goes from the status bar once the form is sent, or put
// away: it does not stay over the result for its 8 seconds.
func TestFormNoticeClearedBySubmitOrEsc(t *testing.T) {
	sess := tuitest.Connect(t, tuitest.Demo())
	_, d := start(t, sess, 100, 30)
	selectTool(t, d, "add")
	d.Key("enter")
	d.WaitText("tools/call add", "[ Call ]")
	d.Type("abc")
	d.Key("ctrl+s")
	d.WaitText("fix the highlighted arguments first; nothing was sent")
	d.Key("backspace", "backspace", "backspace")
	d.Type("2")
	d.Key("tab")
	d.Type("3")
	d.Key("ctrl+s")
	d.WaitText("Result of add", `"sum": 5`)
	d.WaitFor("the form's notice to go once the call is sent", func(s string) bool { return !strings.Contains(s, "nothing was sent") })

	d.Key("esc") // back to the form
	d.Key("ctrl+a", "ctrl+k")
	d.Type("x")
	d.Key("ctrl+s")
	d.WaitText("nothing was sent")
	d.Key("esc")
	d.WaitText("enter open the form")
	d.WaitFor("the form's notice to go once the form is put away", func(s string) bool { return !strings.Contains(s, "nothing was sent") })
	// Other messages stay their time.
	d.Send(ui.FlashMsg{Text: "something else"})
	done := len(tuitest.Seen[ui.FormDoneMsg](d))
	d.Key("enter", "esc")
	d.WaitFor("the form put away", func(string) bool { return len(tuitest.Seen[ui.FormDoneMsg](d)) > done })
	if s := d.Screen(); !strings.Contains(s, "something else") {
		t.Errorf("putting a form away cleared another message:\n%s", s)
	}
}

// A form shows all its problems at the first try, whether a value is not of its kind
// (TTL 1.5 for an integer, Task TTL xx) or the schema refuses it (Max tokens -3).
func TestFormShowsEveryProblemAtOnce(t *testing.T) {
	sess := tuitest.Connect(t, tuitest.Demo())
	_, d := start(t, sess, 120, 35)
	selectTool(t, d, "ask_model_task")
	d.Key("enter")
	d.WaitText("tools/call ask_model_task", "Task TTL (s)")
	d.Type("hi")
	for _, v := range []string{"-3", "1.5", "xx"} { // Max tokens, TTL, Task TTL
		d.Key("tab", "ctrl+a", "ctrl+k")
		d.Type(v)
	}
	d.Key("ctrl+t")
	d.WaitText("nothing was sent")
	screen := d.Screen()
	for _, want := range []string{"must be at least 1", "must be a whole number", "must be a number"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the form does not say %q:\n%s", want, screen)
		}
	}
	if n := len(sess.Tasks()); n != 0 {
		t.Fatalf("%d tasks started from an invalid form", n)
	}
}

// Words and gaps: a count of one is singular, the help's labels and the Server log's
// columns are apart, the server's tasks extension is named once, and in 2026-07-28
// the help says what mcpi declares in that era (no client tasks).
func TestTextAndGaps(t *testing.T) {
	t.Run("one tool", func(t *testing.T) {
		sess := tuitest.Connect(t, confirmServer())
		_, d := start(t, sess, 100, 30)
		screen := d.WaitLine("▸ confirm")
		if !strings.Contains(screen, "1 tool ") || strings.Contains(screen, "1 tools") {
			t.Errorf("the count of one tool is not singular:\n%s", screen)
		}
	})
	for _, era := range []struct {
		name string
		srv  func() *server.Server
	}{{"2025-11-25", tuitest.Demo}, {"2026-07-28", tuitest.DemoBoth}} {
		t.Run(era.name, func(t *testing.T) {
			sess := tuitest.Connect(t, era.srv())
			_, d := start(t, sess, 200, 50)
			d.WaitLine("▸ add")
			head := d.Screen()
			if n := strings.Count(head, "io.modelcontextprotocol/tasks"); sess.Modern() && n != 2 { // the server's, mcpi's
				t.Errorf("the header names the tasks extension %d times, want once for each side:\n%s", n, head)
			}
			d.Key("?")
			screen := d.WaitText("Keys of the")
			server, mcpi := tuitest.Line(screen, "Server has"), tuitest.Line(screen, "mcpi has")
			if !strings.Contains(server, "Server has ") || strings.Contains(server, "hasextension") || strings.Contains(server, "hastasks") {
				t.Errorf("no gap after the label: %q", server)
			}
			if strings.Contains(server, "ext:") {
				t.Errorf("the server's extensions are named twice: %q", server)
			}
			if sess.Modern() {
				if strings.Contains(mcpi, "tasks[") || !strings.Contains(mcpi, "extension io.modelcontextprotocol/tasks") {
					t.Errorf("in 2026-07-28 the help says mcpi has %q", mcpi)
				}
			} else if !strings.Contains(mcpi, "tasks[list,cancel,sampling,elicitation]") {
				t.Errorf("in 2025-11-25 the help says mcpi has %q", mcpi)
			}
			d.Key("esc")
			if _, err := sess.CallTool(tuitest.Context(t), &mcp.CallToolParams{Name: "log_levels"}, nil); err != nil {
				t.Fatal(err)
			}
			d.Key("6", "t")
			line := tuitest.Line(d.WaitLine("EMERGENCY"), "EMERGENCY")
			if !strings.Contains(line, "EMERGENCY mcpi-demo") {
				t.Errorf("no gap between the level and the logger: %q", line)
			}
		})
	}
}

// In 2026-07-28 the server decides whether a call is a task: the help does not offer
// ctrl+t, and ctrl+t says first what to press instead, within 120 columns.
func TestCallAsTask2026(t *testing.T) {
	sess := tuitest.Connect(t, tuitest.DemoBoth())
	_, d := start(t, sess, 120, 35)
	selectTool(t, d, "slow_task")
	d.Key("enter")
	screen := d.WaitText("tools/call slow_task", "[ Call ]")
	if strings.Contains(screen, "ctrl+t") {
		t.Errorf("the help bar offers ctrl+t in 2026-07-28:\n%s", screen)
	}
	d.Key("ctrl+t")
	f := d.WaitFlash("ctrl+s")
	if !strings.HasPrefix(f.Text, "press ctrl+s") {
		t.Errorf("ctrl+t says %q: what to do should come first", f.Text)
	}
	status := tuitest.Line(d.Screen(), "press ctrl+s")
	if !strings.Contains(status, "server decides") {
		t.Errorf("the status bar cuts what ctrl+t says: %q", status)
	}
	if n := len(sess.Tasks()); n != 0 {
		t.Errorf("ctrl+t started %d tasks", n)
	}
	d.Key("esc", "?")
	screen = d.WaitText("Keys of the Tools view")
	if strings.Contains(screen, "ctrl+t") || strings.Contains(screen, "call as task") {
		t.Errorf("the help offers ctrl+t in 2026-07-28:\n%s", screen)
	}
}

// An HTTP server that stops answering ends no connection: the header says it is
// unreachable (it said "connected" while every request failed), and connected again once
// a request gets through.
func TestUnreachableHTTPServer(t *testing.T) {
	srv := tuitest.DemoBoth()
	t.Cleanup(srv.Close)
	bs := bounce.New(t, srv.HTTPHandler(nil))
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	ctx := tuitest.Context(t)
	sess, err := client.New(mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, &transport.HTTPClient{URL: bs.URL, Client: hc})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	_, d := start(t, sess, 100, 24)
	d.WaitText("● connected")

	bs.Stop()
	if err := sess.Ping(ctx); !errors.Is(err, transport.ErrUnreachable) {
		t.Fatalf("ping of a server that is gone: %v", err)
	}
	d.WaitText("○ unreachable", "the server is no longer reachable — the session goes on once it answers again")

	bs.Start()
	if err := sess.Ping(ctx); err != nil {
		t.Fatalf("ping once the server is back: %v", err)
	}
	screen := d.WaitText("● connected")
	if strings.Contains(screen, "no longer reachable") {
		t.Errorf("the status still says the server is gone:\n%s", screen)
	}
}

// x on a running plain call says that the user cancelled it (it said "Error from slow:
// interrupted"), in both eras.
func TestStoppedCallSaysSo(t *testing.T) {
	for _, srv := range []*server.Server{tuitest.Demo(), tuitest.DemoBoth()} {
		sess := tuitest.Connect(t, srv)
		_, d := start(t, sess, 100, 30)
		selectTool(t, d, "slow")
		d.Key("enter")
		d.WaitText("tools/call slow")
		d.Type("30")
		d.Key("ctrl+s")
		d.WaitText("Calling slow")
		d.Key("x")
		screen := d.WaitText("Cancelled slow after", "You cancelled the call")
		if strings.Contains(screen, "Error from slow") || strings.Contains(screen, "interrupted") {
			t.Errorf("the cancelled call reads as an error:\n%s", screen)
		}
	}
}

// The Log shows the session's start (initialize and its answer, notifications/initialized
// in 2025-11-25; server/discover in 2026-07-28), which came before the view subscribed
// to the session's events.
func TestLogShowsTheHandshake(t *testing.T) {
	for _, era := range []struct {
		name string
		srv  func() *server.Server
		want []string
	}{
		{"2025-11-25", tuitest.Demo, []string{"initialize", "notifications/initialized"}},
		{"2026-07-28", tuitest.DemoBoth, []string{"server/discover"}},
	} {
		t.Run(era.name, func(t *testing.T) {
			sess := tuitest.Connect(t, era.srv())
			_, d := start(t, sess, 120, 35)
			d.Key("6")
			d.WaitText(era.want...)
		})
	}
}
