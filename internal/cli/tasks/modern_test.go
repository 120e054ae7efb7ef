package tasks_test

import (
	"context"
	"encoding/json"
	"maps"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/internal/clitest"
	"github.com/mcpi-dev/mcpi/internal/cli/state"
	"github.com/mcpi-dev/mcpi/internal/cli/tasks/cancel"
	"github.com/mcpi-dev/mcpi/internal/cli/tasks/get"
	"github.com/mcpi-dev/mcpi/internal/cli/tasks/list"
	"github.com/mcpi-dev/mcpi/internal/cli/tasks/result"
	"github.com/mcpi-dev/mcpi/internal/cli/tasks/shared"
	"github.com/mcpi-dev/mcpi/internal/cli/tasks/watch"
	"github.com/mcpi-dev/mcpi/internal/cli/taskview"
	"github.com/mcpi-dev/mcpi/internal/cli/tools/call"
	"github.com/mcpi-dev/mcpi/internal/scripted"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// The "tasks" commands on a task of a scripted server of protocol 2026-07-28 (the Tasks
// extension) over Streamable HTTP: started with --detach, then found again through the
// state file, without server flags. The extension has no tasks/result and no
// tasks/list: tasks/get inlines the outcome.

// modernDetached serves a scripted server of 2026-07-28 that runs the tool greet as the
// task t1, starts it with "tools call greet --task --detach", and checks what that
// printed, recorded and sent. It returns the server, its URL, and how many requests it
// had received then.
func modernDetached(t *testing.T) (f *scripted.Server, url string, mark int) {
	t.Helper()
	f = scripted.New(t)
	url = f.HTTP()
	f.Answer(mcp.MethodToolsList, `{"resultType":"complete","tools":[{"name":"greet","inputSchema":{"type":"object"}}]}`)
	// Created now (TaskJSON's createdAt is the start of a synctest bubble), so that the
	// state file's entry has not expired.
	now := mcp.FormatTime(time.Now())
	f.Answer(mcp.MethodToolsCall, `{"resultType":"task","taskId":"t1","status":"working","createdAt":"`+now+`","lastUpdatedAt":"`+now+`","ttlMs":600000,"pollIntervalMs":10}`)
	env := clitest.New(t, &connect.Selection{URL: url})
	if err := callTool(clitest.Context(t), env, &call.Options{Name: "greet", Task: true, Detach: true}); err != nil {
		t.Fatalf("tools call greet --task --detach: %s", describe(err))
	}
	if env.Out.String() != "t1\n" || env.ErrOut.String() != "The server runs the call as task t1.\n" {
		t.Errorf("--detach: stdout %q, stderr %q", env.Out, env.ErrOut)
	}
	entry, ok, err := (&shared.Options{}).Resolve("t1")
	if err != nil || !ok || entry.Tool != "greet" || entry.Server.URL != url || entry.TaskID != "t1" {
		t.Fatalf("state file entry: %+v, %v, %v", entry, ok, err)
	}
	if at, ok := entry.Expires(); !ok || at.Sub(entry.Created) != 10*time.Minute {
		t.Errorf("the entry expires at %v (%v), want the task's ttlMs after it was recorded", at, ok)
	}
	methods := requestsSince(f, 0)
	if !slices.Equal(methods, []string{mcp.MethodServerDiscover, mcp.MethodToolsList, mcp.MethodToolsCall}) {
		t.Errorf("--detach sent %v", methods)
	}
	return f, url, len(f.Requests())
}

// requestsSince is the methods of the requests f received after the first mark, but
// subscriptions/listen (a follower listens for its task's notifications; this server has
// none, and answers -32601), which comes at a time of its own.
func requestsSince(f *scripted.Server, mark int) []string {
	var out []string
	for _, m := range f.Requests()[mark:] {
		if m.Method != mcp.MethodSubscriptionsListen {
			out = append(out, m.Method)
		}
	}
	return out
}

// checkSince checks the requests f received after mark, and that those on a task name t1.
func checkSince(t *testing.T, f *scripted.Server, mark int, want ...string) {
	t.Helper()
	if got := requestsSince(f, mark); !slices.Equal(got, want) {
		t.Errorf("the server received %v\nwant %v", got, want)
	}
	for _, m := range f.Requests()[mark:] {
		if strings.HasPrefix(m.Method, "tasks/") {
			var id string
			if !m.Param(t, "taskId", &id) || id != "t1" || m.Header.Get("Mcp-Name") != "t1" {
				t.Errorf("%s for the task %q (Mcp-Name %q), want t1", m.Method, id, m.Header.Get("Mcp-Name"))
			}
		}
	}
}

// checkDescribed checks the sentence and exit code of err.
func checkDescribed(t *testing.T, err error, want string) {
	t.Helper()
	if got := describe(err); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// getThen answers tasks/get with t1 working the first n times, then with done.
func getThen(f *scripted.Server, n int, done string) {
	var gets atomic.Int32
	f.On(mcp.MethodTasksGet, func(context.Context, *jsonrpc.Request) (any, error) {
		if int(gets.Add(1)) <= n {
			return scripted.TaskJSON("complete", "t1", mcp.TaskStatusWorking, 10, ""), nil
		}
		return scripted.TaskJSON("complete", "t1", mcp.TaskStatusCompleted, 10, done), nil
	})
}

// "tasks result ID" without server flags finds the server in the state file, follows
// the task with tasks/get, and prints the result it inlines; with --json the
// CallToolResult.
func TestModernDetachThenResult(t *testing.T) {
	clitest.StateDir(t)
	f, url, mark := modernDetached(t)
	getThen(f, 1, scripted.ResultDone)

	env := fresh(t)
	if err := result.Run(clitest.Context(t), &result.Options{Options: sharedOpts(env, false), ID: "t1"}); err != nil {
		t.Fatal(describe(err))
	}
	if env.Out.String() != "done\n" || env.ErrOut.Len() != 0 {
		t.Errorf("stdout %q, stderr %q", env.Out, env.ErrOut)
	}
	if env.Selection.URL != url {
		t.Errorf("the selection was not filled in from the state file: %+v", env.Selection)
	}
	// tools/list finds the tool's output schema, to check the result against.
	checkSince(t, f, mark, mcp.MethodServerDiscover, mcp.MethodTasksGet, mcp.MethodTasksGet, mcp.MethodToolsList)
	for _, m := range f.RequestMethods() {
		if m == mcp.MethodTasksResult || m == mcp.MethodTasksList {
			t.Errorf("%s sent in 2026-07-28", m)
		}
	}

	mark = len(f.Requests())
	env = fresh(t)
	if err := result.Run(clitest.Context(t), &result.Options{Options: sharedOpts(env, true), ID: "t1"}); err != nil {
		t.Fatal(describe(err))
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal(env.Out.Bytes(), &res); err != nil || len(res.Content) != 1 || res.Content[0].Text != "done" || res.IsError {
		t.Errorf("--json: %s (%v)", env.Out, err)
	}
	checkSince(t, f, mark, mcp.MethodServerDiscover, mcp.MethodTasksGet, mcp.MethodToolsList) // completed at the first poll
}

// A task waiting for input, fetched with "tasks result ID --answers FILE": the answer goes
// with tasks/update, and the result follows.
func TestModernResultAnswersInput(t *testing.T) {
	clitest.StateDir(t)
	f, _, mark := modernDetached(t)
	var answered atomic.Bool
	f.On(mcp.MethodTasksUpdate, func(context.Context, *jsonrpc.Request) (any, error) {
		answered.Store(true)
		return scripted.Raw(scripted.AckComplete), nil
	})
	f.On(mcp.MethodTasksGet, func(context.Context, *jsonrpc.Request) (any, error) {
		if !answered.Load() {
			return scripted.TaskJSON("complete", "t1", mcp.TaskStatusInputRequired, 10, scripted.AskName), nil
		}
		return scripted.TaskJSON("complete", "t1", mcp.TaskStatusCompleted, 10, `"result":{"content":[{"type":"text","text":"Hello, Ada!"}]}`), nil
	})
	env := fresh(t)
	answers := clitest.WriteFile(t, "answers.json", `{"elicitation": {"greet": {"name": "Ada"}}}`)
	if err := result.Run(clitest.Context(t), &result.Options{Options: sharedOpts(env, false), ID: "t1", Answers: answers}); err != nil {
		t.Fatal(describe(err))
	}
	if env.Out.String() != "Hello, Ada!\n" {
		t.Errorf("stdout %q", env.Out)
	}
	checkSince(t, f, mark, mcp.MethodServerDiscover, mcp.MethodTasksGet, mcp.MethodTasksUpdate, mcp.MethodTasksGet, mcp.MethodToolsList)
	if u := f.Last(mcp.MethodTasksUpdate); !strings.Contains(string(u.Params), `"inputResponses":{"name":{"action":"accept","content":{"name":"Ada"}}}`) {
		t.Errorf("tasks/update: %s", u.Params)
	}
}

// waitingTask is t1 as tasks/get gives it while it waits for the user's name, at fixed
// times.
const waitingTask = `{"resultType":"complete","taskId":"t1","status":"input_required","statusMessage":"Waiting for a name",
	"createdAt":"2000-01-01T00:00:00Z","lastUpdatedAt":"2000-01-01T00:00:30Z","ttlMs":600000,"pollIntervalMs":2000,` + scripted.AskName + `}`

// "tasks get ID": the task with what the state file knows of it, the dialect and the
// input it waits for; with --json the detailed task of the extension as the server gave
// it.
func TestModernGet(t *testing.T) {
	clitest.StateDir(t)
	f, url, mark := modernDetached(t)
	f.Answer(mcp.MethodTasksGet, waitingTask)
	now := time.Date(2000, 1, 1, 0, 1, 0, 0, time.UTC)

	env := fresh(t)
	if err := get.Run(clitest.Context(t), &get.Options{Options: sharedOpts(env, false), ID: "t1", Now: func() time.Time { return now }}); err != nil {
		t.Fatal(describe(err))
	}
	local := func(s string) string {
		at, _ := time.Parse(time.RFC3339, s)
		return at.Local().Format("2006-01-02 15:04:05")
	}
	want := "ID:       t1\n" +
		"Status:   ? input_required\n" +
		"Message:  Waiting for a name\n" +
		"Tool:     greet\n" +
		"Server:   " + url + "\n" +
		"Created:  " + local("2000-01-01T00:00:00Z") + " (1m00s ago)\n" +
		"Updated:  " + local("2000-01-01T00:00:30Z") + " (30s ago)\n" +
		"TTL:      10m00s (expires in 9m00s)\n" +
		"Poll:     2.0s\n" +
		"Dialect:  2026-07-28 extension\n" +
		"Waits:    name (elicitation/create: Your name?)\n"
	if got := env.Out.String(); got != want {
		t.Errorf("tasks get:\n%s\nwant:\n%s", got, want)
	}
	checkSince(t, f, mark, mcp.MethodServerDiscover, mcp.MethodTasksGet)

	mark = len(f.Requests())
	env = fresh(t)
	if err := get.Run(clitest.Context(t), &get.Options{Options: sharedOpts(env, true), ID: "t1"}); err != nil {
		t.Fatal(describe(err))
	}
	var got, wantJSON map[string]any
	if err := json.Unmarshal(env.Out.Bytes(), &got); err != nil {
		t.Fatalf("--json: %v\n%s", err, env.Out)
	}
	json.Unmarshal([]byte(waitingTask), &wantJSON)
	delete(wantJSON, "resultType") // the envelope's, not the task's
	if g, w := mustJSON(t, got), mustJSON(t, wantJSON); g != w {
		t.Errorf("tasks get --json:\n got %s\nwant %s", g, w)
	}
	checkSince(t, f, mark, mcp.MethodServerDiscover, mcp.MethodTasksGet)

	// An ended task: how it ended.
	f.Answer(mcp.MethodTasksGet, `{"resultType":"complete","taskId":"t1","status":"failed","statusMessage":"disk on fire",
		"createdAt":"2000-01-01T00:00:00Z","lastUpdatedAt":"2000-01-01T00:00:30Z","ttlMs":600000,"error":{"code":-32050,"message":"disk on fire"}}`)
	env = fresh(t)
	if err := get.Run(clitest.Context(t), &get.Options{Options: sharedOpts(env, false), ID: "t1", Now: func() time.Time { return now }}); err != nil {
		t.Fatal(describe(err))
	}
	if out := env.Out.String(); !strings.Contains(out, "Status:   ✗ failed\n") || !strings.HasSuffix(out, "Dialect:  2026-07-28 extension\nError:    disk on fire (JSON-RPC error -32050)\n") {
		t.Errorf("tasks get of a failed task:\n%s", out)
	}
	f.Answer(mcp.MethodTasksGet, string(scripted.TaskJSON("complete", "t1", mcp.TaskStatusCompleted, 0, scripted.ResultDone)))
	env = fresh(t)
	if err := get.Run(clitest.Context(t), &get.Options{Options: sharedOpts(env, false), ID: "t1"}); err != nil {
		t.Fatal(describe(err))
	}
	if out := env.Out.String(); !strings.HasSuffix(out, "Dialect:  2026-07-28 extension\nResult:   inlined; \"mcpi tasks result t1\" prints it\n") {
		t.Errorf("tasks get of a completed task:\n%s", out)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// "tasks cancel ID" asks whether the task has ended (as the extension acknowledges a
// cancel either way), sends tasks/cancel, which the server only acknowledges, and reports
// the state tasks/get gives right after; a task that has ended is said to have, as in
// 2025-11-25.
func TestModernCancel(t *testing.T) {
	clitest.StateDir(t)
	f, _, mark := modernDetached(t)
	var cancelled atomic.Bool
	f.On(mcp.MethodTasksCancel, func(context.Context, *jsonrpc.Request) (any, error) {
		cancelled.Store(true)
		return scripted.Raw(scripted.AckComplete), nil
	})
	f.On(mcp.MethodTasksGet, func(context.Context, *jsonrpc.Request) (any, error) {
		if cancelled.Load() {
			return scripted.TaskJSON("complete", "t1", mcp.TaskStatusCancelled, 10, `"statusMessage":"Cancelled by request."`), nil
		}
		return scripted.TaskJSON("complete", "t1", mcp.TaskStatusWorking, 10, ""), nil
	})
	env := fresh(t)
	if err := cancel.Run(clitest.Context(t), &cancel.Options{Options: sharedOpts(env, false), ID: "t1"}); err != nil {
		t.Fatal(describe(err))
	}
	if got := env.Out.String(); got != "⊘ cancelled t1: Cancelled by request.\n" {
		t.Errorf("stdout %q", got)
	}
	checkSince(t, f, mark, mcp.MethodServerDiscover, mcp.MethodTasksGet, mcp.MethodTasksCancel, mcp.MethodTasksGet)

	// Once it has ended, a cancel is refused as in 2025-11-25, and none is sent.
	mark = len(f.Requests())
	env = fresh(t)
	err := cancel.Run(clitest.Context(t), &cancel.Options{Options: sharedOpts(env, false), ID: "t1"})
	checkDescribed(t, err, `mcpi: the task "t1" has already ended (cancelled), so it cannot be cancelled (exit 1)`)
	checkSince(t, f, mark, mcp.MethodServerDiscover, mcp.MethodTasksGet)

	// The result of a cancelled task, and a watch of it, say so.
	for name, run := range map[string]func(*clitest.Env) error{
		"result": func(env *clitest.Env) error {
			return result.Run(clitest.Context(t), &result.Options{Options: sharedOpts(env, false), ID: "t1"})
		},
		"watch": func(env *clitest.Env) error {
			return watch.Run(clitest.Context(t), &watch.Options{Options: sharedOpts(env, false), ID: "t1"})
		},
	} {
		mark = len(f.Requests())
		env = fresh(t)
		if got, want := describe(run(env)), `mcpi: the task "t1" was cancelled (exit 1)`; got != want {
			t.Errorf("%s: got %q, want %q", name, got, want)
		}
		checkSince(t, f, mark, mcp.MethodServerDiscover, mcp.MethodTasksGet)
	}
}

// "tasks watch ID" follows the task to its end: a status event per change, then the
// result; without --json and a terminal, a line per change.
func TestModernWatch(t *testing.T) {
	clitest.StateDir(t)
	f, _, mark := modernDetached(t)
	getThen(f, 2, scripted.ResultDone)
	env := fresh(t)
	if err := watch.Run(clitest.Context(t), &watch.Options{Options: sharedOpts(env, true), ID: "t1"}); err != nil {
		t.Fatal(describe(err))
	}
	var kinds []string
	var last taskview.Event
	for _, line := range strings.Split(strings.TrimSpace(env.Out.String()), "\n") {
		if err := json.Unmarshal([]byte(line), &last); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		if last.Task == nil || last.Task.TaskID != "t1" {
			t.Errorf("event without the task: %s", line)
		}
		kinds = append(kinds, last.Event+":"+string(last.Task.Status))
	}
	if got := strings.Join(kinds, " "); got != "status:working status:working status:completed result:completed" {
		t.Errorf("events: %s", got)
	}
	if last.Result == nil || last.Result.Content[0].Text != "done" {
		t.Errorf("result event: %+v", last)
	}
	checkSince(t, f, mark, mcp.MethodServerDiscover, mcp.MethodTasksGet, mcp.MethodTasksGet, mcp.MethodTasksGet, mcp.MethodToolsList)

	// Text: a line per status (the first tasks/get finds it working, the next completed),
	// at the watch's clock.
	getThen(f, 1, scripted.ResultDone)
	env = fresh(t)
	now := time.Date(2026, 7, 28, 12, 0, 0, 0, time.Local)
	if err := watch.Run(clitest.Context(t), &watch.Options{Options: sharedOpts(env, false), ID: "t1", Now: func() time.Time { return now }}); err != nil {
		t.Fatal(describe(err))
	}
	if got, want := env.Out.String(), "12:00:00  ◐ working\n12:00:00  ✓ completed\n"; got != want {
		t.Errorf("stdout %q, want %q", got, want)
	}
}

// "tasks list": the extension has no tasks/list, so mcpi says so and lists the tasks it
// recorded for that server (not those of others), without asking it.
func TestModernList(t *testing.T) {
	clitest.StateDir(t)
	// A task mcpi recorded for another server.
	other := scripted.New(t)
	if _, err := state.Remember(nil, &connect.Selection{URL: other.HTTP()}, "greet", "", mcp.Task{TaskID: "t0", CreatedAt: mcp.FormatTime(time.Now())}, nil); err != nil {
		t.Fatal(err)
	}
	f, url, mark := modernDetached(t)
	// And one the server no longer knows: forgotten by the first listing.
	if _, err := state.Remember(nil, &connect.Selection{URL: url}, "greet", mcp.ProtocolVersion20260728, mcp.Task{TaskID: "lost", CreatedAt: mcp.FormatTime(time.Now())}, nil); err != nil {
		t.Fatal(err)
	}
	// And one created in 2025-11-25, which this protocol cannot reach: counted, not asked for.
	if _, err := state.Remember(nil, &connect.Selection{URL: url}, "greet", mcp.LatestProtocolVersion, mcp.Task{TaskID: "old", CreatedAt: mcp.FormatTime(time.Now())}, nil); err != nil {
		t.Fatal(err)
	}
	f.On(mcp.MethodTasksGet, func(_ context.Context, req *jsonrpc.Request) (any, error) {
		var p mcp.GetTaskParams
		_ = json.Unmarshal(req.Params, &p)
		if p.TaskID != "t1" {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "no such task")
		}
		return json.RawMessage(scripted.TaskJSON("complete", "t1", mcp.TaskStatusWorking, 10, `"statusMessage":"step 2 of 5"`)), nil
	})
	for i, jsonOut := range []bool{false, true} {
		env := clitest.New(t, &connect.Selection{URL: url})
		if err := list.Run(clitest.Context(t), &list.Options{Options: sharedOpts(env, jsonOut)}); err != nil {
			t.Fatal(describe(err))
		}
		want := "The server speaks protocol 2026-07-28, whose Tasks extension has no tasks/list; these are the tasks mcpi recorded for it, as the server has them now.\n" +
			"1 more task recorded for it was created in protocol 2025-11-25 and can be reached only in it: \"mcpi tasks list --local\" lists it, and \"mcpi tasks result ID\" fetches one.\n"
		if i == 0 {
			want += "1 task recorded for it the server no longer knows (it expired, or the server restarted): forgotten.\n"
		}
		if got := env.ErrOut.String(); got != want {
			t.Errorf("stderr %q, want %q", got, want)
		}
		if jsonOut {
			var l mcp.ListTasksResult
			if err := json.Unmarshal(env.Out.Bytes(), &l); err != nil || len(l.Tasks) != 1 || l.Tasks[0].TaskID != "t1" ||
				l.Tasks[0].Status != mcp.TaskStatusWorking || l.Tasks[0].StatusMessage != "step 2 of 5" {
				t.Errorf("--json: %s (%v)", env.Out, err)
			}
		} else {
			lines := strings.Split(strings.TrimSpace(env.Out.String()), "\n")
			if len(lines) != 2 || !strings.HasPrefix(lines[0], "ID") || !strings.HasPrefix(lines[1], "t1 ") || !strings.Contains(lines[1], "working") ||
				!strings.HasSuffix(lines[1], "step 2 of 5") {
				t.Errorf("tasks list:\n%s", env.Out)
			}
		}
		// Each recorded task asked for once (the lost one the first time only).
		wantSent := []string{mcp.MethodServerDiscover, mcp.MethodTasksGet}
		if i == 0 {
			wantSent = append(wantSent, mcp.MethodTasksGet)
		}
		if got := requestsSince(f, mark); !slices.Equal(got, wantSent) {
			t.Errorf("the server received %v, want %v", got, wantSent)
		}
		mark = len(f.Requests())
	}
	if _, ok, _ := (&shared.Options{}).Resolve("lost"); ok {
		t.Error("the task the server no longer knows is still recorded")
	}
	if n := len(other.Requests()); n != 0 {
		t.Errorf("the other server received %d requests", n)
	}
}

// "tasks watch" without an id follows the tasks "tasks list" lists, those mcpi recorded
// for the server (the extension has no tasks/list), until they end; one the server no
// longer knows is forgotten, and one of 2025-11-25 counted.
func TestModernWatchAll(t *testing.T) {
	clitest.StateDir(t)
	f, url, mark := modernDetached(t)
	for id, protocol := range map[string]string{"lost": mcp.ProtocolVersion20260728, "old": mcp.LatestProtocolVersion} {
		if _, err := state.Remember(nil, &connect.Selection{URL: url}, "greet", protocol, mcp.Task{TaskID: id, CreatedAt: mcp.FormatTime(time.Now())}, nil); err != nil {
			t.Fatal(err)
		}
	}
	var gets atomic.Int32
	f.On(mcp.MethodTasksGet, func(_ context.Context, req *jsonrpc.Request) (any, error) {
		var p mcp.GetTaskParams
		_ = json.Unmarshal(req.Params, &p)
		if p.TaskID != "t1" {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "no such task")
		}
		if gets.Add(1) == 1 {
			return scripted.TaskJSON("complete", "t1", mcp.TaskStatusWorking, 10, `"statusMessage":"step 1"`), nil
		}
		return scripted.TaskJSON("complete", "t1", mcp.TaskStatusCompleted, 10, scripted.ResultDone), nil
	})
	env := clitest.New(t, &connect.Selection{URL: url})
	now := time.Date(2026, 7, 28, 12, 0, 0, 0, time.Local)
	if err := watch.Run(clitest.Context(t), &watch.Options{Options: sharedOpts(env, false), Now: func() time.Time { return now }}); err != nil {
		t.Fatal(describe(err))
	}
	if got, want := env.Out.String(), "12:00:00  t1  ◐ working  step 1\n12:00:00  t1  ✓ completed\n"; got != want {
		t.Errorf("stdout %q, want %q", got, want)
	}
	wantErr := "The server speaks protocol 2026-07-28, whose Tasks extension has no tasks/list; mcpi follows the tasks it recorded for it.\n" +
		"1 more task recorded for it was created in protocol 2025-11-25 and can be reached only in it: \"mcpi tasks list --local\" lists it, and \"mcpi tasks result ID\" fetches one.\n" +
		"1 task recorded for it the server no longer knows (it expired, or the server restarted): forgotten.\n"
	if got := env.ErrOut.String(); got != wantErr {
		t.Errorf("stderr %q\nwant   %q", got, wantErr)
	}
	if _, ok, _ := (&shared.Options{}).Resolve("lost"); ok {
		t.Error("the task the server no longer knows is still recorded")
	}
	for _, m := range requestsSince(f, mark) {
		if m == mcp.MethodTasksList {
			t.Error("tasks/list sent in 2026-07-28")
		}
	}

	// Nothing recorded that the server still has: said so, exit 0.
	f.On(mcp.MethodTasksGet, func(context.Context, *jsonrpc.Request) (any, error) {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "no such task")
	})
	env = clitest.New(t, &connect.Selection{URL: url})
	if err := watch.Run(clitest.Context(t), &watch.Options{Options: sharedOpts(env, false)}); err != nil || env.Out.Len() != 0 ||
		!strings.HasSuffix(env.ErrOut.String(), "No tasks recorded for this server that it still has. (\"mcpi tasks list --local\" shows every task mcpi left running.)\n") {
		t.Errorf("watch of no tasks: %s, stdout %q, stderr %q", describe(err), env.Out, env.ErrOut)
	}
}

// A task that failed (an error inlined in tasks/get): the error, exit 1.
func TestModernResultFailed(t *testing.T) {
	clitest.StateDir(t)
	f, _, mark := modernDetached(t)
	f.Answer(mcp.MethodTasksGet, string(scripted.TaskJSON("complete", "t1", mcp.TaskStatusFailed, 10,
		`"statusMessage":"disk on fire","error":{"code":-32050,"message":"disk on fire"}`)))
	env := fresh(t)
	checkDescribed(t, result.Run(clitest.Context(t), &result.Options{Options: sharedOpts(env, false), ID: "t1"}),
		"mcpi: the server returned an error: disk on fire (JSON-RPC error -32050) (exit 1)")
	if env.Out.Len() != 0 {
		t.Errorf("stdout %q", env.Out)
	}
	checkSince(t, f, mark, mcp.MethodServerDiscover, mcp.MethodTasksGet)

	// A tool error (isError) is printed, exit 1.
	f.Answer(mcp.MethodTasksGet, string(scripted.TaskJSON("complete", "t1", mcp.TaskStatusCompleted, 10,
		`"result":{"content":[{"type":"text","text":"no such person"}],"isError":true}`)))
	env = fresh(t)
	checkDescribed(t, result.Run(clitest.Context(t), &result.Options{Options: sharedOpts(env, false), ID: "t1"}),
		`mcpi: the tool "greet" reported an error (exit 1)`)
	if env.Out.String() != "no such person\n" {
		t.Errorf("stdout %q", env.Out)
	}
}

// A task the server no longer knows (-32602 on tasks/get): said so, and forgotten by the
// state file; the commands after say the server has no such task.
func TestModernGone(t *testing.T) {
	for _, cmd := range []string{"result", "get", "watch", "cancel"} {
		t.Run(cmd, func(t *testing.T) {
			clitest.StateDir(t)
			f, _, mark := modernDetached(t)
			notFound := func(context.Context, *jsonrpc.Request) (any, error) {
				return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "task not found or expired")
			}
			f.On(mcp.MethodTasksGet, notFound)
			f.On(mcp.MethodTasksCancel, notFound)
			run := func(env *clitest.Env) error {
				o := sharedOpts(env, false)
				switch cmd {
				case "result":
					return result.Run(clitest.Context(t), &result.Options{Options: o, ID: "t1"})
				case "get":
					return get.Run(clitest.Context(t), &get.Options{Options: o, ID: "t1"})
				case "watch":
					return watch.Run(clitest.Context(t), &watch.Options{Options: o, ID: "t1"})
				}
				return cancel.Run(clitest.Context(t), &cancel.Options{Options: o, ID: "t1"})
			}
			env := fresh(t)
			checkDescribed(t, run(env), `mcpi: the server no longer knows the task "t1" (it expired, or the server restarted); mcpi has removed it from its local list of tasks (exit 1)`)
			if env.Out.Len() != 0 {
				t.Errorf("stdout %q", env.Out)
			}
			checkSince(t, f, mark, mcp.MethodServerDiscover, mcp.MethodTasksGet)
			if _, ok, _ := (&shared.Options{}).Resolve("t1"); ok {
				t.Error("the state file still records the task")
			}
			// Now not recorded: without server flags it is looked for on the embedded
			// demo server.
			checkDescribed(t, run(fresh(t)), `mcpi: the task "t1" is not in mcpi's local list of tasks, and the embedded demo server (used when no server is named) has no such task: name the server it runs on with --url, --stdio or --config (exit 1)`)
		})
	}
}

// An interrupted "tasks watch ID --json" ends with an "interrupted" line: the task runs
// on, and the line says how to fetch its result, as stderr does (the stream ended on a
// "status" line, and stderr said only "interrupted").
func TestModernWatchInterrupted(t *testing.T) {
	clitest.StateDir(t)
	f, _, _ := modernDetached(t)
	getThen(f, math.MaxInt32, scripted.ResultDone)
	env := fresh(t)
	ctx, stop := context.WithCancel(clitest.Context(t))
	o := sharedOpts(env, true)
	o.Connect = func(c context.Context, requests cmdutil.RequestPolicy) (*cmdutil.Session, error) {
		sess, err := env.Factory.Connect(c, requests)
		if err != nil {
			return nil, err
		}
		sub := sess.Subscribe()
		go func() {
			defer sub.Close()
			for e := range sub.All(context.Background()) {
				if te, ok := e.(*client.TaskEvent); ok && te.Kind == client.TaskStatus {
					stop() // Ctrl-C
					return
				}
			}
		}()
		return sess, nil
	}
	err := watch.Run(ctx, &watch.Options{Options: o, ID: "t1"})
	want := `mcpi: interrupted; the task "t1" is still running on the server: get its result with "mcpi tasks result t1" (exit 2)`
	if got := describe(err); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	lines := strings.Split(strings.TrimSpace(env.Out.String()), "\n")
	var last taskview.Event
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || last.Event != "interrupted" ||
		last.Interrupted == nil || last.Interrupted.State != "running" || last.Interrupted.Fetch != "mcpi tasks result t1" ||
		last.Error == nil || last.Error.Message != `interrupted; the task "t1" is still running on the server: get its result with "mcpi tasks result t1"` ||
		last.Task == nil || last.Task.TaskID != "t1" || last.Task.Status != mcp.TaskStatusWorking {
		t.Errorf("last line: %s", env.Out)
	}
}

// An interrupted "tasks result ID --json" says that the task runs on and how to fetch
// its result: it printed {"error":{"message":"interrupted"}}, as if that were the task's
// outcome.
func TestModernResultInterrupted(t *testing.T) {
	clitest.StateDir(t)
	f, _, _ := modernDetached(t)
	ctx, stop := context.WithCancel(clitest.Context(t))
	f.On(mcp.MethodTasksGet, func(context.Context, *jsonrpc.Request) (any, error) {
		stop() // Ctrl-C while the task works
		return scripted.TaskJSON("complete", "t1", mcp.TaskStatusWorking, 10, ""), nil
	})
	env := fresh(t)
	err := result.Run(ctx, &result.Options{Options: sharedOpts(env, true), ID: "t1"})
	want := `interrupted; the task "t1" is still running on the server: get its result with "mcpi tasks result t1"`
	if got := describe(err); got != "mcpi: "+want+" (exit 2)" {
		t.Errorf("got %q, want %q", got, want)
	}
	var got struct {
		Interrupted *taskview.Interrupted
		Error       *taskview.Error
	}
	if err := json.Unmarshal(env.Out.Bytes(), &got); err != nil || got.Interrupted == nil || *got.Interrupted != (taskview.Interrupted{State: "running", Fetch: "mcpi tasks result t1"}) ||
		got.Error == nil || got.Error.Message != want || got.Error.Code != nil {
		t.Errorf("stdout: %s", env.Out)
	}
}

// "tasks watch" without an id in 2026-07-28, stopped on input it cannot give, which is
// one task's inputRequests: that task is "waiting", the others "interrupted" (they all
// were "waiting"), and the sentence names the task that waits.
func TestModernWatchAllLeftInputNamesItsTask(t *testing.T) {
	clitest.StateDir(t)
	f, url, _ := modernDetached(t)
	if _, err := state.Remember(nil, &connect.Selection{URL: url}, "greet", mcp.ProtocolVersion20260728, mcp.Task{TaskID: "t2", CreatedAt: mcp.FormatTime(time.Now())}, nil); err != nil {
		t.Fatal(err)
	}
	f.On(mcp.MethodTasksGet, func(_ context.Context, req *jsonrpc.Request) (any, error) {
		var p mcp.GetTaskParams
		_ = json.Unmarshal(req.Params, &p)
		if p.TaskID == "t1" {
			return scripted.TaskJSON("complete", "t1", mcp.TaskStatusInputRequired, 10, scripted.AskName), nil
		}
		return scripted.TaskJSON("complete", p.TaskID, mcp.TaskStatusWorking, 10, ""), nil
	})
	env := clitest.New(t, &connect.Selection{URL: url})
	err := watch.Run(clitest.Context(t), &watch.Options{Options: sharedOpts(env, true)})
	// The answer is keyed by the tool the state file records for t1, as "mcpi tasks
	// result t1 --answers FILE" looks it up.
	waits := `the server asked for the user's input (elicitation for the tool "greet"), which mcpi can only give on a terminal or from an answers file; run it on a terminal, or pass --answers FILE with {"elicitation": {"greet": {"name": "..."}}}; the task "t1" waits for it on the server: "mcpi tasks result t1" gives it`
	checkDescribed(t, err, "mcpi: "+waits+" (exit 2)")
	evs := jsonEvents(t, env.Out.String())
	if got, want := lastEvents(evs), map[string]string{"t1": "waiting", "t2": "interrupted"}; !maps.Equal(got, want) {
		t.Errorf("last events %v, want %v\n%s", got, want, env.Out)
	}
	for _, ev := range evs {
		switch {
		case ev.Event == "waiting" && (ev.Waiting == nil || ev.Waiting.Fetch != "mcpi tasks result t1" || ev.Error == nil || ev.Error.Message != waits):
			t.Errorf("waiting: %+v %+v", ev.Waiting, ev.Error)
		case ev.Event == "interrupted" && (ev.Interrupted == nil || *ev.Interrupted != (taskview.Interrupted{State: taskview.LeftRunning, Fetch: "mcpi tasks result t2"})):
			t.Errorf("interrupted: %+v", ev.Interrupted)
		}
	}
}
