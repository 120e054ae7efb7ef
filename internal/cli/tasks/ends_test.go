package tasks_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/internal/clitest"
	"github.com/mcpi-dev/mcpi/internal/cli/tasks/result"
	"github.com/mcpi-dev/mcpi/internal/cli/taskview"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// "tasks result ID" interrupted on the embedded demo server, which stops as mcpi exits
// and the task with it, says so, as "tasks watch" and "tools call --task" do: with
// --json, an "interrupted" object of state "stopped" with no command to fetch a result
// that will not be there, and the sentence that the task ends with the server. It said
// "running", and named a fetch command.
func TestResultInterruptedOnEmbeddedServer(t *testing.T) {
	for _, era := range []string{mcp.LatestProtocolVersion, mcp.ProtocolVersion20260728} {
		for _, jsonOut := range []bool{false, true} {
			clitest.StateDir(t)
			env := clitest.New(t, &connect.Selection{Protocol: era})
			ctx, stop := context.WithCancel(clitest.Context(t))
			opts := &result.Options{Options: sharedOpts(env, jsonOut), ID: "set once the task is created"}
			opts.Connect = func(c context.Context, requests cmdutil.RequestPolicy) (*cmdutil.Session, error) {
				sess, err := env.Factory.Connect(c, requests)
				if err != nil {
					return nil, err
				}
				task, err := sess.StartToolTask(c, &mcp.CallToolParams{Name: "slow_task", Arguments: json.RawMessage(`{"seconds":600}`)}, nil)
				if err != nil {
					t.Fatal(err)
				}
				opts.ID = task.ID()
				if era != mcp.LatestProtocolVersion {
					// The task's follower polls at the task's pollInterval: Ctrl-C as
					// the command starts to wait.
					stop()
					return sess, nil
				}
				sub := sess.Subscribe()
				go func() {
					defer sub.Close()
					// Ctrl-C once the command asks for the task's result.
					for e := range sub.All(context.Background()) {
						if m, ok := e.(*client.MessageEvent); ok && m.Dir == jsonrpc.Outbound {
							if r, ok := m.Message.(*jsonrpc.Request); ok && r.Method == mcp.MethodTasksResult {
								stop()
								return
							}
						}
					}
				}()
				return sess, nil
			}
			err := result.Run(ctx, opts)
			stop()
			sentence := `interrupted; the task "` + opts.ID + `" ends with the embedded demo server`
			if got, want := describe(err), "mcpi: "+sentence+" (exit 2)"; got != want {
				t.Errorf("%s, json %v:\ngot  %q\nwant %q", era, jsonOut, got, want)
			}
			if !jsonOut {
				if env.Out.Len() != 0 {
					t.Errorf("%s: stdout %q, want nothing", era, env.Out)
				}
				continue
			}
			var got struct {
				Interrupted *taskview.Interrupted
				Error       *taskview.Error
			}
			if err := json.Unmarshal(env.Out.Bytes(), &got); err != nil || got.Interrupted == nil || *got.Interrupted != (taskview.Interrupted{State: taskview.LeftStopped}) ||
				got.Error == nil || got.Error.Message != sentence || got.Error.Code != nil {
				t.Errorf("%s: stdout %s\nwant an \"interrupted\" object of state %q with %q", era, env.Out, taskview.LeftStopped, sentence)
			}
		}
	}
}
