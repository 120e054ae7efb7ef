package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
)

// Limits of the slow tool.
const (
	MaxSlowSeconds     = 600
	DefaultSlowSeconds = 3
	MaxSlowSteps       = 1000
)

func ptr[T any](v T) *T { return &v }

func (d *demo) addTools(srv *server.Server) {
	srv.AddTool(&mcp.Tool{
		Name:        ToolEcho,
		Title:       "Echo",
		Description: "Returns the given text unchanged, as one text content item.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"text":{"type":"string","title":"Text","description":"The text to send back."}},` +
			`"additionalProperties":false}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: ptr(true), OpenWorldHint: ptr(false)},
	}, d.echo)

	srv.AddTool(&mcp.Tool{
		Name:        ToolAdd,
		Title:       "Add two numbers",
		Description: "Adds a and b. Returns the sum as text and as structured content {\"sum\": N}.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"a":{"type":"number","title":"a","description":"The first addend."},` +
			`"b":{"type":"number","title":"b","description":"The second addend."}},` +
			`"required":["a","b"],"additionalProperties":false}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"sum":{"type":"number","description":"a + b"}},"required":["sum"]}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: ptr(true), IdempotentHint: ptr(true), OpenWorldHint: ptr(false)},
		// Explicit, though absent means the same: add never runs as a task.
		Execution: taskForbidden,
	}, d.add)

	srv.AddTool(&mcp.Tool{
		Name:  ToolSlow,
		Title: "Slow operation",
		Description: "Waits for the given number of seconds, in steps, sending a progress notification " +
			"(with a message) when it starts and after each step. Cancel the call to stop it.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"seconds":{"type":"number","title":"Seconds","description":"How long to take in total.","minimum":0,"maximum":600,"default":3},` +
			`"steps":{"type":"integer","title":"Steps","description":"How many steps (progress notifications after the first); default one per second, at least one.","minimum":1,"maximum":1000}},` +
			`"additionalProperties":false}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: ptr(true), OpenWorldHint: ptr(false)},
	}, d.slow)

	srv.AddTool(&mcp.Tool{
		Name:  ToolAskUser,
		Title: "Ask the user",
		Description: "Asks the user for their name, favourite colour and newsletter preference " +
			"(elicitation), and reports what they answered, or that they declined or cancelled.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"message":{"type":"string","title":"Message","description":"What to tell the user; a default greeting when absent."}},` +
			`"additionalProperties":false}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: ptr(true), OpenWorldHint: ptr(false)},
	}, d.askUser)

	srv.AddTool(&mcp.Tool{
		Name:        ToolAskModel,
		Title:       "Ask the model",
		Description: "Sends the prompt to the client's model (sampling/createMessage) and returns the model's text.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"prompt":{"type":"string","title":"Prompt","description":"The user message to send to the model.","minLength":1},` +
			`"maxTokens":{"type":"integer","title":"Max tokens","description":"The most tokens the model may produce.","minimum":1,"default":200}},` +
			`"required":["prompt"],"additionalProperties":false}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: ptr(true), OpenWorldHint: ptr(true)},
	}, d.askModel)

	srv.AddTool(&mcp.Tool{
		Name:  ToolLogLevels,
		Title: "Log at every level",
		Description: "Sends one log message (notifications/message) at each level from debug to emergency. " +
			"The client receives those at or above the level it chose with logging/setLevel.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"message":{"type":"string","title":"Message","description":"The text to log; a default when absent."}},` +
			`"additionalProperties":false}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: ptr(true), OpenWorldHint: ptr(false)},
	}, d.logLevels)

	srv.AddTool(&mcp.Tool{
		Name:  ToolBenchStats,
		Title: "Benchmark statistics",
		Description: `Returns text JSON {"counts": {METHOD: requests received}, "maxRssKiB": N}: the requests ` +
			"the server received per method (all sessions) and its peak resident memory. reset zeroes the counts after reading them.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"reset":{"type":"boolean","title":"Reset","description":"Zero the counts after reading them.","default":false}},` +
			`"additionalProperties":false}`),
		Annotations: &mcp.ToolAnnotations{OpenWorldHint: ptr(false)},
	}, d.benchStats)

	srv.AddTool(&mcp.Tool{
		Name:        ToolListRoots,
		Title:       "List the client's roots",
		Description: "Asks the client for its roots (roots/list) and returns them, one per line, and as structured content {\"roots\": [...]}.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: ptr(true), OpenWorldHint: ptr(false)},
	}, d.listRoots)
}

// textResult returns a result with one text item.
func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(text)}}
}

// toolError returns a tool execution error: a result the model sees, with isError set.
func toolError(format string, args ...any) *mcp.CallToolResult {
	r := textResult(fmt.Sprintf(format, args...))
	r.IsError = true
	return r
}

// arguments decodes the call's arguments; invalid ones are a tool execution error, as
// revision 2025-11-25 asks for input validation failures.
func arguments(req *server.ToolRequest, v any) *mcp.CallToolResult {
	if err := req.Arguments(v); err != nil {
		return toolError("invalid arguments for %s: %v", req.Params.Name, err)
	}
	return nil
}

func (d *demo) echo(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		Text string `json:"text"`
	}
	if r := arguments(req, &args); r != nil {
		return r, nil
	}
	return textResult(args.Text), nil
}

// formatNumber writes a number the way JSON does: 5, 2.5, 1e+21.
func formatNumber(f float64) string {
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func (d *demo) add(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		A *float64 `json:"a"`
		B *float64 `json:"b"`
	}
	if r := arguments(req, &args); r != nil {
		return r, nil
	}
	if args.A == nil || args.B == nil {
		return toolError("add needs both a and b"), nil
	}
	sum := *args.A + *args.B
	if math.IsInf(sum, 0) {
		return toolError("the sum of %s and %s overflows", formatNumber(*args.A), formatNumber(*args.B)), nil
	}
	structured, err := json.Marshal(map[string]float64{"sum": sum})
	if err != nil {
		return nil, err
	}
	r := textResult(formatNumber(sum))
	r.StructuredContent = structured
	return r, nil
}

func (d *demo) slow(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		Seconds *float64 `json:"seconds"`
		Steps   *int     `json:"steps"`
	}
	if r := arguments(req, &args); r != nil {
		return r, nil
	}
	seconds := float64(DefaultSlowSeconds)
	if args.Seconds != nil {
		seconds = *args.Seconds
	}
	if seconds < 0 || seconds > MaxSlowSeconds || math.IsNaN(seconds) {
		return toolError("seconds must be between 0 and %d, got %s", MaxSlowSeconds, formatNumber(seconds)), nil
	}
	steps := max(1, int(math.Ceil(seconds)))
	if args.Steps != nil {
		steps = *args.Steps
	}
	if steps < 1 || steps > MaxSlowSteps {
		return toolError("steps must be between 1 and %d, got %d", MaxSlowSteps, steps), nil
	}
	total := time.Duration(seconds * float64(time.Second))
	step := total / time.Duration(steps)
	n := float64(steps)

	// Progress goes out on the request's context, so that a routing transport sends it
	// with the request; a failed notification does not stop the work.
	_ = req.Progress(ctx, 0, &n, fmt.Sprintf("started: %s of %s", plural(steps, "step"), step))
	for k := 1; k <= steps; k++ {
		if err := d.opts.Sleep(ctx, step); err != nil {
			d.slowStopped(ctx, req.Session, k-1, steps, err)
			return nil, err
		}
		_ = req.Progress(ctx, float64(k), &n, fmt.Sprintf("step %d of %d", k, steps))
	}
	if d.opts.OnSlowExit != nil {
		d.opts.OnSlowExit(steps, nil)
	}
	return textResult(fmt.Sprintf("done: waited %s in %s", total, plural(steps, "step"))), nil
}

// slowStopped reports a cancelled slow call: to the hook, and to the client as a log
// message, since the client gets no response to a request it cancelled.
func (d *demo) slowStopped(ctx context.Context, s *server.Session, done, steps int, err error) {
	if d.opts.OnSlowExit != nil {
		d.opts.OnSlowExit(done, err)
	}
	_ = s.Log(context.WithoutCancel(ctx), mcp.LoggingLevelNotice, Name,
		fmt.Sprintf("slow stopped after %d of %s: %v", done, plural(steps, "step"), err))
}

// The form ask_user sends.
var askUserSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"name":{"type":"string","title":"Name","description":"What should we call you?","minLength":1},` +
	`"color":{"type":"string","title":"Favourite colour","enum":["red","green","blue"],"default":"blue"},` +
	`"subscribe":{"type":"boolean","title":"Subscribe to the newsletter","default":false}},` +
	`"required":["name"]}`)

// Answer is what ask_user returns as structured content.
type Answer struct {
	Action    string `json:"action"`
	Name      string `json:"name,omitempty"`
	Color     string `json:"color,omitempty"`
	Subscribe bool   `json:"subscribe,omitempty"`
}

func (d *demo) askUser(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		Message string `json:"message"`
	}
	if r := arguments(req, &args); r != nil {
		return r, nil
	}
	if args.Message == "" {
		args.Message = "Hello! Please tell me a little about yourself."
	}
	if !req.ClientCapabilities().Elicitation.SupportsForm() {
		return toolError("the client does not support form elicitation, so ask_user cannot ask"), nil
	}
	res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{
		Mode:            mcp.ElicitModeForm,
		Message:         args.Message,
		RequestedSchema: askUserSchema,
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return toolError("asking the user failed: %v", err), nil
	}
	var a Answer
	a.Action = res.Action
	var text string
	switch res.Action {
	case mcp.ElicitActionAccept:
		b, _ := json.Marshal(res.Content)
		var c struct {
			Name      *string `json:"name"`
			Color     *string `json:"color"`
			Subscribe *bool   `json:"subscribe"`
		}
		if err := json.Unmarshal(b, &c); err != nil {
			return toolError("the user's answer does not fit the form: %v", err), nil
		}
		if c.Name == nil || strings.TrimSpace(*c.Name) == "" {
			return toolError("the user's answer lacks the required name"), nil
		}
		a.Name = *c.Name
		a.Color = "blue"
		if c.Color != nil {
			a.Color = *c.Color
		}
		if c.Subscribe != nil {
			a.Subscribe = *c.Subscribe
		}
		switch a.Color {
		case "red", "green", "blue":
		default:
			return toolError("the user's colour %q is not one of red, green, blue", a.Color), nil
		}
		sub := "no"
		if a.Subscribe {
			sub = "yes"
		}
		text = fmt.Sprintf("Hello, %s! Favourite colour: %s. Subscribed: %s.", a.Name, a.Color, sub)
	case mcp.ElicitActionDecline:
		text = "The user declined to answer."
	case mcp.ElicitActionCancel:
		text = "The user cancelled the request."
	default:
		return toolError("the client answered with the unknown action %q", res.Action), nil
	}
	structured, err := json.Marshal(a)
	if err != nil {
		return nil, err
	}
	r := textResult(text)
	r.StructuredContent = structured
	return r, nil
}

func (d *demo) listRoots(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
	if req.ClientCapabilities().Roots == nil {
		return toolError("the client declares no roots, so list_roots cannot ask for them"), nil
	}
	res, err := req.Session.ListRoots(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return toolError("the roots were not listed: %v", err), nil
	}
	text := "the client has no roots"
	if len(res.Roots) > 0 {
		lines := make([]string, len(res.Roots))
		for i, r := range res.Roots {
			lines[i] = r.URI
			if r.Name != "" {
				lines[i] += " (" + r.Name + ")"
			}
		}
		text = strings.Join(lines, "\n")
	}
	structured, _ := json.Marshal(map[string]any{"roots": res.Roots})
	out := textResult(text)
	out.StructuredContent = structured
	return out, nil
}

func (d *demo) askModel(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		Prompt    string `json:"prompt"`
		MaxTokens *int64 `json:"maxTokens"`
	}
	if r := arguments(req, &args); r != nil {
		return r, nil
	}
	if args.Prompt == "" {
		return toolError("ask_model needs a prompt"), nil
	}
	maxTokens := int64(200)
	if args.MaxTokens != nil {
		if *args.MaxTokens < 1 {
			return toolError("maxTokens must be at least 1, got %d", *args.MaxTokens), nil
		}
		maxTokens = *args.MaxTokens
	}
	if req.ClientCapabilities().Sampling == nil {
		return toolError("the client does not support sampling, so ask_model cannot ask"), nil
	}
	res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{
		Messages: []mcp.SamplingMessage{{
			Role:    mcp.RoleUser,
			Content: []mcp.Content{mcp.TextContent(args.Prompt)},
		}},
		MaxTokens: maxTokens,
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return toolError("the model was not asked: %v", err), nil
	}
	var parts []string
	for _, c := range res.Content {
		if c.Type == mcp.ContentTypeText {
			parts = append(parts, c.Text)
		}
	}
	if len(parts) == 0 {
		return toolError("the model (%s) answered without text", res.Model), nil
	}
	return textResult(strings.Join(parts, "\n")), nil
}

// LogLevels lists the logging levels from the least to the most severe.
var LogLevels = []mcp.LoggingLevel{
	mcp.LoggingLevelDebug, mcp.LoggingLevelInfo, mcp.LoggingLevelNotice, mcp.LoggingLevelWarning,
	mcp.LoggingLevelError, mcp.LoggingLevelCritical, mcp.LoggingLevelAlert, mcp.LoggingLevelEmergency,
}

func (d *demo) logLevels(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		Message string `json:"message"`
	}
	if r := arguments(req, &args); r != nil {
		return r, nil
	}
	if args.Message == "" {
		args.Message = "a message from the demo server"
	}
	for _, l := range LogLevels {
		if err := req.Session.Log(ctx, l, Name, fmt.Sprintf("%s: %s", l, args.Message)); err != nil {
			return nil, err
		}
	}
	return textResult(fmt.Sprintf("logged %q at %d levels", args.Message, len(LogLevels))), nil
}

func (d *demo) benchStats(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		Reset bool `json:"reset"`
	}
	if r := arguments(req, &args); r != nil {
		return r, nil
	}
	counts := d.stats.snapshot(args.Reset)
	b, err := json.Marshal(struct {
		Counts    map[string]int64 `json:"counts"`
		MaxRssKiB int64            `json:"maxRssKiB"`
	}{counts, maxRSSKiB()})
	if err != nil {
		return nil, err
	}
	return textResult(string(b)), nil
}
