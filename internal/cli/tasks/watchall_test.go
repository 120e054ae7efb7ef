package tasks_test

import (
	"strings"
	"testing"

	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/internal/clitest"
	"github.com/mcpi-dev/mcpi/internal/cli/tasks/list"
	"github.com/mcpi-dev/mcpi/internal/cli/tools/call"
)

// detachBound starts n tasks of the "wait" tool on d with --detach, each in a session of
// its own that mcpi records and leaves open, and returns their ids.
func detachBound(t *testing.T, d *clitest.Demo, n int) []string {
	t.Helper()
	var ids []string
	for range n {
		env := clitest.New(t, &connect.Selection{URL: d.URL})
		if err := callTool(clitest.Context(t), env, &call.Options{Name: "wait", Task: true, Detach: true}); err != nil {
			t.Fatal(describe(err))
		}
		ids = append(ids, strings.TrimSpace(env.Out.String()))
	}
	return ids
}

// "tasks list" in 2025-11-25 lists the tasks of its own new session: of a server that
// binds tasks to their session, none of those mcpi recorded with sessions of their own.
// It says how many there are and which commands show them (it said only "No tasks.").
func TestListCountsTasksInOtherSessions(t *testing.T) {
	clitest.StateDir(t)
	d := boundServer(t)
	detachBound(t, d, 2)
	env := clitest.New(t, &connect.Selection{URL: d.URL})
	if err := list.Run(clitest.Context(t), &list.Options{Options: sharedOpts(env, false)}); err != nil {
		t.Fatal(describe(err))
	}
	want := `2 tasks mcpi recorded for this server were left in sessions of their own, which this session's tasks/list does not show: "mcpi tasks list --local" lists them, and "mcpi tasks watch" follows them through their sessions.` + "\n" +
		`No tasks. (A server lists the tasks of the current session only; "mcpi tasks list --local" shows the tasks mcpi left running.)` + "\n"
	if got := env.ErrOut.String(); got != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", got, want)
	}
}
