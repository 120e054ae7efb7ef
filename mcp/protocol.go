package mcp

import "encoding/json"

// Role says who speaks a message or who an annotation is meant for.
type Role string

// Roles.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// Icon is an image a client may show next to an [Implementation], [Tool],
// [Prompt], [Resource] or [ResourceTemplate].
type Icon struct {
	Src      string   `json:"src"`
	MimeType string   `json:"mimeType,omitempty"`
	Sizes    []string `json:"sizes,omitempty"`
	// Theme is "light" or "dark" when the icon suits only one background.
	Theme string `json:"theme,omitempty"`
}

// Implementation names a client or server in the initialize exchange.
type Implementation struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Version     string `json:"version"`
	Description string `json:"description,omitempty"`
	WebsiteURL  string `json:"websiteUrl,omitempty"`
	Icons       []Icon `json:"icons,omitempty"`
}

// ClientCapabilities is what a client declares in [InitializeParams]. Each
// pointer field is present (non-nil) exactly when the capability was
// declared, so `{}` values round-trip.
type ClientCapabilities struct {
	Experimental map[string]json.RawMessage `json:"experimental,omitempty"`
	Roots        *RootsCapability           `json:"roots,omitempty"`
	Sampling     *SamplingCapability        `json:"sampling,omitempty"`
	Elicitation  *ElicitationCapability     `json:"elicitation,omitempty"`
	Tasks        *ClientTasksCapability     `json:"tasks,omitempty"`
	// Extensions maps an extension ID (for example [ExtensionTasks]) to its
	// settings object. Used by revision 2026-07-28.
	Extensions map[string]json.RawMessage `json:"extensions,omitempty"`
}

// RootsCapability says the client answers roots/list.
type RootsCapability struct {
	// ListChanged: the client sends notifications/roots/list_changed.
	ListChanged bool `json:"listChanged,omitempty"`
}

// SamplingCapability says the client answers sampling/createMessage.
type SamplingCapability struct {
	// Context: the client honours includeContext other than "none".
	Context *struct{} `json:"context,omitempty"`
	// Tools: the client accepts tools and toolChoice.
	Tools *struct{} `json:"tools,omitempty"`
}

// ElicitationCapability says the client answers elicitation/create.
type ElicitationCapability struct {
	Form *struct{} `json:"form,omitempty"`
	URL  *struct{} `json:"url,omitempty"`
}

// SupportsForm reports form-mode support. An empty elicitation object (the
// pre-2025-11-25 form) means form mode. Nil-safe.
func (c *ElicitationCapability) SupportsForm() bool {
	return c != nil && (c.Form != nil || c.URL == nil)
}

// SupportsURL reports URL-mode support. Nil-safe.
func (c *ElicitationCapability) SupportsURL() bool {
	return c != nil && c.URL != nil
}

// ServerCapabilities is what a server declares in [InitializeResult].
type ServerCapabilities struct {
	Experimental map[string]json.RawMessage `json:"experimental,omitempty"`
	Logging      *struct{}                  `json:"logging,omitempty"`
	Completions  *struct{}                  `json:"completions,omitempty"`
	Prompts      *PromptsCapability         `json:"prompts,omitempty"`
	Resources    *ResourcesCapability       `json:"resources,omitempty"`
	Tools        *ToolsCapability           `json:"tools,omitempty"`
	Tasks        *ServerTasksCapability     `json:"tasks,omitempty"`
	// Extensions maps an extension ID (for example [ExtensionTasks]) to its
	// settings object. Used by revision 2026-07-28 in server/discover.
	Extensions map[string]json.RawMessage `json:"extensions,omitempty"`
}

// PromptsCapability says the server offers prompts.
type PromptsCapability struct {
	ListChanged bool `json:"listChanged,omitempty"`
}

// ResourcesCapability says the server offers resources.
type ResourcesCapability struct {
	Subscribe   bool `json:"subscribe,omitempty"`
	ListChanged bool `json:"listChanged,omitempty"`
}

// ToolsCapability says the server offers tools.
type ToolsCapability struct {
	ListChanged bool `json:"listChanged,omitempty"`
}

// ServerTasksCapability is the server's `capabilities.tasks`: what it accepts
// as task receiver. Its methods are nil-safe, so
// caps.Tasks.SupportsToolCall() works when Tasks is absent.
type ServerTasksCapability struct {
	List     *struct{}           `json:"list,omitempty"`
	Cancel   *struct{}           `json:"cancel,omitempty"`
	Requests *ServerTaskRequests `json:"requests,omitempty"`
}

// ServerTaskRequests lists the server methods that accept params.task. The
// set is exhaustive: an absent method is not task-augmentable.
type ServerTaskRequests struct {
	Tools *TaskToolRequests `json:"tools,omitempty"`
}

// TaskToolRequests is `requests.tools` in [ServerTaskRequests].
type TaskToolRequests struct {
	Call *struct{} `json:"call,omitempty"`
}

// SupportsList reports whether tasks/list may be sent to the server.
func (c *ServerTasksCapability) SupportsList() bool { return c != nil && c.List != nil }

// SupportsCancel reports whether tasks/cancel may be sent to the server.
func (c *ServerTasksCapability) SupportsCancel() bool { return c != nil && c.Cancel != nil }

// SupportsToolCall reports whether tools/call may carry params.task.
func (c *ServerTasksCapability) SupportsToolCall() bool {
	return c != nil && c.Requests != nil && c.Requests.Tools != nil && c.Requests.Tools.Call != nil
}

// SupportsRequest reports whether a request with this method may be
// task-augmented towards the server.
func (c *ServerTasksCapability) SupportsRequest(method string) bool {
	return method == MethodToolsCall && c.SupportsToolCall()
}

// ClientTasksCapability is the client's `capabilities.tasks`: what it
// accepts as task receiver. Its methods are nil-safe.
type ClientTasksCapability struct {
	List     *struct{}           `json:"list,omitempty"`
	Cancel   *struct{}           `json:"cancel,omitempty"`
	Requests *ClientTaskRequests `json:"requests,omitempty"`
}

// ClientTaskRequests lists the client methods that accept params.task.
type ClientTaskRequests struct {
	Sampling    *TaskSamplingRequests    `json:"sampling,omitempty"`
	Elicitation *TaskElicitationRequests `json:"elicitation,omitempty"`
}

// TaskSamplingRequests is `requests.sampling` in [ClientTaskRequests].
type TaskSamplingRequests struct {
	CreateMessage *struct{} `json:"createMessage,omitempty"`
}

// TaskElicitationRequests is `requests.elicitation` in [ClientTaskRequests].
type TaskElicitationRequests struct {
	Create *struct{} `json:"create,omitempty"`
}

// SupportsList reports whether tasks/list may be sent to the client.
func (c *ClientTasksCapability) SupportsList() bool { return c != nil && c.List != nil }

// SupportsCancel reports whether tasks/cancel may be sent to the client.
func (c *ClientTasksCapability) SupportsCancel() bool { return c != nil && c.Cancel != nil }

// SupportsSamplingCreateMessage reports whether sampling/createMessage may
// carry params.task.
func (c *ClientTasksCapability) SupportsSamplingCreateMessage() bool {
	return c != nil && c.Requests != nil && c.Requests.Sampling != nil && c.Requests.Sampling.CreateMessage != nil
}

// SupportsElicitationCreate reports whether elicitation/create may carry
// params.task.
func (c *ClientTasksCapability) SupportsElicitationCreate() bool {
	return c != nil && c.Requests != nil && c.Requests.Elicitation != nil && c.Requests.Elicitation.Create != nil
}

// SupportsRequest reports whether a request with this method may be
// task-augmented towards the client.
func (c *ClientTasksCapability) SupportsRequest(method string) bool {
	switch method {
	case MethodSamplingCreateMessage:
		return c.SupportsSamplingCreateMessage()
	case MethodElicitationCreate:
		return c.SupportsElicitationCreate()
	}
	return false
}

// InitializeParams are the params of initialize.
type InitializeParams struct {
	ProtocolVersion string             `json:"protocolVersion"`
	Capabilities    ClientCapabilities `json:"capabilities"`
	ClientInfo      Implementation     `json:"clientInfo"`
	Meta            Meta               `json:"_meta,omitempty"`
}

// InitializeResult is the server's answer to initialize.
type InitializeResult struct {
	ProtocolVersion string             `json:"protocolVersion"`
	Capabilities    ServerCapabilities `json:"capabilities"`
	ServerInfo      Implementation     `json:"serverInfo"`
	Instructions    string             `json:"instructions,omitempty"`
	Meta            Meta               `json:"_meta,omitempty"`
}

// PingParams are the (optional) params of ping.
type PingParams struct {
	Meta Meta `json:"_meta,omitempty"`
}

// EmptyResult is a success that carries no data (ping, logging/setLevel,
// resources/subscribe, ...).
type EmptyResult struct {
	Meta Meta `json:"_meta,omitempty"`
}

// NotificationParams are the params of notifications that carry nothing but
// `_meta`: initialized and the list_changed family.
type NotificationParams struct {
	Meta Meta `json:"_meta,omitempty"`
}

// PaginatedParams are the params shared by every list request. The list
// params types below have the same shape.
type PaginatedParams struct {
	// Cursor is a previous result's NextCursor; empty asks for the first page.
	Cursor string `json:"cursor,omitempty"`
	Meta   Meta   `json:"_meta,omitempty"`
}

// Annotations are hints about how a client may use or show an object.
type Annotations struct {
	Audience []Role `json:"audience,omitempty"`
	// Priority runs from 0 (optional) to 1 (required).
	Priority *float64 `json:"priority,omitempty"`
	// LastModified is an ISO 8601 timestamp.
	LastModified string `json:"lastModified,omitempty"`
}

// nonNil returns s, or an empty slice when s is nil, so that required arrays
// encode as [] rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
