package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/transport"
)

// Receiver task timing in a synctest bubble (pipe only): the demo server and a client
// with receiver tasks, the client's real default pollInterval (1 s) unless a test says
// otherwise, and fake time, so that ttl expiry and polling take no real time.

// receiverBubble connects a client with options opts to a default demo server, both in
// the current bubble.
func receiverBubble(t *testing.T, opts *client.Options) *client.Session {
	t.Helper()
	srv := demo.New(&demo.Options{Legacy: true}) // receiver tasks are of 2025-11-25
	t.Cleanup(srv.Close)
	s, err := client.New(mcp.Implementation{Name: "mcpi-e2e", Version: "0"}, opts).Connect(t.Context(),
		transport.PipeTransport{Serve: func(ctx context.Context, conn jsonrpc.Connection) error {
			srv.Connect(ctx, conn)
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if _, err := s.ListTools(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestReceiverPollsSynctest: at the client's default pollInterval of 1 s, a question the
// user answers after 10.5 s is polled exactly 11 times (10 "working", then "completed"),
// and the call ends at 11 s; the client counts the same polls.
func TestReceiverPollsSynctest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := receiverBubble(t, &client.Options{Receiver: &client.ReceiverOptions{}})
		ctx := t.Context()
		sub := s.Subscribe()
		defer sub.Close()
		start := time.Now()
		done := asyncCall(ctx, s, &mcp.CallToolParams{Name: demo.ToolAskUserTask})
		r := nextRequest(t, ctx, sub)
		time.Sleep(10500 * time.Millisecond)
		if n := s.ReceiverPolls(r.Task); n != 10 {
			t.Errorf("%d polls in 10.5 s at 1 s, want 10", n)
		}
		r.Accept(map[string]any{"name": "Ada"})
		res := await(t, ctx, done)
		rep := report(t, res)
		if res.IsError || rep.Polls != 11 || rep.PollIntervalMs != 1000 || rep.Status != mcp.TaskStatusCompleted {
			t.Errorf("report: %s", onlyText(t, res))
		}
		if d := time.Since(start); d != 11*time.Second {
			t.Errorf("the call took %s of bubble time, want 11s", d)
		}
		if n := s.ReceiverPolls(r.Task); n != 11 {
			t.Errorf("the client counts %d polls, want 11", n)
		}
	})
}

// TestReceiverTTLExpirySynctest: a client whose tasks live 5.5 s by default. The question
// is withdrawn at 5.5 s exactly, and the server's sixth poll, at 6 s, finds the task
// unknown (-32602).
func TestReceiverTTLExpirySynctest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := receiverBubble(t, &client.Options{Receiver: &client.ReceiverOptions{DefaultTTL: 5500 * time.Millisecond}})
		ctx := t.Context()
		sub := s.Subscribe()
		defer sub.Close()
		start := time.Now()
		done := asyncCall(ctx, s, &mcp.CallToolParams{Name: demo.ToolAskUserTask})
		r := nextRequest(t, ctx, sub)
		ev := settled(t, ctx, sub, r)
		if d := ev.Time.Sub(start); d != 5500*time.Millisecond || !r.Withdrawn() {
			t.Errorf("question settled after %s (withdrawn %v), want withdrawn at the ttl, 5.5s", d, r.Withdrawn())
		}
		if n := len(s.ReceiverTasks()); n != 0 {
			t.Errorf("%d tasks kept past their ttl", n)
		}
		res := await(t, ctx, done)
		rep := report(t, res)
		if !res.IsError || rep.Polls != 6 || rep.ErrorFrom != mcp.MethodTasksGet || !errorIs(rep.Error, jsonrpc.CodeInvalidParams) {
			t.Errorf("report: %s", onlyText(t, res))
		}
		if c := rep.Created; c == nil || c.TTL == nil || *c.TTL != 5500 {
			t.Errorf("created %+v, want ttl 5500", c)
		}
		if d := time.Since(start); d != 6*time.Second {
			t.Errorf("the call took %s of bubble time, want 6s", d)
		}
	})
}

// TestReceiverThousandTasksSynctest: 1,000 client tasks at once, answered at once, polled
// once each a second later; the goroutines go back to what they were, and when the ttl
// has passed the client holds no task at all, with the session still open.
func TestReceiverThousandTasksSynctest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := receiverBubble(t, &client.Options{
			Receiver:  &client.ReceiverOptions{MaxActive: receiverBurst, DefaultTTL: time.Minute},
			OnRequest: func(ctx context.Context, r *client.Request) { r.Accept(map[string]any{"name": r.Task}) },
		})
		ctx := t.Context()
		synctest.Wait()
		base := runtime.NumGoroutine()
		start := time.Now()
		var wg sync.WaitGroup
		errs := make(chan error, receiverBurst)
		for range receiverBurst {
			wg.Go(func() {
				res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: demo.ToolAskUserTask}, nil)
				if err != nil {
					errs <- err
					return
				}
				var rep demo.ClientTaskReport
				json.Unmarshal(res.StructuredContent, &rep)
				var er mcp.ElicitResult
				json.Unmarshal(rep.Result, &er)
				if res.IsError || rep.Polls != 1 || er.Content["name"] != rep.TaskID {
					errs <- fmt.Errorf("%s", res.Content[0].Text)
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		if d := time.Since(start); d != time.Second {
			t.Errorf("1,000 tasks took %s of bubble time, want 1s (one poll each)", d)
		}
		if n := len(s.ReceiverTasks()); n != receiverBurst {
			t.Errorf("%d tasks kept, want %d until their ttl", n, receiverBurst)
		}
		synctest.Wait()
		if g := runtime.NumGoroutine(); g > base+goroutineSlack {
			t.Errorf("%d goroutines after the burst, %d before", g, base)
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		if n, p := len(s.ReceiverTasks()), len(s.PendingRequests()); n != 0 || p != 0 {
			t.Errorf("%d tasks and %d requests left after the ttl", n, p)
		}
		if g := runtime.NumGoroutine(); g > base+goroutineSlack {
			t.Errorf("%d goroutines after the ttl, %d before", g, base)
		}
		var list demo.ClientTaskList
		json.Unmarshal([]byte(onlyText(t, call(t, ctx, s, demo.ToolListClientTasks, nil))), &list)
		if len(list.Tasks) != 0 {
			t.Errorf("the server lists %d client tasks after their ttl", len(list.Tasks))
		}
	})
}
