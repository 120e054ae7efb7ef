package root

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/internal/cli/taskview"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/tasks"
)

// serveAdoptingHTTP serves, on a loopback port until the test ends, a Streamable HTTP
// server of 2025-11-25 that lets a new session take over the tasks of a session that
// ended (as "mcpi serve demo" does), with the task tool wait, which finishes with
// "finally" once release is called, and a plain tool of the same body, block. endSessions
// ends every session the server has, as a server does that restarts or drops them.
func serveAdoptingHTTP(t *testing.T) (url string, release, endSessions func()) {
	t.Helper()
	srv := server.New(mcp.Implementation{Name: "adopting", Version: "1"}, &server.Options{
		AdoptOrphanTasks: true,
		Tasks:            &tasks.Options{PollInterval: 20 * time.Millisecond},
	})
	ch := make(chan struct{})
	var once sync.Once
	release = func() { once.Do(func() { close(ch) }) }
	wait := func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("finally")}}, nil
	}
	srv.AddTool(&mcp.Tool{Name: "wait", InputSchema: json.RawMessage(`{"type":"object"}`), Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}}, wait)
	h := srv.HTTPHandler(nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		release()
		ts.Close()
		h.Close()
		srv.Close()
	})
	endSessions = func() {
		for _, s := range srv.Sessions() {
			s.Close()
		}
	}
	return ts.URL + "/mcp", release, endSessions
}

// startMCPI starts the mcpi binary with args and stateDir as its state directory, and
// returns it with a reader of the stream (stdout, or stderr when fromStderr is set) the
// test reads as it goes; the other stream is collected in rest.
func startMCPI(t *testing.T, stateDir string, fromStderr bool, args ...string) (cmd *exec.Cmd, lines *bufio.Reader, rest *bytes.Buffer) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	cmd = exec.CommandContext(ctx, mcpiBin, args...)
	cmd.Env = append(os.Environ(), "MCPI_STATE_DIR="+stateDir)
	rest = &bytes.Buffer{}
	var pipe io.ReadCloser
	var err error
	if fromStderr {
		cmd.Stdout = rest
		pipe, err = cmd.StderrPipe()
	} else {
		cmd.Stderr = rest
		pipe, err = cmd.StdoutPipe()
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, bufio.NewReader(pipe), rest
}

// exitCode waits for cmd and returns its exit code.
func exitCode(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	err := cmd.Wait()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return 0
}

// A 2025-11-25 task whose session the server ends while mcpi follows it is not lost
// without a trace: without a terminal its id was said as soon as it existed, mcpi
// records it (without the session, which is over), exits 2 (a connection failure) with
// a sentence that says what happened and how to get the result, and the task, which the
// server let a new session take over, gives its result to "mcpi tasks result". With
// --json the last line is a "lost" event, not the task's "error".
func TestSessionEndedWhileFollowingBinary(t *testing.T) {
	url, release, endSessions := serveAdoptingHTTP(t)
	state := t.TempDir()

	cmd, stderr, stdout := startMCPI(t, state, true, "--url", url, "tools", "call", "wait", "--task")
	line, err := stderr.ReadString('\n')
	const said = "The server runs the call as task "
	if err != nil || !strings.HasPrefix(line, said) {
		t.Fatalf("first line of stderr %q, %v; want %q", line, err, said+"ID.")
	}
	id := strings.TrimSuffix(strings.TrimPrefix(line, said), ".\n")
	endSessions()
	rest, _ := io.ReadAll(stderr)
	code := exitCode(t, cmd)
	want := `mcpi: the server at ` + url + ` ended the session while mcpi followed the task "` + id + `"; a server that lets a new session take a task over (as mcpi serve demo does) may still run it: get its result with "mcpi tasks result ` + id + `"` + "\n"
	if code != 2 || string(rest) != want || stdout.Len() != 0 {
		t.Fatalf("exit %d, stdout %q, stderr after the id:\n%q\nwant exit 2 and\n%q", code, stdout, rest, want)
	}
	if s := recordedSession(t, state, id); s != "" {
		t.Errorf("the task was recorded with the session %q that the server ended", s)
	}

	// The same with --json: a "lost" event with the fetch command, not an "error".
	cmd, out, errOut := startMCPI(t, state, false, "--url", url, "tools", "call", "wait", "--task", "--json")
	line, err = out.ReadString('\n')
	var created taskview.Event
	if err != nil || json.Unmarshal([]byte(line), &created) != nil || created.Event != "created" {
		t.Fatalf("first line %q, %v", line, err)
	}
	endSessions()
	all, _ := io.ReadAll(out)
	if code := exitCode(t, cmd); code != 2 || !strings.Contains(errOut.String(), "ended the session while mcpi followed") {
		t.Errorf("--json: exit %d, stderr %q", code, errOut)
	}
	second := created.Task.TaskID
	lines := strings.Split(strings.TrimSpace(string(all)), "\n")
	var last struct {
		Event string     `json:"event"`
		Task  *mcp.Task  `json:"task"`
		Lost  *lostEvent `json:"lost"`
		Error *struct {
			Code    *int64 `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil ||
		last.Event != "lost" || last.Lost == nil || last.Lost.Reason != "sessionEnded" ||
		last.Lost.Fetch != "mcpi tasks result "+second || last.Error == nil || last.Error.Code != nil ||
		last.Error.Message != "the server ended the session" || last.Task == nil || last.Task.TaskID != second {
		t.Errorf("--json: last line %s", lines[len(lines)-1])
	}

	release()
	for _, task := range []string{id, second} {
		if stdout, stderr, code := run(t, state, "tasks", "result", task); code != 0 || stdout != "finally\n" {
			t.Errorf("tasks result %s: exit %d, stdout %q, stderr %q", task, code, stdout, stderr)
		}
	}
}

// lostEvent is the "lost" member of a "lost" event line, as a script reads it.
type lostEvent struct {
	Reason string `json:"reason"`
	Polls  int    `json:"polls"`
	Fetch  string `json:"fetch"`
}
