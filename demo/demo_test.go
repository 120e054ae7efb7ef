package demo_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/transport"
)

// connect serves a demo server with opts over an in-memory pipe and returns a session
// with client options copts (nil for the defaults). The end-to-end tests in package e2e
// cover the other connections.
func connect(t *testing.T, opts *demo.Options, copts *client.Options) (context.Context, *client.Session) {
	t.Helper()
	return connectTo(t, demo.New(opts), copts)
}

// connectTo is connect to a demo server the test made.
func connectTo(t *testing.T, srv *server.Server, copts *client.Options) (context.Context, *client.Session) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	t.Cleanup(cancel)
	// Most of these tests are about the tools' 2025-11-25 behaviour (tasks the client
	// asks for, receiver tasks); the 2026-07-28 ones name their era.
	var co client.Options
	if copts != nil {
		co = *copts
	}
	if co.ProtocolVersion == "" {
		co.ProtocolVersion = mcp.LatestProtocolVersion
	}
	c := client.New(mcp.Implementation{Name: "demo-test", Version: "0"}, &co)
	s, err := c.Connect(ctx, transport.PipeTransport{Serve: func(ctx context.Context, conn jsonrpc.Connection) error {
		srv.Connect(ctx, conn)
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if _, err := s.ListTools(ctx, nil); err != nil { // so that calls do not list again
		t.Fatal(err)
	}
	return ctx, s
}

func call(t *testing.T, ctx context.Context, s *client.Session, name, args string) *mcp.CallToolResult {
	t.Helper()
	p := &mcp.CallToolParams{Name: name}
	if args != "" {
		p.Arguments = json.RawMessage(args)
	}
	res, err := s.CallTool(ctx, p, nil)
	if err != nil {
		t.Fatalf("%s %s: %v", name, args, err)
	}
	return res
}

func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 || res.Content[0].Type != mcp.ContentTypeText {
		t.Fatalf("want one text item, got %+v", res.Content)
	}
	return res.Content[0].Text
}

func TestToolSchemas(t *testing.T) {
	ctx, s := connect(t, nil, nil)
	res, err := s.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		var schema struct {
			Type       string `json:"type"`
			Properties map[string]struct {
				Type string `json:"type"`
			} `json:"properties"`
			Required []string `json:"required"`
		}
		if err := json.Unmarshal(tool.InputSchema, &schema); err != nil {
			t.Errorf("%s: %v", tool.Name, err)
			continue
		}
		if schema.Type != "object" {
			t.Errorf("%s: schema type %q", tool.Name, schema.Type)
		}
		for name, p := range schema.Properties {
			if p.Type == "" {
				t.Errorf("%s: property %s has no type", tool.Name, name)
			}
		}
		for _, r := range schema.Required {
			if _, ok := schema.Properties[r]; !ok {
				t.Errorf("%s: required %s is not a property", tool.Name, r)
			}
		}
	}
}

func TestSlowValidation(t *testing.T) {
	ctx, s := connect(t, &demo.Options{Sleep: func(ctx context.Context, d time.Duration) error { return nil }}, nil)
	for _, args := range []string{`{"seconds":-1}`, `{"seconds":601}`, `{"steps":0}`, `{"steps":1001}`, `{"seconds":"3"}`, `{"steps":1.5}`} {
		if res := call(t, ctx, s, demo.ToolSlow, args); !res.IsError {
			t.Errorf("slow %s = %q, want a tool error", args, text(t, res))
		}
	}
	if got := text(t, call(t, ctx, s, demo.ToolSlow, "")); got != "done: waited 3s in 3 steps" {
		t.Errorf("slow with defaults = %q", got)
	}
	if got := text(t, call(t, ctx, s, demo.ToolSlow, `{"seconds":0.5}`)); got != "done: waited 500ms in 1 step" {
		t.Errorf("slow 0.5 s = %q", got)
	}
}

func TestSlowRealSleep(t *testing.T) {
	// Without Options.Sleep the tool waits on a real timer: zero seconds take no time.
	var mu sync.Mutex
	var exits []error
	ctx, s := connect(t, &demo.Options{OnSlowExit: func(steps int, err error) {
		mu.Lock()
		exits = append(exits, err)
		mu.Unlock()
	}}, nil)
	if got := text(t, call(t, ctx, s, demo.ToolSlow, `{"seconds":0,"steps":2}`)); got != "done: waited 0s in 2 steps" {
		t.Errorf("slow = %q", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(exits) != 1 || exits[0] != nil {
		t.Errorf("hook calls = %v, want one nil", exits)
	}
}

func TestSlowSleepsInSteps(t *testing.T) {
	var mu sync.Mutex
	var waits []time.Duration
	ctx, s := connect(t, &demo.Options{Sleep: func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		waits = append(waits, d)
		mu.Unlock()
		return nil
	}}, nil)
	call(t, ctx, s, demo.ToolSlow, `{"seconds":2,"steps":4}`)
	mu.Lock()
	defer mu.Unlock()
	if len(waits) != 4 {
		t.Fatalf("waits = %v, want 4", waits)
	}
	for _, d := range waits {
		if d != 500*time.Millisecond {
			t.Errorf("waits = %v, want 4 × 500ms", waits)
			break
		}
	}
}

func TestAskWithoutCapabilities(t *testing.T) {
	ctx, s := connect(t, nil, &client.Options{Capabilities: &mcp.ClientCapabilities{}})
	if res := call(t, ctx, s, demo.ToolAskUser, ""); !res.IsError || !strings.Contains(text(t, res), "elicitation") {
		t.Errorf("ask_user without elicitation = %+v", res)
	}
	if res := call(t, ctx, s, demo.ToolAskModel, `{"prompt":"hi"}`); !res.IsError || !strings.Contains(text(t, res), "sampling") {
		t.Errorf("ask_model without sampling = %+v", res)
	}
	if res := call(t, ctx, s, demo.ToolAskModel, `{}`); !res.IsError {
		t.Errorf("ask_model without a prompt = %+v", res)
	}
}

func TestAskUserBadAnswers(t *testing.T) {
	cases := []struct {
		answer map[string]any
		want   string
	}{
		{map[string]any{}, "lacks the required name"},
		{map[string]any{"name": "Ada", "color": "purple"}, "not one of"},
		{map[string]any{"name": 7}, "does not fit"},
	}
	for _, tc := range cases {
		ctx, s := connect(t, nil, &client.Options{OnRequest: func(ctx context.Context, r *client.Request) {
			_ = r.Respond(&mcp.ElicitResult{Action: mcp.ElicitActionAccept, Content: tc.answer})
		}})
		res := call(t, ctx, s, demo.ToolAskUser, "")
		if got := text(t, res); !res.IsError || !strings.Contains(got, tc.want) {
			t.Errorf("answer %v: %q (isError %v), want an error containing %q", tc.answer, got, res.IsError, tc.want)
		}
	}
}

func TestBenchStatsCountsRequestsOnly(t *testing.T) {
	ctx, s := connect(t, nil, nil)
	// notifications/initialized was sent, and is not a request.
	var st struct {
		Counts    map[string]int64 `json:"counts"`
		MaxRssKiB int64            `json:"maxRssKiB"`
	}
	raw := text(t, call(t, ctx, s, demo.ToolBenchStats, ""))
	if err := json.Unmarshal([]byte(raw), &st); err != nil {
		t.Fatal(err)
	}
	if _, ok := st.Counts[mcp.NotificationInitialized]; ok || st.Counts[mcp.MethodInitialize] != 1 {
		t.Errorf("counts = %v", st.Counts)
	}
	if !strings.HasPrefix(raw, `{"counts":{`) || !strings.Contains(raw, `"maxRssKiB":`) {
		t.Errorf("bench_stats text = %s", raw)
	}
}

func TestCompletionErrors(t *testing.T) {
	ctx, s := connect(t, nil, nil)
	for _, p := range []mcp.CompleteParams{
		{Ref: mcp.CompleteReference{Type: mcp.RefTypePrompt, Name: demo.PromptGreet}, Argument: mcp.CompleteArgument{Name: "mood"}},
		{Ref: mcp.CompleteReference{Type: mcp.RefTypeResource, URI: "demo://nothing/{x}"}, Argument: mcp.CompleteArgument{Name: "x"}},
		{Ref: mcp.CompleteReference{Type: "ref/other"}, Argument: mcp.CompleteArgument{Name: "x"}},
	} {
		_, err := s.Complete(ctx, &p)
		if !errors.Is(err, jsonrpc.ErrInvalidParams) {
			t.Errorf("complete %+v: %v, want -32602", p, err)
		}
	}
}
