package server_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/tasks"
)

// syncBuffer is a log sink that handlers on many goroutines may write at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// TestCloseDoesNotWaitForEverForStuckWork: a task whose work ignores its context holds
// Close up for tasks.DefaultCloseWait at most (it held it for ever), the task is named in
// a warning, and the work that returns later changes nothing. Shutdown waits as long as
// its context says and reports the work left running.
func TestCloseDoesNotWaitForEverForStuckWork(t *testing.T) {
	for _, viaShutdown := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			var logs syncBuffer
			srv := server.New(mcp.Implementation{Name: "stuck", Version: "1"}, &server.Options{
				Tasks:  &tasks.Options{},
				Logger: slog.New(slog.NewTextHandler(&logs, nil)),
			})
			release := make(chan struct{})
			srv.AddTool(&mcp.Tool{Name: "stuck", Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}},
				func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
					<-release // deaf to ctx
					return &mcp.CallToolResult{}, nil
				})
			c := rawSession(t, srv)
			var created mcp.CreateTaskResult
			if err := c.Call(t.Context(), mcp.MethodToolsCall, &mcp.CallToolParams{Name: "stuck", Task: &mcp.TaskMetadata{}}, &created); err != nil {
				t.Fatal(err)
			}
			synctest.Wait() // the work has started
			start := time.Now()
			var err error
			wait := tasks.DefaultCloseWait
			if viaShutdown {
				wait = time.Minute
				ctx, cancel := context.WithTimeout(context.Background(), wait)
				err = srv.Shutdown(ctx)
				cancel()
			} else {
				srv.Close()
			}
			if took := time.Since(start); took != wait {
				t.Errorf("closing took %v, want %v", took, wait)
			}
			if viaShutdown && !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("Shutdown: %v, want the deadline's error", err)
			}
			if out := logs.String(); !strings.Contains(out, "level=WARN") || !strings.Contains(out, created.Task.TaskID) {
				t.Errorf("the log names not the task left running:\n%s", out)
			}
			close(release) // the work returns after Close: nothing breaks
			synctest.Wait()
			if n := srv.Tasks().Len(); n != 0 {
				t.Errorf("%d tasks held after Close", n)
			}
		})
	}
}
