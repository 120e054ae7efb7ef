package call

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/internal/clitest"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
)

// Receiver tasks in the CLI: on by default; a request the server runs as a task on mcpi
// is answered like any other (answers file or terminal), and mcpi shows the server's polls.

func clientReport(t *testing.T, res *mcp.CallToolResult) demo.ClientTaskReport {
	t.Helper()
	var rep demo.ClientTaskReport
	if err := json.Unmarshal(res.StructuredContent, &rep); err != nil {
		t.Fatalf("not a client task report: %v: %s", err, res.StructuredContent)
	}
	return rep
}

// polledEvents returns the "polled" event lines of out.
func polledEvents(t *testing.T, out string) []*struct {
	TaskID, Status, Method, RelatedTask string
	Polls                               int
} {
	t.Helper()
	var got []*struct {
		TaskID, Status, Method, RelatedTask string
		Polls                               int
	}
	for _, e := range events(t, out) {
		if e.Event != "polled" {
			continue
		}
		if e.Polled == nil || e.Task != nil {
			t.Fatalf("polled event without its task, or with the followed task: %+v", e)
		}
		p := e.Polled
		got = append(got, &struct {
			TaskID, Status, Method, RelatedTask string
			Polls                               int
		}{p.TaskID, string(p.Status), p.Method, p.RelatedTask, p.Polls})
	}
	return got
}

// With --answers and --json over HTTP: mcpi declares receiver tasks, the server runs its
// elicitation as a task on mcpi with the CLI's defaults (10 minutes, polls every 500 ms),
// the answers file answers it by the tool's name, stdout holds the result alone, and
// stderr the polls as event lines.
func TestReceiverTaskAnsweredFromFile(t *testing.T) {
	var mu sync.Mutex
	var caps *mcp.ClientCapabilities
	d := clitest.ServeDemo(t, &demo.Options{Legacy: true, Tap: func(s *server.Session, dir jsonrpc.Direction, m jsonrpc.Message) {
		if r, ok := m.(*jsonrpc.Request); ok && dir == jsonrpc.Inbound && r.Method == mcp.MethodInitialize {
			var p mcp.InitializeParams
			json.Unmarshal(r.Params, &p)
			mu.Lock()
			caps = &p.Capabilities
			mu.Unlock()
		}
	}})
	env := clitest.New(t, &connect.Selection{URL: d.URL})
	answers := clitest.WriteFile(t, "answers.json", `{"elicitation": {"ask_user_task": {"name": "Ada"}}}`)
	if err := runIn(t, env, &Options{Name: demo.ToolAskUserTask, JSON: true, Answers: answers}); err != nil {
		msg, _ := clitest.Describe(err)
		t.Fatalf("%s\n%s", msg, env.ErrOut)
	}
	mu.Lock()
	declared := caps.Tasks
	mu.Unlock()
	if !declared.SupportsElicitationCreate() || !declared.SupportsSamplingCreateMessage() || !declared.SupportsList() || !declared.SupportsCancel() {
		t.Errorf("mcpi declared tasks %+v, want receiver tasks for sampling and elicitation, list and cancel", declared)
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal(env.Out.Bytes(), &res); err != nil {
		t.Fatalf("stdout is not one CallToolResult: %v\n%s", err, env.Out)
	}
	rep := clientReport(t, &res)
	var er mcp.ElicitResult
	json.Unmarshal(rep.Result, &er)
	if res.IsError || rep.Mode != demo.ModeTask || rep.Status != mcp.TaskStatusCompleted || er.Content["name"] != "Ada" {
		t.Fatalf("result: %s", res.Content[0].Text)
	}
	if c := rep.Created; c == nil || c.TTL == nil || *c.TTL != 600_000 || c.PollInterval == nil || *c.PollInterval != 500 {
		t.Errorf("mcpi's task %+v, want ttl 600000 and pollInterval 500", c)
	}
	polls := polledEvents(t, env.ErrOut.String())
	if len(polls) != rep.Polls || rep.Polls < 1 {
		t.Fatalf("%d polled lines on stderr, the server polled %d times:\n%s", len(polls), rep.Polls, env.ErrOut)
	}
	last := polls[len(polls)-1]
	if last.TaskID != rep.TaskID || last.Status != "completed" || last.Polls != rep.Polls || last.Method != mcp.MethodElicitationCreate || last.RelatedTask != "" {
		t.Errorf("last polled line %+v", last)
	}
}

// Declined from the answers file, and a sampling reply: the same as for plain requests.
func TestReceiverTaskAnswersDeclineAndSampling(t *testing.T) {
	env := clitest.New(t, legacy())
	answers := clitest.WriteFile(t, "answers.json", `{"elicitation": {"*": "decline"}, "sampling": {"ask_model_task": "Hi there"}}`)
	if err := runIn(t, env, &Options{Name: demo.ToolAskUserTask, JSON: true, Answers: answers}); err != nil {
		t.Fatal(err)
	}
	var res mcp.CallToolResult
	json.Unmarshal(env.Out.Bytes(), &res)
	var er mcp.ElicitResult
	if rep := clientReport(t, &res); res.IsError || rep.Mode != demo.ModeTask || json.Unmarshal(rep.Result, &er) != nil || er.Action != mcp.ElicitActionDecline {
		t.Errorf("declined: %s", env.Out)
	}
	env.Out.Reset()
	if err := runIn(t, env, &Options{Name: demo.ToolAskModelTask, Args: []string{"prompt=hello"}, JSON: true, Answers: answers}); err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(env.Out.Bytes(), &res)
	var reply mcp.CreateMessageResult
	rep := clientReport(t, &res)
	json.Unmarshal(rep.Result, &reply)
	if res.IsError || rep.Mode != demo.ModeTask || len(reply.Content) != 1 || reply.Content[0].Text != "Hi there" {
		t.Errorf("sampling: %s", env.Out)
	}
}

// On a terminal the question says that the server runs it as a task and polls it, and a
// status line counts the polls; it stays on the screen, in the past tense.
func TestReceiverTaskOnTerminal(t *testing.T) {
	env := clitest.New(t, legacy())
	env.IO.SetStdinTTY(true)
	env.IO.SetStderrTTY(true)
	env.IO.SetTerminalWidth(120)        // the polling line whole
	env.In.WriteString("\nAda\n1\ny\n") // accept; name; colour 1 (red); subscribe
	if err := runIn(t, env, &Options{Name: demo.ToolAskUserTask}); err != nil {
		msg, _ := clitest.Describe(err)
		t.Fatalf("%s\n%s", msg, env.ErrOut)
	}
	out := env.Out.String()
	if !strings.Contains(out, `"name":"Ada"`) || !strings.Contains(out, `"color":"red"`) || !strings.Contains(out, "as task ") {
		t.Errorf("stdout = %q", out)
	}
	stderr := env.ErrOut.String()
	i := strings.Index(stderr, "(as task ")
	if i < 0 {
		t.Fatalf("the question does not name the task:\n%q", stderr)
	}
	id := stderr[i+len("(as task ") : i+len("(as task ")+32]
	for _, want := range []string{
		"The server asks (as task " + id + ", which the server polls): ",
		"\r\033[Kthe server is polling this request as task " + id + " (1 poll)",
		"\r\033[Kthe server polled this request as task " + id + " (",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%q", want, stderr)
		}
	}
	if !strings.HasSuffix(stderr, "polls)\n") && !strings.HasSuffix(stderr, "poll)\n") {
		t.Errorf("the polling line does not stay on the screen:\n%q", stderr)
	}
}

// ask_user_task called with --task: its elicitation is a task on mcpi that belongs to the
// tool task, answered from the file by the tool's name; the --json events show the tool
// task waiting for mcpi's task, the input, the server's polls of mcpi's task, and the
// result last.
func TestReceiverTaskInToolTaskJSON(t *testing.T) {
	env := clitest.New(t, legacy())
	answers := clitest.WriteFile(t, "answers.json", `{"elicitation": {"ask_user_task": {"name": "Ada"}}}`)
	if err := runIn(t, env, &Options{Name: demo.ToolAskUserTask, Task: true, JSON: true, Answers: answers}); err != nil {
		msg, _ := clitest.Describe(err)
		t.Fatalf("%s\n%s", msg, env.Out)
	}
	evs := events(t, env.Out.String())
	if len(evs) < 4 || evs[0].Event != "created" || evs[len(evs)-1].Event != "result" {
		t.Fatalf("events: %s", kinds(evs))
	}
	toolTask := evs[0].Task.TaskID
	res := evs[len(evs)-1].Result
	rep := clientReport(t, res)
	if res.IsError || rep.ToolTask != toolTask || rep.Mode != demo.ModeTask || rep.Status != mcp.TaskStatusCompleted {
		t.Fatalf("result: %s", res.Content[0].Text)
	}
	polls := polledEvents(t, env.Out.String())
	if len(polls) != rep.Polls || rep.Polls < 1 {
		t.Fatalf("%d polled events, %d polls: %s", len(polls), rep.Polls, kinds(evs))
	}
	for _, p := range polls {
		if p.TaskID != rep.TaskID || p.RelatedTask != toolTask || p.Method != mcp.MethodElicitationCreate {
			t.Errorf("polled event %+v, want mcpi's task %s of the tool task %s", p, rep.TaskID, toolTask)
		}
	}
	var waiting, input bool
	for _, e := range evs {
		if e.Event == "status" && e.Task.Status == mcp.TaskStatusInputRequired && strings.Contains(e.Task.StatusMessage, rep.TaskID) {
			waiting = true
		}
		if e.Event == "input" && e.Input.Method == mcp.MethodElicitationCreate {
			input = true
		}
	}
	if !waiting || !input {
		t.Errorf("events lack the tool task waiting for mcpi's task (%v) or the input (%v): %s", waiting, input, env.Out)
	}
}

// With --task on a terminal, the followed task's line shows the polls.
func TestReceiverTaskInLiveLine(t *testing.T) {
	env := clitest.New(t, legacy())
	env.IO.SetStderrTTY(true)
	answers := clitest.WriteFile(t, "answers.json", `{"elicitation": {"ask_user_task": {"name": "Ada"}}}`)
	if err := runIn(t, env, &Options{Name: demo.ToolAskUserTask, Task: true, Answers: answers}); err != nil {
		msg, _ := clitest.Describe(err)
		t.Fatalf("%s\n%s", msg, env.ErrOut)
	}
	stderr := env.ErrOut.String()
	for _, want := range []string{"? input_required  the server polls task ", "… (1 poll)", "✓ completed"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%q", want, stderr)
		}
	}
}

// Neither a terminal nor an answer: refused like a plain request, with the same sentence.
func TestReceiverTaskUnanswered(t *testing.T) {
	env := clitest.New(t, legacy())
	msg, code := clitest.Describe(runIn(t, env, &Options{Name: demo.ToolAskUserTask}))
	if code != 2 || !strings.Contains(msg, `(elicitation for the tool "ask_user_task")`) || !strings.Contains(msg, "--answers FILE") {
		t.Errorf("got %q (exit %d)", msg, code)
	}
}
