package conformance_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/conformance"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/transport"
)

// pipeTransport hands the client one end of an in-memory connection, as stdio would.
type pipeTransport struct{ conn jsonrpc.Connection }

func (p pipeTransport) Connect(context.Context) (jsonrpc.Connection, error) { return p.conn, nil }

// connectEra opens a session with mcpi's own client over Streamable HTTP or an
// in-memory stream, in auto mode (which picks 2026-07-28 on this server) or pinned to
// version. The client answers sampling and elicitation like the suite's client, and
// offers one root.
func connectEra(t *testing.T, overHTTP bool, version string) (context.Context, *client.Session) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	t.Cleanup(cancel)
	srv := conformance.NewServer()
	t.Cleanup(srv.Close)
	var tr transport.Transport
	if overHTTP {
		h := srv.HTTPHandler(nil)
		ts := httptest.NewServer(h)
		t.Cleanup(func() {
			h.Close()
			ts.Close()
		})
		tr = &transport.HTTPClient{URL: ts.URL + "/mcp"}
	} else {
		a, b := transport.Pipe()
		srv.Connect(ctx, a)
		tr = pipeTransport{b}
	}
	c := client.New(mcp.Implementation{Name: "mcpi-test", Version: "1"}, &client.Options{
		Capabilities: &mcp.ClientCapabilities{Sampling: &mcp.SamplingCapability{}, Elicitation: &mcp.ElicitationCapability{},
			Roots: &mcp.RootsCapability{}},
		Roots:           []mcp.Root{{URI: "file:///work", Name: "work"}},
		ProtocolVersion: version,
		OnRequest: func(ctx context.Context, r *client.Request) {
			switch {
			case r.Sampling != nil:
				_ = r.Respond(&mcp.CreateMessageResult{Role: mcp.RoleAssistant, Model: "m", Content: []mcp.Content{mcp.TextContent("Hi there")}})
			case r.Elicitation != nil:
				_ = r.Accept(map[string]any{"name": "Ann", "color": "teal", "ok": true})
			}
		},
	})
	s, err := c.Connect(ctx, tr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return ctx, s
}

// One handler API in both eras: the input-required fixtures ask with Session.Inputs;
// in 2025-11-25 that sends the client requests, in 2026-07-28 it answers input_required
// and the client's retry brings the answers. mcpi's own client does either.
func TestInputFixturesInBothEras(t *testing.T) {
	for _, c := range []struct {
		name     string
		overHTTP bool
		version  string
		want     string
	}{
		{"2026 over HTTP", true, "", mcp.ProtocolVersion20260728},
		{"2026 over a stream", false, "", mcp.ProtocolVersion20260728},
		{"2025 over HTTP", true, mcp.LatestProtocolVersion, mcp.LatestProtocolVersion},
		{"2025 over a stream", false, mcp.LatestProtocolVersion, mcp.LatestProtocolVersion},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, s := connectEra(t, c.overHTTP, c.version)
			if got := s.ProtocolVersion(); got != c.want {
				t.Fatalf("protocol version %s, want %s", got, c.want)
			}
			for tool, want := range map[string]string{
				"test_input_required_result_elicitation":     "Hello, Ann!",
				"test_input_required_result_multi_round":     "Ann likes teal",
				"test_input_required_result_multiple_inputs": "name=Ann greeting=Hi there roots=",
				"test_input_required_result_list_roots":      "file:///work",
			} {
				res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: tool}, &client.CallOptions{SendAnyway: true})
				if err != nil {
					t.Fatalf("%s: %v", tool, err)
				}
				if len(res.Content) == 0 || !strings.Contains(res.Content[0].Text, want) {
					t.Errorf("%s = %+v, want %q", tool, res.Content, want)
				}
			}
		})
	}
}
