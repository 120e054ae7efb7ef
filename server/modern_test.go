package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/tasks"
	"github.com/mcpi-dev/mcpi/transport"
)

// modernPeer is a raw 2026-07-28 client on an in-memory connection (stdio alike).
type modernPeer struct {
	t     *testing.T
	conn  *jsonrpc.Conn
	notes chan *jsonrpc.Request
}

func newModernPeer(t *testing.T, srv *server.Server) *modernPeer {
	t.Helper()
	a, b := transport.Pipe()
	srv.Connect(t.Context(), a)
	p := &modernPeer{t: t, notes: make(chan *jsonrpc.Request, 64)}
	p.conn = jsonrpc.NewConn(b, jsonrpc.Options{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		if req.IsNotification() {
			p.notes <- req
			return nil, nil
		}
		t.Errorf("the server sent a request in 2026-07-28: %s", req.Method)
		return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "no")
	})})
	t.Cleanup(func() { p.conn.Close() })
	return p
}

// nextNote is the next notification the peer received; the test fails without one
// within 5 s.
func (p *modernPeer) nextNote() *jsonrpc.Request {
	p.t.Helper()
	select {
	case n := <-p.notes:
		return n
	case <-time.After(5 * time.Second):
		p.t.Fatal("no notification")
		return nil
	}
}

func meta(caps string, extra ...string) map[string]any {
	m := map[string]any{
		mcp.MetaProtocolVersion:    mcp.ProtocolVersion20260728,
		mcp.MetaClientCapabilities: json.RawMessage(caps),
		mcp.MetaClientInfo:         map[string]string{"name": "raw", "version": "1"},
	}
	for i := 0; i+1 < len(extra); i += 2 {
		m[extra[i]] = extra[i+1]
	}
	return m
}

// call sends method with params (plus _meta unless params has one) and returns the raw
// result or the error.
func (p *modernPeer) call(method string, params map[string]any) (map[string]json.RawMessage, *jsonrpc.Error) {
	p.t.Helper()
	if params == nil {
		params = map[string]any{}
	}
	if _, ok := params["_meta"]; !ok {
		params["_meta"] = meta(`{}`)
	}
	var out map[string]json.RawMessage
	ctx, cancel := context.WithTimeout(p.t.Context(), 5*time.Second)
	defer cancel()
	err := p.conn.Call(ctx, method, params, &out)
	if err != nil {
		var rpc *jsonrpc.Error
		if !errors.As(err, &rpc) {
			p.t.Fatalf("%s: %v", method, err)
		}
		return nil, rpc
	}
	return out, nil
}

func str(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

func modernServer(opts *server.Options) *server.Server {
	o := server.Options{Modern: true}
	if opts != nil {
		o = *opts
		o.Modern = true
	}
	srv := server.New(mcp.Implementation{Name: "modern", Version: "1.2"}, &o)
	srv.AddTool(&mcp.Tool{Name: "ask"}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		r, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Name?", RequestedSchema: json.RawMessage(`{"type":"object"}`)})
		if err != nil {
			return nil, err
		}
		second, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 5,
			Messages: []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: []mcp.Content{mcp.TextContent("hi")}}}})
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(r.Action + ":" + second.Model)}}, nil
	})
	srv.AddTool(&mcp.Tool{Name: "log"}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		_ = req.Session.Log(ctx, mcp.LoggingLevelDebug, "t", "debug line")
		_ = req.Session.Log(ctx, mcp.LoggingLevelWarning, "t", "warning line")
		return &mcp.CallToolResult{}, nil
	})
	return srv
}

func TestModernDiscoverAndMeta(t *testing.T) {
	srv := modernServer(&server.Options{Instructions: "use it", Tasks: &tasks.Options{}, CacheTTL: time.Minute})
	defer srv.Close()
	p := newModernPeer(t, srv)
	res, rerr := p.call(mcp.MethodServerDiscover, nil)
	if rerr != nil {
		t.Fatal(rerr)
	}
	if str(res["resultType"]) != "complete" || str(res["cacheScope"]) != "public" || string(res["ttlMs"]) != "60000" ||
		str(res["instructions"]) != "use it" || string(res["supportedVersions"]) != `["2026-07-28","2025-11-25"]` {
		t.Errorf("discover = %s", res)
	}
	if strings.Contains(string(res["capabilities"]), `"tasks"`) {
		t.Errorf("capabilities advertise the 2025 core tasks to a 2026 client: %s", res["capabilities"])
	}
	if !strings.Contains(string(res["_meta"]), `"io.modelcontextprotocol/serverInfo":{"name":"modern","version":"1.2"}`) {
		t.Errorf("_meta = %s", res["_meta"])
	}
	list, rerr := p.call(mcp.MethodToolsList, nil)
	if rerr != nil || str(list["resultType"]) != "complete" || string(list["ttlMs"]) != "60000" || list["tools"] == nil {
		t.Errorf("tools/list = %s, %v", list, rerr)
	}
	for _, c := range []struct {
		method string
		params map[string]any
		code   int64
	}{
		{mcp.MethodToolsList, map[string]any{"_meta": map[string]any{mcp.MetaClientCapabilities: map[string]any{}}}, jsonrpc.CodeInvalidParams},
		{mcp.MethodToolsList, map[string]any{"_meta": map[string]any{mcp.MetaProtocolVersion: "2026-07-28"}}, jsonrpc.CodeInvalidParams},
		{mcp.MethodToolsList, map[string]any{"_meta": map[string]any{mcp.MetaProtocolVersion: "1900-01-01", mcp.MetaClientCapabilities: map[string]any{}}}, mcp.CodeUnsupportedProtocolVersion},
		{mcp.MethodInitialize, nil, jsonrpc.CodeMethodNotFound},
		{mcp.MethodPing, nil, jsonrpc.CodeMethodNotFound},
		{mcp.MethodLoggingSetLevel, nil, jsonrpc.CodeMethodNotFound},
		{mcp.MethodResourcesSubscribe, nil, jsonrpc.CodeMethodNotFound},
		{mcp.MethodTasksList, nil, jsonrpc.CodeMethodNotFound},
	} {
		if _, rerr := p.call(c.method, c.params); rerr == nil || rerr.Code != c.code {
			t.Errorf("%s %v: error %v, want code %d", c.method, c.params, rerr, c.code)
		}
	}
	_, rerr = p.call(mcp.MethodToolsList, map[string]any{"_meta": map[string]any{mcp.MetaProtocolVersion: "1900-01-01", mcp.MetaClientCapabilities: map[string]any{}}})
	if string(rerr.Data) != `{"requested":"1900-01-01","supported":["2026-07-28","2025-11-25"]}` {
		t.Errorf("-32022 data = %s", rerr.Data)
	}
}

// A connection that opened with initialize stays 2025-11-25, whatever _meta says later;
// a server without Options.Modern does not answer server/discover.
func TestEraIsSettledOnce(t *testing.T) {
	srv := modernServer(nil)
	defer srv.Close()
	p := newModernPeer(t, srv)
	var init mcp.InitializeResult
	if err := p.conn.Call(t.Context(), mcp.MethodInitialize, &mcp.InitializeParams{ProtocolVersion: mcp.LatestProtocolVersion}, &init); err != nil {
		t.Fatal(err)
	}
	res, rerr := p.call(mcp.MethodToolsList, nil)
	if rerr != nil || res["resultType"] != nil {
		t.Errorf("tools/list on a 2025 connection = %s, %v", res, rerr)
	}
	if _, rerr := p.call(mcp.MethodServerDiscover, nil); rerr == nil || rerr.Code != jsonrpc.CodeMethodNotFound {
		t.Errorf("server/discover on a 2025 connection: %v", rerr)
	}

	legacy := server.New(mcp.Implementation{Name: "old", Version: "1"}, nil)
	defer legacy.Close()
	q := newModernPeer(t, legacy)
	if _, rerr := q.call(mcp.MethodServerDiscover, nil); rerr == nil || rerr.Code == 0 {
		t.Errorf("server/discover on a server without Modern answered")
	}
}

func TestMRTRRoundTrip(t *testing.T) {
	now := time.Now()
	srv := modernServer(&server.Options{Now: func() time.Time { return now }})
	defer srv.Close()
	p := newModernPeer(t, srv)
	caps := `{"elicitation":{},"sampling":{}}`
	callAsk := func(extra map[string]any) (map[string]json.RawMessage, *jsonrpc.Error) {
		params := map[string]any{"name": "ask", "arguments": map[string]any{"x": 1}, "_meta": meta(caps)}
		for k, v := range extra {
			params[k] = v
		}
		return p.call(mcp.MethodToolsCall, params)
	}
	r1, rerr := callAsk(nil)
	if rerr != nil || str(r1["resultType"]) != "input_required" {
		t.Fatalf("round 1 = %s, %v", r1, rerr)
	}
	var asked map[string]mcp.InputRequest
	_ = json.Unmarshal(r1["inputRequests"], &asked)
	if len(asked) != 1 || asked["elicitation-1"].Method != mcp.MethodElicitationCreate {
		t.Fatalf("round 1 asked %s", r1["inputRequests"])
	}
	state1 := str(r1["requestState"])
	accept := json.RawMessage(`{"action":"accept","content":{"name":"Ann"}}`)
	r2, rerr := callAsk(map[string]any{"inputResponses": map[string]any{"elicitation-1": accept}, "requestState": state1})
	if rerr != nil || str(r2["resultType"]) != "input_required" || !strings.Contains(string(r2["inputRequests"]), `"sampling-1"`) {
		t.Fatalf("round 2 = %s, %v", r2, rerr)
	}
	state2 := str(r2["requestState"])
	sampled := json.RawMessage(`{"role":"assistant","content":{"type":"text","text":"yo"},"model":"m1"}`)
	r3, rerr := callAsk(map[string]any{"inputResponses": map[string]any{"sampling-1": sampled}, "requestState": state2})
	if rerr != nil || str(r3["resultType"]) != "complete" || !strings.Contains(string(r3["content"]), "accept:m1") {
		t.Fatalf("round 3 = %s, %v", r3, rerr)
	}

	for name, extra := range map[string]map[string]any{
		"tampered":      {"inputResponses": map[string]any{"sampling-1": sampled}, "requestState": state2[:len(state2)-2] + "AA"},
		"garbage":       {"requestState": "not-a-state"},
		"not a string":  {"requestState": 7},
		"bad responses": {"inputResponses": nil},
		"bad answer":    {"inputResponses": map[string]any{"elicitation-1": 12345}},
		"bad action":    {"inputResponses": map[string]any{"elicitation-1": map[string]any{"action": "maybe"}}},
	} {
		if _, rerr := callAsk(extra); rerr == nil || rerr.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("%s: error %v, want -32602", name, rerr)
		}
	}
	// The state is bound to the arguments.
	other := map[string]any{"name": "ask", "arguments": map[string]any{"x": 2}, "_meta": meta(caps), "requestState": state2,
		"inputResponses": map[string]any{"sampling-1": sampled}}
	if _, rerr := p.call(mcp.MethodToolsCall, other); rerr == nil || rerr.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("state of other arguments: %v, want -32602", rerr)
	}
	// Spelled differently, the same arguments are the same request.
	same := map[string]any{"name": "ask", "arguments": json.RawMessage(`{ "x" : 1 }`), "_meta": meta(caps), "requestState": state2,
		"inputResponses": map[string]any{"sampling-1": sampled}}
	if r, rerr := p.call(mcp.MethodToolsCall, same); rerr != nil || str(r["resultType"]) != "complete" {
		t.Errorf("same arguments spelled otherwise: %s, %v", r, rerr)
	}
	// A state from another server is refused.
	other2 := modernServer(nil)
	defer other2.Close()
	q := newModernPeer(t, other2)
	if _, rerr := q.call(mcp.MethodToolsCall, map[string]any{"name": "ask", "arguments": map[string]any{"x": 1}, "_meta": meta(caps),
		"requestState": state2, "inputResponses": map[string]any{"sampling-1": sampled}}); rerr == nil || rerr.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("another server's state: %v", rerr)
	}
	// An expired state is refused.
	now = now.Add(server.DefaultRequestStateTTL + time.Second)
	if _, rerr := callAsk(map[string]any{"inputResponses": map[string]any{"sampling-1": sampled}, "requestState": state2}); rerr == nil || rerr.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("expired state: %v", rerr)
	}
	// A client that declared no elicitation gets -32021 naming it.
	_, rerr = p.call(mcp.MethodToolsCall, map[string]any{"name": "ask", "_meta": meta(`{"sampling":{}}`)})
	if rerr == nil || rerr.Code != mcp.CodeMissingRequiredClientCapability || string(rerr.Data) != `{"requiredCapabilities":{"elicitation":{}}}` {
		t.Errorf("undeclared elicitation: %v %s", rerr, rerrData(rerr))
	}
}

func rerrData(e *jsonrpc.Error) string {
	if e == nil {
		return ""
	}
	return string(e.Data)
}

func TestModernLogLevelPerRequest(t *testing.T) {
	srv := modernServer(nil)
	defer srv.Close()
	p := newModernPeer(t, srv)
	if _, rerr := p.call(mcp.MethodToolsCall, map[string]any{"name": "log"}); rerr != nil {
		t.Fatal(rerr)
	}
	if _, rerr := p.call(mcp.MethodToolsCall, map[string]any{"name": "log", "_meta": meta(`{}`, mcp.MetaLogLevel, "info")}); rerr != nil {
		t.Fatal(rerr)
	}
	var got []string
	for len(p.notes) > 0 {
		n := <-p.notes
		if n.Method == mcp.NotificationMessage {
			got = append(got, string(n.Params))
		}
	}
	if len(got) != 1 || !strings.Contains(got[0], "warning line") {
		t.Errorf("log messages = %q, want the warning of the request that asked for info", got)
	}
}

func TestListenOnStdio(t *testing.T) {
	srv := modernServer(nil)
	defer srv.Close()
	p := newModernPeer(t, srv)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		done <- p.conn.Call(ctx, mcp.MethodSubscriptionsListen, map[string]any{"_meta": meta(`{}`),
			"notifications": map[string]any{"toolsListChanged": true, "promptsListChanged": true}}, nil)
	}()
	ack := p.nextNote()
	if ack.Method != mcp.NotificationSubscriptionsAcknowledged || !strings.Contains(string(ack.Params), `"toolsListChanged":true`) ||
		strings.Contains(string(ack.Params), "promptsListChanged") || !strings.Contains(string(ack.Params), mcp.MetaSubscriptionID) {
		t.Errorf("ack = %s %s (the server has no prompts: promptsListChanged is not honoured)", ack.Method, ack.Params)
	}
	srv.AddTool(&mcp.Tool{Name: "new"}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) { return nil, nil })
	n := p.nextNote()
	if n.Method != mcp.NotificationToolsListChanged || !strings.Contains(string(n.Params), mcp.MetaSubscriptionID) {
		t.Errorf("got %s %s", n.Method, n.Params)
	}
	cancel()
	<-done
	time.Sleep(50 * time.Millisecond)
	srv.AddTool(&mcp.Tool{Name: "newer"}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) { return nil, nil })
	select {
	case n := <-p.notes:
		t.Errorf("after cancelling the listen: %s %s", n.Method, n.Params)
	case <-time.After(100 * time.Millisecond):
	}
}

// Options.Handlers answer in 2026-07-28 too: after the server has read _meta (a request
// without it is refused before any handler), with the request's params bare, and with
// resultType added unless the handler names one. ErrNotHandled falls through.
func TestHandlersIn2026(t *testing.T) {
	var sawMeta atomic.Bool
	srv := modernServer(&server.Options{Handlers: map[string]server.MethodHandler{
		"x/echo": func(ctx context.Context, s *server.Session, req *jsonrpc.Request) (any, error) {
			var p map[string]json.RawMessage
			_ = json.Unmarshal(req.Params, &p)
			if bytes.Contains(p["_meta"], []byte(mcp.MetaProtocolVersion)) {
				sawMeta.Store(true)
			}
			return map[string]json.RawMessage{"got": p["text"]}, nil
		},
		"x/own": func(context.Context, *server.Session, *jsonrpc.Request) (any, error) {
			return json.RawMessage(`{"resultType":"input_required","inputRequests":{}}`), nil
		},
		mcp.MethodToolsList: func(context.Context, *server.Session, *jsonrpc.Request) (any, error) {
			return nil, server.ErrNotHandled
		},
		"x/fail": func(context.Context, *server.Session, *jsonrpc.Request) (any, error) {
			return nil, server.ErrNotHandled
		},
	}})
	defer srv.Close()
	p := newModernPeer(t, srv)
	res, rerr := p.call("x/echo", map[string]any{"text": "hi"})
	if rerr != nil || str(res["got"]) != "hi" || str(res["resultType"]) != "complete" {
		t.Errorf("x/echo: %v, %v", res, rerr)
	}
	if sawMeta.Load() {
		t.Error("the handler saw the per-request _meta")
	}
	if res, rerr = p.call("x/own", nil); rerr != nil || str(res["resultType"]) != "input_required" {
		t.Errorf("x/own: %v, %v", res, rerr)
	}
	if res, rerr = p.call(mcp.MethodToolsList, nil); rerr != nil || res["tools"] == nil {
		t.Errorf("tools/list through ErrNotHandled: %v, %v", res, rerr)
	}
	if _, rerr = p.call("x/fail", nil); rerr == nil || rerr.Code != jsonrpc.CodeMethodNotFound {
		t.Errorf("x/fail: %v, want -32601", rerr)
	}
	if _, rerr = p.call("x/echo", map[string]any{"_meta": map[string]any{}}); rerr == nil {
		t.Error("a request without the protocol version in _meta reached the handler")
	}
}

// A listen stream's first message is its acknowledgement, however busy the server is
// telling its other streams: a notification the stream asked for, sent while it opens,
// comes after it.
func TestListenAcknowledgedFirst(t *testing.T) {
	srv := modernServer(nil)
	defer srv.Close()
	a, b := transport.Pipe()
	srv.Connect(t.Context(), a)
	var mu sync.Mutex
	first := map[string]string{} // subscription id → the method of its first message
	acked := make(chan struct{}, 1024)
	conn := jsonrpc.NewConn(b, jsonrpc.Options{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		var p struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		}
		if _ = json.Unmarshal(req.Params, &p); p.Meta[mcp.MetaSubscriptionID] == nil {
			return nil, nil
		}
		id := string(p.Meta[mcp.MetaSubscriptionID])
		mu.Lock()
		if _, seen := first[id]; !seen {
			first[id] = req.Method
		}
		mu.Unlock()
		if req.Method == mcp.NotificationSubscriptionsAcknowledged {
			acked <- struct{}{}
		}
		return nil, nil
	})})
	defer conn.Close()

	// The tools list changes all the while the streams open.
	stop := churnTools(srv)
	const streams = 300
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	for range streams {
		go func() {
			_ = conn.Call(ctx, mcp.MethodSubscriptionsListen, map[string]any{"_meta": meta(`{}`),
				"notifications": map[string]any{"toolsListChanged": true}}, nil)
		}()
	}
	for i := range streams {
		select {
		case <-acked:
		case <-time.After(10 * time.Second):
			t.Fatalf("%d of %d streams acknowledged", i, streams)
		}
	}
	stop()
	mu.Lock()
	defer mu.Unlock()
	bad := 0
	for id, method := range first {
		if method != mcp.NotificationSubscriptionsAcknowledged {
			bad++
			if bad <= 3 {
				t.Errorf("stream %s began with %s", id, method)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d streams began with something other than their acknowledgement", bad, len(first))
	}
}

// churnTools changes srv's tools list in a loop until stop is called, which returns once
// the loop has ended.
func churnTools(srv *server.Server) (stop func()) {
	done := make(chan struct{})
	var changes sync.WaitGroup
	changes.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			default:
			}
			srv.AddTool(&mcp.Tool{Name: fmt.Sprintf("t%d", i%4)}, func(context.Context, *server.ToolRequest) (*mcp.CallToolResult, error) {
				return nil, nil
			})
		}
	})
	return func() {
		close(done)
		changes.Wait()
	}
}

// A listen's resourceSubscriptions are honoured once each, whatever their repeats: an
// update of a URI the stream named reaches it once, one of another URI does not.
func TestListenResourceSubscriptions(t *testing.T) {
	srv := modernServer(nil)
	defer srv.Close()
	srv.AddResource(&mcp.Resource{URI: "demo://a", Name: "a"}, func(ctx context.Context, s *server.Session, p *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{}, nil
	})
	p := newModernPeer(t, srv)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() {
		_ = p.conn.Call(ctx, mcp.MethodSubscriptionsListen, map[string]any{"_meta": meta(`{}`),
			"notifications": map[string]any{"resourceSubscriptions": []string{"demo://a", "demo://b", "demo://a"}}}, nil)
	}()
	if ack := p.nextNote(); ack.Method != mcp.NotificationSubscriptionsAcknowledged || !strings.Contains(string(ack.Params), `"resourceSubscriptions":["demo://a","demo://b"]`) {
		t.Fatalf("ack = %s %s", ack.Method, ack.Params)
	}
	srv.NotifyResourceUpdated(t.Context(), "demo://c")
	srv.NotifyResourceUpdated(t.Context(), "demo://a")
	srv.NotifyResourceUpdated(t.Context(), "demo://b")
	for _, want := range []string{"demo://a", "demo://b"} {
		n := p.nextNote()
		if n.Method != mcp.NotificationResourcesUpdated || !strings.Contains(string(n.Params), `"uri":"`+want+`"`) || !strings.Contains(string(n.Params), mcp.MetaSubscriptionID) {
			t.Errorf("got %s %s, want the update of %s", n.Method, n.Params, want)
		}
	}
	select {
	case n := <-p.notes:
		t.Errorf("one more: %s %s", n.Method, n.Params)
	case <-time.After(50 * time.Millisecond):
	}
}

// TestEraIsSettledInArrivalOrder: a connection's era is the one of the first request
// that arrives, not of the first whose handler happens to run, as requests are handled
// concurrently: a client that sends server/discover and then, before any answer,
// initialize (a client whose probe timed out while the server was starting) finds the
// connection of 2026-07-28, and initialize refused, every time.
func TestEraIsSettledInArrivalOrder(t *testing.T) {
	srv := modernServer(nil)
	defer srv.Close()
	discover, _ := json.Marshal(map[string]any{"_meta": meta(`{}`)})
	initialize, _ := json.Marshal(&mcp.InitializeParams{ProtocolVersion: mcp.LatestProtocolVersion})
	for i := range 50 {
		a, b := transport.Pipe()
		srv.Connect(t.Context(), a)
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		if err := b.Write(ctx, &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: mcp.MethodServerDiscover, Params: discover}); err != nil {
			t.Fatal(err)
		}
		if err := b.Write(ctx, &jsonrpc.Request{ID: jsonrpc.Int64ID(2), Method: mcp.MethodInitialize, Params: initialize}); err != nil {
			t.Fatal(err)
		}
		answers := map[string]*jsonrpc.Response{}
		for len(answers) < 2 {
			m, err := b.Read(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if r, ok := m.(*jsonrpc.Response); ok {
				answers[r.ID.String()] = r
			}
		}
		cancel()
		b.Close()
		if r := answers["1"]; r.Error != nil {
			t.Fatalf("run %d: server/discover refused: %v", i, r.Error)
		}
		if r := answers["2"]; r.Error == nil || r.Error.Code != jsonrpc.CodeMethodNotFound {
			t.Fatalf("run %d: initialize after server/discover answered %s, %v; want -32601", i, r.Result, r.Error)
		}
	}
}
