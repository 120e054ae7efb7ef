//go:build unix

package client_test

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

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/transport"
)

// TestConnectFailedProcessRespectsContext: a server process that never answers, and
// ignores its stdin closing and SIGTERM (as does what it started), makes Connect fail
// shortly after its context's deadline, in either era or both, and is killed with its
// process group. (Connect waited two grace periods of 2 s after the deadline, then for
// the end of the process that held the server's stderr: a minute here.)
func TestConnectFailedProcessRespectsContext(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	for _, version := range []string{client.ProtocolAuto, mcp.LatestProtocolVersion, mcp.ProtocolVersion20260728} {
		t.Run(version, func(t *testing.T) {
			pidfile := filepath.Join(t.TempDir(), "pid")
			tr := &transport.Command{Path: "sh", Args: []string{"-c", `trap '' TERM; sleep 60 & echo $! >"$PIDFILE"; wait`}, Env: []string{"PIDFILE=" + pidfile}}
			pid := 0
			t.Cleanup(func() {
				if pid > 0 {
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			})
			const wait = 500 * time.Millisecond
			ctx, cancel := context.WithTimeout(t.Context(), wait)
			defer cancel()
			start := time.Now()
			done := make(chan error, 1)
			go func() {
				_, err := client.New(mcp.Implementation{Name: "c", Version: "1"}, &client.Options{ProtocolVersion: version}).Connect(ctx, tr)
				done <- err
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("Connect did not return")
			}
			if b, rerr := os.ReadFile(pidfile); rerr == nil {
				pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("Connect: %v, want the context's deadline", err)
			}
			if late := time.Since(start) - wait; late > 1500*time.Millisecond {
				t.Errorf("Connect returned %v after its context's deadline, want a fraction of a second", late)
			}
			if pid <= 0 {
				t.Fatal("the script wrote no pid")
			}
			for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
				if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err != nil || strings.Contains(string(b), ") Z") {
					return
				}
			}
			t.Error("the process the server started lives on")
		})
	}
}
