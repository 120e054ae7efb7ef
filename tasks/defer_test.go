package tasks

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// A deferred task runs no goroutine: Finish completes it, and stop tells the work that
// the task ended first (cancel, expiry, close), once.
func TestDeferFinishAndStop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := New(Options{})
		var stops atomic.Int32
		done, ctx, h, err := m.Defer("a", ms(time.Minute), func() { stops.Add(1) })
		if err != nil {
			t.Fatal(err)
		}
		if done.Status != mcp.TaskStatusWorking {
			t.Fatalf("status %s", done.Status)
		}
		h.Finish(Outcome{Result: []byte(`{"ok":true}`)})
		h.Finish(Outcome{Result: []byte(`{"twice":true}`)})
		out, err := m.Result(context.Background(), "a", done.TaskID, jsonrpc.ID{})
		if err != nil || string(out.Result) != `{"ok":true}` {
			t.Fatalf("result %s, %v", out.Result, err)
		}
		if ctx.Err() == nil {
			t.Error("the task's context outlived Finish")
		}
		if _, err := m.Cancel("a", done.TaskID, ""); !errors.Is(err, ErrTerminal) {
			t.Errorf("cancel after finish: %v", err)
		}

		// Cancelled first: stop is called once, and the later outcome is dropped.
		cancelled, ctx, h, err := m.Defer("a", nil, func() { stops.Add(1) })
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Cancel("a", cancelled.TaskID, ""); err != nil {
			t.Fatal(err)
		}
		if ctx.Err() == nil || stops.Load() != 1 {
			t.Fatalf("after cancel: ctx %v, %d stops", ctx.Err(), stops.Load())
		}
		h.Finish(Outcome{Result: []byte(`{}`)})
		if st, _ := m.Get("a", cancelled.TaskID); st.Status != mcp.TaskStatusCancelled {
			t.Errorf("status %s after a late Finish, want cancelled", st.Status)
		}

		// Expired first.
		expired, _, h2, err := m.Defer("a", ms(time.Second), func() { stops.Add(1) })
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Second)
		synctest.Wait()
		if stops.Load() != 2 {
			t.Fatalf("%d stops after expiry, want 2", stops.Load())
		}
		h2.Finish(Outcome{})
		if _, err := m.Get("a", expired.TaskID); !errors.Is(err, ErrNotFound) {
			t.Errorf("expired task: %v", err)
		}

		// Close stops the rest and waits for their Finish.
		var h3 *Handle
		_, _, h3, err = m.Defer("a", nil, func() { stops.Add(1); h3.Finish(Outcome{}) })
		if err != nil {
			t.Fatal(err)
		}
		m.Close()
		if stops.Load() != 3 {
			t.Errorf("%d stops after close, want 3", stops.Load())
		}
	})
}
