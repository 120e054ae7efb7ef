package tasks_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/demo"
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
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/tasks"
)

// callTool runs "tools call" in env with ctx.
func callTool(ctx context.Context, env *clitest.Env, opts *call.Options) error {
	opts.IO, opts.Connect, opts.Selection = env.IO, env.Factory.Connect, env.Selection
	opts.Tick = -1
	return call.Run(ctx, opts)
}

func sharedOpts(env *clitest.Env, jsonOut bool) shared.Options {
	return shared.Options{IO: env.IO, Connect: env.Factory.Connect, Selection: env.Selection, JSON: jsonOut}
}

// fresh is a new mcpi invocation with no server flags.
func fresh(t *testing.T) *clitest.Env { return clitest.New(t, &connect.Selection{}) }

// freshOn is fresh once d has seen the previous invocation's session end, so that the new
// session may take over the task that session had.
func freshOn(t *testing.T, d *clitest.Demo) *clitest.Env {
	t.Helper()
	d.WaitIdle(t)
	return fresh(t)
}

func describe(err error) string {
	msg, code := clitest.Describe(err)
	return fmt.Sprintf("%s (exit %d)", msg, code)
}

// detach starts a task with --detach against d and returns its id once d has seen the
// detaching session end.
func detach(t *testing.T, d *clitest.Demo, tool string, args ...string) string {
	t.Helper()
	defer d.WaitIdle(t)
	env := clitest.New(t, &connect.Selection{URL: d.URL})
	if err := callTool(clitest.Context(t), env, &call.Options{Name: tool, Args: args, Task: true, Detach: true}); err != nil {
		t.Fatalf("tools call %s --task --detach: %s", tool, describe(err))
	}
	id := strings.TrimSpace(env.Out.String())
	if len(id) < 16 || strings.ContainsAny(id, " \n") {
		t.Fatalf("--detach printed %q, want a task id", env.Out)
	}
	return id
}

// --detach, then "tasks result ID" from a new invocation without server flags: the state
// file leads it back to the server, which gives the new session the orphaned task; the
// result is the same as when the call is followed.
func TestDetachThenResult(t *testing.T) {
	clitest.StateDir(t)
	d := clitest.ServeDemo(t, &demo.Options{Legacy: true})
	url := d.URL

	followed := clitest.New(t, &connect.Selection{URL: url})
	if err := callTool(clitest.Context(t), followed, &call.Options{Name: "slow_task", Args: []string{"seconds=0.1", "steps=2"}, Task: true}); err != nil {
		t.Fatal(describe(err))
	}

	id := detach(t, d, "slow_task", "seconds=0.1", "steps=2")
	entry, ok, err := (&shared.Options{}).Resolve(id)
	if err != nil || !ok || entry.Tool != "slow_task" || entry.Server.URL != url {
		t.Fatalf("state file entry: %+v, %v, %v", entry, ok, err)
	}

	env := freshOn(t, d)
	if err := result.Run(clitest.Context(t), &result.Options{Options: sharedOpts(env, false)}); err == nil {
		t.Fatal("result without an id succeeded")
	}
	env = freshOn(t, d)
	if err := result.Run(clitest.Context(t), &result.Options{Options: sharedOpts(env, false), ID: id}); err != nil {
		t.Fatal(describe(err))
	}
	if env.Out.String() != followed.Out.String() || env.Out.String() != "done: worked 100ms in 2 steps\n" {
		t.Errorf("tasks result printed %q; the followed call printed %q", env.Out, followed.Out)
	}
	if env.Selection.URL != url {
		t.Errorf("the selection was not filled in from the state file: %+v", env.Selection)
	}

	env = freshOn(t, d)
	if err := result.Run(clitest.Context(t), &result.Options{Options: sharedOpts(env, true), ID: id}); err != nil {
		t.Fatal(describe(err))
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal(env.Out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	if rt, _ := res.Meta.RelatedTask(); rt != id || res.Content[0].Text != "done: worked 100ms in 2 steps" {
		t.Errorf("--json result: %s", env.Out)
	}

	env = freshOn(t, d)
	if err := get.Run(clitest.Context(t), &get.Options{Options: sharedOpts(env, false), ID: id}); err != nil {
		t.Fatal(describe(err))
	}
	for _, want := range []string{"ID:       " + id, "Status:   ✓ completed", "Tool:     slow_task", "Server:   " + url, "TTL:      1h00m"} {
		if !strings.Contains(env.Out.String(), want) {
			t.Errorf("tasks get lacks %q:\n%s", want, env.Out)
		}
	}

	// With --json the detached task's created event is printed.
	env = clitest.New(t, &connect.Selection{URL: url})
	if err := callTool(clitest.Context(t), env, &call.Options{Name: "instant_task", Task: true, Detach: true, JSON: true}); err != nil {
		t.Fatal(describe(err))
	}
	var ev taskview.Event
	if err := json.Unmarshal(env.Out.Bytes(), &ev); err != nil || ev.Event != "created" || ev.Task == nil || ev.Task.TaskID == "" {
		t.Errorf("--detach --json printed %s (%v)", env.Out, err)
	}

	// tasks list --local shows the recorded tasks.
	env = freshOn(t, d)
	if err := list.Run(clitest.Context(t), &list.Options{Options: sharedOpts(env, false), Local: true}); err != nil {
		t.Fatal(describe(err))
	}
	out := env.Out.String()
	for _, want := range []string{"ID", "TOOL", "CREATED", "EXPIRES", "SERVER", id, "slow_task", "instant_task", url, "  in "} {
		if !strings.Contains(out, want) {
			t.Errorf("tasks list --local lacks %q:\n%s", want, out)
		}
	}
	env = freshOn(t, d)
	if err := list.Run(clitest.Context(t), &list.Options{Options: sharedOpts(env, true), Local: true}); err != nil {
		t.Fatal(describe(err))
	}
	var local list.LocalList
	if err := json.Unmarshal(env.Out.Bytes(), &local); err != nil || len(local.Tasks) != 2 || local.Tasks[0].TaskID != id || local.Tasks[0].Server.URL != url {
		t.Errorf("tasks list --local --json: %s (%v)", env.Out, err)
	}
}

// sideEffects serves the demo over HTTP and reports each side_effect_task's end; the
// tool writes in the directory files.
func sideEffects(t *testing.T) (d *clitest.Demo, exits chan error, files string) {
	exits = make(chan error, 4)
	files = t.TempDir()
	d = clitest.ServeDemo(t, &demo.Options{Legacy: true, OnSideEffectExit: func(_ string, err error) { exits <- err }, SideEffectDir: files})
	return d, exits, files
}

// waitCancelled waits for side_effect_task to stop and checks it stopped because it was
// cancelled, before writing path.
func waitCancelled(t *testing.T, exits chan error, path string) {
	t.Helper()
	select {
	case err := <-exits:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("side_effect_task ended with %v, want it cancelled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("side_effect_task did not stop")
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the side effect happened: %s exists (%v)", path, err)
	}
}

// "tasks cancel" on a running side_effect_task leaves it cancelled on the server, and its
// work stops before the side effect.
func TestCancel(t *testing.T) {
	clitest.StateDir(t)
	d, exits, files := sideEffects(t)
	path := filepath.Join(files, "side-effect")
	id := detach(t, d, "side_effect_task", "seconds=30", "path=side-effect")

	env := freshOn(t, d)
	if err := cancel.Run(clitest.Context(t), &cancel.Options{Options: sharedOpts(env, false), ID: id}); err != nil {
		t.Fatal(describe(err))
	}
	if got, want := env.Out.String(), "⊘ cancelled "+id+": Cancelled by request.\n"; got != want {
		t.Errorf("stdout = %q, want %q", got, want)
	}
	waitCancelled(t, exits, path)

	env = freshOn(t, d)
	if err := get.Run(clitest.Context(t), &get.Options{Options: sharedOpts(env, true), ID: id}); err != nil {
		t.Fatal(describe(err))
	}
	var st mcp.Task
	if err := json.Unmarshal(env.Out.Bytes(), &st); err != nil || st.Status != mcp.TaskStatusCancelled || st.TaskID != id {
		t.Errorf("tasks get --json: %s (%v)", env.Out, err)
	}

	tests := []struct {
		name string
		run  func(env *clitest.Env) error
		want string
	}{
		{"result", func(env *clitest.Env) error {
			return result.Run(clitest.Context(t), &result.Options{Options: sharedOpts(env, false), ID: id})
		}, `mcpi: the task "` + id + `" was cancelled (exit 1)`},
		{"cancel again", func(env *clitest.Env) error {
			return cancel.Run(clitest.Context(t), &cancel.Options{Options: sharedOpts(env, false), ID: id})
		}, `mcpi: the task "` + id + `" has already ended (cancelled), so it cannot be cancelled (exit 1)`},
		{"watch", func(env *clitest.Env) error {
			return watch.Run(clitest.Context(t), &watch.Options{Options: sharedOpts(env, false), ID: id})
		}, `mcpi: the task "` + id + `" was cancelled (exit 1)`},
	}
	for _, tt := range tests {
		if got := describe(tt.run(freshOn(t, d))); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestUnknownTask(t *testing.T) {
	clitest.StateDir(t)
	url := clitest.DemoHTTP(t, nil)
	for _, sel := range []*connect.Selection{{URL: url}, {}} {
		want := `mcpi: the server has no task "x" (it may have expired) (exit 1)`
		if !sel.IsSet() {
			want = `mcpi: the task "x" is not in mcpi's local list of tasks, and the embedded demo server (used when no server is named) has no such task: name the server it runs on with --url, --stdio or --config (exit 1)`
		}
		runs := map[string]func(env *clitest.Env) error{
			"get": func(env *clitest.Env) error {
				return get.Run(clitest.Context(t), &get.Options{Options: sharedOpts(env, false), ID: "x"})
			},
			"cancel": func(env *clitest.Env) error {
				return cancel.Run(clitest.Context(t), &cancel.Options{Options: sharedOpts(env, false), ID: "x"})
			},
			"result": func(env *clitest.Env) error {
				return result.Run(clitest.Context(t), &result.Options{Options: sharedOpts(env, false), ID: "x"})
			},
			"watch": func(env *clitest.Env) error {
				return watch.Run(clitest.Context(t), &watch.Options{Options: sharedOpts(env, false), ID: "x"})
			},
		}
		for name, run := range runs {
			s := *sel
			env := clitest.New(t, &s)
			if got := describe(run(env)); got != want {
				t.Errorf("%s with %+v:\n got %q\nwant %q", name, sel, got, want)
			}
			if env.Out.Len() != 0 {
				t.Errorf("%s: stdout %s", name, env.Out)
			}
		}
	}
}

// A task recorded in 2025-11-25, asked for with --protocol 2026-07-28: the server
// answers as for an unknown id (the task is its session's, which 2026-07-28 has not),
// and mcpi says to ask in the task's own protocol and keeps its record; it said that
// the server no longer knew the task and forgot it, live as it was.
func TestRecordedTaskAskedInTheOtherEra(t *testing.T) {
	clitest.StateDir(t)
	d := clitest.ServeDemo(t, nil)
	env := clitest.New(t, &connect.Selection{URL: d.URL, Protocol: mcp.LatestProtocolVersion})
	if err := callTool(clitest.Context(t), env, &call.Options{Name: "slow_task", Args: []string{"seconds=600"}, Task: true, Detach: true}); err != nil {
		t.Fatalf("tools call slow_task --task --detach: %s", describe(err))
	}
	id := strings.TrimSpace(env.Out.String())
	d.WaitIdle(t)
	want := `mcpi: the task "` + id + `" was created in protocol 2025-11-25 and cannot be reached in 2026-07-28; ask again with --protocol 2025-11-25 (or --protocol auto) (exit 1)`
	env = clitest.New(t, &connect.Selection{Protocol: mcp.ProtocolVersion20260728})
	if got := describe(get.Run(clitest.Context(t), &get.Options{Options: sharedOpts(env, false), ID: id})); got != want {
		t.Errorf("tasks get --protocol 2026-07-28:\n got %q\nwant %q", got, want)
	}
	if _, ok, _ := (&shared.Options{}).Resolve(id); !ok {
		t.Error("the state file forgot the task")
	}
	env = freshOn(t, d)
	if err := cancel.Run(clitest.Context(t), &cancel.Options{Options: sharedOpts(env, false), ID: id}); err != nil {
		t.Errorf("tasks cancel in its own protocol: %s", describe(err))
	}
}

// Ctrl-C while following, without a terminal: the task is left running and recorded,
// and the message says how to fetch it; "tasks cancel ID" then stops it.
func TestInterruptLeavesTaskRunning(t *testing.T) {
	clitest.StateDir(t)
	d, exits, files := sideEffects(t)
	url := d.URL
	path := filepath.Join(files, "side-effect")
	env := clitest.New(t, &connect.Selection{URL: url})
	ctx, connectFn := env.InterruptOnCreate(t)
	opts := &call.Options{Name: "side_effect_task", Args: []string{"seconds=30", "path=side-effect"}, Task: true, JSON: true}
	opts.IO, opts.Connect, opts.Selection, opts.Tick = env.IO, connectFn, env.Selection, -1
	err := call.Run(ctx, opts)
	evs := strings.Split(strings.TrimSpace(env.Out.String()), "\n")
	var created taskview.Event
	if err := json.Unmarshal([]byte(evs[0]), &created); err != nil || created.Event != "created" {
		t.Fatalf("first event: %s", evs[0])
	}
	id := created.Task.TaskID
	want := `mcpi: interrupted; the task "` + id + `" is still running on the server: get its result with "mcpi tasks result ` + id + `" (exit 2)`
	if got := describe(err); got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	if e, ok, _ := (&shared.Options{}).Resolve(id); !ok || e.Tool != "side_effect_task" || e.Server.URL != url {
		t.Errorf("not recorded: %+v", e)
	}
	d.WaitIdle(t)
	// Still running: "tasks get" without flags finds it working.
	env = freshOn(t, d)
	if err := get.Run(clitest.Context(t), &get.Options{Options: sharedOpts(env, true), ID: id}); err != nil {
		t.Fatal(describe(err))
	}
	var st mcp.Task
	if json.Unmarshal(env.Out.Bytes(), &st); st.Status != mcp.TaskStatusWorking {
		t.Errorf("after Ctrl-C the task is %s", st.Status)
	}
	if err := cancel.Run(clitest.Context(t), &cancel.Options{Options: sharedOpts(freshOn(t, d), false), ID: id}); err != nil {
		t.Fatal(describe(err))
	}
	waitCancelled(t, exits, path)
}

// Ctrl-C while following on a terminal asks; "c" cancels the task on the server.
func TestInterruptOnTerminalCancels(t *testing.T) {
	clitest.StateDir(t)
	d, exits, files := sideEffects(t)
	url := d.URL
	path := filepath.Join(files, "side-effect")
	env := clitest.New(t, &connect.Selection{URL: url})
	env.IO.SetStdinTTY(true)
	env.IO.SetStderrTTY(true)
	env.In.WriteString("x\nc\n")
	ctx, connectFn := env.InterruptOnCreate(t)
	opts := &call.Options{Name: "side_effect_task", Args: []string{"seconds=30", "path=side-effect"}, Task: true}
	opts.IO, opts.Connect, opts.Selection, opts.Tick = env.IO, connectFn, env.Selection, -1
	err := call.Run(ctx, opts)
	got := describe(err)
	if !strings.HasPrefix(got, `mcpi: interrupted; the task "`) || !strings.HasSuffix(got, `" was cancelled on the server (exit 2)`) {
		t.Errorf("got %q", got)
	}
	prompts := env.ErrOut.String()
	if strings.Count(prompts, "Cancel the task on the server, or leave it running? [c/l]") != 2 || !strings.Contains(prompts, "Please answer one of c, l.") {
		t.Errorf("the question was not asked (twice, after a wrong answer):\n%q", prompts)
	}
	waitCancelled(t, exits, path)
	if entries, _ := (&shared.Options{}).Store(); entries != nil {
		if es, _ := entries.Load(); len(es) != 0 {
			t.Errorf("a cancelled task was recorded: %+v", es)
		}
	}
}

// withTasks connects like env, and starts the given tool tasks in the session before the
// command runs, waiting for each to end: a server lists the tasks of the session only.
func withTasks(t *testing.T, env *clitest.Env, tools ...string) cmdutil.ConnectFunc {
	return func(ctx context.Context, requests cmdutil.RequestPolicy) (*cmdutil.Session, error) {
		sess, err := env.Factory.Connect(ctx, requests)
		if err != nil {
			return nil, err
		}
		for _, tool := range tools {
			task, err := sess.StartToolTask(ctx, &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(`{}`)}, nil)
			if err != nil {
				t.Fatalf("%s: %v", tool, err)
			}
			task.Wait(ctx)
		}
		return sess, nil
	}
}

// tasks/list is of 2025-11-25; TestModernList has 2026-07-28.
func TestListAndWatchAll(t *testing.T) {
	// One task per page: the list has every page.
	env := clitest.New(t, &connect.Selection{URL: clitest.DemoHTTP(t, &demo.Options{Tasks: &tasks.Options{PageSize: 1}}), Protocol: mcp.LatestProtocolVersion})
	connectFn := withTasks(t, env, "instant_task", "fail_task")
	o := sharedOpts(env, false)
	o.Connect = connectFn
	if err := list.Run(clitest.Context(t), &list.Options{Options: o}); err != nil {
		t.Fatal(describe(err))
	}
	lines := strings.Split(strings.TrimSpace(env.Out.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "ID") || !strings.Contains(lines[0], "STATUS") || !strings.Contains(lines[0], "MESSAGE") ||
		!strings.Contains(lines[0], "CREATED") || !strings.Contains(lines[0], "TTL") ||
		!strings.Contains(lines[1], "✓ completed") || !strings.Contains(lines[1], "1h00m") ||
		!strings.Contains(lines[2], "✗ failed") || !strings.Contains(lines[2], "fail_task reports a tool error on purpose") {
		t.Errorf("tasks list:\n%s", env.Out)
	}

	env = clitest.New(t, &connect.Selection{Protocol: mcp.LatestProtocolVersion})
	connectFn = withTasks(t, env, "instant_task")
	o = sharedOpts(env, true)
	o.Connect = connectFn
	if err := list.Run(clitest.Context(t), &list.Options{Options: o}); err != nil {
		t.Fatal(describe(err))
	}
	var res mcp.ListTasksResult
	if err := json.Unmarshal(env.Out.Bytes(), &res); err != nil || len(res.Tasks) != 1 || res.Tasks[0].Status != mcp.TaskStatusCompleted {
		t.Errorf("tasks list --json: %s", env.Out)
	}

	// A new session lists nothing, and says why.
	env = clitest.New(t, &connect.Selection{Protocol: mcp.LatestProtocolVersion})
	if err := list.Run(clitest.Context(t), &list.Options{Options: sharedOpts(env, false)}); err != nil || env.Out.Len() != 0 || !strings.Contains(env.ErrOut.String(), "No tasks.") {
		t.Errorf("empty list: %v, %q, %q", err, env.Out, env.ErrOut)
	}

	// watch without an id: every listed task, until all have ended.
	env = clitest.New(t, &connect.Selection{Protocol: mcp.LatestProtocolVersion})
	connectFn = withTasks(t, env, "instant_task", "fail_task")
	o = sharedOpts(env, true)
	o.Connect = connectFn
	if err := watch.Run(clitest.Context(t), &watch.Options{Options: o}); err != nil {
		t.Fatal(describe(err))
	}
	evs := strings.Split(strings.TrimSpace(env.Out.String()), "\n")
	if len(evs) != 2 || !strings.Contains(evs[0], `"event":"status"`) || !strings.Contains(evs[0], `"status":"completed"`) || !strings.Contains(evs[1], `"status":"failed"`) {
		t.Errorf("tasks watch --json:\n%s", env.Out)
	}
}

// "tasks watch ID" follows a task to its end: JSON events, or on a terminal a status line
// and the final status on stdout.
func TestWatchOne(t *testing.T) {
	clitest.StateDir(t)
	d := clitest.ServeDemo(t, &demo.Options{Legacy: true})
	id := detach(t, d, "slow_task", "seconds=0.3", "steps=3")
	env := freshOn(t, d)
	if err := watch.Run(clitest.Context(t), &watch.Options{Options: sharedOpts(env, true), ID: id}); err != nil {
		t.Fatal(describe(err))
	}
	lines := strings.Split(strings.TrimSpace(env.Out.String()), "\n")
	var first, last taskview.Event
	json.Unmarshal([]byte(lines[0]), &first)
	json.Unmarshal([]byte(lines[len(lines)-1]), &last)
	if first.Event != "status" || first.Task == nil || first.Task.TaskID != id {
		t.Errorf("first event: %s", lines[0])
	}
	if last.Event != "result" || last.Task.Status != mcp.TaskStatusCompleted || last.Result == nil || last.Result.Content[0].Text != "done: worked 300ms in 3 steps" {
		t.Errorf("last event: %s", lines[len(lines)-1])
	}

	env = freshOn(t, d)
	env.IO.SetStderrTTY(true)
	if err := watch.Run(clitest.Context(t), &watch.Options{Options: sharedOpts(env, false), ID: id, Tick: -1}); err != nil {
		t.Fatal(describe(err))
	}
	if out := env.Out.String(); !strings.HasPrefix(out, "✓ completed  ") || !regexp.MustCompile(` \d+ polls?\n$`).MatchString(out) {
		t.Errorf("final line: %q", out)
	}

	failed := detach(t, d, "fail_task", "mode=error")
	env = freshOn(t, d)
	err := watch.Run(clitest.Context(t), &watch.Options{Options: sharedOpts(env, true), ID: failed})
	if got := describe(err); got != "mcpi: the server returned an error: fail_task failed on purpose (JSON-RPC error -32050) (exit 1)" {
		t.Errorf("watch of a failed task: %s", got)
	}
	if !strings.Contains(env.Out.String(), `{"event":"error"`) || !strings.Contains(env.Out.String(), `"error":{"code":-32050,"message":"fail_task failed on purpose","data":{"reason":"demo"}}`) {
		t.Errorf("no error event:\n%s", env.Out)
	}

	isError := detach(t, d, "fail_task", "mode=isError")
	env = freshOn(t, d)
	if got := describe(result.Run(clitest.Context(t), &result.Options{Options: sharedOpts(env, false), ID: isError})); got != `mcpi: the tool "fail_task" reported an error (exit 1)` {
		t.Errorf("result of an isError task: %s", got)
	}
	if env.Out.String() != "fail_task reports a tool error on purpose\n" {
		t.Errorf("stdout: %q", env.Out)
	}
}

func TestStateFileIsPrivate(t *testing.T) {
	dir := clitest.StateDir(t)
	detach(t, clitest.ServeDemo(t, &demo.Options{Legacy: true}), "instant_task")
	fi, err := os.Stat(filepath.Join(dir, state.FileName))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("state file: %v, %v", fi, err)
	}
}

// "tasks result --json" of a task that ended without a result prints the JSON error on
// stdout, as "tools call --json" and "tasks watch --json" do: the server's error with its
// data for a failed task, what became of the task otherwise. It printed nothing.
func TestResultJSONOfTaskWithoutResult(t *testing.T) {
	clitest.StateDir(t)
	d := clitest.ServeDemo(t, &demo.Options{Legacy: true})
	failed := detach(t, d, "fail_task", "mode=error")
	env := freshOn(t, d)
	err := result.Run(clitest.Context(t), &result.Options{Options: sharedOpts(env, true), ID: failed})
	if got := describe(err); got != "mcpi: the server returned an error: fail_task failed on purpose (JSON-RPC error -32050) (exit 1)" {
		t.Errorf("result of a failed task: %s", got)
	}
	if got := string(compact(t, env.Out.Bytes())); got != `{"error":{"code":-32050,"message":"fail_task failed on purpose","data":{"reason":"demo"}}}` {
		t.Errorf("stdout of a failed task: %q", got)
	}

	env = fresh(t)
	env.Selection.URL = d.URL
	err = result.Run(clitest.Context(t), &result.Options{Options: sharedOpts(env, true), ID: "x"})
	if got := describe(err); got != `mcpi: the server has no task "x" (it may have expired) (exit 1)` {
		t.Errorf("result of an unknown task: %s", got)
	}
	if got := string(compact(t, env.Out.Bytes())); got != `{"error":{"message":"the server has no task \"x\" (it may have expired)"}}` {
		t.Errorf("stdout of an unknown task: %q", got)
	}
}

// --detach of a task whose ttl is too short to fetch it (--ttl 1ms): stderr says so, and
// the record is kept a while all the same, so that the printed "tasks result ID" reaches
// the server, which says it no longer knows the task. The record was pruned at once, and
// the command asked the embedded demo server, as for an id mcpi never saw.
func TestDetachWithATTLTooShortToFetch(t *testing.T) {
	clitest.StateDir(t)
	d := clitest.ServeDemo(t, &demo.Options{Legacy: true})
	env := clitest.New(t, &connect.Selection{URL: d.URL})
	if err := callTool(clitest.Context(t), env, &call.Options{Name: "instant_task", Task: true, Detach: true, TTL: time.Millisecond, TTLSet: true}); err != nil {
		t.Fatalf("tools call instant_task --task --detach --ttl 1ms: %s", describe(err))
	}
	id := strings.TrimSpace(env.Out.String())
	want := "mcpi: the server keeps the task for 1ms only (its ttl): it may delete the task and its result before they are fetched; ask for a longer --ttl\n"
	if !strings.Contains(env.ErrOut.String(), want) {
		t.Errorf("stderr %q lacks %q", env.ErrOut, want)
	}
	env = freshOn(t, d)
	got := describe(result.Run(clitest.Context(t), &result.Options{Options: sharedOpts(env, false), ID: id}))
	if want := `mcpi: the server no longer knows the task "` + id + `" (it expired, or the server restarted); mcpi has removed it from its local list of tasks (exit 1)`; got != want {
		t.Errorf("tasks result:\n got %q\nwant %q", got, want)
	}
	if env.Selection.URL != d.URL {
		t.Errorf("tasks result asked %+v, not the server the task was recorded on", env.Selection)
	}
}

// "tasks watch" without an id whose listing is cut at --max-pages (or --max-items) follows the tasks it
// listed, then says the listing stopped and exits 2, as "tasks list" prints what it
// listed before that sentence: it failed at once, showing nothing.
func TestWatchAllCutAtMaxItems(t *testing.T) {
	env := clitest.New(t, &connect.Selection{URL: clitest.DemoHTTP(t, &demo.Options{Tasks: &tasks.Options{PageSize: 1}}), Protocol: mcp.LatestProtocolVersion,
		Limits: connect.Limits{MaxPages: 1}})
	o := sharedOpts(env, true)
	o.Connect = withTasks(t, env, "instant_task", "fail_task")
	got := describe(watch.Run(clitest.Context(t), &watch.Options{Options: o}))
	if want := "mcpi: the server's tasks/list went on past 1 page; mcpi stopped there (--max-pages raises the bound) (exit 2)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	evs := strings.Split(strings.TrimSpace(env.Out.String()), "\n")
	if len(evs) != 1 || !strings.Contains(evs[0], `"event":"status"`) || !strings.Contains(evs[0], `"status":"completed"`) {
		t.Errorf("tasks watch --json:\n%s", env.Out)
	}
}

// An interrupted "tasks watch --json" (every task) ends with an "interrupted" line for
// each task it followed that had not ended, as "tasks watch ID" ends with one: it
// ended on a "status" line.
func TestWatchAllInterrupted(t *testing.T) {
	clitest.StateDir(t)
	env := clitest.New(t, &connect.Selection{URL: clitest.DemoHTTP(t, nil), Protocol: mcp.LatestProtocolVersion})
	ctx, stop := context.WithCancel(clitest.Context(t))
	o := sharedOpts(env, true)
	o.Connect = func(c context.Context, requests cmdutil.RequestPolicy) (*cmdutil.Session, error) {
		sess, err := env.Factory.Connect(c, requests)
		if err != nil {
			return nil, err
		}
		if _, err := sess.StartToolTask(c, &mcp.CallToolParams{Name: "slow_task", Arguments: json.RawMessage(`{"seconds":600}`)}, nil); err != nil {
			t.Fatal(err)
		}
		return sess, nil
	}
	env.IO.Out = writeThen{env.Out, stop} // Ctrl-C once the watch shows the task
	err := watch.Run(ctx, &watch.Options{Options: o})
	if got := describe(err); got != "mcpi: interrupted (exit 2)" {
		t.Errorf("got %q", got)
	}
	lines := strings.Split(strings.TrimSpace(env.Out.String()), "\n")
	var last taskview.Event
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || last.Event != "interrupted" || last.Task == nil ||
		last.Interrupted == nil || last.Interrupted.State != "running" || !strings.HasSuffix(last.Interrupted.Fetch, " tasks result "+last.Task.TaskID) ||
		last.Error == nil || last.Error.Message != `interrupted; the task "`+last.Task.TaskID+`" is still running on the server: get its result with "`+last.Interrupted.Fetch+`"` ||
		last.Task.Status != mcp.TaskStatusWorking {
		t.Errorf("last line: %s", env.Out)
	}
}

// writeThen writes to w, then calls then.
type writeThen struct {
	w    io.Writer
	then func()
}

func (w writeThen) Write(p []byte) (int, error) {
	defer w.then()
	return w.w.Write(p)
}
