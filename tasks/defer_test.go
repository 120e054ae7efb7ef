package tasks

import (
	"context"
	"errors"
	"reflect"
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
		h, err := m.Defer("a", ms(time.Minute), func() { stops.Add(1) })
		if err != nil {
			t.Fatal(err)
		}
		done, ctx := h.Created(), h.Context()
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
		h, err = m.Defer("a", nil, func() { stops.Add(1) })
		if err != nil {
			t.Fatal(err)
		}
		cancelled, ctx := h.Created(), h.Context()
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
		h2, err := m.Defer("a", ms(time.Second), func() { stops.Add(1) })
		if err != nil {
			t.Fatal(err)
		}
		expired := h2.Created()
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
		h3, err = m.Defer("a", nil, func() { stops.Add(1); h3.Finish(Outcome{}) })
		if err != nil {
			t.Fatal(err)
		}
		m.Close()
		if stops.Load() != 3 {
			t.Errorf("%d stops after close, want 3", stops.Load())
		}
	})
}

// The handle reports the task as created, whatever happened to it since, and that is
// what Get said at creation.
func TestHandleCreated(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := New(Options{})
		defer m.Close()
		unlimited := New(Options{DefaultTTL: -1})
		defer unlimited.Close()
		for _, c := range []struct {
			m         *Manager
			requested *mcp.TaskMetadata
		}{{m, nil}, {m, ms(time.Minute)}, {unlimited, nil}} {
			m := c.m
			h, err := m.Defer("a", c.requested, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := m.Get("a", h.ID())
			if err != nil {
				t.Fatal(err)
			}
			if created := h.Created(); !reflect.DeepEqual(created, got) {
				t.Fatalf("Created() = %+v, Get = %+v", created, got)
			}
			time.Sleep(time.Second)
			if err := h.SetStatus(mcp.TaskStatusInputRequired, "waiting"); err != nil {
				t.Fatal(err)
			}
			if created := h.Created(); !reflect.DeepEqual(created, got) {
				t.Fatalf("after a status change, Created() = %+v, want %+v", created, got)
			}
			if h.Context().Err() != nil {
				t.Fatal("the context of a running task has ended")
			}
			h.Finish(Outcome{})
		}
	})
}
