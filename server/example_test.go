package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/tasks"
	"github.com/mcpi-dev/mcpi/transport"
)

// The examples call their servers with mcpi's client, in memory: pipeTo stands for the
// stdio or Streamable HTTP transport a real client would use (see Example_stdio and
// ExampleServer_HTTPHandler).
func pipeTo(srv *server.Server) transport.Transport {
	return transport.PipeTransport{Serve: func(ctx context.Context, conn jsonrpc.Connection) error {
		srv.Connect(ctx, conn)
		return nil
	}}
}

// connect opens a client session with srv in the era of version.
func connect(srv *server.Server, version string, opts *client.Options) *client.Session {
	o := client.Options{ProtocolVersion: version}
	if opts != nil {
		o = *opts
		o.ProtocolVersion = version
	}
	s, err := client.New(mcp.Implementation{Name: "example-client", Version: "1"}, &o).Connect(context.Background(), pipeTo(srv))
	if err != nil {
		log.Fatal(err)
	}
	return s
}

// A server with one tool. Modern makes it speak 2026-07-28 as well as 2025-11-25, each
// connection in the era its client asks for.
func ExampleServer_AddTool() {
	srv := server.New(mcp.Implementation{Name: "hello", Version: "1.0"}, &server.Options{Modern: true})
	srv.AddTool(&mcp.Tool{
		Name:        "greet",
		Description: "Greets someone by name.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
	}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		var args struct{ Name string }
		if err := req.Arguments(&args); err != nil {
			// A failure the model should see is a result with IsError, not an error.
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{mcp.TextContent(err.Error())}}, nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("Hello, " + args.Name + "!")}}, nil
	})

	for _, era := range []string{"2025-11-25", "2026-07-28"} {
		s := connect(srv, era, nil)
		res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "greet", Arguments: json.RawMessage(`{"name":"Ada"}`)}, nil)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(era, res.Content[0].Text)
		s.Close()
	}
	// Output:
	// 2025-11-25 Hello, Ada!
	// 2026-07-28 Hello, Ada!
}

// A tool that runs as a task. Options.Tasks turns on the task engine; the tool's
// execution.taskSupport says how clients may call it (required: only as a task). The
// handler is the same as a plain tool's, run on a context of the task's own that ends
// when the task is cancelled or expires.
func ExampleServer_AddToolWith() {
	srv := server.New(mcp.Implementation{Name: "jobs", Version: "1.0"}, &server.Options{Modern: true, Tasks: &tasks.Options{}})
	defer srv.Close()
	srv.AddToolWith(&mcp.Tool{
		Name:      "build",
		Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportRequired},
	}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		// In 2026-07-28 a call that becomes a task only when slow has a handle from then on.
		if h, ok := server.TaskFromContext(ctx); ok {
			h.SetStatus(mcp.TaskStatusWorking, "compiling") // what tasks/get shows meanwhile
		}
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("built")}}, nil
	}, &server.ToolOptions{MaxTaskTTL: time.Hour}) // whatever ttl a client asks for

	for _, era := range []string{"2025-11-25", "2026-07-28"} {
		s := connect(srv, era, nil)
		task, res, err := s.RunToolTask(context.Background(), &mcp.CallToolParams{Name: "build"}, nil)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(task.Dialect(), task.State().Status, res.Content[0].Text)
		s.Close()
	}
	// Output:
	// 2025-11-25 completed built
	// 2026-07-28 extension completed built
}

// A tool that asks the client's user. One handler serves both eras: in 2025-11-25 Elicit
// sends elicitation/create and waits; in 2026-07-28 it returns ErrInputRequired, the
// call is answered input_required, and the client's retry runs the handler again, where
// Elicit finds the answer. So the handler asks the same questions in the same order, and
// returns as soon as one is not answered yet.
func ExampleSession_Elicit() {
	srv := server.New(mcp.Implementation{Name: "hello", Version: "1.0"}, &server.Options{Modern: true})
	srv.AddTool(&mcp.Tool{Name: "greet_user"}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		r, err := req.Session.Elicit(ctx, &mcp.ElicitParams{
			Message:         "What is your name?",
			RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
		})
		if err != nil {
			return nil, err // ErrInputRequired included: the server knows what to do with it
		}
		if r.Action != mcp.ElicitActionAccept {
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("Hello, stranger.")}}, nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(fmt.Sprintf("Hello, %v!", r.Content["name"]))}}, nil
	})

	answer := &client.Options{OnRequest: func(ctx context.Context, r *client.Request) { r.Accept(map[string]any{"name": "Ada"}) }}
	for _, era := range []string{"2025-11-25", "2026-07-28"} {
		s := connect(srv, era, answer)
		res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "greet_user"}, nil)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(era, res.Content[0].Text)
		s.Close()
	}
	// Output:
	// 2025-11-25 Hello, Ada!
	// 2026-07-28 Hello, Ada!
}

// Serve over Streamable HTTP: HTTPHandler is an http.Handler for any net/http server
// (httptest here), and serves both eras on one endpoint when Options.Modern is set.
func ExampleServer_HTTPHandler() {
	srv := server.New(mcp.Implementation{Name: "hello", Version: "1.0"}, &server.Options{Modern: true})
	defer srv.Close()
	srv.AddTool(&mcp.Tool{Name: "ping_me"}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("pong")}}, nil
	})
	// nil options: browsers may call only from the server's own origin, at most 256
	// sessions, idle ones ended after 10 minutes (see transport.HTTPOptions).
	h := srv.HTTPHandler(nil)
	defer h.Close()             // ends its sessions
	ts := httptest.NewServer(h) // or http.ListenAndServe("127.0.0.1:8931", ...)
	defer ts.Close()

	ctx := context.Background()
	c := client.New(mcp.Implementation{Name: "example-client", Version: "1"}, nil)
	s, err := c.Connect(ctx, &transport.HTTPClient{URL: ts.URL})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "ping_me"}, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(s.ProtocolVersion(), res.Content[0].Text)
	// Output:
	// 2026-07-28 pong
}

// Bind 2026-07-28 tasks to the caller's identity. A task of the Tasks extension belongs
// to no session: by default a request reaches it with the same Authorization header as
// the one that made it. TaskOwner names the caller instead, here from a header that an
// authenticating proxy in front of the server would set. To anyone else the task is an
// unknown id.
func ExampleOptions_taskOwner() {
	srv := server.New(mcp.Implementation{Name: "jobs", Version: "1.0"}, &server.Options{
		Modern:    true,
		Tasks:     &tasks.Options{},
		TaskOwner: func(r *http.Request) string { return r.Header.Get("X-User") },
	})
	defer srv.Close()
	srv.AddTool(&mcp.Tool{Name: "report", Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportRequired}},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("the report")}}, nil
		})
	ts := httptest.NewServer(srv.HTTPHandler(nil))
	defer ts.Close()

	ctx := context.Background()
	as := func(user string) *client.Session {
		t := &transport.HTTPClient{URL: ts.URL, Header: http.Header{"X-User": {user}}}
		s, err := client.New(mcp.Implementation{Name: "example-client", Version: "1"}, nil).Connect(ctx, t)
		if err != nil {
			log.Fatal(err)
		}
		return s
	}
	ada, bob := as("ada"), as("bob")
	defer ada.Close()
	defer bob.Close()
	task, err := ada.StartToolTask(ctx, &mcp.CallToolParams{Name: "report"}, nil)
	if err != nil {
		log.Fatal(err)
	}
	_, err = bob.TaskResult(ctx, task.ID())
	fmt.Println("bob:", errors.Is(err, client.ErrTaskGone))
	res, err := ada.TaskResult(ctx, task.ID())
	fmt.Println("ada:", res.Content[0].Text, err)
	// Output:
	// bob: true
	// ada: the report <nil>
}
