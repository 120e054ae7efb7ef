package root

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/internal/cli/taskview"
	"github.com/mcpi-dev/mcpi/mcp"
)

// run runs the mcpi binary, a new process each time, with its state file in stateDir.
func run(t *testing.T, stateDir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return runEnv(t, stateDir, nil, args...)
}

// runEnv is run with env added to the environment.
func runEnv(t *testing.T, stateDir string, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, mcpiBin, args...)
	cmd.Env = append(append(os.Environ(), "MCPI_STATE_DIR="+stateDir), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("mcpi %s: %v", strings.Join(args, " "), err)
	}
	return out.String(), errOut.String(), code
}

func eventLines(t *testing.T, out string) []taskview.Event {
	t.Helper()
	var evs []taskview.Event
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var ev taskview.Event
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("not a JSON event line: %q", l)
		}
		evs = append(evs, ev)
	}
	return evs
}

// The CLI items of issue 3, through the built binary against "mcpi serve demo --http
// --legacy": 2025-11-25 only, which mcpi finds by itself.
func TestTasksBinary(t *testing.T) {
	url := serveDemoHTTP(t, "--legacy")
	state := t.TempDir()

	// The slow task followed with --json: created, working with progress, completed, then
	// the result.
	start := time.Now()
	stdout, stderr, code := run(t, state, "--url", url, "tools", "call", "slow_task", "--arg", "seconds=0.2", "--arg", "steps=2", "--task", "--ttl", "10m", "--json")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	t.Logf("slow_task --task --json took %s", time.Since(start))
	evs := eventLines(t, stdout)
	var seq []string
	for _, e := range evs {
		s := e.Event
		if e.Task != nil && e.Event == "status" {
			s += ":" + string(e.Task.Status)
		}
		seq = append(seq, s)
	}
	got := strings.Join(seq, " ")
	if evs[0].Event != "created" || evs[len(evs)-1].Event != "result" || !strings.Contains(got, "progress") ||
		!strings.Contains(got, "status:working") || !strings.Contains(got, "status:completed") {
		t.Errorf("events: %s", got)
	}
	followed := evs[len(evs)-1].Result
	if followed == nil || followed.Content[0].Text != "done: worked 200ms in 2 steps" {
		t.Fatalf("result: %+v", followed)
	}

	// --detach, then the result from a new process without server flags.
	stdout, stderr, code = run(t, state, "--url", url, "tools", "call", "slow_task", "--arg", "seconds=0.2", "--arg", "steps=2", "--task", "--detach")
	id := strings.TrimSpace(stdout)
	if code != 0 || len(id) < 16 || stderr != "The server runs the call as task "+id+".\n" {
		t.Fatalf("--detach: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	stdout, stderr, code = run(t, state, "tasks", "result", id, "--json")
	var res mcp.CallToolResult
	if code != 0 || json.Unmarshal([]byte(stdout), &res) != nil {
		t.Fatalf("tasks result: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if got, want := res.Content, followed.Content; len(got) != 1 || got[0].Text != want[0].Text {
		t.Errorf("tasks result = %+v, the followed call gave %+v", got, want)
	}
	if rt, _ := res.Meta.RelatedTask(); rt != id {
		t.Errorf("related task %q, want %q", rt, id)
	}
	stdout, _, code = run(t, state, "tasks", "result", id)
	if code != 0 || stdout != "done: worked 200ms in 2 steps\n" {
		t.Errorf("tasks result (text): exit %d, %q", code, stdout)
	}
	stdout, _, code = run(t, state, "tasks", "list", "--local")
	if code != 0 || !strings.Contains(stdout, id) || !strings.Contains(stdout, "slow_task") || !strings.Contains(stdout, url) {
		t.Errorf("tasks list --local: exit %d\n%s", code, stdout)
	}

	// Input through the side channel, answered from a file.
	answers := filepath.Join(t.TempDir(), "answers.json")
	os.WriteFile(answers, []byte(`{"elicitation": {"ask_task": {"name": "Ada"}}, "sampling": {"ask_task": "Hello, Ada!"}}`), 0o600)
	stdout, stderr, code = run(t, state, "--url", url, "tools", "call", "ask_task", "--task", "--answers", answers)
	if code != 0 || stdout != "name: Ada; model: Hello, Ada!\n" {
		t.Errorf("ask_task --answers: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}

	// Cancel from the CLI: the task is cancelled on the server.
	stdout, _, code = run(t, state, "--url", url, "tools", "call", "side_effect_task", "--arg", "seconds=30", "--arg", "path=side-effect", "--task", "--detach")
	se := strings.TrimSpace(stdout)
	if code != 0 {
		t.Fatalf("side_effect_task --detach: exit %d", code)
	}
	if stdout, stderr, code = run(t, state, "tasks", "cancel", se); code != 0 || stdout != "⊘ cancelled "+se+": Cancelled by request.\n" {
		t.Errorf("tasks cancel: exit %d, %q, %q", code, stdout, stderr)
	}
	stdout, _, _ = run(t, state, "tasks", "get", se, "--json")
	var st mcp.Task
	if json.Unmarshal([]byte(stdout), &st); st.Status != mcp.TaskStatusCancelled {
		t.Errorf("after cancel: %s", stdout)
	}

	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`{"elicitation": `), 0o600)
	errorsTests := []struct {
		args []string
		want string
		code int
	}{
		{[]string{"--url", url, "tools", "call", "slow_task"}, `mcpi: the tool "slow_task" must be called as a task (its taskSupport is required); use --task`, 2},
		{[]string{"--url", url, "tools", "call", "add", "--arg", "a=1", "--arg", "b=2", "--task"}, `mcpi: the tool "add" cannot run as a task (its taskSupport is forbidden); call it without --task`, 2},
		{[]string{"tools", "call", "slow_task", "--task", "--detach"}, `mcpi: --detach cannot work with the embedded demo server, which lives only as long as this mcpi process, so a detached task could never be fetched; run "mcpi serve demo --http 127.0.0.1:8080" and pass --url http://127.0.0.1:8080/mcp`, 2},
		{[]string{"--url", url, "tasks", "get", "x"}, `mcpi: the server has no task "x" (it may have expired)`, 1},
		{[]string{"--url", url, "tasks", "cancel", "x"}, `mcpi: the server has no task "x" (it may have expired)`, 1},
		{[]string{"--url", url, "tools", "call", "ask_task", "--task", "--answers", bad}, "mcpi: the answers file " + bad + " is not valid JSON: it ends too early", 2},
		{[]string{"--url", url, "tools", "call", "ask_task", "--task"}, `mcpi: the server asked for the user's input (elicitation for the tool "ask_task"), which mcpi can only give on a terminal or from an answers file; run it on a terminal, or pass --answers FILE with {"elicitation": {"ask_task": {"name": "..."}}}`, 2},
		{[]string{"tasks", "list", "--local", "--url", url}, "mcpi: --local reads the local state file, so server flags do not apply", 2},
		{[]string{"tasks", "watch", "a", "b"}, `mcpi: "mcpi tasks watch" takes at most one task id, but was given 2 arguments`, 2},
	}
	for _, tt := range errorsTests {
		_, stderr, code := run(t, state, tt.args...)
		// Without a terminal a task's id is said first, once the task exists.
		if rest, ok := strings.CutPrefix(stderr, "The server runs the call as task "); ok {
			_, stderr, _ = strings.Cut(rest, "\n")
		}
		if code != tt.code || strings.TrimSuffix(stderr, "\n") != tt.want || strings.Count(stderr, "\n") != 1 {
			t.Errorf("mcpi %s:\n exit %d, stderr %q\nwant exit %d, %q", strings.Join(tt.args, " "), code, stderr, tt.code, tt.want)
		}
	}
}

// Ctrl-C while following, not on a terminal: the task is left running, recorded, and the
// message says how to fetch its result.
func TestInterruptBinary(t *testing.T) {
	url := serveDemoHTTP(t)
	state := t.TempDir()
	id, stderr := interruptAfterCreated(t, state, "--url", url, "tools", "call", "side_effect_task", "--arg", "seconds=30", "--arg", "path=side-effect", "--task", "--json")
	want := `mcpi: interrupted; the task "` + id + `" is still running on the server: get its result with "mcpi tasks result ` + id + `"` + "\n"
	if stderr != want {
		t.Errorf("stderr:\n%q\nwant\n%q", stderr, want)
	}
	stdout, _, code := run(t, state, "tasks", "get", id, "--json")
	var st mcp.Task
	if json.Unmarshal([]byte(stdout), &st); code != 0 || st.Status != mcp.TaskStatusWorking {
		t.Errorf("left running? exit %d, %s", code, stdout)
	}
	if _, stderr, code := run(t, state, "tasks", "cancel", id); code != 0 {
		t.Errorf("tasks cancel: exit %d, %s", code, stderr)
	}
}

// The same through the built binary against "mcpi serve demo --http", which speaks
// 2026-07-28 too: mcpi speaks it, the server decides which calls become tasks, and a task
// of one era cannot be reached from the other.
func TestTasksBinary2026(t *testing.T) {
	url := serveDemoHTTP(t)
	state := t.TempDir()

	stdout, stderr, code := run(t, state, "--url", url, "tools", "call", "slow_task", "--arg", "seconds=0.2", "--arg", "steps=2", "--task", "--json")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	evs := eventLines(t, stdout)
	var seq, messages []string
	for _, e := range evs {
		s := e.Event
		if e.Task != nil && e.Event == "status" {
			s += ":" + string(e.Task.Status)
			messages = append(messages, e.Task.StatusMessage)
		}
		seq = append(seq, s)
	}
	got := strings.Join(seq, " ")
	if evs[0].Event != "created" || evs[len(evs)-1].Event != "result" || !strings.Contains(got, "status:completed") || strings.Contains(got, "progress") {
		t.Errorf("events: %s", got)
	}
	if !slices.Contains(messages, "step 2 of 2") {
		t.Errorf("status messages %q lack the steps", messages)
	}
	followed := evs[len(evs)-1].Result
	if followed == nil || followed.Content[0].Text != "done: worked 200ms in 2 steps" {
		t.Fatalf("result: %+v", followed)
	}

	// Not on a terminal, without --json: the server's choice is said on stderr.
	stdout, stderr, code = run(t, state, "--url", url, "tools", "call", "slow_task", "--arg", "seconds=0", "--task")
	if code != 0 || stdout != "done: worked 0s in 5 steps\n" || !strings.HasPrefix(stderr, "The server runs the call as task ") {
		t.Errorf("slow_task --task: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// echo is never a task: the server answers at once.
	stdout, stderr, code = run(t, state, "--url", url, "tools", "call", "echo", "--arg", "text=hi", "--task")
	if code != 0 || stdout != "hi\n" || stderr != "The server answered at once, without a task.\n" {
		t.Errorf("echo --task: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}

	// --detach, then the result from a new process without server flags.
	stdout, stderr, code = run(t, state, "--url", url, "tools", "call", "slow_task", "--arg", "seconds=0.2", "--arg", "steps=2", "--task", "--detach")
	id := strings.TrimSpace(stdout)
	if code != 0 || len(id) < 16 {
		t.Fatalf("--detach: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if stdout, stderr, code = run(t, state, "tasks", "result", id); code != 0 || stdout != "done: worked 200ms in 2 steps\n" {
		t.Errorf("tasks result: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if stdout, _, code = run(t, state, "tasks", "list", "--local"); code != 0 || !strings.Contains(stdout, id) || !strings.Contains(stdout, url) {
		t.Errorf("tasks list --local: exit %d\n%s", code, stdout)
	}

	// Input through the task's inputRequests, answered from a file with tasks/update.
	answers := filepath.Join(t.TempDir(), "answers.json")
	os.WriteFile(answers, []byte(`{"elicitation": {"ask_task": {"name": "Ada"}}, "sampling": {"ask_task": "Hello, Ada!"}}`), 0o600)
	if stdout, stderr, code = run(t, state, "--url", url, "tools", "call", "ask_task", "--task", "--answers", answers); code != 0 || stdout != "name: Ada; model: Hello, Ada!\n" {
		t.Errorf("ask_task --answers: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}

	// Cancel from the CLI.
	stdout, _, code = run(t, state, "--url", url, "tools", "call", "side_effect_task", "--arg", "seconds=30", "--arg", "path=side-effect", "--task", "--detach")
	se := strings.TrimSpace(stdout)
	if code != 0 {
		t.Fatalf("side_effect_task --detach: exit %d", code)
	}
	if stdout, stderr, code = run(t, state, "tasks", "cancel", se); code != 0 || !strings.Contains(stdout, se) {
		t.Errorf("tasks cancel: exit %d, %q, %q", code, stdout, stderr)
	}
	stdout, _, _ = run(t, state, "tasks", "get", se, "--json")
	var st mcp.Task
	if json.Unmarshal([]byte(stdout), &st); st.Status != mcp.TaskStatusCancelled {
		t.Errorf("after cancel: %s", stdout)
	}

	// The task from the other era: the server has it, and the error says how to reach it;
	// the local record stays.
	want := `mcpi: the task "` + id + `" was created in protocol 2026-07-28 and cannot be reached in 2025-11-25; ask again with --protocol 2026-07-28 (or --protocol auto)` + "\n"
	for _, args := range [][]string{{"tasks", "get", id}, {"tasks", "result", id}} {
		args = append([]string{"--url", url, "--protocol", "2025-11-25"}, args...)
		if _, stderr, code = run(t, state, args...); code != 1 || stderr != want {
			t.Errorf("mcpi %s: exit %d, stderr %q\nwant %q", strings.Join(args, " "), code, stderr, want)
		}
	}
	if stdout, _, code = run(t, state, "tasks", "result", id); code != 0 || stdout != "done: worked 200ms in 2 steps\n" {
		t.Errorf("tasks result after the other era's error: exit %d, stdout %q", code, stdout)
	}
}

// A task waiting for input that "tasks result" or "tasks watch" cannot give (no terminal,
// no answers file) is left waiting, in both eras: the command exits 2 with the sentence
// that says how to answer, and a second "tasks result --answers FILE" completes the task.
func TestLeftInputBinary(t *testing.T) {
	answers := filepath.Join(t.TempDir(), "answers.json")
	os.WriteFile(answers, []byte(`{"elicitation": {"ask_task": {"name": "Ada"}}, "sampling": {"ask_task": "Hello, Ada!"}}`), 0o600)
	asked := `mcpi: the server asked for the user's input (elicitation for the tool "ask_task"), which mcpi can only give on a terminal or from an answers file; run it on a terminal, or pass --answers FILE with {"elicitation": {"ask_task": {"name": "..."}}}`
	for _, era := range []struct {
		name  string
		flags []string
		where string // where the task waits: in 2025-11-25, with the session that reached it
	}{{"2025-11-25", []string{"--legacy"}, "on the server, in the session mcpi left open there"}, {"2026-07-28", nil, "on the server"}} {
		t.Run(era.name, func(t *testing.T) {
			url := serveDemoHTTP(t, era.flags...)
			state := t.TempDir()
			for _, verb := range []string{"result", "watch"} {
				stdout, stderr, code := run(t, state, "--url", url, "tools", "call", "ask_task", "--task", "--detach")
				id := strings.TrimSpace(stdout)
				if code != 0 || id == "" {
					t.Fatalf("--detach: exit %d, stdout %q, stderr %q", code, stdout, stderr)
				}
				want := fmt.Sprintf("%s; the task %q waits for it %s: \"mcpi tasks result %s\" gives it\n", asked, id, era.where, id)
				if _, stderr, code = run(t, state, "tasks", verb, id); code != 2 || stderr != want {
					t.Errorf("tasks %s: exit %d, stderr %q\nwant exit 2, %q", verb, code, stderr, want)
				}
				stdout, _, _ = run(t, state, "tasks", "get", id, "--json")
				var st mcp.Task
				if json.Unmarshal([]byte(stdout), &st); st.Status != mcp.TaskStatusInputRequired {
					t.Errorf("after tasks %s: %s; want the task still waiting for input", verb, stdout)
				}
				if stdout, stderr, code = run(t, state, "tasks", "result", id, "--answers", answers); code != 0 || stdout != "name: Ada; model: Hello, Ada!\n" {
					t.Errorf("tasks result --answers after tasks %s: exit %d, stdout %q, stderr %q", verb, code, stdout, stderr)
				}
			}
		})
	}
}

// A task started with --protocol 2025-11-25 on a server that speaks both eras is fetched,
// watched and cancelled by the commands mcpi prints, without --protocol: its record keeps
// the protocol it was created in. "tasks list" in 2026-07-28 does not show it as one of
// its tasks, and "tasks list --local" says which protocol each task is of.
func TestRecordedProtocolBinary(t *testing.T) {
	url := serveDemoHTTP(t)
	state := t.TempDir()
	detach := func(seconds string) string {
		t.Helper()
		stdout, stderr, code := run(t, state, "--url", url, "--protocol", "2025-11-25", "tools", "call", "slow_task", "--arg", "seconds="+seconds, "--arg", "steps=2", "--task", "--detach")
		id := strings.TrimSpace(stdout)
		if code != 0 || id == "" {
			t.Fatalf("--detach: exit %d, stdout %q, stderr %q", code, stdout, stderr)
		}
		return id
	}
	id := detach("0.2")
	// A command of 2026-07-28 first, so that --protocol auto would choose it.
	if _, stderr, code := run(t, state, "--url", url, "tools", "list"); code != 0 {
		t.Fatalf("tools list: exit %d, %s", code, stderr)
	}
	if stdout, stderr, code := run(t, state, "tasks", "result", id); code != 0 || stdout != "done: worked 200ms in 2 steps\n" {
		t.Errorf("tasks result: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if stdout, stderr, code := run(t, state, "tasks", "watch", id); code != 0 || !strings.Contains(stdout, "completed") {
		t.Errorf("tasks watch: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if stdout, stderr, code := run(t, state, "--url", url, "tasks", "get", id, "--json"); code != 0 || !strings.Contains(stdout, `"completed"`) {
		t.Errorf("tasks get with the server's flags: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	long := detach("30")
	if stdout, stderr, code := run(t, state, "tasks", "cancel", long); code != 0 || !strings.Contains(stdout, "cancelled") {
		t.Errorf("tasks cancel: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}

	stdout, stderr, code := run(t, state, "--url", url, "tasks", "list")
	if code != 0 || strings.Contains(stdout, id) || strings.Contains(stdout, long) || !strings.Contains(stderr, "2 more tasks recorded for it were created in protocol 2025-11-25") {
		t.Errorf("tasks list in 2026-07-28: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	stdout, _, code = run(t, state, "tasks", "list", "--local")
	if code != 0 || !strings.Contains(stdout, "PROTOCOL") || strings.Count(stdout, "2025-11-25") != 2 {
		t.Errorf("tasks list --local: exit %d\n%s", code, stdout)
	}
}

// A stdio server is mcpi's own process, stopped when mcpi exits, and its tasks with it:
// --detach is refused, and Ctrl-C while following says that the task ends, not that it
// runs on.
func TestStdioTasksBinary(t *testing.T) {
	state := t.TempDir()
	server := "'" + mcpiBin + "' serve demo"
	_, stderr, code := run(t, state, "--stdio", server, "tools", "call", "slow_task", "--task", "--detach")
	if want := "mcpi: --detach cannot work with a stdio server, which mcpi starts and stops when it exits, so a detached task could never be fetched; serve it over HTTP and pass --url\n"; code != 2 || stderr != want {
		t.Errorf("--detach over stdio: exit %d, stderr %q\nwant exit 2, %q", code, stderr, want)
	}

	id, stderr := interruptAfterCreated(t, state, "--stdio", server, "tools", "call", "slow_task", "--arg", "seconds=30", "--task", "--json")
	want := `mcpi: interrupted; the task "` + id + `" ends with the stdio server "` + server + `", which mcpi stops as it exits` + "\n"
	if stderr != want {
		t.Errorf("stderr:\n%q\nwant\n%q", stderr, want)
	}
	if stdout, _, _ := run(t, state, "tasks", "list", "--local"); strings.Contains(stdout, id) {
		t.Errorf("the task was recorded as left running:\n%s", stdout)
	}
}

// interruptAfterCreated runs mcpi with args (a task call with --json) and state as its
// state directory, sends it SIGINT once the created event is out, checks that it exits
// 2, and returns the task's id and what mcpi wrote to stderr.
func interruptAfterCreated(t *testing.T, state string, args ...string) (id, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	f := startFollowing(t, ctx, state, args...)
	f.cmd.Process.Signal(syscall.SIGINT)
	err := f.cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 {
		t.Fatalf("exit: %v", err)
	}
	return f.id, f.errOut.String()
}

// followedTask is an mcpi run following a task with --json, its first line (the task's
// "created" event) read.
type followedTask struct {
	cmd    *exec.Cmd
	stdout io.ReadCloser
	rest   *bufio.Reader // stdout after the first line
	errOut *bytes.Buffer
	id     string
}

// startFollowing starts mcpi with args (a tools call --task --json) and the state
// directory state, and reads its "created" event.
func startFollowing(t *testing.T, ctx context.Context, state string, args ...string) *followedTask {
	t.Helper()
	f := &followedTask{cmd: exec.CommandContext(ctx, mcpiBin, args...), errOut: &bytes.Buffer{}}
	f.cmd.Env = append(os.Environ(), "MCPI_STATE_DIR="+state)
	f.cmd.Stderr = f.errOut
	var err error
	if f.stdout, err = f.cmd.StdoutPipe(); err != nil {
		t.Fatal(err)
	}
	if err := f.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	f.rest = bufio.NewReader(f.stdout)
	line, err := f.rest.ReadString('\n')
	var created taskview.Event
	if err != nil || json.Unmarshal([]byte(line), &created) != nil || created.Event != "created" {
		t.Fatalf("mcpi %s: first line %q, %v", strings.Join(args, " "), line, err)
	}
	f.id = created.Task.TaskID
	return f
}

// checkLeftRunning checks that the task id was recorded as left running, then cancels it.
func checkLeftRunning(t *testing.T, state, id string) {
	t.Helper()
	if stdout, _, code := run(t, state, "tasks", "list", "--local"); code != 0 || !strings.Contains(stdout, id) {
		t.Errorf("the task left running was not recorded: exit %d\n%s", code, stdout)
	}
	if _, stderr, code := run(t, state, "tasks", "cancel", id); code != 0 {
		t.Errorf("tasks cancel: exit %d, %s", code, stderr)
	}
}
