package root

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/tasks"
	"github.com/mcpi-dev/mcpi/transport"
)

// serveScopedHTTP serves, on a loopback port until the test ends, a Streamable HTTP
// server that binds each task to the session that created it, reachable from no other
// session (server.Options.AdoptOrphanTasks off, as the TypeScript SDK's task store
// does), with two task tools: wait, which finishes with "finally" once release is
// called, and ask, which asks for a name (elicitation) and says hello to it.
func serveScopedHTTP(t *testing.T) (url string, release func()) {
	t.Helper()
	srv := server.New(mcp.Implementation{Name: "scoped", Version: "1"}, &server.Options{
		// One millisecond: a task's question goes out on the session's own stream
		// unless a tasks/result is already waiting (sideChannel waits a poll interval).
		Tasks: &tasks.Options{PollInterval: time.Millisecond},
	})
	ch := make(chan struct{})
	var once sync.Once
	release = func() { once.Do(func() { close(ch) }) }
	srv.AddTool(&mcp.Tool{Name: "wait", InputSchema: json.RawMessage(`{"type":"object"}`), Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			select {
			case <-ch:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("finally")}}, nil
		})
	srv.AddTool(&mcp.Tool{Name: "ask", InputSchema: json.RawMessage(`{"type":"object"}`), Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportRequired}},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "name?",
				RequestedSchema: []byte(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)})
			if err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(fmt.Sprintf("hello, %v", res.Content["name"]))}}, nil
		})
	h := srv.HTTPHandler(nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		release()
		ts.Close()
		h.Close()
		srv.Close()
	})
	return ts.URL + "/mcp", release
}

// recordedSession returns the id of the session the state file in dir records for task
// id, or "".
func recordedSession(t *testing.T, dir, id string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "tasks.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Tasks []struct {
			TaskID  string `json:"taskId"`
			Session *struct {
				SessionID string `json:"sessionId"`
			} `json:"session"`
		} `json:"tasks"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	for _, e := range f.Tasks {
		if e.TaskID == id && e.Session != nil {
			return e.Session.SessionID
		}
	}
	return ""
}

// A task left running (--detach, Ctrl-C, a question left unanswered) on a 2025-11-25
// server that binds tasks to their session is reached by the later commands, which take
// up the session it was created in; once the server has ended that session, the command
// says so, not that the task expired, and forgets the task.
func TestSessionBoundTasksBinary(t *testing.T) {
	url, release := serveScopedHTTP(t)
	state := t.TempDir()
	detach := func(tool string) string {
		t.Helper()
		stdout, stderr, code := run(t, state, "--url", url, "tools", "call", tool, "--task", "--detach")
		id := strings.TrimSpace(stdout)
		if code != 0 || id == "" {
			t.Fatalf("--detach: exit %d, stdout %q, stderr %q", code, stdout, stderr)
		}
		return id
	}

	id := detach("wait")
	if stdout, _, code := run(t, state, "tasks", "list", "--local"); code != 0 || !strings.Contains(stdout, id) {
		t.Errorf("tasks list --local: exit %d\n%s", code, stdout)
	}
	if stdout, stderr, code := run(t, state, "tasks", "get", id, "--json"); code != 0 || !strings.Contains(stdout, `"working"`) {
		t.Errorf("tasks get: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// Ctrl-C while following, without a terminal: left running, with its session.
	left, _ := interruptAfterCreated(t, state, "--url", url, "tools", "call", "wait", "--task", "--json")
	if recordedSession(t, state, left) == "" {
		t.Error("the task left running on Ctrl-C was recorded without its session")
	}
	release()
	if stdout, stderr, code := run(t, state, "tasks", "result", id); code != 0 || stdout != "finally\n" {
		t.Fatalf("tasks result: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// Fetched again, from the same session, which the first fetch left open.
	if stdout, stderr, code := run(t, state, "tasks", "watch", id); code != 0 || !strings.Contains(stdout, "completed") {
		t.Errorf("tasks watch: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if stdout, stderr, code := run(t, state, "tasks", "result", left); code != 0 || stdout != "finally\n" {
		t.Errorf("tasks result of the task left on Ctrl-C: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}

	// A question the command cannot ask leaves the task waiting, in its session. Asked
	// after the detaching command left, the question goes out on the session's own
	// stream, to the GET of the first command to come, which cannot answer it and goes;
	// the next command, whose GET begins after it, gets it again with its tasks/result
	// (it waited for ever).
	asking := detach("ask")
	for i := 0; ; i++ {
		stdout, stderr, _ := run(t, state, "tasks", "get", asking, "--json")
		if strings.Contains(stdout, `"input_required"`) {
			break
		}
		if i == 100 {
			t.Fatalf("the task never asked: %s %s", stdout, stderr)
		}
	}
	if _, stderr, code := run(t, state, "tasks", "result", asking); code != 2 || !strings.Contains(stderr, "--answers FILE") {
		t.Errorf("tasks result without a terminal: exit %d, stderr %q", code, stderr)
	}
	answers := filepath.Join(t.TempDir(), "answers.json")
	os.WriteFile(answers, []byte(`{"elicitation": {"ask": {"name": "Ada"}}}`), 0o600)
	if stdout, stderr, code := run(t, state, "tasks", "result", asking, "--answers", answers); code != 0 || stdout != "hello, Ada\n" {
		t.Errorf("tasks result --answers: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}

	// The server ends the session of a detached task: the task cannot be reached again.
	gone := detach("wait")
	sid := recordedSession(t, state, gone)
	if sid == "" {
		t.Fatal("the detached task was recorded without its session")
	}
	req, _ := http.NewRequest(http.MethodDelete, url, nil)
	req.Header.Set(transport.HeaderSessionID, sid)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE of the task's session: %v, %v", resp, err)
	}
	want := `mcpi: the server no longer knows the task "` + gone + `": it kept the task in the session that created it, which has ended (the server ended it, or restarted), and it may bind tasks to their session; mcpi has removed it from its local list of tasks` + "\n"
	if _, stderr, code := run(t, state, "tasks", "result", gone); code != 1 || stderr != want {
		t.Errorf("tasks result of a task whose session ended: exit %d, stderr %q\nwant exit 1, %q", code, stderr, want)
	}
	if stdout, _, _ := run(t, state, "tasks", "list", "--local"); strings.Contains(stdout, gone) {
		t.Errorf("the unreachable task is still recorded:\n%s", stdout)
	}
	want = `mcpi: the task "` + gone + `" is not in mcpi's local list of tasks, and the embedded demo server (used when no server is named) has no such task: name the server it runs on with --url, --stdio or --config` + "\n"
	if _, stderr, code := run(t, state, "tasks", "cancel", gone); code != 1 || stderr != want {
		t.Errorf("tasks cancel of a forgotten task: exit %d, stderr %q\nwant exit 1, %q", code, stderr, want)
	}
}
