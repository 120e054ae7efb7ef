package server_test

import (
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/transport"
)

// TestInitializeRetention: a session keeps what the server needs of initialize for its
// whole life (capabilities, version, a bounded clientInfo), not what the client chose to
// send along.
func TestInitializeRetention(t *testing.T) {
	srv := server.New(mcp.Implementation{Name: "keep", Version: "1"}, nil)
	defer srv.Close()
	toServer, fromClient := io.Pipe()
	fromServer, toClient := io.Pipe()
	ss := srv.Connect(t.Context(), transport.NewStream(toServer, toClient, 16<<20))
	c := jsonrpc.NewConn(transport.NewStream(fromServer, fromClient, 16<<20), jsonrpc.Options{})
	defer c.Close()

	huge := strings.Repeat("é", 1<<20) // 2 MiB, two bytes a rune
	p := &mcp.InitializeParams{
		ProtocolVersion: mcp.LatestProtocolVersion,
		Capabilities: mcp.ClientCapabilities{
			Sampling: &mcp.SamplingCapability{},
			Experimental: map[string]json.RawMessage{
				"small": json.RawMessage(`{"on":true}`),
				"huge":  json.RawMessage(`"` + huge + `"`),
			},
			Extensions: map[string]json.RawMessage{mcp.ExtensionTasks: json.RawMessage(`{}`)},
		},
		ClientInfo: mcp.Implementation{
			Name: "client", Version: "1.0", Title: huge, Description: huge,
			Icons: []mcp.Icon{{Src: "data:image/png;base64," + huge}},
		},
		Meta: mcp.Meta{"x": huge},
	}
	if err := c.Call(t.Context(), mcp.MethodInitialize, p, nil); err != nil {
		t.Fatal(err)
	}
	got := ss.InitializeParams()
	if got.ProtocolVersion != mcp.LatestProtocolVersion || got.ClientInfo.Name != "client" || got.ClientInfo.Version != "1.0" {
		t.Errorf("kept %q %+v, want the version and the client's name and version", got.ProtocolVersion, got.ClientInfo)
	}
	if got.Capabilities.Sampling == nil || string(got.Capabilities.Experimental["small"]) != `{"on":true}` ||
		got.Capabilities.Extensions[mcp.ExtensionTasks] == nil {
		t.Errorf("capabilities %+v, want sampling, the small experimental entry and the tasks extension", got.Capabilities)
	}
	if _, ok := got.Capabilities.Experimental["huge"]; ok {
		t.Error("kept the huge experimental capability")
	}
	for name, v := range map[string]string{"title": got.ClientInfo.Title, "description": got.ClientInfo.Description} {
		if len(v) > 1100 || !strings.HasPrefix(huge, strings.TrimSuffix(v, "…")) {
			t.Errorf("clientInfo.%s kept %d bytes (%q...), want it cut to about 1 KiB of whole runes", name, len(v), v[:min(len(v), 8)])
		}
	}
	if len(got.ClientInfo.Icons) != 0 || len(got.Meta) != 0 {
		t.Errorf("kept %d icons and _meta %d keys, want none", len(got.ClientInfo.Icons), len(got.Meta))
	}
}
