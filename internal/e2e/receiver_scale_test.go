package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/transport"
)

// receiverBurst is how many receiver tasks the burst tests run at once.
const receiverBurst = 1000

// goroutineSlack is how many goroutines more than before a burst are tolerated after it:
// what stays for reuse whatever the number of tasks (each JSON-RPC connection keeps a few
// idle workers, and with both ends in this process there are two; an HTTP client keeps
// pooled connections). A leak of one goroutine per task would be a thousand.
const goroutineSlack = 25

// TestReceiverThousandTasks: 1,000 ask_user_task calls at once, each a client task
// answered by the user; every answer reaches its own call, nothing stays pending, the
// goroutines go back to what they were before the burst while the session is open, and
// closing the session frees the 1,000 tasks it kept (until their ttl) and its goroutines.
// The same number runs over every transport.
func TestReceiverThousandTasks(t *testing.T) {
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
		defer cancel()
		e := h.serve(t, requestorServer())
		settle()
		before := runtime.NumGoroutine()
		s := e.open(t, ctx, receiverClient(&client.ReceiverOptions{MaxActive: receiverBurst, PollInterval: 10 * time.Millisecond},
			func(ctx context.Context, r *client.Request) { r.Accept(map[string]any{"name": r.Task}) }))
		if _, err := s.ListTools(ctx, nil); err != nil { // so that the calls do not list the tools
			t.Fatal(err)
		}
		settle()
		open := runtime.NumGoroutine()

		var wg sync.WaitGroup
		errs := make(chan error, receiverBurst)
		ids := make(chan string, receiverBurst)
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
				if res.IsError || rep.Mode != demo.ModeTask || rep.Status != mcp.TaskStatusCompleted || er.Content["name"] != rep.TaskID {
					errs <- fmt.Errorf("task %s: %s", rep.TaskID, res.Content[0].Text)
					return
				}
				ids <- rep.TaskID
			})
		}
		wg.Wait()
		close(errs)
		close(ids)
		for err := range errs {
			t.Fatal(err)
		}
		distinct := map[string]bool{}
		for id := range ids {
			distinct[id] = true
		}
		if len(distinct) != receiverBurst {
			t.Errorf("%d distinct task ids for %d tasks", len(distinct), receiverBurst)
		}
		if n := len(s.PendingRequests()); n != 0 {
			t.Errorf("%d requests pending after every answer", n)
		}
		kept := s.ReceiverTasks()
		if len(kept) != receiverBurst {
			t.Errorf("%d tasks kept, want all %d until their ttl", len(kept), receiverBurst)
		}
		for _, task := range kept {
			if !distinct[task.TaskID] || task.Status != mcp.TaskStatusCompleted {
				t.Errorf("kept task %s is %s", task.TaskID, task.Status)
				break
			}
		}
		// Over HTTP the client keeps up to transport.MaxIdleConnsPerHost idle connections
		// while the session is open, each with two goroutines, and the server in this
		// process one more; they are closed with the session.
		pooled := 0
		if h.name == "http" {
			pooled = 3 * transport.MaxIdleConnsPerHost
		}
		waitGoroutines(t, ctx, "after the burst", open+pooled)

		s.Close()
		if n := len(s.ReceiverTasks()); n != 0 {
			t.Errorf("%d receiver tasks after the session closed", n)
		}
		waitGoroutines(t, ctx, "after the session closed", before)
	})
}

// settle lets finished goroutines go before they are counted.
func settle() {
	runtime.GC()
	for range 10 {
		runtime.Gosched()
	}
}

// waitGoroutines waits until no more than base+goroutineSlack goroutines run: goroutines
// end on their own schedule, which nothing announces.
func waitGoroutines(t *testing.T, ctx context.Context, when string, base int) {
	t.Helper()
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for runtime.NumGoroutine() > base+goroutineSlack {
		select {
		case <-wctx.Done():
			buf := make([]byte, 1<<20)
			t.Fatalf("%s: %d goroutines, %d before\n%s", when, runtime.NumGoroutine(), base, buf[:runtime.Stack(buf, true)])
		case <-tick.C:
		}
	}
}
