package tasks

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpi-dev/mcpi/mcp"
)

// MaxKept evicts the oldest terminal task by creation, whatever order the tasks ended
// in; running tasks are never evicted, and adopted or expired tasks leave the owner's
// eviction order consistent.
func TestMaxKeptEvictsOldestTerminal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := New(Options{MaxKept: 3, MaxActive: 10})
		defer m.Close()
		release := []chan struct{}{make(chan struct{}), make(chan struct{}), make(chan struct{})}
		var ids []string
		for i := range 3 {
			task, err := m.Create("a", nil, block(release[i], Outcome{Result: []byte(`{}`)}))
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, task.TaskID)
		}
		// The newest ends first, the oldest last; the middle one keeps running.
		close(release[2])
		synctest.Wait()
		close(release[0])
		synctest.Wait()
		fourth, err := m.Create("a", nil, block(nil, Outcome{}))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Get("a", ids[0]); err != ErrNotFound {
			t.Errorf("the oldest terminal task survived: %v", err)
		}
		for _, id := range []string{ids[1], ids[2], fourth.TaskID} {
			if _, err := m.Get("a", id); err != nil {
				t.Errorf("task %s: %v", id, err)
			}
		}
		// A terminal task adopted away no longer counts for its old owner.
		if !m.Adopt(ids[2], "b", func(string) bool { return true }) {
			t.Fatal("adopt failed")
		}
		if _, err := m.Create("a", nil, block(nil, Outcome{})); err != nil {
			t.Fatal(err)
		}
		close(release[1])
		synctest.Wait()
		if st, err := m.Get("a", ids[1]); err != nil || st.Status != mcp.TaskStatusCompleted {
			t.Fatalf("task %s: %v %v", ids[1], st.Status, err)
		}
		if _, err := m.Create("a", nil, block(nil, Outcome{})); err != nil {
			t.Fatal(err)
		}
		if _, err := m.Get("a", ids[1]); err != ErrNotFound {
			t.Errorf("the only terminal task of a was not evicted: %v", err)
		}
		if _, err := m.Get("b", ids[2]); err != nil {
			t.Errorf("b's adopted task was evicted for a: %v", err)
		}
	})
}

// Once every task has expired, the manager holds no memory of their number.
func TestExpiryLeavesNoBackingStore(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := New(Options{MaxActive: 1000})
		defer m.Close()
		for range 500 {
			if _, err := m.Create("a", ms(time.Second), func(ctx context.Context, h *Handle) Outcome {
				<-ctx.Done()
				return Outcome{}
			}); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(2 * time.Second)
		synctest.Wait()
		m.mu.Lock()
		defer m.mu.Unlock()
		if len(m.tasks) != 0 || cap(m.expiry) != 0 || len(m.owners) != 0 {
			t.Errorf("after expiry: %d tasks, expiry heap capacity %d, %d owners", len(m.tasks), cap(m.expiry), len(m.owners))
		}
	})
}

// The caps of all owners together hold however many owners there are: at
// MaxActiveTotal a new task of any owner is refused (an owner with nothing else is not
// kept for it), and at MaxKeptTotal the oldest terminal task of any owner makes room,
// never a running one. Ending, eviction and deletion keep the counts right.
func TestTotalCapsAcrossOwners(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := New(Options{MaxActive: 2, MaxKept: 10, MaxActiveTotal: 3, MaxKeptTotal: 5})
		defer m.Close()
		release := make(chan struct{})
		var running []string
		for _, owner := range []string{"a", "b", "c"} {
			task, err := m.Create(owner, nil, block(release, Outcome{Result: []byte(`{}`)}))
			if err != nil {
				t.Fatal(err)
			}
			running = append(running, task.TaskID)
		}
		if _, err := m.Create("d", nil, block(nil, Outcome{})); !errors.Is(err, ErrTooMany) {
			t.Fatalf("a fourth running task of a fourth owner: %v, want ErrTooMany", err)
		}
		if _, err := m.Create("a", nil, block(nil, Outcome{})); !errors.Is(err, ErrTooMany) {
			t.Fatalf("a fourth running task of an owner under its own cap: %v, want ErrTooMany", err)
		}
		if n := len(m.owners); n != 3 {
			t.Errorf("%d owners kept, want 3: a refused owner is not kept", n)
		}
		close(release)
		synctest.Wait()
		// Three terminal tasks; then tasks of new owners, each ending at once.
		var ended []string
		for i := range 6 {
			task, err := m.Create(fmt.Sprintf("owner %d", i), nil, func(context.Context, *Handle) Outcome { return Outcome{Result: []byte(`{}`)} })
			if err != nil {
				t.Fatal(err)
			}
			synctest.Wait()
			ended = append(ended, task.TaskID)
			if n := m.Len(); n > 5 {
				t.Fatalf("%d tasks kept, over MaxKeptTotal", n)
			}
		}
		// The oldest went first: the three of a, b and c, then the first new ones.
		kept := 0
		for _, id := range append(running, ended...) {
			if _, ok := m.Owner(id); ok {
				kept++
			}
		}
		for _, id := range ended[1:] {
			if _, ok := m.Owner(id); !ok {
				t.Errorf("a newer terminal task %s was evicted", id)
			}
		}
		if kept != 5 {
			t.Errorf("%d tasks kept, want 5", kept)
		}
		// Running tasks are never evicted: with three running and two terminal, a new
		// task evicts a terminal one.
		hold := make(chan struct{})
		defer close(hold)
		var held []string
		for _, owner := range []string{"x", "y", "z"} {
			task, err := m.Create(owner, nil, block(hold, Outcome{}))
			if err != nil {
				t.Fatalf("running task of %s: %v", owner, err)
			}
			held = append(held, task.TaskID)
		}
		for _, id := range held {
			if st, err := m.Get(mustOwner(t, m, id), id); err != nil || st.Status != mcp.TaskStatusWorking {
				t.Errorf("running task %s: %v %v", id, st.Status, err)
			}
		}
		if n := m.Len(); n != 5 {
			t.Errorf("%d tasks kept, want 5", n)
		}
		if _, err := m.Create("w", nil, block(nil, Outcome{})); !errors.Is(err, ErrTooMany) {
			t.Errorf("a fourth running task: %v, want ErrTooMany", err)
		}
	})
}

func mustOwner(t *testing.T, m *Manager, id string) string {
	t.Helper()
	owner, ok := m.Owner(id)
	if !ok {
		t.Fatalf("task %s is gone", id)
	}
	return owner
}

// A task that makes room at MaxKeptTotal may take the last task of the owner making
// the new one: the owner's set of tasks then still holds the new task (it was left
// out of the manager's owners, and the task's end failed on it).
func TestTotalEvictionOfTheOwnersLastTask(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := New(Options{MaxActiveTotal: 2, MaxKeptTotal: 2})
		defer m.Close()
		done := func(owner string) string {
			task, err := m.Create(owner, nil, func(context.Context, *Handle) Outcome { return Outcome{Result: []byte(`{}`)} })
			if err != nil {
				t.Fatal(err)
			}
			synctest.Wait()
			return task.TaskID
		}
		first := done("a") // the oldest ended task of all, and a's only one
		done("b")
		release := make(chan struct{})
		task, err := m.Create("a", nil, block(release, Outcome{Result: []byte(`{}`)}))
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := m.Owner(first); ok {
			t.Error("the oldest ended task was not evicted")
		}
		list, _, err := m.List("a", "")
		if err != nil || len(list) != 1 || list[0].TaskID != task.TaskID {
			t.Errorf("a's tasks: %v, %v; want the new one", list, err)
		}
		close(release)
		synctest.Wait()
		if st, err := m.Get("a", task.TaskID); err != nil || st.Status != mcp.TaskStatusCompleted {
			t.Errorf("the new task: %v, %v", st.Status, err)
		}
	})
}
