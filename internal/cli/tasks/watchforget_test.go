package tasks_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/internal/clitest"
	"github.com/mcpi-dev/mcpi/internal/cli/state"
	"github.com/mcpi-dev/mcpi/internal/cli/tasks/watch"
)

// "tasks watch ID" and "tasks watch" (every task) that follow a recorded task the server
// stops knowing meanwhile (its ttl ran out there) forget it, as "tasks result ID" does,
// and end the session they took up for it, which no other record names; the "gone"
// line, and event ("forgotten"), and the sentence say so. They kept the record, which
// named a task no command would reach again, and left its session open until the
// server's idle timeout.
func TestWatchForgetsTaskGoneWhileFollowed(t *testing.T) {
	for _, all := range []bool{false, true} {
		for _, jsonOut := range []bool{false, true} {
			clitest.StateDir(t)
			d, _ := releasedBoundServer(t)
			id := detachBound(t, d, 1)[0]
			owner, _ := d.Server.Tasks().Owner(id)
			env := fresh(t)
			opts := &watch.Options{ID: id}
			if all {
				env = clitest.New(t, &connect.Selection{URL: d.URL})
				opts.ID = ""
			}
			opts.Options = sharedOpts(env, jsonOut)
			var once sync.Once
			// Its ttl runs out on the server once the watch shows the task.
			env.IO.Out = writeThen{env.Out, func() { once.Do(func() { d.Server.Tasks().DropOwner(owner) }) }}
			err := watch.Run(clitest.Context(t), opts)
			want := `mcpi: the server no longer knows the task "` + id + `" (it expired, or the server restarted); mcpi has removed it from its local list of tasks (exit 1)`
			if all {
				want = " (exit 0)"
			}
			if got := describe(err); got != want {
				t.Errorf("all %v, json %v:\ngot  %q\nwant %q", all, jsonOut, got, want)
			}
			if jsonOut {
				evs := jsonEvents(t, env.Out.String())
				if last := evs[len(evs)-1]; last.Event != "gone" || last.Task == nil || last.Task.TaskID != id || !last.Forgotten {
					t.Errorf("all %v: last event %+v, want a \"gone\" event of the task with \"forgotten\"", all, last)
				}
			} else {
				lines := strings.Split(strings.TrimSpace(env.Out.String()), "\n")
				if last, want := lines[len(lines)-1], "  "+id+"  gone (expired or deleted); mcpi has removed it from its local list of tasks"; !strings.HasSuffix(last, want) {
					t.Errorf("all %v: last line %q, want it to end in %q", all, last, want)
				}
			}
			store, err := state.Default()
			if err != nil {
				t.Fatal(err)
			}
			if _, ok, err := store.Find(id); err != nil || ok {
				t.Errorf("all %v, json %v: the task is still recorded (%v)", all, jsonOut, err)
			}
			d.WaitIdle(t)
			if n := len(d.Server.Sessions()); n != 0 {
				t.Errorf("all %v, json %v: the server has %d sessions, want none", all, jsonOut, n)
			}
		}
	}
}

// A recorded task that "tasks watch ID" or "tasks watch" loses track of (the server ends
// the session that reached it) is not one the server said it does not know: its record
// stays, without the session the server ended, for "mcpi tasks result ID".
func TestWatchLostKeepsRecord(t *testing.T) {
	for _, all := range []bool{false, true} {
		clitest.StateDir(t)
		d, _ := releasedBoundServer(t)
		id := detachBound(t, d, 1)[0]
		env := fresh(t)
		opts := &watch.Options{ID: id}
		if all {
			env = clitest.New(t, &connect.Selection{URL: d.URL})
			opts.ID = ""
		}
		opts.Options = sharedOpts(env, true)
		var once sync.Once
		env.IO.Out = writeThen{env.Out, func() {
			once.Do(func() {
				for _, s := range d.Server.Sessions() {
					s.Close()
				}
			})
		}}
		err := watch.Run(clitest.Context(t), opts)
		if got := describe(err); !strings.Contains(got, `ended the session while mcpi followed the task "`+id+`"`) {
			t.Errorf("all %v: %s, want the task lost", all, got)
		}
		evs := jsonEvents(t, env.Out.String())
		if last := evs[len(evs)-1]; last.Event != "lost" || last.Forgotten {
			t.Errorf("all %v: last event %+v, want \"lost\"", all, last)
		}
		store, err := state.Default()
		if err != nil {
			t.Fatal(err)
		}
		if e, ok, err := store.Find(id); err != nil || !ok || e.Server.URL != d.URL || e.Session != nil {
			t.Errorf("all %v: record of the lost task: %+v, %v, %v (want one without the session the server ended)", all, e, ok, err)
		}
	}
}
