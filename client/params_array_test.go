package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// TestServerRequestParamsArray: a server request whose params are an array (JSON-RPC's
// positional params, which MCP has none of) is answered -32602, as mcpi's server answers
// a client's: ping and roots/list took them.
func TestServerRequestParamsArray(t *testing.T) {
	_, srv := rawServerConn(t, nil, func(context.Context, *jsonrpc.Request) (any, error) { return nil, jsonrpc.ErrMethodNotFound })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a bound, not a measure
	defer cancel()
	for _, method := range []string{mcp.MethodPing, mcp.MethodRootsList, mcp.MethodElicitationCreate} {
		err := srv.Call(ctx, method, json.RawMessage(`[]`), nil)
		var rpc *jsonrpc.Error
		if !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeInvalidParams || rpc.Message != "invalid params: MCP params must be a JSON object, not an array" {
			t.Errorf("%s with params []: %v, want -32602 \"invalid params: MCP params must be a JSON object, not an array\"", method, err)
		}
		if !errors.Is(err, mcp.ErrParamsArray) {
			t.Errorf("%s with params []: %v, want errors.Is mcp.ErrParamsArray", method, err)
		}
	}
}
