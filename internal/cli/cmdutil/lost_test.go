package cmdutil

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/transport"
)

// A task whose polls could not reach the server is described in one sentence that names
// the server and the cause, does not claim the task is running, and exits 2.
func TestDescribeLostTask(t *testing.T) {
	refused := fmt.Errorf("tasks/get: sending tasks/get: %w: cannot connect to http://127.0.0.1:1/mcp: dial tcp: %w", transport.ErrUnreachable, syscall.ECONNREFUSED)
	lost := &client.TaskLostError{TaskID: "t1", Polls: client.MaxFailedPolls, Err: refused}
	msg, code := Describe(&LostTaskError{ID: "t1", Server: "http://127.0.0.1:1/mcp", Fetch: "mcpi tasks result t1", Err: lost})
	want := `the server at http://127.0.0.1:1/mcp is no longer reachable (connection refused): the task "t1" may still be running there; get its result with "mcpi tasks result t1" once it is back`
	if msg != want || code != ExitUsage {
		t.Errorf("Describe = %q, %d\nwant %q, %d", msg, code, want, ExitUsage)
	}
	// The values of the URL's query are kept out, as a header's are: often a key.
	msg, _ = Describe(&LostTaskError{ID: "t1", Server: "http://127.0.0.1:1/mcp?api_key=k-SECRET&v", Fetch: "mcpi tasks result t1", Err: lost})
	if !strings.HasPrefix(msg, "the server at http://127.0.0.1:1/mcp?api_key=xxxxx&v is no longer reachable") {
		t.Errorf("a key in the query: %q", msg)
	}
	msg, code = Describe(lost) // from a command that does not know the server
	if !strings.Contains(msg, `"t1"`) || !strings.Contains(msg, "no longer reachable") || code != ExitUsage {
		t.Errorf("Describe(TaskLostError) = %q, %d", msg, code)
	}
	msg, _ = Describe(&InterruptedTaskError{ID: "t1", Fetch: "mcpi tasks result t1", PollErr: refused})
	if strings.Contains(msg, "is still running") || !strings.Contains(msg, "may still be running") {
		t.Errorf("interrupted while polls fail: %q", msg)
	}
}

// A task whose polls the server answered, each with an error, is described as the
// server's error (exit 1), not as a server that is gone: the server's message is quoted
// and the fetch command offered for later.
func TestDescribeTaskOfErringPolls(t *testing.T) {
	down := fmt.Errorf("tasks/get: %w", &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "database down"})
	lost := &client.TaskLostError{TaskID: "t1", Polls: client.MaxFailedPolls, Err: down}
	msg, code := Describe(&LostTaskError{ID: "t1", Server: "http://127.0.0.1:1/mcp", Fetch: "mcpi tasks result t1", Err: lost})
	want := `the server at http://127.0.0.1:1/mcp answered the latest polls of the task "t1" with an error (database down, JSON-RPC error -32603): it may still be running there; get its result with "mcpi tasks result t1" later`
	if msg != want || code != ExitMCPError {
		t.Errorf("Describe = %q, %d\nwant %q, %d", msg, code, want, ExitMCPError)
	}
	msg, code = Describe(lost)
	want = `mcpi stopped following the task "t1": the server answered 4 polls in a row with an error (database down, JSON-RPC error -32603); it may still be running on the server`
	if msg != want || code != ExitMCPError {
		t.Errorf("Describe(TaskLostError) = %q, %d\nwant %q, %d", msg, code, want, ExitMCPError)
	}
	msg, _ = Describe(&InterruptedTaskError{ID: "t1", Fetch: "mcpi tasks result t1", PollErr: down})
	want = `interrupted; the server answered the latest poll of the task "t1" with an error (database down, JSON-RPC error -32603): it may still be running there; get its result with "mcpi tasks result t1" later`
	if msg != want {
		t.Errorf("interrupted while polls are answered with errors: %q\nwant %q", msg, want)
	}
}

// A session the server ended (its HTTP 404 carrying the JSON-RPC error "session not
// found") is a connection failure, exit 2 as the root help says, not the server's answer
// to the call; a task followed in it is said lost with the session, with the command that
// fetches its result from a server that lets a new session take it over.
func TestDescribeSessionEnded(t *testing.T) {
	ended := fmt.Errorf("tools/call: %w", fmt.Errorf("%w: %w", transport.ErrSessionExpired,
		&jsonrpc.Error{Code: -32001, Message: "session not found"}))
	msg, code := Describe(ended)
	if msg != "the connection to the server failed: the server ended the session" || code != ExitUsage {
		t.Errorf("Describe(a plain call's ended session) = %q, %d; want exit %d", msg, code, ExitUsage)
	}
	following := fmt.Errorf("following task t1: %w", ended)
	msg, code = Describe(&LostTaskError{ID: "t1", Server: "http://127.0.0.1:1/mcp", Fetch: "mcpi tasks result t1", Err: following})
	want := `the server at http://127.0.0.1:1/mcp ended the session while mcpi followed the task "t1"; a server that lets a new session take a task over (as mcpi serve demo does) may still run it: get its result with "mcpi tasks result t1"`
	if msg != want || code != ExitUsage {
		t.Errorf("Describe = %q, %d\nwant %q, %d", msg, code, want, ExitUsage)
	}
	if client.ServerAnswered(following) {
		t.Error("ServerAnswered(an ended session) = true")
	}
}

// A task the server said ended whose tasks/result did not come within --timeout is
// recorded like a lost one (taskview.LostOf says why), and described with the command
// that fetches its result later, exit 2: the server gave no answer.
func TestDescribeEndedTaskWithoutResult(t *testing.T) {
	noResult := &client.ResultTimeoutError{TaskID: "t1", Status: "completed", Timeout: 3 * time.Second}
	msg, code := Describe(&LostTaskError{ID: "t1", Fetch: "mcpi tasks result t1", Err: noResult})
	want := `the task "t1" is completed, but the server did not answer its tasks/result within 3.0s (--timeout raises the bound); get its result with "mcpi tasks result t1" later`
	if msg != want || code != ExitUsage {
		t.Errorf("Describe = %q, %d\nwant %q, %d", msg, code, want, ExitUsage)
	}
}
