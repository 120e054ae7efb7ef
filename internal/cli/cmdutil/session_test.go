package cmdutil

import (
	"context"
	"fmt"
	"testing"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// refusing is a [RequestHandler] that refused a request, or none.
type refusing struct{ refused error }

func (h refusing) Refused() error { return h.refused }
func (refusing) Choose(context.Context, string, string) (byte, error) {
	return 0, fmt.Errorf("no terminal")
}
func (refusing) Wait()                 {}
func (refusing) Left() <-chan struct{} { return nil }

// A refused request is reported once the server has given the call's outcome, whatever it
// is (a server may go on without the answer), but not when the call has none: it was
// interrupted, or ended without a word from the server.
func TestRefusal(t *testing.T) {
	refused := &NeedTerminalError{Needs: []Need{{What: "elicitation"}}, Tool: "ask"}
	rpc := fmt.Errorf("tools/call: %w", jsonrpc.NewError(-32050, "no answer"))
	ok, isError := &mcp.CallToolResult{}, &mcp.CallToolResult{IsError: true}
	tests := []struct {
		name    string
		refused error
		res     *mcp.CallToolResult
		err     error
		want    error
	}{
		{"JSON-RPC error", refused, nil, rpc, refused},
		{"tool error", refused, isError, nil, refused},
		{"success", refused, ok, nil, refused},
		{"task ended", refused, nil, &client.TaskEndError{TaskID: "t", Reason: client.ErrTaskCancelled}, refused},
		{"interrupted", refused, nil, context.Canceled, nil},
		{"no outcome", refused, nil, nil, nil},
		{"nothing refused", nil, isError, nil, nil},
		{"nothing refused, JSON-RPC error", nil, nil, rpc, nil},
	}
	for _, tt := range tests {
		s := NewSession(nil, refusing{tt.refused})
		if got := s.Refusal(tt.res, tt.err); got != tt.want {
			t.Errorf("%s: Refusal = %v, want %v", tt.name, got, tt.want)
		}
	}
}
