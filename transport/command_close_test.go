//go:build unix

package transport

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
)

// cmdShell returns a Command that runs script with sh, the script ending in
// `exec "$0" "$@"` to become the helper of the given mode. The script writes the pid of
// a process it starts to "$PIDFILE": started returns it, and the process is killed at
// cleanup if it still runs.
func cmdShell(t *testing.T, script, mode string) (c *Command, started func() int) {
	t.Helper()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	h := cmdHelper(t, mode)
	pidfile := filepath.Join(t.TempDir(), "pid")
	c = &Command{Path: "sh", Args: append([]string{"-c", script, h.Path}, h.Args...), Env: append(h.Env, "PIDFILE="+pidfile)}
	started = func() int {
		b, err := os.ReadFile(pidfile)
		pid, perr := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || perr != nil {
			t.Fatalf("the script wrote no pid: %v %v", err, perr)
		}
		return pid
	}
	t.Cleanup(func() {
		if b, err := os.ReadFile(pidfile); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	return c, started
}

// alive reports whether process pid still runs (a zombie counts as gone).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return syscall.Kill(pid, 0) == nil // no /proc: a zombie counts as alive
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(rest, "Z")
}

// TestCommandCloseDespiteDescendants: Close returns within its grace periods whatever
// the processes the server started do: one that ignores SIGTERM, or one in a session of
// its own (setsid), holding the server's stdout and stderr for a minute. (Close waited
// for the end of stderr, so for them.) What the server started in its group is sent
// SIGTERM once the server has exited; a server that ignores SIGTERM too is killed with
// its whole process group.
func TestCommandCloseDespiteDescendants(t *testing.T) {
	cmdShortGrace(t)
	for _, tc := range []struct {
		name, script, mode string
		// gone: the descendant ends with the server (SIGTERM to the group once the server
		// has exited, or SIGKILL to it when the server needed that).
		gone bool
	}{
		{"descendant", `sleep 60 & echo $! >"$PIDFILE"; exec "$0" "$@"`, "echo", true},
		{"descendant ignores SIGTERM", `trap '' TERM; sleep 60 & echo $! >"$PIDFILE"; exec "$0" "$@"`, "echo", false},
		{"descendant in its own session", `setsid sleep 60 & echo $! >"$PIDFILE"; exec "$0" "$@"`, "echo", false},
		{"server and descendant ignore SIGTERM", `trap '' TERM; sleep 60 & echo $! >"$PIDFILE"; exec "$0" "$@"`, "ignore-sigterm", true},
		{"server ignores SIGTERM, descendant in its own session", `setsid sleep 60 & echo $! >"$PIDFILE"; exec "$0" "$@"`, "ignore-sigterm", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, started := cmdShell(t, tc.script, tc.mode)
			ready := make(chan struct{}, 1)
			p := cmdConnect(t, c)
			conn := jsonrpc.NewConn(p, jsonrpc.Options{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
				if req.Method == "ready" {
					ready <- struct{}{}
				}
				return nil, nil
			})})
			if tc.mode == "echo" {
				if err := conn.Call(context.Background(), "echo", nil, nil); err != nil {
					t.Fatal(err)
				}
			} else {
				cmdWait(t, ready, "the server to be ready")
			}
			pid := started()
			start := time.Now()
			closed := make(chan error, 1)
			go func() { closed <- conn.Close() }()
			if err := cmdWait(t, closed, "Close to return"); err != nil {
				t.Fatal(err)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("Close took %v, want well under 5 s", d)
			}
			select {
			case <-p.reaped:
			default:
				t.Error("Close returned before the server exited")
			}
			if tc.gone {
				// Reaped by init once killed, which may take a moment.
				for deadline := time.Now().Add(5 * time.Second); alive(pid) && time.Now().Before(deadline); {
					time.Sleep(10 * time.Millisecond)
				}
				if alive(pid) {
					t.Error("the process the server started lives on")
				}
			}
			if err := conn.Call(context.Background(), "x", nil, nil); !errors.Is(err, jsonrpc.ErrClosed) {
				t.Errorf("Call after Close = %v", err)
			}
		})
	}
}

// TestCommandCloseContextHurries: once the context given to CloseContext has ended, a
// server that ignores its stdin and SIGTERM, with its process group, is killed at once
// rather than after the grace periods (2 s each here, as by default).
func TestCommandCloseContextHurries(t *testing.T) {
	c, started := cmdShell(t, `trap '' TERM; sleep 60 & echo $! >"$PIDFILE"; exec "$0" "$@"`, "ignore-sigterm")
	p := cmdConnect(t, c)
	ready := make(chan struct{}, 1)
	jsonrpc.NewConn(p, jsonrpc.Options{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		if req.Method == "ready" {
			ready <- struct{}{}
		}
		return nil, nil
	})})
	cmdWait(t, ready, "the server to be ready")
	pid := started()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	closed := make(chan error, 1)
	go func() { closed <- p.CloseContext(ctx) }()
	cmdWait(t, closed, "CloseContext to return")
	if d := time.Since(start); d > processGrace {
		t.Errorf("CloseContext with an ended context took %v, want well under the grace period of %v", d, processGrace)
	}
	if ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("the server ended with %v, want killed", p.cmd.ProcessState)
	}
	for deadline := time.Now().Add(5 * time.Second); alive(pid) && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if alive(pid) {
		t.Error("the process the server started lives on")
	}
}
