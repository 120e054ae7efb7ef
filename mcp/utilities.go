package mcp

import (
	"encoding/json"

	"github.com/mcpi-dev/mcpi/internal/jsonwire"
)

// LoggingLevel is a syslog (RFC 5424) severity.
type LoggingLevel string

// Logging levels, least to most severe.
const (
	LoggingLevelDebug     LoggingLevel = "debug"
	LoggingLevelInfo      LoggingLevel = "info"
	LoggingLevelNotice    LoggingLevel = "notice"
	LoggingLevelWarning   LoggingLevel = "warning"
	LoggingLevelError     LoggingLevel = "error"
	LoggingLevelCritical  LoggingLevel = "critical"
	LoggingLevelAlert     LoggingLevel = "alert"
	LoggingLevelEmergency LoggingLevel = "emergency"
)

// Severity returns 0 (debug) to 7 (emergency), or -1 for an unknown level,
// so that levels can be compared.
func (l LoggingLevel) Severity() int {
	switch l {
	case LoggingLevelDebug:
		return 0
	case LoggingLevelInfo:
		return 1
	case LoggingLevelNotice:
		return 2
	case LoggingLevelWarning:
		return 3
	case LoggingLevelError:
		return 4
	case LoggingLevelCritical:
		return 5
	case LoggingLevelAlert:
		return 6
	case LoggingLevelEmergency:
		return 7
	}
	return -1
}

// SetLevelParams are the params of logging/setLevel.
type SetLevelParams struct {
	Level LoggingLevel `json:"level"`
	Meta  Meta         `json:"_meta,omitempty"`
}

// LoggingMessageNotificationParams are the params of notifications/message.
type LoggingMessageNotificationParams struct {
	Level  LoggingLevel `json:"level"`
	Logger string       `json:"logger,omitempty"`
	// Data is any JSON value; it is required, so nil encodes as null.
	Data json.RawMessage `json:"data"`
	Meta Meta            `json:"_meta,omitempty"`
}

// Completion reference types (CompleteReference.Type).
const (
	RefTypePrompt   = "ref/prompt"
	RefTypeResource = "ref/resource"
)

// CompleteParams are the params of completion/complete.
type CompleteParams struct {
	Ref      CompleteReference `json:"ref"`
	Argument CompleteArgument  `json:"argument"`
	Context  *CompleteContext  `json:"context,omitempty"`
	Meta     Meta              `json:"_meta,omitempty"`
}

// CompleteReference names what is being completed: a prompt (Type
// [RefTypePrompt], Name) or a resource template (Type [RefTypeResource],
// URI).
type CompleteReference struct {
	Type  string `json:"type"`
	Name  string `json:"name,omitempty"`
	Title string `json:"title,omitempty"`
	URI   string `json:"uri,omitempty"`
}

// CompleteArgument is the argument being completed and its partial value.
type CompleteArgument struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// CompleteContext carries arguments already resolved.
type CompleteContext struct {
	Arguments map[string]string `json:"arguments,omitempty"`
}

// CompleteResult is the result of completion/complete.
type CompleteResult struct {
	Completion Completion `json:"completion"`
	Meta       Meta       `json:"_meta,omitempty"`
}

// Completion holds up to 100 suggested values.
type Completion struct {
	// Values is required; nil encodes as [].
	Values  []string `json:"values"`
	Total   *int64   `json:"total,omitempty"`
	HasMore bool     `json:"hasMore,omitempty"`
}

// MarshalJSON writes a nil Values as [].
func (c Completion) MarshalJSON() ([]byte, error) {
	type wire Completion
	w := wire(c)
	w.Values = nonNil(w.Values)
	return jsonwire.Marshal(w)
}

// Root is a directory or file the client lets the server work on.
type Root struct {
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
	Meta Meta   `json:"_meta,omitempty"`
}

// ListRootsParams are the (optional) params of roots/list.
type ListRootsParams struct {
	Meta Meta `json:"_meta,omitempty"`
}

// ListRootsResult is the result of roots/list.
type ListRootsResult struct {
	Roots []Root `json:"roots"`
	Meta  Meta   `json:"_meta,omitempty"`
}

// MarshalJSON writes a nil Roots as [].
func (r ListRootsResult) MarshalJSON() ([]byte, error) {
	type wire ListRootsResult
	w := wire(r)
	w.Roots = nonNil(w.Roots)
	return jsonwire.Marshal(w)
}

// ProgressNotificationParams are the params of notifications/progress.
type ProgressNotificationParams struct {
	// ProgressToken echoes the request's `_meta.progressToken`. Decoding
	// normalises it like [NormalizeID]: a string or an int64.
	ProgressToken any      `json:"progressToken"`
	Progress      float64  `json:"progress"`
	Total         *float64 `json:"total,omitempty"`
	Message       string   `json:"message,omitempty"`
	Meta          Meta     `json:"_meta,omitempty"`
}

// UnmarshalJSON normalises ProgressToken.
func (p *ProgressNotificationParams) UnmarshalJSON(data []byte) error {
	type wire ProgressNotificationParams
	var w struct {
		wire
		ProgressToken json.RawMessage `json:"progressToken"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	tok, err := decodeID(w.ProgressToken)
	if err != nil {
		return err
	}
	*p = ProgressNotificationParams(w.wire)
	p.ProgressToken = tok
	return nil
}

// CancelledNotificationParams are the params of notifications/cancelled.
// They cancel an in-flight request, never a task (use tasks/cancel).
type CancelledNotificationParams struct {
	// RequestID is the ID of the request to cancel. Decoding normalises it
	// like [NormalizeID]: a string or an int64.
	RequestID any    `json:"requestId,omitempty"`
	Reason    string `json:"reason,omitempty"`
	Meta      Meta   `json:"_meta,omitempty"`
}

// UnmarshalJSON normalises RequestID.
func (p *CancelledNotificationParams) UnmarshalJSON(data []byte) error {
	type wire CancelledNotificationParams
	var w struct {
		wire
		RequestID json.RawMessage `json:"requestId"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	id, err := decodeID(w.RequestID)
	if err != nil {
		return err
	}
	*p = CancelledNotificationParams(w.wire)
	p.RequestID = id
	return nil
}
