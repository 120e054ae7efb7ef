package mcp

import (
	"encoding/json"

	"github.com/mcpi-dev/mcpi/internal/jsonwire"
)

// TaskSupport is a tool's `execution.taskSupport`: whether tools/call for it
// may, must or must not be task-augmented (in revision 2025-11-25).
type TaskSupport string

// Task support levels.
const (
	TaskSupportForbidden TaskSupport = "forbidden"
	TaskSupportOptional  TaskSupport = "optional"
	TaskSupportRequired  TaskSupport = "required"
)

// Tool describes a tool a server offers, as listed by tools/list.
type Tool struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// InputSchema is a JSON Schema object. It is required; a nil value
	// encodes as {"type":"object"}.
	InputSchema  json.RawMessage  `json:"inputSchema"`
	OutputSchema json.RawMessage  `json:"outputSchema,omitempty"`
	Annotations  *ToolAnnotations `json:"annotations,omitempty"`
	Execution    *ToolExecution   `json:"execution,omitempty"`
	Icons        []Icon           `json:"icons,omitempty"`
	Meta         Meta             `json:"_meta,omitempty"`
}

// ToolAnnotations are untrusted hints about a tool's behaviour. The boolean
// hints are pointers because their defaults differ (destructive and
// open-world default to true).
type ToolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// ToolExecution is a tool's `execution` object.
type ToolExecution struct {
	TaskSupport TaskSupport `json:"taskSupport,omitempty"`
}

// TaskSupport returns the tool's effective task support: the declared
// value, or [TaskSupportForbidden] when it is absent or unknown. Nil-safe.
// Read Execution.TaskSupport for the raw value.
func (t *Tool) TaskSupport() TaskSupport {
	if t == nil || t.Execution == nil {
		return TaskSupportForbidden
	}
	switch s := t.Execution.TaskSupport; s {
	case TaskSupportOptional, TaskSupportRequired:
		return s
	}
	return TaskSupportForbidden
}

// DisplayName returns the name to show: title, then annotations.title, then
// name.
func (t *Tool) DisplayName() string {
	switch {
	case t.Title != "":
		return t.Title
	case t.Annotations != nil && t.Annotations.Title != "":
		return t.Annotations.Title
	}
	return t.Name
}

// MarshalJSON fills in a missing InputSchema.
func (t Tool) MarshalJSON() ([]byte, error) {
	type wire Tool
	w := wire(t)
	if len(w.InputSchema) == 0 {
		w.InputSchema = json.RawMessage(`{"type":"object"}`)
	}
	return jsonwire.Marshal(w)
}

// ListToolsParams are the params of tools/list.
type ListToolsParams PaginatedParams

// ListToolsResult is the result of tools/list.
type ListToolsResult struct {
	Tools      []Tool `json:"tools"`
	NextCursor string `json:"nextCursor,omitempty"`
	Meta       Meta   `json:"_meta,omitempty"`
}

// MarshalJSON writes a nil Tools as [].
func (r ListToolsResult) MarshalJSON() ([]byte, error) {
	type wire ListToolsResult
	w := wire(r)
	w.Tools = nonNil(w.Tools)
	return jsonwire.Marshal(w)
}

// CallToolParams are the params of tools/call.
type CallToolParams struct {
	Name string `json:"name"`
	// Arguments is a JSON object, passed through untouched.
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Task, when non-nil, asks for task-augmented execution; the receiver
	// then answers with a [CreateTaskResult].
	Task *TaskMetadata `json:"task,omitempty"`
	Meta Meta          `json:"_meta,omitempty"`
}

// CallToolResult is the result of tools/call (and of tasks/result for a
// tool task).
type CallToolResult struct {
	// Content is required; nil encodes as [].
	Content           []Content       `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	// IsError marks a tool-level failure the model should see. false is
	// omitted on encoding.
	IsError bool `json:"isError,omitempty"`
	Meta    Meta `json:"_meta,omitempty"`
}

// MarshalJSON writes a nil Content as [], and the common case, text blocks, directly: a
// tool result is encoded for every tools/call.
func (r CallToolResult) MarshalJSON() ([]byte, error) {
	n := 64 + len(r.StructuredContent)
	for i := range r.Content {
		n += 32 + len(r.Content[i].Text)
	}
	b, err := r.appendJSON(make([]byte, 0, n))
	if err != nil {
		// The general path returns the error encoding/json would.
		return r.marshalWire()
	}
	return b, nil
}

func (r *CallToolResult) appendJSON(b []byte) ([]byte, error) {
	var err error
	b = append(b, `{"content":[`...)
	for i := range r.Content {
		if i > 0 {
			b = append(b, ',')
		}
		if b, err = r.Content[i].appendJSON(b); err != nil {
			return nil, err
		}
	}
	b = append(b, ']')
	if len(r.StructuredContent) > 0 {
		b = append(b, `,"structuredContent":`...)
		if b, err = jsonwire.AppendRaw(b, r.StructuredContent); err != nil {
			return nil, err
		}
	}
	if r.IsError {
		b = append(b, `,"isError":true`...)
	}
	return appendMeta(b, r.Meta)
}

func (r CallToolResult) marshalWire() ([]byte, error) {
	type wire CallToolResult
	w := wire(r)
	w.Content = nonNil(w.Content)
	return jsonwire.Marshal(w)
}
