package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/tasks"
	"github.com/mcpi-dev/mcpi/transport"
)

// TestExtTaskReportsQuickWorkEnded: a call that is a task at once (TaskAlways,
// TaskRequired) whose work ends before its CreateTaskResult is written is reported
// ended, completed or failed, with the outcome left to tasks/get (the create result
// carries neither result nor error); work that goes on is reported working, and so is
// work that asks for input, whose question goes through the task.
func TestExtTaskReportsQuickWorkEnded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := modernServer(&server.Options{Tasks: &tasks.Options{}})
		defer srv.Close()
		release := make(chan struct{})
		add := func(name string, policy server.TaskPolicy, h server.ToolHandler) {
			srv.AddToolWith(&mcp.Tool{Name: name}, h, &server.ToolOptions{TaskPolicy: policy})
		}
		add("instant", server.TaskRequired, func(context.Context, *server.ToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("instant")}}, nil
		})
		add("fails", server.TaskAlways, func(context.Context, *server.ToolRequest) (*mcp.CallToolResult, error) {
			return nil, jsonrpc.NewError(-32050, "broke")
		})
		add("own_task", server.TaskAlways, func(ctx context.Context, _ *server.ToolRequest) (*mcp.CallToolResult, error) {
			h, ok := server.TaskFromContext(ctx)
			if !ok {
				return nil, jsonrpc.NewError(-32603, "no task")
			}
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("ran as " + h.ID())}}, nil
		})
		add("held", server.TaskRequired, func(ctx context.Context, _ *server.ToolRequest) (*mcp.CallToolResult, error) {
			select {
			case <-release:
				return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("held done")}}, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		})
		add("asks", server.TaskAlways, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			r, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "name?", RequestedSchema: []byte(`{"type":"object"}`)})
			if err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("hi " + r.Content["name"].(string))}}, nil
		})
		p := newModernPeer(t, srv)
		created := func(name, status string) string {
			t.Helper()
			c, rerr := p.tool(name, extCaps, nil)
			if rerr != nil || str(c["resultType"]) != "task" || str(c["status"]) != status {
				t.Fatalf("%s: %s %v, want a task %s", name, c, rerr, status)
			}
			for _, k := range []string{"result", "error", "inputRequests", "requestState"} {
				if c[k] != nil {
					t.Errorf("%s: the CreateTaskResult has %s: %s", name, k, c)
				}
			}
			return str(c["taskId"])
		}
		get := func(id string) map[string]json.RawMessage {
			t.Helper()
			g, rerr := p.task(mcp.MethodTasksGet, id, nil)
			if rerr != nil {
				t.Fatalf("tasks/get %s: %v", id, rerr)
			}
			return g
		}

		if g := get(created("instant", "completed")); str(g["status"]) != "completed" || !strings.Contains(string(g["result"]), `"text":"instant"`) {
			t.Errorf("instant: tasks/get %s", g)
		}
		if g := get(created("fails", "failed")); !strings.Contains(string(g["error"]), `"code":-32050`) {
			t.Errorf("fails: tasks/get %s", g)
		}
		id := created("own_task", "completed")
		if g := get(id); !strings.Contains(string(g["result"]), "ran as "+id) {
			t.Errorf("own_task: tasks/get %s", g)
		}

		id = created("held", "working") // in synctest a wait for the work would never end
		close(release)
		synctest.Wait()
		if g := get(id); !strings.Contains(string(g["result"]), "held done") {
			t.Errorf("held: tasks/get %s", g)
		}

		id = created("asks", "working")
		synctest.Wait()
		g := get(id)
		if str(g["status"]) != "input_required" || !strings.Contains(string(g["inputRequests"]), `"name?"`) {
			t.Fatalf("asks: tasks/get %s, want its question", g)
		}
	})
}

// A 2026-07-28 call of a tool that is a task at once is answered where the server reads
// it: the CreateTaskResult of work that ended at once; of work that ends within the
// window, or goes on past it, once it ends or the window has passed, by a goroutine of its own while the reading goes on; and a call
// withdrawn within the window gets no answer, its work stopped. A retry of an input
// round, a call that did not declare the extension and a plain tool are answered as
// before.
func TestAtOnceCallAnsweredWhereRead(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := modernServer(&server.Options{Tasks: &tasks.Options{}})
		defer srv.Close()
		release := make(chan struct{})
		stopped := make(chan string, 4)
		srv.AddToolWith(&mcp.Tool{Name: "instant"}, func(context.Context, *server.ToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("instant")}}, nil
		}, &server.ToolOptions{TaskPolicy: server.TaskRequired})
		srv.AddToolWith(&mcp.Tool{Name: "held"}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			select {
			case <-release:
				return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("held done")}}, nil
			case <-ctx.Done():
				var a struct{ N string }
				_ = json.Unmarshal(req.Params.Arguments, &a)
				stopped <- a.N
				return nil, ctx.Err()
			}
		}, &server.ToolOptions{TaskPolicy: server.TaskAlways})
		srv.AddToolWith(&mcp.Tool{Name: "brief"}, func(context.Context, *server.ToolRequest) (*mcp.CallToolResult, error) {
			time.Sleep(100 * time.Microsecond) // within the window, past the first yield
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("brief")}}, nil
		}, &server.ToolOptions{TaskPolicy: server.TaskAlways})
		srv.AddTool(&mcp.Tool{Name: "plain"}, func(context.Context, *server.ToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("plain")}}, nil
		})

		// Raw lines over an in-memory pipe: the test writes a call and its withdrawal in
		// one write, with no moment between them when the bubble's clock could move.
		sr, cw := io.Pipe()
		cr, sw := io.Pipe()
		ss := srv.Connect(t.Context(), transport.NewStream(sr, sw, 0))
		defer ss.Close()
		defer cw.Close()
		lines := make(chan string, 16)
		go func() {
			r := bufio.NewReader(cr)
			for {
				l, err := r.ReadString('\n')
				if err != nil {
					close(lines)
					return
				}
				lines <- l
			}
		}()
		metaJSON := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + extCaps + `}`
		call := func(id int, name, extra string) string {
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{"n":"%d"},%s%s}}`+"\n", id, name, id, metaJSON, extra)
		}
		send := func(s string) {
			if _, err := io.WriteString(cw, s); err != nil {
				t.Fatal(err)
			}
		}
		type answer struct {
			ID     int                        `json:"id"`
			Result map[string]json.RawMessage `json:"result"`
			Error  *jsonrpc.Error             `json:"error"`
		}
		recv := func() answer {
			t.Helper()
			var a answer
			if err := json.Unmarshal([]byte(<-lines), &a); err != nil {
				t.Fatal(err)
			}
			return a
		}

		send(call(1, "instant", ""))
		if a := recv(); a.ID != 1 || str(a.Result["resultType"]) != "task" || str(a.Result["status"]) != "completed" {
			t.Fatalf("instant: %+v, want a completed task", a)
		}

		send(call(9, "brief", ""))
		if a := recv(); a.ID != 9 || str(a.Result["status"]) != "completed" {
			t.Fatalf("brief: %+v, want a completed task", a)
		}

		// Withdrawn within the window, then a call that ends at once: only the second
		// is answered, and the first's work is stopped.
		send(call(2, "held", "") + `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}` + "\n" + call(3, "instant", ""))
		if a := recv(); a.ID != 3 || str(a.Result["status"]) != "completed" {
			t.Fatalf("after a withdrawn call: %+v, want the answer to call 3", a)
		}
		synctest.Wait()
		select {
		case n := <-stopped:
			if n != "2" {
				t.Errorf("stopped the work of call %s, want 2", n)
			}
		default:
			t.Error("the withdrawn call's work goes on")
		}

		// Work that goes on: reported working once the window has passed.
		send(call(4, "held", ""))
		a := recv()
		if a.ID != 4 || str(a.Result["status"]) != "working" {
			t.Fatalf("held: %+v, want a working task", a)
		}
		close(release)
		synctest.Wait()
		send(`{"jsonrpc":"2.0","id":5,"method":"tasks/get","params":{"taskId":` + string(a.Result["taskId"]) + `,` + metaJSON + `}}` + "\n")
		if g := recv(); g.ID != 5 || str(g.Result["status"]) != "completed" || !strings.Contains(string(g.Result["result"]), "held done") {
			t.Errorf("held, released: tasks/get %+v", g)
		}

		// Answered as before, by a worker: a retry with a requestState (refused: not
		// one of the server's), a call without the extension (run inline), a plain tool.
		send(call(6, "instant", `,"requestState":"forged"`))
		if a := recv(); a.ID != 6 || a.Error == nil || a.Error.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("a forged requestState: %+v, want invalid params", a)
		}
		send(strings.Replace(call(7, "held", ""), `"extensions":{"io.modelcontextprotocol/tasks":{}}`, `"x":{}`, 1))
		send(call(8, "plain", ""))
		got := map[int]answer{}
		for range 2 {
			a := recv()
			got[a.ID] = a
		}
		if a := got[7]; str(a.Result["resultType"]) != "complete" || a.Result["taskId"] != nil || !strings.Contains(string(a.Result["content"]), "held done") {
			t.Errorf("without the extension: %+v, want the result inline", got)
		}
		if a := got[8]; str(a.Result["resultType"]) != "complete" || !strings.Contains(string(a.Result["content"]), "plain") {
			t.Errorf("plain: %+v", got)
		}
	})
}

// The reading goroutine never waits for the task engine: a call whose work has ended
// when the reading goroutine looks, while another goroutine holds the engine, is
// answered by a goroutine of its own once the engine is free, and the reading goes on
// meanwhile (a server/discover sent after the call is answered first).
func TestAtOnceCallNeverWaitsForTheEngine(t *testing.T) {
	// One P: the reading goroutine's yield lets the work end, and the engine be taken,
	// before it looks at the task, as on a server whose CPUs are busy.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var (
		hold  atomic.Bool
		held  = make(chan struct{})
		free  = make(chan struct{})
		done  = make(chan struct{})
		other atomic.Pointer[tasks.Handle]
	)
	// The engine reads the clock with its lock held: a clock that stops holds the engine.
	now := func() time.Time {
		if hold.CompareAndSwap(true, false) {
			held <- struct{}{}
			select {
			case <-free:
			case <-done:
			}
		}
		return time.Now()
	}
	onChange := func(owner string, tk mcp.Task) {
		if owner == "other" || tk.Status != mcp.TaskStatusCompleted {
			return
		}
		// The call's work has ended: another goroutine takes the engine before the
		// reading goroutine looks at the task.
		hold.Store(true)
		go other.Load().Finish(tasks.Outcome{Result: json.RawMessage(`{"content":[]}`)})
		<-held
	}
	srv := modernServer(&server.Options{Tasks: &tasks.Options{Now: now, OnChange: onChange}})
	defer srv.Close()
	defer close(done) // a failed test frees the engine first
	srv.AddToolWith(&mcp.Tool{Name: "instant"}, func(context.Context, *server.ToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("instant")}}, nil
	}, &server.ToolOptions{TaskPolicy: server.TaskRequired})
	p := newPipePeer(t, srv)
	metaJSON := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + extCaps + `}`
	for i := range 3 {
		h, err := srv.Tasks().Defer("other", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		other.Store(h)
		call, discover := 10+i, 20+i
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"instant",%s}}`+"\n"+
			`{"jsonrpc":"2.0","id":%d,"method":"server/discover","params":{%s}}`, call, metaJSON, discover, metaJSON))
		if got := p.recv(); !strings.HasPrefix(got, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{`, discover)) {
			t.Fatalf("round %d, with the engine held: %s, want the answer to server/discover first", i, got)
		}
		free <- struct{}{}
		if got := p.recv(); !strings.Contains(got, fmt.Sprintf(`"id":%d,"result":{"resultType":"task"`, call)) || !strings.Contains(got, `"status":"completed"`) {
			t.Fatalf("round %d, the engine free: %s, want the call's completed task", i, got)
		}
	}
}
