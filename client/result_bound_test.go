package client_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/look"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// TestEndedTaskResultBounded: a 2025-11-25 task the server reports completed whose
// tasks/result never comes is not waited on for ever: once the task is known to have
// ended, its tasks/result is bounded by Options.RequestTimeout, then withdrawn, and the
// task ends with a *ResultTimeoutError that says so.
func TestEndedTaskResultBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := bounded(t)
		f := relatedServer(t, `{}`)
		f.On(mcp.MethodTasksResult, func(ctx context.Context, _ *jsonrpc.Request) (any, error) {
			<-ctx.Done() // never answered
			return nil, ctx.Err()
		})
		sess := f.MustConnect(ctx, &client.Options{RequestTimeout: 5 * time.Second})
		task, err := sess.StartToolTask(ctx, &mcp.CallToolParams{Name: "slow"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = task.Wait(ctx)
		if ctx.Err() != nil {
			t.Fatal("the task never ended")
		}
		var rt *client.ResultTimeoutError
		if !errors.As(err, &rt) || rt.TaskID != "t1" || rt.Status != mcp.TaskStatusCompleted || rt.Timeout != 5*time.Second {
			t.Fatalf("outcome %v (%T), want a *ResultTimeoutError of t1, completed, 5s", err, err)
		}
		const want = `the task "t1" is completed, but the server did not answer its tasks/result within 5.0s (--timeout raises the bound)`
		if got := look.Sentence(err); got != want {
			t.Errorf("sentence\n got %s\nwant %s", got, want)
		}
		synctest.Wait()
		if n := len(f.Notifications(mcp.NotificationCancelled)); n == 0 {
			t.Error("the tasks/result given up was not withdrawn (no notifications/cancelled)")
		}
	})
}
