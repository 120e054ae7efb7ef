package interop

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A task left running with --detach on the TypeScript SDK's Streamable HTTP server, whose
// InMemoryTaskStore binds a task to the session that created it, is fetched by a later
// command: "mcpi tasks result ID" takes up the task's session (the server answers a new
// session's tasks/get with -32602). The server answers an unknown session id with 400, as
// the SDK's examples do; a command on a task whose session the server no longer has says
// so.
func TestCLIDetachOnTSSessionBoundTasks(t *testing.T) {
	node := needNode(t)
	ctx := testContext(t)
	url := startHTTPPeer(t, ctx, tsDir, node, filepath.Join(tsDir, "http_server.mjs"))
	dir := t.TempDir()

	code, out, errOut := runCLI(t, ctx, dir, "--url", url, "tools", "call", "slow_task", "--arg", "ms=300", "--task", "--detach")
	id := strings.TrimSpace(out)
	if code != 0 || id == "" {
		t.Fatalf("tools call --task --detach: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if code, out, errOut = runCLI(t, ctx, dir, "tasks", "list", "--local"); code != 0 || !strings.Contains(out, id) {
		t.Errorf("tasks list --local: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	// A new session does not see the task.
	if code, _, errOut = runCLI(t, ctx, dir, "--url", url, "--protocol", "2025-11-25", "tasks", "list"); code != 0 {
		t.Errorf("tasks list: exit %d, stderr %q", code, errOut)
	}
	if code, out, errOut = runCLI(t, ctx, dir, "tasks", "result", id); code != 0 || out != "slow_task done after 300 ms\n" {
		t.Fatalf("tasks result: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if code, out, errOut = runCLI(t, ctx, dir, "tasks", "get", id, "--json"); code != 0 || !strings.Contains(out, `"completed"`) {
		t.Errorf("tasks get: exit %d, stdout %q, stderr %q", code, out, errOut)
	}

	// The server ends the session of another detached task (here because it is asked
	// to): the task can never be reached again, and the command says why.
	code, out, errOut = runCLI(t, ctx, dir, "--url", url, "tools", "call", "slow_task", "--arg", "ms=60000", "--task", "--detach")
	gone := strings.TrimSpace(out)
	if code != 0 || gone == "" {
		t.Fatalf("tools call --task --detach: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	var state struct {
		Tasks []struct {
			TaskID  string
			Session *struct{ SessionID string }
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, "tasks.json"))
	if err := json.Unmarshal(b, &state); err != nil {
		t.Fatal(err)
	}
	sid := ""
	for _, e := range state.Tasks {
		if e.TaskID == gone && e.Session != nil {
			sid = e.Session.SessionID
		}
	}
	if sid == "" {
		t.Fatalf("the task was recorded without its session: %s", b)
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodDelete, url, nil)
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	want := `mcpi: the server no longer knows the task "` + gone + `": it kept the task in the session that created it, which has ended (the server ended it, or restarted), and it may bind tasks to their session; mcpi has removed it from its local list of tasks` + "\n"
	if code, _, errOut = runCLI(t, ctx, dir, "tasks", "result", gone); code != 1 || errOut != want {
		t.Errorf("tasks result of a task whose session ended: exit %d, stderr %q\nwant exit 1, %q", code, errOut, want)
	}
}
