package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
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

// AwaitRequestor returns the newest tasks/result waiting on the task: at once when one
// waits, or when the next one starts waiting, each time; it gives up when the task ends
// or ctx does.
func TestAwaitRequestor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := New(Options{})
		h, err := m.Defer("a", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		id := h.Created().TaskID
		results := make(chan error, 2)
		// Nobody waits yet: the work waits until a tasks/result does. Twice over: the
		// first tasks/result gives up (its request withdrawn) before the second wait.
		for i, waiter := range []jsonrpc.ID{jsonrpc.Int64ID(7), jsonrpc.Int64ID(8)} {
			got := awaitRequestor(context.Background(), h)
			synctest.Wait()
			select {
			case f := <-got:
				t.Fatalf("wait %d returned %v before any tasks/result", i, f)
			default:
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() {
				_, err := m.Result(ctx, "a", id, waiter)
				results <- err
			}()
			synctest.Wait()
			if f := <-got; !f.ok || f.id != waiter {
				t.Fatalf("wait %d: %v, %v; want %v", i, f.id, f.ok, waiter)
			}
			if i == 0 {
				cancel()
				if err := <-results; !errors.Is(err, context.Canceled) {
					t.Fatalf("the withdrawn tasks/result: %v", err)
				}
			}
		}
		// One waits already: at once.
		if f := <-awaitRequestor(context.Background(), h); !f.ok || f.id != jsonrpc.Int64ID(8) {
			t.Fatalf("with a waiter: %v, %v; want 8", f.id, f.ok)
		}

		// ctx ends the wait of a task nobody asks for; so does the task's end.
		h2, err := m.Defer("a", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		got := awaitRequestor(ctx, h2)
		synctest.Wait()
		cancel()
		if f := <-got; f.ok {
			t.Fatalf("after ctx ended: %v, want nothing", f.id)
		}
		got = awaitRequestor(context.Background(), h2)
		synctest.Wait()
		h2.Finish(Outcome{Result: []byte(`{}`)})
		if f := <-got; f.ok {
			t.Fatalf("after the task ended: %v, want nothing", f.id)
		}

		h.Finish(Outcome{Result: []byte(`{}`)})
		if err := <-results; err != nil {
			t.Fatal(err)
		}
	})
}

type awaited struct {
	id jsonrpc.ID
	ok bool
}

// awaitRequestor runs h.AwaitRequestor on a goroutine of its own.
func awaitRequestor(ctx context.Context, h *Handle) <-chan awaited {
	c := make(chan awaited, 1)
	go func() {
		id, ok := h.AwaitRequestor(ctx)
		c <- awaited{id, ok}
	}()
	return c
}

// An ended task of the extension keeps neither its input requests nor the requestor's
// answers: they were for the work, which is over, and a requestor may make them large.
func TestEndedExtTaskDropsInputs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := New(Options{})
		defer m.Close()
		h, err := m.DeferIn(DialectExtension, "a", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := make(chan map[string]json.RawMessage, 1)
		go func() {
			out, err := h.AskInput(context.Background(), map[string]mcp.InputRequest{"k": {Method: mcp.MethodElicitationCreate}})
			if err != nil {
				t.Error(err)
			}
			got <- out
		}()
		synctest.Wait()
		big := json.RawMessage(`"` + strings.Repeat("x", 1<<20) + `"`)
		if err := m.Update("a", h.ID(), map[string]json.RawMessage{"k": big}, nil); err != nil {
			t.Fatal(err)
		}
		if out := <-got; len(out["k"]) != len(big) {
			t.Fatalf("the work got %d bytes, want %d", len(out["k"]), len(big))
		}
		m.mu.Lock()
		kept := len(m.tasks[h.ID()].ext.answers)
		m.mu.Unlock()
		if kept != 1 {
			t.Fatalf("a working task keeps %d answers, want 1 (a key is never asked twice)", kept)
		}
		h.Finish(Outcome{Result: json.RawMessage(`{}`)})
		m.mu.Lock()
		x := m.tasks[h.ID()].ext
		asked, answers := x.asked, x.answers
		m.mu.Unlock()
		if asked != nil || answers != nil {
			t.Fatalf("the ended task keeps %d input requests and %d answers", len(asked), len(answers))
		}
		if d, err := m.Detailed("a", h.ID()); err != nil || d.Status != mcp.TaskStatusCompleted || string(d.Result) != `{}` {
			t.Fatalf("the ended task: %+v, %v", d, err)
		}
		if err := m.Update("a", h.ID(), map[string]json.RawMessage{"k": big}, nil); err != nil {
			t.Fatalf("an answer to the ended task: %v, want it acknowledged", err)
		}
	})
}
