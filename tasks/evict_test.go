package tasks

import (
	"context"
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
