// Package workpool runs functions on goroutines that it keeps for reuse.
//
// A fresh goroutine starts with a small stack that decoding and encoding JSON grow
// several times, and copying it costs more than the rest of handling a small request; a
// goroutine that waits for the next function has its stack grown already.
package workpool

import (
	"sync"
	"sync/atomic"
	"time"
)

// DefaultMaxIdle is the number of idle workers a [Pool] keeps when [Options] name none.
const DefaultMaxIdle = 4

// Options configures a [Pool]. The zero value keeps [DefaultMaxIdle] idle workers until
// the pool is closed.
type Options struct {
	// MaxIdle bounds the workers that, having run a function, wait for the next one;
	// the others end. Zero means DefaultMaxIdle.
	MaxIdle int
	// IdleTimeout, when positive, ends a worker that has waited that long, so that a
	// pool nobody closes keeps no goroutine for long.
	IdleTimeout time.Duration
	// Done, when closed, ends the idle workers as [Pool.Close] does: a pool that serves
	// a connection ends with it.
	Done <-chan struct{}
}

// Pool runs each function given to [Pool.Go] on a goroutine of its own: an idle worker
// when one waits, a new goroutine otherwise.
type Pool struct {
	work    chan func() // hands a function to an idle worker; unbuffered
	done    <-chan struct{}
	quit    chan struct{} // closed by Close
	closing sync.Once
	maxIdle int32
	timeout time.Duration
	idle    atomic.Int32
	live    atomic.Int32 // workers, idle or not
	workers sync.WaitGroup
}

// New returns a pool.
func New(opts Options) *Pool {
	p := &Pool{work: make(chan func()), done: opts.Done, quit: make(chan struct{}),
		maxIdle: int32(opts.MaxIdle), timeout: opts.IdleTimeout}
	if p.maxIdle <= 0 {
		p.maxIdle = DefaultMaxIdle
	}
	return p
}

// Go runs f on an idle worker, or on a new goroutine when none is waiting. After Close,
// f still runs, on a goroutine that ends with it.
func (p *Pool) Go(f func()) {
	select {
	case p.work <- f:
	default:
		p.workers.Add(1)
		p.live.Add(1)
		go p.worker(f)
	}
}

// worker runs f, then waits for the next function while fewer than maxIdle wait, until
// the pool closes or it has waited for the idle timeout.
func (p *Pool) worker(f func()) {
	defer p.workers.Done()
	defer p.live.Add(-1)
	var timer *time.Timer
	var expired <-chan time.Time
	for {
		f()
		f = nil // not kept alive while idle
		if p.idle.Add(1) > p.maxIdle {
			p.idle.Add(-1)
			return
		}
		if p.timeout > 0 {
			if timer == nil {
				timer = time.NewTimer(p.timeout)
				expired = timer.C
			} else {
				timer.Reset(p.timeout)
			}
		}
		select {
		case f = <-p.work:
			p.idle.Add(-1)
		case <-expired:
			p.idle.Add(-1)
			return
		case <-p.done:
			p.idle.Add(-1)
			stop(timer)
			return
		case <-p.quit:
			p.idle.Add(-1)
			stop(timer)
			return
		}
	}
}

func stop(t *time.Timer) {
	if t != nil {
		t.Stop()
	}
}

// Close ends the idle workers; busy ones end when their function returns. It does not
// wait for them: [Pool.Wait] does.
func (p *Pool) Close() {
	p.closing.Do(func() { close(p.quit) })
}

// Wait waits until every worker has ended. Call it after [Pool.Close] (or once Done is
// closed), when no more functions are given to [Pool.Go].
func (p *Pool) Wait() { p.workers.Wait() }

// Live returns the number of workers, busy or idle.
func (p *Pool) Live() int { return int(p.live.Load()) }

// Idle returns the number of workers waiting for a function.
func (p *Pool) Idle() int { return int(p.idle.Load()) }
