package root

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/transport"
)

// fakeServerEnv makes the test binary a stdio MCP server that misbehaves as its value
// says (see fakeServer), for mcpi to meet what its own servers never do.
const fakeServerEnv = "MCPI_TEST_FAKE_SERVER"

// fakeStdio is the --stdio and --env flags that run the fake server in mode.
func fakeStdio(mode string) []string {
	return []string{"--stdio", "'" + os.Args[0] + "' -test.run=^$", "--env", fakeServerEnv + "=" + mode}
}

// fakeServer serves stdio until stdin ends. Modes:
//
//	endless  tools/list, prompts/list, resources/list, resources/templates/list and
//	         tasks/list hand out a new cursor forever
//	huge     tools/list answers with a tool whose description is 5 MiB long
//	mute     answers nothing but initialize, until the request is withdrawn
//	stderr   writes a 2 MiB line and 200 KiB more to stderr before it serves
//	mute-call  lists the tool "wait" (taskSupport optional) and never answers tools/call
//	garbage  writes lines that are not JSON to stdout for ever, and never reads stdin
//	spoken-garbage  the same, after one message (a notifications/message): past the
//	         bound on stray lines before the first message
func fakeServer(mode string) int {
	handle := func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		switch req.Method {
		case mcp.MethodInitialize:
			return &mcp.InitializeResult{
				ProtocolVersion: mcp.LatestProtocolVersion,
				ServerInfo:      mcp.Implementation{Name: "fake-" + mode, Version: "1"},
				Capabilities: mcp.ServerCapabilities{
					Tools:     &mcp.ToolsCapability{},
					Prompts:   &mcp.PromptsCapability{},
					Resources: &mcp.ResourcesCapability{},
					Tasks: &mcp.ServerTasksCapability{List: &struct{}{}, Cancel: &struct{}{},
						Requests: &mcp.ServerTaskRequests{Tools: &mcp.TaskToolRequests{Call: &struct{}{}}}},
				},
			}, nil
		}
		if req.IsNotification() {
			return nil, nil // handled on the reading goroutine: never to block
		}
		switch {
		case mode != "mute" && req.Method == mcp.MethodPing:
			return struct{}{}, nil
		case mode == "mute", mode == "mute-call" && req.Method == mcp.MethodToolsCall:
			<-ctx.Done()
			return nil, ctx.Err()
		case mode == "mute-call" && req.Method == mcp.MethodToolsList:
			return &mcp.ListToolsResult{Tools: []mcp.Tool{{Name: "wait", InputSchema: json.RawMessage(`{"type":"object"}`),
				Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}}}}, nil
		case mode == "endless":
			return endlessPage(req)
		case mode == "huge" && req.Method == mcp.MethodToolsList:
			return &mcp.ListToolsResult{Tools: []mcp.Tool{{Name: "big", Description: strings.Repeat("x", 5<<20),
				InputSchema: json.RawMessage(`{"type":"object"}`)}}}, nil
		}
		return nil, jsonrpc.ErrMethodNotFound
	}
	if mode == "garbage" || mode == "spoken-garbage" {
		w := bufio.NewWriter(os.Stdout)
		if mode == "spoken-garbage" {
			w.WriteString(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"starting"}}` + "\n")
		}
		for {
			if _, err := w.WriteString("this is not JSON\n"); err != nil {
				return 0
			}
		}
	}
	if mode == "stderr" {
		w := bufio.NewWriter(os.Stderr)
		w.WriteString(strings.Repeat("e", 2<<20) + "\n" + strings.Repeat(strings.Repeat("f", 1023)+"\n", 200))
		w.Flush()
	}
	conn := jsonrpc.NewConn(transport.NewStream(os.Stdin, os.Stdout, 0), jsonrpc.Options{Handler: jsonrpc.HandlerFunc(handle)})
	<-conn.Done()
	return 0
}

// endlessPage answers a list with one item and the next of endless cursors.
func endlessPage(req *jsonrpc.Request) (any, error) {
	var p mcp.PaginatedParams
	n := 0
	if json.Unmarshal(req.Params, &p) == nil {
		fmt.Sscanf(strings.TrimPrefix(p.Cursor, "c"), "%d", &n)
	}
	next := fmt.Sprintf("c%d", n+1)
	switch req.Method {
	case mcp.MethodToolsList:
		return &mcp.ListToolsResult{Tools: []mcp.Tool{{Name: fmt.Sprintf("t%d", n), InputSchema: json.RawMessage(`{"type":"object"}`)}}, NextCursor: next}, nil
	case mcp.MethodPromptsList:
		return &mcp.ListPromptsResult{Prompts: []mcp.Prompt{{Name: fmt.Sprintf("p%d", n)}}, NextCursor: next}, nil
	case mcp.MethodResourcesList:
		return &mcp.ListResourcesResult{Resources: []mcp.Resource{{URI: fmt.Sprintf("file:///r%d", n), Name: fmt.Sprintf("r%d", n)}}, NextCursor: next}, nil
	case mcp.MethodResourcesTemplatesList:
		return &mcp.ListResourceTemplatesResult{ResourceTemplates: []mcp.ResourceTemplate{{URITemplate: fmt.Sprintf("file:///r%d/{x}", n), Name: fmt.Sprintf("rt%d", n)}}, NextCursor: next}, nil
	case mcp.MethodTasksList:
		return &mcp.ListTasksResult{Tasks: []mcp.Task{{TaskID: fmt.Sprintf("t%d", n), Status: mcp.TaskStatusWorking}}, NextCursor: next}, nil
	}
	return nil, jsonrpc.ErrMethodNotFound
}
