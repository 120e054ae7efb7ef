package cmdutil

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestReadFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	os.WriteFile(p, []byte("12345"), 0o600)
	if data, err := ReadFile(p, 5); err != nil || string(data) != "12345" {
		t.Errorf("at the bound: %q, %v", data, err)
	}
	var large *FileTooLargeError
	if _, err := ReadFile(p, 4); !errors.As(err, &large) || large.Limit != 4 || err.Error() != "it is too large (over 4 bytes)" {
		t.Errorf("over the bound: %v", err)
	}
	if _, err := ReadFile(p+"x", 4); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
	for n, want := range map[int64]string{1 << 20: "1 MiB", 4 << 20: "4 MiB", 512 << 10: "512 KiB", 1 << 30: "1 GiB", 1000: "1000 bytes", 1536: "1536 bytes"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}
