package mcp

import (
	"encoding/json"
	"time"

	"github.com/mcpi-dev/mcpi/internal/jsonwire"
)

// This file holds the types of the Tasks extension of revision 2026-07-28
// (SEP-2663). That dialect is not wire-compatible with the 2025-11-25 tasks
// in tasks.go: the create result is flat and tagged with resultType, the
// durations are ttlMs/pollIntervalMs, tasks/get inlines the outcome, and
// input travels through inputRequests and tasks/update.

// ExtensionTasks is the extension ID, used as a key of
// ClientCapabilities.Extensions and ServerCapabilities.Extensions.
const ExtensionTasks = "io.modelcontextprotocol/tasks"

// ResultType is the `resultType` every 2026-07-28 result carries.
type ResultType string

// Result types. A result without resultType (from a legacy peer) counts as
// [ResultTypeComplete].
const (
	ResultTypeComplete      ResultType = "complete"
	ResultTypeInputRequired ResultType = "input_required"
	ResultTypeTask          ResultType = "task"
)

// ResultTypeOf returns the resultType of a raw result: [ResultTypeComplete]
// when the member is absent or null (a legacy peer's result), or raw is not a
// JSON object. A member that is not a string (17, {}) is returned as its raw
// text, a value no caller knows: callers must reject the values they do not
// know.
func ResultTypeOf(raw json.RawMessage) ResultType {
	// One pass over the members, without decoding them: results can be large.
	member, err := jsonwire.Member(raw, `"resultType"`)
	if err != nil || member == nil || string(member) == "null" {
		return ResultTypeComplete
	}
	if s, ok := jsonwire.String(member); ok {
		return ResultType(s)
	}
	return ResultType(member)
}

// ExtTask is a task in the extension dialect: like [Task], but with
// millisecond-suffixed names.
type ExtTask struct {
	TaskID        string     `json:"taskId"`
	Status        TaskStatus `json:"status"`
	StatusMessage string     `json:"statusMessage,omitempty"`
	CreatedAt     string     `json:"createdAt"`
	LastUpdatedAt string     `json:"lastUpdatedAt"`
	// TTLMs is always written; nil encodes as null, meaning unlimited.
	TTLMs          *int64 `json:"ttlMs"`
	PollIntervalMs *int64 `json:"pollIntervalMs,omitempty"`
}

// ToTask converts to the 2025-11-25 shape, so one client API can present
// both dialects.
func (t ExtTask) ToTask() Task {
	return Task{
		TaskID:        t.TaskID,
		Status:        t.Status,
		StatusMessage: t.StatusMessage,
		CreatedAt:     t.CreatedAt,
		LastUpdatedAt: t.LastUpdatedAt,
		TTL:           t.TTLMs,
		PollInterval:  t.PollIntervalMs,
	}
}

// ExtTaskFrom converts a 2025-11-25 [Task] to the extension shape.
func ExtTaskFrom(t Task) ExtTask {
	return ExtTask{
		TaskID:         t.TaskID,
		Status:         t.Status,
		StatusMessage:  t.StatusMessage,
		CreatedAt:      t.CreatedAt,
		LastUpdatedAt:  t.LastUpdatedAt,
		TTLMs:          t.TTL,
		PollIntervalMs: t.PollInterval,
	}
}

// PollDuration returns PollIntervalMs as a duration, or def when absent or
// not positive.
func (t ExtTask) PollDuration(def time.Duration) time.Duration {
	return t.ToTask().PollDuration(def)
}

// InputRequest is one entry of DetailedTask.InputRequests: a request the
// server would have sent itself (elicitation/create, sampling/createMessage
// or roots/list).
type InputRequest struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

// ErrorObject is a JSON-RPC error object as carried inside a result (the
// `error` of a failed [DetailedTask]).
type ErrorObject struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// DetailedTask is a task plus the field its status calls for:
// InputRequests when input_required, Result (the CallToolResult) when
// completed, Error when failed. It has a JSON decoder of its own, which a
// struct that embeds it inherits: such a struct needs its own UnmarshalJSON
// (as [ExtGetTaskResult] and [TasksNotificationParams] have).
type DetailedTask struct {
	ExtTask
	Result        json.RawMessage         `json:"result,omitempty"`
	Error         *ErrorObject            `json:"error,omitempty"`
	InputRequests map[string]InputRequest `json:"inputRequests,omitempty"`
}

// ExtCreateTaskResult is the flat create result of the extension:
// resultType "task" and the task fields at the top level.
type ExtCreateTaskResult struct {
	ResultType ResultType `json:"resultType"`
	ExtTask
	Meta Meta `json:"_meta,omitempty"`
}

// IsExtCreateTaskResult reports whether raw has resultType "task".
func IsExtCreateTaskResult(raw json.RawMessage) bool {
	return ResultTypeOf(raw) == ResultTypeTask
}

// ExtGetTaskResult is the result of tasks/get in the extension: resultType
// "complete" and a flattened [DetailedTask]. The same shape, without
// resultType, is the params of notifications/tasks.
type ExtGetTaskResult struct {
	ResultType ResultType `json:"resultType"`
	DetailedTask
	Meta Meta `json:"_meta,omitempty"`
}

// UpdateTaskParams are the params of tasks/update. Each response answers
// the InputRequests entry with the same key.
type UpdateTaskParams struct {
	TaskID         string                     `json:"taskId"`
	InputResponses map[string]json.RawMessage `json:"inputResponses"`
	Meta           Meta                       `json:"_meta,omitempty"`
}

// AckResult is the empty acknowledgement of tasks/update and tasks/cancel
// in the extension.
type AckResult struct {
	ResultType ResultType `json:"resultType"`
	Meta       Meta       `json:"_meta,omitempty"`
}

// MissingCapabilityData is the error data of
// [CodeMissingRequiredClientCapability]; RequiredCapabilities has the shape
// of [ClientCapabilities].
type MissingCapabilityData struct {
	RequiredCapabilities ClientCapabilities `json:"requiredCapabilities"`
}

// UnsupportedProtocolVersionData is the error data of
// [CodeUnsupportedProtocolVersion].
type UnsupportedProtocolVersionData struct {
	Supported []string `json:"supported"`
	Requested string   `json:"requested"`
}
