package demo

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
)

// Languages are the completions of the greet prompt's language argument.
var Languages = []string{"Dutch", "English", "French", "German", "Italian", "Japanese", "Portuguese", "Spanish"}

// Names are the completions of the greet prompt's name argument and of the greetings
// template's name variable.
var Names = []string{"Ada", "Alan", "Barbara", "Donald", "Edsger", "Grace", "Ken", "Margaret"}

const aboutText = `# mcpi demo server

This server exists to be inspected. Its tools cover the protocol's moving parts:

- echo and add: plain calls (add also returns structured content);
- slow: progress notifications and cancellation;
- ask_user and ask_model: requests from the server to the client (elicitation, sampling);
- log_levels: log messages, filtered by logging/setLevel;
- bench_stats: counters for benchmarks.

Read demo://greetings/{name} for a resource template, and try completion on the greet prompt.
`

func (d *demo) addPromptsAndResources(srv *server.Server) {
	srv.AddPrompt(&mcp.Prompt{
		Name:        PromptGreet,
		Title:       "Greet someone",
		Description: "Asks the model for a short, friendly greeting for someone, optionally in a given language.",
		Arguments: []mcp.PromptArgument{
			{Name: "name", Title: "Name", Description: "Who to greet.", Required: true},
			{Name: "language", Title: "Language", Description: "The language of the greeting (default English)."},
		},
	}, d.greet)

	srv.AddResource(&mcp.Resource{
		URI:         ResourceAbout,
		Name:        "about",
		Title:       "About the demo server",
		Description: "What the demo server offers.",
		MimeType:    "text/markdown",
		Size:        ptr(int64(len(aboutText))),
	}, func(ctx context.Context, s *server.Session, p *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{
			mcp.TextResourceContents(ResourceAbout, "text/markdown", aboutText),
		}}, nil
	})

	srv.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: TemplateGreeting,
		Name:        "greeting",
		Title:       "A greeting",
		Description: "A one-line greeting for the name in the URI.",
		MimeType:    "text/plain",
	}, func(ctx context.Context, s *server.Session, p *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
		name, ok := strings.CutPrefix(p.URI, "demo://greetings/")
		if !ok || name == "" || strings.Contains(name, "/") {
			return nil, jsonrpc.Errorf(-32002, "resource not found: %s", p.URI)
		}
		return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{
			mcp.TextResourceContents(p.URI, "text/plain", fmt.Sprintf("Hello, %s!", name)),
		}}, nil
	})
}

func (d *demo) greet(ctx context.Context, s *server.Session, p *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
	name := strings.TrimSpace(p.Arguments["name"])
	if name == "" {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "greet needs a non-empty name")
	}
	lang := strings.TrimSpace(p.Arguments["language"])
	if lang == "" {
		lang = "English"
	}
	return &mcp.GetPromptResult{
		Description: fmt.Sprintf("A greeting for %s in %s", name, lang),
		Messages: []mcp.PromptMessage{{
			Role:    mcp.RoleUser,
			Content: mcp.TextContent(fmt.Sprintf("Please write a short, friendly greeting for %s in %s.", name, lang)),
		}},
	}, nil
}

// complete suggests values for the greet prompt's arguments and the greetings template's
// name: the candidates that start with what was typed, ignoring case.
func (d *demo) complete(ctx context.Context, s *server.Session, p *mcp.CompleteParams) (*mcp.CompleteResult, error) {
	var candidates []string
	switch {
	case p.Ref.Type == mcp.RefTypePrompt && p.Ref.Name == PromptGreet:
		switch p.Argument.Name {
		case "name":
			candidates = Names
		case "language":
			candidates = Languages
		default:
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "prompt %s has no argument %q", PromptGreet, p.Argument.Name)
		}
	case p.Ref.Type == mcp.RefTypeResource && p.Ref.URI == TemplateGreeting:
		if p.Argument.Name != "name" {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "template %s has no variable %q", TemplateGreeting, p.Argument.Name)
		}
		candidates = Names
	case p.Ref.Type == mcp.RefTypePrompt:
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "unknown prompt %q", p.Ref.Name)
	case p.Ref.Type == mcp.RefTypeResource:
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "no resource template %q", p.Ref.URI)
	default:
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "unknown completion reference type %q", p.Ref.Type)
	}
	prefix := strings.ToLower(p.Argument.Value)
	values := []string{}
	for _, c := range candidates {
		if strings.HasPrefix(strings.ToLower(c), prefix) {
			values = append(values, c)
		}
	}
	total := int64(len(values))
	return &mcp.CompleteResult{Completion: mcp.Completion{Values: slices.Clip(values), Total: &total}}, nil
}
