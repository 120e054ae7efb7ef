package statetest

import (
	"os"
	"testing"
)

type run func() int

func (r run) Run() int { return r() }

func TestMainGivesADirectory(t *testing.T) {
	t.Setenv("MCPI_STATE_DIR", "")
	os.Unsetenv("MCPI_STATE_DIR")
	var seen string
	code := Main(run(func() int {
		seen = os.Getenv("MCPI_STATE_DIR")
		if fi, err := os.Stat(seen); err != nil || !fi.IsDir() {
			t.Errorf("MCPI_STATE_DIR %q is not a directory: %v", seen, err)
		}
		return 3
	}))
	if code != 3 || seen == "" {
		t.Errorf("code %d, dir %q", code, seen)
	}
	if _, err := os.Stat(seen); !os.IsNotExist(err) {
		t.Errorf("the directory is left after the tests: %v", err)
	}
	// One named already is kept.
	t.Setenv("MCPI_STATE_DIR", "/somewhere")
	Main(run(func() int { seen = os.Getenv("MCPI_STATE_DIR"); return 0 }))
	if seen != "/somewhere" {
		t.Errorf("a state directory the environment names was replaced by %q", seen)
	}
}
