// Command mcpi-conformance-client is the client under test of the official MCP conformance
// suite's client mode:
//
//	conformance client --command /abs/path/mcpi-conformance-client --scenario initialize
//
// The suite appends the mock server's URL as the last argument, names the scenario in
// MCP_CONFORMANCE_SCENARIO and (from 0.2.0 on) the protocol revision in
// MCP_CONFORMANCE_PROTOCOL_VERSION; some scenarios pass arguments in
// MCP_CONFORMANCE_CONTEXT. The client speaks Streamable HTTP through mcpi's own client
// and transport, in the revision the suite names (absent: 2025-11-25, as 0.1.x never
// names one): client.Options.ProtocolVersion is set to it, so the library speaks
// 2026-07-28 (server/discover, per-request _meta, Mcp-* headers, MRTR) or 2025-11-25
// (initialize) without probing. It exits 0 when the scenario's steps succeeded and 1
// otherwise, always within 30 seconds. What each scenario of 2025-11-25 expects:
// docs/conformance-notes.md, part 2; those of 2026-07-28: the comment of each
// scenario's method below.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/transport"
)

// deadline stays under the suite's 30 s limit, leaving time to close the session.
const deadline = 25 * time.Second

// The environment the conformance runner sets for the client.
const (
	envScenario = "MCP_CONFORMANCE_SCENARIO"
	envProtocol = "MCP_CONFORMANCE_PROTOCOL_VERSION"
	envContext  = "MCP_CONFORMANCE_CONTEXT"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintf(os.Stderr, "usage: mcpi-conformance-client [ARGS...] SERVER-URL (scenario in $%s, protocol in $%s)\n", envScenario, envProtocol)
		os.Exit(2)
	}
	url := os.Args[len(os.Args)-1]
	scenario := os.Getenv(envScenario)
	version := os.Getenv(envProtocol)
	if version == "" {
		// The 0.1.x runners name no revision: they all test 2025-11-25.
		version = mcp.LatestProtocolVersion
	}
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	err := run(ctx, scenario, version, url)
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "mcpi-conformance-client: scenario %q at %s: %v\n", scenario, version, err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "mcpi-conformance-client: scenario %q at %s: ok\n", scenario, version)
}

// logf writes a progress line to stderr, which the suite keeps with the results.
func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05.000")}, args...)...)
}

// runner is one scenario's session, and what the answers to the server's requests may
// do first.
type runner struct {
	s *client.Session
	// beforeAnswer, when set, runs before the answer to the server's next request
	// (elicitation, sampling; in 2026-07-28 an input request of an input_required
	// result), and only once.
	beforeAnswer atomic.Pointer[func(ctx context.Context, r *client.Request) error]
}

func run(ctx context.Context, scenario, version, url string) error {
	level := slog.LevelInfo
	if os.Getenv("MCPI_DEBUG") != "" {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	rn := &runner{}
	c := client.New(mcp.Implementation{Name: "mcpi-conformance-client", Version: "0.1.0"}, &client.Options{
		Logger:          logger,
		ProtocolVersion: version,
		OnRequest:       rn.answer,
		Roots:           []mcp.Root{{URI: "file:///tmp/mcpi-conformance", Name: "conformance"}},
	})
	t := &transport.HTTPClient{URL: url, Logger: logger}
	if strings.HasPrefix(scenario, "auth/") {
		flow, done, err := authFlow(scenario, url, logger)
		if err != nil {
			return err
		}
		defer done()
		t.Auth = flow
	}
	logf("connecting to %s at protocol %s", url, version)
	s, err := c.Connect(ctx, t)
	if err != nil {
		return err
	}
	defer s.Close()
	rn.s = s
	info := s.InitializeResult()
	server := strings.TrimSpace(info.ServerInfo.Name + " " + info.ServerInfo.Version)
	if server == "" {
		server = "(no serverInfo)"
	}
	if s.Modern() {
		logf("discovered: server %s, protocol %s (2026-07-28: no initialize)", server, s.ProtocolVersion())
	} else {
		logf("initialized: server %s, protocol %s", server, s.ProtocolVersion())
	}

	switch scenario {
	case "initialize":
		return nil
	case "tools_call":
		return rn.toolsCall(ctx)
	case "elicitation-sep1034-client-defaults":
		// 2025-11-25: the mock sends elicitation/create on the standalone GET stream,
		// which the transport opened (and waited for) after notifications/initialized;
		// answer accepts it with the schema's defaults.
		_, err := rn.call(ctx, "test_client_elicitation_defaults", map[string]any{})
		return err
	case "sse-retry":
		// The mock ends the call's SSE stream after a priming event carrying retry: 500;
		// the transport resumes it with GET and Last-Event-ID after that delay.
		if _, err := rn.tools(ctx, "test_reconnection"); err != nil {
			return err
		}
		_, err := rn.call(ctx, "test_reconnection", map[string]any{})
		return err
	case "request-metadata":
		// Every request carries the _meta and headers of 2026-07-28, and the first is
		// refused with -32022: what is checked is the library's retry.
		_, err := rn.tools(ctx)
		return err
	case "sep-2322-client-request-state":
		return rn.requestState(ctx)
	case "http-standard-headers":
		return rn.standardHeaders(ctx)
	case "http-custom-headers":
		return rn.customHeaders(ctx)
	case "http-invalid-tool-headers":
		return rn.invalidToolHeaders(ctx)
	case "json-schema-ref-no-deref":
		return rn.refNoDeref(ctx)
	case "json-schema-2020-12-preservation":
		return rn.schemaPreservation(ctx)
	default:
		if strings.HasPrefix(scenario, "auth/") {
			// Every auth scenario checks the authorization, which the library ran when
			// the server first answered 401; the calls after it may need more scope
			// (auth/scope-step-up gates tools/call on mcp:write).
			if _, err := rn.tools(ctx, "test-tool"); err != nil {
				return err
			}
			_, err := rn.call(ctx, "test-tool", map[string]any{})
			return err
		}
		logf("unknown scenario %q: listing tools only", scenario)
		_, err := rn.tools(ctx)
		return err
	}
}

// answer handles the server's requests, in 2025-11-25 sent as requests and in
// 2026-07-28 as the input requests of an input_required result: an elicitation is
// accepted with the defaults of its schema filled in (SEP-1034; Accept applies them)
// and a sample value for every other property; sampling gets a fixed reply, as this
// client has no model. Roots are answered by the library from Options.Roots.
func (rn *runner) answer(ctx context.Context, r *client.Request) {
	if f := rn.beforeAnswer.Swap(nil); f != nil {
		if err := (*f)(ctx, r); err != nil {
			logf("before answering %s: %v", r.Method, err)
			_ = r.Reject(err)
			return
		}
	}
	key := ""
	if r.InputKey != "" {
		key = fmt.Sprintf(" (input %q)", r.InputKey)
	}
	switch {
	case r.Elicitation != nil:
		content := sampleContent(r.Elicitation.RequestedSchema)
		err := r.Accept(content)
		res, _ := r.Answer()
		b, _ := json.Marshal(res)
		logf("accepted elicitation %q%s: %s (%v)", r.Elicitation.Message, key, b, err)
	case r.Sampling != nil:
		err := r.Respond(&mcp.CreateMessageResult{
			Role:       mcp.RoleAssistant,
			Content:    []mcp.Content{{Type: mcp.ContentTypeText, Text: "This is a canned reply of mcpi's conformance client, which has no model."}},
			Model:      "mcpi-conformance-client",
			StopReason: "endTurn",
		})
		logf("answered sampling%s with a canned reply (%v)", key, err)
	}
}

// sampleContent returns a value for every property of an elicitation schema that gives
// no default (defaults are filled in by Request.Accept): true, the first enum value, 1,
// or "mcpi".
func sampleContent(schema json.RawMessage) map[string]any {
	var s struct {
		Properties map[string]struct {
			Type    string            `json:"type"`
			Default json.RawMessage   `json:"default"`
			Enum    []json.RawMessage `json:"enum"`
		} `json:"properties"`
	}
	content := map[string]any{}
	if json.Unmarshal(schema, &s) != nil {
		return content
	}
	for name, p := range s.Properties {
		if len(p.Default) > 0 {
			continue
		}
		switch {
		case len(p.Enum) > 0:
			var v any
			if json.Unmarshal(p.Enum[0], &v) == nil {
				content[name] = v
			}
		case p.Type == "boolean":
			content[name] = true
		case p.Type == "integer" || p.Type == "number":
			content[name] = 1
		case p.Type == "string":
			content[name] = "mcpi"
		}
	}
	return content
}

// tools lists every tool and checks that each of want is among them.
func (rn *runner) tools(ctx context.Context, want ...string) ([]mcp.Tool, error) {
	var tools []mcp.Tool
	var names []string
	for t, err := range rn.s.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		tools = append(tools, t)
		names = append(names, t.Name)
	}
	logf("tools: %s", strings.Join(names, ", "))
	for _, w := range want {
		if !slices.Contains(names, w) {
			return nil, fmt.Errorf("the server lists no tool %q (it has: %s)", w, strings.Join(names, ", "))
		}
	}
	return tools, nil
}

// call calls a tool with arguments marshalled from args and fails on a JSON-RPC error
// or a result with isError.
func (rn *runner) call(ctx context.Context, name string, args any) (*mcp.CallToolResult, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	return rn.callRaw(ctx, name, raw)
}

// callRaw calls a tool with arguments as they are.
func (rn *runner) callRaw(ctx context.Context, name string, raw json.RawMessage) (*mcp.CallToolResult, error) {
	logf("calling %s %s", name, raw)
	res, err := rn.s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: raw}, nil)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("calling %s: no result within %s", name, deadline)
		}
		return nil, err
	}
	logf("%s answered: %s", name, firstText(res))
	if res.IsError {
		return nil, fmt.Errorf("%s failed: %s", name, firstText(res))
	}
	return res, nil
}

// callExpect calls a tool and checks that its text holds want.
func (rn *runner) callExpect(ctx context.Context, name string, args any, want string) error {
	res, err := rn.call(ctx, name, args)
	if err != nil {
		return err
	}
	if t := firstText(res); !strings.Contains(t, want) {
		return fmt.Errorf("%s answered %q, which lacks %q", name, t, want)
	}
	return nil
}

func firstText(r *mcp.CallToolResult) string {
	for _, c := range r.Content {
		if c.Type == mcp.ContentTypeText {
			return c.Text
		}
	}
	return ""
}

// toolsCall: add_numbers(5, 3), in either revision.
func (rn *runner) toolsCall(ctx context.Context) error {
	if _, err := rn.tools(ctx, "add_numbers"); err != nil {
		return err
	}
	return rn.callExpect(ctx, "add_numbers", map[string]any{"a": 5, "b": 3}, "8")
}

// requestState (SEP-2322, MRTR): the library answers input_required through Options.
// OnRequest and sends the request again with a new id, the answers, and the
// requestState exactly as received (none when none came). An unrelated call made while
// the first round is being answered must carry neither; a result with no resultType is
// complete.
func (rn *runner) requestState(ctx context.Context) error {
	if _, err := rn.tools(ctx, "test_mrtr_echo_state", "test_mrtr_no_state", "test_mrtr_unrelated", "test_mrtr_no_result_type"); err != nil {
		return err
	}
	unrelated := make(chan error, 1)
	before := func(ctx context.Context, r *client.Request) error {
		logf("input requested (%q): calling test_mrtr_unrelated before answering", r.InputKey)
		err := rn.callExpect(ctx, "test_mrtr_unrelated", map[string]any{}, "unrelated-ok")
		unrelated <- err
		return err
	}
	rn.beforeAnswer.Store(&before)
	if err := rn.callExpect(ctx, "test_mrtr_echo_state", map[string]any{}, "echo-state-ok"); err != nil {
		return err
	}
	select {
	case err := <-unrelated:
		if err != nil {
			return err
		}
	default:
		rn.beforeAnswer.Store(nil)
		return errors.New("test_mrtr_echo_state asked for no input (no input_required round)")
	}
	if err := rn.callExpect(ctx, "test_mrtr_no_state", map[string]any{}, "no-state-ok"); err != nil {
		return err
	}
	return rn.callExpect(ctx, "test_mrtr_no_result_type", map[string]any{}, "no-result-type-test-ok")
}

// standardHeaders (SEP-2243): one request of every method that carries Mcp-Method, and
// Mcp-Name on tools/call, resources/read and prompts/get. The library writes them.
func (rn *runner) standardHeaders(ctx context.Context) error {
	tools, err := rn.tools(ctx)
	if err != nil {
		return err
	}
	for _, t := range tools {
		if _, err := rn.call(ctx, t.Name, map[string]any{}); err != nil {
			return err
		}
	}
	for r, err := range rn.s.Resources(ctx, nil) {
		if err != nil {
			return err
		}
		res, err := rn.s.ReadResource(ctx, &mcp.ReadResourceParams{URI: r.URI})
		if err != nil {
			return err
		}
		logf("read %s: %d contents", r.URI, len(res.Contents))
	}
	for p, err := range rn.s.Prompts(ctx, nil) {
		if err != nil {
			return err
		}
		res, err := rn.s.GetPrompt(ctx, &mcp.GetPromptParams{Name: p.Name})
		if err != nil {
			return err
		}
		logf("got prompt %s: %d messages", p.Name, len(res.Messages))
	}
	return nil
}

// customHeaders (SEP-2243): the calls named in MCP_CONFORMANCE_CONTEXT, with their
// arguments as given (nulls kept); the library mirrors the arguments the listed tool
// marks x-mcp-header into Mcp-Param-* headers, encoded.
func (rn *runner) customHeaders(ctx context.Context) error {
	var sc struct {
		ToolCalls []struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"toolCalls"`
	}
	raw := os.Getenv(envContext)
	if raw == "" {
		return fmt.Errorf("$%s is not set: the scenario names the calls to make there", envContext)
	}
	if err := json.Unmarshal([]byte(raw), &sc); err != nil {
		return fmt.Errorf("$%s: %w", envContext, err)
	}
	if len(sc.ToolCalls) == 0 {
		return fmt.Errorf("$%s names no toolCalls", envContext)
	}
	want := make([]string, 0, len(sc.ToolCalls))
	for _, tc := range sc.ToolCalls {
		want = append(want, tc.Name)
	}
	tools, err := rn.tools(ctx, want...)
	if err != nil {
		return err
	}
	for _, t := range tools {
		params, err := t.HeaderParams()
		var names []string
		for _, p := range params {
			names = append(names, p.Name)
		}
		logf("tool %s: header params %s (%v)", t.Name, strings.Join(names, ", "), err)
	}
	for _, tc := range sc.ToolCalls {
		if _, err := rn.callRaw(ctx, tc.Name, tc.Arguments); err != nil {
			return err
		}
	}
	return nil
}

// invalidToolHeaders (SEP-2243): the library leaves out of the listing every tool whose
// x-mcp-header declarations break the rules (logging why); every tool it keeps is
// called, with sample values for its required arguments, so that a tool wrongly kept
// would show.
func (rn *runner) invalidToolHeaders(ctx context.Context) error {
	tools, err := rn.tools(ctx)
	if err != nil {
		return err
	}
	if len(tools) == 0 {
		return errors.New("no tool was kept")
	}
	for _, t := range tools {
		if _, err := rn.call(ctx, t.Name, sampleArguments(t.InputSchema)); err != nil {
			return err
		}
	}
	return nil
}

// sampleArguments returns a value for each required property of an input schema:
// "us-west1" for a string, 1 for a number, true for a boolean.
func sampleArguments(schema json.RawMessage) map[string]any {
	var s struct {
		Properties map[string]struct {
			Type string `json:"type"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	args := map[string]any{}
	if json.Unmarshal(schema, &s) != nil {
		return args
	}
	for _, name := range s.Required {
		switch s.Properties[name].Type {
		case "string":
			args[name] = "us-west1"
		case "integer", "number":
			args[name] = 1
		case "boolean":
			args[name] = true
		case "array":
			args[name] = []any{}
		case "object":
			args[name] = map[string]any{}
		}
	}
	return args
}

// refNoDeref (SEP-2106): list the tools and check arguments against lookup_user's
// schema, whose "profile" property is a $ref to a canary URL on the mock; neither may
// fetch it.
func (rn *runner) refNoDeref(ctx context.Context) error {
	tools, err := rn.tools(ctx, "lookup_user")
	if err != nil {
		return err
	}
	for i := range tools {
		if tools[i].Name != "lookup_user" {
			continue
		}
		for _, args := range []string{`{"id":"abc-1"}`, `{"id":"Not Valid!"}`} {
			err := client.ValidateArguments(&tools[i], json.RawMessage(args))
			logf("lookup_user arguments %s: %v", args, err)
		}
	}
	return nil
}

// schemaPreservation: echo json_schema_2020_12_tool's inputSchema, as received, to
// json_schema_echo; every JSON Schema 2020-12 keyword must survive.
func (rn *runner) schemaPreservation(ctx context.Context) error {
	tools, err := rn.tools(ctx, "json_schema_2020_12_tool", "json_schema_echo")
	if err != nil {
		return err
	}
	i := slices.IndexFunc(tools, func(t mcp.Tool) bool { return t.Name == "json_schema_2020_12_tool" })
	schema := tools[i].InputSchema
	args := make(json.RawMessage, 0, len(schema)+16)
	args = append(args, `{"schema":`...)
	args = append(args, schema...)
	args = append(args, '}')
	_, err = rn.callRaw(ctx, "json_schema_echo", args)
	return err
}
