package tasks_test

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/internal/clitest"
	"github.com/mcpi-dev/mcpi/internal/cli/state"
	"github.com/mcpi-dev/mcpi/internal/cli/tasks/watch"
	"github.com/mcpi-dev/mcpi/internal/cli/taskview"
	"github.com/mcpi-dev/mcpi/internal/scripted"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/tasks"
)

// "tasks watch ID" and "tasks watch" (every task) that follow a recorded task the server
// stops knowing meanwhile (its ttl ran out there) forget it, as "tasks result ID" does,
// and end the session they took up for it, which no other record names; the "gone"
// line, and event ("forgotten"), and the sentence say so. They kept the record, which
// named a task no command would reach again, and left its session open until the
// server's idle timeout.
func TestWatchForgetsTaskGoneWhileFollowed(t *testing.T) {
	for _, all := range []bool{false, true} {
		for _, jsonOut := range []bool{false, true} {
			clitest.StateDir(t)
			d, _ := releasedBoundServer(t)
			id := detachBound(t, d, 1)[0]
			owner, _ := d.Server.Tasks().Owner(id)
			env, opts := watchOneOrAll(t, d, id, all, jsonOut)
			var once sync.Once
			// Its ttl runs out on the server once the watch shows the task.
			env.IO.Out = writeThen{env.Out, func() { once.Do(func() { d.Server.Tasks().DropOwner(owner) }) }}
			err := watch.Run(clitest.Context(t), opts)
			want := `mcpi: the server no longer knows the task "` + id + `" (it expired, or the server restarted); mcpi has removed it from its local list of tasks (exit 1)`
			if all {
				want = " (exit 0)"
			}
			if got := describe(err); got != want {
				t.Errorf("all %v, json %v:\ngot  %q\nwant %q", all, jsonOut, got, want)
			}
			if jsonOut {
				evs := jsonEvents(t, env.Out.String())
				if last := evs[len(evs)-1]; last.Event != "gone" || last.Task == nil || last.Task.TaskID != id || !last.Forgotten {
					t.Errorf("all %v: last event %+v, want a \"gone\" event of the task with \"forgotten\"", all, last)
				}
			} else {
				lines := strings.Split(strings.TrimSpace(env.Out.String()), "\n")
				if last, want := lines[len(lines)-1], "  "+id+"  gone (expired or deleted); mcpi has removed it from its local list of tasks"; !strings.HasSuffix(last, want) {
					t.Errorf("all %v: last line %q, want it to end in %q", all, last, want)
				}
			}
			store, err := state.Default()
			if err != nil {
				t.Fatal(err)
			}
			if _, ok, err := store.Find(id); err != nil || ok {
				t.Errorf("all %v, json %v: the task is still recorded (%v)", all, jsonOut, err)
			}
			d.WaitIdle(t)
			if n := len(d.Server.Sessions()); n != 0 {
				t.Errorf("all %v, json %v: the server has %d sessions, want none", all, jsonOut, n)
			}
		}
	}
}

// A recorded task that "tasks watch ID" or "tasks watch" loses track of (the server ends
// the session that reached it) is not one the server said it does not know: its record
// stays, without the session the server ended, for "mcpi tasks result ID".
func TestWatchLostKeepsRecord(t *testing.T) {
	for _, all := range []bool{false, true} {
		clitest.StateDir(t)
		d, _ := releasedBoundServer(t)
		id := detachBound(t, d, 1)[0]
		env, opts := watchOneOrAll(t, d, id, all, true)
		var once sync.Once
		env.IO.Out = writeThen{env.Out, func() {
			once.Do(func() {
				for _, s := range d.Server.Sessions() {
					s.Close()
				}
			})
		}}
		err := watch.Run(clitest.Context(t), opts)
		if got := describe(err); !strings.Contains(got, `ended the session while mcpi followed the task "`+id+`"`) {
			t.Errorf("all %v: %s, want the task lost", all, got)
		}
		evs := jsonEvents(t, env.Out.String())
		if last := evs[len(evs)-1]; last.Event != "lost" || last.Forgotten {
			t.Errorf("all %v: last event %+v, want \"lost\"", all, last)
		}
		store, err := state.Default()
		if err != nil {
			t.Fatal(err)
		}
		if e, ok, err := store.Find(id); err != nil || !ok || e.Server.URL != d.URL || e.Session != nil {
			t.Errorf("all %v: record of the lost task: %+v, %v, %v (want one without the session the server ended)", all, e, ok, err)
		}
	}
}

// lineHook writes to w, then calls then with what it wrote.
type lineHook struct {
	w    io.Writer
	then func(string)
}

func (h lineHook) Write(p []byte) (int, error) {
	defer h.then(string(p))
	return h.w.Write(p)
}

// "tasks watch" (every task) forgets a recorded task that its session listed as ended
// and that later leaves the list (its ttl ran out on the server), as it forgets one it
// follows and "tasks watch ID" forgets it: the "gone" line, and event ("forgotten"),
// say so. It kept the record, naming a task no command would reach again. Such a
// record has no session of its own (a server that gave none), so the watch's session
// lists it rather than following it elsewhere.
func TestWatchAllForgetsListedTaskGone(t *testing.T) {
	for _, jsonOut := range []bool{false, true} {
		clitest.StateDir(t)
		released := make(chan struct{})
		srv := server.New(mcp.Implementation{Name: "listed", Version: "1"}, &server.Options{Tasks: &tasks.Options{PollInterval: time.Millisecond}})
		schema := json.RawMessage(`{"type":"object"}`)
		optional := &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}
		srv.AddTool(&mcp.Tool{Name: "wait", InputSchema: schema, Execution: optional},
			doneWhenReleased(released))
		srv.AddTool(&mcp.Tool{Name: "instant", InputSchema: schema, Execution: optional},
			func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("at once")}}, nil
			})
		d := clitest.Serve(t, srv)
		detachBound(t, d, 1) // followed through its own session: the watch lists again while it runs
		store, err := state.Default()
		if err != nil {
			t.Fatal(err)
		}

		env := clitest.New(t, &connect.Selection{URL: d.URL})
		opts := sharedOpts(env, jsonOut)
		var ended string // the task of the watch's session, ended, recorded without a session
		opts.Connect = func(ctx context.Context, requests cmdutil.RequestPolicy) (*cmdutil.Session, error) {
			resumed := env.Selection.Resume != nil
			sess, err := env.Factory.Connect(ctx, requests)
			if err != nil || resumed {
				return sess, err
			}
			task, err := sess.StartToolTask(ctx, &mcp.CallToolParams{Name: "instant", Arguments: json.RawMessage(`{}`)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			task.Wait(ctx)
			ended = task.ID()
			if err := store.Add(state.Entry{TaskID: ended, Tool: "instant", Server: state.FromSelection(env.Selection), Protocol: sess.ProtocolVersion()}); err != nil {
				t.Fatal(err)
			}
			return sess, nil
		}
		var once, release sync.Once
		env.IO.Out = lineHook{env.Out, func(line string) {
			switch {
			case ended == "" || !strings.Contains(line, ended):
			case strings.Contains(line, "gone"):
				release.Do(func() { close(released) })
			default: // shown as listed, ended: its ttl runs out on the server
				once.Do(func() {
					owner, _ := d.Server.Tasks().Owner(ended)
					d.Server.Tasks().DropOwner(owner)
				})
			}
		}}
		if err := watch.Run(clitest.Context(t), &watch.Options{Options: opts}); err != nil {
			t.Fatalf("json %v: %s", jsonOut, describe(err))
		}
		if jsonOut {
			var gone *taskview.Event
			for _, ev := range jsonEvents(t, env.Out.String()) {
				if ev.Event == "gone" {
					gone = &ev
				}
			}
			if gone == nil || gone.Task == nil || gone.Task.TaskID != ended || !gone.Forgotten {
				t.Errorf("\"gone\" event %+v, want one of the task with \"forgotten\":\n%s", gone, env.Out)
			}
		} else if want := "  " + ended + "  gone (expired or deleted); mcpi has removed it from its local list of tasks\n"; !strings.Contains(env.Out.String(), want) {
			t.Errorf("stdout:\n%s\nwant a line ending in %q", env.Out, want)
		}
		if _, ok, err := store.Find(ended); err != nil || ok {
			t.Errorf("json %v: the task is still recorded (%v)", jsonOut, err)
		}
	}
}

// "tasks watch" (every task) whose listing is cut at --max-pages says nothing of the
// tasks past the cut: a task listed as ended before, which a newer one has pushed
// past it, is neither "gone" nor forgotten. It was said gone, which now forgets it.
func TestWatchAllCutListingForgetsNothing(t *testing.T) {
	clitest.StateDir(t)
	f := scripted.NewLegacy(t, nil)
	f.On(mcp.MethodInitialize, func(context.Context, *jsonrpc.Request) (any, error) {
		return scripted.Raw(`{"protocolVersion":"` + mcp.LatestProtocolVersion + `","serverInfo":{"name":"newest first","version":"1"},
			"capabilities":{"tools":{},"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}}}`), nil
	})
	task := func(id string, status mcp.TaskStatus) string {
		return `{"taskId":"` + id + `","status":"` + string(status) + `","createdAt":"2000-01-01T00:00:00Z","lastUpdatedAt":"2000-01-01T00:00:00Z","ttl":null,"pollInterval":1}`
	}
	var mu sync.Mutex
	listings := 0
	f.On(mcp.MethodTasksList, func(context.Context, *jsonrpc.Request) (any, error) {
		mu.Lock()
		defer mu.Unlock()
		listings++
		if listings == 1 {
			return scripted.Raw(`{"tasks":[` + task("ended", mcp.TaskStatusCompleted) + `,` + task("runs", mcp.TaskStatusWorking) + `],"nextCursor":"more"}`), nil
		}
		// Newest first: a new task pushes "ended" past the page.
		return scripted.Raw(`{"tasks":[` + task("new", mcp.TaskStatusWorking) + `,` + task("runs", mcp.TaskStatusWorking) + `],"nextCursor":"more"}`), nil
	})
	f.On(mcp.MethodTasksGet, func(_ context.Context, req *jsonrpc.Request) (any, error) {
		var p struct {
			TaskID string `json:"taskId"`
		}
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return nil, err
		}
		mu.Lock()
		defer mu.Unlock()
		status := mcp.TaskStatusWorking
		if listings >= 2 {
			status = mcp.TaskStatusCancelled
		}
		return scripted.Raw(task(p.TaskID, status)), nil
	})
	url := f.HTTP()
	env := clitest.New(t, &connect.Selection{URL: url, Protocol: mcp.LatestProtocolVersion, Limits: connect.Limits{MaxPages: 1}})
	store, err := state.Default()
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Add(state.Entry{TaskID: "ended", Tool: "t", Server: state.FromSelection(env.Selection), Protocol: mcp.LatestProtocolVersion}); err != nil {
		t.Fatal(err)
	}
	got := describe(watch.Run(clitest.Context(t), &watch.Options{Options: sharedOpts(env, true)}))
	if want := "mcpi: the server's tasks/list went on past 1 page; mcpi stopped there (--max-pages raises the bound) (exit 2)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	for _, ev := range jsonEvents(t, env.Out.String()) {
		if ev.Event == "gone" {
			t.Errorf("a \"gone\" event of %+v, for a task past the cut:\n%s", ev.Task, env.Out)
		}
	}
	if _, ok, err := store.Find("ended"); err != nil || !ok {
		t.Errorf("the task past the cut is no longer recorded (%v)", err)
	}
}

// watchOneOrAll is the environment and options of "tasks watch ID" on task id of d (a
// fresh invocation, the server taken from the task's record), or, with all, of "tasks
// watch" without an id on d.
func watchOneOrAll(t *testing.T, d *clitest.Demo, id string, all, jsonOut bool) (*clitest.Env, *watch.Options) {
	env := fresh(t)
	opts := &watch.Options{ID: id}
	if all {
		env = clitest.New(t, &connect.Selection{URL: d.URL})
		opts.ID = ""
	}
	opts.Options = sharedOpts(env, jsonOut)
	return env, opts
}
