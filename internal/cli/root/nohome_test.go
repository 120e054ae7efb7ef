package root

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// runNoHome runs mcpi with neither HOME, MCPI_STATE_DIR nor XDG_STATE_HOME set: no place
// for its state.
func runNoHome(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, mcpiBin, args...)
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "HOME" && k != "MCPI_STATE_DIR" && k != "XDG_STATE_HOME" {
			cmd.Env = append(cmd.Env, kv)
		}
	}
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

// TestNoStateDirectory: with no place for the state directory, the commands that need no
// state work (the eras' memory is a cache, and the token store is needed only for a
// login), and those that need it fail with a sentence that names MCPI_STATE_DIR. Every
// --url command failed.
func TestNoStateDirectory(t *testing.T) {
	url := serveDemoHTTP(t)
	for _, args := range [][]string{{"ping"}, {"tools", "list"}, {"tools", "call", "add", "--arg", "a=1", "--arg", "b=2"}} {
		stdout, stderr, code := runNoHome(t, append([]string{"--url", url}, args...)...)
		if code != 0 || stderr != "" || stdout == "" {
			t.Errorf("mcpi %s: exit %d, stdout %q, stderr %q", strings.Join(args, " "), code, stdout, stderr)
		}
	}
	want := "mcpi: there is no directory for mcpi's state (HOME is not set): set MCPI_STATE_DIR to one\n"
	for _, args := range [][]string{
		{"--url", url, "tools", "call", "slow_task", "--arg", "seconds=30", "--task", "--detach"},
		{"tasks", "result", "some-task"},
		{"tasks", "list", "--local"},
	} {
		stdout, stderr, code := runNoHome(t, args...)
		if code != 2 || stderr != want || stdout != "" {
			t.Errorf("mcpi %s: exit %d, stdout %q, stderr:\n%s\nwant:\n%s", strings.Join(args, " "), code, stdout, stderr, want)
		}
	}
}
