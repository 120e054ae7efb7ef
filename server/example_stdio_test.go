package server_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/transport"
)

// init stands in for the main of a stdio server program: it serves on the process's
// stdin and stdout until the client closes stdin. The example runs this very test
// binary as that program, telling it so with a variable.
func init() {
	if os.Getenv("EXAMPLE_STDIO_SERVER") == "" {
		return
	}
	srv := server.New(mcp.Implementation{Name: "hello-stdio", Version: "1.0"}, &server.Options{Modern: true})
	srv.AddTool(&mcp.Tool{Name: "whoami"}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("a server on stdio")}}, nil
	})
	// stdout carries the protocol: a server logs on stderr, which its client reads.
	if err := srv.Run(context.Background(), transport.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
	os.Exit(0)
}

// Serve over stdio: the client starts the server as a child process and speaks MCP on
// its stdin and stdout.
func Example_stdio() {
	ctx := context.Background()
	c := client.New(mcp.Implementation{Name: "example-client", Version: "1"}, nil)
	s, err := c.Connect(ctx, &transport.Command{Path: os.Args[0], Env: []string{"EXAMPLE_STDIO_SERVER=1"}})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close() // closes the server's stdin, and stops it if it does not exit
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "whoami"}, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(s.ProtocolVersion(), res.Content[0].Text)
	// Output:
	// 2026-07-28 a server on stdio
}
