package answers

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
)

// TestLoadBounded: an answers file is read up to MaxFileSize, so that --answers /dev/zero
// is refused instead of exhausting memory.
func TestLoadBounded(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	_, err := Load("/dev/zero")
	var usage *cmdutil.UsageError
	if want := "the answers file /dev/zero is too large (over 4 MiB)"; !errors.As(err, &usage) || usage.Msg != want {
		t.Fatalf("--answers /dev/zero: %v, want %q", err, want)
	}
	big := write(t, `{"sampling": {"t": "`+strings.Repeat("x", MaxFileSize)+`"}}`)
	if _, err := Load(big); err == nil || !strings.Contains(err.Error(), "too large") {
		t.Errorf("a file over the bound: %v", err)
	}
}
