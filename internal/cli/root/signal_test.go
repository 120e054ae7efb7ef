package root

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/tasks"
)

// One Ctrl-C delivered twice, milliseconds apart (GNU timeout sends SIGINT to its child
// and then to its process group), is one interruption: mcpi leaves the task running,
// records it and says so, rather than being killed by the copy with nothing recorded.
func TestRepeatedInterruptBinary(t *testing.T) {
	url := serveDemoHTTP(t)
	state := t.TempDir()
	// The copy comes at once, or a few milliseconds later, as a loaded machine delivers it.
	for _, delay := range []time.Duration{0, time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		f := startFollowing(t, ctx, state, "--url", url, "tools", "call", "side_effect_task", "--arg", "seconds=30", "--arg", "path=side-effect", "--task", "--json")
		cmd, errOut, id := f.cmd, f.errOut, f.id
		cmd.Process.Signal(syscall.SIGINT)
		time.Sleep(delay)
		cmd.Process.Signal(syscall.SIGINT)
		err := cmd.Wait()
		var ee *exec.ExitError
		want := `mcpi: interrupted; the task "` + id + `" is still running on the server: get its result with "mcpi tasks result ` + id + `"` + "\n"
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || errOut.String() != want {
			t.Fatalf("the copy %s after the first: exit: %v, stderr %q\nwant exit 2 and %q", delay, err, errOut.String(), want)
		}
		checkLeftRunning(t, state, id)
	}
}

// A second Ctrl-C well after the first still kills mcpi, which may be stuck winding down:
// here it waits for the id of a task the server never creates.
func TestSecondInterruptKillsBinary(t *testing.T) {
	called := make(chan struct{}, 1)
	srv := server.New(mcp.Implementation{Name: "stuck", Version: "1"}, &server.Options{
		Tasks: &tasks.Options{},
		Handlers: map[string]server.MethodHandler{
			mcp.MethodToolsCall: func(ctx context.Context, _ *server.Session, _ *jsonrpc.Request) (any, error) {
				select {
				case called <- struct{}{}:
				default:
				}
				select {
				case <-ctx.Done():
				case <-time.After(30 * time.Second):
				}
				return nil, ctx.Err()
			},
		},
	})
	srv.AddTool(&mcp.Tool{Name: "wait", InputSchema: json.RawMessage(`{"type":"object"}`), Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}},
		func(context.Context, *server.ToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	h := srv.HTTPHandler(nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		ts.CloseClientConnections()
		ts.Close()
		srv.Close()
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, mcpiBin, "--url", ts.URL+"/mcp", "tools", "call", "wait", "--task")
	cmd.Env = append(os.Environ(), "MCPI_STATE_DIR="+t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-called:
	case <-ctx.Done():
		t.Fatal("the call never came")
	}
	cmd.Process.Signal(syscall.SIGINT) // mcpi waits two seconds for the task's id
	time.Sleep(time.Second)
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("exit: %v, want killed by SIGINT", err)
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGINT {
		t.Errorf("exit: %v, want killed by SIGINT", err)
	}
}

// A script that reads the first line of --json and closes the pipe (| head -1) stops
// mcpi as Ctrl-C does without a terminal: the task is left running, recorded, and said so
// on stderr with exit 2, rather than mcpi being killed by SIGPIPE with nothing recorded.
func TestClosedOutputBinary(t *testing.T) {
	url := serveDemoHTTP(t)
	state := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	f := startFollowing(t, ctx, state, "--url", url, "tools", "call", "slow_task", "--arg", "seconds=30", "--arg", "steps=30", "--task", "--json")
	cmd, errOut, id := f.cmd, f.errOut, f.id
	f.stdout.Close() // the next progress event meets a closed pipe
	err := cmd.Wait()
	var ee *exec.ExitError
	want := `mcpi: interrupted (its standard output was closed); the task "` + id + `" is still running on the server: get its result with "mcpi tasks result ` + id + `"` + "\n"
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || errOut.String() != want {
		t.Fatalf("exit: %v, stderr %q\nwant exit 2 and %q", err, errOut.String(), want)
	}
	checkLeftRunning(t, state, id)
}

// SIGHUP (the terminal or the supervisor went away) stops mcpi as SIGTERM does: the
// followed task is recorded as left running, and a stdio server is stopped, not orphaned.
func TestHangupBinary(t *testing.T) {
	url := serveDemoHTTP(t)
	stdio := "'" + mcpiBin + "' serve demo"
	for _, server := range [][]string{{"--url", url}, {"--stdio", stdio}} {
		state := t.TempDir()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		f := startFollowing(t, ctx, state, append(server, "tools", "call", "sleep_task", "--arg", "seconds=30", "--task", "--json")...)
		cmd, errOut, id := f.cmd, f.errOut, f.id
		cmd.Process.Signal(syscall.SIGHUP)
		io.Copy(io.Discard, f.rest)
		err := cmd.Wait()
		var ee *exec.ExitError
		want := `mcpi: interrupted; the task "` + id + `" is still running on the server: get its result with "mcpi tasks result ` + id + `"` + "\n"
		if server[0] == "--stdio" {
			want = `mcpi: interrupted; the task "` + id + `" ends with the stdio server "` + stdio + `", which mcpi stops as it exits` + "\n"
		}
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || errOut.String() != want {
			t.Fatalf("%s: exit: %v, stderr %q\nwant exit 2 and %q", server[0], err, errOut.String(), want)
		}
		if server[0] == "--url" {
			if stdout, _, code := run(t, state, "tasks", "list", "--local"); code != 0 || !strings.Contains(stdout, id) {
				t.Errorf("the task left running was not recorded: exit %d\n%s", code, stdout)
			}
			run(t, state, "tasks", "cancel", id)
		}
	}
}
