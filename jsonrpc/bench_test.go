package jsonrpc

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/mcpi-dev/mcpi/internal/jsonwire"
)

// benchFrames are the frames of a typical MCP session, from the smallest to the largest
// a stdio connection sees routinely.
var benchFrames = []struct {
	name  string
	frame string
}{
	{"ping", `{"jsonrpc":"2.0","id":1,"method":"ping"}`},
	{"ping-result", `{"jsonrpc":"2.0","id":1,"result":{}}`},
	{"tools-call", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_weather","arguments":{"city":"Zürich","units":"metric","days":3},"_meta":{"progressToken":"p-7"}}}`},
	{"call-tool-result", `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"Sunny, 21°C, light wind from the west.\nTomorrow: cloudy, 17°C."}],"structuredContent":{"temperature":21.5,"conditions":"sunny"},"isError":false,"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"3f2a9c4e-7b1d-4e8a-9c2f-1a2b3c4d5e6f"}}}}`},
	{"result-64KiB-text", `{"jsonrpc":"2.0","id":12,"result":{"contents":[{"uri":"file:///src/main.go","mimeType":"text/x-go","text":` + benchText(64<<10) + `}]}}`},
	{"result-64KiB-tools", `{"jsonrpc":"2.0","id":2,"result":` + benchTools(64<<10) + `}`},
}

// benchText returns a JSON string of about n bytes of Go source: mostly ASCII, with the
// tabs, newlines and quotes that need escapes and a little non-ASCII text.
func benchText(n int) string {
	const src = "func (s *Server) handle(ctx context.Context, req *Request) (any, error) {\n" +
		"\tif req.Method == \"tools/call\" && len(req.Params) > 0 {\n" +
		"\t\treturn s.call(ctx, req) // größer als <limit> & \"quoted\"\n" +
		"\t}\n\treturn nil, fmt.Errorf(\"unknown method %q\", req.Method)\n}\n\n"
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(src)
	}
	s, _ := json.Marshal(b.String())
	return string(s)
}

// benchTools returns a tools/list result of about n bytes: many small objects and keys.
func benchTools(n int) string {
	type tool struct {
		Name        string         `json:"name"`
		Description string         `json:"description"`
		InputSchema map[string]any `json:"inputSchema"`
		Execution   map[string]any `json:"execution"`
	}
	var tools []tool
	for size := 0; size < n; size += 420 {
		tools = append(tools, tool{
			Name:        fmt.Sprintf("tool_%d", len(tools)),
			Description: "Runs a slow job and reports progress; supports tasks.",
			InputSchema: map[string]any{
				"type":     "object",
				"required": []string{"seconds"},
				"properties": map[string]any{
					"seconds": map[string]any{"type": "number", "minimum": 0, "maximum": 3600},
					"label":   map[string]any{"type": "string", "description": "shown in progress"},
					"fail":    map[string]any{"type": "boolean", "default": false},
				},
			},
			Execution: map[string]any{"taskSupport": "optional"},
		})
	}
	b, _ := json.Marshal(map[string]any{"tools": tools, "nextCursor": "c-2"})
	return string(b)
}

func BenchmarkDecodeMessage(b *testing.B) {
	for _, f := range benchFrames {
		b.Run(f.name, func(b *testing.B) {
			data := []byte(f.frame)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := DecodeMessage(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkEncodeMessage(b *testing.B) {
	for _, f := range benchFrames {
		b.Run(f.name, func(b *testing.B) {
			m, err := DecodeMessage([]byte(f.frame))
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(f.frame)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := EncodeMessage(m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchResult is a CallToolResult as a handler returns it.
type benchResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent map[string]any `json:"structuredContent,omitempty"`
	IsError           bool           `json:"isError"`
	Meta              map[string]any `json:"_meta,omitempty"`
}

// BenchmarkRespond is the outbound half of answering a request: the handler's result
// marshalled as startRequest does, then the response encoded as the transport does.
func BenchmarkRespond(b *testing.B) {
	var typed benchResult
	typed.Content = append(typed.Content, struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}{"text", "Sunny, 21°C, light wind from the west.\nTomorrow: cloudy, 17°C."})
	typed.StructuredContent = map[string]any{"temperature": 21.5, "conditions": "sunny"}
	typed.Meta = map[string]any{"io.modelcontextprotocol/related-task": map[string]any{"taskId": "3f2a9c4e-7b1d-4e8a-9c2f-1a2b3c4d5e6f"}}
	raw, _ := json.Marshal(typed)
	for _, tc := range []struct {
		name   string
		result any
	}{
		{"empty", struct{}{}},
		{"call-tool-result", typed},
		// tasks/result hands back the stored raw result.
		{"call-tool-result-raw", json.RawMessage(raw)},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				res, err := jsonwire.Marshal(tc.result)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := EncodeMessage(&Response{ID: Int64ID(7), Result: res}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCall is the outbound half of a call: params marshalled as Call does, then the
// request encoded as the transport does.
func BenchmarkCall(b *testing.B) {
	params := map[string]any{
		"name":      "get_weather",
		"arguments": map[string]any{"city": "Zürich", "units": "metric", "days": 3},
		"_meta":     map[string]any{"progressToken": "p-7"},
	}
	b.ReportAllocs()
	for b.Loop() {
		raw, err := marshalParams(params)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := EncodeMessage(&Request{ID: Int64ID(7), Method: "tools/call", Params: raw}); err != nil {
			b.Fatal(err)
		}
	}
}

// lineConn is a Connection over byte frames, as a line transport would be, without the
// pipes: it measures the codec and the Conn, not the scheduler.
type lineConn struct {
	in     chan []byte
	out    chan<- []byte
	closed chan struct{}
	once   sync.Once
}

func (c *lineConn) Read(ctx context.Context) (Message, error) {
	select {
	case b := <-c.in:
		return DecodeMessage(b)
	case <-c.closed:
		return nil, ErrClosed
	}
}

func (c *lineConn) Write(ctx context.Context, m Message) error {
	b, err := EncodeMessage(m)
	if err != nil {
		return err
	}
	select {
	case c.out <- b:
		return nil
	case <-c.closed:
		return ErrClosed
	}
}

func (c *lineConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

func linePair() (*lineConn, *lineConn) {
	ab, ba := make(chan []byte, 16), make(chan []byte, 16)
	return &lineConn{in: ba, out: ab, closed: make(chan struct{})},
		&lineConn{in: ab, out: ba, closed: make(chan struct{})}
}

// BenchmarkRoundTrip is a whole call between two Conns: marshal, encode, decode, dispatch,
// and back.
func BenchmarkRoundTrip(b *testing.B) {
	var typed benchResult
	typed.Content = append(typed.Content, struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}{"text", "Sunny, 21°C, light wind from the west.\nTomorrow: cloudy, 17°C."})
	typed.Meta = map[string]any{"io.modelcontextprotocol/related-task": map[string]any{"taskId": "3f2a9c4e-7b1d-4e8a-9c2f-1a2b3c4d5e6f"}}
	raw, _ := json.Marshal(typed)
	handler := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		switch req.Method {
		case "ping":
			return struct{}{}, nil
		case "tools/call":
			return typed, nil
		default:
			return json.RawMessage(raw), nil
		}
	})
	params := map[string]any{"name": "get_weather", "arguments": map[string]any{"city": "Zürich", "days": 3}}
	for _, tc := range []struct {
		method string
		params any
	}{
		{"ping", nil},
		{"tools/call", params},
		{"tasks/result", map[string]any{"taskId": "3f2a9c4e-7b1d-4e8a-9c2f-1a2b3c4d5e6f"}},
	} {
		b.Run(strings.ReplaceAll(tc.method, "/", "-"), func(b *testing.B) {
			a, s := linePair()
			client := NewConn(a, Options{})
			server := NewConn(s, Options{Handler: handler})
			defer func() {
				client.Close()
				server.Close()
			}()
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				var res json.RawMessage
				if err := client.Call(ctx, tc.method, tc.params, &res); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
