package web

import (
	"fmt"
	"testing"
	"time"
)

// Rows past tasksKept are dropped an eighth at a time, the oldest ended ones first: a
// pass through the rows is made once per tasksKept/8 new rows, not at each (a burst of
// a server's tasks past the bound made every new row pay for all of them), and rows of
// running tasks stay, however many.
func TestRowsEvictedInBatches(t *testing.T) {
	c := &conn{tasks: map[string]*taskRow{}}
	ended := time.Now()
	add := func(i int, running bool) {
		r := &taskRow{Key: fmt.Sprint("k", i)}
		if !running {
			r.Ended = &ended
		}
		c.addRow(r)
	}
	passes, last := 0, 0
	for i := range 3 * tasksKept {
		add(i, false)
		if n := len(c.order); n <= last {
			passes++ // a pass: the row added made none more
		}
		last = len(c.order)
		if len(c.order) > tasksKept {
			t.Fatalf("%d rows kept, over %d", len(c.order), tasksKept)
		}
		if i == tasksKept && len(c.order) != tasksKept*7/8 {
			t.Fatalf("the first pass left %d rows, want %d", len(c.order), tasksKept*7/8)
		}
	}
	if max := 2*tasksKept/(tasksKept/8) + 2; passes > max {
		t.Errorf("%d eviction passes for %d rows past the bound, want at most %d", passes, 2*tasksKept, max)
	}
	if _, ok := c.tasks[fmt.Sprint("k", 3*tasksKept-1)]; !ok {
		t.Error("the newest row was dropped")
	}
	if _, ok := c.tasks["k0"]; ok {
		t.Error("the oldest row was kept")
	}
	// Running rows are never dropped: past the bound with nothing ended, the rows grow.
	c = &conn{tasks: map[string]*taskRow{}}
	for i := range tasksKept + tasksKept/4 {
		add(i, true)
	}
	if n := len(c.order); n != tasksKept+tasksKept/4 {
		t.Errorf("%d rows of running tasks kept, want all %d", n, tasksKept+tasksKept/4)
	}
	if len(c.tasks) != len(c.order) {
		t.Errorf("%d rows, %d keys in order", len(c.tasks), len(c.order))
	}
}
