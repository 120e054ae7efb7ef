package call

import (
	"io"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/internal/clitest"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/tasks"
)

// A task the user cancels after Ctrl-C (the answer "c") ends its --json stream with an
// "interrupted" line whose task is cancelled, in both eras: in 2026-07-28, whose
// tasks/cancel is only acknowledged, with the state client.Task.Cancel fetches after the
// acknowledgement, not the one before the cancel (working, or input_required for a task
// that asked a question, which reads as a task still waiting). The task asks nothing
// here: a question of its own would take the terminal's answer first.
func TestCancelledTaskShowsCancelled(t *testing.T) {
	for _, version := range []string{mcp.LatestProtocolVersion, mcp.ProtocolVersion20260728} {
		t.Run(version, func(t *testing.T) {
			clitest.StateDir(t)
			srv := demo.New(&demo.Options{Tasks: &tasks.Options{PollInterval: 20 * time.Millisecond}})
			env := clitest.New(t, &connect.Selection{URL: clitest.Serve(t, srv).URL, Protocol: version})
			answer, errOut, asked := promptingTerminal(t, env)
			ctx, connectFn := env.InterruptOnCreate(t)
			go func() {
				select {
				case <-asked:
				case <-time.After(30 * time.Second): // a bound, not a measure
					return
				}
				io.WriteString(answer, "c\n")
			}()
			opts := &Options{Name: demo.ToolSlowTask, Args: []string{"seconds=600"}, Task: true, JSON: true, IO: env.IO, Connect: connectFn, Selection: env.Selection, Tick: -1}
			_ = Run(ctx, opts)
			evs := events(t, env.Out.String())
			last := evs[len(evs)-1]
			if last.Event != "interrupted" || last.Interrupted == nil || last.Interrupted.State != "cancelled" ||
				last.Task == nil || last.Task.Status != mcp.TaskStatusCancelled {
				t.Errorf("last line: %s\nstderr: %s", env.Out, errOut)
			}
		})
	}
}
