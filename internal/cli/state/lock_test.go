package state

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// addHelperEnv makes TestAddHelperProcess add the entry it names to the state file in
// $MCPI_STATE_DIR, as one mcpi process would.
const addHelperEnv = "MCPI_STATE_TEST_ADD"

func TestAddHelperProcess(t *testing.T) {
	id := os.Getenv(addHelperEnv)
	if id == "" {
		t.Skip("the child process of TestConcurrentAdds")
	}
	s, err := Default()
	if err == nil {
		err = s.Add(Entry{TaskID: id, Created: time.Now()})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// TestConcurrentAdds: entries added at the same time, by goroutines and by processes,
// are all kept (36 concurrent --detach runs once recorded 29 entries).
func TestConcurrentAdds(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("MCPI_STATE_DIR", dir)
	const goroutines, processes = 40, 12
	var wg sync.WaitGroup
	errs := make(chan error, goroutines+processes)
	for i := range goroutines {
		wg.Go(func() {
			s := &Store{Path: filepath.Join(dir, FileName)}
			errs <- s.Add(Entry{TaskID: fmt.Sprint("g", i), Created: time.Now()})
		})
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for i := range processes {
		wg.Go(func() {
			cmd := exec.Command(exe, "-test.run=^TestAddHelperProcess$")
			cmd.Env = append(os.Environ(), addHelperEnv+"="+fmt.Sprint("p", i))
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("process %d: %v: %s", i, err, out)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	entries, err := (&Store{Path: filepath.Join(dir, FileName)}).Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != goroutines+processes {
		t.Errorf("%d entries kept of %d added", len(entries), goroutines+processes)
	}
	files, _ := os.ReadDir(dir)
	if len(files) != 1 {
		t.Errorf("files in the state dir: %v", files)
	}
}
