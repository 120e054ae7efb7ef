package tasks

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// OnChange may ask Waiter which tasks/result request to send a status notification on,
// while other tasks change status at the same time: a burst of tasks that end together
// must not deadlock the manager (the server's notifyTask does exactly this).
func TestOnChangeMayCallWaiterUnderLoad(t *testing.T) {
	var m *Manager
	m = New(Options{MaxActive: 1000, OnChange: func(_ string, st mcp.Task) {
		m.Waiter(st.TaskID)
	}})
	release := make(chan struct{})
	const n = 500
	ids := make([]string, n)
	for i := range n {
		task, err := m.Create("a", nil, block(release, Outcome{Result: []byte(`{}`)}))
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = task.TaskID
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Go(func() {
			if _, err := m.Result(ctx, "a", id, jsonrpc.Int64ID(int64(i+1))); err != nil {
				t.Errorf("result of %s: %v", id, err)
			}
		})
	}
	// Requestors polling meanwhile keep the manager's lock busy.
	stop := make(chan struct{})
	var pollers sync.WaitGroup
	for i := range 4 {
		pollers.Go(func() {
			for k := i; ; k++ {
				select {
				case <-stop:
					return
				default:
				}
				m.Get("a", ids[k%n])
			}
		})
	}
	close(release)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatal("the tasks did not all end: the manager deadlocked") // (and cannot be closed)
	}
	close(stop)
	pollers.Wait()
	defer m.Close()
	if _, ok := m.Waiter(ids[0]); ok {
		t.Error("a waiter outlived its tasks/result")
	}
}
