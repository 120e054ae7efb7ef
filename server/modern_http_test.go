package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/tasks"
	"github.com/mcpi-dev/mcpi/transport"
)

type httpCase struct {
	name    string
	method  string
	params  map[string]any
	headers map[string]string // "" deletes
	status  int
	code    int64 // 0: a result
}

func postModern(t *testing.T, ctx context.Context, url, method string, params map[string]any, headers map[string]string) *http.Response {
	t.Helper()
	if params == nil {
		params = map[string]any{}
	}
	if _, ok := params["_meta"]; !ok {
		params["_meta"] = meta(`{}`)
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if name, ok := params["name"].(string); ok {
		req.Header.Set("Mcp-Name", transport.EncodeHeaderValue(name))
	}
	for k, v := range headers {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func TestStatelessHTTP(t *testing.T) {
	srv := modernServer(nil)
	defer srv.Close()
	srv.AddTool(&mcp.Tool{Name: "héllo wörld"}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("hi")}}, nil
	})
	srv.AddTool(&mcp.Tool{Name: "where", InputSchema: json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`)},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	h := srv.HTTPHandler(nil)
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer h.Close()
	url := ts.URL + "/mcp"
	region := func(v string) map[string]any {
		return map[string]any{"name": "where", "arguments": map[string]any{"region": v}}
	}
	for _, c := range []httpCase{
		{name: "discover", method: mcp.MethodServerDiscover, status: 200},
		{name: "tool with a base64 Mcp-Name", method: mcp.MethodToolsCall, params: map[string]any{"name": "héllo wörld"}, status: 200},
		{name: "Mcp-Name mismatch", method: mcp.MethodToolsCall, params: map[string]any{"name": "héllo wörld"}, headers: map[string]string{"Mcp-Name": "other"}, status: 400, code: mcp.CodeHeaderMismatch},
		{name: "Mcp-Name bad base64", method: mcp.MethodToolsCall, params: map[string]any{"name": "héllo wörld"}, headers: map[string]string{"Mcp-Name": "=?base64?***?="}, status: 400, code: mcp.CodeHeaderMismatch},
		{name: "Mcp-Name missing", method: mcp.MethodToolsCall, params: map[string]any{"name": "héllo wörld"}, headers: map[string]string{"Mcp-Name": ""}, status: 400, code: mcp.CodeHeaderMismatch},
		{name: "Mcp-Method mismatch", method: mcp.MethodToolsList, headers: map[string]string{"Mcp-Method": "prompts/list"}, status: 400, code: mcp.CodeHeaderMismatch},
		{name: "version header mismatch", method: mcp.MethodToolsList, headers: map[string]string{"MCP-Protocol-Version": "2099-01-01"}, status: 400, code: mcp.CodeHeaderMismatch},
		{name: "unsupported version", method: mcp.MethodToolsList, params: map[string]any{"_meta": map[string]any{mcp.MetaProtocolVersion: "2099-01-01", mcp.MetaClientCapabilities: map[string]any{}}},
			headers: map[string]string{"MCP-Protocol-Version": "2099-01-01"}, status: 400, code: mcp.CodeUnsupportedProtocolVersion},
		{name: "missing _meta", method: mcp.MethodToolsList, params: map[string]any{"_meta": map[string]any{}}, status: 400, code: -32602},
		{name: "unknown method", method: "nope/nothing", status: 404, code: -32601},
		{name: "ping", method: mcp.MethodPing, status: 404, code: -32601},
		{name: "param header", method: mcp.MethodToolsCall, params: region("eu"), headers: map[string]string{"Mcp-Param-Region": "eu"}, status: 200},
		{name: "param header in base64", method: mcp.MethodToolsCall, params: region("Hello"), headers: map[string]string{"Mcp-Param-Region": "=?base64?SGVsbG8=?="}, status: 200},
		{name: "param header bad padding", method: mcp.MethodToolsCall, params: region("Hello"), headers: map[string]string{"Mcp-Param-Region": "=?base64?SGVsbG8?="}, status: 400, code: mcp.CodeHeaderMismatch},
		{name: "param header missing", method: mcp.MethodToolsCall, params: region("eu"), status: 400, code: mcp.CodeHeaderMismatch},
		{name: "param header differs", method: mcp.MethodToolsCall, params: region("eu"), headers: map[string]string{"Mcp-Param-Region": "us"}, status: 400, code: mcp.CodeHeaderMismatch},
		{name: "param header without argument", method: mcp.MethodToolsCall, params: map[string]any{"name": "where"}, headers: map[string]string{"Mcp-Param-Region": "us"}, status: 400, code: mcp.CodeHeaderMismatch},
		{name: "missing capability", method: mcp.MethodToolsCall, params: map[string]any{"name": "ask"}, status: 400, code: mcp.CodeMissingRequiredClientCapability},
	} {
		resp := postModern(t, t.Context(), url, c.method, c.params, c.headers)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var msg struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Code int64 `json:"code"`
			} `json:"error"`
		}
		_ = json.Unmarshal(body, &msg)
		got := int64(0)
		if msg.Error != nil {
			got = msg.Error.Code
		}
		if resp.StatusCode != c.status || got != c.code || msg.ID != 7 || resp.Header.Get(transport.HeaderSessionID) != "" {
			t.Errorf("%s: HTTP %d %s (session %q), want %d and code %d", c.name, resp.StatusCode, body, resp.Header.Get(transport.HeaderSessionID), c.status, c.code)
		}
	}
	if n := h.SessionCount(); n != 0 {
		t.Errorf("%d sessions after stateless requests", n)
	}
}

func TestListenOverHTTP(t *testing.T) {
	srv := modernServer(nil)
	defer srv.Close()
	h := srv.HTTPHandler(nil)
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer h.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	resp := postModern(t, ctx, ts.URL+"/mcp", mcp.MethodSubscriptionsListen, map[string]any{"notifications": map[string]any{"toolsListChanged": true}}, nil)
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	lines := bufio.NewScanner(resp.Body)
	next := func() string {
		for lines.Scan() {
			if d, ok := strings.CutPrefix(lines.Text(), "data: "); ok {
				return d
			}
		}
		t.Fatal("stream ended")
		return ""
	}
	if ack := next(); !strings.Contains(ack, mcp.NotificationSubscriptionsAcknowledged) || !strings.Contains(ack, `"io.modelcontextprotocol/subscriptionId":7`) {
		t.Errorf("first event %s", ack)
	}
	srv.AddTool(&mcp.Tool{Name: "new"}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) { return nil, nil })
	if n := next(); !strings.Contains(n, mcp.NotificationToolsListChanged) || !strings.Contains(n, `"io.modelcontextprotocol/subscriptionId":7`) {
		t.Errorf("second event %s", n)
	}
	resp.Body.Close()
	cancel()
	deadline := time.Now().Add(2 * time.Second)
	for srv.Listeners() > 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := srv.Listeners(); n != 0 {
		t.Errorf("%d listeners after the client closed the stream", n)
	}
}

// Closing the server ends an open listen with its final result, which names the
// subscription as every message of the stream does, over Streamable HTTP and on stdio,
// so that the client learns the server ended it.
func TestListenEndsWithServer(t *testing.T) {
	t.Run("http", func(t *testing.T) {
		srv := modernServer(nil)
		h := srv.HTTPHandler(nil)
		ts := httptest.NewServer(h)
		defer ts.Close()
		defer h.Close()
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		resp := postModern(t, ctx, ts.URL+"/mcp", mcp.MethodSubscriptionsListen, map[string]any{"notifications": map[string]any{"toolsListChanged": true}}, nil)
		defer resp.Body.Close()
		lines := bufio.NewScanner(resp.Body)
		var events []string
		for lines.Scan() {
			if d, ok := strings.CutPrefix(lines.Text(), "data: "); ok {
				events = append(events, d)
				if len(events) == 1 {
					go srv.Close() // once the listen is acknowledged
				}
			}
		}
		if len(events) != 2 || !strings.Contains(events[0], mcp.NotificationSubscriptionsAcknowledged) ||
			events[1] != `{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":7}}}` {
			t.Errorf("events %q, want the acknowledgement and the final result", events)
		}
	})
	t.Run("stdio", func(t *testing.T) {
		srv := modernServer(nil)
		p := newModernPeer(t, srv)
		done := make(chan error, 1)
		var res map[string]json.RawMessage
		go func() {
			done <- p.conn.Call(t.Context(), mcp.MethodSubscriptionsListen, map[string]any{"_meta": meta(`{}`),
				"notifications": map[string]any{"toolsListChanged": true}}, &res)
		}()
		select {
		case <-p.notes: // the acknowledgement
		case <-time.After(5 * time.Second):
			t.Fatal("no acknowledgement")
		}
		srv.Close()
		select {
		case err := <-done:
			if err != nil || str(res["resultType"]) != "complete" || !strings.Contains(string(res["_meta"]), mcp.MetaSubscriptionID) {
				t.Errorf("listen ended with %v, %v; want its final result, naming the subscription", res, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("the listen did not end with the server")
		}
	})
}

// serveHTTP serves srv over Streamable HTTP on 127.0.0.1 for the rest of the test.
func serveHTTP(t *testing.T, srv *server.Server) *httptest.Server {
	h := srv.HTTPHandler(nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		h.Close()
		ts.Close()
	})
	return ts
}

// addWaitTool adds "wait", a tool always made a task, whose work waits for release.
func addWaitTool(srv *server.Server, release <-chan struct{}) {
	srv.AddToolWith(&mcp.Tool{Name: "wait"}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		select {
		case <-release:
		case <-ctx.Done():
		}
		return &mcp.CallToolResult{}, nil
	}, &server.ToolOptions{TaskPolicy: server.TaskAlways})
}

// postExt posts a 2026-07-28 request that declares the Tasks extension, with the
// Authorization auth (none if empty), and returns its result or error.
func postExt(t *testing.T, ctx context.Context, url, auth, method string, params map[string]any) (map[string]json.RawMessage, *jsonrpc.Error) {
	t.Helper()
	params["_meta"] = meta(`{"extensions":{"io.modelcontextprotocol/tasks":{}}}`)
	hdr := map[string]string{}
	if auth != "" {
		hdr["Authorization"] = auth
	}
	if id, ok := params["taskId"].(string); ok {
		hdr["Mcp-Name"] = id
	}
	return decodeHTTP(t, postModern(t, ctx, url, method, params, hdr))
}

// decodeHTTP reads the result or error of a response, a JSON body or one event.
func decodeHTTP(t *testing.T, resp *http.Response) (map[string]json.RawMessage, *jsonrpc.Error) {
	t.Helper()
	defer resp.Body.Close()
	var m struct {
		Result map[string]json.RawMessage
		Error  *jsonrpc.Error
	}
	body, _ := io.ReadAll(resp.Body)
	if d, ok := bytes.CutPrefix(bytes.TrimSpace(body), []byte("event: message\ndata: ")); ok {
		body = d
	}
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("%s: %v: %s", resp.Request.Header.Get("Mcp-Method"), err, body)
	}
	return m.Result, m.Error
}

// In 2026-07-28 the engine's caps count per client: over HTTP per credentials (else per
// address), on stdio per connection. With MaxActive 1, each client runs one task.
func TestExtTaskOwnersPerClient(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	srv := modernServer(&server.Options{Tasks: &tasks.Options{MaxActive: 1}})
	defer srv.Close()
	addWaitTool(srv, release)
	ts := serveHTTP(t, srv)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	call := func(auth, method string, params map[string]any) (map[string]json.RawMessage, *jsonrpc.Error) {
		t.Helper()
		return postExt(t, ctx, ts.URL+"/mcp", auth, method, params)
	}
	first, rerr := call("Bearer alice", mcp.MethodToolsCall, map[string]any{"name": "wait"})
	if rerr != nil || str(first["resultType"]) != "task" {
		t.Fatalf("alice's task: %v, %v", first, rerr)
	}
	if _, rerr := call("Bearer alice", mcp.MethodToolsCall, map[string]any{"name": "wait"}); rerr == nil || !strings.Contains(rerr.Message, "too many tasks") {
		t.Errorf("alice's second task: %v, want too many tasks", rerr)
	}
	if res, rerr := call("Bearer bob", mcp.MethodToolsCall, map[string]any{"name": "wait"}); rerr != nil || str(res["resultType"]) != "task" {
		t.Errorf("bob's task, while alice runs hers: %v, %v", res, rerr)
	}
	if res, rerr := call("", mcp.MethodToolsCall, map[string]any{"name": "wait"}); rerr != nil || str(res["resultType"]) != "task" {
		t.Errorf("a task without credentials: %v, %v", res, rerr)
	}
	id := str(first["taskId"])
	if res, rerr := call("Bearer alice", mcp.MethodTasksGet, map[string]any{"taskId": id}); rerr != nil || str(res["status"]) != "working" {
		t.Errorf("alice's tasks/get of her task: %v, %v", res, rerr)
	}

	// stdio: one owner per connection.
	for i := range 2 {
		p := newModernPeer(t, srv)
		res, rerr := p.call(mcp.MethodToolsCall, map[string]any{"_meta": meta(`{"extensions":{"io.modelcontextprotocol/tasks":{}}}`), "name": "wait"})
		if rerr != nil || str(res["resultType"]) != "task" {
			t.Errorf("connection %d: %v, %v", i, res, rerr)
		}
	}
}

// Credentials nobody checks make as many owners as a client cares to forge, each with
// its own MaxActive and MaxKept: the engine's caps on all owners together still hold.
func TestExtTaskCapsHoldAgainstForgedCredentials(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	srv := modernServer(&server.Options{Tasks: &tasks.Options{MaxActive: 1, MaxActiveTotal: 3, MaxKeptTotal: 3}})
	defer srv.Close()
	addWaitTool(srv, release)
	ts := serveHTTP(t, srv)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	made := 0
	for i := range 10 {
		res, rerr := postExt(t, ctx, ts.URL+"/mcp", fmt.Sprintf("Bearer forged-%d", i), mcp.MethodToolsCall, map[string]any{"name": "wait"})
		switch {
		case rerr == nil && str(res["resultType"]) == "task":
			made++
		case rerr != nil && strings.Contains(rerr.Message, "too many tasks") && strings.Contains(string(rerr.Data), "maxActiveTotal"):
		default:
			t.Fatalf("call %d: %v, %v", i, res, rerr)
		}
	}
	if made != 3 {
		t.Errorf("%d tasks made under ten forged credentials, want 3 (MaxActiveTotal)", made)
	}
}
