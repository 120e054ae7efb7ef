package server_test

import (
	"context"
	"testing"
	"testing/synctest"

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
