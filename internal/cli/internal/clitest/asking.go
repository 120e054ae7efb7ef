package clitest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
)

// The forms and requests of [AskingServer].
const (
	FormColor   = `{"type":"object","properties":{"color":{"type":"string","enum":["red","green"]}},"required":["color"]}`
	FormAge     = `{"type":"object","properties":{"age":{"type":"integer","minimum":0},"ok":{"type":"boolean"}},"required":["age"]}`
	FormConfirm = `{"type":"object","properties":{"yes":{"type":"boolean"}}}`
	FormName    = `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`
	FormTopic   = `{"type":"object","properties":{"topic":{"type":"string"}},"required":["topic"]}`
	// AskURL is the page ask_url asks the user to open.
	AskURL = "https://example.com/login?x=1"
)

func elicit(form string) mcp.InputRequest {
	p, _ := json.Marshal(&mcp.ElicitParams{Message: "Please fill in", RequestedSchema: json.RawMessage(form)})
	return mcp.InputRequest{Method: mcp.MethodElicitationCreate, Params: p}
}

func sample() mcp.InputRequest {
	p, _ := json.Marshal(&mcp.CreateMessageParams{MaxTokens: 20, Messages: []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: []mcp.Content{mcp.TextContent("hi")}}}})
	return mcp.InputRequest{Method: mcp.MethodSamplingCreateMessage, Params: p}
}

// answered is the answers of a round as one line of text: each key's action and
// content, or the model's reply, in key order.
func answered(got map[string]json.RawMessage) string {
	b, _ := json.Marshal(got)
	return string(b)
}

// AskingServer is a server whose tools, prompt and resource ask for the user's input as
// the servers of the TypeScript and Go SDKs do, in either era (input_required rounds in
// 2026-07-28, server requests in 2025-11-25):
//
//	ask_multi   two forms at once (keys "color" and "age"), then a third ("confirm")
//	ask_url     a URL elicitation (AskURL)
//	ask_two     a form (key "a", FormName) and sampling (key "b") at once
//	ask_prompt  (a prompt) a form (key "topic")
//	test://ask  (a resource) a form (key "topic")
//
// Each returns the answers it got as JSON text.
func AskingServer() *server.Server {
	srv := server.New(mcp.Implementation{Name: "asking", Version: "1"}, &server.Options{Modern: true})
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(s)}}
	}
	srv.AddTool(&mcp.Tool{Name: "ask_multi"}, func(ctx context.Context, r *server.ToolRequest) (*mcp.CallToolResult, error) {
		first, err := r.Session.Inputs(ctx, map[string]mcp.InputRequest{"color": elicit(FormColor), "age": elicit(FormAge)})
		if err != nil {
			return nil, err
		}
		second, err := r.Session.Inputs(ctx, map[string]mcp.InputRequest{"confirm": elicit(FormConfirm)})
		if err != nil {
			return nil, err
		}
		first["confirm"] = second["confirm"]
		return text(answered(first)), nil
	})
	srv.AddTool(&mcp.Tool{Name: "ask_url"}, func(ctx context.Context, r *server.ToolRequest) (*mcp.CallToolResult, error) {
		res, err := r.Session.Elicit(ctx, &mcp.ElicitParams{Mode: mcp.ElicitModeURL, Message: "Open this page to log in", URL: AskURL, ElicitationID: "el-1"})
		if err != nil {
			return nil, err
		}
		b, _ := json.Marshal(res)
		return text(string(b)), nil
	})
	srv.AddTool(&mcp.Tool{Name: "ask_two"}, func(ctx context.Context, r *server.ToolRequest) (*mcp.CallToolResult, error) {
		got, err := r.Session.Inputs(ctx, map[string]mcp.InputRequest{"a": elicit(FormName), "b": sample()})
		if err != nil {
			return nil, err
		}
		return text(answered(got)), nil
	})
	topic := func(ctx context.Context, s *server.Session) (string, error) {
		got, err := s.Inputs(ctx, map[string]mcp.InputRequest{"topic": elicit(FormTopic)})
		if err != nil {
			return "", err
		}
		var res mcp.ElicitResult
		if err := json.Unmarshal(got["topic"], &res); err != nil {
			return "", err
		}
		if res.Action != mcp.ElicitActionAccept {
			return "", errors.New("no topic: " + res.Action)
		}
		return fmt.Sprintf("Topic: %v", res.Content["topic"]), nil
	}
	srv.AddPrompt(&mcp.Prompt{Name: "ask_prompt"}, func(ctx context.Context, s *server.Session, _ *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
		t, err := topic(ctx, s)
		if err != nil {
			return nil, err
		}
		return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: mcp.RoleUser, Content: mcp.TextContent(t)}}}, nil
	})
	srv.AddResource(&mcp.Resource{URI: "test://ask", Name: "ask"}, func(ctx context.Context, s *server.Session, p *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
		t, err := topic(ctx, s)
		if err != nil {
			return nil, err
		}
		return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{{URI: p.URI, MimeType: "text/plain", Text: t}}}, nil
	})
	return srv
}
