package client

import (
	"strconv"
	"testing"

	"github.com/mcpi-dev/mcpi/mcp"
)

// TestEarlyNotificationsKeptPerCall: status notifications that overtake their
// CreateTaskResult are kept for every task call in flight, beyond the fixed allowance, so
// that a burst's tasks learn their end without a poll; once no call is in flight, what is
// left belongs to no task of the session and is dropped.
func TestEarlyNotificationsKeptPerCall(t *testing.T) {
	s := &Session{}
	s.tasks.init()
	const calls = 3 * maxEarly
	for range calls {
		s.tasks.calling(1)
	}
	for i := range calls {
		s.statusNotification(mcp.Task{TaskID: strconv.Itoa(i), Status: mcp.TaskStatusCompleted})
	}
	if got := len(s.tasks.early); got != calls {
		t.Errorf("%d early notifications kept with %d calls in flight, want all %d", got, calls, calls)
	}
	if !s.tasks.notified.Load() {
		t.Error("the session did not learn that the server sends status notifications")
	}
	// More ids than calls in flight plus the allowance: the excess is dropped.
	for i := calls; i < 2*calls; i++ {
		s.statusNotification(mcp.Task{TaskID: strconv.Itoa(i), Status: mcp.TaskStatusCompleted})
	}
	if got, limit := len(s.tasks.early), calls+maxEarly; got != limit {
		t.Errorf("%d early notifications kept, want the limit %d", got, limit)
	}
	for range calls {
		s.tasks.calling(-1)
	}
	if got := len(s.tasks.early); got != 0 {
		t.Errorf("%d early notifications kept with no call in flight, want none", got)
	}
}
