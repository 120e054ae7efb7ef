package tasks

import (
	"encoding/json"
	"errors"
	"testing"
	"testing/synctest"

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
		if d, ok, err := m.TryDetailed("a", ext.ID()); !ok || err != nil || d.Status != mcp.TaskStatusWorking {
			t.Errorf("TryDetailed of a running task = %s, %v, %v; want working, true, nil", d.Status, ok, err)
		}
		done := json.RawMessage(`{"content":[]}`)
		core.Finish(Outcome{Result: done})
		ext.Finish(Outcome{Result: done})
		synctest.Wait()

		m.mu.Lock()
		_, okR, _ := m.TryResult("a", core.ID())
		_, okD, _ := m.TryDetailed("a", ext.ID())
		m.mu.Unlock()
		if okR || okD {
			t.Errorf("with the manager held: TryResult ok %v, TryDetailed ok %v; want both false", okR, okD)
		}

		if out, ok, err := m.TryResult("a", core.ID()); !ok || err != nil || string(out.Result) != string(done) {
			t.Errorf("TryResult of an ended task = %s, %v, %v", out.Result, ok, err)
		}
		if d, ok, err := m.TryDetailed("a", ext.ID()); !ok || err != nil || d.Status != mcp.TaskStatusCompleted || string(d.Result) != string(done) {
			t.Errorf("TryDetailed of an ended task = %s %s, %v, %v", d.Status, d.Result, ok, err)
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
		if _, ok, _ := m.TryDetailed("a", core.ID()); ok {
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
