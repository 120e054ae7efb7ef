// Command gosdk-client is a go-sdk (github.com/modelcontextprotocol/go-sdk v1.8.0) MCP
// client for mcpi's interop tests: it connects to the server at URL (Streamable HTTP) or
// runs the command after --stdio, lists the tools, calls echo {"text":"hi"} and ask_user
// {} (answering its elicitation with name Ada and colour green), and prints one JSON
// object: the protocol version, the tool names and the two results' texts. go-sdk
// v1.8.0 speaks 2026-07-28 (server/discover, per-request _meta, MRTR) and 2025-11-25.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "gosdk-client:", err)
		os.Exit(1)
	}
}

func run() error {
	if len(os.Args) < 2 {
		return fmt.Errorf("usage: gosdk-client URL | --stdio CMD [ARG...]")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var t mcp.Transport
	if os.Args[1] == "--stdio" {
		t = &mcp.CommandTransport{Command: exec.Command(os.Args[2], os.Args[3:]...)}
	} else {
		t = &mcp.StreamableClientTransport{Endpoint: os.Args[1]}
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "gosdk-interop-client", Version: "1.0.0"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada", "color": "green"}}, nil
		},
	})
	cs, err := c.Connect(ctx, t, nil)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer cs.Close()
	out := map[string]any{"protocolVersion": cs.InitializeResult().ProtocolVersion}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	out["tools"] = names
	for _, call := range []struct {
		name string
		args map[string]any
	}{{"echo", map[string]any{"text": "hi"}}, {"ask_user", map[string]any{}}} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: call.name, Arguments: call.args})
		if err != nil {
			return fmt.Errorf("tools/call %s: %w", call.name, err)
		}
		text := ""
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text += tc.Text
			}
		}
		out[call.name] = map[string]any{"text": text, "isError": res.IsError}
	}
	return json.NewEncoder(os.Stdout).Encode(out)
}
