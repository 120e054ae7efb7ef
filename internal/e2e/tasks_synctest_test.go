package e2e

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/tasks"
	"github.com/mcpi-dev/mcpi/transport"
)

// Task timing with the demo server's real defaults (pollInterval 1 s, short_ttl_task's
// 2 s cap, real sleeps) and the client's default options, in a synctest bubble: time is
// fake, so ten seconds pass at once. Over the in-memory pipe only: a bubble cannot hold a
// network connection or another process.

// bubbleSession connects a client with default options to a demo server with default
// task options (but for its tap), all inside the current bubble.
func bubbleSession(t *testing.T, tap func(*server.Session, jsonrpc.Direction, jsonrpc.Message)) *client.Session {
	t.Helper()
	return bubbleSessionWith(t, &demo.Options{Legacy: true, Tap: tap}, nil)
}

// bubbleSessionWith connects a client with options copts to a demo server with options
// dopts, inside the current bubble.
func bubbleSessionWith(t *testing.T, dopts *demo.Options, copts *client.Options) *client.Session {
	t.Helper()
	srv := demo.New(dopts)
	t.Cleanup(srv.Close)
	c := client.New(mcp.Implementation{Name: "mcpi-e2e", Version: "0"}, copts)
	s, err := c.Connect(t.Context(), transport.PipeTransport{Serve: func(ctx context.Context, conn jsonrpc.Connection) error {
		srv.Connect(ctx, conn)
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestTaskPollCountSynctest: a 10 s task at the demo's pollInterval of 1 s is polled 8
// or 9 times, as the client's 5 to 15% spread allows, and the server counts every poll
// the client counts.
func TestTaskPollCountSynctest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var gets atomic.Int64
		s := bubbleSession(t, func(_ *server.Session, dir jsonrpc.Direction, m jsonrpc.Message) {
			if r, ok := m.(*jsonrpc.Request); ok && dir == jsonrpc.Inbound && r.Method == mcp.MethodTasksGet {
				gets.Add(1)
			}
		})
		ctx := t.Context()
		start := time.Now()
		task, err := s.StartToolTask(ctx, toolParams(t, demo.ToolSleepTask, map[string]any{"seconds": 10}), nil)
		if err != nil {
			t.Fatal(err)
		}
		if pi := task.State().PollInterval; pi == nil || *pi != 1000 {
			t.Errorf("pollInterval %v, want the demo's default of 1000 ms", pi)
		}
		res, err := task.Wait(ctx)
		if err != nil || onlyText(t, res) != "slept 10s" {
			t.Fatalf("sleep_task: %+v, %v", res, err)
		}
		if d := time.Since(start); d != 10*time.Second {
			t.Errorf("the task took %s of bubble time, want 10s", d)
		}
		n, polls := gets.Load(), task.Polls()
		// One poll every 1.05 to 1.15 s (the client adds 5 to 15%): the 8th by 9.2 s, the
		// 9th between 9.45 and 10.35 s (after the 10 s end, the status notification has
		// already brought the result), no 10th before 10.5 s. So 8 or 9.
		if n != int64(polls) || n < 8 || n > 9 {
			t.Errorf("%d tasks/get received, %d polls counted; want the same, 8 or 9 (one every 1.05-1.15 s)", n, polls)
		}
	})
}

// TestNotificationsLearnedPerSessionSynctest: a 5 s task whose own status notification
// comes only at its end is not polled once another task of the session has shown that
// the server sends notifications, even though its first poll was already scheduled at the
// server's 1 s pollInterval.
func TestNotificationsLearnedPerSessionSynctest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var gets atomic.Int64
		s := bubbleSession(t, func(_ *server.Session, dir jsonrpc.Direction, m jsonrpc.Message) {
			if r, ok := m.(*jsonrpc.Request); ok && dir == jsonrpc.Inbound && r.Method == mcp.MethodTasksGet {
				gets.Add(1)
			}
		})
		ctx := t.Context()
		start := time.Now()
		long, err := s.StartToolTask(ctx, toolParams(t, demo.ToolSleepTask, map[string]any{"seconds": 5}), nil)
		if err != nil {
			t.Fatal(err)
		}
		quick, err := s.StartToolTask(ctx, toolParams(t, demo.ToolInstantTask, nil), nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := quick.Wait(ctx); err != nil {
			t.Fatal(err)
		}
		if res, err := long.Wait(ctx); err != nil || onlyText(t, res) != "slept 5s" {
			t.Fatalf("sleep_task: %+v, %v", res, err)
		}
		if d := time.Since(start); d != 5*time.Second {
			t.Errorf("the task took %s of bubble time, want 5s (its end is notified)", d)
		}
		if n := gets.Load(); n != 0 || long.Polls() != 0 {
			t.Errorf("%d tasks/get received (%d polls of the long task), want none: the server notifies", n, long.Polls())
		}
	})
}

// TestInstantTaskBurstSynctest: in a burst of 1,000 instant tasks, many status
// notifications overtake their CreateTaskResult; every one is kept for its task, so no
// task waits for a poll and none is polled.
func TestInstantTaskBurstSynctest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var gets atomic.Int64
		srv := demo.New(&demo.Options{
			Legacy: true,
			Tasks:  &tasks.Options{MaxActive: 2000, RatePerSecond: -1},
			Tap: func(_ *server.Session, dir jsonrpc.Direction, m jsonrpc.Message) {
				if r, ok := m.(*jsonrpc.Request); ok && dir == jsonrpc.Inbound && r.Method == mcp.MethodTasksGet {
					gets.Add(1)
				}
			},
		})
		t.Cleanup(srv.Close)
		s, err := client.New(mcp.Implementation{Name: "mcpi-e2e", Version: "0"}, nil).Connect(t.Context(), transport.PipeTransport{Serve: func(ctx context.Context, conn jsonrpc.Connection) error {
			srv.Connect(ctx, conn)
			return nil
		}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		ctx := t.Context()
		start := time.Now()
		const n = 1000
		errs := make(chan error, n)
		for range n {
			go func() {
				task, err := s.StartToolTask(ctx, toolParams(t, demo.ToolInstantTask, nil), nil)
				if err == nil {
					_, err = task.Wait(ctx)
				}
				errs <- err
			}()
		}
		for range n {
			if err := <-errs; err != nil {
				t.Fatal(err)
			}
		}
		if d := time.Since(start); d != 0 {
			t.Errorf("the burst took %s of bubble time, want none: no task waits for a poll", d)
		}
		if g := gets.Load(); g != 0 {
			t.Errorf("%d tasks/get received, want none", g)
		}
	})
}

// TestShortTTLTaskExpiresSynctest: short_ttl_task's tasks live 2 s from creation, whatever
// the client asks; the client, polling once a second, reports the task gone soon after.
func TestShortTTLTaskExpiresSynctest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := bubbleSession(t, nil)
		ctx := t.Context()
		start := time.Now()
		task, err := s.StartToolTask(ctx, toolParams(t, demo.ToolShortTTLTask, map[string]any{"seconds": 600}), &client.CallOptions{TTL: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		if ttl := task.State().TTL; ttl == nil || *ttl != 2000 {
			t.Errorf("ttl %v, want 2000", ttl)
		}
		<-task.Done()
		if _, err := task.Outcome(); !errors.Is(err, client.ErrTaskGone) {
			t.Errorf("outcome %v, want gone", err)
		}
		if d := time.Since(start); d < 2*time.Second || d > 3*time.Second {
			t.Errorf("gone after %s, want between 2s and 3s", d)
		}
		if _, err := s.GetTask(ctx, task.ID()); rpcCode(err) != jsonrpc.CodeInvalidParams {
			t.Errorf("tasks/get: %v, want -32602", err)
		}
	})
}

// TestEndedTasksForgottenSynctest: a session keeps the newest KeptTasks ended tasks and
// forgets older ones, so a long session does not grow with every task; a forgotten task
// can still be followed again by id.
func TestEndedTasksForgottenSynctest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := demo.New(&demo.Options{Legacy: true}) // instant_task is a task when the client asks
		t.Cleanup(srv.Close)
		s, err := client.New(mcp.Implementation{Name: "mcpi-e2e", Version: "0"}, &client.Options{KeptTasks: 3}).Connect(t.Context(), transport.PipeTransport{Serve: func(ctx context.Context, conn jsonrpc.Connection) error {
			srv.Connect(ctx, conn)
			return nil
		}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		ctx := t.Context()
		var ids []string
		for range 5 {
			task, err := s.StartToolTask(ctx, toolParams(t, demo.ToolInstantTask, nil), nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := task.Wait(ctx); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, task.ID())
		}
		running, err := s.StartToolTask(ctx, toolParams(t, demo.ToolSleepTask, map[string]any{"seconds": 5}), nil)
		if err != nil {
			t.Fatal(err)
		}
		var kept []string
		for _, task := range s.Tasks() {
			kept = append(kept, task.ID())
		}
		want := append(append([]string(nil), ids[2:]...), running.ID())
		if !slices.Equal(kept, want) {
			t.Errorf("Tasks() = %v, want the 3 newest ended tasks and the running one %v", kept, want)
		}
		again, err := s.FollowTask(ctx, ids[0])
		if err != nil {
			t.Fatalf("following a forgotten task by id: %v", err)
		}
		if res, err := again.Wait(ctx); err != nil || len(res.Content) == 0 {
			t.Errorf("the forgotten task's outcome, fetched again: %+v, %v", res, err)
		}
		if _, err := running.Wait(ctx); err != nil {
			t.Fatal(err)
		}
	})
}

// TestExtTaskExpiresWhileWorkingSynctest: in 2026-07-28, a task whose ttl passes while
// it works (short_ttl_task's 2 s, a 10 s sleep) is deleted by the server, which ends the
// task's subscriptions/listen stream then (nothing more can come of the task); the
// client learns at its next poll that the task is gone, long before the sleep would
// have ended, and withdraws nothing.
func TestExtTaskExpiresWhileWorkingSynctest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var listenEnded, withdrawn atomic.Int32
		s := bubbleSessionWith(t, &demo.Options{Tap: func(_ *server.Session, dir jsonrpc.Direction, m jsonrpc.Message) {
			switch m := m.(type) {
			case *jsonrpc.Response:
				if dir == jsonrpc.Outbound && m.Error == nil && strings.Contains(string(m.Result), mcp.MetaSubscriptionID) {
					listenEnded.Add(1)
				}
			case *jsonrpc.Request:
				if dir == jsonrpc.Inbound && m.Method == mcp.NotificationCancelled {
					withdrawn.Add(1)
				}
			}
		}}, &client.Options{ProtocolVersion: mcp.ProtocolVersion20260728})
		start := time.Now()
		_, _, err := s.RunToolTask(t.Context(), toolParams(t, demo.ToolShortTTLTask, map[string]any{"seconds": 10}), nil)
		if !errors.Is(err, client.ErrTaskGone) {
			t.Fatalf("outcome %v, want the task gone", err)
		}
		if d := time.Since(start); d > 4*time.Second {
			t.Errorf("the client learned of the deletion after %s of bubble time, want within a poll of the 2 s ttl", d)
		}
		synctest.Wait()
		if n := listenEnded.Load(); n != 1 {
			t.Errorf("the server ended %d listen streams, want the task's one", n)
		}
		if n := withdrawn.Load(); n != 0 {
			t.Errorf("the client withdrew %d requests", n)
		}
	})
}
