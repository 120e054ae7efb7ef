package tasks

import (
	"slices"
	"testing"
)

// TestListPageCostsItsOwnSize: a tasks/list page is read from the owner's tasks in order
// from its cursor, under the lock that every client's task requests take. It gathered
// and sorted all of the owner's tasks (up to MaxKept, 1,000) at each page, about 50 µs a
// page where a tasks/get takes one, so that listing them all cost the square of their
// number, and a few sessions listing at their rate limit kept every other client's task
// requests waiting on the lock. The allocations of a page, which grew with the tasks
// gathered, are the work counted here.
func TestListPageCostsItsOwnSize(t *testing.T) {
	m := New(Options{PageSize: 10, MaxActive: 10})
	defer m.Close()
	for range 1000 {
		h, err := m.Defer("a", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		h.Finish(Outcome{Result: []byte(`{}`)})
	}
	_, cursor, err := m.List("a", "")
	if err != nil || cursor == "" {
		t.Fatalf("first page: cursor %q, %v", cursor, err)
	}
	allocs := testing.AllocsPerRun(100, func() {
		if _, _, err := m.List("a", cursor); err != nil {
			t.Fatal(err)
		}
	})
	// The page and its next cursor.
	if allocs > 4 {
		t.Errorf("a page of 10 of 1,000 tasks makes %.0f allocations, want a few, whatever the tasks", allocs)
	}
}

// TestListOrderThroughAdoptionAndEviction: the pages stay in creation order, each task
// once, when tasks are adopted from another owner and the oldest are evicted.
func TestListOrderThroughAdoptionAndEviction(t *testing.T) {
	m := New(Options{PageSize: 3, MaxActive: 20, MaxKept: 8})
	defer m.Close()
	var a, b []string // task ids of owners a and b, in creation order
	for i := range 12 {
		owner := "a"
		if i%3 == 0 {
			owner = "b"
		}
		h, err := m.Defer(owner, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		h.Finish(Outcome{Result: []byte(`{}`)})
		if owner == "a" {
			a = append(a, h.ID())
		} else {
			b = append(b, h.ID())
		}
	}
	// Owner a adopts b's second and fourth, which were made between its own.
	for _, id := range []string{b[1], b[3]} {
		if !m.Adopt(id, "a", func(string) bool { return true }) {
			t.Fatalf("adopting %s failed", id)
		}
	}
	list := func(owner string) []string {
		var got []string
		cursor := ""
		for pages := 0; ; pages++ {
			page, next, err := m.List(owner, cursor)
			if err != nil || pages > 10 {
				t.Fatalf("page %d of %s: %v", pages, owner, err)
			}
			for _, task := range page {
				got = append(got, task.TaskID)
			}
			if next == "" {
				return got
			}
			cursor = next
		}
	}
	want := []string{a[0], a[1], b[1], a[2], a[3], a[4], a[5], b[3], a[6], a[7]}
	if got := list("a"); !slices.Equal(got, want) {
		t.Errorf("owner a lists %v,\nwant %v", got, want)
	}
	if got := list("b"); !slices.Equal(got, []string{b[0], b[2]}) {
		t.Errorf("owner b lists %v, want %v", got, []string{b[0], b[2]})
	}
	// A new task evicts the oldest ended one, a's first.
	h, err := m.Defer("a", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Finish(Outcome{})
	want = append(want[1:], h.ID())
	if got := list("a"); !slices.Equal(got, want) {
		t.Errorf("after an eviction owner a lists %v,\nwant %v", got, want)
	}
}
