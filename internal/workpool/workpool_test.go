package workpool

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// run gives f to p and waits until it has run.
func run(p *Pool, f func()) {
	done := make(chan struct{})
	p.Go(func() {
		f()
		close(done)
	})
	<-done
}

func checkWorkers(t *testing.T, p *Pool, live, idle int, when string) {
	t.Helper()
	if l, i := p.Live(), p.Idle(); l != live || i != idle {
		t.Fatalf("%s: %d workers (%d idle), want %d (%d idle)", when, l, i, live, idle)
	}
}

// Functions given one after another reuse one goroutine; a burst leaves MaxIdle waiting;
// Close ends them. The bubble fails the test if any goroutine is left behind.
func TestWorkersAreReused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := New(Options{})
		var ran atomic.Int32
		for range 50 {
			run(p, func() { ran.Add(1) })
			synctest.Wait()
			checkWorkers(t, p, 1, 1, "functions run one after another")
		}
		if ran.Load() != 50 {
			t.Fatalf("%d functions ran, want 50", ran.Load())
		}

		release := make(chan struct{})
		var wg sync.WaitGroup
		for range 20 {
			wg.Add(1)
			p.Go(func() {
				defer wg.Done()
				<-release
			})
		}
		synctest.Wait()
		checkWorkers(t, p, 20, 0, "20 functions running")
		close(release)
		wg.Wait()
		synctest.Wait()
		checkWorkers(t, p, DefaultMaxIdle, DefaultMaxIdle, "after the burst")

		p.Close()
		p.Wait()
		checkWorkers(t, p, 0, 0, "after Close")
	})
}

func TestMaxIdle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := New(Options{MaxIdle: 2})
		defer p.Wait()
		defer p.Close()
		release := make(chan struct{})
		for range 5 {
			p.Go(func() { <-release })
		}
		close(release)
		synctest.Wait()
		checkWorkers(t, p, 2, 2, "after a burst of 5")
	})
}

// An idle worker ends after IdleTimeout; one that gets work in time does not.
func TestIdleTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := New(Options{IdleTimeout: time.Second})
		defer p.Close()
		run(p, func() {})
		time.Sleep(time.Second / 2)
		run(p, func() {})
		time.Sleep(time.Second / 2)
		synctest.Wait()
		checkWorkers(t, p, 1, 1, "idle for half the timeout after work")
		time.Sleep(time.Second / 2)
		synctest.Wait()
		checkWorkers(t, p, 0, 0, "idle for the timeout")
		p.Wait()
	})
}

// Closing Done ends the idle workers, and busy ones as they finish.
func TestDoneEndsWorkers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		done := make(chan struct{})
		p := New(Options{Done: done})
		first, release := make(chan struct{}), make(chan struct{})
		p.Go(func() { <-first })
		p.Go(func() { <-release })
		close(first)
		synctest.Wait()
		checkWorkers(t, p, 2, 1, "one busy, one idle")
		close(done)
		synctest.Wait()
		checkWorkers(t, p, 1, 0, "after done, one still busy")
		close(release)
		p.Wait()
		checkWorkers(t, p, 0, 0, "after the busy one finished")
	})
}

// After Close, functions still run, and their goroutines end with them.
func TestGoAfterClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := New(Options{})
		p.Close()
		ran := false
		run(p, func() { ran = true })
		p.Wait()
		if !ran {
			t.Fatal("the function given after Close did not run")
		}
		checkWorkers(t, p, 0, 0, "after Close")
		p.Close() // twice is fine
	})
}

// TestNoLeak runs without a bubble: functions given from many goroutines, Close while
// they are given, and no goroutine left after Wait.
func TestNoLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	p := New(Options{})
	var ran atomic.Int64
	var givers sync.WaitGroup
	stopGiving := make(chan struct{})
	for range 4 {
		givers.Go(func() {
			for {
				select {
				case <-stopGiving:
					return
				default:
				}
				p.Go(func() { ran.Add(1) })
				runtime.Gosched()
			}
		})
	}
	time.Sleep(20 * time.Millisecond)
	close(stopGiving)
	givers.Wait()
	p.Close()
	p.Wait()
	if p.Live() != 0 || p.Idle() != 0 {
		t.Errorf("%d workers (%d idle) after Wait", p.Live(), p.Idle())
	}
	if ran.Load() == 0 {
		t.Error("nothing ran")
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after Wait, %d before", n, before)
	}
}

func BenchmarkGo(b *testing.B) {
	p := New(Options{})
	defer p.Close()
	done := make(chan struct{})
	f := func() { done <- struct{}{} }
	for b.Loop() {
		p.Go(f)
		<-done
	}
}
