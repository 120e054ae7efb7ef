package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/transport"
)

// allTools are the demo server's tools, in the order tools/list gives them (by name).
var allTools = []string{
	demo.ToolAdd, demo.ToolAskModel, demo.ToolAskModelTask, demo.ToolAskTask, demo.ToolAskThenCancel,
	demo.ToolAskUser, demo.ToolAskUserTask, demo.ToolBenchStats, demo.ToolEcho, demo.ToolFailTask,
	demo.ToolInstantTask, demo.ToolListClientTasks, demo.ToolListRoots, demo.ToolLogLevels, demo.ToolShortTTLTask,
	demo.ToolSideEffectTask, demo.ToolSleepTask, demo.ToolSlow, demo.ToolSlowTask,
}

func TestInitialize(t *testing.T) {
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		s := h.open(t, ctx, serverConfig{}, nil)
		init := s.InitializeResult()
		if init.ServerInfo.Name != demo.Name || init.ServerInfo.Version != demo.Version {
			t.Errorf("server info = %+v, want %s %s", init.ServerInfo, demo.Name, demo.Version)
		}
		if init.ProtocolVersion != mcp.LatestProtocolVersion {
			t.Errorf("protocol version = %q, want %q", init.ProtocolVersion, mcp.LatestProtocolVersion)
		}
		if init.Instructions == "" {
			t.Error("no instructions")
		}
		caps := s.ServerCapabilities()
		switch {
		case caps.Tools == nil || !caps.Tools.ListChanged:
			t.Errorf("tools capability = %+v, want listChanged", caps.Tools)
		case caps.Prompts == nil:
			t.Error("no prompts capability")
		case caps.Resources == nil || !caps.Resources.Subscribe:
			t.Errorf("resources capability = %+v, want subscribe", caps.Resources)
		case caps.Logging == nil:
			t.Error("no logging capability")
		case caps.Completions == nil:
			t.Error("no completions capability")
		}
	})
}

func TestPing(t *testing.T) {
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		s := h.open(t, ctx, serverConfig{}, nil)
		for range 3 {
			if err := s.Ping(ctx); err != nil {
				t.Fatalf("ping: %v", err)
			}
		}
	})
}

func TestListTools(t *testing.T) {
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		s := h.open(t, ctx, serverConfig{}, nil)
		page, err := s.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if page.NextCursor != "" || len(page.Tools) != len(allTools) {
			t.Fatalf("one page of %d tools with no cursor expected, got %d tools, cursor %q", len(allTools), len(page.Tools), page.NextCursor)
		}
		for _, tool := range page.Tools {
			if tool.Title == "" || tool.Description == "" {
				t.Errorf("tool %s lacks a title or description", tool.Name)
			}
			var schema struct {
				Type       string                     `json:"type"`
				Properties map[string]json.RawMessage `json:"properties"`
			}
			if err := json.Unmarshal(tool.InputSchema, &schema); err != nil || schema.Type != "object" {
				t.Errorf("tool %s: input schema %s is not an object schema (%v)", tool.Name, tool.InputSchema, err)
			}
		}
		add, err := s.Tool(ctx, demo.ToolAdd)
		if err != nil {
			t.Fatal(err)
		}
		if !jsonEqual(t, add.InputSchema, `{"type":"object","properties":{`+
			`"a":{"type":"number","title":"a","description":"The first addend."},`+
			`"b":{"type":"number","title":"b","description":"The second addend."}},`+
			`"required":["a","b"],"additionalProperties":false}`) {
			t.Errorf("add input schema = %s", add.InputSchema)
		}
		if len(add.OutputSchema) == 0 {
			t.Error("add has no output schema")
		}
	})
}

func TestListToolsPaginated(t *testing.T) {
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		s := h.open(t, ctx, serverConfig{pageSize: 2}, nil)
		first, err := s.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(first.Tools) != 2 || first.NextCursor == "" {
			t.Fatalf("first page: %d tools, cursor %q; want 2 and a cursor", len(first.Tools), first.NextCursor)
		}
		sub := s.Subscribe()
		defer sub.Close()
		var names []string
		for tool, err := range s.Tools(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			names = append(names, tool.Name)
		}
		if !slices.Equal(names, allTools) {
			t.Errorf("tools = %v, want %v", names, allTools)
		}
		lists := 0
		for _, e := range drain(sub) {
			if m, ok := e.(*client.MessageEvent); ok && m.Dir == jsonrpc.Outbound {
				if r, ok := m.Message.(*jsonrpc.Request); ok && r.Method == mcp.MethodToolsList {
					lists++
				}
			}
		}
		if want := (len(allTools) + 1) / 2; lists != want {
			t.Errorf("listing took %d tools/list requests, want %d pages", lists, want)
		}
	})
}

func TestEchoAndAdd(t *testing.T) {
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		s := h.open(t, ctx, serverConfig{}, nil)

		res := call(t, ctx, s, demo.ToolEcho, map[string]any{"text": "hello <world> & \"you\""})
		if res.IsError || !sameJSON(t, res.Content, []mcp.Content{mcp.TextContent("hello <world> & \"you\"")}) {
			t.Errorf("echo = %+v", res)
		}
		res = call(t, ctx, s, demo.ToolEcho, nil)
		if res.IsError || !sameJSON(t, res.Content, []mcp.Content{mcp.TextContent("")}) {
			t.Errorf("echo without text = %+v", res)
		}

		res = call(t, ctx, s, demo.ToolAdd, map[string]any{"a": 2, "b": 3})
		if got := onlyText(t, res); res.IsError || got != "5" {
			t.Errorf("add(2, 3) = %q (isError %v), want 5", got, res.IsError)
		}
		if !jsonEqual(t, res.StructuredContent, `{"sum":5}`) {
			t.Errorf("add(2, 3) structured content = %s", res.StructuredContent)
		}
		res = call(t, ctx, s, demo.ToolAdd, map[string]any{"a": 0.5, "b": -2})
		if got := onlyText(t, res); got != "-1.5" || !jsonEqual(t, res.StructuredContent, `{"sum":-1.5}`) {
			t.Errorf("add(0.5, -2) = %q, %s", got, res.StructuredContent)
		}

		for _, args := range []any{map[string]any{"a": 1}, map[string]any{"a": "one", "b": 2}} {
			res = call(t, ctx, s, demo.ToolAdd, args)
			if !res.IsError {
				t.Errorf("add(%v) = %+v, want a tool error", args, res)
			}
		}
	})
}

func TestUnknownTool(t *testing.T) {
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		s := h.open(t, ctx, serverConfig{}, nil)
		_, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "no_such_tool"}, nil)
		if code := rpcCode(err); code != jsonrpc.CodeInvalidParams {
			t.Fatalf("calling an unknown tool: error %v (code %d), want code -32602", err, code)
		}
		if !errors.Is(err, jsonrpc.ErrInvalidParams) {
			t.Errorf("error %v does not match jsonrpc.ErrInvalidParams", err)
		}
		// The session survives the error.
		if err := s.Ping(ctx); err != nil {
			t.Fatal(err)
		}
	})
}

func TestSlowProgress(t *testing.T) {
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		exits := make(chan error, 1)
		s := h.open(t, ctx, serverConfig{onSlowExit: func(steps int, err error) { exits <- err }}, nil)
		sub := s.Subscribe()
		defer sub.Close()

		p := toolParams(t, demo.ToolSlow, map[string]any{"seconds": 5, "steps": 5})
		token := s.NewProgressToken()
		p.Meta.SetProgressToken(token)
		res, err := s.CallTool(ctx, p, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := onlyText(t, res); got != "done: waited 5s in 5 steps" {
			t.Errorf("slow = %q", got)
		}

		// Everything the call caused is queued by now: find its request and response
		// in the raw traffic, and the progress events around them.
		var (
			callID     jsonrpc.ID
			answered   bool
			progress   []mcp.ProgressNotificationParams
			afterReply int
		)
		for _, e := range drain(sub) {
			switch e := e.(type) {
			case *client.MessageEvent:
				switch m := e.Message.(type) {
				case *jsonrpc.Request:
					if e.Dir == jsonrpc.Outbound && m.Method == mcp.MethodToolsCall {
						callID = m.ID
					}
				case *jsonrpc.Response:
					if e.Dir == jsonrpc.Inbound && callID.IsValid() && m.ID == callID {
						answered = true
					}
				}
			case *client.ProgressEvent:
				if e.Params.ProgressToken != token {
					t.Errorf("progress with token %v, want %v", e.Params.ProgressToken, token)
					continue
				}
				if answered {
					afterReply++
				}
				progress = append(progress, e.Params)
			}
		}
		if !answered {
			t.Fatal("the response to tools/call is not in the event stream")
		}
		if afterReply > 0 {
			t.Errorf("%d progress notifications arrived after the result", afterReply)
		}
		if len(progress) != 6 {
			t.Fatalf("got %d progress notifications, want 6 (start and 5 steps): %+v", len(progress), progress)
		}
		for k, p := range progress {
			if p.Progress != float64(k) || p.Total == nil || *p.Total != 5 || p.Message == "" {
				t.Errorf("progress #%d = %+v, want %d of 5 with a message", k, p, k)
			}
		}
		if progress[1].Message != "step 1 of 5" || progress[5].Message != "step 5 of 5" {
			t.Errorf("progress messages: %q, %q", progress[1].Message, progress[5].Message)
		}
		if h.inProcess {
			if err := <-exits; err != nil {
				t.Errorf("the slow hook saw %v, want nil for a completed call", err)
			}
		}
	})
}

func TestSlowCancel(t *testing.T) {
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		type exit struct {
			steps int
			err   error
		}
		exits := make(chan exit, 1)
		s := h.open(t, ctx, serverConfig{onSlowExit: func(steps int, err error) { exits <- exit{steps, err} }}, nil)
		sub := s.Subscribe()
		defer sub.Close()

		// 600 s in 2 steps: the first step waits until the call is cancelled.
		callCtx, cancel := context.WithCancel(ctx)
		defer cancel()
		p := toolParams(t, demo.ToolSlow, map[string]any{"seconds": 600, "steps": 2})
		token := s.NewProgressToken()
		p.Meta.SetProgressToken(token)
		done := make(chan error, 1)
		go func() {
			_, err := s.CallTool(callCtx, p, nil)
			done <- err
		}()
		started := waitFor(t, ctx, sub, func(e *client.ProgressEvent) bool { return e.Params.ProgressToken == token })
		if started.Params.Progress != 0 {
			t.Errorf("first progress = %v, want 0", started.Params.Progress)
		}
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled call returned %v, want context.Canceled", err)
		}

		// The server stops the tool and says so in a log message (the only trace a
		// stdio child can leave); a server in this process also calls the hook.
		logged := waitFor(t, ctx, sub, func(e *client.LogEvent) bool {
			return strings.Contains(string(e.Params.Data), "slow stopped")
		})
		var msg string
		if err := json.Unmarshal(logged.Params.Data, &msg); err != nil || !strings.HasPrefix(msg, "slow stopped after 0 of 2 steps") {
			t.Errorf("log message = %s (%v)", logged.Params.Data, err)
		}
		if logged.Params.Level != mcp.LoggingLevelNotice || logged.Params.Logger != demo.Name {
			t.Errorf("log message level %q, logger %q", logged.Params.Level, logged.Params.Logger)
		}
		if h.inProcess {
			select {
			case e := <-exits:
				if e.steps != 0 || !errors.Is(e.err, context.Canceled) {
					t.Errorf("the slow hook saw %d steps, %v; want 0, context.Canceled", e.steps, e.err)
				}
			case <-ctx.Done():
				t.Fatal("the slow tool did not stop")
			}
		}
		// No progress and no response follow the cancellation.
		if err := s.Ping(ctx); err != nil {
			t.Fatal(err)
		}
		for _, e := range drain(sub) {
			if pe, ok := e.(*client.ProgressEvent); ok && pe.Params.ProgressToken == token {
				t.Errorf("progress after cancellation: %+v", pe.Params)
			}
		}
	})
}

// askUserAnswer checks the form ask_user sends and answers it with answer.
func askUserAnswer(t *testing.T, r *client.Request, answer func(*client.Request) error) {
	if r.Elicitation == nil {
		t.Errorf("unexpected %s request", r.Method)
		_ = r.Reject(errors.New("unexpected"))
		return
	}
	var schema struct {
		Properties map[string]struct {
			Type    string   `json:"type"`
			Enum    []string `json:"enum"`
			Default any      `json:"default"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(r.Elicitation.RequestedSchema, &schema); err != nil {
		t.Errorf("requested schema: %v", err)
	}
	name, color, sub := schema.Properties["name"], schema.Properties["color"], schema.Properties["subscribe"]
	if name.Type != "string" || !slices.Equal(schema.Required, []string{"name"}) ||
		color.Type != "string" || len(color.Enum) == 0 || color.Default != "blue" ||
		sub.Type != "boolean" || sub.Default != false {
		t.Errorf("requested schema = %s", r.Elicitation.RequestedSchema)
	}
	if err := answer(r); err != nil {
		t.Errorf("answering: %v", err)
	}
}

func TestAskUserOnRequest(t *testing.T) {
	cases := []struct {
		name   string
		answer func(*client.Request) error
		want   string
	}{
		{"accept", func(r *client.Request) error { return r.Accept(map[string]any{"name": "Ada"}) },
			"Hello, Ada! Favourite colour: blue. Subscribed: no."},
		{"decline", (*client.Request).Decline, "The user declined to answer."},
		{"dismiss", (*client.Request).Dismiss, "The user cancelled the request."},
	}
	forEachTransport(t, func(t *testing.T, h harness) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				ctx := testContext(t)
				s := h.open(t, ctx, serverConfig{}, &client.Options{
					OnRequest: func(ctx context.Context, r *client.Request) { askUserAnswer(t, r, tc.answer) },
				})
				res := call(t, ctx, s, demo.ToolAskUser, map[string]any{"message": "Who are you?"})
				if got := onlyText(t, res); res.IsError || got != tc.want {
					t.Errorf("ask_user = %q (isError %v), want %q", got, res.IsError, tc.want)
				}
			})
		}
	})
}

func TestAskUserEvents(t *testing.T) {
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		s := h.open(t, ctx, serverConfig{}, nil)
		sub := s.Subscribe()
		defer sub.Close()
		type result struct {
			res *mcp.CallToolResult
			err error
		}
		done := make(chan result, 1)
		go func() {
			res, err := s.CallTool(ctx, toolParams(t, demo.ToolAskUser, map[string]any{"message": "Who are you?"}), nil)
			done <- result{res, err}
		}()
		queued := waitFor(t, ctx, sub, func(e *client.RequestEvent) bool { return !e.Settled })
		r := queued.Request
		if r.Elicitation == nil || r.Elicitation.Message != "Who are you?" {
			t.Fatalf("queued request = %+v", r)
		}
		if pending := s.PendingRequests(); len(pending) != 1 || pending[0] != r {
			t.Errorf("pending requests = %v, want the queued one", pending)
		}
		askUserAnswer(t, r, func(r *client.Request) error {
			return r.Accept(map[string]any{"name": "Grace", "color": "red", "subscribe": true})
		})
		settled := waitFor(t, ctx, sub, func(e *client.RequestEvent) bool { return e.Settled })
		if settled.Request != r {
			t.Error("a different request was settled")
		}
		got := <-done
		if got.err != nil {
			t.Fatal(got.err)
		}
		if text := onlyText(t, got.res); text != "Hello, Grace! Favourite colour: red. Subscribed: yes." {
			t.Errorf("ask_user = %q", text)
		}
		if !jsonEqual(t, got.res.StructuredContent, `{"action":"accept","name":"Grace","color":"red","subscribe":true}`) {
			t.Errorf("structured content = %s", got.res.StructuredContent)
		}
		if len(s.PendingRequests()) != 0 {
			t.Error("the answered request is still pending")
		}
		if err := r.Decline(); !errors.Is(err, client.ErrAnswered) {
			t.Errorf("answering twice: %v, want ErrAnswered", err)
		}
	})
}

func TestAskModel(t *testing.T) {
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		s := h.open(t, ctx, serverConfig{}, &client.Options{
			OnRequest: func(ctx context.Context, r *client.Request) {
				if r.Sampling == nil {
					t.Errorf("unexpected %s request", r.Method)
					_ = r.Reject(errors.New("unexpected"))
					return
				}
				p := r.Sampling
				want := []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: []mcp.Content{mcp.TextContent("What is the capital of France?")}}}
				if !sameJSON(t, p.Messages, want) || p.MaxTokens != 200 {
					t.Errorf("sampling request = %+v", p)
				}
				err := r.Respond(&mcp.CreateMessageResult{
					Role:       mcp.RoleAssistant,
					Content:    []mcp.Content{mcp.TextContent("Paris.")},
					Model:      "test-model",
					StopReason: mcp.StopReasonEndTurn,
				})
				if err != nil {
					t.Error(err)
				}
			},
		})
		res := call(t, ctx, s, demo.ToolAskModel, map[string]any{"prompt": "What is the capital of France?"})
		if got := onlyText(t, res); res.IsError || got != "Paris." {
			t.Errorf("ask_model = %q (isError %v), want Paris.", got, res.IsError)
		}
	})
}

func TestAskModelRejected(t *testing.T) {
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		s := h.open(t, ctx, serverConfig{}, &client.Options{
			OnRequest: func(ctx context.Context, r *client.Request) {
				_ = r.Reject(jsonrpc.NewError(-1, "the user refused"))
			},
		})
		res := call(t, ctx, s, demo.ToolAskModel, map[string]any{"prompt": "hi"})
		if got := onlyText(t, res); !res.IsError || !strings.Contains(got, "the user refused") {
			t.Errorf("ask_model refused = %q (isError %v)", got, res.IsError)
		}
	})
}

func TestPrompts(t *testing.T) {
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		s := h.open(t, ctx, serverConfig{}, nil)
		var prompts []mcp.Prompt
		for p, err := range s.Prompts(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			prompts = append(prompts, p)
		}
		if len(prompts) != 1 || prompts[0].Name != demo.PromptGreet || len(prompts[0].Arguments) != 2 ||
			!prompts[0].Arguments[0].Required || prompts[0].Arguments[1].Required {
			t.Fatalf("prompts = %+v", prompts)
		}
		res, err := s.GetPrompt(ctx, &mcp.GetPromptParams{Name: demo.PromptGreet, Arguments: map[string]string{"name": "Ada", "language": "French"}})
		if err != nil {
			t.Fatal(err)
		}
		want := mcp.PromptMessage{Role: mcp.RoleUser, Content: mcp.TextContent("Please write a short, friendly greeting for Ada in French.")}
		if !sameJSON(t, res.Messages, []mcp.PromptMessage{want}) {
			t.Errorf("greet = %+v", res.Messages)
		}
		_, err = s.GetPrompt(ctx, &mcp.GetPromptParams{Name: demo.PromptGreet})
		if rpcCode(err) != jsonrpc.CodeInvalidParams {
			t.Errorf("greet without a name: %v, want -32602", err)
		}
	})
}

func TestResources(t *testing.T) {
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		s := h.open(t, ctx, serverConfig{}, nil)
		var uris []string
		for r, err := range s.Resources(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			uris = append(uris, r.URI)
		}
		if !slices.Equal(uris, []string{demo.ResourceAbout}) {
			t.Errorf("resources = %v", uris)
		}
		var templates []string
		for r, err := range s.ResourceTemplates(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			templates = append(templates, r.URITemplate)
		}
		if !slices.Equal(templates, []string{demo.TemplateGreeting}) {
			t.Errorf("templates = %v", templates)
		}

		about, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: demo.ResourceAbout})
		if err != nil {
			t.Fatal(err)
		}
		if len(about.Contents) != 1 || about.Contents[0].URI != demo.ResourceAbout ||
			about.Contents[0].MimeType != "text/markdown" || !strings.HasPrefix(about.Contents[0].Text, "# mcpi demo server\n") {
			t.Errorf("about = %+v", about.Contents)
		}
		greeting, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "demo://greetings/Ada"})
		if err != nil {
			t.Fatal(err)
		}
		want := mcp.TextResourceContents("demo://greetings/Ada", "text/plain", "Hello, Ada!")
		if len(greeting.Contents) != 1 || greeting.Contents[0].URI != want.URI || greeting.Contents[0].Text != want.Text ||
			greeting.Contents[0].MimeType != want.MimeType {
			t.Errorf("greeting = %+v", greeting.Contents)
		}
		_, err = s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "demo://nothing"})
		if rpcCode(err) != -32002 {
			t.Errorf("reading an unknown resource: %v, want -32002", err)
		}
	})
}

func TestCompletion(t *testing.T) {
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		s := h.open(t, ctx, serverConfig{}, nil)
		cases := []struct {
			ref         mcp.CompleteReference
			arg, prefix string
			want        []string
		}{
			{mcp.CompleteReference{Type: mcp.RefTypePrompt, Name: demo.PromptGreet}, "language", "fr", []string{"French"}},
			{mcp.CompleteReference{Type: mcp.RefTypePrompt, Name: demo.PromptGreet}, "language", "", demo.Languages},
			{mcp.CompleteReference{Type: mcp.RefTypePrompt, Name: demo.PromptGreet}, "name", "a", []string{"Ada", "Alan"}},
			{mcp.CompleteReference{Type: mcp.RefTypePrompt, Name: demo.PromptGreet}, "language", "xx", []string{}},
			{mcp.CompleteReference{Type: mcp.RefTypeResource, URI: demo.TemplateGreeting}, "name", "G", []string{"Grace"}},
		}
		for _, tc := range cases {
			res, err := s.Complete(ctx, &mcp.CompleteParams{Ref: tc.ref, Argument: mcp.CompleteArgument{Name: tc.arg, Value: tc.prefix}})
			if err != nil {
				t.Errorf("complete %s %q: %v", tc.arg, tc.prefix, err)
				continue
			}
			if !slices.Equal(res.Completion.Values, tc.want) || res.Completion.Total == nil || *res.Completion.Total != int64(len(tc.want)) {
				t.Errorf("complete %s %q = %+v, want %v", tc.arg, tc.prefix, res.Completion, tc.want)
			}
		}
		_, err := s.Complete(ctx, &mcp.CompleteParams{
			Ref:      mcp.CompleteReference{Type: mcp.RefTypePrompt, Name: "nope"},
			Argument: mcp.CompleteArgument{Name: "x"},
		})
		if rpcCode(err) != jsonrpc.CodeInvalidParams {
			t.Errorf("completing an unknown prompt: %v, want -32602", err)
		}
	})
}

func TestLogging(t *testing.T) {
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		s := h.open(t, ctx, serverConfig{}, nil)
		sub := s.Subscribe()
		defer sub.Close()

		levels := func(msg string) []mcp.LoggingLevel {
			t.Helper()
			res := call(t, ctx, s, demo.ToolLogLevels, map[string]any{"message": msg})
			if res.IsError {
				t.Fatalf("log_levels: %+v", res)
			}
			// Log messages travel before the result, so they are all queued now.
			var got []mcp.LoggingLevel
			for _, e := range drain(sub) {
				if l, ok := e.(*client.LogEvent); ok {
					var text string
					if err := json.Unmarshal(l.Params.Data, &text); err != nil || text != string(l.Params.Level)+": "+msg {
						t.Errorf("log data = %s (%v)", l.Params.Data, err)
					}
					if l.Params.Logger != demo.Name {
						t.Errorf("logger = %q", l.Params.Logger)
					}
					got = append(got, l.Params.Level)
				}
			}
			return got
		}

		if got := levels("default"); !slices.Equal(got, demo.LogLevels) {
			t.Errorf("without a level: %v, want every level", got)
		}
		if err := s.SetLogLevel(ctx, mcp.LoggingLevelWarning); err != nil {
			t.Fatal(err)
		}
		if got, want := levels("warning"), demo.LogLevels[3:]; !slices.Equal(got, want) {
			t.Errorf("at warning: %v, want %v", got, want)
		}
		if err := s.SetLogLevel(ctx, mcp.LoggingLevelEmergency); err != nil {
			t.Fatal(err)
		}
		if got := levels("emergency"); !slices.Equal(got, []mcp.LoggingLevel{mcp.LoggingLevelEmergency}) {
			t.Errorf("at emergency: %v", got)
		}
		if err := s.SetLogLevel(ctx, "loud"); rpcCode(err) != jsonrpc.CodeInvalidParams {
			t.Errorf("setting an unknown level: %v, want -32602", err)
		}
	})
}

func TestBenchStats(t *testing.T) {
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		s := h.open(t, ctx, serverConfig{}, nil)
		// CallTool lists the tools first unless they are known; list them once here.
		if _, err := s.ListTools(ctx, nil); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if err := s.Ping(ctx); err != nil {
				t.Fatal(err)
			}
		}
		type stats struct {
			Counts    map[string]int64 `json:"counts"`
			MaxRssKiB int64            `json:"maxRssKiB"`
		}
		read := func(reset bool) stats {
			t.Helper()
			res := call(t, ctx, s, demo.ToolBenchStats, map[string]any{"reset": reset})
			var st stats
			text := onlyText(t, res)
			if err := json.Unmarshal([]byte(text), &st); err != nil {
				t.Fatalf("bench_stats text %q: %v", text, err)
			}
			return st
		}
		st := read(true)
		want := map[string]int64{mcp.MethodInitialize: 1, mcp.MethodToolsList: 1, mcp.MethodPing: 2, mcp.MethodToolsCall: 1}
		if h.name != "http" {
			// The era probe reaches the demo server on a pipe or stdio; over HTTP it is
			// refused before any method is counted (no session).
			want[mcp.MethodServerDiscover] = 1
		}
		if len(st.Counts) != len(want) {
			t.Errorf("counts = %v, want %v", st.Counts, want)
		}
		for m, n := range want {
			if st.Counts[m] != n {
				t.Errorf("counts = %v, want %v", st.Counts, want)
				break
			}
		}
		if st.MaxRssKiB <= 0 {
			t.Errorf("maxRssKiB = %d", st.MaxRssKiB)
		}
		// reset zeroed the counts: only this call is counted now.
		if st := read(false); len(st.Counts) != 1 || st.Counts[mcp.MethodToolsCall] != 1 {
			t.Errorf("counts after reset = %v", st.Counts)
		}
	})
}

// TestServerExits: when the stdio server process dies, every pending call fails with an
// error that matches transport.ErrServerExited, and the session ends.
func TestServerExits(t *testing.T) {
	h := harnesses[1]
	if h.name != "stdio" {
		t.Fatal("harnesses[1] is not stdio")
	}
	ctx := testContext(t)
	s := h.open(t, ctx, serverConfig{crashTool: true}, nil)
	sub := s.Subscribe()
	defer sub.Close()

	// A slow call that would run until cancelled is pending when the process dies.
	p := toolParams(t, demo.ToolSlow, map[string]any{"seconds": 600, "steps": 1})
	token := s.NewProgressToken()
	p.Meta.SetProgressToken(token)
	slowDone := make(chan error, 1)
	go func() {
		_, err := s.CallTool(ctx, p, nil)
		slowDone <- err
	}()
	waitFor(t, ctx, sub, func(e *client.ProgressEvent) bool { return e.Params.ProgressToken == token })

	_, err := s.CallTool(ctx, &mcp.CallToolParams{Name: crashTool}, nil)
	if !errors.Is(err, transport.ErrServerExited) {
		t.Fatalf("the crashing call returned %v, want an error wrapping transport.ErrServerExited", err)
	}
	if !strings.Contains(err.Error(), "exit status 3") || !strings.Contains(err.Error(), "crashing on purpose") {
		t.Errorf("error %q should give the exit status and the server's last words", err)
	}
	if err := <-slowDone; !errors.Is(err, transport.ErrServerExited) {
		t.Errorf("the pending slow call returned %v, want transport.ErrServerExited", err)
	}
	<-s.Done()
	if !errors.Is(s.Err(), transport.ErrServerExited) {
		t.Errorf("session error = %v", s.Err())
	}
	closed := waitFor[*client.ClosedEvent](t, ctx, sub, nil)
	if !errors.Is(closed.Err, transport.ErrServerExited) {
		t.Errorf("closed event error = %v", closed.Err)
	}
	if err := s.Ping(ctx); err == nil {
		t.Error("ping after the server exited succeeded")
	}
}
