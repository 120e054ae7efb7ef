package conformance_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/conformance"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/transport"
)

// These tests check the fixtures against docs/conformance-notes.md without Node; the
// suite itself runs through scripts/conformance.sh.

func TestMain(m *testing.M) {
	conformance.StepDelay = time.Millisecond
	os.Exit(m.Run())
}

// connect opens a session over Streamable HTTP, as the suite does, with the suite's
// client capabilities (sampling and an empty elicitation object).
func connect(t *testing.T, onRequest func(context.Context, *client.Request)) (context.Context, *client.Session, *client.Subscription) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	t.Cleanup(cancel)
	h := conformance.NewServer().HTTPHandler(nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		h.Close()
		ts.Close()
	})
	c := client.New(mcp.Implementation{Name: "conformance-test-client", Version: "1.0.0"}, &client.Options{
		Capabilities: &mcp.ClientCapabilities{Sampling: &mcp.SamplingCapability{}, Elicitation: &mcp.ElicitationCapability{}},
		OnRequest:    onRequest,
		// These are the 2025-11-25 fixtures; the server speaks 2026-07-28 too, which an
		// auto client would choose.
		ProtocolVersion: mcp.LatestProtocolVersion,
	})
	s, err := c.Connect(ctx, &transport.HTTPClient{URL: ts.URL + "/mcp"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	sub := s.Subscribe()
	t.Cleanup(sub.Close)
	return ctx, s, sub
}

func call(t *testing.T, ctx context.Context, s *client.Session, p *mcp.CallToolParams) *mcp.CallToolResult {
	t.Helper()
	res, err := s.CallTool(ctx, p, &client.CallOptions{SendAnyway: true})
	if err != nil {
		t.Fatalf("%s: %v", p.Name, err)
	}
	return res
}

// drain returns the events already queued on sub.
func drain(sub *client.Subscription) []client.Event {
	done, cancel := context.WithCancel(context.Background())
	cancel()
	var out []client.Event
	for {
		e, ok := sub.Next(done)
		if !ok {
			return out
		}
		out = append(out, e)
	}
}

// rawResult returns the raw result of the inbound response to the last outbound request
// with this method.
func rawResult(t *testing.T, events []client.Event, method string) string {
	t.Helper()
	var id jsonrpc.ID
	for _, e := range events {
		m, ok := e.(*client.MessageEvent)
		if !ok {
			continue
		}
		switch msg := m.Message.(type) {
		case *jsonrpc.Request:
			if m.Dir == jsonrpc.Outbound && msg.Method == method {
				id = msg.ID
			}
		case *jsonrpc.Response:
			if m.Dir == jsonrpc.Inbound && id.IsValid() && msg.ID == id {
				return string(msg.Result)
			}
		}
	}
	t.Fatalf("no response to %s", method)
	return ""
}

func TestEmptyResults(t *testing.T) {
	ctx, s, sub := connect(t, nil)
	if err := s.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	if got := rawResult(t, drain(sub), mcp.MethodPing); got != "{}" {
		t.Errorf("ping result = %s, want {}", got)
	}
	if err := s.SetLogLevel(ctx, mcp.LoggingLevelInfo); err != nil {
		t.Fatal(err)
	}
	if got := rawResult(t, drain(sub), mcp.MethodLoggingSetLevel); got != "{}" {
		t.Errorf("logging/setLevel result = %s, want {}", got)
	}
	for _, m := range []func(context.Context, string) error{s.SubscribeResource, s.UnsubscribeResource} {
		if err := m(ctx, "test://watched-resource"); err != nil {
			t.Fatal(err)
		}
	}
	caps := s.ServerCapabilities()
	if caps.Tools == nil || caps.Prompts == nil || caps.Resources == nil || !caps.Resources.Subscribe ||
		caps.Logging == nil || caps.Completions == nil {
		t.Errorf("capabilities = %+v", caps)
	}
}

func TestToolList(t *testing.T) {
	ctx, s, _ := connect(t, nil)
	var names []string
	for tool, err := range s.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
		if tool.Description == "" {
			t.Errorf("%s has no description", tool.Name)
		}
		var schema struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(tool.InputSchema, &schema) != nil || schema.Type != "object" {
			t.Errorf("%s: input schema %s", tool.Name, tool.InputSchema)
		}
		if tool.Name == "json_schema_2020_12_tool" && !strings.Contains(string(tool.InputSchema), `"$defs":{"address"`) {
			t.Errorf("json_schema_2020_12_tool schema = %s", tool.InputSchema)
		}
	}
	want := []string{
		"confirm_delete", "failing_job", "greet", "json_schema_2020_12_tool", "multi_input", "protocol_error_job",
		"slow_compute", "test_audio_content", "test_elicitation", "test_elicitation_sep1034_defaults",
		"test_elicitation_sep1330_enums", "test_embedded_resource", "test_error_handling", "test_header_param",
		"test_image_content", "test_input_required_result_capabilities", "test_input_required_result_elicitation",
		"test_input_required_result_list_roots", "test_input_required_result_multi_round",
		"test_input_required_result_multiple_inputs", "test_input_required_result_request_state",
		"test_input_required_result_sampling", "test_input_required_result_tampered_state",
		"test_logging_tool", "test_missing_capability", "test_multiple_content_types", "test_reconnection",
		"test_sampling", "test_simple_text", "test_streaming_elicitation", "test_tool_with_logging",
		"test_tool_with_progress", "test_tool_with_task", "test_trigger_prompt_change", "test_trigger_tool_change",
	}
	if !slices.Equal(names, want) {
		t.Errorf("tools = %v\nwant %v", names, want)
	}
}

func TestContentTools(t *testing.T) {
	ctx, s, _ := connect(t, nil)
	types := func(r *mcp.CallToolResult) []string {
		var out []string
		for _, c := range r.Content {
			out = append(out, c.Type)
			if c.Data != "" {
				if _, err := base64.StdEncoding.DecodeString(c.Data); err != nil {
					t.Errorf("invalid base64 data: %v", err)
				}
			}
		}
		return out
	}
	cases := map[string][]string{
		"test_simple_text":            {"text"},
		"test_image_content":          {"image"},
		"test_audio_content":          {"audio"},
		"test_embedded_resource":      {"resource"},
		"test_multiple_content_types": {"text", "image", "resource"},
		"test_error_handling":         {"text"},
	}
	for name, want := range cases {
		res := call(t, ctx, s, &mcp.CallToolParams{Name: name})
		if got := types(res); !slices.Equal(got, want) {
			t.Errorf("%s content types = %v, want %v", name, got, want)
		}
		if res.IsError != (name == "test_error_handling") {
			t.Errorf("%s isError = %v", name, res.IsError)
		}
		if name == "test_audio_content" && res.Content[0].MimeType != "audio/wav" {
			t.Errorf("audio mime type %q", res.Content[0].MimeType)
		}
		if name == "test_embedded_resource" {
			r := res.Content[0].Resource
			if r == nil || r.URI == "" || r.MimeType == "" || r.Text == "" {
				t.Errorf("embedded resource = %+v", r)
			}
		}
	}
}

func TestNotificationsBeforeResult(t *testing.T) {
	ctx, s, sub := connect(t, nil)
	if err := s.SetLogLevel(ctx, mcp.LoggingLevelDebug); err != nil {
		t.Fatal(err)
	}
	call(t, ctx, s, &mcp.CallToolParams{Name: "test_tool_with_logging", Arguments: json.RawMessage(`{}`)})
	var logs []string
	for _, e := range drain(sub) {
		if l, ok := e.(*client.LogEvent); ok && l.Params.Level == mcp.LoggingLevelInfo {
			var msg string
			_ = json.Unmarshal(l.Params.Data, &msg)
			logs = append(logs, msg)
		}
	}
	if want := []string{"Tool execution started", "Tool processing data", "Tool execution completed"}; !slices.Equal(logs, want) {
		t.Errorf("logs before the result = %q", logs)
	}

	p := &mcp.CallToolParams{Name: "test_tool_with_progress", Arguments: json.RawMessage(`{}`)}
	p.Meta.SetProgressToken(1)
	call(t, ctx, s, p)
	var progress []float64
	for _, e := range drain(sub) {
		if pe, ok := e.(*client.ProgressEvent); ok {
			if pe.Params.ProgressToken != int64(1) || pe.Params.Total == nil || *pe.Params.Total != 100 {
				t.Errorf("progress = %+v", pe.Params)
			}
			progress = append(progress, pe.Params.Progress)
		}
	}
	if !slices.Equal(progress, []float64{0, 50, 100}) {
		t.Errorf("progress before the result = %v", progress)
	}
	// Without a token, no progress.
	call(t, ctx, s, &mcp.CallToolParams{Name: "test_tool_with_progress"})
	for _, e := range drain(sub) {
		if _, ok := e.(*client.ProgressEvent); ok {
			t.Error("progress without a token")
		}
	}
}

func TestSampling(t *testing.T) {
	ctx, s, _ := connect(t, func(ctx context.Context, r *client.Request) {
		if r.Sampling == nil || r.Sampling.MaxTokens != 100 || len(r.Sampling.Messages) != 1 ||
			r.Sampling.Messages[0].Content[0].Text != "Test prompt for sampling" {
			t.Errorf("sampling request = %+v", r.Sampling)
		}
		_ = r.Respond(&mcp.CreateMessageResult{Role: mcp.RoleAssistant, Model: "test-model",
			Content: []mcp.Content{mcp.TextContent("This is a test response from the client")}})
	})
	res := call(t, ctx, s, &mcp.CallToolParams{Name: "test_sampling", Arguments: json.RawMessage(`{"prompt":"Test prompt for sampling"}`)})
	if res.IsError || res.Content[0].Text != "LLM response: This is a test response from the client" {
		t.Errorf("test_sampling = %+v", res)
	}
}

func TestElicitationSchemas(t *testing.T) {
	var mu sync.Mutex
	schemas := map[string]json.RawMessage{}
	ctx, s, _ := connect(t, func(ctx context.Context, r *client.Request) {
		mu.Lock()
		schemas[r.Elicitation.Message] = r.Elicitation.RequestedSchema
		mu.Unlock()
		_ = r.Respond(&mcp.ElicitResult{Action: mcp.ElicitActionAccept, Content: map[string]any{"username": "testuser", "email": "test@example.com"}})
	})
	res := call(t, ctx, s, &mcp.CallToolParams{Name: "test_elicitation", Arguments: json.RawMessage(`{"message":"Please provide your information"}`)})
	if want := `User response: action=accept, content={"email":"test@example.com","username":"testuser"}`; res.Content[0].Text != want {
		t.Errorf("test_elicitation = %q", res.Content[0].Text)
	}
	call(t, ctx, s, &mcp.CallToolParams{Name: "test_elicitation_sep1034_defaults", Arguments: json.RawMessage(`{}`)})
	call(t, ctx, s, &mcp.CallToolParams{Name: "test_elicitation_sep1330_enums", Arguments: json.RawMessage(`{}`)})
	mu.Lock()
	defer mu.Unlock()
	if len(schemas) != 3 {
		t.Fatalf("got %d elicitations, want 3", len(schemas))
	}
	var defaults, enums json.RawMessage
	for msg, sc := range schemas {
		switch {
		case strings.Contains(msg, "defaults"):
			defaults = sc
		case strings.Contains(msg, "enum"):
			enums = sc
		}
	}
	var d struct {
		Properties map[string]map[string]any `json:"properties"`
	}
	if err := json.Unmarshal(defaults, &d); err != nil {
		t.Fatal(err)
	}
	wantDefaults := map[string][2]any{
		"name": {"string", "John Doe"}, "age": {"integer", 30.0}, "score": {"number", 95.5},
		"status": {"string", "active"}, "verified": {"boolean", true},
	}
	for name, w := range wantDefaults {
		p := d.Properties[name]
		if p["type"] != w[0] || p["default"] != w[1] {
			t.Errorf("sep1034 %s = %v, want type %v default %v", name, p, w[0], w[1])
		}
	}
	var e struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(enums, &e); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"untitledSingle": `"enum":["option1","option2","option3"]`,
		"titledSingle":   `"oneOf":[{"const":"value1","title":"First Option"}`,
		"legacyEnum":     `"enumNames":["Option One","Option Two","Option Three"]`,
		"untitledMulti":  `"items":{"type":"string","enum":["option1","option2","option3"]}`,
		"titledMulti":    `"items":{"anyOf":[{"const":"value1","title":"First Choice"}`,
	} {
		if !strings.Contains(string(e.Properties[name]), want) {
			t.Errorf("sep1330 %s = %s, want it to contain %s", name, e.Properties[name], want)
		}
	}
}

func TestResourcesPromptsCompletion(t *testing.T) {
	ctx, s, _ := connect(t, nil)
	for uri, check := range map[string]func(mcp.ResourceContents) bool{
		"test://static-text":       func(c mcp.ResourceContents) bool { return c.MimeType == "text/plain" && c.Text != "" },
		"test://static-binary":     func(c mcp.ResourceContents) bool { return c.MimeType == "image/png" && c.Blob == conformance.PNG },
		"test://template/123/data": func(c mcp.ResourceContents) bool { return strings.Contains(c.Text, `"id":"123"`) },
		"test://watched-resource":  func(c mcp.ResourceContents) bool { return c.Text != "" },
	} {
		r, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil || len(r.Contents) != 1 || r.Contents[0].URI != uri || !check(r.Contents[0]) {
			t.Errorf("read %s = %+v, %v", uri, r, err)
		}
	}
	for p, err := range s.Prompts(ctx, nil) {
		if err != nil || p.Description == "" {
			t.Errorf("prompt %+v, %v", p, err)
		}
	}
	for name, args := range map[string]map[string]string{
		"test_simple_prompt":                 nil,
		"test_prompt_with_arguments":         {"arg1": "testValue1", "arg2": "testValue2"},
		"test_prompt_with_embedded_resource": {"resourceUri": "test://example-resource"},
		"test_prompt_with_image":             nil,
	} {
		r, err := s.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: args})
		if err != nil || len(r.Messages) == 0 {
			t.Errorf("prompt %s: %+v, %v", name, r, err)
			continue
		}
		b, _ := json.Marshal(r.Messages)
		for _, v := range args {
			if !bytes.Contains(b, []byte(v)) {
				t.Errorf("prompt %s messages %s lack %q", name, b, v)
			}
		}
	}
	res, err := s.Complete(ctx, &mcp.CompleteParams{
		Ref:      mcp.CompleteReference{Type: mcp.RefTypePrompt, Name: "test_prompt_with_arguments"},
		Argument: mcp.CompleteArgument{Name: "arg1", Value: "test"},
	})
	if err != nil || !slices.Equal(res.Completion.Values, []string{"test", "testValue1"}) {
		t.Errorf("completion = %+v, %v", res, err)
	}
}

func TestHostCheck(t *testing.T) {
	h := conformance.NewServer().HTTPHandler(nil)
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer h.Close()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for host, want := range map[string]int{"evil.example.com": http.StatusForbidden, ts.Listener.Addr().String(): http.StatusOK} {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(body))
		req.Host = host
		req.Header.Set("Origin", "http://"+host)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Host %s: HTTP %d, want %d", host, resp.StatusCode, want)
		}
	}
}
