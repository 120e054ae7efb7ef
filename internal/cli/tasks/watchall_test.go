package tasks_test

import (
	"context"
	"encoding/json"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/internal/clitest"
	"github.com/mcpi-dev/mcpi/internal/cli/state"
	"github.com/mcpi-dev/mcpi/internal/cli/tasks/list"
	"github.com/mcpi-dev/mcpi/internal/cli/tasks/watch"
	"github.com/mcpi-dev/mcpi/internal/cli/taskview"
	"github.com/mcpi-dev/mcpi/internal/cli/tools/call"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/tasks"
)

// detachBound starts n tasks of the "wait" tool on d with --detach, each in a session of
// its own that mcpi records and leaves open, and returns their ids.
func detachBound(t *testing.T, d *clitest.Demo, n int) []string {
	t.Helper()
	var ids []string
	for range n {
		env := clitest.New(t, &connect.Selection{URL: d.URL})
		if err := callTool(clitest.Context(t), env, &call.Options{Name: "wait", Task: true, Detach: true}); err != nil {
			t.Fatal(describe(err))
		}
		ids = append(ids, strings.TrimSpace(env.Out.String()))
	}
	return ids
}

// "tasks list" in 2025-11-25 lists the tasks of its own new session: of a server that
// binds tasks to their session, none of those mcpi recorded with sessions of their own.
// It says how many there are and which commands show them (it said only "No tasks.").
func TestListCountsTasksInOtherSessions(t *testing.T) {
	clitest.StateDir(t)
	d := boundServer(t)
	detachBound(t, d, 2)
	env := clitest.New(t, &connect.Selection{URL: d.URL})
	if err := list.Run(clitest.Context(t), &list.Options{Options: sharedOpts(env, false)}); err != nil {
		t.Fatal(describe(err))
	}
	want := `2 tasks mcpi recorded for this server were left in sessions of their own, which this session's tasks/list does not show: "mcpi tasks list --local" lists them, and "mcpi tasks watch" follows them through their sessions.` + "\n" +
		`No tasks. (A server lists the tasks of the current session only; "mcpi tasks list --local" shows the tasks mcpi left running.)` + "\n"
	if got := env.ErrOut.String(); got != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", got, want)
	}
}

// releasedBoundServer is boundServer whose "wait" tool ends, with "done", once release
// is called.
func releasedBoundServer(t *testing.T) (d *clitest.Demo, release func()) {
	released := make(chan struct{})
	var once sync.Once
	srv := server.New(mcp.Implementation{Name: "bound", Version: "1"}, &server.Options{Tasks: &tasks.Options{PollInterval: time.Millisecond}})
	srv.AddTool(&mcp.Tool{Name: "wait", InputSchema: json.RawMessage(`{"type":"object"}`), Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}},
		doneWhenReleased(released))
	return clitest.Serve(t, srv), func() { once.Do(func() { close(released) }) }
}

// jsonEvents parses the --json lines of out.
func jsonEvents(t *testing.T, out string) []taskview.Event {
	t.Helper()
	var evs []taskview.Event
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var ev taskview.Event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		evs = append(evs, ev)
	}
	return evs
}

// lastEvents returns the kind of the last event of each task in evs.
func lastEvents(evs []taskview.Event) map[string]string {
	last := map[string]string{}
	for _, ev := range evs {
		if ev.Task != nil {
			last[ev.Task.TaskID] = ev.Event
		}
	}
	return last
}

// "tasks watch" without an id takes up the sessions mcpi recorded tasks with, to which a
// server may bind them (the TypeScript SDK's), and follows those tasks through them to
// their end, in the same stream as the tasks of its own session, leaving the sessions
// open as they were. It listed none of them, and only counted them on stderr.
func TestWatchAllFollowsTasksInOtherSessions(t *testing.T) {
	clitest.StateDir(t)
	d, release := releasedBoundServer(t)
	ids := detachBound(t, d, 2)
	env := clitest.New(t, &connect.Selection{URL: d.URL})
	var mu sync.Mutex
	lines := 0
	env.IO.Out = writeThen{env.Out, func() {
		mu.Lock()
		defer mu.Unlock()
		if lines++; lines == len(ids) { // both tasks shown: they end
			release()
		}
	}}
	if err := watch.Run(clitest.Context(t), &watch.Options{Options: sharedOpts(env, true)}); err != nil {
		t.Fatal(describe(err))
	}
	if got := env.ErrOut.String(); got != "" {
		t.Errorf("stderr: %s", got)
	}
	last := map[string]mcp.TaskStatus{}
	for _, ev := range jsonEvents(t, env.Out.String()) {
		if ev.Event != "status" {
			t.Errorf("event %s", ev.Event)
		}
		last[ev.Task.TaskID] = ev.Task.Status
	}
	want := map[string]mcp.TaskStatus{ids[0]: mcp.TaskStatusCompleted, ids[1]: mcp.TaskStatusCompleted}
	if !maps.Equal(last, want) {
		t.Errorf("last statuses %v, want %v\n%s", last, want, env.Out)
	}
	// The watch's own session ends as it returns; the server sees that on a goroutine
	// of its own.
	d.WaitIdle(t)
	if n := len(d.Server.Sessions()); n != len(ids) {
		t.Errorf("the server has %d sessions, want the %d the tasks were recorded with", n, len(ids))
	}
}

// "tasks watch" takes up at most watch.MaxSessions recorded sessions, the newest, and
// says how many tasks it left out; interrupted, it leaves those it followed as it leaves
// its own: recorded with their sessions, kept open on the server.
func TestWatchAllBoundsResumedSessions(t *testing.T) {
	clitest.StateDir(t)
	d := boundServer(t)
	ids := detachBound(t, d, watch.MaxSessions+1)
	env := clitest.New(t, &connect.Selection{URL: d.URL})
	ctx, stop := context.WithCancel(clitest.Context(t))
	defer stop()
	var mu sync.Mutex
	lines := 0
	env.IO.Out = writeThen{env.Out, func() {
		mu.Lock()
		defer mu.Unlock()
		if lines++; lines == watch.MaxSessions { // Ctrl-C once all are shown
			stop()
		}
	}}
	err := watch.Run(ctx, &watch.Options{Options: sharedOpts(env, true)})
	if got := describe(err); got != "mcpi: interrupted (exit 2)" {
		t.Errorf("got %q", got)
	}
	wantErr := `1 task mcpi recorded for this server in 1 more session of their own is not followed, as a watch takes up at most 8 sessions: "mcpi tasks watch ID" follows one through its session ("mcpi tasks list --local" lists it).` + "\n"
	if got := env.ErrOut.String(); got != wantErr {
		t.Errorf("stderr:\n%s\nwant:\n%s", got, wantErr)
	}
	want := map[string]string{}
	for _, id := range ids[1:] {
		want[id] = "interrupted"
	}
	evs := jsonEvents(t, env.Out.String())
	if got := lastEvents(evs); !maps.Equal(got, want) {
		t.Errorf("last events %v, want %v\n%s", got, want, env.Out)
	}
	for _, ev := range evs {
		if ev.Event == "interrupted" && (ev.Interrupted == nil || ev.Interrupted.Fetch != "mcpi tasks result "+ev.Task.TaskID) {
			t.Errorf("interrupted: %+v", ev.Interrupted)
		}
	}
	d.WaitIdle(t)
	if n := len(d.Server.Sessions()); n != len(ids) {
		t.Errorf("the server has %d sessions, want the %d the tasks were recorded with", n, len(ids))
	}
	store, err := state.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if e, ok, err := store.Find(id); err != nil || !ok || e.Session == nil {
			t.Errorf("record of %s: %+v, %v, %v", id, e, ok, err)
		}
	}
}

// "tasks watch" finds the sessions of recorded tasks ended by the server, which a server
// that binds tasks to their session ended the tasks with: it forgets them and says so.
func TestWatchAllForgetsTasksOfEndedSessions(t *testing.T) {
	clitest.StateDir(t)
	d := boundServer(t)
	ids := detachBound(t, d, 2)
	for _, s := range d.Server.Sessions() {
		s.Close()
	}
	d.WaitIdle(t)
	env := clitest.New(t, &connect.Selection{URL: d.URL})
	if err := watch.Run(clitest.Context(t), &watch.Options{Options: sharedOpts(env, false)}); err != nil {
		t.Fatal(describe(err))
	}
	want := "2 tasks mcpi recorded for this server in sessions of their own the server no longer knows (they expired, or the server ended their session): forgotten.\n" +
		"No tasks. (A server lists the tasks of the current session only.)\n"
	if got := env.ErrOut.String(); got != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", got, want)
	}
	store, err := state.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if e, ok, err := store.Find(id); err != nil || ok {
			t.Errorf("record of %s: %+v, %v, %v", id, e, ok, err)
		}
	}
}

// "tasks watch --json" stopped on a question it cannot ask ends the stream with a
// "waiting" event for each task left waiting, with the command that gives its input and
// the sentence (it was an "interrupted" event, state "running", as if a signal had come):
// with an id, and without, for a task followed through the session it was recorded with.
func TestWatchLeftInputWaitingEvent(t *testing.T) {
	clitest.StateDir(t)
	d := askingBoundServer(t)
	env := clitest.New(t, &connect.Selection{URL: d.URL})
	if err := callTool(clitest.Context(t), env, &call.Options{Name: "ask", Task: true, Detach: true}); err != nil {
		t.Fatal(describe(err))
	}
	id := strings.TrimSpace(env.Out.String())
	fetch := "mcpi tasks result " + id
	waits := askNeed + `; the task "` + id + `" waits for it on the server, in the session mcpi left open there: "` + fetch + `" gives it`
	for _, all := range []bool{false, true} {
		var err error
		if all {
			env = clitest.New(t, &connect.Selection{URL: d.URL})
			err = watch.Run(clitest.Context(t), &watch.Options{Options: sharedOpts(env, true)})
		} else {
			env = fresh(t)
			err = watch.Run(clitest.Context(t), &watch.Options{Options: sharedOpts(env, true), ID: id})
		}
		// Without an id too, the question names its task, which the sentence names.
		want := "mcpi: " + waits + " (exit 2)"
		if got := describe(err); got != want {
			t.Errorf("all %v:\ngot  %q\nwant %q", all, got, want)
		}
		evs := jsonEvents(t, env.Out.String())
		last := evs[len(evs)-1]
		if last.Event != "waiting" || last.Task == nil || last.Task.TaskID != id || last.Waiting == nil || last.Waiting.Fetch != fetch ||
			last.Error == nil || last.Error.Message != waits {
			t.Errorf("all %v: last line %+v\nwant a \"waiting\" event with %q and %q", all, last, fetch, waits)
		}
		d.WaitIdle(t) // the command's own session ends on a goroutine of the server's
		if n := len(d.Server.Sessions()); n != 1 {
			t.Errorf("all %v: the server has %d sessions, want the task's", all, n)
		}
	}
}

// "tasks watch" without an id stopped on a question of its own session before it
// followed any task says so (it said "the tasks mcpi followed wait").
func TestWatchAllLeftInputBeforeAnyTask(t *testing.T) {
	clitest.StateDir(t)
	srv := server.New(mcp.Implementation{Name: "asks", Version: "1"}, &server.Options{
		Tasks: &tasks.Options{},
		Handlers: map[string]server.MethodHandler{mcp.MethodTasksList: func(ctx context.Context, s *server.Session, _ *jsonrpc.Request) (any, error) {
			// A question before the listing, which waits for its answer.
			if _, err := s.Elicit(ctx, &mcp.ElicitParams{Message: "name?", RequestedSchema: []byte(`{"type":"object","properties":{"name":{"type":"string"}}}`)}); err != nil {
				return nil, err
			}
			return nil, server.ErrNotHandled
		}},
	})
	d := clitest.Serve(t, srv)
	env := clitest.New(t, &connect.Selection{URL: d.URL})
	err := watch.Run(clitest.Context(t), &watch.Options{Options: sharedOpts(env, true)})
	want := `mcpi: the server asked for the user's input (elicitation), which mcpi can only give on a terminal or from an answers file; run it on a terminal, or pass --answers FILE with {"elicitation": {"*": {"name": "..."}}}; mcpi stopped before it followed any task (exit 2)`
	if got := describe(err); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if env.Out.Len() != 0 {
		t.Errorf("stdout: %s", env.Out)
	}
}

// doneWhenReleased is a tool handler that answers "done" once released is closed, or
// gives up with its context.
func doneWhenReleased(released <-chan struct{}) server.ToolHandler {
	return func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		select {
		case <-released:
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("done")}}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}
