package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/tasks"
	"github.com/mcpi-dev/mcpi/transport"
)

// afterCancelled runs n tasks of 2025-11-25 of a tool that loops on send until its
// context ends, cancels each once it has sent once, and counts the tasks for which the
// server wrote a message of kind (a method) tagged with the task after its status
// notification "cancelled".
func afterCancelled(t *testing.T, kind string, send func(ctx context.Context, req *server.ToolRequest)) int {
	const n = 40
	srv := server.New(mcp.Implementation{Name: "o", Version: "1"}, &server.Options{Tasks: &tasks.Options{MaxActive: n, PollInterval: time.Millisecond}})
	defer srv.Close()
	started, exited := make(chan struct{}, 1), make(chan struct{}, 1)
	srv.AddTool(&mcp.Tool{Name: "loop", Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			defer func() { exited <- struct{}{} }()
			for i := 0; ctx.Err() == nil; i++ {
				send(ctx, req)
				if i == 0 {
					started <- struct{}{}
				}
			}
			return nil, ctx.Err()
		})
	toServer, fromClient := io.Pipe()
	fromServer, toClient := io.Pipe()
	rec := &recorder{w: toClient} // wire_test.go: every line the server writes, in order
	srv.Connect(t.Context(), transport.NewStream(toServer, rec, 0))
	c := jsonrpc.NewConn(transport.NewStream(fromServer, fromClient, 0), jsonrpc.Options{Handler: jsonrpc.HandlerFunc(
		func(context.Context, *jsonrpc.Request) (any, error) {
			return &mcp.ElicitResult{Action: mcp.ElicitActionDecline}, nil
		})})
	defer c.Close()
	ctx := t.Context()
	if err := c.Call(ctx, mcp.MethodInitialize, &mcp.InitializeParams{ProtocolVersion: mcp.LatestProtocolVersion,
		Capabilities: mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{}}}, nil); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		var created mcp.CreateTaskResult
		err := c.Call(ctx, mcp.MethodToolsCall, &mcp.CallToolParams{Name: "loop", Task: &mcp.TaskMetadata{},
			Meta: mcp.Meta{mcp.MetaProgressToken: fmt.Sprint("p", i)}}, &created)
		if err != nil {
			t.Fatal(err)
		}
		<-started
		if err := c.Call(ctx, mcp.MethodTasksCancel, &mcp.CancelTaskParams{TaskID: created.Task.TaskID}, nil); err != nil {
			t.Fatal(err)
		}
		<-exited // all the tool sent is on the wire
	}
	cancelled, late := map[string]bool{}, map[string]bool{}
	for _, line := range bytes.Split([]byte(rec.String()), []byte("\n")) {
		var m struct {
			Method string
			Params struct {
				TaskID, Status string
				Meta           mcp.Meta `json:"_meta"`
			}
		}
		if json.Unmarshal(line, &m) != nil {
			continue
		}
		if m.Method == mcp.NotificationTasksStatus && m.Params.Status == string(mcp.TaskStatusCancelled) {
			cancelled[m.Params.TaskID] = true
		}
		if id, ok := m.Params.Meta.RelatedTask(); ok && m.Method == kind && cancelled[id] {
			late[id] = true
		}
	}
	return len(late)
}

// Progress MUST stop at a terminal status (2025-11-25).
func TestNoProgressAfterCancelledStatus(t *testing.T) {
	if n := afterCancelled(t, mcp.NotificationProgress, func(ctx context.Context, req *server.ToolRequest) {
		_ = req.Progress(ctx, 1, nil, "")
	}); n > 0 {
		t.Errorf("%d of 40 cancelled tasks sent notifications/progress after their status cancelled", n)
	}
}

// A cancelled task asks the client nothing more.
func TestNoSideChannelRequestAfterCancelledStatus(t *testing.T) {
	if n := afterCancelled(t, mcp.MethodElicitationCreate, func(ctx context.Context, req *server.ToolRequest) {
		_, _ = req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "?", RequestedSchema: json.RawMessage(`{"type":"object"}`)})
	}); n > 0 {
		t.Errorf("%d of 40 cancelled tasks sent elicitation/create after their status cancelled", n)
	}
}

// tapped is a raw client of srv on a pipe whose tap sees every message in wire order.
func tapped(t *testing.T, srv *server.Server, tap jsonrpc.Tap) *jsonrpc.Conn {
	a, b := transport.Pipe()
	srv.Connect(t.Context(), a)
	conn := jsonrpc.NewConn(b, jsonrpc.Options{Tap: tap})
	t.Cleanup(func() { conn.Close() })
	return conn
}

// A 2026-07-28 call that becomes a task (TaskWhenSlow) sends no progress or log
// notification after its CreateTaskResult: a task of the extension sends neither.
func TestNoProgressOrLogAfterPromotion(t *testing.T) {
	const n = 30
	srv := modernServer(&server.Options{Tasks: &tasks.Options{}})
	defer srv.Close()
	big := strings.Repeat("x", 64<<10)
	returned := make(chan struct{}, 1)
	srv.AddToolWith(&mcp.Tool{Name: "chatty"}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		defer func() { returned <- struct{}{} }()
		for i := 0; ; i++ {
			if _, promoted := server.TaskFromContext(ctx); promoted {
				return &mcp.CallToolResult{}, nil
			}
			_ = req.Session.Log(ctx, mcp.LoggingLevelInfo, "chatty", big)
			_ = req.Progress(ctx, float64(i), nil, big)
		}
	}, &server.ToolOptions{TaskPolicy: server.TaskWhenSlow, TaskAfter: time.Millisecond})
	var mu sync.Mutex
	promoted, late := false, 0 // promoted: the current call's CreateTaskResult has arrived
	conn := tapped(t, srv, func(dir jsonrpc.Direction, m jsonrpc.Message) {
		mu.Lock()
		defer mu.Unlock()
		switch m := m.(type) {
		case *jsonrpc.Response:
			promoted = dir == jsonrpc.Inbound && bytes.Contains(m.Result, []byte(`"resultType":"task"`))
		case *jsonrpc.Request:
			if dir == jsonrpc.Inbound && promoted && (m.Method == mcp.NotificationProgress || m.Method == mcp.NotificationMessage) {
				late++
			}
		}
	})
	for i := range n {
		m := meta(extCaps, mcp.MetaLogLevel, "debug")
		m["progressToken"] = fmt.Sprint("p", i)
		if err := conn.Call(t.Context(), mcp.MethodToolsCall, map[string]any{"name": "chatty", "_meta": m}, nil); err != nil {
			t.Fatal(err)
		}
		<-returned // the handler has sent all it will
		mu.Lock()
		promoted = false
		mu.Unlock()
	}
	if late > 0 {
		t.Errorf("%d progress or log notifications came after the CreateTaskResult of their call", late)
	}
}

// A listen the server ends (Close) gets nothing after its final result, even while the
// server notifies its streams.
func TestListenNothingAfterFinalResult(t *testing.T) {
	const streams = 300
	srv := modernServer(nil)
	var mu sync.Mutex
	ended, late := map[string]bool{}, 0 // listen ids whose final result has arrived
	acked := make(chan struct{}, streams)
	conn := tapped(t, srv, func(dir jsonrpc.Direction, m jsonrpc.Message) {
		mu.Lock()
		defer mu.Unlock()
		switch m := m.(type) {
		case *jsonrpc.Response:
			ended[m.ID.String()] = dir == jsonrpc.Inbound
		case *jsonrpc.Request:
			var p struct {
				Meta map[string]json.RawMessage `json:"_meta"`
			}
			if dir != jsonrpc.Inbound || json.Unmarshal(m.Params, &p) != nil || p.Meta[mcp.MetaSubscriptionID] == nil {
				return
			}
			if ended[string(p.Meta[mcp.MetaSubscriptionID])] {
				late++
			}
			if m.Method == mcp.NotificationSubscriptionsAcknowledged {
				acked <- struct{}{}
			}
		}
	})
	var calls sync.WaitGroup
	for range streams {
		calls.Go(func() {
			_ = conn.Call(t.Context(), mcp.MethodSubscriptionsListen, map[string]any{"_meta": meta(`{}`),
				"notifications": map[string]any{"toolsListChanged": true}}, nil)
		})
	}
	for range streams {
		<-acked
	}
	stop := churnTools(srv)
	srv.Close()
	stop()
	calls.Wait()
	mu.Lock()
	defer mu.Unlock()
	if late > 0 {
		t.Errorf("%d notifications came on listens after their final result", late)
	}
}
