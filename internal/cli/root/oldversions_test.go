package root

import (
	"strings"
	"testing"
)

// Revisions before 2025-11-25 have no Tasks: with the demo in 2025-06-18, info shows no
// tasks capability, and a call with --task is refused with the sentence that says why
// and what to do, before anything is sent.
func TestNoTasksBeforeRevision20251125(t *testing.T) {
	out, stderr, code := mcpi(t, "--protocol", "2025-06-18", "info")
	if code != 0 || !strings.Contains(out, "\ntasks         no (protocol 2025-06-18 has none; they came with 2025-11-25)\n") {
		t.Errorf("info: exit %d, stdout %q, stderr %q; want no tasks", code, out, stderr)
	}
	out, stderr, code = mcpi(t, "--protocol", "2025-06-18", "tools", "call", "slow_task", "--task", "--arg", "seconds=1")
	want := `mcpi: protocol 2025-06-18 has no tasks (they came with 2025-11-25), so "slow_task" cannot run as one; call it without --task, or give --protocol 2025-11-25` + "\n"
	if code != 2 || stderr != want || out != "" {
		t.Errorf("tools call --task: exit %d, stdout %q, stderr:\n%s\nwant:\n%s", code, out, stderr, want)
	}
}
