package call

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/internal/clitest"
	"github.com/mcpi-dev/mcpi/internal/scripted"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// "tools call" against a scripted server of protocol 2026-07-28 over Streamable HTTP:
// with --task the call only declares the Tasks extension, the server decides, and mcpi
// says what it chose; the task is followed with tasks/get, which inlines the input it
// waits for and its outcome.

// modernServer is a scripted server of 2026-07-28 that lists the tool greet, and an
// environment that selects it with --url.
func modernServer(t *testing.T) (*scripted.Server, *clitest.Env) {
	t.Helper()
	f := scripted.New(t)
	f.Answer(mcp.MethodToolsList, `{"resultType":"complete","tools":[{"name":"greet","inputSchema":{"type":"object"}}]}`)
	return f, clitest.New(t, &connect.Selection{URL: f.HTTP()})
}

// polledTask answers tools/call with the task t1, working, and tasks/get with it working
// until the poll after, when it is what done returns.
func polledTask(f *scripted.Server, working int, done func() (any, error)) {
	f.Answer(mcp.MethodToolsCall, string(scripted.TaskJSON("task", "t1", mcp.TaskStatusWorking, 10, "")))
	var gets atomic.Int32
	f.On(mcp.MethodTasksGet, func(context.Context, *jsonrpc.Request) (any, error) {
		if int(gets.Add(1)) <= working {
			return scripted.TaskJSON("complete", "t1", mcp.TaskStatusWorking, 10, ""), nil
		}
		return done()
	})
}

// requestMethods is the methods of the requests f received, but subscriptions/listen (the
// client listens for the task's notifications; this server has none, and answers -32601),
// which comes at a time of its own.
func requestMethods(f *scripted.Server) []string {
	var out []string
	for _, m := range f.RequestMethods() {
		if m != mcp.MethodSubscriptionsListen {
			out = append(out, m)
		}
	}
	return out
}

// checkRequests checks the requests f received and that each tasks/get asked for t1.
func checkRequests(t *testing.T, f *scripted.Server, want ...string) {
	t.Helper()
	if got := requestMethods(f); !slices.Equal(got, want) {
		t.Errorf("the server received %v\nwant %v", got, want)
	}
	for _, g := range f.Requests(mcp.MethodTasksGet, mcp.MethodTasksUpdate, mcp.MethodTasksCancel) {
		var id string
		if !g.Param(t, "taskId", &id) || id != "t1" {
			t.Errorf("%s for the task %q, want t1: %s", g.Method, id, g.Params)
		}
	}
}

// checkErr checks the sentence and exit code of err.
func checkErr(t *testing.T, err error, want string, wantCode int) {
	t.Helper()
	if msg, code := clitest.Describe(err); msg != want || code != wantCode {
		t.Errorf("got  %q (exit %d)\nwant %q (exit %d)", msg, code, want, wantCode)
	}
}

// The server runs the call as a task: mcpi says so, polls it with tasks/get until it
// completes, and prints the result it inlines. The call declares the extension and sends
// no params.task.
func TestModernTask(t *testing.T) {
	f, env := modernServer(t)
	polledTask(f, 1, func() (any, error) {
		return scripted.TaskJSON("complete", "t1", mcp.TaskStatusCompleted, 10, scripted.ResultDone), nil
	})
	checkErr(t, runIn(t, env, &Options{Name: "greet", Task: true}), "", 0)
	if got := env.Out.String(); got != "done\n" {
		t.Errorf("stdout = %q", got)
	}
	if got := env.ErrOut.String(); got != "The server runs the call as task t1.\n" {
		t.Errorf("stderr = %q", got)
	}
	checkRequests(t, f, mcp.MethodServerDiscover, mcp.MethodToolsList, mcp.MethodToolsCall, mcp.MethodTasksGet, mcp.MethodTasksGet)
	call := f.Last(mcp.MethodToolsCall)
	if call.Param(t, "task", nil) {
		t.Errorf("params.task sent in 2026-07-28: %s", call.Params)
	}
	var caps struct {
		Extensions map[string]json.RawMessage `json:"extensions"`
	}
	if err := json.Unmarshal(call.Meta(t)[mcp.MetaClientCapabilities], &caps); err != nil || caps.Extensions[mcp.ExtensionTasks] == nil {
		t.Errorf("the call does not declare the Tasks extension: %s (%v)", call.Params, err)
	}
	if h := call.Header; h.Get("Mcp-Method") != mcp.MethodToolsCall || h.Get("Mcp-Name") != "greet" {
		t.Errorf("tools/call headers: %v", h)
	}
}

// With --json: the event lines, created first and the result last; nothing on stderr.
func TestModernTaskJSON(t *testing.T) {
	f, env := modernServer(t)
	polledTask(f, 1, func() (any, error) {
		return scripted.TaskJSON("complete", "t1", mcp.TaskStatusCompleted, 10, scripted.ResultDone), nil
	})
	checkErr(t, runIn(t, env, &Options{Name: "greet", Task: true, JSON: true}), "", 0)
	evs := events(t, env.Out.String())
	if got := kinds(evs); got != "created status:working status:completed result" {
		t.Errorf("events: %s", got)
	}
	for _, e := range evs {
		if e.Task == nil || e.Task.TaskID != "t1" || e.Task.TTL == nil || *e.Task.TTL != 600000 || e.Task.PollInterval == nil || *e.Task.PollInterval != 10 {
			t.Errorf("%s event: task %+v", e.Event, e.Task)
		}
	}
	if res := evs[len(evs)-1].Result; res == nil || res.IsError || len(res.Content) != 1 || res.Content[0].Text != "done" {
		t.Errorf("result: %+v", res)
	}
	if env.ErrOut.Len() != 0 {
		t.Errorf("stderr = %q", env.ErrOut)
	}
	checkRequests(t, f, mcp.MethodServerDiscover, mcp.MethodToolsList, mcp.MethodToolsCall, mcp.MethodTasksGet, mcp.MethodTasksGet)
}

// A server may answer a call that declared the extension at once: mcpi says so and
// prints the result; nothing is polled.
func TestModernTaskAnsweredAtOnce(t *testing.T) {
	f, env := modernServer(t)
	f.Answer(mcp.MethodToolsCall, `{"resultType":"complete","content":[{"type":"text","text":"Hello, Ada!"}]}`)
	checkErr(t, runIn(t, env, &Options{Name: "greet", Task: true}), "", 0)
	if got := env.Out.String(); got != "Hello, Ada!\n" {
		t.Errorf("stdout = %q", got)
	}
	if got := env.ErrOut.String(); got != "The server answered at once, without a task.\n" {
		t.Errorf("stderr = %q", got)
	}
	checkRequests(t, f, mcp.MethodServerDiscover, mcp.MethodToolsList, mcp.MethodToolsCall)

	// With --json: the result event alone.
	f, env = modernServer(t)
	f.Answer(mcp.MethodToolsCall, `{"resultType":"complete","content":[{"type":"text","text":"Hello, Ada!"}]}`)
	checkErr(t, runIn(t, env, &Options{Name: "greet", Task: true, JSON: true}), "", 0)
	evs := events(t, env.Out.String())
	if kinds(evs) != "result" || evs[0].Result == nil || evs[0].Result.Content[0].Text != "Hello, Ada!" {
		t.Errorf("events: %s", env.Out)
	}
	if env.ErrOut.Len() != 0 {
		t.Errorf("stderr = %q", env.ErrOut)
	}
}

// inputTask answers tools/call with the task t1, working, and tasks/get with it waiting
// for the user's name (an elicitation) until tasks/update answers, then completed with a
// greeting of the name given.
func inputTask(f *scripted.Server) {
	f.Answer(mcp.MethodToolsCall, string(scripted.TaskJSON("task", "t1", mcp.TaskStatusWorking, 10, "")))
	var mu sync.Mutex
	name := ""
	f.On(mcp.MethodTasksUpdate, func(_ context.Context, req *jsonrpc.Request) (any, error) {
		var p struct {
			InputResponses map[string]mcp.ElicitResult `json:"inputResponses"`
		}
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, err.Error())
		}
		mu.Lock()
		defer mu.Unlock()
		name, _ = p.InputResponses["name"].Content["name"].(string)
		return scripted.Raw(scripted.AckComplete), nil
	})
	f.On(mcp.MethodTasksGet, func(context.Context, *jsonrpc.Request) (any, error) {
		mu.Lock()
		defer mu.Unlock()
		if name == "" {
			return scripted.TaskJSON("complete", "t1", mcp.TaskStatusInputRequired, 10, scripted.AskName), nil
		}
		return scripted.TaskJSON("complete", "t1", mcp.TaskStatusCompleted, 10, `"result":{"content":[{"type":"text","text":"Hello, `+name+`!"}]}`), nil
	})
	f.Answer(mcp.MethodTasksCancel, scripted.AckComplete)
}

// A task waiting for input (input_required, with an elicitation in inputRequests) is
// answered from --answers with tasks/update, once, and the poll after the
// acknowledgement finds it completed.
func TestModernTaskInputFromAnswers(t *testing.T) {
	f, env := modernServer(t)
	inputTask(f)
	answers := clitest.WriteFile(t, "answers.json", `{"elicitation": {"greet": {"name": "Ada"}}}`)
	checkErr(t, runIn(t, env, &Options{Name: "greet", Task: true, JSON: true, Answers: answers}), "", 0)
	evs := events(t, env.Out.String())
	if got := kinds(evs); got != "created status:input_required input status:completed result" {
		t.Errorf("events: %s", got)
	}
	for _, e := range evs {
		if e.Input != nil && (e.Input.Method != "elicitation/create" || e.Input.Message != "Your name?" || e.Task.Status != mcp.TaskStatusInputRequired) {
			t.Errorf("input event: %+v, task %+v", e.Input, e.Task)
		}
	}
	if res := evs[len(evs)-1].Result; res == nil || res.Content[0].Text != "Hello, Ada!" {
		t.Errorf("result: %+v", res)
	}
	checkRequests(t, f, mcp.MethodServerDiscover, mcp.MethodToolsList, mcp.MethodToolsCall, mcp.MethodTasksGet, mcp.MethodTasksUpdate, mcp.MethodTasksGet)
	var p struct {
		TaskID         string                     `json:"taskId"`
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
	}
	u := f.Last(mcp.MethodTasksUpdate)
	if err := json.Unmarshal(u.Params, &p); err != nil || p.TaskID != "t1" || len(p.InputResponses) != 1 ||
		string(p.InputResponses["name"]) != `{"action":"accept","content":{"name":"Ada"}}` {
		t.Errorf("tasks/update params: %s (%v)", u.Params, err)
	}
	if u.Param(t, "requestState", nil) || strings.Contains(string(u.Params), mcp.MetaRelatedTask) {
		t.Errorf("tasks/update carries what the extension does not: %s", u.Params)
	}

	// Without --json: the result, and on stderr what the server chose.
	f, env = modernServer(t)
	inputTask(f)
	checkErr(t, runIn(t, env, &Options{Name: "greet", Task: true, Answers: answers}), "", 0)
	if env.Out.String() != "Hello, Ada!\n" || env.ErrOut.String() != "The server runs the call as task t1.\n" {
		t.Errorf("stdout %q, stderr %q", env.Out, env.ErrOut)
	}
	checkRequests(t, f, mcp.MethodServerDiscover, mcp.MethodToolsList, mcp.MethodToolsCall, mcp.MethodTasksGet, mcp.MethodTasksUpdate, mcp.MethodTasksGet)
}

// Neither a terminal nor an answer: the command says how to give one, answers nothing,
// and says that it cancelled the task, which cannot be told of a refusal.
func TestModernTaskInputUnanswered(t *testing.T) {
	f, env := modernServer(t)
	inputTask(f)
	checkErr(t, runIn(t, env, &Options{Name: "greet", Task: true}),
		`mcpi: the server asked for the user's input (elicitation for the tool "greet"), which mcpi can only give on a terminal or from an answers file; run it on a terminal, or pass --answers FILE with {"elicitation": {"greet": {"name": "..."}}}; so mcpi cancelled the task "t1" (in protocol 2026-07-28 a task's input cannot be refused)`, 2)
	if n := len(f.Requests(mcp.MethodTasksUpdate)); n != 0 {
		t.Errorf("%d tasks/update, want none", n)
	}
	if n := len(f.Requests(mcp.MethodTasksCancel)); n != 1 {
		t.Errorf("%d tasks/cancel, want one", n)
	}
}

// A task that failed with an error inlined ends the command with that error, exit 1; one
// whose tool reported an error prints the result and exits 1.
func TestModernTaskFailed(t *testing.T) {
	f, env := modernServer(t)
	polledTask(f, 1, func() (any, error) {
		return scripted.TaskJSON("complete", "t1", mcp.TaskStatusFailed, 10, `"statusMessage":"disk on fire","error":{"code":-32050,"message":"disk on fire","data":{"disk":"sda"}}`), nil
	})
	checkErr(t, runIn(t, env, &Options{Name: "greet", Task: true}), "mcpi: the server returned an error: disk on fire (JSON-RPC error -32050)", 1)
	if env.Out.Len() != 0 || env.ErrOut.String() != "The server runs the call as task t1.\n" {
		t.Errorf("stdout %q, stderr %q", env.Out, env.ErrOut)
	}
	checkRequests(t, f, mcp.MethodServerDiscover, mcp.MethodToolsList, mcp.MethodToolsCall, mcp.MethodTasksGet, mcp.MethodTasksGet)

	// With --json the error event carries the server's error.
	f, env = modernServer(t)
	polledTask(f, 0, func() (any, error) {
		return scripted.TaskJSON("complete", "t1", mcp.TaskStatusFailed, 10, `"error":{"code":-32050,"message":"disk on fire","data":{"disk":"sda"}}`), nil
	})
	checkErr(t, runIn(t, env, &Options{Name: "greet", Task: true, JSON: true}), "mcpi: the server returned an error: disk on fire (JSON-RPC error -32050)", 1)
	evs := events(t, env.Out.String())
	last := evs[len(evs)-1]
	if got := kinds(evs); got != "created status:failed error" || last.Error == nil || last.Error.Code == nil || *last.Error.Code != -32050 ||
		last.Error.Message != "disk on fire" || string(last.Error.Data) != `{"disk":"sda"}` {
		t.Errorf("events: %s\n%s", got, env.Out)
	}

	// A tool error (isError) is a completed task.
	f, env = modernServer(t)
	polledTask(f, 0, func() (any, error) {
		return scripted.TaskJSON("complete", "t1", mcp.TaskStatusCompleted, 10, `"result":{"content":[{"type":"text","text":"no such person"}],"isError":true}`), nil
	})
	checkErr(t, runIn(t, env, &Options{Name: "greet", Task: true}), `mcpi: the tool "greet" reported an error`, 1)
	if env.Out.String() != "no such person\n" {
		t.Errorf("stdout %q", env.Out)
	}
}

// -32602 on tasks/get: the server no longer knows the task.
func TestModernTaskGone(t *testing.T) {
	f, env := modernServer(t)
	polledTask(f, 1, func() (any, error) {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "task not found or expired")
	})
	checkErr(t, runIn(t, env, &Options{Name: "greet", Task: true}), `mcpi: the server no longer knows the task "t1" (it expired, or the server restarted)`, 1)
	if env.Out.Len() != 0 || env.ErrOut.String() != "The server runs the call as task t1.\n" {
		t.Errorf("stdout %q, stderr %q", env.Out, env.ErrOut)
	}
	checkRequests(t, f, mcp.MethodServerDiscover, mcp.MethodToolsList, mcp.MethodToolsCall, mcp.MethodTasksGet, mcp.MethodTasksGet)
}

// A plain call of a tool the server runs only as a task: -32021 naming the Tasks
// extension among the required capabilities is one sentence that names --task, and
// exit 2, as the same mistake in 2025-11-25, which mcpi refuses itself.
func TestModernTaskOnlyTool(t *testing.T) {
	f, env := modernServer(t)
	f.On(mcp.MethodToolsCall, func(context.Context, *jsonrpc.Request) (any, error) {
		return nil, jsonrpc.NewError(mcp.CodeMissingRequiredClientCapability, "greet runs as a task only").
			WithData(mcp.MissingCapabilityData{RequiredCapabilities: mcp.ClientCapabilities{Extensions: map[string]json.RawMessage{mcp.ExtensionTasks: json.RawMessage(`{}`)}}})
	})
	checkErr(t, runIn(t, env, &Options{Name: "greet"}), "mcpi: the server runs this tool only as a task: call it with --task (JSON-RPC error -32021)", 2)
	if env.Out.Len() != 0 || env.ErrOut.Len() != 0 {
		t.Errorf("stdout %q, stderr %q", env.Out, env.ErrOut)
	}
	checkRequests(t, f, mcp.MethodServerDiscover, mcp.MethodToolsList, mcp.MethodToolsCall)
	call := f.Last(mcp.MethodToolsCall)
	var caps struct {
		Extensions map[string]json.RawMessage `json:"extensions"`
	}
	if err := json.Unmarshal(call.Meta(t)[mcp.MetaClientCapabilities], &caps); err != nil || caps.Extensions[mcp.ExtensionTasks] != nil {
		t.Errorf("a plain call declares the Tasks extension: %s (%v)", call.Params, err)
	}
}

// --ttl asks nothing of a server of 2026-07-28, which chooses a task's ttl: mcpi says it
// is ignored, and sends no params.task.
func TestModernTaskTTLIgnored(t *testing.T) {
	f, env := modernServer(t)
	f.Answer(mcp.MethodToolsCall, `{"resultType":"complete","content":[{"type":"text","text":"Hello, Ada!"}]}`)
	checkErr(t, runIn(t, env, &Options{Name: "greet", Task: true, TTL: time.Hour}), "", 0)
	if got, want := env.ErrOut.String(), "--ttl is ignored: in protocol 2026-07-28 the server chooses a task's ttl.\nThe server answered at once, without a task.\n"; got != want {
		t.Errorf("stderr %q, want %q", got, want)
	}
	if call := f.Last(mcp.MethodToolsCall); call.Param(t, "task", nil) {
		t.Errorf("params.task sent in 2026-07-28: %s", call.Params)
	}
}

// The same, with a server whose tasks/cancel fails: the command does not say it
// cancelled the task, but that it gave up on it and that the cancel failed, quoting the
// server, as the task may still be running.
func TestModernTaskInputUnansweredCancelFails(t *testing.T) {
	f, env := modernServer(t)
	inputTask(f)
	f.On(mcp.MethodTasksCancel, func(context.Context, *jsonrpc.Request) (any, error) {
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "database down")
	})
	checkErr(t, runIn(t, env, &Options{Name: "greet", Task: true}),
		`mcpi: the server asked for the user's input (elicitation for the tool "greet"), which mcpi can only give on a terminal or from an answers file; run it on a terminal, or pass --answers FILE with {"elicitation": {"greet": {"name": "..."}}}; so mcpi gave up on the task "t1" (in protocol 2026-07-28 a task's input cannot be refused), and its tasks/cancel failed (database down, JSON-RPC error -32603): the task may still be running on the server`, 2)
}
