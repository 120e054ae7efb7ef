package tasks

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// TryResult and TryDetailed never wait: they decline (ok false), counting and logging
// nothing, while another goroutine holds the manager, while a task of 2025-11-25 has not
// announced its end, and for a lookup that would fail; otherwise they answer as Result
// and Detailed do.
func TestTryLookupsNeverWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := New(Options{})
		defer m.Close()
		core, err := m.DeferIn(DialectCore, "a", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		ext, err := m.DeferIn(DialectExtension, "a", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := m.TryResult("a", core.ID()); ok {
			t.Error("TryResult of a running task answered")
		}
		if d, ok := m.TryDetailed("a", ext.ID()); !ok || d.Status != mcp.TaskStatusWorking {
			t.Errorf("TryDetailed of a running task = %s, %v; want working, true", d.Status, ok)
		}
		done := json.RawMessage(`{"content":[]}`)
		core.Finish(Outcome{Result: done})
		ext.Finish(Outcome{Result: done})
		synctest.Wait()

		m.mu.Lock()
		_, okR, _ := m.TryResult("a", core.ID())
		_, okD := m.TryDetailed("a", ext.ID())
		m.mu.Unlock()
		if okR || okD {
			t.Errorf("with the manager held: TryResult ok %v, TryDetailed ok %v; want both false", okR, okD)
		}

		if out, ok, err := m.TryResult("a", core.ID()); !ok || err != nil || string(out.Result) != string(done) {
			t.Errorf("TryResult of an ended task = %s, %v, %v", out.Result, ok, err)
		}
		if d, ok := m.TryDetailed("a", ext.ID()); !ok || d.Status != mcp.TaskStatusCompleted || string(d.Result) != string(done) {
			t.Errorf("TryDetailed of an ended task = %s %s, %v", d.Status, d.Result, ok)
		}
		for _, c := range []struct{ name, owner, id string }{
			{"another owner's task", "b", core.ID()},
			{"an unknown id", "a", "nope"},
			{"a task of the other dialect", "a", ext.ID()},
		} {
			if _, ok, _ := m.TryResult(c.owner, c.id); ok {
				t.Errorf("TryResult of %s answered", c.name)
			}
		}
		if _, ok := m.TryDetailed("a", core.ID()); ok {
			t.Error("TryDetailed of a task of 2025-11-25 answered")
		}

		cancelled, err := m.DeferIn(DialectCore, "a", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Cancel("a", cancelled.ID(), ""); err != nil {
			t.Fatal(err)
		}
		cancelled.Finish(Outcome{}) // the work sees its cancellation and returns
		synctest.Wait()
		_, ok, err := m.TryResult("a", cancelled.ID())
		var rpc *jsonrpc.Error
		if !ok || !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeInternalError {
			t.Errorf("TryResult of a cancelled task = %v, %v; want its -32603", ok, err)
		}
	})
}

// ResultLater answers a tasks/result of a running task from the goroutine that ends it,
// after the end is announced, with what Result would return; the request waits as a
// tasks/result does (Waiter finds it) until then. stop withdraws it (answer is never
// called), and a task deleted first answers ErrNotFound.
func TestResultLater(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var order []string
		var m *Manager
		m = New(Options{OnChange: func(_ string, task mcp.Task) {
			order = append(order, "announced "+string(task.Status))
		}})
		defer m.Close()
		type answered struct {
			out Outcome
			err error
		}
		got := make(chan answered, 4)
		answer := func(out Outcome, err error) {
			order = append(order, "answered")
			got <- answered{out, err}
		}
		h, err := m.DeferIn(DialectCore, "a", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := m.ResultLater("b", h.ID(), jsonrpc.Int64ID(7), answer); ok {
			t.Error("ResultLater took up a request for another owner's task")
		}
		if _, ok := m.ResultLater("a", h.ID(), jsonrpc.Int64ID(7), answer); !ok {
			t.Fatalf("ResultLater of a running task declined")
		}
		if id, ok := m.Waiter(h.ID()); !ok || id != jsonrpc.Int64ID(7) {
			t.Errorf("Waiter = %v, %v; want the request waiting", id, ok)
		}
		order = nil
		done := json.RawMessage(`{"content":[]}`)
		h.Finish(Outcome{Result: done})
		synctest.Wait()
		a := <-got
		if a.err != nil || string(a.out.Result) != string(done) {
			t.Errorf("answered %s, %v", a.out.Result, a.err)
		}
		if want := []string{"announced completed", "answered"}; !slices.Equal(order, want) {
			t.Errorf("order %q, want %q", order, want)
		}
		if _, ok := m.Waiter(h.ID()); ok {
			t.Error("the answered request still waits")
		}
		if _, ok := m.ResultLater("a", h.ID(), jsonrpc.Int64ID(8), answer); ok {
			t.Error("ResultLater took up a request for an ended task (TryResult's)")
		}

		// Cancelled: the error Result gives.
		c, _ := m.DeferIn(DialectCore, "a", nil, nil)
		if _, ok := m.ResultLater("a", c.ID(), jsonrpc.Int64ID(9), answer); !ok {
			t.Fatal("ResultLater declined")
		}
		if _, err := m.Cancel("a", c.ID(), ""); err != nil {
			t.Fatal(err)
		}
		c.Finish(Outcome{})
		synctest.Wait()
		var rpc *jsonrpc.Error
		if a := <-got; !errors.As(a.err, &rpc) || rpc.Code != jsonrpc.CodeInternalError {
			t.Errorf("a cancelled task answered %v", a.err)
		}

		// Withdrawn: no answer, and the request no longer waits.
		w, _ := m.DeferIn(DialectCore, "a", nil, nil)
		stop, _ := m.ResultLater("a", w.ID(), jsonrpc.Int64ID(10), answer)
		if !stop() {
			t.Error("stop did not withdraw a request not answered")
		}
		if stop() {
			t.Error("stop withdrew a request twice")
		}
		if _, ok := m.Waiter(w.ID()); ok {
			t.Error("a withdrawn request still waits")
		}
		w.Finish(Outcome{Result: done})
		synctest.Wait()
		select {
		case a := <-got:
			t.Errorf("a withdrawn request was answered: %+v", a)
		default:
		}

		// Deleted before it ends: ErrNotFound.
		d, _ := m.DeferIn(DialectCore, "gone", nil, nil)
		if _, ok := m.ResultLater("gone", d.ID(), jsonrpc.Int64ID(11), answer); !ok {
			t.Fatal("ResultLater declined")
		}
		m.DropOwner("gone")
		d.Finish(Outcome{}) // the work sees its task gone and returns
		synctest.Wait()
		if a := <-got; !errors.Is(a.err, ErrNotFound) {
			t.Errorf("a deleted task answered %v, want ErrNotFound", a.err)
		}
	})
}

// A lookup past the owner's rate limit is no lookup the Try functions make: the refusal
// is logged (Warn), and they run on a connection's reading goroutine, where a client that
// sends requests faster than the rate would have every one of them write a log line.
// They decline it, logging nothing, and the caller's Result or Detailed refuses it.
func TestTryLookupsDeclineRateLimited(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logged bytes.Buffer
		m := New(Options{RatePerSecond: 1, RateBurst: 4, Logger: slog.New(slog.NewTextHandler(&logged, nil))})
		defer m.Close()
		ended, _ := m.DeferIn(DialectCore, "a", nil, nil)
		running, _ := m.DeferIn(DialectCore, "a", nil, nil)
		ext, _ := m.DeferIn(DialectExtension, "a", nil, nil)
		ended.Finish(Outcome{Result: json.RawMessage(`{"content":[]}`)})
		synctest.Wait()
		for {
			if _, err := m.Get("a", running.ID()); errors.Is(err, ErrRateLimited) {
				break
			}
		}
		logged.Reset()
		if _, ok, err := m.TryResult("a", ended.ID()); ok {
			t.Errorf("TryResult past the rate = %v, true; want it declined", err)
		}
		if _, ok := m.TryDetailed("a", ext.ID()); ok {
			t.Error("TryDetailed past the rate answered; want it declined")
		}
		if _, ok := m.ResultLater("a", running.ID(), jsonrpc.Int64ID(1), func(Outcome, error) {}); ok {
			t.Error("ResultLater past the rate took the request up; want it declined")
		}
		if _, ok := m.Waiter(running.ID()); ok {
			t.Error("a declined ResultLater left a waiter")
		}
		if logged.Len() != 0 {
			t.Errorf("the Try functions logged:\n%s", logged.String())
		}
		if _, err := m.Result(t.Context(), "a", ended.ID(), jsonrpc.Int64ID(2)); !errors.Is(err, ErrRateLimited) {
			t.Errorf("Result past the rate: %v, want ErrRateLimited", err)
		}
		if !strings.Contains(logged.String(), "task requests rate-limited") {
			t.Errorf("Result's refusal was not logged: %q", logged.String())
		}
		running.Finish(Outcome{})
		ext.Finish(Outcome{})
	})
}

// TryDefer never waits: it declines (ok false), registering and counting nothing, while
// another goroutine holds the manager, when its logger would log the task's creation,
// and where Defer would refuse the task (a cap, the rate limit: the refusal is logged by
// who makes it); otherwise it registers the task as DeferIn and DeferBound do.
// TryState declines while the manager is held.
func TestTryDeferNeverWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := New(Options{MaxActive: 1})
		defer m.Close()
		count := func(m *Manager) int {
			m.mu.Lock()
			defer m.mu.Unlock()
			return len(m.tasks)
		}

		m.mu.Lock()
		h, ok, err := m.TryDefer(DialectExtension, "a", nil, nil, false)
		m.mu.Unlock()
		if ok || h != nil || err != nil || count(m) != 0 {
			t.Fatalf("with the manager held: %v, %v, %v and %d tasks; want a decline and none", h, ok, err, count(m))
		}

		first, ok, err := m.TryDefer(DialectExtension, "a", nil, nil, false)
		if !ok || err != nil || first == nil {
			t.Fatalf("TryDefer = %v, %v, %v; want a task", first, ok, err)
		}
		if st, ok := first.TryState(); !ok || st.TaskID != first.ID() || st.Status != mcp.TaskStatusWorking {
			t.Errorf("TryState = %+v, %v; want the task working", st, ok)
		}
		m.mu.Lock()
		_, okState := first.TryState()
		m.mu.Unlock()
		if okState {
			t.Error("TryState answered with the manager held")
		}
		bound, ok, err := m.TryDefer(DialectExtension, "b", nil, nil, true)
		if !ok || err != nil {
			t.Fatalf("TryDefer bound = %v, %v", ok, err)
		}
		if _, err := m.Detailed("a", bound.ID()); !errors.Is(err, ErrNotFound) {
			t.Errorf("another owner reached a bound task: %v", err)
		}
		// a is at MaxActive: DeferIn refuses, TryDefer declines.
		if h, ok, err := m.TryDefer(DialectExtension, "a", nil, nil, false); ok || h != nil || err != nil || count(m) != 2 {
			t.Errorf("at MaxActive: %v, %v, %v, %d tasks; want a decline", h, ok, err, count(m))
		}
		if _, err := m.DeferIn(DialectExtension, "a", nil, nil); !errors.Is(err, ErrTooMany) {
			t.Errorf("DeferIn at MaxActive = %v, want ErrTooMany", err)
		}
		first.Finish(Outcome{Result: json.RawMessage(`{}`)})
		bound.Finish(Outcome{Result: json.RawMessage(`{}`)})

		// Over the rate TryDefer declines, taking nothing from the bucket: a second
		// later the bucket has one again.
		limited := New(Options{RatePerSecond: 1, RateBurst: 2})
		defer limited.Close()
		for i := range 2 {
			h, ok, err := limited.TryDefer(DialectExtension, "c", nil, nil, false)
			if !ok || err != nil {
				t.Fatalf("c's task %d: %v, %v", i, ok, err)
			}
			h.Finish(Outcome{Result: json.RawMessage(`{}`)})
		}
		if _, ok, _ := limited.TryDefer(DialectExtension, "c", nil, nil, false); ok || count(limited) != 2 {
			t.Errorf("over the rate: ok %v, %d tasks; want a decline", ok, count(limited))
		}
		time.Sleep(time.Second)
		if h, ok, err := limited.TryDefer(DialectExtension, "c", nil, nil, false); !ok || err != nil {
			t.Errorf("a second later: %v, %v; want a task", ok, err)
		} else {
			h.Finish(Outcome{Result: json.RawMessage(`{}`)})
		}

		var logs bytes.Buffer
		logged := New(Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		defer logged.Close()
		if _, ok, _ := logged.TryDefer(DialectExtension, "a", nil, nil, false); ok || logs.Len() != 0 || count(logged) != 0 {
			t.Errorf("with Info logged: ok %v, log %q; want a decline, nothing logged", ok, logs.String())
		}
	})
}
