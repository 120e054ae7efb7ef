package mcp

import (
	"encoding/json"
	"slices"
)

// This file holds the core types of revision 2026-07-28 (the "modern" era): no
// initialize, per-request _meta, server/discover, resultType on every result,
// multi-round-trip requests (MRTR: input_required, inputRequests, requestState)
// and subscriptions/listen. The Tasks extension's types are in tasks_ext.go.

// ModernProtocolVersions are the revisions without an initialize handshake
// that this package speaks, newest first.
var ModernProtocolVersions = []string{ProtocolVersion20260728}

// IsModernProtocolVersion reports whether v is a revision of the modern era
// that this package speaks.
func IsModernProtocolVersion(v string) bool { return slices.Contains(ModernProtocolVersions, v) }

// DiscoverParams are the params of server/discover: nothing but the
// per-request _meta.
type DiscoverParams struct {
	Meta Meta `json:"_meta,omitempty"`
}

// DiscoverResult is what a 2026-07-28 server says about itself. Its name and
// version travel in _meta under [MetaServerInfo] (see [DiscoverResult.ServerInfo]).
type DiscoverResult struct {
	ResultType        ResultType         `json:"resultType,omitempty"`
	SupportedVersions []string           `json:"supportedVersions"`
	Capabilities      ServerCapabilities `json:"capabilities"`
	Instructions      string             `json:"instructions,omitempty"`
	// TTLMs and CacheScope say how long and for whom the result may be cached.
	TTLMs      *int64 `json:"ttlMs,omitempty"`
	CacheScope string `json:"cacheScope,omitempty"`
	Meta       Meta   `json:"_meta,omitempty"`
}

// ServerInfo returns the [Implementation] under [MetaServerInfo] in the
// result's _meta, and whether there was a readable one.
func (r *DiscoverResult) ServerInfo() (Implementation, bool) {
	return ServerInfoOf(r.Meta)
}

// ServerInfoOf reads the [Implementation] a 2026-07-28 server puts under
// [MetaServerInfo] in a result's _meta.
func ServerInfoOf(m Meta) (Implementation, bool) {
	v, ok := m[MetaServerInfo]
	if !ok {
		return Implementation{}, false
	}
	b, err := json.Marshal(v)
	if err != nil {
		return Implementation{}, false
	}
	var impl Implementation
	if json.Unmarshal(b, &impl) != nil {
		return Implementation{}, false
	}
	return impl, true
}

// InputRequiredResult is a 2026-07-28 server's way of asking for input: the
// client answers InputRequests and sends the request again, with a new id,
// the answers as inputResponses and RequestState exactly as it came.
type InputRequiredResult struct {
	ResultType    ResultType              `json:"resultType"`
	InputRequests map[string]InputRequest `json:"inputRequests,omitempty"`
	// RequestState is nil when the server sent none; the retry then carries
	// none either.
	RequestState *string `json:"requestState,omitempty"`
	Meta         Meta    `json:"_meta,omitempty"`
}

// InputResponseParams are the members an MRTR retry adds to the request's
// own params.
type InputResponseParams struct {
	InputResponses map[string]json.RawMessage `json:"inputResponses,omitempty"`
	RequestState   *string                    `json:"requestState,omitempty"`
}

// CanRequireInput reports whether a result of method may be input_required:
// only tools/call, prompts/get and resources/read may.
func CanRequireInput(method string) bool {
	switch method {
	case MethodToolsCall, MethodPromptsGet, MethodResourcesRead:
		return true
	}
	return false
}

// ListenParams are the params of subscriptions/listen.
type ListenParams struct {
	Notifications ListenFilter `json:"notifications"`
	Meta          Meta         `json:"_meta,omitempty"`
}

// ListenFilter says which notifications a subscriptions/listen stream
// carries; the server's acknowledgement repeats what it accepted.
type ListenFilter struct {
	ToolsListChanged      bool     `json:"toolsListChanged,omitempty"`
	PromptsListChanged    bool     `json:"promptsListChanged,omitempty"`
	ResourcesListChanged  bool     `json:"resourcesListChanged,omitempty"`
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
	// TaskIDs is added by the Tasks extension: notifications/tasks for these
	// tasks.
	TaskIDs []string `json:"taskIds,omitempty"`
}

// ListenAcknowledgedParams are the params of
// notifications/subscriptions/acknowledged.
type ListenAcknowledgedParams struct {
	Notifications ListenFilter `json:"notifications"`
	Meta          Meta         `json:"_meta,omitempty"`
}

// SubscriptionID returns the id of the subscriptions/listen request a
// notification belongs to, from its _meta.
func (m Meta) SubscriptionID() (any, bool) {
	v, ok := m[MetaSubscriptionID]
	if !ok {
		return nil, false
	}
	return NormalizeID(v)
}
