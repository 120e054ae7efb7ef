package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
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

// slowTaskServer is a server of the era of version, over Streamable HTTP on 127.0.0.1,
// with a tool "wait" that runs as a task until release is closed (or the server closes).
func slowTaskServer(t *testing.T, version string) (srv *server.Server, ts *httptest.Server, release chan struct{}) {
	t.Helper()
	srv = server.New(mcp.Implementation{Name: "s", Version: "1"}, &server.Options{
		Modern: version == mcp.ModernProtocolVersions[0],
		Tasks:  &tasks.Options{PollInterval: 500 * time.Millisecond},
	})
	release = make(chan struct{})
	srv.AddTool(&mcp.Tool{Name: "wait", Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			select {
			case <-release:
			case <-ctx.Done():
			}
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("done")}}, nil
		})
	ts = httptest.NewServer(srv.HTTPHandler(nil))
	t.Cleanup(func() {
		srv.Close()
		ts.Close()
	})
	return srv, ts, release
}

// kill stops ts as kill -9 stops a server process: nothing listens at its address any
// more, and every connection to it is closed.
func kill(ts *httptest.Server) {
	ts.Listener.Close()
	ts.CloseClientConnections()
}

// TestFollowServerKilled: the Streamable HTTP server of a followed task dies. The
// follower's polls cannot reach it; a few are tried again, with growing waits, and then
// the task ends with a *TaskLostError that matches transport.ErrUnreachable, within
// seconds, and the polls stop. (Before, the follower polled for ever, the task stayed
// "working", and nothing said why.)
func TestFollowServerKilled(t *testing.T) {
	for _, version := range []string{"2025-11-25", mcp.ModernProtocolVersions[0]} {
		t.Run(version, func(t *testing.T) {
			_, ts, _ := slowTaskServer(t, version)
			// The server runs outside the bubble; the client, its timers and its polls
			// inside. Fake time stands still while a connection to the server is open,
			// and runs once the server is gone.
			synctest.Test(t, func(t *testing.T) {
				task := startWait(t, version, ts.URL)
				kill(ts)
				killed := time.Now()
				select {
				case <-task.Done():
				case <-time.After(time.Minute):
					t.Fatalf("still following the task a minute after its server died, after %d polls", task.Polls())
				}
				took := time.Since(killed)
				_, err := task.Outcome()
				var lost *client.TaskLostError
				if !errors.As(err, &lost) {
					t.Fatalf("outcome: %v, want a *client.TaskLostError", err)
				}
				if !errors.Is(err, transport.ErrUnreachable) {
					t.Errorf("outcome: %v, want it to match transport.ErrUnreachable", err)
				}
				if lost.TaskID != task.ID() || lost.Polls != client.MaxFailedPolls {
					t.Errorf("lost = %+v, want task %s after %d polls", lost, task.ID(), client.MaxFailedPolls)
				}
				// A poll interval (0.5s and its spread), then waits of 1s, 2s and 4s.
				if took < 7*time.Second || took > 9*time.Second {
					t.Errorf("the follower gave up %s after the server died, want about 7.5s", took)
				}
				if !errors.Is(task.PollError(), transport.ErrUnreachable) {
					t.Errorf("PollError = %v, want the last poll's error", task.PollError())
				}
				polls := task.Polls()
				time.Sleep(time.Minute)
				if n := task.Polls(); n != polls {
					t.Errorf("%d more polls after the task ended", n-polls)
				}
			})
		})
	}
}

// TestFollowServerBackSoon: a server that is back before the follower gives up (a
// restart that keeps its tasks) loses the follower nothing: the failed polls are retried,
// and the task ends with its result.
func TestFollowServerBackSoon(t *testing.T) {
	version := mcp.ModernProtocolVersions[0] // no session to lose with the restart
	srv, ts, release := slowTaskServer(t, version)
	addr := ts.Listener.Addr().String()
	// No idle connections: fake time stands still while one is open.
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	// The server comes back outside the bubble, as it runs there.
	restart, restarted := make(chan struct{}), make(chan error, 1)
	go func() {
		<-restart
		l, err := net.Listen("tcp", addr)
		restarted <- err
		if err != nil {
			return
		}
		back := &http.Server{Handler: srv.HTTPHandler(nil)}
		t.Cleanup(func() { back.Close() })
		_ = back.Serve(l)
	}()
	synctest.Test(t, func(t *testing.T) {
		s, err := client.New(mcp.Implementation{Name: "c", Version: "1"}, &client.Options{
			ProtocolVersion: version,
		}).Connect(t.Context(), &transport.HTTPClient{URL: ts.URL, Client: hc})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		sub := s.Subscribe()
		task, err := s.StartToolTask(t.Context(), &mcp.CallToolParams{Name: "wait"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		kill(ts)
		time.Sleep(2 * time.Second) // a poll or two fail
		if task.PollError() == nil {
			t.Fatal("no poll failed while the server was down")
		}
		// The session says the server does not answer (over HTTP its end ends nothing).
		if err := s.Unreachable(); !errors.Is(err, transport.ErrUnreachable) {
			t.Errorf("Unreachable = %v while the server is down, want transport.ErrUnreachable", err)
		}
		close(restart)
		if err := <-restarted; err != nil {
			t.Skipf("the server's address was taken meanwhile: %v", err)
		}
		close(release)
		select {
		case <-task.Done():
		case <-time.After(time.Minute):
			t.Fatalf("the task did not end after the server came back (%d polls)", task.Polls())
		}
		res, err := task.Outcome()
		if err != nil || len(res.Content) != 1 || res.Content[0].Text != "done" {
			t.Fatalf("outcome: %+v, %v; want the result", res, err)
		}
		if task.PollError() != nil {
			t.Errorf("PollError = %v after answered polls", task.PollError())
		}
		if err := s.Unreachable(); err != nil {
			t.Errorf("Unreachable = %v once the server answers again", err)
		}
		// Subscribers were told of both changes, in order. The second is published by
		// the session's own goroutine after the transport's state changed: it is waited
		// for (closing the session first could end that goroutine before it tells).
		wait, stop := context.WithTimeout(t.Context(), time.Minute)
		defer stop()
		var reach []error
		for e := range sub.All(wait) {
			if r, ok := e.(*client.ReachabilityEvent); ok {
				if reach = append(reach, r.Err); len(reach) == 2 {
					break
				}
			}
		}
		if len(reach) != 2 || !errors.Is(reach[0], transport.ErrUnreachable) || reach[1] != nil {
			t.Errorf("reachability events %v, want the server's absence then its return", reach)
		}
	})
}

// TestFollowServerKilledAfterNotifications: a 2025-11-25 task of a server that has sent
// status notifications polls only every NotifiedPollInterval (10 s); once the server is
// gone no notification can come, so the follower goes back to the task's own interval
// as soon as the session finds the server unreachable (its notification stream cannot
// reconnect), and gives up as soon as without notifications (it took up to 10 s more).
func TestFollowServerKilledAfterNotifications(t *testing.T) {
	version := "2025-11-25"
	srv := server.New(mcp.Implementation{Name: "s", Version: "1"}, &server.Options{
		Tasks: &tasks.Options{PollInterval: 500 * time.Millisecond},
	})
	srv.AddTool(&mcp.Tool{Name: "wait", Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			if h, ok := server.TaskFromContext(ctx); ok {
				_ = h.SetStatus(mcp.TaskStatusWorking, "started") // a status notification
			}
			<-ctx.Done()
			return nil, ctx.Err()
		})
	ts := httptest.NewServer(srv.HTTPHandler(nil))
	t.Cleanup(func() {
		srv.Close()
		ts.Close()
	})
	synctest.Test(t, func(t *testing.T) {
		task := startWait(t, version, ts.URL)
		for e := range task.Events(t.Context()) { // a wait on a channel: fake time may pass
			if e.State.StatusMessage == "started" {
				break
			}
		}
		kill(ts)
		killed := time.Now()
		select {
		case <-task.Done():
		case <-time.After(time.Minute):
			t.Fatalf("still following the task a minute after its server died, after %d polls", task.Polls())
		}
		if _, err := task.Outcome(); !errors.As(err, new(*client.TaskLostError)) {
			t.Fatalf("outcome: %v, want a *client.TaskLostError", err)
		}
		// The stream's reconnection finds nothing (its first retry, 1 s), then a poll at
		// the task's interval and waits of 1, 2 and 4 s.
		if took := time.Since(killed); took > 10*time.Second {
			t.Errorf("the follower gave up %s after the server died, want under 10 s (the notified interval)", took)
		}
	})
}

// startWait connects to the server at url in version, with a request timeout of 3 s,
// and starts its tool "wait" as a task; the session ends with the test (or its bubble).
func startWait(t *testing.T, version, url string) *client.Task {
	t.Helper()
	return startWaitWith(t, version, url, nil)
}

// startWaitWith is startWait with the HTTP client hc (nil: the default one). Fake time
// stands still while a connection is open, an idle one too: a server that stays up is
// reached with hc that keeps none.
func startWaitWith(t *testing.T, version, url string, hc *http.Client) *client.Task {
	t.Helper()
	s, err := client.New(mcp.Implementation{Name: "c", Version: "1"}, &client.Options{
		ProtocolVersion: version,
		RequestTimeout:  3 * time.Second,
	}).Connect(t.Context(), &transport.HTTPClient{URL: url, Client: hc})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	task, err := s.StartToolTask(t.Context(), &mcp.CallToolParams{Name: "wait"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return task
}

// failingPolls wraps the Streamable HTTP handler h: while fail reports true for a
// request's method, the request is answered with a JSON-RPC error -32603 ("database
// down") instead of reaching h, as a server whose task store is down answers; a GET
// (the notification stream of 2025-11-25) is refused with 405, as by a server that
// offers none. It counts the failed answers by method.
func failingPolls(h http.Handler, fail func(method string) bool, failed map[string]*atomic.Int32) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			http.Error(w, "no stream", http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(body, &msg) == nil && msg.ID != nil && fail(msg.Method) {
			if n := failed[msg.Method]; n != nil {
				n.Add(1)
			}
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"database down"}}`, msg.ID)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		h.ServeHTTP(w, r)
	})
}

// TestFollowServerAnsweringErrors: a server that answers every poll of a task with a
// JSON-RPC error (its task store is down) is there, but says nothing of the task. The
// follower tries again with growing waits and then gives up with a *TaskLostError that
// says the server answered (the error found by errors.As), within seconds: before, it
// polled at the task's interval for as long as the server ran, the task "working" all
// the while. The session is not taken for unreachable.
func TestFollowServerAnsweringErrors(t *testing.T) {
	for _, version := range []string{"2025-11-25", mcp.ModernProtocolVersions[0]} {
		t.Run(version, func(t *testing.T) {
			srv, _, _ := slowTaskServer(t, version)
			failed := map[string]*atomic.Int32{mcp.MethodTasksGet: new(atomic.Int32)}
			ts := httptest.NewServer(failingPolls(srv.HTTPHandler(nil), func(method string) bool {
				// tasks/result (2025-11-25) would wait for the task, and a listen stream
				// (2026-07-28) would tell of it: a task store that is down serves neither.
				return method == mcp.MethodTasksGet || method == mcp.MethodTasksResult || method == mcp.MethodSubscriptionsListen
			}, failed))
			t.Cleanup(ts.Close)
			synctest.Test(t, func(t *testing.T) {
				task := startWaitWith(t, version, ts.URL, noKeepAlives())
				started := time.Now()
				select {
				case <-task.Done():
				case <-time.After(time.Minute):
					t.Fatalf("still following the task a minute after its polls began to fail, after %d polls", task.Polls())
				}
				took := time.Since(started)
				_, err := task.Outcome()
				var lost *client.TaskLostError
				if !errors.As(err, &lost) {
					t.Fatalf("outcome: %v, want a *client.TaskLostError", err)
				}
				if !lost.Answered() || !errors.Is(err, jsonrpc.ErrInternal) || errors.Is(err, transport.ErrUnreachable) {
					t.Errorf("outcome: %v (answered %v), want the server's -32603 answer", err, lost.Answered())
				}
				if lost.Polls != client.MaxFailedPolls || failed[mcp.MethodTasksGet].Load() != int32(client.MaxFailedPolls) {
					t.Errorf("gave up after %d failed polls (%d answered with the error), want %d", lost.Polls, failed[mcp.MethodTasksGet].Load(), client.MaxFailedPolls)
				}
				if took > 10*time.Second {
					t.Errorf("the follower gave up %s after the task began, want within 10 s", took)
				}
				if !strings.Contains(err.Error(), "answered 4 polls in a row with an error") {
					t.Errorf("error = %q", err)
				}
			})
		})
	}
}

// TestFollowServerErrorsPass: a server whose polls fail for a moment (two error answers)
// loses the follower nothing: the task ends with its result.
func TestFollowServerErrorsPass(t *testing.T) {
	for _, version := range []string{"2025-11-25", mcp.ModernProtocolVersions[0]} {
		t.Run(version, func(t *testing.T) {
			srv, _, release := slowTaskServer(t, version)
			failed := map[string]*atomic.Int32{mcp.MethodTasksGet: new(atomic.Int32)}
			var down atomic.Bool
			down.Store(true)
			ts := httptest.NewServer(failingPolls(srv.HTTPHandler(nil), func(method string) bool {
				if method == mcp.MethodTasksGet && down.Load() && failed[method].Load() == 1 {
					// The second error answer is the last: the task has ended meanwhile.
					close(release)
					down.Store(false)
					return true
				}
				return down.Load() && (method == mcp.MethodTasksGet || method == mcp.MethodTasksResult || method == mcp.MethodSubscriptionsListen)
			}, failed))
			t.Cleanup(ts.Close)
			synctest.Test(t, func(t *testing.T) {
				task := startWaitWith(t, version, ts.URL, noKeepAlives())
				select {
				case <-task.Done():
				case <-time.After(time.Minute):
					t.Fatalf("still following the task a minute after its polls recovered, after %d polls", task.Polls())
				}
				res, err := task.Outcome()
				if err != nil || len(res.Content) != 1 || res.Content[0].Text != "done" {
					t.Fatalf("outcome %+v, %v; want the task's result", res, err)
				}
				if n := failed[mcp.MethodTasksGet].Load(); n != 2 {
					t.Errorf("%d polls failed, want 2", n)
				}
				if task.PollError() != nil {
					t.Errorf("PollError = %v after a poll that was answered", task.PollError())
				}
			})
		})
	}
}

// noKeepAlives is an HTTP client that keeps no idle connection (see startWaitWith).
func noKeepAlives() *http.Client {
	return &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
}
