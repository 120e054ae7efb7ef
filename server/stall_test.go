package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/tasks"
)

// A client of 2026-07-28 over Streamable HTTP that listens to its own task and then stops
// reading must not stall anyone else: the task's notification (here 16 MiB, more than
// the sockets between them hold) was written while the task engine held its lock of
// announcements, and every other client's tasks waited for it, up to the write's 30 s.
// Both ways the stream can meet the task's end: open while the task ends, and opened
// after it (the stream's first message of the task is then its end).
func TestUnreadListenStallsNoOtherClient(t *testing.T) {
	for _, before := range []bool{true, false} {
		t.Run(map[bool]string{true: "listening while the task ends", false: "listening after the task ended"}[before], func(t *testing.T) {
			release := make(chan struct{})
			srv := modernServer(&server.Options{Tasks: &tasks.Options{}})
			defer srv.Close()
			big := strings.Repeat("x", 16<<20)
			srv.AddToolWith(&mcp.Tool{Name: "big"}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
				select {
				case <-release:
				case <-ctx.Done():
				}
				return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(big)}}, nil
			}, &server.ToolOptions{TaskPolicy: server.TaskAlways})
			srv.AddToolWith(&mcp.Tool{Name: "quick"}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("done")}}, nil
			}, &server.ToolOptions{TaskPolicy: server.TaskAlways})
			ts := serveHTTP(t, srv)
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second) // a bound for a loaded machine (it ran out at 10 s), not a measure
			defer cancel()
			call := func(who, method string, params map[string]any) map[string]json.RawMessage {
				t.Helper()
				res, rerr := postExt(t, ctx, ts.URL+"/mcp", "Bearer "+who, method, params)
				if rerr != nil {
					t.Fatalf("%s of %s: %v", method, who, rerr)
				}
				return res
			}
			id := str(call("mallory", mcp.MethodToolsCall, map[string]any{"name": "big"})["taskId"])
			waitDone := func(who, id string) {
				t.Helper()
				for ctx.Err() == nil {
					if st := str(call(who, mcp.MethodTasksGet, map[string]any{"taskId": id})["status"]); st == "completed" {
						return
					}
				}
				t.Fatalf("%s's task %s did not complete", who, id)
			}
			listen := func() net.Conn {
				c, _ := listenRaw(t, ctx, ts, id)
				return c
			}
			var c net.Conn
			if before {
				c = listen()
				close(release)
				waitDone("mallory", id)
			} else {
				close(release)
				waitDone("mallory", id)
				c = listen()
			}
			defer c.Close()

			// Another client's task, made and ended while mallory's stream is full.
			res := call("alice", mcp.MethodToolsCall, map[string]any{"name": "quick"})
			if str(res["resultType"]) != "task" {
				t.Fatalf("alice's call: %v", res)
			}
			waitDone("alice", str(res["taskId"]))
		})
	}
}

// A listen stream whose client reads slower than its task changes holds at most the
// newest state of each task beyond a short queue, not every state: here 20,000 changes
// of 1 KiB while the client reads nothing. When it reads again it gets the states in
// their order, the task's end last, then the stream's final result.
func TestSlowListenGetsNewestStates(t *testing.T) {
	const changes = 20_000
	start := make(chan struct{})
	srv := modernServer(&server.Options{Tasks: &tasks.Options{}})
	defer srv.Close()
	pad := strings.Repeat("p", 1024)
	srv.AddToolWith(&mcp.Tool{Name: "chatty"}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		<-start
		h, _ := server.TaskFromContext(ctx)
		for k := 1; k <= changes; k++ {
			if err := h.SetStatus(mcp.TaskStatusWorking, fmt.Sprintf("step %d %s", k, pad)); err != nil {
				return nil, err
			}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("done")}}, nil
	}, &server.ToolOptions{TaskPolicy: server.TaskAlways})
	ts := serveHTTP(t, srv)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	res, rerr := postExt(t, ctx, ts.URL+"/mcp", "", mcp.MethodToolsCall, map[string]any{"name": "chatty"})
	if rerr != nil {
		t.Fatal(rerr)
	}
	id := str(res["taskId"])
	c, r := listenRaw(t, ctx, ts, id)
	defer c.Close()
	close(start)
	for ctx.Err() == nil {
		res, rerr := postExt(t, ctx, ts.URL+"/mcp", "", mcp.MethodTasksGet, map[string]any{"taskId": id})
		if rerr != nil {
			t.Fatal(rerr)
		}
		if str(res["status"]) == "completed" {
			break
		}
	}
	// Now read: states in order, the end, the final result.
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	last, n := 0, 0
	var end string
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("after %d states: %v", n, err)
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var m struct {
			Method string
			Params struct {
				Status        string
				StatusMessage string
			}
			Result json.RawMessage
		}
		if err := json.Unmarshal([]byte(data), &m); err != nil {
			t.Fatalf("%v: %.200s", err, data)
		}
		if m.Result != nil {
			if end != "completed" {
				t.Errorf("the final result after the state %q, want completed", end)
			}
			break
		}
		if end == "completed" {
			t.Fatalf("%s after the task's end", m.Method)
		}
		if m.Method != mcp.NotificationTasks {
			t.Fatalf("not a task's state: %.300s", data)
		}
		n++
		end = m.Params.Status
		var k int
		if _, err := fmt.Sscanf(m.Params.StatusMessage, "step %d", &k); err == nil {
			if k <= last {
				t.Fatalf("step %d after step %d", k, last)
			}
			last = k
		}
	}
	if n >= changes/2 {
		t.Errorf("%d states queued for a client that read none, want far fewer than the %d changes", n, changes)
	}
	t.Logf("%d states of %d changes reached the client, the last step %d", n, changes, last)
}

// listenRaw opens a subscriptions/listen of task id over its own connection and reads
// up to its acknowledgement: nothing more is read
// unless the caller reads from the reader returned.
func listenRaw(t *testing.T, ctx context.Context, ts *httptest.Server, id string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := (&net.Dialer{}).DialContext(ctx, "tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": mcp.MethodSubscriptionsListen,
		"params": map[string]any{"_meta": meta(`{"extensions":{"io.modelcontextprotocol/tasks":{}}}`), "notifications": map[string]any{"taskIds": []string{id}}}})
	fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"+
		"MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: %s\r\nAuthorization: Bearer mallory\r\nContent-Length: %d\r\n\r\n%s",
		ts.Listener.Addr(), mcp.MethodSubscriptionsListen, len(body), body)
	r := bufio.NewReaderSize(c, 512)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			c.Close()
			t.Fatalf("the listen's acknowledgement: %v", err)
		}
		if strings.Contains(line, mcp.NotificationSubscriptionsAcknowledged) {
			return c, r
		}
	}
}
