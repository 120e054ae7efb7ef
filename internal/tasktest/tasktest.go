// Package tasktest has what the tests of mcpi's two task followers share (the client's,
// of the tasks it asks of a server, and the server's, of those it asks of a client): a
// peer whose one task never ends, and that counts the follower's polls.
package tasktest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// HugeInterval is a pollInterval too large to multiply into a time.Duration, the ttl of
// its task (milliseconds; nil: unlimited), and when [Stuck.ExpectPolls] expects the first
// poll: none within Quiet, one by By.
type HugeInterval struct {
	Name      string
	Interval  int64
	TTL       *int64
	Quiet, By time.Duration
}

// HugeIntervals are the cases both followers meet, bounding the interval by a minute and
// by the task's ttl: once, some wrapped negative and had a follower poll nonstop, and
// others made it wait for years.
var HugeIntervals = []HugeInterval{
	{"292 years", 9_223_372_036_854, nil, 5 * time.Second, 2 * time.Minute},
	{"wraps with jitter", 9e12, nil, 5 * time.Second, 2 * time.Minute},
	{"overflows", 1e13, nil, 5 * time.Second, 2 * time.Minute},
	{"31 years", 1e12, nil, 5 * time.Second, 2 * time.Minute},
	{"31 years, ttl 10s", 1e12, new(int64(10_000)), 5 * time.Second, 12 * time.Second},
}

// Stuck answers the task-augmented method Create with a task that stays working, as
// Task, and every tasks/get with it, counting the polls.
type Stuck struct {
	Create string
	Task   mcp.Task

	mu    sync.Mutex
	polls int
	flood chan struct{} // closed at the hundredth poll
}

// NewStuck returns a Stuck whose task suggests the interval and ttl of c.
func NewStuck(create string, c HugeInterval) *Stuck {
	now := mcp.FormatTime(time.Now())
	return &Stuck{
		Create: create,
		Task: mcp.Task{TaskID: "stuck", Status: mcp.TaskStatusWorking, CreatedAt: now, LastUpdatedAt: now,
			PollInterval: &c.Interval, TTL: c.TTL},
		flood: make(chan struct{}),
	}
}

// Handle is a [jsonrpc.HandlerFunc].
func (s *Stuck) Handle(_ context.Context, req *jsonrpc.Request) (any, error) {
	switch req.Method {
	case s.Create:
		return &mcp.CreateTaskResult{Task: s.Task}, nil
	case mcp.MethodTasksGet:
		s.mu.Lock()
		s.polls++
		if s.polls == 100 {
			close(s.flood)
		}
		s.mu.Unlock()
		return &mcp.GetTaskResult{Task: s.Task}, nil
	}
	return nil, jsonrpc.ErrMethodNotFound
}

// Polls counts the tasks/get so far.
func (s *Stuck) Polls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.polls
}

// ExpectPolls checks, in a synctest bubble, that the follower of the task, started just
// before, sends no poll within c.Quiet and one or two by c.By; stop ends the follower
// when it polls nonstop, which never lets the bubble's clock move.
func (s *Stuck) ExpectPolls(t testing.TB, c HugeInterval, stop func()) {
	t.Helper()
	quiet, by := c.Quiet, c.By
	select {
	case <-s.flood:
		stop()
		t.Fatalf("the follower polls nonstop with a pollInterval of %d ms", *s.Task.PollInterval)
	case <-time.After(quiet):
	}
	if n := s.Polls(); n > 0 {
		t.Fatalf("%d polls within %s of a pollInterval of %d ms", n, quiet, *s.Task.PollInterval)
	}
	time.Sleep(by - quiet)
	if n := s.Polls(); n < 1 || n > 2 {
		t.Errorf("%d polls within %s, want 1 or 2", n, by)
	}
}
