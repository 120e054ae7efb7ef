// Package conformance hosts the fixtures that the official MCP conformance suite
// (@modelcontextprotocol/conformance 0.1.16) expects of a server under test: the tools,
// resources, prompts and completions its server scenarios call, named and shaped as
// docs/conformance-notes.md describes scenario by scenario.
//
// Serve [NewServer] over Streamable HTTP on a loopback address, e.g.
//
//	http.ListenAndServe("127.0.0.1:8931", conformance.NewServer().HTTPHandler(nil))
//
// and run scripts/conformance.sh server http://127.0.0.1:8931/mcp.
package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mcpi-dev/mcpi/internal/pause"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/tasks"
	"github.com/mcpi-dev/mcpi/transport"
)

// Name and Version are what the fixture server introduces itself as.
const (
	Name    = "mcpi-conformance"
	Version = "0.1.0"
)

// PNG is a 1x1 PNG image, base64-encoded; WAV is a minimal (empty) WAV file.
const (
	PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
	WAV = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA="
)

// StepDelay is the pause between the notifications of test_tool_with_logging and
// test_tool_with_progress ("about 50 ms apart").
var StepDelay = 50 * time.Millisecond

// noArgs is the input schema of the tools that take no arguments.
var noArgs = json.RawMessage(`{"type":"object","properties":{}}`)

// NewServer returns a server hosting every fixture of the 30 active server scenarios of
// the conformance suite 0.1.16, plus those of the two pending ones (json-schema-2020-12
// and server-sse-polling).
func NewServer() *server.Server {
	srv := server.New(mcp.Implementation{Name: Name, Title: "mcpi conformance fixtures", Version: Version}, &server.Options{
		Complete: complete,
		Modern:   true,
		// The tools of the tasks-* scenarios run as tasks of the 2026-07-28 extension.
		Tasks: &tasks.Options{},
		// Declared explicitly, though the server would derive the same from what is
		// registered: the suite's client does not check, but the notes ask for all five.
		Capabilities: &mcp.ServerCapabilities{
			Logging:     &struct{}{},
			Completions: &struct{}{},
			Tools:       &mcp.ToolsCapability{ListChanged: true},
			Prompts:     &mcp.PromptsCapability{ListChanged: true},
			Resources:   &mcp.ResourcesCapability{Subscribe: true, ListChanged: true},
		},
	})
	addTools(srv)
	addModernTools(srv)
	addTaskTools(srv)
	addResources(srv)
	addPrompts(srv)
	return srv
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(s)}}
}

func image() mcp.Content {
	return mcp.Content{Type: mcp.ContentTypeImage, Data: PNG, MimeType: "image/png"}
}

func toolError(format string, args ...any) *mcp.CallToolResult {
	r := text(fmt.Sprintf(format, args...))
	r.IsError = true
	return r
}

func addTools(srv *server.Server) {
	simple := func(name, desc string, result func() *mcp.CallToolResult) {
		srv.AddTool(&mcp.Tool{Name: name, Description: desc, InputSchema: noArgs},
			func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
				return result(), nil
			})
	}

	simple("test_simple_text", "Returns a simple text response (tools-call-simple-text).", func() *mcp.CallToolResult {
		return text("This is a simple text response for testing.")
	})
	simple("test_image_content", "Returns a 1x1 PNG image (tools-call-image).", func() *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{image()}}
	})
	simple("test_audio_content", "Returns a minimal WAV audio clip (tools-call-audio).", func() *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{{Type: mcp.ContentTypeAudio, Data: WAV, MimeType: "audio/wav"}}}
	})
	simple("test_embedded_resource", "Returns an embedded text resource (tools-call-embedded-resource).", func() *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.EmbeddedResourceContent(
			mcp.TextResourceContents("test://embedded-resource", "text/plain", "This is an embedded resource content."))}}
	})
	simple("test_multiple_content_types", "Returns text, an image and an embedded resource (tools-call-mixed-content).", func() *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{
			mcp.TextContent("Multiple content types test:"),
			image(),
			mcp.EmbeddedResourceContent(mcp.TextResourceContents("test://mixed-content-resource", "application/json", `{"test":"data","value":123}`)),
		}}
	})
	simple("test_error_handling", "Always fails with a tool execution error (tools-call-error).", func() *mcp.CallToolResult {
		return toolError("This tool intentionally returns an error for testing")
	})

	srv.AddTool(&mcp.Tool{
		Name:        "test_tool_with_logging",
		Description: "Sends three info log messages about 50 ms apart, then returns (tools-call-with-logging).",
		InputSchema: noArgs,
	}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		msgs := []string{"Tool execution started", "Tool processing data", "Tool execution completed"}
		for i, m := range msgs {
			if i > 0 {
				if err := pause.For(ctx, StepDelay); err != nil {
					return nil, err
				}
			}
			// The request's context routes the message onto the call's SSE stream, ahead
			// of the result.
			if err := req.Session.Log(ctx, mcp.LoggingLevelInfo, "test_tool_with_logging", m); err != nil {
				return nil, err
			}
		}
		return text("Tool with logging executed successfully"), nil
	})

	srv.AddTool(&mcp.Tool{
		Name:        "test_tool_with_progress",
		Description: "Reports progress 0, 50 and 100 of 100 about 50 ms apart, then returns (tools-call-with-progress).",
		InputSchema: noArgs,
	}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		total := 100.0
		for i, p := range []float64{0, 50, 100} {
			if i > 0 {
				if err := pause.For(ctx, StepDelay); err != nil {
					return nil, err
				}
			}
			// Progress does nothing when the request carries no progress token.
			if err := req.Progress(ctx, p, &total, fmt.Sprintf("%g of 100", p)); err != nil {
				return nil, err
			}
		}
		return text("Tool with progress executed successfully"), nil
	})

	srv.AddTool(&mcp.Tool{
		Name:        "test_sampling",
		Description: "Asks the client's model to answer the prompt (sampling/createMessage) and returns the answer (tools-call-sampling).",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"prompt":{"type":"string","description":"The prompt to send to the LLM"}},"required":["prompt"]}`),
	}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		var args struct {
			Prompt string `json:"prompt"`
		}
		if err := req.Arguments(&args); err != nil {
			return toolError("%v", err), nil
		}
		res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{
			Messages:  []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: []mcp.Content{mcp.TextContent(args.Prompt)}}},
			MaxTokens: 100,
		})
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			return toolError("sampling failed: %v", err), nil
		}
		var parts []string
		for _, c := range res.Content {
			if c.Type == mcp.ContentTypeText {
				parts = append(parts, c.Text)
			}
		}
		return text("LLM response: " + strings.Join(parts, "\n")), nil
	})

	elicit := func(name, desc, resultPrefix string, args json.RawMessage, message func(req *server.ToolRequest) (string, error), schema json.RawMessage) {
		srv.AddTool(&mcp.Tool{Name: name, Description: desc, InputSchema: args},
			func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
				msg, err := message(req)
				if err != nil {
					return toolError("%v", err), nil
				}
				res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: msg, RequestedSchema: schema})
				if err != nil {
					if ctx.Err() != nil {
						return nil, err
					}
					return toolError("elicitation failed: %v", err), nil
				}
				content, _ := json.Marshal(res.Content)
				if res.Content == nil {
					content = []byte("{}")
				}
				return text(fmt.Sprintf("%saction=%s, content=%s", resultPrefix, res.Action, content)), nil
			})
	}
	elicit("test_elicitation",
		"Asks the user for a username and an email address (elicitation/create) and returns the answer (tools-call-elicitation).",
		"User response: ",
		json.RawMessage(`{"type":"object","properties":{"message":{"type":"string","description":"The message to show the user"}},"required":["message"]}`),
		func(req *server.ToolRequest) (string, error) {
			var args struct {
				Message string `json:"message"`
			}
			err := req.Arguments(&args)
			return args.Message, err
		},
		json.RawMessage(`{"type":"object","properties":{`+
			`"username":{"type":"string","description":"User's response"},`+
			`"email":{"type":"string","description":"User's email address"}},`+
			`"required":["username","email"]}`))
	elicit("test_elicitation_sep1034_defaults",
		"Asks the user a form whose fields all have defaults: string, integer, number, enum, boolean (elicitation-sep1034-defaults).",
		"Elicitation completed: ",
		noArgs,
		func(*server.ToolRequest) (string, error) {
			return "Please review and update the form fields with defaults", nil
		},
		json.RawMessage(`{"type":"object","properties":{`+
			`"name":{"type":"string","description":"User name","default":"John Doe"},`+
			`"age":{"type":"integer","description":"User age","default":30},`+
			`"score":{"type":"number","description":"User score","default":95.5},`+
			`"status":{"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},`+
			`"verified":{"type":"boolean","description":"Verification status","default":true}},`+
			`"required":[]}`))
	elicit("test_elicitation_sep1330_enums",
		"Asks the user a form with the five enum variants of SEP-1330 (elicitation-sep1330-enums).",
		"Elicitation completed: ",
		noArgs,
		func(*server.ToolRequest) (string, error) {
			return "Please select options from the enum fields", nil
		},
		json.RawMessage(`{"type":"object","properties":{`+
			`"untitledSingle":{"type":"string","description":"Untitled single-select","enum":["option1","option2","option3"]},`+
			`"titledSingle":{"type":"string","description":"Titled single-select","oneOf":[`+
			`{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},`+
			`"legacyEnum":{"type":"string","description":"Legacy titled enum","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},`+
			`"untitledMulti":{"type":"array","description":"Untitled multi-select","items":{"type":"string","enum":["option1","option2","option3"]}},`+
			`"titledMulti":{"type":"array","description":"Titled multi-select","items":{"anyOf":[`+
			`{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}},`+
			`"required":[]}`))

	// Pending scenario json-schema-2020-12: every keyword of the schema must be listed.
	srv.AddTool(&mcp.Tool{
		Name:        "json_schema_2020_12_tool",
		Description: "Tool with JSON Schema 2020-12 features",
		// The schema of 0.2.0-alpha.12, whose 2026-07-28 checks (SEP-2106) want $anchor,
		// allOf/anyOf and if/then/else kept too; 0.1.16 checks a subset of it.
		InputSchema: json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",` +
			`"$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},` +
			`"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},` +
			`"contactMethod":{"type":"string","enum":["phone","email"]},"phone":{"type":"string"},"email":{"type":"string"}},` +
			`"allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],` +
			`"if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},` +
			`"then":{"required":["phone"]},"else":{"required":["email"]},"additionalProperties":false}`),
	}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		return text("json_schema_2020_12_tool called with " + string(req.Params.Arguments)), nil
	})

	// Pending scenario server-sse-polling (SEP-1699): over Streamable HTTP the tool ends
	// the HTTP response carrying its call's SSE stream (after the priming event) before it
	// answers, so the client resumes the stream with GET and Last-Event-ID and finds the
	// result there. On other transports it just answers.
	srv.AddTool(&mcp.Tool{
		Name:        "test_reconnection",
		Description: "Closes the call's SSE stream mid-call, then answers after a short pause; the client gets the result by resuming the stream (server-sse-polling, SEP-1699).",
		InputSchema: noArgs,
	}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		if hc, ok := req.Session.Connection().(*transport.HTTPServerConn); ok {
			if r, ok := jsonrpc.RequestFromContext(ctx); ok {
				if err := closeSSEStream(ctx, hc, r.ID); err != nil {
					return nil, err
				}
			}
		}
		if err := pause.For(ctx, StepDelay); err != nil {
			return nil, err
		}
		return text("Reconnection test completed successfully"), nil
	})
}

// closeSSEStream ends the HTTP response that carries the SSE stream of request id. The
// request reaches the tool as its POST starts streaming, so the stream may not have a
// response to close yet: try for a while. A session that answers with plain JSON has no
// stream to close, and the call is simply answered.
func closeSSEStream(ctx context.Context, hc *transport.HTTPServerConn, id jsonrpc.ID) error {
	deadline := time.Now().Add(500 * time.Millisecond)
	for !hc.CloseSSEStream(id) {
		if time.Now().After(deadline) {
			return nil
		}
		if err := pause.For(ctx, time.Millisecond); err != nil {
			return err
		}
	}
	return nil
}

func addResources(srv *server.Server) {
	static := func(r *mcp.Resource, contents mcp.ResourceContents) {
		srv.AddResource(r, func(ctx context.Context, s *server.Session, p *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{contents}}, nil
		})
	}
	static(&mcp.Resource{URI: "test://static-text", Name: "static-text", Description: "A static text resource (resources-read-text).", MimeType: "text/plain"},
		mcp.TextResourceContents("test://static-text", "text/plain", "This is the content of the static text resource."))
	static(&mcp.Resource{URI: "test://static-binary", Name: "static-binary", Description: "A static binary resource, a PNG image (resources-read-binary).", MimeType: "image/png"},
		mcp.ResourceContents{URI: "test://static-binary", MimeType: "image/png", Blob: PNG})
	static(&mcp.Resource{URI: "test://watched-resource", Name: "watched-resource", Description: "A resource to subscribe to (resources-subscribe, resources-unsubscribe).", MimeType: "text/plain"},
		mcp.TextResourceContents("test://watched-resource", "text/plain", "Watched resource content"))

	srv.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: "test://template/{id}/data",
		Name:        "template",
		Description: "JSON data for the id in the URI (resources-templates-read).",
		MimeType:    "application/json",
	}, func(ctx context.Context, s *server.Session, p *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
		id, ok := strings.CutPrefix(p.URI, "test://template/")
		id, ok2 := strings.CutSuffix(id, "/data")
		if !ok || !ok2 || id == "" || strings.Contains(id, "/") {
			return nil, jsonrpc.Errorf(-32002, "resource not found: %s", p.URI)
		}
		body, err := json.Marshal(map[string]any{"id": id, "templateTest": true, "data": "Data for ID: " + id})
		if err != nil {
			return nil, err
		}
		return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{
			mcp.TextResourceContents(p.URI, "application/json", string(body)),
		}}, nil
	})
}

func addPrompts(srv *server.Server) {
	srv.AddPrompt(&mcp.Prompt{Name: "test_simple_prompt", Description: "A simple prompt without arguments (prompts-get-simple)."},
		func(ctx context.Context, s *server.Session, p *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{
				{Role: mcp.RoleUser, Content: mcp.TextContent("This is a simple prompt for testing.")},
			}}, nil
		})
	srv.AddPrompt(&mcp.Prompt{
		Name:        "test_prompt_with_arguments",
		Description: "A prompt with two required arguments (prompts-get-with-args).",
		Arguments: []mcp.PromptArgument{
			{Name: "arg1", Description: "First test argument", Required: true},
			{Name: "arg2", Description: "Second test argument", Required: true},
		},
	}, func(ctx context.Context, s *server.Session, p *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{
			Role:    mcp.RoleUser,
			Content: mcp.TextContent(fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", p.Arguments["arg1"], p.Arguments["arg2"])),
		}}}, nil
	})
	srv.AddPrompt(&mcp.Prompt{
		Name:        "test_prompt_with_embedded_resource",
		Description: "A prompt embedding the resource named by its argument (prompts-get-embedded-resource).",
		Arguments:   []mcp.PromptArgument{{Name: "resourceUri", Description: "URI of the resource to embed", Required: true}},
	}, func(ctx context.Context, s *server.Session, p *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{
			{Role: mcp.RoleUser, Content: mcp.EmbeddedResourceContent(
				mcp.TextResourceContents(p.Arguments["resourceUri"], "text/plain", "Embedded resource content for testing."))},
			{Role: mcp.RoleUser, Content: mcp.TextContent("Please process the embedded resource above.")},
		}}, nil
	})
	srv.AddPrompt(&mcp.Prompt{Name: "test_prompt_with_image", Description: "A prompt with an image (prompts-get-with-image)."},
		func(ctx context.Context, s *server.Session, p *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{
				{Role: mcp.RoleUser, Content: image()},
				{Role: mcp.RoleUser, Content: mcp.TextContent("Please analyze the image above.")},
			}}, nil
		})
}

// completionValues are the suggestions for each completable argument; those starting
// with the typed value are returned.
var completionValues = map[mcp.CompleteReference]map[string][]string{
	{Type: mcp.RefTypePrompt, Name: "test_prompt_with_arguments"}: {
		"arg1": {"paris", "park", "party", "test", "testValue1"},
		"arg2": {"testValue2", "value", "world"},
	},
	{Type: mcp.RefTypeResource, URI: "test://template/{id}/data"}: {
		"id": {"1", "2", "3", "123"},
	},
}

// complete answers completion/complete (completion-complete). Unknown references get an
// empty list rather than an error.
func complete(ctx context.Context, s *server.Session, p *mcp.CompleteParams) (*mcp.CompleteResult, error) {
	ref := mcp.CompleteReference{Type: p.Ref.Type, Name: p.Ref.Name, URI: p.Ref.URI}
	values := []string{}
	for _, v := range completionValues[ref][p.Argument.Name] {
		if strings.HasPrefix(v, p.Argument.Value) {
			values = append(values, v)
		}
	}
	total := int64(len(values))
	return &mcp.CompleteResult{Completion: mcp.Completion{Values: values, Total: &total, HasMore: false}}, nil
}
