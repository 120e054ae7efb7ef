package tasks

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpi-dev/mcpi/internal/workpool"
	"github.com/mcpi-dev/mcpi/mcp"
)

func quick(context.Context, *Handle) Outcome { return Outcome{Result: []byte(`{}`)} }

// TestWorkersAreReused: tasks run one after another reuse one goroutine, a burst leaves at
// most workpool.DefaultMaxIdle waiting, idle workers leave after workerIdle, and Close
// ends them.
func TestWorkersAreReused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		done := make(chan struct{}, 100)
		m := New(Options{MaxActive: 100, OnChange: func(owner string, task mcp.Task) {
			if task.Status.IsTerminal() {
				done <- struct{}{}
			}
		}})
		defer m.Close()
		for range 50 {
			if _, err := m.Create("a", nil, quick); err != nil {
				t.Fatal(err)
			}
			<-done
			synctest.Wait()
			if n, idle := m.workers.Live(), m.workers.Idle(); n != 1 || idle != 1 {
				t.Fatalf("%d workers (%d idle) while tasks run one after another, want 1", n, idle)
			}
		}

		release := make(chan struct{})
		for range 20 {
			if _, err := m.Create("a", nil, block(release, Outcome{})); err != nil {
				t.Fatal(err)
			}
		}
		synctest.Wait()
		if n := m.workers.Live(); n != 20 {
			t.Errorf("%d workers with 20 tasks running, want 20", n)
		}
		close(release)
		for range 20 {
			<-done
		}
		synctest.Wait()
		if n, idle := m.workers.Live(), m.workers.Idle(); n != workpool.DefaultMaxIdle || idle != workpool.DefaultMaxIdle {
			t.Errorf("%d workers (%d idle) after the burst, want %d", n, idle, workpool.DefaultMaxIdle)
		}

		time.Sleep(workerIdle)
		synctest.Wait()
		if n := m.workers.Live(); n != 0 {
			t.Errorf("%d workers after %s idle, want none", n, workerIdle)
		}
		if _, err := m.Create("a", nil, quick); err != nil {
			t.Fatal(err)
		}
		<-done
		m.Close()
		if n := m.workers.Live(); n != 0 {
			t.Errorf("%d workers after Close, want none", n)
		}
	})
}

// TestCloseEndsWorkers runs without a bubble, with tasks created while Close runs.
func TestCloseEndsWorkers(t *testing.T) {
	m := New(Options{MaxActive: 1000})
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for {
				if _, err := m.Create("a", nil, quick); err != nil {
					return // closed
				}
				runtime.Gosched()
			}
		})
	}
	time.Sleep(20 * time.Millisecond)
	m.Close()
	if n := m.workers.Live(); n != 0 {
		t.Errorf("%d workers after Close, want none", n)
	}
	wg.Wait()
}
