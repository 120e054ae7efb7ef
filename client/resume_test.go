package client_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/tasks"
	"github.com/mcpi-dev/mcpi/transport"
)

// scopedTaskServer is a Streamable HTTP server that binds each task to the session that
// created it, reachable from no other (AdoptOrphanTasks off), with one task tool, wait,
// that finishes once release is called; initializes counts the initialize requests it
// received.
func scopedTaskServer(t *testing.T) (url string, release func(), initializes *atomic.Int32) {
	t.Helper()
	initializes = new(atomic.Int32)
	srv := server.New(mcp.Implementation{Name: "s", Version: "1"}, &server.Options{
		Tasks: &tasks.Options{PollInterval: 5 * time.Millisecond},
		Tap: func(_ *server.Session, dir jsonrpc.Direction, m jsonrpc.Message) {
			if r, ok := m.(*jsonrpc.Request); ok && dir == jsonrpc.Inbound && r.Method == mcp.MethodInitialize {
				initializes.Add(1)
			}
		},
	})
	ch := make(chan struct{})
	var once sync.Once
	release = func() { once.Do(func() { close(ch) }) }
	srv.AddTool(&mcp.Tool{Name: "wait", Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			select {
			case <-ch:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("finally")}}, nil
		})
	h := srv.HTTPHandler(nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		release() // before the server waits for the tool
		ts.Close()
		h.Close()
		srv.Close()
	})
	return ts.URL, release, initializes
}

// detachedTask starts wait as a task on a new session of the server at url, leaves the
// session open on the server (Keep) as the session ends, and returns the task's id and
// what resumes the session.
func detachedTask(t *testing.T, ctx context.Context, c *client.Client, url string) (string, *client.Resumption) {
	t.Helper()
	first, err := c.Connect(ctx, &transport.HTTPClient{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	task, err := first.StartToolTask(ctx, &mcp.CallToolParams{Name: "wait"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := first.Keep()
	if r == nil || r.SessionID == "" || r.Initialize == nil || r.Initialize.ProtocolVersion != mcp.LatestProtocolVersion {
		t.Fatalf("Keep = %+v, want the session's id and initialize result", r)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	return task.ID(), r
}

// A task bound to its session is reached from a later connection that resumes that
// session (no initialize), though a new session cannot see it.
func TestResumeSessionReachesItsTask(t *testing.T) {
	url, release, initializes := scopedTaskServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := client.New(mcp.Implementation{Name: "c", Version: "1"}, &client.Options{ProtocolVersion: mcp.LatestProtocolVersion, PollFloor: time.Millisecond})
	id, r := detachedTask(t, ctx, c, url)

	other, err := c.Connect(ctx, &transport.HTTPClient{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.GetTask(ctx, id); !errors.Is(err, jsonrpc.ErrInvalidParams) {
		t.Fatalf("tasks/get from a new session: %v, want -32602 (the server binds tasks to their session)", err)
	}
	other.Close()

	resumed, err := c.Resume(ctx, &transport.HTTPClient{URL: url}, r)
	if err != nil {
		t.Fatalf("Resume: %v", err)
	}
	defer resumed.Close()
	if n := initializes.Load(); n != 2 {
		t.Errorf("the server received %d initialize requests, want 2 (none for the resumed session)", n)
	}
	if v := resumed.ProtocolVersion(); v != mcp.LatestProtocolVersion {
		t.Errorf("resumed session speaks %q", v)
	}
	if !resumed.ServerCapabilities().Tasks.SupportsList() {
		t.Error("the resumed session does not have the server's capabilities")
	}
	st, err := resumed.GetTask(ctx, id)
	if err != nil || st.Status != mcp.TaskStatusWorking {
		t.Fatalf("tasks/get on the resumed session: %+v, %v", st, err)
	}
	release()
	res, err := resumed.TaskResult(ctx, id)
	if err != nil || len(res.Content) != 1 || res.Content[0].Text != "finally" {
		t.Fatalf("tasks/result on the resumed session: %+v, %v", res, err)
	}
}

// A session the server has ended is not resumed: Resume fails with ErrSessionExpired,
// and a new session does not know the task.
func TestResumeEndedSession(t *testing.T) {
	url, _, _ := scopedTaskServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := client.New(mcp.Implementation{Name: "c", Version: "1"}, &client.Options{ProtocolVersion: mcp.LatestProtocolVersion, PollFloor: time.Millisecond})
	id, r := detachedTask(t, ctx, c, url)

	// The server ends the session (here because it is asked to).
	req, _ := http.NewRequestWithContext(ctx, http.MethodDelete, url, nil)
	req.Header.Set(transport.HeaderSessionID, r.SessionID)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %s", resp.Status)
	}

	if s, err := c.Resume(ctx, &transport.HTTPClient{URL: url}, r); !errors.Is(err, transport.ErrSessionExpired) {
		if s != nil {
			s.Close()
		}
		t.Fatalf("Resume of an ended session: %v, want ErrSessionExpired", err)
	}
	fresh, err := c.Connect(ctx, &transport.HTTPClient{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	if _, err := fresh.TaskResult(ctx, id); !errors.Is(err, client.ErrTaskGone) && !errors.Is(err, jsonrpc.ErrInvalidParams) {
		t.Fatalf("tasks/result from a new session: %v, want the task unknown", err)
	}
}

// Resume refuses what cannot be a session to resume, before sending anything.
func TestResumeRefusals(t *testing.T) {
	c := client.New(mcp.Implementation{Name: "c", Version: "1"}, nil)
	ctx := context.Background()
	init := &mcp.InitializeResult{ProtocolVersion: mcp.LatestProtocolVersion}
	for _, tt := range []struct {
		name string
		t    transport.Transport
		r    *client.Resumption
	}{
		{"no resumption", &transport.HTTPClient{URL: "http://127.0.0.1:1/mcp"}, nil},
		{"no id", &transport.HTTPClient{URL: "http://127.0.0.1:1/mcp"}, &client.Resumption{Initialize: init}},
		{"2026-07-28", &transport.HTTPClient{URL: "http://127.0.0.1:1/mcp"}, &client.Resumption{SessionID: "s", Initialize: &mcp.InitializeResult{ProtocolVersion: mcp.ProtocolVersion20260728}}},
		{"a bad id", &transport.HTTPClient{URL: "http://127.0.0.1:1/mcp"}, &client.Resumption{SessionID: "a\nb", Initialize: init}},
		{"a pipe", transport.PipeTransport{Serve: func(context.Context, jsonrpc.Connection) error { return nil }}, &client.Resumption{SessionID: "s", Initialize: init}},
	} {
		if s, err := c.Resume(ctx, tt.t, tt.r); err == nil {
			s.Close()
			t.Errorf("%s: resumed", tt.name)
		}
	}
}

// Some servers (the TypeScript SDK's examples) answer a session id they do not know with
// 400, as a request without one, not with 404: the session is taken for ended all the
// same.
func TestResumeSessionUnknownAs400(t *testing.T) {
	var sawSession atomic.Value
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sawSession.Store(r.Header.Get(transport.HeaderSessionID) + " " + r.Header.Get(transport.HeaderProtocolVersion))
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null}`))
	}))
	defer ts.Close()
	c := client.New(mcp.Implementation{Name: "c", Version: "1"}, nil)
	r := &client.Resumption{SessionID: "gone", Initialize: &mcp.InitializeResult{ProtocolVersion: mcp.LatestProtocolVersion}}
	s, err := c.Resume(context.Background(), &transport.HTTPClient{URL: ts.URL}, r)
	if !errors.Is(err, transport.ErrSessionExpired) {
		if s != nil {
			s.Close()
		}
		t.Fatalf("Resume: %v, want ErrSessionExpired", err)
	}
	if got, want := sawSession.Load(), "gone "+mcp.LatestProtocolVersion; got != want {
		t.Errorf("the request carried session and version %q, want %q", got, want)
	}
}
