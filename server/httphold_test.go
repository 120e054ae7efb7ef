package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/tasks"
	"github.com/mcpi-dev/mcpi/transport"
)

// httpPost serves one 2025-11-25 POST on h (answered with a JSON body) and returns the
// recorder.
func httpPost(h http.Handler, sid, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, "http://localhost/mcp", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		r.Header.Set(transport.HeaderSessionID, sid)
		r.Header.Set(transport.HeaderProtocolVersion, mcp.LatestProtocolVersion)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// httpSession starts a session on h and returns its id.
func httpSession(t *testing.T, h http.Handler) string {
	t.Helper()
	w := httpPost(h, "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+mcp.LatestProtocolVersion+`","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	sid := w.Header().Get(transport.HeaderSessionID)
	if w.Code != http.StatusOK || sid == "" {
		t.Fatalf("initialize: HTTP %d %s", w.Code, w.Body)
	}
	httpPost(h, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return sid
}

// TestSessionWithRunningTaskKept: a 2025-11-25 session over HTTP whose task runs is kept
// while the task runs, however long its client stays away (the task's TTL bounds it),
// and is evicted for new sessions after those without tasks; the session and its task
// go SessionTimeout after the task ended. (Tasks end with their session by default: a
// client that detached from a task of an hour found it cancelled 10 minutes later, and
// a few initialize requests from anyone evicted the session, its task with it.)
func TestSessionWithRunningTaskKept(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := server.New(mcp.Implementation{Name: "t", Version: "1"}, &server.Options{Tasks: &tasks.Options{}})
		defer srv.Close()
		release := make(chan struct{})
		srv.AddTool(&mcp.Tool{Name: "long", Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}},
			func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
				select {
				case <-release:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
				return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("done")}}, nil
			})
		h := srv.HTTPHandler(&transport.HTTPOptions{JSONResponse: true, SessionTimeout: time.Minute, MaxSessions: 2})
		defer h.Close()

		sid := httpSession(t, h)
		w := httpPost(h, sid, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"long","arguments":{},"task":{"ttl":7200000}}}`)
		var created struct {
			Result mcp.CreateTaskResult `json:"result"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &created); err != nil || created.Result.Task.TaskID == "" {
			t.Fatalf("tools/call as a task: HTTP %d %s", w.Code, w.Body)
		}
		get := `{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"` + created.Result.Task.TaskID + `"}}`

		time.Sleep(time.Hour)
		synctest.Wait()
		// Two new sessions at MaxSessions 2: the second takes the place of the first,
		// which has no task, not of the older one with its task running.
		httpSession(t, h)
		httpSession(t, h)
		synctest.Wait()
		if w := httpPost(h, sid, get); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"status":"working"`) {
			t.Fatalf("tasks/get an hour later, after two new sessions: HTTP %d %s, want the task working", w.Code, w.Body)
		}

		close(release)
		synctest.Wait()
		if w := httpPost(h, sid, get); !strings.Contains(w.Body.String(), `"status":"completed"`) {
			t.Fatalf("tasks/get once the task ended: HTTP %d %s", w.Code, w.Body)
		}
		time.Sleep(time.Minute + time.Second)
		synctest.Wait()
		if w := httpPost(h, sid, get); w.Code != http.StatusNotFound {
			t.Errorf("tasks/get SessionTimeout after the task ended: HTTP %d %s, want the session gone (404)", w.Code, w.Body)
		}
	})
}

// TestStatelessShareByTaskOwner: over HTTP the server names the caller of a 2026-07-28
// request by Options.TaskOwner for the transport's share of MaxStatelessInFlight, so
// that two users behind one address each have a share, and one user's requests beyond
// its share are refused while another's are served.
func TestStatelessShareByTaskOwner(t *testing.T) {
	srv := modernServer(&server.Options{TaskOwner: func(r *http.Request) string { return r.Header.Get("X-User") }})
	defer srv.Close()
	started, release := make(chan struct{}, 4), make(chan struct{})
	srv.AddTool(&mcp.Tool{Name: "wait"}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		started <- struct{}{}
		select {
		case <-release:
		case <-ctx.Done():
		}
		return &mcp.CallToolResult{}, nil
	})
	h := srv.HTTPHandler(&transport.HTTPOptions{MaxStatelessInFlight: 2})
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer h.Close()
	call := func(user string) *http.Response {
		return postModern(t, t.Context(), ts.URL+"/mcp", "tools/call", map[string]any{"name": "wait", "arguments": map[string]any{}}, map[string]string{"X-User": user})
	}
	done := make(chan *http.Response, 2)
	go func() { done <- call("alice") }()
	<-started
	if resp := call("alice"); resp.StatusCode != http.StatusTooManyRequests {
		resp.Body.Close()
		close(release)
		t.Fatalf("alice's second request: HTTP %d, want 429 (her share is 1)", resp.StatusCode)
	}
	go func() { done <- call("bob") }()
	select {
	case <-started: // bob's is served, from the same address
	case resp := <-done:
		resp.Body.Close()
		close(release)
		<-done
		t.Fatalf("bob's request while alice's waits: HTTP %d, want it served (a share of his own)", resp.StatusCode)
	}
	close(release)
	for range 2 {
		resp := <-done
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("an admitted request: HTTP %d", resp.StatusCode)
		}
	}
}
