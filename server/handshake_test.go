package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/transport"
)

// TestRequestsRightAfterInitializeAreServed: requests a client sends on the stream right
// after initialize and notifications/initialized, before the initialize response came,
// are served once initialize is handled, however long it takes: messages of one stream
// are taken in order for the session's state. About 1 run in 7 refused them ("the
// session is not initialized") when their handler ran before initialize's.
func TestRequestsRightAfterInitializeAreServed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := server.New(mcp.Implementation{Name: "slow-init", Version: "1"}, &server.Options{
			Handlers: map[string]server.MethodHandler{
				mcp.MethodInitialize: func(ctx context.Context, s *server.Session, req *jsonrpc.Request) (any, error) {
					time.Sleep(time.Second) // a handshake that takes its time
					return nil, server.ErrNotHandled
				},
			},
		})
		defer srv.Close()
		a, b := transport.Pipe()
		srv.Connect(t.Context(), a)
		c := jsonrpc.NewConn(b, jsonrpc.Options{})
		defer c.Close()
		initialized := make(chan error, 1)
		params := &mcp.InitializeParams{ProtocolVersion: mcp.LatestProtocolVersion, ClientInfo: mcp.Implementation{Name: "t", Version: "1"}}
		if err := c.Go(t.Context(), mcp.MethodInitialize, params, func(_ json.RawMessage, err error) { initialized <- err }); err != nil {
			t.Fatal(err)
		}
		if err := c.Notify(t.Context(), mcp.NotificationInitialized, nil); err != nil {
			t.Fatal(err)
		}
		var res mcp.ListToolsResult
		if err := c.Call(t.Context(), mcp.MethodToolsList, nil, &res); err != nil {
			t.Errorf("tools/list sent right after initialize: %v, want it served", err)
		}
		if err := <-initialized; err != nil {
			t.Errorf("initialize: %v", err)
		}
	})
}

// TestParamsMustBeAnObject: MCP's params are objects; "params":[] is refused with
// -32602, on ping as on any method (it was accepted).
func TestParamsMustBeAnObject(t *testing.T) {
	srv := server.New(mcp.Implementation{Name: "t", Version: "1"}, nil)
	defer srv.Close()
	c := rawSession(t, srv)
	for _, method := range []string{mcp.MethodPing, mcp.MethodToolsList} {
		err := c.Call(t.Context(), method, []any{}, nil)
		var rpc *jsonrpc.Error
		if !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeInvalidParams || rpc.Message != "invalid params: MCP params must be a JSON object, not an array" {
			t.Errorf("%s with params []: %v, want -32602", method, err)
		}
		if !errors.Is(err, mcp.ErrParamsArray) {
			t.Errorf("%s with params []: %v, want errors.Is mcp.ErrParamsArray", method, err)
		}
	}
	if err := c.Call(t.Context(), mcp.MethodPing, map[string]any{}, nil); err != nil {
		t.Errorf("ping with params {}: %v", err)
	}
}
