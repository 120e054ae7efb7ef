package client

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/tasks"
	"github.com/mcpi-dev/mcpi/transport"
)

// A task that only waits has no goroutine of its own, and one that ends on news that
// needs no waiting is settled where the news arrives: these tests look at whether a
// follower was ever started (follow.go). Their outcomes and events are the subject of
// the other tests; here, only the follower.

// hadFollower reports whether a follower goroutine was started for the task.
func (t *Task) hadFollower() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.following
}

// parked reports whether the task waits for its scheduled poll, with no follower.
func (t *Task) parked() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.poll != nil && !t.following
}

// dropStatus is a server's connection that sends no notifications/tasks/status.
type dropStatus struct{ jsonrpc.Connection }

func (d dropStatus) Write(ctx context.Context, m jsonrpc.Message) error {
	if r, ok := m.(*jsonrpc.Request); ok && r.Method == mcp.NotificationTasksStatus {
		return nil
	}
	return d.Connection.Write(ctx, m)
}

type parkServer struct {
	srv     *server.Server
	session chan *server.Session
	release chan struct{}
	silent  bool         // no status notifications
	listens atomic.Int64 // subscriptions/listen requests read
}

// newParkServer serves "instant" (done at once), "held" (done once release is closed)
// and, in 2026-07-28, "instant_ext" (a task of the extension from the start) and
// "soon_ext" (the same, done 5 ms after it began).
func newParkServer(t *testing.T) *parkServer {
	p := &parkServer{
		session: make(chan *server.Session, 1),
		release: make(chan struct{}),
	}
	p.srv = server.New(mcp.Implementation{Name: "s", Version: "1"}, &server.Options{
		// MaxActive: the bursts start 200 tasks at once, which may all be running.
		Tasks:  &tasks.Options{PollInterval: time.Second, MaxActive: 1000},
		Modern: true,
		Tap: func(_ *server.Session, dir jsonrpc.Direction, m jsonrpc.Message) {
			if r, ok := m.(*jsonrpc.Request); ok && dir == jsonrpc.Inbound && r.Method == mcp.MethodSubscriptionsListen {
				p.listens.Add(1)
			}
		},
	})
	t.Cleanup(func() { p.srv.Close() })
	optional := &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}
	done := func(context.Context, *server.ToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("done")}}, nil
	}
	p.srv.AddTool(&mcp.Tool{Name: "instant", Execution: optional}, done)
	p.srv.AddToolWith(&mcp.Tool{Name: "instant_ext", Execution: optional}, done, &server.ToolOptions{TaskPolicy: server.TaskAlways})
	p.srv.AddToolWith(&mcp.Tool{Name: "soon_ext", Execution: optional}, func(ctx context.Context, _ *server.ToolRequest) (*mcp.CallToolResult, error) {
		time.Sleep(5 * time.Millisecond) // past the server's wait for quick work: reported working
		return done(ctx, nil)
	}, &server.ToolOptions{TaskPolicy: server.TaskAlways})
	p.srv.AddTool(&mcp.Tool{Name: "held", Execution: optional}, func(ctx context.Context, _ *server.ToolRequest) (*mcp.CallToolResult, error) {
		select {
		case <-p.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return done(ctx, nil)
	})
	return p
}

func (p *parkServer) connect(t *testing.T, version string) *Session {
	t.Helper()
	tr := transport.PipeTransport{Serve: func(ctx context.Context, conn jsonrpc.Connection) error {
		if p.silent {
			conn = dropStatus{conn}
		}
		p.session <- p.srv.Connect(ctx, conn)
		return nil
	}}
	s, err := New(mcp.Implementation{Name: "c", Version: "1"}, &Options{ProtocolVersion: version}).Connect(t.Context(), tr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func waitDone(t *testing.T, task *Task) (*mcp.CallToolResult, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	return task.Wait(ctx)
}

// TestEndedTaskSettledWithoutFollower: a task whose end is notified (before or after
// its CreateTaskResult) has its result fetched and settled with no follower, and is
// never polled.
func TestEndedTaskSettledWithoutFollower(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newParkServer(t).connect(t, mcp.LatestProtocolVersion)
		for range 20 {
			task, err := s.StartToolTask(t.Context(), &mcp.CallToolParams{Name: "instant"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			res, err := waitDone(t, task)
			if err != nil || len(res.Content) != 1 || res.Content[0].Text != "done" {
				t.Fatalf("outcome: %+v, %v", res, err)
			}
			if task.hadFollower() || task.Polls() != 0 {
				t.Fatalf("follower %v, %d polls; want none", task.hadFollower(), task.Polls())
			}
		}
	})
}

// TestWaitingTaskParked: a task that is working waits on a timer, not a goroutine;
// its notified end settles it before any poll. Without notifications, its early
// tasks/result brings the outcome, and with it the final status, when the task ends; a
// task beyond the limit of early waits has its timer start the follower, which polls at
// the interval.
func TestWaitingTaskParked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newParkServer(t)
		s := p.connect(t, mcp.LatestProtocolVersion)
		task, err := s.StartToolTask(t.Context(), &mcp.CallToolParams{Name: "held"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if !task.parked() {
			t.Fatal("a working task has no poll timer, or has a follower")
		}
		close(p.release)
		if _, err := waitDone(t, task); err != nil {
			t.Fatal(err)
		}
		if task.hadFollower() || task.Polls() != 0 {
			t.Errorf("notified end: follower %v, %d polls; want none", task.hadFollower(), task.Polls())
		}

		p = newParkServer(t)
		p.silent = true
		s = p.connect(t, mcp.LatestProtocolVersion)
		var held []*Task
		for range maxWaitsLocal + 1 {
			task, err := s.StartToolTask(t.Context(), &mcp.CallToolParams{Name: "held"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			held = append(held, task)
		}
		synctest.Wait()
		for i, task := range held {
			if !task.parked() {
				t.Fatalf("silent server, task %d: no poll timer, or a follower", i)
			}
		}
		close(p.release) // before the first poll is due

		for i, task := range held {
			res, err := waitDone(t, task)
			if err != nil || len(res.Content) != 1 || res.Content[0].Text != "done" {
				t.Fatalf("silent server, task %d: %v, %v", i, res, err)
			}
			if st := task.State().Status; st != mcp.TaskStatusCompleted {
				t.Errorf("silent server, task %d: status %s, want completed", i, st)
			}
			early := i < maxWaitsLocal
			switch {
			case early && (task.hadFollower() || task.Polls() != 0):
				t.Errorf("silent server, task %d (early wait): follower %v, %d polls; want none: its tasks/result tells the end", i, task.hadFollower(), task.Polls())
			case !early && (!task.hadFollower() || task.Polls() < 1):
				t.Errorf("silent server, task %d (past the limit): follower %v, %d polls; want the follower's polls", i, task.hadFollower(), task.Polls())
			}
		}
	})
}

// TestParkedTaskEndsWithTheConnection: a task waiting with no follower ends when the
// connection does.
func TestParkedTaskEndsWithTheConnection(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newParkServer(t)
		s := p.connect(t, mcp.LatestProtocolVersion)
		ss := <-p.session
		task, err := s.StartToolTask(t.Context(), &mcp.CallToolParams{Name: "held"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		ss.Close()
		if _, err := waitDone(t, task); !errors.Is(err, jsonrpc.ErrClosed) {
			t.Fatalf("outcome error %v, want the connection's end", err)
		}
		if task.hadFollower() {
			t.Error("a follower was started")
		}
		close(p.release)
	})
}

// TestExtTaskEndedAtCreation: in 2026-07-28 a task whose CreateTaskResult says it has
// ended (mcpi's server says so of work done within its first millisecond) is settled
// by one tasks/get, with no follower and no subscriptions/listen.
func TestExtTaskEndedAtCreation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newParkServer(t)
		s := p.connect(t, mcp.ProtocolVersion20260728)
		for range 5 {
			task, err := s.StartToolTask(t.Context(), &mcp.CallToolParams{Name: "instant_ext"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			res, err := waitDone(t, task)
			if err != nil || len(res.Content) != 1 || res.Content[0].Text != "done" {
				t.Fatalf("outcome: %+v, %v", res, err)
			}
			if task.hadFollower() || task.Polls() != 1 {
				t.Fatalf("follower %v, %d polls; want none and one tasks/get", task.hadFollower(), task.Polls())
			}
		}
		synctest.Wait()
		if n := p.listens.Load(); n != 0 {
			t.Fatalf("%d subscriptions/listen for tasks that had ended when created", n)
		}
	})
}

// TestExtTaskSettledOnItsNotification: in 2026-07-28 a task that ends soon after it was
// created is settled by the notification of its subscriptions/listen, which is
// withdrawn after, with no follower and no tasks/get.
func TestExtTaskSettledOnItsNotification(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newParkServer(t)
		s := p.connect(t, mcp.ProtocolVersion20260728)
		for i := range 5 {
			task, err := s.StartToolTask(t.Context(), &mcp.CallToolParams{Name: "soon_ext"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if task.Dialect() != DialectExtension {
				t.Fatalf("dialect %s", task.Dialect())
			}
			res, err := waitDone(t, task)
			if err != nil || len(res.Content) != 1 || res.Content[0].Text != "done" {
				t.Fatalf("outcome: %+v, %v", res, err)
			}
			if task.hadFollower() || task.Polls() != 0 {
				t.Fatalf("follower %v, %d polls; want none", task.hadFollower(), task.Polls())
			}
			if n := p.listens.Load(); n != int64(i+1) {
				t.Fatalf("%d subscriptions/listen for %d tasks", n, i+1)
			}
			synctest.Wait()
			if n := p.srv.Listeners(); n != 0 {
				t.Fatalf("%d subscriptions/listen still open after the task ended", n)
			}
			// The session keeps the ended task for Tasks; what following it needed is gone.
			task.mu.Lock()
			listen, detail := task.listen, task.detail
			task.mu.Unlock()
			if listen != nil || detail != nil {
				t.Fatalf("the ended task still holds its stream (%v) or its detailed state (%v)", listen != nil, detail != nil)
			}
			if kept := s.Tasks(); !slices.Contains(kept, task) {
				t.Fatalf("Session.Tasks() has %d tasks, not the one that ended", len(kept))
			}
			if _, err := task.Outcome(); err != nil {
				t.Fatalf("the kept task's outcome: %v", err)
			}
		}
	})
}

// pollsQueued is how many polls the session's queue holds, withdrawn ones included, how
// many of them are live, and how many times its timer was armed.
func (s *Session) pollsQueued() (entries, live, arms int) {
	q := &s.tasks.polls
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.h), len(q.h) - q.withdrawn, q.arms
}

// TestParkedTasksShareOneTimer: the parked tasks of a session wait behind one timer; a
// task that ends leaves the queue, which sheds what was withdrawn once that is most of
// it; the polls of the rest come at the interval.
func TestParkedTasksShareOneTimer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newParkServer(t)
		p.silent = true
		s := p.connect(t, mcp.LatestProtocolVersion)
		const n = 100
		var held []*Task
		for range n {
			task, err := s.StartToolTask(t.Context(), &mcp.CallToolParams{Name: "held"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			held = append(held, task)
		}
		synctest.Wait()
		// A poll's time has a random part: the timer is armed again only for a poll due
		// before every one queued so far (about ln n times, far from n).
		if entries, live, arms := s.pollsQueued(); entries != n || live != n || arms < 1 || arms > n/4 {
			t.Fatalf("%d tasks parked: %d polls queued, %d live, timer armed %d times; want %d, %d, and a few arms", n, entries, live, arms, n, n)
		}
		const cancelled = 80
		for _, task := range held[:cancelled] {
			if _, err := task.Cancel(t.Context()); err != nil {
				t.Fatal(err)
			}
			if _, err := waitDone(t, task); !errors.Is(err, ErrTaskCancelled) {
				t.Fatalf("cancelled task: %v", err)
			}
		}
		entries, live, _ := s.pollsQueued()
		if live != n-cancelled || entries >= n {
			t.Errorf("after %d of %d ended: %d polls queued, %d live; want %d live, the withdrawn shed", cancelled, n, entries, live, n-cancelled)
		}
		close(p.release)
		for i, task := range held[cancelled:] {
			res, err := waitDone(t, task)
			if err != nil || len(res.Content) != 1 || res.Content[0].Text != "done" {
				t.Fatalf("task %d: %v, %v", cancelled+i, res, err)
			}
		}
		for i, task := range held[cancelled+maxWaitsLocal:] {
			if task.Polls() < 1 {
				t.Errorf("task %d (no early wait) ended with no poll", cancelled+maxWaitsLocal+i)
			}
		}
		if entries, live, _ := s.pollsQueued(); live != 0 {
			t.Errorf("all ended: %d polls queued, %d live; want none live", entries, live)
		}
	})
}
