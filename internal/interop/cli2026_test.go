package interop

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpi-dev/mcpi/internal/cli/iostreams"
	"github.com/mcpi-dev/mcpi/internal/cli/root"
	"github.com/mcpi-dev/mcpi/internal/cli/state"
)

// runCLI runs mcpi with args, with its state in stateDir, and returns its exit code,
// stdout and stderr.
func runCLI(t *testing.T, ctx context.Context, stateDir string, args ...string) (int, string, string) {
	t.Helper()
	t.Setenv("MCPI_STATE_DIR", stateDir)
	ios, _, out, errOut := iostreams.Test()
	code := root.Main(ctx, ios, args, "test")
	return code, out.String(), errOut.String()
}

// The CLI against the strict TypeScript SDK v2 server: what a user of a 2026-07-28 server
// sees, command by command.
func TestCLIAgainstTS2(t *testing.T) {
	ctx := testContext(t)
	url := startTS2HTTP(t, ctx)
	dir := t.TempDir()

	code, out, errOut := runCLI(t, ctx, dir, "ping", "--url", url)
	if code != 0 || !strings.Contains(out, "pong from "+ts2ServerName) || !strings.Contains(out, "(protocol 2026-07-28, modern era)") {
		t.Fatalf("ping: exit %d, stdout %q, stderr %q; want the protocol and era named", code, out, errOut)
	}
	// The era is remembered for the next command.
	b, err := os.ReadFile(filepath.Join(dir, "eras.json"))
	var eras map[string]struct{ Version string }
	if err != nil || json.Unmarshal(b, &eras) != nil || eras[state.EraKey("http "+url)].Version != "2026-07-28" {
		t.Errorf("eras.json = %s (%v), want %q remembered as 2026-07-28", b, err, url)
	}

	code, out, errOut = runCLI(t, ctx, dir, "tools", "list", "--url", url)
	if code != 0 || !strings.Contains(out, "ask_name") || strings.Contains(out, "TASK SUPPORT") {
		t.Errorf("tools list: exit %d, stdout %q, stderr %q", code, out, errOut)
	}

	code, out, errOut = runCLI(t, ctx, dir, "tools", "call", "add", "--arg", "a=40", "--arg", "b=2", "--url", url)
	if code != 0 || strings.TrimSpace(out) != "42" {
		t.Errorf("tools call add: exit %d, stdout %q, stderr %q", code, out, errOut)
	}

	// An MRTR elicitation answered from --answers, like a server request of 2025-11-25.
	answers := filepath.Join(t.TempDir(), "answers.json")
	if err := os.WriteFile(answers, []byte(`{"elicitation":{"*":{"name":"Ada"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCLI(t, ctx, dir, "tools", "call", "ask_name", "--answers", answers, "--url", url)
	if code != 0 || strings.TrimSpace(out) != "Hello, Ada!" {
		t.Errorf("tools call ask_name --answers: exit %d, stdout %q, stderr %q", code, out, errOut)
	}

	// --task only declares the extension: this server answers at once, and says so.
	code, out, errOut = runCLI(t, ctx, dir, "tools", "call", "echo", "--arg", "text=hi", "--task", "--url", url)
	if code != 0 || strings.TrimSpace(out) != "hi" || !strings.Contains(errOut, "The server answered at once, without a task.") {
		t.Errorf("tools call --task: exit %d, stdout %q, stderr %q", code, out, errOut)
	}

	// No tasks/list in this era.
	code, out, errOut = runCLI(t, ctx, dir, "tasks", "list", "--url", url)
	if code != 0 || !strings.Contains(errOut, "has no tasks/list") {
		t.Errorf("tasks list: exit %d, stdout %q, stderr %q", code, out, errOut)
	}

	// The older era forced on a server that has none: one sentence, a non-zero exit.
	code, out, errOut = runCLI(t, ctx, dir, "ping", "--protocol", "2025-11-25", "--url", url)
	want := "mcpi: the server does not speak protocol version 2025-11-25; it speaks 2026-07-28 (give --protocol 2026-07-28, or auto)\n"
	if code == 0 || errOut != want || out != "" {
		t.Errorf("ping --protocol 2025-11-25: exit %d, stdout %q, stderr %q; want %q", code, out, errOut, want)
	}
}

// A remembered era that went stale: the server stopped speaking 2025-11-25, and the next
// command still connects, and remembers the new answer.
func TestCLIStaleEra(t *testing.T) {
	ctx := testContext(t)
	url := startTS2HTTP(t, ctx)
	dir := t.TempDir()
	stale := `{"` + state.EraKey("http "+url) + `":{"version":"2025-11-25","at":"2026-01-01T00:00:00Z"}}`
	if err := os.WriteFile(filepath.Join(dir, "eras.json"), []byte(stale), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, ctx, dir, "ping", "--url", url)
	if code != 0 || !strings.Contains(out, "modern era") {
		t.Fatalf("ping with a stale era: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "eras.json"))
	if !strings.Contains(string(b), `"version": "2026-07-28"`) {
		t.Errorf("eras.json after the stale answer: %s", b)
	}
}
