package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpi-dev/mcpi/internal/tasktest"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/transport"
)

// connectRaw connects a bare JSON-RPC client that answers requests with handle and
// hosts elicitation tasks to srv, and returns the server's session once initialized.
func connectRaw(t *testing.T, srv *server.Server, handle jsonrpc.HandlerFunc) *server.Session {
	t.Helper()
	a, b := transport.Pipe()
	ss := srv.Connect(context.Background(), b)
	conn := jsonrpc.NewConn(a, jsonrpc.Options{Handler: handle})
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
	for _, c := range tasktest.HugeIntervals {
		t.Run(c.Name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := server.New(mcp.Implementation{Name: "s", Version: "1"}, nil)
				defer srv.Close()
				peer := tasktest.NewStuck(mcp.MethodElicitationCreate, c)
				ss := connectRaw(t, srv, peer.Handle)
				ct, err := ss.ElicitTask(context.Background(), &mcp.ElicitParams{Message: "?"}, 0)
				if err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan error, 1)
				go func() { done <- ct.Result(ctx, new(mcp.ElicitResult)) }()
				peer.ExpectPolls(t, c, cancel)
				cancel()
				<-done
			})
		})
	}
}

// ClientTask.State never goes back from cancelled to working when a tasks/get answer
// read before the cancel is handled after the tasks/cancel answer.
func TestClientTaskStateNeverLeavesTerminal(t *testing.T) {
	const rounds = 200
	srv := server.New(mcp.Implementation{Name: "s", Version: "1"}, nil)
	defer srv.Close()
	var mu sync.Mutex
	state := map[string]mcp.TaskStatus{}
	ss := connectRaw(t, srv, func(_ context.Context, req *jsonrpc.Request) (any, error) {
		var p struct{ TaskID string }
		_ = json.Unmarshal(req.Params, &p)
		mu.Lock()
		defer mu.Unlock()
		switch req.Method {
		case mcp.MethodElicitationCreate:
			p.TaskID = fmt.Sprint("t", len(state))
			state[p.TaskID] = mcp.TaskStatusWorking
		case mcp.MethodTasksCancel:
			state[p.TaskID] = mcp.TaskStatusCancelled
		}
		now := mcp.FormatTime(time.Now())
		task := mcp.Task{TaskID: p.TaskID, Status: state[p.TaskID], CreatedAt: now, LastUpdatedAt: now}
		if req.Method == mcp.MethodElicitationCreate {
			return &mcp.CreateTaskResult{Task: task}, nil
		}
		return &mcp.GetTaskResult{Task: task}, nil // tasks/get and tasks/cancel alike
	})
	regressed := 0
	for range rounds {
		ct, err := ss.ElicitTask(t.Context(), &mcp.ElicitParams{Message: "?"}, 0)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		wg.Go(func() { _, _ = ct.Get(t.Context()) })
		wg.Go(func() { _, _ = ct.Cancel(t.Context()) })
		wg.Wait()
		if ct.State().Status != mcp.TaskStatusCancelled {
			regressed++
		}
	}
	if regressed > 0 {
		t.Errorf("%d of %d: State() is not cancelled after tasks/cancel returned", regressed, rounds)
	}
}
