package client_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/tasks"
	"github.com/mcpi-dev/mcpi/transport"
)

// TestFollowTaskFromAnotherSession starts a task in one session, then follows it by id
// from a second session of the same server after the first has gone.
func TestFollowTaskFromAnotherSession(t *testing.T) {
	release := make(chan struct{})
	srv := server.New(mcp.Implementation{Name: "s", Version: "1"}, &server.Options{
		Tasks:            &tasks.Options{PollInterval: 5 * time.Millisecond},
		AdoptOrphanTasks: true,
	})
	defer srv.Close()
	var releaseOnce sync.Once
	// Runs before srv.Close, which waits for the tool: a failing test must not hang.
	defer releaseOnce.Do(func() { close(release) })
	srv.AddTool(&mcp.Tool{Name: "wait", Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			<-release
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("finally")}}, nil
		})
	served := make(chan *server.Session, 2)
	connect := func() *client.Session {
		tr := transport.PipeTransport{Serve: func(ctx context.Context, conn jsonrpc.Connection) error {
			served <- srv.Connect(ctx, conn)
			return nil
		}}
		s, err := client.New(mcp.Implementation{Name: "c", Version: "1"}, &client.Options{PollFloor: time.Millisecond}).Connect(context.Background(), tr)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	ctx := context.Background()
	first := connect()
	task, err := first.StartToolTask(ctx, &mcp.CallToolParams{Name: "wait"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	id := task.ID()
	first.Close()
	// The task is an orphan once the server has seen the first session end; until then
	// it belongs to a live session and another one may not see it.
	<-(<-served).Done()

	second := connect()
	defer second.Close()
	followed, err := second.FollowTask(ctx, id)
	if err != nil {
		t.Fatalf("following an orphaned task by id: %v", err)
	}
	if again, _ := second.FollowTask(ctx, id); again != followed {
		t.Error("following the same id twice made two trackers")
	}
	events := followed.Events(ctx)
	releaseOnce.Do(func() { close(release) })
	var kinds []client.TaskEventKind
	for e := range events {
		kinds = append(kinds, e.Kind)
	}
	res, err := followed.Outcome()
	if err != nil || len(res.Content) != 1 || res.Content[0].Text != "finally" {
		t.Fatalf("outcome = %+v, %v", res, err)
	}
	if len(kinds) == 0 || kinds[len(kinds)-1] != client.TaskResult {
		t.Errorf("events = %v, want them to end with result", kinds)
	}
	found := false
	for st, err := range second.ServerTasks(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		found = found || st.TaskID == id
	}
	if !found {
		t.Error("the adopted task is not in the new session's tasks/list")
	}
}

// askingServer is a server whose task tool "ask" asks its client's user for a name and
// returns it, and which adopts the tasks of ended sessions; closed as the test ends.
func askingServer(t *testing.T) *server.Server {
	srv := server.New(mcp.Implementation{Name: "s", Version: "1"}, &server.Options{
		Tasks:            &tasks.Options{PollInterval: 5 * time.Millisecond},
		AdoptOrphanTasks: true,
	})
	t.Cleanup(srv.Close)
	srv.AddTool(&mcp.Tool{Name: "ask", Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportRequired}},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "name?",
				RequestedSchema: []byte(`{"type":"object","properties":{"name":{"type":"string"}}}`)})
			if err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(fmt.Sprint(res.Content["name"]))}}, nil
		})
	return srv
}

// connectAsked connects a client that declares elicitation, answered by onRequest, to
// srv over an in-memory pipe (its server end wrapped by wrap, if not nil), and sends the
// server's session to served.
func connectAsked(t *testing.T, srv *server.Server, served chan<- *server.Session, wrap func(jsonrpc.Connection) jsonrpc.Connection, onRequest func(context.Context, *client.Request)) *client.Session {
	t.Helper()
	tr := transport.PipeTransport{Serve: func(ctx context.Context, conn jsonrpc.Connection) error {
		if wrap != nil {
			conn = wrap(conn)
		}
		served <- srv.Connect(ctx, conn)
		return nil
	}}
	s, err := client.New(mcp.Implementation{Name: "c", Version: "1"}, &client.Options{PollFloor: time.Millisecond,
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{}}, OnRequest: onRequest}).
		Connect(context.Background(), tr)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestInputLeftForTheNextSession: a task's side-channel question whose session ends
// unanswered (its client could not ask anyone, as "mcpi tasks result" without a terminal)
// does not fail the task: the server asks again on the next session that reaches the
// task with tasks/result, and the task completes with that session's answer. (The tool's
// question failed with the closed connection, and the task with it.)
func TestInputLeftForTheNextSession(t *testing.T) {
	srv := askingServer(t)
	served := make(chan *server.Session, 2)
	connect := func(onRequest func(context.Context, *client.Request)) *client.Session {
		return connectAsked(t, srv, served, nil, onRequest)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	asked := make(chan struct{})
	var askedOnce sync.Once
	first := connect(func(context.Context, *client.Request) { askedOnce.Do(func() { close(asked) }) }) // never answers
	task, err := first.StartToolTask(ctx, &mcp.CallToolParams{Name: "ask"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-asked:
	case <-ctx.Done():
		t.Fatal("the first session was never asked")
	}
	id := task.ID()
	first.Close()
	<-(<-served).Done()

	second := connect(func(_ context.Context, r *client.Request) { _ = r.Accept(map[string]any{"name": "Ada"}) })
	defer second.Close()
	followed, err := second.FollowTask(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-followed.Done():
	case <-ctx.Done():
		t.Fatal("the task never ended: its question did not reach the second session")
	}
	res, err := followed.Outcome()
	if err != nil || len(res.Content) != 1 || res.Content[0].Text != "Ada" {
		t.Fatalf("outcome = %+v, %v; want the second session's answer", res, err)
	}
}

// gatedConn is a server's end of a connection whose reading goes on after Close until
// gate is closed, as a transport's may (a read blocked in a system call): the window in
// which the connection has failed its calls and its Done is not yet closed.
type gatedConn struct {
	jsonrpc.Connection
	gate chan struct{}
}

func (g gatedConn) Close() error {
	go func() {
		<-g.gate
		g.Connection.Close()
	}()
	return nil
}

// A task's question whose session the server itself ends is asked again of the next
// session even when the connection fails the question before its reading has stopped:
// the work waits for the session to be gone (the connection's Done) instead of taking
// the failure for the task's. (It failed the task with "connection closed" whenever the
// work saw the failure first, in about 1 of 200 runs of TestInputLeftForTheNextSession
// under load, and every time here.)
func TestInputAskedAgainOnceTheSessionIsGone(t *testing.T) {
	synctest.Test(t, testInputAskedAgainOnceTheSessionIsGone)
}

func testInputAskedAgainOnceTheSessionIsGone(t *testing.T) {
	srv := askingServer(t)
	gate := make(chan struct{})
	var gateOnce sync.Once
	open := func() { gateOnce.Do(func() { close(gate) }) }
	defer open()
	served := make(chan *server.Session, 2)
	connect := func(gated bool, onRequest func(context.Context, *client.Request)) *client.Session {
		var wrap func(jsonrpc.Connection) jsonrpc.Connection
		if gated {
			wrap = func(conn jsonrpc.Connection) jsonrpc.Connection { return gatedConn{conn, gate} }
		}
		return connectAsked(t, srv, served, wrap, onRequest)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	asked := make(chan struct{})
	var askedOnce sync.Once
	first := connect(true, func(context.Context, *client.Request) { askedOnce.Do(func() { close(asked) }) }) // never answers
	defer first.Close()
	task, err := first.StartToolTask(ctx, &mcp.CallToolParams{Name: "ask"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-asked:
	case <-ctx.Done():
		t.Fatal("the first session was never asked")
	}
	id := task.ID()
	ss := <-served
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		ss.Close() // fails the question at once; returns once the reading has stopped
	}()
	// Everything waits now: the session's Close for its reading, which waits for the
	// gate; the work has the question's failure, and the task must not have ended with
	// it while the session was still ending.
	synctest.Wait()
	m := srv.Tasks()
	owner, _ := m.Owner(id)
	if st, err := m.Get(owner, id); err != nil || st.Status.IsTerminal() {
		t.Fatalf("while its session was ending, the task: %s %q, %v", st.Status, st.StatusMessage, err)
	}
	open()
	<-closed
	second := connect(false, func(_ context.Context, r *client.Request) { _ = r.Accept(map[string]any{"name": "Ada"}) })
	defer second.Close()
	followed, err := second.FollowTask(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-followed.Done():
	case <-ctx.Done():
		t.Fatal("the task never ended: its question did not reach the second session")
	}
	res, err := followed.Outcome()
	if err != nil || len(res.Content) != 1 || res.Content[0].Text != "Ada" {
		t.Fatalf("outcome = %+v, %v; want the second session's answer", res, err)
	}
}

// Options.LogLevel asks for the server's log from the start, in both eras (a session
// that names no level gets every message in 2025-11-25, and none in 2026-07-28).
func TestOptionsLogLevel(t *testing.T) {
	for _, version := range []string{"2025-11-25", mcp.ModernProtocolVersions[0]} {
		t.Run(version, func(t *testing.T) {
			srv := server.New(mcp.Implementation{Name: "s", Version: "1"}, &server.Options{Modern: version != "2025-11-25"})
			defer srv.Close()
			srv.AddTool(&mcp.Tool{Name: "log"}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
				for _, l := range []mcp.LoggingLevel{mcp.LoggingLevelDebug, mcp.LoggingLevelInfo, mcp.LoggingLevelError} {
					if err := req.Session.Log(ctx, l, "t", string(l)); err != nil {
						return nil, err
					}
				}
				return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("logged")}}, nil
			})
			tr := transport.PipeTransport{Serve: func(ctx context.Context, conn jsonrpc.Connection) error {
				srv.Connect(ctx, conn)
				return nil
			}}
			ctx := t.Context()
			s, err := client.New(mcp.Implementation{Name: "c", Version: "1"}, &client.Options{ProtocolVersion: version, LogLevel: mcp.LoggingLevelInfo}).Connect(ctx, tr)
			if err != nil {
				t.Fatal(err)
			}
			sub := s.Subscribe()
			if _, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "log"}, nil); err != nil {
				t.Fatal(err)
			}
			s.Close()
			var got []mcp.LoggingLevel
			for e := range sub.All(ctx) {
				if l, ok := e.(*client.LogEvent); ok {
					got = append(got, l.Params.Level)
				}
			}
			if want := []mcp.LoggingLevel{mcp.LoggingLevelInfo, mcp.LoggingLevelError}; !slices.Equal(got, want) {
				t.Errorf("log levels %v, want %v", got, want)
			}
		})
	}
}
