package tui_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/internal/hostile"
	"github.com/mcpi-dev/mcpi/transport"
)

// tmuxEnv names the variable that makes a missing tmux fail the real-terminal test
// instead of skipping it; CI sets it after scripts/tui-tools.sh installed tmux.
const tmuxEnv = "MCPI_TUI_TMUX"

// tmuxSession is a tmux server of its own (-L), so the test never touches the user's.
type tmuxSession struct {
	t      *testing.T
	tmux   string
	socket string
}

func (s *tmuxSession) run(args ...string) (string, error) {
	cmd := exec.Command(s.tmux, append([]string{"-L", s.socket, "-f", "/dev/null"}, args...)...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (s *tmuxSession) keys(keys ...string) {
	s.t.Helper()
	if out, err := s.run(append([]string{"send-keys", "-t", "main"}, keys...)...); err != nil {
		s.t.Fatalf("tmux send-keys %q: %v\n%s", keys, err, out)
	}
}

func (s *tmuxSession) screen() string {
	out, err := s.run("capture-pane", "-p", "-t", "main")
	if err != nil {
		return "(capture-pane failed: " + err.Error() + ": " + out + ")"
	}
	return out
}

// waitFor polls the screen until cond holds, or fails the test with the last screen.
func (s *tmuxSession) waitFor(what string, timeout time.Duration, cond func(string) bool) string {
	s.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		screen := s.screen()
		if cond(screen) {
			return screen
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("timed out after %s waiting for %s; the screen was:\n%s", timeout, what, screen)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func lineWith(screen string, texts ...string) string {
	for l := range strings.SplitSeq(screen, "\n") {
		ok := true
		for _, t := range texts {
			ok = ok && strings.Contains(l, t)
		}
		if ok {
			return l
		}
	}
	return ""
}

// build builds a main package of the module into dir.
func build(t *testing.T, dir, pkg, name string) string {
	t.Helper()
	bin := filepath.Join(dir, name)
	out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin
}

// tmuxSockets numbers the tmux servers of this process: one socket each, so that a
// server being killed at the end of a test never meets the next test's.
var tmuxSockets atomic.Int32

// tmuxFor returns a tmux server of the test's own, or skips the test without tmux.
func tmuxFor(t *testing.T) *tmuxSession {
	t.Helper()
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		if os.Getenv(tmuxEnv) == "1" {
			t.Fatalf("%s=1 but tmux is not installed: run scripts/tui-tools.sh", tmuxEnv)
		}
		t.Skipf("tmux is not installed (scripts/tui-tools.sh installs it; %s=1 makes this a failure)", tmuxEnv)
	}
	s := &tmuxSession{t: t, tmux: tmux, socket: fmt.Sprintf("mcpi-tui-test-%d-%d", os.Getpid(), tmuxSockets.Add(1))}
	t.Cleanup(func() { _, _ = s.run("kill-server") })
	return s
}

// start runs argv in the session "main", a 100x30 terminal. The shell reports the exit
// status, so that quitting is checked too; with wait, it first waits for Enter.
func (s *tmuxSession) start(argv []string, wait bool) {
	s.t.Helper()
	s.t.Logf("running %q", argv)
	script := shellQuote(argv) + `; echo "mcpi exited with status $?"; sleep 60`
	if wait {
		script = "read _; " + script
	}
	if out, err := s.run("new-session", "-d", "-s", "main", "-x", "100", "-y", "30", "sh", "-c", script); err != nil {
		s.t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
}

// quit quits mcpi with q, and checks that it exited cleanly.
func (s *tmuxSession) quit() {
	s.t.Helper()
	s.keys("q")
	s.waitFor("mcpi to quit", 10*time.Second, func(sc string) bool { return strings.Contains(sc, "mcpi exited with status") })
	if sc := s.screen(); !strings.Contains(sc, "mcpi exited with status 0") {
		s.t.Errorf("mcpi did not exit cleanly:\n%s", sc)
	}
}

// TestTmuxSlowTask runs the terminal UI in a real terminal (tmux, 100x30) against the
// demo server over stdio (`mcpi serve demo` as a child process), calls slow_task as a
// task with keys, and reads the screen until the Tasks view shows it completed: in
// 2025-11-25 (`--legacy`), where the user asks for the task, and in 2026-07-28, where
// the server makes the call a task.
func TestTmuxSlowTask(t *testing.T) {
	dir := t.TempDir()
	mcpi := build(t, dir, "github.com/mcpi-dev/mcpi/cmd/mcpi", "mcpi")
	t.Run("2025-11-25", func(t *testing.T) { tmuxSlowTask(t, mcpi, true) })
	t.Run("2026-07-28", func(t *testing.T) { tmuxSlowTask(t, mcpi, false) })
}

func tmuxSlowTask(t *testing.T, mcpi string, legacy bool) {
	s := tmuxFor(t)
	server := mcpi + " serve demo"
	button, proto, progress := "[ Call as task ]", "protocol 2025-11-25", "5/5"
	if legacy {
		server += " --legacy"
	} else {
		// No progress for tasks in 2026-07-28 (the status message has the steps); the
		// row is tagged with the dialect.
		button, proto, progress = "[ Call ]", "protocol 2026-07-28", "→ slow_task (ext)"
	}
	s.start([]string{mcpi, "tui", "--stdio", server}, false)

	s.waitFor("the header and the tool list", 30*time.Second, func(sc string) bool {
		return strings.Contains(sc, "mcpi-demo") && strings.Contains(sc, "● connected") && strings.Contains(sc, "slow_task")
	})
	for i := 0; ; i++ {
		if lineWith(s.screen(), "▸ slow_task") != "" {
			break
		}
		if i == 40 {
			t.Fatalf("could not select slow_task:\n%s", s.screen())
		}
		s.keys("Down")
		time.Sleep(20 * time.Millisecond)
	}
	s.keys("Enter")
	s.waitFor("the slow_task form", 10*time.Second, func(sc string) bool {
		return strings.Contains(sc, "tools/call slow_task") && strings.Contains(sc, button) && strings.Contains(sc, proto)
	})
	// Seconds: 5 -> 2, so the task works for a while, then completes.
	s.keys("BSpace", "2")
	s.waitFor("seconds set to 2", 5*time.Second, func(sc string) bool { return lineWith(sc, "Seconds", "2") != "" })
	s.keys("C-s")

	working := s.waitFor("the task working in the Tasks view", 10*time.Second, func(sc string) bool {
		return lineWith(sc, "slow_task", "◐ working") != "" || lineWith(sc, "slow_task", "✓ completed") != ""
	})
	t.Logf("while it works:\n%s", working)
	done := s.waitFor("the task completed", 30*time.Second, func(sc string) bool {
		return lineWith(sc, "→ slow_task", "✓ completed", progress) != "" && strings.Contains(sc, "done: worked 2s in 5 steps")
	})
	t.Logf("completed:\n%s", done)
	if path := os.Getenv("MCPI_TUI_CAPTURE"); path != "" && legacy {
		if err := os.WriteFile(path, []byte(done), 0o644); err != nil {
			t.Errorf("writing the capture: %v", err)
		}
	}

	s.quit()
}

// shellQuote joins argv for sh -c.
func shellQuote(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}

// hostileEnv makes [TestHostileServerProcess] serve; the tmux test runs the test binary
// as the server that way.
const hostileEnv = "MCPI_TEST_HOSTILE_SERVER"

// TestHostileServerProcess is not a test: with hostileEnv set, it serves the hostile
// server on stdin and stdout until stdin closes.
func TestHostileServerProcess(t *testing.T) {
	if os.Getenv(hostileEnv) != "1" {
		t.Skip("the hostile server for TestTmuxHostileServer")
	}
	if err := hostile.New().Run(context.Background(), transport.StdioTransport{}); err != nil {
		t.Fatal(err)
	}
}

// TestTmuxHostileServer runs the terminal UI in a real terminal (tmux, which lets
// programs set its pane title and, with set-clipboard on, its paste buffers) against a
// server whose every text tries to retitle the terminal, write the clipboard and erase
// the screen: the pane keeps mcpi's title, no buffer is written, and the screen shows
// the server's escape sequences instead.
func TestTmuxHostileServer(t *testing.T) {
	s := tmuxFor(t)
	mcpi := build(t, t.TempDir(), "github.com/mcpi-dev/mcpi/cmd/mcpi", "mcpi")
	server := shellQuote([]string{os.Args[0], "-test.run=^TestHostileServerProcess$"})
	s.start([]string{"env", hostileEnv + "=1", mcpi, "tui", "--stdio", server}, true)
	if out, err := s.run("set-option", "-g", "set-clipboard", "on"); err != nil {
		t.Fatalf("tmux set-option: %v\n%s", err, out)
	}
	s.keys("Enter")
	screen := s.waitFor("the hostile server's tools", 30*time.Second, func(sc string) bool {
		return strings.Contains(sc, "hostile<") && strings.Contains(sc, "5 tools")
	})
	t.Logf("the screen:\n%s", screen)
	if !strings.Contains(screen, "hostile<␛]0;pwned␇␛]52;c;Zm9v␇␛[2J␍forged") {
		t.Errorf("the screen does not show the server's escape sequences")
	}
	title, err := s.run("display-message", "-p", "-t", "main", "#{pane_title}")
	if err != nil || !strings.HasPrefix(title, "mcpi · hostile<␛]0;pwned␇") {
		t.Errorf("the pane's title is %q (%v), not mcpi's", title, err)
	}
	if buffers, _ := s.run("list-buffers"); buffers != "" {
		t.Errorf("the server wrote a paste buffer: %q", buffers)
	}
	s.quit()
}
