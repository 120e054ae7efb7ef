package server_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/transport"
)

// rawClient is a bare JSON-RPC client of srv that runs every elicitation as a task that
// never ends, suggesting pollInterval and ttl (milliseconds; nil: none), and counts the
// server's polls.
type rawClient struct {
	task mcp.Task

	mu    sync.Mutex
	polls int
	flood chan struct{} // closed at the hundredth poll
}

func (c *rawClient) handle(_ context.Context, req *jsonrpc.Request) (any, error) {
	switch req.Method {
	case mcp.MethodElicitationCreate:
		return &mcp.CreateTaskResult{Task: c.task}, nil
	case mcp.MethodTasksGet:
		c.mu.Lock()
		c.polls++
		if c.polls == 100 {
			close(c.flood)
		}
		c.mu.Unlock()
		return &mcp.GetTaskResult{Task: c.task}, nil
	}
	return nil, jsonrpc.ErrMethodNotFound
}

func (c *rawClient) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.polls
}

// connectRaw connects c to srv and returns the server's session once initialized.
func connectRaw(t *testing.T, srv *server.Server, c *rawClient) *server.Session {
	t.Helper()
	a, b := transport.Pipe()
	ss := srv.Connect(context.Background(), b)
	conn := jsonrpc.NewConn(a, jsonrpc.Options{Handler: jsonrpc.HandlerFunc(c.handle)})
	t.Cleanup(func() { conn.Close() })
	ctx := context.Background()
	caps := mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{}, Tasks: &mcp.ClientTasksCapability{
		Requests: &mcp.ClientTaskRequests{Elicitation: &mcp.TaskElicitationRequests{Create: &struct{}{}}}}}
	err := conn.Call(ctx, mcp.MethodInitialize, &mcp.InitializeParams{ProtocolVersion: mcp.LatestProtocolVersion,
		Capabilities: caps, ClientInfo: mcp.Implementation{Name: "raw", Version: "1"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := conn.Notify(ctx, mcp.NotificationInitialized, nil); err != nil {
		t.Fatal(err)
	}
	return ss
}

// TestClientTaskHugePollInterval: the server's follower of a client task bounds the
// client's pollInterval (9e12 ms and more wrapped or waited for centuries) by
// MaxClientPollInterval and by the task's ttl.
func TestClientTaskHugePollInterval(t *testing.T) {
	ttl10s := int64(10_000)
	for _, tt := range []struct {
		name      string
		interval  int64
		ttl       *int64
		quiet, by time.Duration
	}{
		{"292 years", 9_223_372_036_854, nil, 5 * time.Second, 2 * time.Minute},
		{"overflows", 1e13, nil, 5 * time.Second, 2 * time.Minute},
		{"31 years, ttl 10s", 1e12, &ttl10s, 5 * time.Second, 12 * time.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := server.New(mcp.Implementation{Name: "s", Version: "1"}, nil)
				defer srv.Close()
				now := mcp.FormatTime(time.Now())
				c := &rawClient{flood: make(chan struct{}), task: mcp.Task{TaskID: "c1", Status: mcp.TaskStatusWorking,
					CreatedAt: now, LastUpdatedAt: now, PollInterval: &tt.interval, TTL: tt.ttl}}
				ss := connectRaw(t, srv, c)
				ct, err := ss.ElicitTask(context.Background(), &mcp.ElicitParams{Message: "?"}, 0)
				if err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan error, 1)
				go func() { done <- ct.Result(ctx, new(mcp.ElicitResult)) }()
				select {
				case <-c.flood:
					cancel()
					t.Fatalf("the server polls nonstop with a pollInterval of %d ms", tt.interval)
				case <-time.After(tt.quiet):
				}
				if n := c.count(); n > 0 {
					t.Fatalf("%d polls within %s", n, tt.quiet)
				}
				time.Sleep(tt.by - tt.quiet)
				if n := c.count(); n < 1 || n > 2 {
					t.Errorf("%d polls within %s, want 1 or 2", n, tt.by)
				}
				cancel()
				<-done
			})
		})
	}
}
