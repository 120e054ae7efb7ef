package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/transport"
)

// The library's API as a program that embeds it meets it, against the demo server over
// an in-memory pipe, in both eras.

// eras are the protocol versions a demo session is opened with.
var eras = []string{mcp.LatestProtocolVersion, mcp.ProtocolVersion20260728}

// demoSession connects a client with opts (nil: the defaults) to a demo server, in the
// era of version, and returns it with a context that bounds the test.
func demoSession(t *testing.T, version string, opts *client.Options) (context.Context, *client.Session) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	t.Cleanup(cancel)
	var o client.Options
	if opts != nil {
		o = *opts
	}
	o.ProtocolVersion = version
	srv := demo.New(nil)
	s, err := client.New(mcp.Implementation{Name: "mcpi-api-test", Version: "1"}, &o).Connect(ctx, transport.PipeTransport{
		Serve: func(ctx context.Context, conn jsonrpc.Connection) error {
			srv.Connect(ctx, conn)
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return ctx, s
}

// A client with the default capabilities and nothing to answer the server's requests
// (no OnRequest, nobody subscribed) refuses them at once, rather than leave the tool
// call waiting for ever: in 2025-11-25 the server gets -32601 and the tool says so, in
// 2026-07-28 the call ends with the client's *InputError.
func TestUnansweredRequestsRefusedAtOnce(t *testing.T) {
	for _, version := range eras {
		t.Run(version, func(t *testing.T) {
			ctx, s := demoSession(t, version, nil)
			for _, c := range []struct{ tool, args, method string }{
				{demo.ToolAskUser, `{}`, mcp.MethodElicitationCreate},
				{demo.ToolAskModel, `{"prompt":"6*7?"}`, mcp.MethodSamplingCreateMessage},
			} {
				cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
				res, err := s.CallTool(cctx, &mcp.CallToolParams{Name: c.tool, Arguments: []byte(c.args)}, nil)
				cancel()
				if errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("%s: still waiting after 5s; pending requests: %d", c.tool, len(s.PendingRequests()))
				}
				if s.Modern() {
					var input *client.InputError
					if !errors.As(err, &input) || input.Method != c.method || !errors.Is(err, jsonrpc.ErrMethodNotFound) {
						t.Errorf("%s: %v, want an *InputError for %s matching -32601", c.tool, err, c.method)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%s: %v", c.tool, err)
				}
				if !res.IsError || len(res.Content) != 1 || !strings.Contains(res.Content[0].Text, "nothing on this client answers "+c.method) {
					t.Errorf("%s: %+v, want the tool's error quoting the refusal", c.tool, res)
				}
			}
			if n := len(s.PendingRequests()); n != 0 {
				t.Errorf("%d requests pending", n)
			}
		})
	}
}

// A subscriber of the session's events answers through them, with the default
// capabilities too: its requests are queued, not refused.
func TestSubscriberAnswersWithDefaultCapabilities(t *testing.T) {
	for _, version := range eras {
		t.Run(version, func(t *testing.T) {
			ctx, s := demoSession(t, version, nil)
			sub := s.Subscribe()
			defer sub.Close()
			go func() {
				for e := range sub.All(ctx) {
					if re, ok := e.(*client.RequestEvent); ok && !re.Settled {
						_ = re.Request.Accept(map[string]any{"name": "Ada", "color": "green"})
					}
				}
			}()
			res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: demo.ToolAskUser}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError || !strings.Contains(res.Content[0].Text, "Hello, Ada!") {
				t.Errorf("ask_user = %+v", res)
			}
		})
	}
}

// answerSeen runs check on each server request as OnRequest, and reports its failure.
func answerSeen(check func(r *client.Request) error) (*client.Options, <-chan error) {
	errs := make(chan error, 4)
	return &client.Options{OnRequest: func(_ context.Context, r *client.Request) {
		errs <- check(r)
	}}, errs
}

// misfit checks that each of answers is refused with ErrInvalidAnswer and leaves r
// unanswered.
func misfit(r *client.Request, answers map[string]func() error) error {
	for what, answer := range answers {
		if err := answer(); !errors.Is(err, client.ErrInvalidAnswer) {
			return fmt.Errorf("%s to %s: %v, want ErrInvalidAnswer", what, r.Method, err)
		}
		select {
		case <-r.Done():
			return fmt.Errorf("%s to %s was sent", what, r.Method)
		default:
		}
	}
	return nil
}

// An answer that does not fit its request is refused, and nothing is sent: the request
// waits for one that fits, which may be a value as well as a pointer.
func TestAnswersMustFitTheRequest(t *testing.T) {
	for _, version := range eras {
		t.Run(version, func(t *testing.T) {
			opts, errs := answerSeen(func(r *client.Request) error {
				if r.Elicitation != nil {
					if err := misfit(r, map[string]func() error{
						"a sampling result": func() error {
							return r.Respond(&mcp.CreateMessageResult{Role: mcp.RoleAssistant, Model: "m", Content: []mcp.Content{mcp.TextContent("hi")}})
						},
						"a string":            func() error { return r.Respond("hello") },
						"nil":                 func() error { return r.Respond(nil) },
						"a nil *ElicitResult": func() error { return r.Respond((*mcp.ElicitResult)(nil)) },
						"the action maybe":    func() error { return r.Respond(&mcp.ElicitResult{Action: "maybe"}) },
						"decline with content": func() error {
							return r.Respond(&mcp.ElicitResult{Action: mcp.ElicitActionDecline, Content: map[string]any{"name": "Ada"}})
						},
						"an empty ElicitResult": func() error { return r.Respond(mcp.ElicitResult{}) },
					}); err != nil {
						return err
					}
					// A value, whose content takes the schema's defaults as a pointer's does.
					if err := r.Respond(mcp.ElicitResult{Action: mcp.ElicitActionAccept, Content: map[string]any{"name": "Ada"}}); err != nil {
						return err
					}
					res, _ := r.Answer()
					er, ok := res.(*mcp.ElicitResult)
					if !ok || er.Content["color"] != "blue" || er.Content["subscribe"] != false {
						return fmt.Errorf("answered with %#v, want the schema's defaults filled in", res)
					}
					return nil
				}
				if err := misfit(r, map[string]func() error{
					"Decline":             r.Decline,
					"Dismiss":             r.Dismiss,
					"Accept":              func() error { return r.Accept(map[string]any{"name": "Ada"}) },
					"an elicitation":      func() error { return r.Respond(&mcp.ElicitResult{Action: mcp.ElicitActionAccept}) },
					"the role robot":      func() error { return r.Respond(&mcp.CreateMessageResult{Role: "robot", Model: "m"}) },
					"an int":              func() error { return r.Respond(42) },
					"a nil sampling":      func() error { return r.Respond((*mcp.CreateMessageResult)(nil)) },
					"an empty value role": func() error { return r.Respond(mcp.CreateMessageResult{}) },
				}); err != nil {
					return err
				}
				return r.Respond(mcp.CreateMessageResult{Role: mcp.RoleAssistant, Model: "m", Content: []mcp.Content{mcp.TextContent("42")}})
			})
			ctx, s := demoSession(t, version, opts)
			for _, c := range []struct{ tool, args, want string }{
				{demo.ToolAskUser, `{}`, "Hello, Ada! Favourite colour: blue."},
				{demo.ToolAskModel, `{"prompt":"6*7?"}`, "42"},
			} {
				res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: []byte(c.args)}, nil)
				if err != nil {
					t.Fatalf("%s: %v", c.tool, err)
				}
				if err := <-errs; err != nil {
					t.Error(err)
				}
				if res.IsError || !strings.Contains(res.Content[0].Text, c.want) {
					t.Errorf("%s = %+v, want %q", c.tool, res, c.want)
				}
			}
		})
	}
}

// Every method that names a task by id says the same of an id the server does not know,
// in either era: an error matching ErrTaskGone, through which the server's -32602 is
// still found.
func TestUnknownTaskIsGoneEverywhere(t *testing.T) {
	for _, version := range eras {
		t.Run(version, func(t *testing.T) {
			ctx, s := demoSession(t, version, nil)
			const id = "no-such-task"
			calls := map[string]func() error{
				"GetTask":    func() error { _, err := s.GetTask(ctx, id); return err },
				"FollowTask": func() error { _, err := s.FollowTask(ctx, id); return err },
				"TaskResult": func() error { _, err := s.TaskResult(ctx, id); return err },
				"CancelTask": func() error { _, err := s.CancelTask(ctx, id); return err },
			}
			if s.Modern() {
				calls["TaskDetail"] = func() error { _, err := s.TaskDetail(ctx, id); return err }
			}
			for name, call := range calls {
				err := call()
				var rpc *jsonrpc.Error
				if !errors.Is(err, client.ErrTaskGone) || !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeInvalidParams {
					t.Errorf("%s of an unknown task: %v, want ErrTaskGone and the server's -32602", name, err)
				}
			}
		})
	}
}

// In 2025-11-25 a server refuses the cancel of a task that has ended with -32602, as it
// does an unknown one: the task is not gone, and its state comes with the error. In
// 2026-07-28 the cancel is acknowledged, and the state is the task's final one.
func TestCancelEndedTaskIsNotGone(t *testing.T) {
	for _, version := range eras {
		t.Run(version, func(t *testing.T) {
			ctx, s := demoSession(t, version, nil)
			task, _, err := s.RunToolTask(ctx, &mcp.CallToolParams{Name: demo.ToolSlowTask, Arguments: []byte(`{"seconds":0,"steps":1}`)}, nil)
			if err != nil || task.ID() == "" {
				t.Fatalf("slow_task: %v (task %q)", err, task.ID())
			}
			st, err := s.CancelTask(ctx, task.ID())
			if errors.Is(err, client.ErrTaskGone) || st.Status != mcp.TaskStatusCompleted {
				t.Fatalf("cancel of an ended task: %+v, %v; want its state, completed, and no ErrTaskGone", st, err)
			}
			if !s.Modern() && !errors.Is(err, jsonrpc.ErrInvalidParams) {
				t.Errorf("cancel of an ended task: %v, want the server's -32602", err)
			}
		})
	}
}

// A plain call of a tool that runs only as a task gives a *TaskSupportError matching
// -32601 in either era: refused locally in 2025-11-25, by the server (-32021, which the
// error wraps) in 2026-07-28.
func TestCallToolOfTaskOnlyTool(t *testing.T) {
	for _, version := range eras {
		t.Run(version, func(t *testing.T) {
			ctx, s := demoSession(t, version, nil)
			_, err := s.CallTool(ctx, &mcp.CallToolParams{Name: demo.ToolSlowTask, Arguments: []byte(`{"seconds":0,"steps":1}`)}, nil)
			var support *client.TaskSupportError
			if !errors.As(err, &support) || support.Tool != demo.ToolSlowTask || support.AsTask || !errors.Is(err, jsonrpc.ErrMethodNotFound) {
				t.Fatalf("CallTool(slow_task): %v, want a *TaskSupportError matching -32601", err)
			}
			var rpc *jsonrpc.Error
			if s.Modern() && (!errors.As(err, &rpc) || rpc.Code != mcp.CodeMissingRequiredClientCapability) {
				t.Errorf("CallTool(slow_task): %v, want the server's -32021 within", err)
			}
			if !strings.Contains(err.Error(), `"slow_task"`) || !strings.Contains(err.Error(), "task") {
				t.Errorf("the error reads %q", err)
			}
		})
	}
}

// Only pointers are Events, as only pointers are published: a type switch's case of an
// event's value type is a compile error, not a case that never matches.
func TestOnlyPointersAreEvents(t *testing.T) {
	event := reflect.TypeFor[client.Event]()
	for _, v := range []any{
		client.MessageEvent{}, client.LogEvent{}, client.ProgressEvent{}, client.ReachabilityEvent{},
		client.ListChangedEvent{}, client.ResourceUpdatedEvent{}, client.RequestEvent{}, client.ClosedEvent{},
		client.DroppedEvent{}, client.ReceiverPollEvent{}, client.ReceiverCancelEvent{}, client.ReceiverResultEvent{},
		client.TaskEvent{},
	} {
		typ := reflect.TypeOf(v)
		if typ.Implements(event) {
			t.Errorf("%s is an Event; only *%s should be", typ, typ.Name())
		}
		if !reflect.PointerTo(typ).Implements(event) {
			t.Errorf("*%s is not an Event", typ.Name())
		}
	}
}

// A receiver task the server cancels is kept, cancelled, until its ttl: its polls, after
// the cancel too, are counted and published, and the cancel names its request.
func TestReceiverPollsOfCancelledTask(t *testing.T) {
	ctx, s := demoSession(t, mcp.LatestProtocolVersion, &client.Options{Receiver: &client.ReceiverOptions{}})
	sub := s.Subscribe() // a front end that does not answer
	defer sub.Close()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: demo.ToolAskThenCancel, Arguments: []byte(`{"seconds":0}`)}, nil)
	if err != nil || res.IsError {
		t.Fatalf("ask_then_cancel: %+v, %v", res, err)
	}
	tasks := s.ReceiverTasks()
	if len(tasks) != 1 || tasks[0].Status != mcp.TaskStatusCancelled {
		t.Fatalf("receiver tasks %+v, want one, cancelled", tasks)
	}
	id := tasks[0].TaskID
	polls, lastPoll := s.ReceiverPolls(id), 0
	var cancelled *client.ReceiverCancelEvent
	// What the session published before the call's answer came, with a context that
	// has ended: the queued events are read, and no more are waited for.
	ectx, cancel := context.WithCancel(ctx)
	cancel()
	for e := range sub.All(ectx) {
		switch e := e.(type) {
		case *client.ReceiverPollEvent:
			lastPoll = e.Polls
		case *client.ReceiverCancelEvent:
			cancelled = e
		}
	}
	var rep demo.ClientTaskReport
	if err := json.Unmarshal(res.StructuredContent, &rep); err != nil || rep.Polls < 1 {
		t.Fatalf("the tool's report %s (%v), want the server's polls in it", res.StructuredContent, err)
	}
	if polls != rep.Polls || lastPoll != polls {
		t.Errorf("ReceiverPolls = %d, last ReceiverPollEvent's count %d; want the server's %d polls", polls, lastPoll, rep.Polls)
	}
	if cancelled == nil || cancelled.Request == nil || cancelled.Request.Task != id {
		t.Errorf("ReceiverCancelEvent %+v, want one naming the task's request", cancelled)
	}
}

// A task's dialect is its session's, a call the server answered without a task included.
func TestTaskDialectIsTheSessions(t *testing.T) {
	for version, want := range map[string]client.Dialect{mcp.LatestProtocolVersion: client.DialectCore, mcp.ProtocolVersion20260728: client.DialectExtension} {
		ctx, s := demoSession(t, version, nil)
		task, _, err := s.RunToolTask(ctx, &mcp.CallToolParams{Name: demo.ToolSlowTask, Arguments: []byte(`{"seconds":0,"steps":1}`)}, nil)
		if err != nil || task.ID() == "" || task.Dialect() != want {
			t.Errorf("%s: slow_task as a task: %v, id %q, dialect %q; want %q", version, err, task.ID(), task.Dialect(), want)
		}
		if !s.Modern() {
			continue
		}
		task, res, err := s.RunToolTask(ctx, &mcp.CallToolParams{Name: demo.ToolEcho, Arguments: []byte(`{"text":"hi"}`)}, nil)
		if err != nil || res == nil || task.ID() != "" || task.Dialect() != want {
			t.Errorf("%s: echo, answered without a task: %v, id %q, dialect %q; want %q", version, err, task.ID(), task.Dialect(), want)
		}
	}
}

// Task.ID as its doc says: set once StartToolTask returns for a call the server made a
// task, and "" for good, the outcome in hand, for one a 2026-07-28 server ran inline.
func TestTaskIDOnceTheServerAnswers(t *testing.T) {
	ctx, s := demoSession(t, mcp.ProtocolVersion20260728, nil)
	task, err := s.StartToolTask(ctx, &mcp.CallToolParams{Name: demo.ToolSlowTask, Arguments: []byte(`{"seconds":0,"steps":1}`)}, nil)
	if err != nil || task.ID() == "" {
		t.Fatalf("slow_task: %v, id %q; want its task's id when StartToolTask returns", err, task.ID())
	}
	task, err = s.StartToolTask(ctx, &mcp.CallToolParams{Name: demo.ToolInstantTask}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := task.Wait(ctx)
	if err != nil || res.Content[0].Text != demo.InstantTaskText || task.ID() != "" || task.Dialect() != client.DialectExtension {
		t.Errorf("instant_task, run inline: %v, %+v, id %q, dialect %q; want %q, no id, dialect %q",
			err, res, task.ID(), task.Dialect(), demo.InstantTaskText, client.DialectExtension)
	}
}

// A ProtocolVersion mcpi does not know fails Connect with an *UnknownVersionError before
// anything is sent; the older versions it knows are still asked for.
func TestUnknownProtocolVersionRefused(t *testing.T) {
	var connected atomic.Bool
	c := client.New(mcp.Implementation{Name: "mcpi-api-test", Version: "1"}, &client.Options{ProtocolVersion: "1999-01-01"})
	s, err := c.Connect(t.Context(), transport.PipeTransport{Serve: func(ctx context.Context, conn jsonrpc.Connection) error {
		connected.Store(true)
		demo.New(nil).Connect(ctx, conn)
		return nil
	}})
	var unknown *client.UnknownVersionError
	if !errors.As(err, &unknown) || unknown.Version != "1999-01-01" || !strings.Contains(err.Error(), mcp.ProtocolVersion20260728) {
		if s != nil {
			t.Errorf("connected at %s", s.ProtocolVersion())
			s.Close()
		}
		t.Fatalf("Connect with protocol 1999-01-01: %v, want an *UnknownVersionError", err)
	}
	if connected.Load() {
		t.Error("the transport was connected")
	}
	_, s = demoSession(t, "2025-06-18", nil)
	if got := s.ProtocolVersion(); got != "2025-06-18" {
		t.Errorf("asked for 2025-06-18, connected at %s", got)
	}
}

// A CallToolTask whose ctx ends before the outcome says so with its last event, a
// TaskStatus carrying ctx's error; the task goes on, and ends as the session follows it.
func TestCallToolTaskEndsWithItsContext(t *testing.T) {
	for _, version := range eras {
		t.Run(version, func(t *testing.T) {
			ctx, s := demoSession(t, version, nil)
			cctx, cancel := context.WithCancel(ctx)
			defer cancel()
			var last client.TaskEvent
			for ev := range s.CallToolTask(cctx, &mcp.CallToolParams{Name: demo.ToolSlowTask, Arguments: []byte(`{"seconds":0.2,"steps":1}`)}, nil) {
				if ev.Kind == client.TaskCreated {
					cancel()
				}
				last = ev
			}
			if last.Kind != client.TaskStatus || !errors.Is(last.Err, context.Canceled) || last.Task == nil || last.State.TaskID == "" {
				t.Fatalf("last event %s (err %v, task %v), want a TaskStatus of the task with context.Canceled", last.Kind, last.Err, last.Task != nil)
			}
			res, err := last.Task.Wait(ctx)
			if err != nil || res == nil || res.IsError {
				t.Errorf("the task's outcome: %+v, %v; want it completed", res, err)
			}
		})
	}
}

// The input a task asks for is refused at once too when nothing can answer it: the task
// ends, rather than wait for ever for the user.
func TestUnansweredTaskInputRefusedAtOnce(t *testing.T) {
	for _, version := range eras {
		t.Run(version, func(t *testing.T) {
			ctx, s := demoSession(t, version, nil)
			cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			task, res, err := s.RunToolTask(cctx, &mcp.CallToolParams{Name: demo.ToolAskTask, Arguments: []byte(`{}`)}, nil)
			if errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("ask_task: still waiting after 5s; pending requests: %d", len(s.PendingRequests()))
			}
			if task == nil || task.ID() == "" {
				t.Fatalf("ask_task: %v, want a task", err)
			}
			if err == nil && (res == nil || !res.IsError) {
				t.Errorf("ask_task: %+v, want an error for the refused input", res)
			}
			t.Logf("ask_task: %v", err)
		})
	}
}
