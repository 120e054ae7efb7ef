package tasks_test

import (
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/internal/clitest"
	"github.com/mcpi-dev/mcpi/internal/cli/state"
	"github.com/mcpi-dev/mcpi/internal/cli/tasks/get"
	"github.com/mcpi-dev/mcpi/internal/cli/tasks/result"
)

// TestLostTaskForgotten: a task the state file records on a server that no longer knows
// it (the server restarted) is said to be lost, not "may have expired", and its entry is
// removed; asked of another server than the recorded one, the entry stays.
func TestLostTaskForgotten(t *testing.T) {
	clitest.StateDir(t)
	restarted := clitest.DemoHTTP(t, nil)
	other := clitest.DemoHTTP(t, nil)
	store, err := state.Default()
	if err != nil {
		t.Fatal(err)
	}
	ttl := int64(time.Hour / time.Millisecond)
	for _, id := range []string{"lost-1", "lost-2"} {
		if err := store.Add(state.Entry{TaskID: id, Tool: "slow_task", Server: state.Server{URL: restarted}, Created: time.Now(), TTL: &ttl}); err != nil {
			t.Fatal(err)
		}
	}

	// Another server than the recorded one: it has no such task, and that is all.
	env := clitest.New(t, &connect.Selection{URL: other})
	err = result.Run(clitest.Context(t), &result.Options{Options: sharedOpts(env, false), ID: "lost-1"})
	if got, want := describe(err), `mcpi: the server has no task "lost-1" (it may have expired) (exit 1)`; got != want {
		t.Errorf("asked of another server: %s, want %s", got, want)
	}
	if _, ok, _ := store.Find("lost-1"); !ok {
		t.Fatal("the entry was removed after asking another server")
	}

	// Its own server, found through the state file or named with the same flags.
	for _, tt := range []struct {
		id  string
		sel *connect.Selection
		run func(env *clitest.Env, id string) error
	}{
		{"lost-1", &connect.Selection{}, func(env *clitest.Env, id string) error {
			return result.Run(clitest.Context(t), &result.Options{Options: sharedOpts(env, false), ID: id})
		}},
		{"lost-2", &connect.Selection{URL: restarted}, func(env *clitest.Env, id string) error {
			return get.Run(clitest.Context(t), &get.Options{Options: sharedOpts(env, false), ID: id})
		}},
	} {
		err := tt.run(clitest.New(t, tt.sel), tt.id)
		want := `mcpi: the server no longer knows the task "` + tt.id + `" (it expired, the server restarted, or it kept the task in the session that created it, which has ended); mcpi has removed it from its local list of tasks (exit 1)`
		if got := describe(err); got != want {
			t.Errorf("%s: %s, want %s", tt.id, got, want)
		}
		if _, ok, _ := store.Find(tt.id); ok {
			t.Errorf("%s: the entry is still in the state file", tt.id)
		}
	}
}
