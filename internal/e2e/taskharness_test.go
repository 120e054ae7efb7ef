package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"sync"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/transport"
)

// Helpers of the task tests.

// plainTool is the one tool of [newPlainServer]: it claims taskSupport optional, but the
// server declares no tasks capability, so it must ignore params.task.
const (
	plainTool     = "claims_optional"
	plainToolText = "a plain result"
)

// newPlainServer is a server without tool tasks whose tool says taskSupport optional:
// a server that ignores params.task, as the spec asks of a receiver that did not declare
// task augmentation.
func newPlainServer(cfg serverConfig) *server.Server {
	srv := server.New(mcp.Implementation{Name: "plain", Version: "0"}, &server.Options{Tap: cfg.tap})
	srv.AddTool(&mcp.Tool{
		Name:        plainTool,
		Description: "Claims taskSupport optional on a server that declares no tasks.",
		Execution:   &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional},
	}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(plainToolText)}}, nil
	})
	return srv
}

// taskClient is the client options of the task tests: polls as often as the server says,
// however short.
func taskClient(opts *client.Options) *client.Options {
	if opts == nil {
		opts = &client.Options{}
	}
	if opts.PollFloor == 0 {
		opts.PollFloor = time.Millisecond
	}
	return opts
}

// taskServer is the server configuration of most task tests: a short pollInterval, so
// that a client that must poll does not wait long.
func taskServer() serverConfig {
	return serverConfig{pollInterval: 20 * time.Millisecond}
}

// collect ranges over a task's events until the stream ends. The client ends every task's
// event stream with an internal event of kind "closed", which collect leaves out.
func collect(events iter.Seq[client.TaskEvent]) []client.TaskEvent {
	var out []client.TaskEvent
	for e := range events {
		if e.Kind == "closed" {
			continue
		}
		out = append(out, e)
	}
	return out
}

// isOutcome reports whether e carries a task's outcome.
func isOutcome(e client.TaskEvent) bool {
	return e.Kind == client.TaskResult || e.Kind == client.TaskError || e.Kind == client.TaskGone
}

// outcome returns the one event that carries the task's outcome, failing the test if
// there is none or more than one. It is usually the last event, but a status
// notification handled while the outcome arrives can be published after it (a client
// race, reported), so outcome does not insist.
func outcome(t *testing.T, evs []client.TaskEvent) client.TaskEvent {
	t.Helper()
	var found []client.TaskEvent
	for _, e := range evs {
		if isOutcome(e) {
			found = append(found, e)
		}
	}
	if len(found) != 1 {
		for _, e := range evs {
			t.Logf("event %s: %s %q %v", e.Kind, e.State.Status, e.State.StatusMessage, e.Err)
		}
		t.Fatalf("%d outcome events, want exactly 1", len(found))
	}
	return found[0]
}

// statuses lists the statuses and status messages of the TaskStatus events.
func statuses(evs []client.TaskEvent) []mcp.Task {
	var out []mcp.Task
	for _, e := range evs {
		if e.Kind == client.TaskStatus {
			out = append(out, e.State)
		}
	}
	return out
}

// wire is one raw message as the client saw it.
type wire struct {
	dir jsonrpc.Direction
	m   jsonrpc.Message
}

// rawMessages returns the raw traffic among events, in order.
func rawMessages(evs []client.Event) []wire {
	var out []wire
	for _, e := range evs {
		if me, ok := e.(*client.MessageEvent); ok {
			out = append(out, wire{me.Dir, me.Message})
		}
	}
	return out
}

// requests returns the requests or notifications of method going in direction dir.
func requests(ws []wire, dir jsonrpc.Direction, method string) []*jsonrpc.Request {
	var out []*jsonrpc.Request
	for _, w := range ws {
		if r, ok := w.m.(*jsonrpc.Request); ok && w.dir == dir && r.Method == method {
			out = append(out, r)
		}
	}
	return out
}

// responseTo finds the response (in direction dir) to the request with id.
func responseTo(ws []wire, dir jsonrpc.Direction, id jsonrpc.ID) *jsonrpc.Response {
	for _, w := range ws {
		if r, ok := w.m.(*jsonrpc.Response); ok && w.dir == dir && r.ID == id {
			return r
		}
	}
	return nil
}

// responsesTo returns the responses (in direction dir) to the requests of method sent the
// other way.
func responsesTo(ws []wire, dir jsonrpc.Direction, method string) []*jsonrpc.Response {
	other := jsonrpc.Inbound
	if dir == jsonrpc.Inbound {
		other = jsonrpc.Outbound
	}
	var out []*jsonrpc.Response
	for _, r := range requests(ws, other, method) {
		if resp := responseTo(ws, dir, r.ID); resp != nil {
			out = append(out, resp)
		}
	}
	return out
}

// relatedTaskIn returns the related-task id in the _meta of a JSON object (params or
// result), and whether the key is there at all.
func relatedTaskIn(t *testing.T, raw json.RawMessage) (string, bool) {
	t.Helper()
	var obj struct {
		Meta mcp.Meta `json:"_meta"`
	}
	if len(raw) == 0 {
		return "", false
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		t.Fatalf("not a JSON object: %s: %v", raw, err)
	}
	if _, present := obj.Meta[mcp.MetaRelatedTask]; !present {
		return "", false
	}
	id, _ := obj.Meta.RelatedTask()
	return id, true
}

// serverTap records what a server in this process sends and receives, per session.
type serverTap struct {
	mu  sync.Mutex
	log []tapped
}

type tapped struct {
	s   *server.Session
	dir jsonrpc.Direction
	m   jsonrpc.Message
}

func (st *serverTap) tap(s *server.Session, dir jsonrpc.Direction, m jsonrpc.Message) {
	st.mu.Lock()
	st.log = append(st.log, tapped{s, dir, m})
	st.mu.Unlock()
}

func (st *serverTap) messages() []tapped {
	st.mu.Lock()
	defer st.mu.Unlock()
	return append([]tapped(nil), st.log...)
}

// waitUntil waits until cond holds, checking every millisecond, or fails the test when
// ctx ends. It is for conditions that nothing announces (a server noticing that a session
// ended), never for the passing of time.
func waitUntil(t *testing.T, ctx context.Context, what string, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("gave up waiting until %s: %v", what, ctx.Err())
		case <-tick.C:
		}
	}
}

// holdTransport wraps a transport so that inbound messages matching holdIn, and outbound
// ones matching holdOut, are held back until release is closed; the others pass. Inbound
// messages that follow a held one are not held up by it: the held ones are delivered at
// the release, after what arrived meanwhile. Tests use it to force an order the network
// rarely produces.
type holdTransport struct {
	inner   transport.Transport
	holdIn  func(jsonrpc.Message) bool
	holdOut func(jsonrpc.Message) bool
	release chan struct{}
}

func (h *holdTransport) Connect(ctx context.Context) (jsonrpc.Connection, error) {
	c, err := h.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	hc := &holdConn{Connection: c, t: h, reads: make(chan readResult), closed: make(chan struct{})}
	go hc.pump()
	return hc, nil
}

type readResult struct {
	m   jsonrpc.Message
	err error
}

type holdConn struct {
	jsonrpc.Connection
	t      *holdTransport
	reads  chan readResult
	closed chan struct{}
	once   sync.Once
	held   []jsonrpc.Message // only touched by Read, which is never called concurrently
}

func (c *holdConn) pump() {
	for {
		m, err := c.Connection.Read(context.Background())
		select {
		case c.reads <- readResult{m, err}:
		case <-c.closed:
			return
		}
		var de *jsonrpc.DecodeError
		if err != nil && !errors.As(err, &de) {
			return
		}
	}
}

func (c *holdConn) released() bool {
	select {
	case <-c.t.release:
		return true
	default:
		return false
	}
}

func (c *holdConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		if len(c.held) > 0 && c.released() {
			m := c.held[0]
			c.held = c.held[1:]
			return m, nil
		}
		release := c.t.release
		if len(c.held) == 0 {
			release = nil
		}
		select {
		case r := <-c.reads:
			if r.err == nil && c.t.holdIn != nil && !c.released() && c.t.holdIn(r.m) {
				c.held = append(c.held, r.m)
				continue
			}
			return r.m, r.err
		case <-release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func (c *holdConn) Write(ctx context.Context, m jsonrpc.Message) error {
	if c.t.holdOut != nil && c.t.holdOut(m) {
		select {
		case <-c.t.release:
		case <-c.closed:
			return jsonrpc.ErrClosed
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return c.Connection.Write(ctx, m)
}

func (c *holdConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return c.Connection.Close()
}
