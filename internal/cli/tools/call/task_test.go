package call

import (
	"bufio"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/internal/clitest"
	"github.com/mcpi-dev/mcpi/internal/cli/taskview"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
)

// legacy selects the embedded demo server in 2025-11-25, for what only that era has:
// taskSupport, progress of tasks, receiver tasks.
func legacy() *connect.Selection {
	return &connect.Selection{Protocol: mcp.LatestProtocolVersion}
}

// events parses --json output: one event per line.
func events(t *testing.T, out string) []taskview.Event {
	t.Helper()
	var evs []taskview.Event
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev taskview.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("not a JSON event line: %v\n%s", err, sc.Text())
		}
		evs = append(evs, ev)
	}
	return evs
}

func kinds(evs []taskview.Event) string {
	var ks []string
	for _, e := range evs {
		k := e.Event
		if e.Event == "status" && e.Task != nil {
			k += ":" + string(e.Task.Status)
		}
		ks = append(ks, k)
	}
	return strings.Join(ks, " ")
}

// The slow task over Streamable HTTP with --json: created first, then working with
// progress, completed, and the result last. Status notifications drive it, so the task
// ends without a single tasks/get (the server's pollInterval is 1 s, the task 0.2 s).
func TestTaskJSONOverHTTP(t *testing.T) {
	var calls, polls atomic.Int32
	tap := func(_ *server.Session, dir jsonrpc.Direction, m jsonrpc.Message) {
		if r, ok := m.(*jsonrpc.Request); ok && dir == jsonrpc.Inbound {
			switch r.Method {
			case mcp.MethodToolsCall:
				calls.Add(1)
			case mcp.MethodTasksGet:
				polls.Add(1)
			}
		}
	}
	env := clitest.New(t, &connect.Selection{URL: clitest.DemoHTTP(t, &demo.Options{Tap: tap}), Protocol: mcp.LatestProtocolVersion})
	err := runIn(t, env, &Options{Name: "slow_task", Args: []string{"seconds=0.2", "steps=2"}, Task: true, TTL: 10 * time.Minute, JSON: true})
	if err != nil {
		msg, _ := clitest.Describe(err)
		t.Fatal(msg)
	}
	evs := events(t, env.Out.String())
	got := kinds(evs)
	if len(evs) < 4 || evs[0].Event != "created" || evs[len(evs)-1].Event != "result" {
		t.Fatalf("events: %s", got)
	}
	for _, want := range []string{"progress", "status:working", "status:completed"} {
		if !strings.Contains(got, want) {
			t.Errorf("events lack %s: %s", want, got)
		}
	}
	if c := evs[0].Task; c == nil || c.TaskID == "" || c.Status != mcp.TaskStatusWorking || c.TTL == nil || *c.TTL != 600_000 {
		t.Errorf("created event: %+v", c)
	}
	var sawTotal bool
	for _, e := range evs {
		if e.Task == nil || e.Task.TaskID != evs[0].Task.TaskID {
			t.Errorf("%s event without the task: %+v", e.Event, e)
		}
		if e.Progress != nil && e.Progress.Total != nil && *e.Progress.Total == 2 {
			sawTotal = true
		}
	}
	if !sawTotal {
		t.Errorf("no progress with total 2: %s", env.Out)
	}
	res := evs[len(evs)-1].Result
	if res == nil || res.IsError || len(res.Content) != 1 || res.Content[0].Text != "done: worked 200ms in 2 steps" {
		t.Errorf("result: %+v", res)
	}
	if id, _ := res.Meta.RelatedTask(); id != evs[0].Task.TaskID {
		t.Errorf("the result's related-task meta is %q, want the task id", id)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("the server saw %d tools/call, want 1", n)
	}
	if n := polls.Load(); n != 0 {
		t.Errorf("the server got %d tasks/get: completion should arrive by notification, not by a poll", n)
	}
}

// On a terminal: one status line redrawn in place on stderr, then the result on stdout
// like a plain call.
func TestTaskOnTerminal(t *testing.T) {
	for _, protocol := range []string{mcp.LatestProtocolVersion, mcp.ProtocolVersion20260728} {
		env := clitest.New(t, &connect.Selection{Protocol: protocol})
		env.IO.SetStderrTTY(true)
		if err := runIn(t, env, &Options{Name: "slow_task", Args: []string{"seconds=0.1", "steps=2"}, Task: true}); err != nil {
			msg, _ := clitest.Describe(err)
			t.Fatal(msg)
		}
		if got := env.Out.String(); got != "done: worked 100ms in 2 steps\n" {
			t.Errorf("%s: stdout = %q", protocol, got)
		}
		line := env.ErrOut.String()
		// 2025-11-25 reports the steps as progress too (a bar); 2026-07-28 has no
		// progress for tasks, only the status message.
		wants := []string{"\r\033[K◐ working", "step 1 of 2", "\r\033[K✓ completed", "polls\n"}
		if protocol == mcp.LatestProtocolVersion {
			wants = append(wants, "] 50%")
		} else {
			wants = append(wants, "The server runs the call as task ")
		}
		for _, want := range wants {
			if !strings.Contains(line, want) {
				t.Errorf("%s: status line lacks %q:\n%q", protocol, want, line)
			}
		}
	}
}

func TestTaskFailures(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		out  string // a substring of stdout; empty: stdout must be empty
		want string
		code int
	}{
		{"isError", Options{Name: "fail_task", Args: []string{"mode=isError"}, Task: true}, "fail_task reports a tool error on purpose", `mcpi: the tool "fail_task" reported an error`, 1},
		{"JSON-RPC error", Options{Name: "fail_task", Args: []string{"mode=error"}, Task: true}, "", "mcpi: the server returned an error: fail_task failed on purpose (JSON-RPC error -32050)", 1},
		{"JSON-RPC error --json", Options{Name: "fail_task", Args: []string{"mode=error"}, Task: true, JSON: true}, `"error":{"code":-32050,"message":"fail_task failed on purpose","data":{"reason":"demo"}}`, "mcpi: the server returned an error: fail_task failed on purpose (JSON-RPC error -32050)", 1},
	}
	for _, protocol := range []string{mcp.LatestProtocolVersion, mcp.ProtocolVersion20260728} {
		for _, tt := range tests {
			t.Run(protocol+"/"+tt.name, func(t *testing.T) {
				env := clitest.New(t, &connect.Selection{Protocol: protocol})
				msg, code := clitest.Describe(runIn(t, env, &tt.opts))
				if msg != tt.want || code != tt.code {
					t.Errorf("got %q (exit %d), want %q (exit %d)", msg, code, tt.want, tt.code)
				}
				switch got := env.Out.String(); {
				case tt.out == "" && got != "":
					t.Errorf("stdout = %q, want nothing", got)
				case !strings.Contains(got, tt.out):
					t.Errorf("stdout lacks %q:\n%s", tt.out, got)
				}
			})
		}
	}
}

// Calls the task rules forbid are refused before anything is sent, in one sentence,
// unless --send-anyway; flags that need --task, and --detach with the embedded server,
// are refused before connecting.
func TestRefused(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		want string
		code int
	}{
		{"required without --task", Options{Name: "slow_task"}, `mcpi: the tool "slow_task" must be called as a task (its taskSupport is required); use --task`, 2},
		{"forbidden with --task", Options{Name: "add", Args: []string{"a=1", "b=2"}, Task: true}, `mcpi: the tool "add" cannot run as a task (its taskSupport is forbidden); call it without --task`, 2},
		{"required without --task, sent anyway", Options{Name: "slow_task", SendAnyway: true},
			`mcpi: the server returned an error: tool "slow_task" must be called as a task (taskSupport is required) (JSON-RPC error -32601)`, 1},
		{"forbidden with --task, sent anyway", Options{Name: "add", Args: []string{"a=1", "b=2"}, Task: true, SendAnyway: true},
			`mcpi: the server returned an error: tool "add" does not support task execution (taskSupport is forbidden) (JSON-RPC error -32601)`, 1},
		{"--ttl without --task", Options{Name: "slow_task", TTL: time.Minute}, "mcpi: --ttl applies to a task: add --task", 2},
		{"--detach without --task", Options{Name: "slow_task", Detach: true}, "mcpi: --detach applies to a task: add --task", 2},
		{"--detach with the embedded server", Options{Name: "slow_task", Task: true, Detach: true},
			`mcpi: --detach cannot work with the embedded demo server, which lives only as long as this mcpi process, so a detached task could never be fetched; run "mcpi serve demo --http 127.0.0.1:8080" and pass --url http://127.0.0.1:8080/mcp`, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := clitest.New(t, legacy()) // taskSupport is a 2025-11-25 rule
			msg, code := clitest.Describe(runIn(t, env, &tt.opts))
			if msg != tt.want || code != tt.code {
				t.Errorf("got  %q (exit %d)\nwant %q (exit %d)", msg, code, tt.want, tt.code)
			}
			if env.Out.Len() != 0 {
				t.Errorf("stdout: %s", env.Out)
			}
		})
	}
}

// ask_task asks the user (elicitation) and then the model (sampling) through the side
// channel; --answers answers both, by tool name and by "*".
func TestAskTaskWithAnswers(t *testing.T) {
	url := clitest.DemoHTTP(t, nil)
	for _, protocol := range []string{mcp.LatestProtocolVersion, mcp.ProtocolVersion20260728} {
		for _, file := range []string{
			`{"elicitation": {"ask_task": {"name": "Ada"}}, "sampling": {"ask_task": "Hello, Ada!"}}`,
			`{"elicitation": {"*": {"name": "Ada"}}, "sampling": {"other": "no", "*": "Hello, Ada!"}}`,
		} {
			env := clitest.New(t, &connect.Selection{URL: url, Protocol: protocol})
			answers := clitest.WriteFile(t, "answers.json", file)
			err := runIn(t, env, &Options{Name: "ask_task", Task: true, JSON: true, Answers: answers})
			if err != nil {
				msg, _ := clitest.Describe(err)
				t.Fatalf("%s: %s\n%s", protocol, msg, env.Out)
			}
			evs := events(t, env.Out.String())
			got := kinds(evs)
			if !strings.Contains(got, "status:input_required") || strings.Count(got, "input") < 3 {
				t.Errorf("%s: events: %s", protocol, got)
			}
			var methods []string
			for _, e := range evs {
				if e.Input != nil {
					methods = append(methods, e.Input.Method)
				}
			}
			if strings.Join(methods, " ") != "elicitation/create sampling/createMessage" {
				t.Errorf("%s: input events: %v", protocol, methods)
			}
			res := evs[len(evs)-1].Result
			if res == nil || res.IsError || res.Content[0].Text != "name: Ada; model: Hello, Ada!" {
				t.Fatalf("%s: result: %+v", protocol, res)
			}
			if protocol != mcp.LatestProtocolVersion {
				continue // 2026-07-28 asks through the task's inputRequests, not related requests
			}
			var a struct{ ElicitationRelatedTask, SamplingRelatedTask string }
			json.Unmarshal(res.StructuredContent, &a)
			if id := evs[0].Task.TaskID; a.ElicitationRelatedTask != id || a.SamplingRelatedTask != id {
				t.Errorf("the answers did not carry the related task %s: %s", id, res.StructuredContent)
			}
		}
	}
}

// Unanswered input ends the command with how to answer it, in both eras: in 2025-11-25
// the server hears the refusal, in 2026-07-28 mcpi cancels the task.
func TestAskTaskUnanswered(t *testing.T) {
	for _, protocol := range []string{mcp.LatestProtocolVersion, mcp.ProtocolVersion20260728} {
		// In 2026-07-28 the sentence goes on to say that the task was cancelled.
		fits := func(msg, want string) bool {
			if protocol == mcp.LatestProtocolVersion {
				return msg == want
			}
			rest, ok := strings.CutPrefix(msg, want+`; so mcpi cancelled the task "`)
			return ok && strings.HasSuffix(rest, `" (in protocol 2026-07-28 a task's input cannot be refused)`)
		}
		// Neither a terminal nor an answers file.
		env := clitest.New(t, &connect.Selection{Protocol: protocol})
		msg, code := clitest.Describe(runIn(t, env, &Options{Name: "ask_task", Task: true}))
		want := `mcpi: the server asked for the user's input (elicitation for the tool "ask_task"), which mcpi can only give on a terminal or from an answers file; run it on a terminal, or pass --answers FILE with {"elicitation": {"ask_task": {"name": "..."}}}`
		if !fits(msg, want) || code != 2 {
			t.Errorf("%s: got  %q (exit %d)\nwant %q (exit 2)", protocol, msg, code, want)
		}
		// An answers file without the sampling answer.
		env = clitest.New(t, &connect.Selection{Protocol: protocol})
		answers := clitest.WriteFile(t, "answers.json", `{"elicitation": {"ask_task": {"name": "Ada"}}}`)
		msg, code = clitest.Describe(runIn(t, env, &Options{Name: "ask_task", Task: true, Answers: answers}))
		want = `mcpi: the server asked for the user's input (sampling for the tool "ask_task"), and the answers file ` + answers + ` has no answer for it; add one, such as {"sampling": {"ask_task": "the model's reply"}}, or run mcpi on a terminal`
		if !fits(msg, want) || code != 2 {
			t.Errorf("%s: got  %q (exit %d)\nwant %q (exit 2)", protocol, msg, code, want)
		}
	}
}

// A bad answers file is refused before anything is sent.
func TestBadAnswersFile(t *testing.T) {
	var connected atomic.Bool
	d := clitest.ServeDemo(t, &demo.Options{Tap: func(*server.Session, jsonrpc.Direction, jsonrpc.Message) { connected.Store(true) }})
	env := clitest.New(t, &connect.Selection{URL: d.URL})
	answers := clitest.WriteFile(t, "answers.json", `{"sampling": {"ask_task": 42}}`)
	err := Run(clitest.Context(t), &Options{IO: env.IO, Connect: env.Factory.Connect, Name: "ask_task", Task: true, Answers: answers})
	if connected.Load() {
		t.Error("connected to the server despite the bad answers file")
	}
	msg, code := clitest.Describe(err)
	want := `mcpi: the answers file ` + answers + ` is not in the expected shape {"elicitation": {"TOOL": {"field": "value"}}, "sampling": {"TOOL": "the model's reply"}}: the sampling answer for "ask_task" must be a string (the model's reply, or "decline"), not a number`
	if msg != want || code != 2 {
		t.Errorf("got  %q (exit %d)\nwant %q (exit 2)", msg, code, want)
	}
}

// On a terminal the side-channel questions are asked at the prompt, with the status line
// out of the way.
func TestAskTaskOnTerminal(t *testing.T) {
	env := clitest.New(t, nil)
	env.IO.SetStdinTTY(true)
	env.IO.SetStderrTTY(true)
	env.In.WriteString("\nAda\nHello, Ada!\n") // answer the form: accept, name; then the model's reply
	if err := runIn(t, env, &Options{Name: "ask_task", Task: true}); err != nil {
		msg, _ := clitest.Describe(err)
		t.Fatalf("%s\n%s", msg, env.ErrOut)
	}
	if got := env.Out.String(); got != "name: Ada; model: Hello, Ada!\n" {
		t.Errorf("stdout = %q", got)
	}
	prompts := env.ErrOut.String()
	for _, want := range []string{"The server asks (for task ", ": What is your name?", "for a model reply", "? input_required", "✓ completed"} {
		if !strings.Contains(prompts, want) {
			t.Errorf("stderr lacks %q:\n%q", want, prompts)
		}
	}
}

// --detach says on stderr which task the server runs the call as, in either era, as a
// followed call without a terminal does: in 2025-11-25 it said nothing.
func TestDetachSaysTheTask(t *testing.T) {
	clitest.StateDir(t)
	url := clitest.DemoHTTP(t, nil)
	for _, protocol := range []string{mcp.LatestProtocolVersion, mcp.ProtocolVersion20260728} {
		env := clitest.New(t, &connect.Selection{URL: url, Protocol: protocol})
		if err := runIn(t, env, &Options{Name: "slow_task", Args: []string{"seconds=0.1", "steps=2"}, Task: true, Detach: true}); err != nil {
			msg, _ := clitest.Describe(err)
			t.Fatalf("%s: %s", protocol, msg)
		}
		id := strings.TrimSpace(env.Out.String())
		if want := "The server runs the call as task " + id + ".\n"; id == "" || env.ErrOut.String() != want {
			t.Errorf("%s: stdout %q, stderr %q; want the id and %q", protocol, env.Out, env.ErrOut, want)
		}
	}
}
