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
	// A file that is not regular has no size to trust: read up to the bound.
	if _, err := ReadFile("/dev/zero", 1<<10); !errors.As(err, &large) {
		t.Errorf("a device that never ends: %v", err)
	}
	if data, err := ReadFile("/dev/null", 4); err != nil || len(data) != 0 {
		t.Errorf("an empty device: %q, %v", data, err)
	}
	// Larger than one read, exactly (the buffer is the file's size).
	big := make([]byte, 100<<10)
	for i := range big {
		big[i] = byte(i)
	}
	os.WriteFile(p, big, 0o600)
	if data, err := ReadFile(p, int64(len(big))); err != nil || string(data) != string(big) {
		t.Errorf("a 100 KiB file: %d bytes, %v", len(data), err)
	}
	for n, want := range map[int64]string{1 << 20: "1 MiB", 4 << 20: "4 MiB", 512 << 10: "512 KiB", 1 << 30: "1 GiB", 1000: "1000 bytes", 1536: "1536 bytes"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}
