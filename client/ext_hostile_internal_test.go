package client

import (
	"strconv"
	"testing"

	"github.com/mcpi-dev/mcpi/mcp"
)

// TestEarlyNotificationsOfOneTaskBounded: a server that floods notifications/tasks (or
// notifications/tasks/status) for a task id the session does not know, whether or not a
// task call is in flight, must not have the session keep every one: the ids kept are
// bounded (TestEarlyNotificationsKeptPerCall), and so are the states kept for each; the
// newest stays, and so does an end.
func TestEarlyNotificationsOfOneTaskBounded(t *testing.T) {
	for _, inflight := range []int{0, 1} {
		s := &Session{}
		s.tasks.init()
		for range inflight {
			s.tasks.calling(1)
		}
		const flood = 100000
		s.statusNotification(mcp.Task{TaskID: "ghost", Status: mcp.TaskStatusCompleted, StatusMessage: "the end"})
		for i := range flood {
			d := &mcp.DetailedTask{ExtTask: mcp.ExtTask{TaskID: "ghost", Status: mcp.TaskStatusWorking, StatusMessage: strconv.Itoa(i)}}
			if i%2 == 0 {
				s.detailNotification(d)
			} else {
				s.statusNotification(d.ToTask())
			}
		}
		kept := s.tasks.early["ghost"]
		if len(kept) > maxEarlyPerTask {
			t.Fatalf("%d calls in flight: %d notifications kept for one unknown task, want at most %d", inflight, len(kept), maxEarlyPerTask)
		}
		if last := kept[len(kept)-1]; last.StatusMessage != strconv.Itoa(flood-1) {
			t.Errorf("%d calls in flight: the newest kept is %q, want the last sent", inflight, last.StatusMessage)
		}
		if kept[0].Status != mcp.TaskStatusCompleted {
			t.Errorf("%d calls in flight: the task's end was not kept: %+v", inflight, kept[0])
		}
	}
}
