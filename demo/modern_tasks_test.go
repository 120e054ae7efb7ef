package demo_test

import (
	"context"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/tasks"
	"github.com/mcpi-dev/mcpi/transport"
)

// In 2026-07-28 the demo's task tools run as tasks of the Tasks extension, and mcpi's
// client follows them with tasks/get; ask_task asks through the task's inputRequests and
// gets its answers through tasks/update.
func TestTaskToolsIn2026(t *testing.T) {
	for _, overHTTP := range []bool{false, true} {
		taskToolsIn2026(t, overHTTP)
	}
}

func taskToolsIn2026(t *testing.T, overHTTP bool) {
	opts := &demo.Options{Tasks: &tasks.Options{PollInterval: 5e6}}
	copts := &client.Options{
		ProtocolVersion: client.ProtocolAuto,
		OnRequest: func(ctx context.Context, r *client.Request) {
			switch {
			case r.Elicitation != nil:
				_ = r.Accept(map[string]any{"name": "Ada"})
			case r.Sampling != nil:
				_ = r.Respond(&mcp.CreateMessageResult{Role: mcp.RoleAssistant, Model: "m", Content: []mcp.Content{mcp.TextContent("Hello Ada!")}})
			}
		},
	}
	var ctx context.Context
	var s *client.Session
	if overHTTP {
		ctx = t.Context()
		srv := demo.New(opts)
		h := srv.HTTPHandler(nil)
		ts := httptest.NewServer(h)
		t.Cleanup(func() { h.Close(); ts.Close(); srv.Close() })
		var err error
		if s, err = client.New(mcp.Implementation{Name: "t", Version: "1"}, copts).Connect(ctx, &transport.HTTPClient{URL: ts.URL + "/mcp"}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
	} else {
		ctx, s = connect(t, opts, copts)
	}
	if got := s.ProtocolVersion(); got != mcp.ProtocolVersion20260728 {
		t.Fatalf("connected at %s", got)
	}
	for _, c := range []struct{ tool, args, want string }{
		{demo.ToolSlowTask, `{"seconds":0.3,"steps":2}`, ""},
		{demo.ToolAskTask, `{}`, "name: Ada; model: Hello Ada!"},
		{demo.ToolFailTask, `{"mode":"isError"}`, ""},
	} {
		start := time.Now()
		var last client.TaskEvent
		var sawTask bool
		var messages []string
		for e := range s.CallToolTask(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: []byte(c.args)}, nil) {
			if e.State.TaskID != "" {
				sawTask = true
			}
			if e.Kind == client.TaskStatus && e.State.StatusMessage != "" {
				messages = append(messages, e.State.StatusMessage)
			}
			last = e
		}
		// slow_task's handler reports its steps in the task's statusMessage, which the
		// client hears through notifications/tasks.
		if c.tool == demo.ToolSlowTask && !slices.Contains(messages, "step 2 of 2") {
			t.Errorf("http=%v %s: status messages %q lack the steps", overHTTP, c.tool, messages)
		}
		t.Logf("http=%v %s took %v", overHTTP, c.tool, time.Since(start))
		if last.Err != nil {
			t.Errorf("http=%v %s: %v", overHTTP, c.tool, last.Err)
			continue
		}
		if !sawTask && c.tool != demo.ToolFailTask {
			t.Errorf("%s: no task", c.tool)
		}
		if c.want != "" && (last.Result == nil || len(last.Result.Content) == 0 || !strings.Contains(last.Result.Content[0].Text, c.want)) {
			t.Errorf("%s: last event %+v", c.tool, last)
		}
	}
}
