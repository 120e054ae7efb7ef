package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/tasks"
	"github.com/mcpi-dev/mcpi/transport"
)

// pipePeer is a client of srv over two OS pipes, as `mcpi serve` over stdio has one,
// writing and reading raw lines: the server answers a task's tasks/result on its
// reading goroutine there (jsonrpc.Options.Quick).
type pipePeer struct {
	t     *testing.T
	w     *os.File
	lines chan string
}

func newPipePeer(t *testing.T, srv *server.Server) *pipePeer {
	sr, cw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cr, sw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	ss := srv.Connect(t.Context(), transport.NewStream(sr, sw, 0))
	p := &pipePeer{t: t, w: cw, lines: make(chan string, 64)}
	go func() {
		defer close(p.lines)
		r := bufio.NewReader(cr)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			p.lines <- strings.TrimSuffix(line, "\n")
		}
	}()
	t.Cleanup(func() {
		cw.Close()
		ss.Close()
		cr.Close()
	})
	return p
}

func (p *pipePeer) send(line string) {
	p.t.Helper()
	if _, err := p.w.WriteString(line + "\n"); err != nil {
		p.t.Fatal(err)
	}
}

func (p *pipePeer) recv() string {
	p.t.Helper()
	select {
	case l, ok := <-p.lines:
		if !ok {
			p.t.Fatal("the server closed its output")
		}
		return l
	case <-time.After(10 * time.Second): // a bound, not a measure
		p.t.Fatal("timed out waiting for a line from the server")
	}
	return ""
}

// A 2025-11-25 tasks/result of a running task is answered by the task's end, after its
// status notification, with no goroutine of the server's waiting for it; one the client
// withdraws gets no answer, and a later one still gets the result.
func TestTaskResultAnsweredByItsEnd(t *testing.T) {
	srv := server.New(mcp.Implementation{Name: "s", Version: "1"}, &server.Options{Tasks: &tasks.Options{}, Modern: true})
	defer srv.Close()
	release := make(chan struct{})
	srv.AddTool(&mcp.Tool{Name: "held", Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}},
		func(ctx context.Context, _ *server.ToolRequest) (*mcp.CallToolResult, error) {
			select {
			case <-release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("done")}}, nil
		})
	p := newPipePeer(t, srv)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	p.recv()
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"held","task":{"ttl":60000}}}`)
	var created struct {
		Result mcp.CreateTaskResult `json:"result"`
	}
	if err := json.Unmarshal([]byte(p.recv()), &created); err != nil || created.Result.Task.TaskID == "" {
		t.Fatalf("CreateTaskResult: %v %+v", err, created)
	}
	id := created.Result.Task.TaskID
	p.send(`{"jsonrpc":"2.0","id":10,"method":"tasks/result","params":{"taskId":"` + id + `"}}`)
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":10}}`)
	p.send(`{"jsonrpc":"2.0","id":11,"method":"tasks/result","params":{"taskId":"` + id + `"}}`)
	p.send(`{"jsonrpc":"2.0","id":12,"method":"ping"}`)
	if got := p.recv(); got != `{"jsonrpc":"2.0","id":12,"result":{}}` {
		t.Fatalf("before the end: %s, want the ping's answer alone", got)
	}
	close(release)
	if got := p.recv(); !strings.Contains(got, `"method":"notifications/tasks/status"`) || !strings.Contains(got, `"status":"completed"`) {
		t.Fatalf("first after the end: %s, want the completed status", got)
	}
	want := `{"jsonrpc":"2.0","id":11,"result":{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"` + id + `"}},"content":[{"type":"text","text":"done"}]}}`
	if got := p.recv(); got != want {
		t.Fatalf("then:\n got %s\nwant %s", got, want)
	}
	p.send(`{"jsonrpc":"2.0","id":13,"method":"ping"}`)
	if got := p.recv(); got != `{"jsonrpc":"2.0","id":13,"result":{}}` {
		t.Fatalf("after: %s, want the ping's answer (nothing for the withdrawn request)", got)
	}
}

// A 2025-11-25 tools/call that asks for a task is answered where the server reads it,
// and the work runs after: its CreateTaskResult always comes before the task's status
// notification, and a tasks/result right after it gets the result. Calls the handling
// refuses or runs inline are answered as before.
func TestTaskCallAnsweredWhereRead(t *testing.T) {
	srv := server.New(mcp.Implementation{Name: "s", Version: "1"}, &server.Options{Tasks: &tasks.Options{}})
	defer srv.Close()
	srv.AddTool(&mcp.Tool{Name: "instant", Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}},
		func(context.Context, *server.ToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("done")}}, nil
		})
	srv.AddTool(&mcp.Tool{Name: "inline"}, func(context.Context, *server.ToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("inline")}}, nil
	})
	p := newPipePeer(t, srv)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	p.recv()
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for i := range 50 {
		id := 100 + 2*i
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"instant","task":{"ttl":60000}}}`, id))
		var created struct {
			ID     int                  `json:"id"`
			Result mcp.CreateTaskResult `json:"result"`
		}
		if line := p.recv(); json.Unmarshal([]byte(line), &created) != nil || created.ID != id || created.Result.Task.TaskID == "" {
			t.Fatalf("call %d: first line %s, want its CreateTaskResult", i, line)
		}
		task := created.Result.Task.TaskID
		if line := p.recv(); !strings.Contains(line, `"method":"notifications/tasks/status"`) || !strings.Contains(line, task) || !strings.Contains(line, `"completed"`) {
			t.Fatalf("call %d: then %s, want the task's completed status", i, line)
		}
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tasks/result","params":{"taskId":%q}}`, id+1, task))
		if line := p.recv(); !strings.Contains(line, fmt.Sprintf(`"id":%d,"result":{`, id+1)) || !strings.Contains(line, `"text":"done"`) {
			t.Fatalf("call %d: tasks/result %s", i, line)
		}
	}
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"inline","task":{}}}`)
	if line := p.recv(); !strings.Contains(line, `"id":2,"error":{"code":-32601`) {
		t.Errorf("a task of a tool that forbids them: %s, want method not found", line)
	}
	p.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"inline","arguments":{"task":{}}}}`)
	if line := p.recv(); !strings.Contains(line, `"id":3,"result":{"content":[{"type":"text","text":"inline"}]`) {
		t.Errorf("a plain call: %s", line)
	}
	p.send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"nope","task":{}}}`)
	if line := p.recv(); !strings.Contains(line, `"id":4,"error":{"code":-32602`) {
		t.Errorf("an unknown tool: %s, want invalid params", line)
	}
}
