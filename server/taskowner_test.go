package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/tasks"
	"github.com/mcpi-dev/mcpi/transport"
)

// firstListenEvent opens subscriptions/listen for task id with the Authorization auth
// and returns the data of its first event, the acknowledgement.
func firstListenEvent(t *testing.T, ctx context.Context, url, auth, id string) string {
	t.Helper()
	hdr := map[string]string{}
	if auth != "" {
		hdr["Authorization"] = auth
	}
	resp := postModern(t, ctx, url, mcp.MethodSubscriptionsListen, map[string]any{
		"_meta":         meta(`{"extensions":{"io.modelcontextprotocol/tasks":{}}}`),
		"notifications": map[string]any{"taskIds": []string{id}},
	}, hdr)
	defer resp.Body.Close()
	lines := bufio.NewScanner(resp.Body)
	for lines.Scan() {
		if d, ok := strings.CutPrefix(lines.Text(), "data: "); ok {
			return d
		}
	}
	t.Fatalf("listen with %q: no event", auth)
	return ""
}

// TestExtTaskBoundToCredentials: a task of the extension made by a request with
// credentials is reached only with the same credentials; to any other request (other
// credentials, none) tasks/get, tasks/update and tasks/cancel answer what an unknown id
// gets, and subscriptions/listen does not take its id. A task made without credentials
// is reached by whoever names its id. Before, anyone with the id could read the task and
// cancel it.
func TestExtTaskBoundToCredentials(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	srv := modernServer(&server.Options{Tasks: &tasks.Options{}})
	defer srv.Close()
	addWaitTool(srv, release)
	ts := serveHTTP(t, srv)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	url := ts.URL + "/mcp"
	call := func(auth, method string, params map[string]any) (map[string]json.RawMessage, *jsonrpc.Error) {
		t.Helper()
		return postExt(t, ctx, url, auth, method, params)
	}
	made, rerr := call("Bearer alice", mcp.MethodToolsCall, map[string]any{"name": "wait"})
	if rerr != nil || str(made["resultType"]) != "task" {
		t.Fatalf("alice's task: %v, %v", made, rerr)
	}
	id := str(made["taskId"])
	const unknown = "00000000000000000000000000000000"
	requests := []struct {
		method string
		params func(id string) map[string]any
	}{
		{mcp.MethodTasksGet, func(id string) map[string]any { return map[string]any{"taskId": id} }},
		{mcp.MethodTasksUpdate, func(id string) map[string]any {
			return map[string]any{"taskId": id, "inputResponses": map[string]any{"k": map[string]any{}}}
		}},
		{mcp.MethodTasksCancel, func(id string) map[string]any { return map[string]any{"taskId": id} }},
	}
	for _, auth := range []string{"Bearer bob", "", "Bearer alice2", "bearer alice"} {
		for _, r := range requests {
			_, got := call(auth, r.method, r.params(id))
			_, want := call(auth, r.method, r.params(unknown))
			if got == nil || want == nil || got.Code != jsonrpc.CodeInvalidParams || got.Code != want.Code ||
				strings.ReplaceAll(got.Message, id, unknown) != want.Message {
				t.Errorf("%s of alice's task with %q: %v, want what an unknown id gets: %v", r.method, auth, got, want)
			}
		}
		if ack := firstListenEvent(t, ctx, url, auth, id); strings.Contains(ack, id) {
			t.Errorf("listen with %q takes alice's task: %s", auth, ack)
		}
	}
	if res, rerr := call("Bearer alice", mcp.MethodTasksGet, map[string]any{"taskId": id}); rerr != nil || str(res["status"]) != "working" {
		t.Errorf("alice's tasks/get after the others' cancel: %v, %v", res, rerr)
	}
	if ack := firstListenEvent(t, ctx, url, "Bearer alice", id); !strings.Contains(ack, id) {
		t.Errorf("alice's listen leaves her task out: %s", ack)
	}
	if _, rerr := call("Bearer alice", mcp.MethodTasksCancel, map[string]any{"taskId": id}); rerr != nil {
		t.Errorf("alice's cancel: %v", rerr)
	}

	// Without credentials: reached by its id, from anywhere.
	open, rerr := call("", mcp.MethodToolsCall, map[string]any{"name": "wait"})
	if rerr != nil || str(open["resultType"]) != "task" {
		t.Fatalf("a task without credentials: %v, %v", open, rerr)
	}
	if res, rerr := call("Bearer bob", mcp.MethodTasksGet, map[string]any{"taskId": str(open["taskId"])}); rerr != nil || str(res["status"]) != "working" {
		t.Errorf("bob's tasks/get of a task made without credentials: %v, %v", res, rerr)
	}
}

// TestExtTaskOwnerOption: Options.TaskOwner names the caller instead of Authorization.
func TestExtTaskOwnerOption(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	srv := modernServer(&server.Options{Tasks: &tasks.Options{}, TaskOwner: func(r *http.Request) string {
		return r.Header.Get("X-User")
	}})
	defer srv.Close()
	addWaitTool(srv, release)
	ts := serveHTTP(t, srv)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	call := func(user, auth, method string, params map[string]any) (map[string]json.RawMessage, *jsonrpc.Error) {
		t.Helper()
		params["_meta"] = meta(`{"extensions":{"io.modelcontextprotocol/tasks":{}}}`)
		hdr := map[string]string{"X-User": user, "Authorization": auth}
		if id, ok := params["taskId"].(string); ok {
			hdr["Mcp-Name"] = id
		}
		return decodeHTTP(t, postModern(t, ctx, ts.URL+"/mcp", method, params, hdr))
	}
	made, rerr := call("alice", "Bearer one", mcp.MethodToolsCall, map[string]any{"name": "wait"})
	if rerr != nil || str(made["resultType"]) != "task" {
		t.Fatalf("alice's task: %v, %v", made, rerr)
	}
	id := str(made["taskId"])
	if res, rerr := call("alice", "Bearer two", mcp.MethodTasksGet, map[string]any{"taskId": id}); rerr != nil || str(res["status"]) != "working" {
		t.Errorf("alice with other credentials: %v, %v", res, rerr)
	}
	for _, user := range []string{"bob", ""} {
		if _, rerr := call(user, "Bearer one", mcp.MethodTasksGet, map[string]any{"taskId": id}); rerr == nil || rerr.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("%q with alice's credentials: %v, want -32602", user, rerr)
		}
	}
	// A request TaskOwner names nobody makes a task anyone with its id reaches, its
	// Authorization notwithstanding.
	open, rerr := call("", "Bearer one", mcp.MethodToolsCall, map[string]any{"name": "wait"})
	if rerr != nil {
		t.Fatal(rerr)
	}
	if res, rerr := call("bob", "", mcp.MethodTasksGet, map[string]any{"taskId": str(open["taskId"])}); rerr != nil || str(res["status"]) != "working" {
		t.Errorf("bob's tasks/get of a task of nobody's: %v, %v", res, rerr)
	}
}

// TestAdoptionBoundToCredentials: with AdoptOrphanTasks, a task of 2025-11-25 whose
// session ended is adopted only by a session opened with the same credentials as the
// one that made it (its Authorization header at initialize, or [server.Options.TaskOwner]
// when set); to a session with other credentials, or none, tasks/get, tasks/result and
// tasks/cancel answer what an unknown id gets, and the task runs on untouched. A task
// made without credentials is adopted only by a session without them. Before, any
// session that named the id took the task over, its result included.
func TestAdoptionBoundToCredentials(t *testing.T) {
	for _, c := range []struct {
		name      string
		owner     func(r *http.Request) string
		maker     http.Header
		strangers []http.Header
		same      http.Header
	}{{
		name:      "authorization",
		maker:     http.Header{"Authorization": {"Bearer alice"}},
		strangers: []http.Header{{"Authorization": {"Bearer bob"}}, nil, {"Authorization": {"bearer alice"}}},
		same:      http.Header{"Authorization": {"Bearer alice"}},
	}, {
		name:      "no credentials",
		strangers: []http.Header{{"Authorization": {"Bearer bob"}}},
		same:      nil,
	}, {
		name:      "task owner",
		owner:     func(r *http.Request) string { return r.Header.Get("X-User") },
		maker:     http.Header{"X-User": {"alice"}, "Authorization": {"Bearer one"}},
		strangers: []http.Header{{"X-User": {"bob"}, "Authorization": {"Bearer one"}}, {"Authorization": {"Bearer one"}}},
		same:      http.Header{"X-User": {"alice"}, "Authorization": {"Bearer two"}},
	}} {
		t.Run(c.name, func(t *testing.T) {
			srv := server.New(mcp.Implementation{Name: "adopt", Version: "1"}, &server.Options{
				Tasks: &tasks.Options{}, AdoptOrphanTasks: true, TaskOwner: c.owner})
			defer srv.Close()
			sessions := make(chan *server.Session, 1)
			srv.AddTool(&mcp.Tool{Name: "long", Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}},
				func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
					sessions <- req.Session
					<-ctx.Done()
					return nil, ctx.Err()
				})
			ts := serveHTTP(t, srv)
			connect := func(h http.Header) *jsonrpc.Conn {
				conn, err := (&transport.HTTPClient{URL: ts.URL, Header: h}).Connect(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				return initialized(t, conn)
			}
			maker := connect(c.maker)
			var created mcp.CreateTaskResult
			if err := maker.Call(t.Context(), mcp.MethodToolsCall, &mcp.CallToolParams{Name: "long", Task: &mcp.TaskMetadata{}}, &created); err != nil {
				t.Fatal(err)
			}
			id := created.Task.TaskID
			made := <-sessions
			maker.Close() // DELETE
			<-made.Done()

			const unknown = "00000000000000000000000000000000"
			methods := []string{mcp.MethodTasksGet, mcp.MethodTasksResult, mcp.MethodTasksCancel}
			// On a failure tasks/result would wait for the adopted task's end.
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			for _, h := range c.strangers {
				other := connect(h)
				for _, method := range methods {
					got := other.Call(ctx, method, map[string]string{"taskId": id}, &json.RawMessage{})
					want := other.Call(ctx, method, map[string]string{"taskId": unknown}, &json.RawMessage{})
					var gerr, werr *jsonrpc.Error
					if !errors.As(got, &gerr) || !errors.As(want, &werr) || gerr.Code != jsonrpc.CodeInvalidParams ||
						gerr.Code != werr.Code || strings.ReplaceAll(gerr.Message, id, unknown) != werr.Message {
						t.Errorf("%s of the orphan with headers %v: %v, want what an unknown id gets: %v", method, h, got, want)
					}
				}
				other.Close()
			}

			same := connect(c.same)
			var got mcp.GetTaskResult
			if err := same.Call(t.Context(), mcp.MethodTasksGet, &mcp.GetTaskParams{TaskID: id}, &got); err != nil || got.Task.Status != mcp.TaskStatusWorking {
				t.Fatalf("tasks/get from a session with the maker's credentials: %+v, %v", got.Task, err)
			}
			var cancelled mcp.CancelTaskResult
			if err := same.Call(t.Context(), mcp.MethodTasksCancel, &mcp.CancelTaskParams{TaskID: id}, &cancelled); err != nil || cancelled.Task.Status != mcp.TaskStatusCancelled {
				t.Errorf("tasks/cancel from the adopting session: %+v, %v", cancelled.Task, err)
			}
		})
	}
}
