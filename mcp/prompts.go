package mcp

import "github.com/mcpi-dev/mcpi/internal/jsonwire"

// Prompt describes a prompt or prompt template, as listed by prompts/list.
type Prompt struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
	Icons       []Icon           `json:"icons,omitempty"`
	Meta        Meta             `json:"_meta,omitempty"`
}

// PromptArgument is one templating argument of a [Prompt].
type PromptArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// ListPromptsParams are the params of prompts/list.
type ListPromptsParams PaginatedParams

// ListPromptsResult is the result of prompts/list.
type ListPromptsResult struct {
	Prompts    []Prompt `json:"prompts"`
	NextCursor string   `json:"nextCursor,omitempty"`
	Meta       Meta     `json:"_meta,omitempty"`
}

// MarshalJSON writes a nil Prompts as [].
func (r ListPromptsResult) MarshalJSON() ([]byte, error) {
	type wire ListPromptsResult
	w := wire(r)
	w.Prompts = nonNil(w.Prompts)
	return jsonwire.Marshal(w)
}

// GetPromptParams are the params of prompts/get.
type GetPromptParams struct {
	Name      string            `json:"name"`
	Arguments map[string]string `json:"arguments,omitempty"`
	Meta      Meta              `json:"_meta,omitempty"`
}

// GetPromptResult is the result of prompts/get.
type GetPromptResult struct {
	Description string          `json:"description,omitempty"`
	Messages    []PromptMessage `json:"messages"`
	Meta        Meta            `json:"_meta,omitempty"`
}

// MarshalJSON writes a nil Messages as [].
func (r GetPromptResult) MarshalJSON() ([]byte, error) {
	type wire GetPromptResult
	w := wire(r)
	w.Messages = nonNil(w.Messages)
	return jsonwire.Marshal(w)
}

// PromptMessage is one message of a [GetPromptResult]; unlike a
// [SamplingMessage] it holds exactly one block, which may be a resource.
type PromptMessage struct {
	Role    Role    `json:"role"`
	Content Content `json:"content"`
}
