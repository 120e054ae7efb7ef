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

// Stuck answers the task-augmented method Create with a task that stays working, as
// Task, and every tasks/get with it, counting the polls.
type Stuck struct {
	Create string
	Task   mcp.Task

	mu    sync.Mutex
	polls int
	flood chan struct{} // closed at the hundredth poll
}

// NewStuck returns a Stuck whose task suggests pollInterval and ttl (milliseconds; nil:
// unlimited).
func NewStuck(create string, pollInterval int64, ttl *int64) *Stuck {
	now := mcp.FormatTime(time.Now())
	return &Stuck{
		Create: create,
		Task: mcp.Task{TaskID: "stuck", Status: mcp.TaskStatusWorking, CreatedAt: now, LastUpdatedAt: now,
			PollInterval: &pollInterval, TTL: ttl},
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
// before, sends no poll within quiet and one or two by by; stop ends the follower when it
// polls nonstop, which never lets the bubble's clock move.
func (s *Stuck) ExpectPolls(t testing.TB, quiet, by time.Duration, stop func()) {
	t.Helper()
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
