package client

import (
	"context"
	"encoding/json"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/transport"
)

// The server's polls of receiver tasks are counted per task and published as
// ReceiverPollEvents, and the count outlives the answer; the bookkeeping forgets the
// tasks the engine has dropped, so it stays bounded by the tasks kept.
func TestReceiverPollsCountedAndForgotten(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := server.New(mcp.Implementation{Name: "requestor", Version: "1"}, nil)
		var ss *server.Session
		tr := transport.PipeTransport{Serve: func(ctx context.Context, conn jsonrpc.Connection) error {
			ss = srv.Connect(ctx, conn)
			return nil
		}}
		cs, err := New(mcp.Implementation{Name: "t", Version: "1"}, &Options{
			Receiver:  &ReceiverOptions{DefaultTTL: time.Minute, MaxActive: 1000},
			OnRequest: func(ctx context.Context, r *Request) { r.Decline() },
		}).Connect(t.Context(), tr)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		sub := cs.Subscribe()
		defer sub.Close()
		ctx := t.Context()
		form := &mcp.ElicitParams{Message: "?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{}}`)}

		ct, err := ss.ElicitTask(ctx, form, 0)
		if err != nil {
			t.Fatal(err)
		}
		synctest.Wait() // answered
		for want := 1; want <= 3; want++ {
			if _, err := ct.Get(ctx); err != nil {
				t.Fatal(err)
			}
			var ev *ReceiverPollEvent
			for e := range sub.All(ctx) {
				if p, ok := e.(*ReceiverPollEvent); ok {
					ev = p
					break
				}
			}
			if ev == nil || ev.Polls != want || ev.Task.TaskID != ct.Created.TaskID || ev.Task.Status != mcp.TaskStatusCompleted ||
				ev.Request == nil || ev.Request.Task != ct.Created.TaskID {
				t.Fatalf("poll %d: event %+v", want, ev)
			}
		}
		if n := cs.ReceiverPolls(ct.Created.TaskID); n != 3 {
			t.Errorf("ReceiverPolls = %d, want 3", n)
		}
		if n := cs.ReceiverPolls("unknown"); n != 0 {
			t.Errorf("ReceiverPolls of an unknown task = %d", n)
		}

		// The server fetches the answer: the event carries it as it was sent.
		var answer mcp.ElicitResult
		if err := ct.Result(ctx, &answer); err != nil || answer.Action != mcp.ElicitActionDecline {
			t.Fatalf("tasks/result: %+v, %v", answer, err)
		}
		var fetched *ReceiverResultEvent
		for e := range sub.All(ctx) {
			if f, ok := e.(*ReceiverResultEvent); ok {
				fetched = f
				break
			}
		}
		if fetched == nil || fetched.Task != ct.Created.TaskID || fetched.Err != nil || fetched.Request == nil || fetched.Request.Task != ct.Created.TaskID {
			t.Fatalf("result event: %+v", fetched)
		}
		var sent mcp.ElicitResult
		if err := json.Unmarshal(fetched.Result, &sent); err != nil || sent.Action != mcp.ElicitActionDecline {
			t.Errorf("the event's result %s: %v", fetched.Result, err)
		}
		if id, _ := sent.Meta.RelatedTask(); id != ct.Created.TaskID {
			t.Errorf("the result sent lacks its related-task _meta: %s", fetched.Result)
		}

		// 300 tasks, all expired after a minute; as more tasks come, the entries of the
		// expired ones are swept.
		for range 300 {
			if _, err := ss.ElicitTask(ctx, form, 0); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(2 * time.Minute)
		synctest.Wait()
		for range 300 {
			if _, err := ss.ElicitTask(ctx, form, 0); err != nil {
				t.Fatal(err)
			}
		}
		cs.polled.mu.Lock()
		n := len(cs.polled.byID)
		cs.polled.mu.Unlock()
		if live := len(cs.ReceiverTasks()); n != 300 || live != 300 {
			t.Errorf("%d poll entries kept for %d live tasks, want 300 and 300", n, live)
		}
	})
}

// TestReceiverOutcomeNotHTMLEscaped: an answer is stored as it goes on the wire, without
// the HTML escaping of json.Marshal ("<" is not written as \u003c).
func TestReceiverOutcomeNotHTMLEscaped(t *testing.T) {
	out := receiverOutcome(&mcp.ElicitResult{Action: "accept", Content: map[string]any{"note": "<b>&</b>"}}, nil)
	if out.Error != nil {
		t.Fatal(out.Error)
	}
	if got, want := string(out.Result), `{"action":"accept","content":{"note":"<b>&</b>"}}`; got != want {
		t.Errorf("stored answer %s, want %s", got, want)
	}
}
