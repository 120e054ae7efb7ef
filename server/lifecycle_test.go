package server_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/tasks"
	"github.com/mcpi-dev/mcpi/transport"
)

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

// initialized starts a 2025-11-25 session on conn with a bare JSON-RPC connection.
func initialized(t *testing.T, conn jsonrpc.Connection) *jsonrpc.Conn {
	t.Helper()
	c := jsonrpc.NewConn(conn, jsonrpc.Options{})
	t.Cleanup(func() { c.Close() })
	params := &mcp.InitializeParams{ProtocolVersion: mcp.LatestProtocolVersion, ClientInfo: mcp.Implementation{Name: "t", Version: "1"}}
	if err := c.Call(t.Context(), mcp.MethodInitialize, params, &mcp.InitializeResult{}); err != nil {
		t.Fatal(err)
	}
	if err := c.Notify(t.Context(), mcp.NotificationInitialized, nil); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestTasksEndWithTheirSession: without AdoptOrphanTasks nobody can reach the tasks of a
// session that ended, so they end with it: their work's context ends and they are
// deleted, whether the session ended with its connection (a pipe) or with an HTTP
// DELETE. They ran on until their TTL, held against the caps. With adoption on, they run
// on for a later session to adopt.
func TestTasksEndWithTheirSession(t *testing.T) {
	for _, c := range []struct {
		name  string
		http  bool
		adopt bool
	}{{"pipe", false, false}, {"http", true, false}, {"pipe with adoption", false, true}} {
		t.Run(c.name, func(t *testing.T) {
			srv := server.New(mcp.Implementation{Name: "orphans", Version: "1"}, &server.Options{
				Tasks: &tasks.Options{}, AdoptOrphanTasks: c.adopt})
			defer srv.Close()
			stopped := make(chan struct{})
			srv.AddTool(&mcp.Tool{Name: "long", Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}},
				func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
					<-ctx.Done()
					close(stopped)
					return nil, ctx.Err()
				})
			var ended <-chan struct{} // the server's end of the latest pipe session
			connect := func() jsonrpc.Connection {
				if !c.http {
					a, b := transport.Pipe()
					ended = srv.Connect(context.Background(), a).Done()
					return b
				}
				ts := serveHTTP(t, srv)
				conn, err := (&transport.HTTPClient{URL: ts.URL}).Connect(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				return conn
			}
			first := initialized(t, connect())
			var created mcp.CreateTaskResult
			if err := first.Call(t.Context(), mcp.MethodToolsCall, &mcp.CallToolParams{Name: "long", Task: &mcp.TaskMetadata{}}, &created); err != nil {
				t.Fatal(err)
			}
			first.Close() // over HTTP: DELETE
			if c.adopt {
				// The server learns of a pipe's end when it reads it; until then the
				// task is still its session's, as a task of a live session must be.
				<-ended
			}
			if !c.adopt {
				select {
				case <-stopped:
				case <-time.After(5 * time.Second):
					t.Fatal("the work of the ended session's task runs on")
				}
			}
			second := initialized(t, connect())
			var got mcp.GetTaskResult
			err := second.Call(t.Context(), mcp.MethodTasksGet, &mcp.GetTaskParams{TaskID: created.Task.TaskID}, &got)
			if c.adopt {
				select {
				case <-stopped:
					err = errors.New("its work was stopped")
				default:
				}
				if err != nil || got.Task.Status != mcp.TaskStatusWorking {
					t.Fatalf("tasks/get from the adopting session: %+v, %v", got.Task, err)
				}
				return
			}
			var rerr *jsonrpc.Error
			if !errors.As(err, &rerr) || rerr.Code != jsonrpc.CodeInvalidParams {
				t.Errorf("tasks/get from another session: %v, want -32602", err)
			}
			if n := srv.Tasks().Len(); n != 0 {
				t.Errorf("%d tasks held after their session ended", n)
			}
		})
	}
}
