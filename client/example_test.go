package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http/httptest"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/transport"
)

// The examples talk to mcpi's demo server in memory. A real program names its server
// with a transport.Command (stdio) or a transport.HTTPClient (Streamable HTTP) instead.

// pipeTo is a transport to srv in the same process, as transport.Command would be to a
// server process.
func pipeTo(srv *server.Server) transport.Transport {
	return transport.PipeTransport{Serve: func(ctx context.Context, conn jsonrpc.Connection) error {
		srv.Connect(ctx, conn)
		return nil
	}}
}

// Connect to a server, list its tools and call one.
func Example() {
	ctx := context.Background()
	c := client.New(mcp.Implementation{Name: "my-host", Version: "1.0"}, nil)
	s, err := c.Connect(ctx, pipeTo(demo.New(nil))) // or &transport.Command{Path: "my-server"}
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	// Tools fetches every page; a tool whose taskSupport is required runs only as a task.
	for tool, err := range s.Tools(ctx, nil) {
		if err != nil {
			log.Fatal(err)
		}
		if tool.Execution != nil && tool.Execution.TaskSupport == mcp.TaskSupportRequired {
			fmt.Println("task only:", tool.Name)
		}
	}
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: json.RawMessage(`{"a":2,"b":3}`)}, nil)
	if err != nil {
		log.Fatal(err) // the server's JSON-RPC error, or no answer at all
	}
	// A tool that fails tells the model with IsError, not with a JSON-RPC error.
	fmt.Println(res.IsError, res.Content[0].Text, string(res.StructuredContent))
	// Output:
	// task only: ask_task
	// task only: side_effect_task
	// task only: slow_task
	// false 5 {"sum":5}
}

// Run a tool as a task and wait for its result, in either protocol era. The session
// settles its era when it connects (by default the server's newest: 2026-07-28 when it
// speaks both); Session.Modern and Task.Dialect tell which it speaks.
func ExampleSession_RunToolTask() {
	ctx := context.Background()
	srv := demo.New(nil)
	for _, era := range []string{"2025-11-25", "2026-07-28"} {
		c := client.New(mcp.Implementation{Name: "my-host", Version: "1.0"}, &client.Options{ProtocolVersion: era})
		s, err := c.Connect(ctx, pipeTo(srv))
		if err != nil {
			log.Fatal(err)
		}
		// slow_task has taskSupport required, so the server makes it a task in both eras.
		p := &mcp.CallToolParams{Name: "slow_task", Arguments: json.RawMessage(`{"seconds":0,"steps":1}`)}
		task, res, err := s.RunToolTask(ctx, p, nil)
		if err != nil {
			log.Fatal(err) // the task's JSON-RPC error, or a *client.TaskEndError, ...
		}
		fmt.Printf("%s (modern %t): %q task: %s\n", s.ProtocolVersion(), s.Modern(), task.Dialect(), res.Content[0].Text)
		s.Close()
	}
	// Output:
	// 2025-11-25 (modern false): "2025-11-25" task: done: worked 0s in 1 step
	// 2026-07-28 (modern true): "2026-07-28 extension" task: done: worked 0s in 1 step
}

// In 2026-07-28 the server decides whether a call becomes a task: the demo's
// instant_task (taskSupport optional) is answered inline, with no task, so the Task has
// no ID. In 2025-11-25 the server makes it the task the client asked for.
func ExampleTask_ID() {
	ctx := context.Background()
	srv := demo.New(nil)
	for _, era := range []string{"2025-11-25", "2026-07-28"} {
		c := client.New(mcp.Implementation{Name: "my-host", Version: "1.0"}, &client.Options{ProtocolVersion: era})
		s, err := c.Connect(ctx, pipeTo(srv))
		if err != nil {
			log.Fatal(err)
		}
		task, res, err := s.RunToolTask(ctx, &mcp.CallToolParams{Name: "instant_task"}, nil)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: a task: %t, result: %s\n", era, task.ID() != "", res.Content[0].Text)
		s.Close()
	}
	// Output:
	// 2025-11-25: a task: true, result: done
	// 2026-07-28: a task: false, result: done
}

// Follow a task as it goes: CallToolTask yields its events, TaskCreated first and the
// outcome last.
func ExampleSession_CallToolTask() {
	ctx := context.Background()
	s, err := client.New(mcp.Implementation{Name: "my-host", Version: "1.0"}, nil).Connect(ctx, pipeTo(demo.New(nil)))
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	p := &mcp.CallToolParams{Name: "slow_task", Arguments: json.RawMessage(`{"seconds":0,"steps":1}`)}
	for ev := range s.CallToolTask(ctx, p, nil) {
		switch ev.Kind {
		case client.TaskCreated:
			// Working; or already completed, when the server's work was that quick.
			fmt.Println("created task")
		case client.TaskStatus:
			// ev.State.StatusMessage says how it goes; how many arrive is the server's affair.
		case client.TaskResult:
			fmt.Println("result:", ev.Result.Content[0].Text)
		case client.TaskError, client.TaskGone:
			fmt.Println("failed:", ev.Err)
		}
	}
	// Output:
	// created task
	// result: done: worked 0s in 1 step
}

// StartToolTask returns once the task exists; Task.Events follows it from its state
// now to its outcome, and may be ranged over by any number of readers.
func ExampleTask_Events() {
	ctx := context.Background()
	// In 2026-07-28 the demo would run this quick call inline: 2025-11-25 makes it a task.
	opts := &client.Options{ProtocolVersion: "2025-11-25"}
	s, err := client.New(mcp.Implementation{Name: "my-host", Version: "1.0"}, opts).Connect(ctx, pipeTo(demo.New(nil)))
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	task, err := s.StartToolTask(ctx, &mcp.CallToolParams{Name: "fail_task", Arguments: json.RawMessage(`{"mode":"error"}`)}, nil)
	if err != nil {
		log.Fatal(err)
	}
	for ev := range task.Events(ctx) {
		if ev.Kind.IsOutcome() {
			fmt.Println(ev.Kind, ev.Err)
		}
	}
	// The task failed with the exact JSON-RPC error of the tool.
	_, err = task.Outcome()
	var rpcErr *jsonrpc.Error
	fmt.Println(errors.As(err, &rpcErr), rpcErr.Code)
	// Output:
	// error fail_task failed on purpose (-32050)
	// true -32050
}

// Answer the server's elicitation and sampling requests. OnRequest is called for each on
// a goroutine of its own; the demo's ask_task asks both, in either era (in 2026-07-28
// through the task's input requests, which the client turns into the same Requests).
func ExampleOptions_onRequest() {
	ctx := context.Background()
	opts := &client.Options{OnRequest: func(ctx context.Context, r *client.Request) {
		var err error
		switch {
		case r.Elicitation != nil:
			fmt.Println("asked:", r.Elicitation.Message)
			err = r.Accept(map[string]any{"name": "Ada"}) // or r.Decline(), r.Dismiss()
		case r.Sampling != nil:
			err = r.Respond(&mcp.CreateMessageResult{Role: mcp.RoleAssistant, Model: "my-model",
				Content: []mcp.Content{mcp.TextContent("Hello, Ada!")}})
		}
		if err != nil {
			r.Refuse(err.Error()) // an answer that does not fit the request is not sent
		}
	}}
	s, err := client.New(mcp.Implementation{Name: "my-host", Version: "1.0"}, opts).Connect(ctx, pipeTo(demo.New(nil)))
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	_, res, err := s.RunToolTask(ctx, &mcp.CallToolParams{Name: "ask_task"}, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].Text)
	// Output:
	// asked: What is your name?
	// name: Ada; model: Hello, Ada!
}

// A front end that answers through events rather than a callback subscribes to the
// session's events, and declares the capabilities it answers for: with the defaults, a
// request that nothing can answer when it arrives is refused at once.
func ExampleSession_Subscribe() {
	ctx := context.Background()
	opts := &client.Options{Capabilities: client.AllCapabilities()}
	s, err := client.New(mcp.Implementation{Name: "my-host", Version: "1.0"}, opts).Connect(ctx, pipeTo(demo.New(nil)))
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	sub := s.Subscribe()
	defer sub.Close()
	go func() {
		for ev := range sub.All(ctx) {
			switch ev := ev.(type) {
			case *client.RequestEvent:
				if !ev.Settled && ev.Request.Elicitation != nil {
					ev.Request.Accept(map[string]any{"name": "Ada", "color": "green"})
				}
			case *client.LogEvent, *client.MessageEvent, *client.TaskEvent:
				// what a front end shows: the server's log, the raw traffic, tasks
			}
		}
	}()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "ask_user"}, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].Text)
	// Output:
	// Hello, Ada! Favourite colour: green. Subscribed: no.
}

// Cancel a task. The server's answer is acknowledged at once; the task's outcome is a
// *client.TaskEndError that matches client.ErrTaskCancelled.
func ExampleTask_Cancel() {
	ctx := context.Background()
	s, err := client.New(mcp.Implementation{Name: "my-host", Version: "1.0"}, nil).Connect(ctx, pipeTo(demo.New(nil)))
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	p := &mcp.CallToolParams{Name: "slow_task", Arguments: json.RawMessage(`{"seconds":600}`)}
	task, err := s.StartToolTask(ctx, p, nil)
	if err != nil {
		log.Fatal(err)
	}
	// A 2025-11-25 server that declared no tasks.cancel is sent nothing: ErrNoTaskCancel.
	if _, err := task.Cancel(ctx); err != nil {
		log.Fatal(err)
	}
	_, err = task.Wait(ctx)
	fmt.Println(errors.Is(err, client.ErrTaskCancelled))
	// Output:
	// true
}

// Leave a task running and fetch its result from a later connection (another process,
// say). In 2025-11-25 over Streamable HTTP, Keep leaves the session open on the server,
// as some servers reach a task only from the session that made it, and Resume takes the
// session up again.
func ExampleClient_Resume() {
	ctx := context.Background()
	srv := demo.New(nil)
	ts := httptest.NewServer(srv.HTTPHandler(nil))
	defer ts.Close()
	c := client.New(mcp.Implementation{Name: "my-host", Version: "1.0"}, &client.Options{ProtocolVersion: "2025-11-25"})

	s, err := c.Connect(ctx, &transport.HTTPClient{URL: ts.URL})
	if err != nil {
		log.Fatal(err)
	}
	task, err := s.StartToolTask(ctx, &mcp.CallToolParams{Name: "sleep_task", Arguments: json.RawMessage(`{"seconds":0.1}`)}, nil)
	if err != nil {
		log.Fatal(err)
	}
	id := task.ID()
	saved, err := json.Marshal(s.Keep()) // what a program stores beside the task's id
	if err != nil {
		log.Fatal(err)
	}
	s.Close()

	var r client.Resumption
	if err := json.Unmarshal(saved, &r); err != nil {
		log.Fatal(err)
	}
	s, err = c.Resume(ctx, &transport.HTTPClient{URL: ts.URL}, &r) // matches transport.ErrSessionExpired once the server has ended it
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	res, err := s.TaskResult(ctx, id)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].Text)
	// Output:
	// slept 100ms
}

// In 2026-07-28 a task belongs to no session: any later session of the same server
// (with the same credentials, see server.Options.TaskOwner) reaches it by its id.
func ExampleSession_TaskResult() {
	ctx := context.Background()
	srv := demo.New(nil)
	c := client.New(mcp.Implementation{Name: "my-host", Version: "1.0"}, nil)

	s, err := c.Connect(ctx, pipeTo(srv))
	if err != nil {
		log.Fatal(err)
	}
	task, err := s.StartToolTask(ctx, &mcp.CallToolParams{Name: "slow_task", Arguments: json.RawMessage(`{"seconds":0.1,"steps":1}`)}, nil)
	if err != nil {
		log.Fatal(err)
	}
	id := task.ID()
	s.Close() // the task goes on

	s, err = c.Connect(ctx, pipeTo(srv))
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	// A task the server no longer knows gives a *client.TaskEndError matching ErrTaskGone.
	res, err := s.TaskResult(ctx, id)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].Text)
	// Output:
	// done: worked 100ms in 1 step
}
