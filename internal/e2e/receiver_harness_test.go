package e2e

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
)

// Helpers of the receiver task tests (the demo server as requestor, the client as
// receiver).

// Test tools of the requestor server. They exist only in these tests, so that a test can
// make a server in another process (stdio) send what it needs.
const (
	// clientRequestTool {method, params} sends one request to the client and returns
	// {"result": RESULT} or {"error": ERROR} as structured content.
	clientRequestTool = "client_request"
	// wakeTool ends one sleep of exactly gatedSleep, or the next one to start.
	wakeTool = "wake"
)

// gatedSleep is the one duration the requestor server's sleep waits on [wakeTool] for
// (others pass as with [testSleep]): so "ask_then_cancel {seconds: 42}" cancels when the
// test says, after it has seen the question.
const gatedSleep = 42 * time.Second

// newRequestorServer is the demo server (as cfg describes it) with the test tools.
func newRequestorServer(cfg serverConfig) *server.Server {
	g := &gate{wake: make(chan struct{}, 1024)}
	opts := demoOptions(cfg)
	opts.Sleep = g.sleep
	srv := demo.New(opts)
	addRequestorTestTools(srv, g)
	return srv
}

type gate struct{ wake chan struct{} }

func (g *gate) sleep(ctx context.Context, d time.Duration) error {
	if d != gatedSleep {
		return testSleep(ctx, d)
	}
	select {
	case <-g.wake:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// clientAnswer is the structured content of clientRequestTool.
type clientAnswer struct {
	Result json.RawMessage `json:"result,omitempty"`
	Error  *jsonrpc.Error  `json:"error,omitempty"`
}

func addRequestorTestTools(srv *server.Server, g *gate) {
	srv.AddTool(&mcp.Tool{
		Name:        clientRequestTool,
		Description: "Sends {method, params} to the client and returns its answer (test only).",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"method":{"type":"string"},"params":{"type":"object"}},"required":["method"]}`),
	}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		var args struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if err := req.Arguments(&args); err != nil {
			return nil, err
		}
		var params any
		if len(args.Params) > 0 {
			params = args.Params
		}
		var a clientAnswer
		if err := req.Session.Call(ctx, args.Method, params, &a.Result); err != nil {
			a.Error = jsonrpc.AsError(err)
		}
		b, err := json.Marshal(a)
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(string(b))}, StructuredContent: b}, nil
	})
	srv.AddTool(&mcp.Tool{Name: wakeTool, Description: "Ends one gated sleep (test only)."},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			g.wake <- struct{}{}
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("woken")}}, nil
		})
}

// requestorServer is the server configuration of the receiver tests.
func requestorServer() serverConfig {
	return serverConfig{requestorTools: true, pollInterval: 20 * time.Millisecond}
}

// receiverPoll is the pollInterval the receiver tests' clients suggest.
const receiverPoll = 20 * time.Millisecond

// receiverClient is the client options of the receiver tests: receiver tasks on, with
// ro (nil: defaults but for a pollInterval of receiverPoll), and onRequest answering.
func receiverClient(ro *client.ReceiverOptions, onRequest func(context.Context, *client.Request)) *client.Options {
	if ro == nil {
		ro = &client.ReceiverOptions{}
	}
	if ro.PollInterval == 0 {
		ro.PollInterval = receiverPoll
	}
	return taskClient(&client.Options{Receiver: ro, OnRequest: onRequest})
}

// askClientRaw sends one request to the client through the server (clientRequestTool).
func askClientRaw(t *testing.T, ctx context.Context, s *client.Session, method string, params any) clientAnswer {
	t.Helper()
	res := call(t, ctx, s, clientRequestTool, map[string]any{"method": method, "params": params})
	var a clientAnswer
	if err := json.Unmarshal(res.StructuredContent, &a); err != nil {
		t.Fatalf("%s answer: %v: %s", clientRequestTool, err, res.StructuredContent)
	}
	return a
}

// wake ends the server's gated sleep.
func wake(t *testing.T, ctx context.Context, s *client.Session) {
	t.Helper()
	call(t, ctx, s, wakeTool, nil)
}

// report decodes the structured content of a requestor tool's result.
func report(t *testing.T, res *mcp.CallToolResult) demo.ClientTaskReport {
	t.Helper()
	var rep demo.ClientTaskReport
	if err := json.Unmarshal(res.StructuredContent, &rep); err != nil {
		t.Fatalf("not a ClientTaskReport: %v: %s", err, res.StructuredContent)
	}
	return rep
}

// asyncCall calls a tool on its own goroutine; the channel yields its result.
type callResult struct {
	res *mcp.CallToolResult
	err error
}

func asyncCall(ctx context.Context, s *client.Session, p *mcp.CallToolParams) <-chan callResult {
	ch := make(chan callResult, 1)
	go func() {
		res, err := s.CallTool(ctx, p, nil)
		ch <- callResult{res, err}
	}()
	return ch
}

func await(t *testing.T, ctx context.Context, ch <-chan callResult) *mcp.CallToolResult {
	t.Helper()
	select {
	case r := <-ch:
		if r.err != nil {
			t.Fatalf("the call failed: %v", r.err)
		}
		return r.res
	case <-ctx.Done():
		t.Fatalf("the call did not return: %v", ctx.Err())
		return nil
	}
}

// nextRequest waits for a request queued for the user.
func nextRequest(t *testing.T, ctx context.Context, sub *client.Subscription) *client.Request {
	t.Helper()
	return waitFor(t, ctx, sub, func(e *client.RequestEvent) bool { return !e.Settled }).Request
}

// settled waits for the event that takes r out of the queue.
func settled(t *testing.T, ctx context.Context, sub *client.Subscription, r *client.Request) *client.RequestEvent {
	t.Helper()
	return waitFor(t, ctx, sub, func(e *client.RequestEvent) bool { return e.Settled && e.Request == r })
}

// trafficLog records a session's raw traffic, in order, from when it is made. Events
// are queued on the subscription as they are published, so reading the queue gets
// every message up to now.
type trafficLog struct {
	mu  sync.Mutex
	log []client.MessageEvent
	sub *client.Subscription
}

func recordTraffic(s *client.Session) *trafficLog {
	return &trafficLog{sub: s.Subscribe()}
}

func (l *trafficLog) messages() []client.MessageEvent {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, e := range drain(l.sub) {
		if m, ok := e.(*client.MessageEvent); ok {
			l.log = append(l.log, *m)
		}
	}
	return slices.Clone(l.log)
}

// inbound returns the requests of method the server sent, whose params name task id
// (any task when id is empty).
func (l *trafficLog) inbound(t *testing.T, method, id string) []client.MessageEvent {
	t.Helper()
	var out []client.MessageEvent
	for _, m := range l.messages() {
		r, ok := m.Message.(*jsonrpc.Request)
		if !ok || m.Dir != jsonrpc.Inbound || r.Method != method {
			continue
		}
		if id != "" {
			var p struct {
				TaskID string `json:"taskId"`
			}
			_ = json.Unmarshal(r.Params, &p)
			if p.TaskID != id {
				continue
			}
		}
		out = append(out, m)
	}
	return out
}

// response returns the client's response to the inbound request with id.
func (l *trafficLog) response(id jsonrpc.ID) *jsonrpc.Response {
	for _, m := range l.messages() {
		if r, ok := m.Message.(*jsonrpc.Response); ok && m.Dir == jsonrpc.Outbound && r.ID == id {
			return r
		}
	}
	return nil
}

// checkPolls checks that the server's tasks/get of task id, as the client received
// them, number polls and are at least interval apart.
func (l *trafficLog) checkPolls(t *testing.T, id string, polls int, interval time.Duration) {
	t.Helper()
	gets := l.inbound(t, mcp.MethodTasksGet, id)
	if len(gets) != polls {
		t.Errorf("the client received %d tasks/get of task %s, the server reports %d polls", len(gets), id, polls)
	}
	for i := 1; i < len(gets); i++ {
		if gap := gets[i].Time.Sub(gets[i-1].Time); gap < interval {
			t.Errorf("polls %d and %d of task %s only %s apart, want at least the pollInterval %s", i-1, i, id, gap, interval)
		}
	}
}

func (l *trafficLog) close() { l.sub.Close() }

// errorIs reports whether a JSON-RPC error has code.
func errorIs(e *jsonrpc.Error, code int64) bool {
	return e != nil && e.Code == code
}

// sameError reports whether two JSON-RPC errors are the same, data included.
func sameError(t *testing.T, got, want *jsonrpc.Error) bool {
	t.Helper()
	if got == nil || want == nil {
		return got == want
	}
	if got.Code != want.Code || got.Message != want.Message {
		return false
	}
	if len(got.Data) == 0 || len(want.Data) == 0 {
		return len(got.Data) == len(want.Data)
	}
	return jsonEqual(t, got.Data, string(want.Data))
}
