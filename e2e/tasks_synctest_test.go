package e2e

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
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
	srv := demo.New(&demo.Options{Tap: tap})
	t.Cleanup(srv.Close)
	c := client.New(mcp.Implementation{Name: "mcpi-e2e", Version: "0"}, nil)
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

// TestTaskPollCountSynctest: a 10 s task at the demo's pollInterval of 1 s is polled at
// most 10 times, each poll counted by the server.
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
		if n != int64(polls) || n < 9 || n > 10 {
			t.Errorf("%d tasks/get received, %d polls counted; want the same, 9 or 10 (one a second)", n, polls)
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
