package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/transport"
)

// TestUnreadableElicitAnswer: a client's answer to elicitation/create that cannot be
// decoded (a NaN) but names the request fails the handler's Elicit at once, with a
// sentence that says the client's answer could not be read, over stdio and Streamable
// HTTP (over HTTP the call waited until its task ended).
func TestUnreadableElicitAnswer(t *testing.T) {
	const want = "the client's answer to elicitation/create could not be read: it is not valid JSON (invalid character 'N' looking for beginning of value at offset 43)"
	newServer := func() *server.Server {
		srv := server.New(mcp.Implementation{Name: "t", Version: "1"}, nil)
		srv.AddTool(&mcp.Tool{Name: "ask"}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			_, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Name?", RequestedSchema: json.RawMessage(`{"type":"object"}`)})
			var bad *jsonrpc.MalformedResponseError
			if !errors.As(err, &bad) {
				return nil, fmt.Errorf("Elicit ended with %v (%T), not a *jsonrpc.MalformedResponseError", err, err)
			}
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(err.Error())}, IsError: true}, nil
		})
		return srv
	}
	const init = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}`
	const call = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask"}}`
	answer := func(req string) string {
		var m struct{ ID json.RawMessage }
		if err := json.Unmarshal([]byte(req), &m); err != nil || m.ID == nil {
			t.Fatalf("the elicitation request %q: %v", req, err)
		}
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"action":NaN}}`, m.ID)
	}
	check := func(t *testing.T, line string) {
		t.Helper()
		var m struct {
			ID     int
			Result mcp.CallToolResult
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil || m.ID != 2 || len(m.Result.Content) != 1 || m.Result.Content[0].Text != want {
			t.Fatalf("the tool's answer %s, want its text:\n%s", line, want)
		}
	}

	t.Run("stdio", func(t *testing.T) {
		toServer, fromClient := io.Pipe()
		fromServer, toClient := io.Pipe()
		newServer().Connect(t.Context(), transport.NewStream(toServer, toClient, 0))
		t.Cleanup(func() { fromClient.Close(); fromServer.Close() })
		lines := bufio.NewScanner(fromServer)
		recv := func() string {
			t.Helper()
			if !lines.Scan() {
				t.Fatalf("the server's output ended: %v", lines.Err())
			}
			return lines.Text()
		}
		send := func(s string) {
			go fmt.Fprintln(fromClient, s) // the server may be writing
		}
		send(init)
		recv()
		send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		send(call)
		send(answer(recv()))
		check(t, recv())
	})

	t.Run("HTTP", func(t *testing.T) {
		ts := serveHTTP(t, newServer())
		post := func(sid, body string) *http.Response {
			t.Helper()
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, ts.URL+"/mcp", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("MCP-Protocol-Version", "2025-11-25")
			if sid != "" {
				req.Header.Set("Mcp-Session-Id", sid)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { resp.Body.Close() })
			return resp
		}
		data := func(r *bufio.Reader) string {
			t.Helper()
			for {
				line, err := r.ReadString('\n')
				if err != nil {
					t.Fatalf("the event stream: %v", err)
				}
				if d, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), "data: "); ok && d != "" {
					return d
				}
			}
		}
		resp := post("", init)
		sid := resp.Header.Get("Mcp-Session-Id")
		data(bufio.NewReader(resp.Body))
		post(sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		stream := bufio.NewReader(post(sid, call).Body)
		r := post(sid, answer(data(stream)))
		if body, _ := io.ReadAll(r.Body); r.StatusCode != http.StatusBadRequest || !bytes.Contains(body, []byte(`"id":null`)) {
			t.Errorf("posting the answer: HTTP %d %s, want 400 and a parse error without id", r.StatusCode, body)
		}
		check(t, data(stream))
	})
}
