package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/mcpi-dev/mcpi/internal/plural"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
)

// Fixtures of the 2026-07-28 server scenarios of the conformance suite 0.2.0-alpha.12:
// the input-required-result-* tools and prompt (MRTR, SEP-2322) and the diagnostic tools
// of server-stateless (SEP-2575). They ask for input with [server.Session.Inputs], so in
// 2025-11-25 they send the requests to the client instead.

func elicitForm(message string, schema string) mcp.InputRequest {
	p, _ := json.Marshal(map[string]any{"message": message, "requestedSchema": json.RawMessage(schema)})
	return mcp.InputRequest{Method: mcp.MethodElicitationCreate, Params: p}
}

func sampling(text string, maxTokens int) mcp.InputRequest {
	p, _ := json.Marshal(map[string]any{
		"messages":  []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": text}}},
		"maxTokens": maxTokens,
	})
	return mcp.InputRequest{Method: mcp.MethodSamplingCreateMessage, Params: p}
}

var rootsList = mcp.InputRequest{Method: mcp.MethodRootsList, Params: json.RawMessage(`{}`)}

// ask runs Inputs and turns a failure into what a tool handler returns: the error
// itself when the server must answer it (input required, a missing capability), a tool
// error otherwise.
func ask(ctx context.Context, req *server.ToolRequest, reqs map[string]mcp.InputRequest) (map[string]json.RawMessage, *mcp.CallToolResult, error) {
	out, err := req.Session.Inputs(ctx, reqs)
	if err == nil {
		return out, nil, nil
	}
	if errors.Is(err, server.ErrInputRequired) || ctx.Err() != nil {
		return nil, nil, err
	}
	return nil, nil, err
}

// elicitedText returns content[field] of an elicitation answer.
func elicitedText(raw json.RawMessage, field string) string {
	var r mcp.ElicitResult
	_ = json.Unmarshal(raw, &r)
	if r.Action != mcp.ElicitActionAccept {
		return "(" + r.Action + ")"
	}
	return fmt.Sprint(r.Content[field])
}

func sampledText(raw json.RawMessage) string {
	var r mcp.CreateMessageResult
	_ = json.Unmarshal(raw, &r)
	var parts []string
	for _, c := range r.Content {
		if c.Type == mcp.ContentTypeText {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func addModernTools(srv *server.Server) {
	tool := func(name, desc string, h server.ToolHandler) {
		srv.AddTool(&mcp.Tool{Name: name, Description: desc, InputSchema: noArgs}, h)
	}

	tool("test_input_required_result_elicitation", "Asks the user's name (user_name), then greets them (input-required-result-basic-elicitation and others).",
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			out, _, err := ask(ctx, req, map[string]mcp.InputRequest{"user_name": elicitForm("What is your name?", nameSchema)})
			if err != nil {
				return nil, err
			}
			return text("Hello, " + elicitedText(out["user_name"], "name") + "!"), nil
		})
	tool("test_input_required_result_sampling", "Asks the client's model a question (capital_question) and returns its answer (input-required-result-basic-sampling).",
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			out, _, err := ask(ctx, req, map[string]mcp.InputRequest{"capital_question": sampling("What is the capital of France?", 100)})
			if err != nil {
				return nil, err
			}
			return text("LLM response: " + sampledText(out["capital_question"])), nil
		})
	tool("test_input_required_result_list_roots", "Asks the client for its roots (client_roots) and lists them (input-required-result-basic-list-roots).",
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			out, _, err := ask(ctx, req, map[string]mcp.InputRequest{"client_roots": rootsList})
			if err != nil {
				return nil, err
			}
			var r mcp.ListRootsResult
			_ = json.Unmarshal(out["client_roots"], &r)
			var uris []string
			for _, root := range r.Roots {
				uris = append(uris, root.URI)
			}
			return text("Client roots: " + strings.Join(uris, ", ")), nil
		})
	confirm := func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		out, _, err := ask(ctx, req, map[string]mcp.InputRequest{"confirm": elicitForm("Please confirm", confirmSchema)})
		if err != nil {
			return nil, err
		}
		return text("state-ok: the signed requestState checked out; confirmed=" + elicitedText(out["confirm"], "ok")), nil
	}
	tool("test_input_required_result_request_state", "Asks for a confirmation with a signed requestState; answers state-ok once it checks out (input-required-result-request-state).", confirm)
	tool("test_input_required_result_tampered_state", "Like test_input_required_result_request_state; a changed requestState is refused with -32602 (input-required-result-tampered-state).", confirm)
	tool("test_input_required_result_multiple_inputs", "Asks for a name, a sampled greeting and the roots in one round (input-required-result-multiple-input-requests).",
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			out, _, err := ask(ctx, req, map[string]mcp.InputRequest{
				"user_name":    elicitForm("What is your name?", nameSchema),
				"greeting":     sampling("Generate a greeting", 50),
				"client_roots": rootsList,
			})
			if err != nil {
				return nil, err
			}
			return text(fmt.Sprintf("name=%s greeting=%s roots=%s", elicitedText(out["user_name"], "name"), sampledText(out["greeting"]), out["client_roots"])), nil
		})
	tool("test_input_required_result_multi_round", "Asks for a name (step1), then for a colour (step2), one round each (input-required-result-multi-round).",
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			one, _, err := ask(ctx, req, map[string]mcp.InputRequest{"step1": elicitForm("Step 1: What is your name?", nameSchema)})
			if err != nil {
				return nil, err
			}
			two, _, err := ask(ctx, req, map[string]mcp.InputRequest{"step2": elicitForm("Step 2: What is your favorite color?",
				`{"type":"object","properties":{"color":{"type":"string"}},"required":["color"]}`)})
			if err != nil {
				return nil, err
			}
			return text(fmt.Sprintf("%s likes %s", elicitedText(one["step1"], "name"), elicitedText(two["step2"], "color"))), nil
		})
	tool("test_input_required_result_capabilities", "Asks only for the inputs the request's client capabilities allow (input-required-result-capability-check).",
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			caps := req.ClientCapabilities()
			reqs := map[string]mcp.InputRequest{}
			if caps.Elicitation != nil {
				reqs["user_name"] = elicitForm("What is your name?", nameSchema)
			}
			if caps.Sampling != nil {
				reqs["greeting"] = sampling("Generate a greeting", 50)
			}
			if caps.Roots != nil {
				reqs["client_roots"] = rootsList
			}
			if len(reqs) == 0 {
				return text("the client declared no capability to ask it anything"), nil
			}
			out, _, err := ask(ctx, req, reqs)
			if err != nil {
				return nil, err
			}
			return text("got " + plural.Count(len(out), "answer", "answers")), nil
		})

	// server-stateless (SEP-2575) diagnostics.
	tool("test_missing_capability", "Needs sampling; a request that did not declare it gets -32021 (server-stateless).",
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			out, _, err := ask(ctx, req, map[string]mcp.InputRequest{"sample": sampling("Say hello", 20)})
			if err != nil {
				return nil, err
			}
			return text("LLM response: " + sampledText(out["sample"])), nil
		})
	tool("test_streaming_elicitation", "Asks the user through input_required, never through a request on the stream (server-stateless).",
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			out, _, err := ask(ctx, req, map[string]mcp.InputRequest{"user_name": elicitForm("What is your name?", nameSchema)})
			if err != nil {
				return nil, err
			}
			return text("Hello, " + elicitedText(out["user_name"], "name") + "!"), nil
		})
	tool("test_logging_tool", "Logs three info messages, which only a request that set a log level receives (server-stateless).",
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			for _, m := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
				if err := req.Session.Log(ctx, mcp.LoggingLevelInfo, "test_logging_tool", m); err != nil {
					return nil, err
				}
			}
			return text("Tool with logging executed successfully"), nil
		})
	var changes atomic.Int64
	tool("test_trigger_tool_change", "Adds a tool, so that listen streams get notifications/tools/list_changed (server-stateless).",
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			name := fmt.Sprintf("test_dynamic_tool_%d", changes.Add(1))
			srv.AddTool(&mcp.Tool{Name: name, Description: "Added by test_trigger_tool_change.", InputSchema: noArgs},
				func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
					return text(name), nil
				})
			return text("added tool " + name), nil
		})
	tool("test_trigger_prompt_change", "Adds a prompt, so that listen streams get notifications/prompts/list_changed (server-stateless).",
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			name := fmt.Sprintf("test_dynamic_prompt_%d", changes.Add(1))
			srv.AddPrompt(&mcp.Prompt{Name: name, Description: "Added by test_trigger_prompt_change."},
				func(ctx context.Context, s *server.Session, p *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
					return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: mcp.RoleUser, Content: mcp.TextContent(name)}}}, nil
				})
			return text("added prompt " + name), nil
		})

	// http-custom-header-server-validation (SEP-2243): an argument mirrored in a header.
	srv.AddTool(&mcp.Tool{
		Name:        "test_header_param",
		Description: "Echoes its region argument, which travels in the Mcp-Param-Region header too (http-custom-header-server-validation).",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}},"required":["region"]}`),
	}, func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
		var args struct {
			Region string `json:"region"`
		}
		if err := req.Arguments(&args); err != nil {
			return toolError("%v", err), nil
		}
		return text("region=" + args.Region), nil
	})

	srv.AddPrompt(&mcp.Prompt{Name: "test_input_required_result_prompt", Description: "Asks the user for context (user_context) before rendering (input-required-result-non-tool-request)."},
		func(ctx context.Context, s *server.Session, p *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
			out, err := s.Inputs(ctx, map[string]mcp.InputRequest{"user_context": elicitForm("What context should the prompt use?",
				`{"type":"object","properties":{"context":{"type":"string"}},"required":["context"]}`)})
			if err != nil {
				return nil, err
			}
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: mcp.RoleUser,
				Content: mcp.TextContent("Use this context: " + elicitedText(out["user_context"], "context"))}}}, nil
		})
}
