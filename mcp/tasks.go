package mcp

import (
	"encoding/json"
	"math"
	"time"

	"github.com/mcpi-dev/mcpi/internal/jsonwire"
)

// TaskStatus is the state of a task in revision 2025-11-25 (the
// [ExtensionTasks] dialect uses the same values).
type TaskStatus string

// Task statuses. A task starts in working; completed, failed and cancelled
// are terminal.
const (
	TaskStatusWorking       TaskStatus = "working"
	TaskStatusInputRequired TaskStatus = "input_required"
	TaskStatusCompleted     TaskStatus = "completed"
	TaskStatusFailed        TaskStatus = "failed"
	TaskStatusCancelled     TaskStatus = "cancelled"
)

// IsTerminal reports whether s is completed, failed or cancelled: a status
// that never changes again.
func (s TaskStatus) IsTerminal() bool {
	switch s {
	case TaskStatusCompleted, TaskStatusFailed, TaskStatusCancelled:
		return true
	}
	return false
}

// IsValid reports whether s is one of the five defined statuses.
func (s TaskStatus) IsValid() bool {
	return s == TaskStatusWorking || s == TaskStatusInputRequired || s.IsTerminal()
}

// ValidTransition reports whether a task may move from one status to
// another:
//
//	""             -> working (creation)
//	working        -> input_required | completed | failed | cancelled
//	input_required -> working | completed | failed | cancelled
//
// Terminal statuses never change. Staying in the same non-terminal status is
// allowed, since an update may change only the status message. Unknown
// statuses are never valid.
func ValidTransition(from, to TaskStatus) bool {
	if !to.IsValid() {
		return false
	}
	switch from {
	case "":
		return to == TaskStatusWorking
	case TaskStatusWorking, TaskStatusInputRequired:
		return true
	}
	return false
}

// TaskMetadata is params.task of a task-augmented request. An empty value
// (`{}`) asks for a task with the receiver's default lifetime.
type TaskMetadata struct {
	// TTL is the requested lifetime in milliseconds, counted from creation.
	TTL *int64 `json:"ttl,omitempty"`
}

// RelatedTaskMetadata is the value under [MetaRelatedTask].
type RelatedTaskMetadata struct {
	TaskID string `json:"taskId"`
}

// Task is the state of one task as the receiver reports it. It appears
// wrapped in [CreateTaskResult], flattened in [GetTaskResult],
// [CancelTaskResult] and [TaskStatusNotificationParams], and in lists.
type Task struct {
	TaskID        string     `json:"taskId"`
	Status        TaskStatus `json:"status"`
	StatusMessage string     `json:"statusMessage,omitempty"`
	// CreatedAt and LastUpdatedAt are RFC 3339 timestamps; see [FormatTime].
	CreatedAt     string `json:"createdAt"`
	LastUpdatedAt string `json:"lastUpdatedAt"`
	// TTL is the actual lifetime in milliseconds from creation. The key is
	// always written; nil encodes as null, meaning unlimited.
	TTL *int64 `json:"ttl"`
	// PollInterval is the suggested polling interval in milliseconds.
	PollInterval *int64 `json:"pollInterval,omitempty"`
}

// FormatTime formats t as the RFC 3339 UTC timestamp used in task fields.
func FormatTime(t time.Time) string {
	return t.UTC().Format(time.RFC3339Nano)
}

// ParseTime parses a task timestamp (RFC 3339, with or without fractional
// seconds).
func ParseTime(s string) (time.Time, error) {
	return time.Parse(time.RFC3339Nano, s)
}

// Milliseconds converts a count of milliseconds from the wire (a ttl, a
// pollInterval) to a duration that saturates instead of wrapping: a count
// beyond what a time.Duration holds (about 292 years) gives the longest
// duration, and a negative count gives 0. A peer may send any int64, and
// multiplying it by time.Millisecond overflows from about 9.2e12 on.
// Callers bound the result further to what makes sense to wait.
func Milliseconds(ms int64) time.Duration {
	switch {
	case ms <= 0:
		return 0
	case ms > math.MaxInt64/int64(time.Millisecond):
		return math.MaxInt64
	}
	return time.Duration(ms) * time.Millisecond
}

// ExpiresAt returns CreatedAt plus TTL; ok is false when TTL is null
// (unlimited) or CreatedAt cannot be parsed. A TTL too long for a
// time.Duration counts as the longest one.
func (t Task) ExpiresAt() (at time.Time, ok bool) {
	if t.TTL == nil {
		return time.Time{}, false
	}
	c, err := ParseTime(t.CreatedAt)
	if err != nil {
		return time.Time{}, false
	}
	return c.Add(Milliseconds(*t.TTL)), true
}

// PollDuration returns PollInterval as a duration (see [Milliseconds]), or
// def when absent or not positive.
func (t Task) PollDuration(def time.Duration) time.Duration {
	if t.PollInterval == nil || *t.PollInterval <= 0 {
		return def
	}
	return Milliseconds(*t.PollInterval)
}

// CreateTaskResult is what a receiver returns at once for a task-augmented
// request. The task is wrapped under "task"; the real result comes later
// from tasks/result.
type CreateTaskResult struct {
	Task Task `json:"task"`
	Meta Meta `json:"_meta,omitempty"`
}

// CreateTaskProbe is what a requestor decodes the result of a task-augmented request
// into, to tell a [CreateTaskResult] from a plain result in one decode: Task is nil when
// the result has no "task" object. Unlike CreateTaskResult, it tells an absent or null
// "task" from an empty one; _meta and other members are ignored.
type CreateTaskProbe struct {
	Task *Task `json:"task"`
}

// IsCreateTaskResult reports whether raw (a JSON-RPC result) is a
// [CreateTaskResult], recognised by a string at result.task.taskId. The
// 2025-11-25 result unions omit CreateTaskResult, and a receiver that did not
// declare task support answers with a plain result instead, so requestors
// must look.
func IsCreateTaskResult(raw json.RawMessage) bool {
	var probe struct {
		Task *struct {
			TaskID *string `json:"taskId"`
		} `json:"task"`
	}
	if err := json.Unmarshal(raw, &probe); err != nil {
		return false
	}
	return probe.Task != nil && probe.Task.TaskID != nil
}

// GetTaskParams are the params of tasks/get.
type GetTaskParams struct {
	TaskID string `json:"taskId"`
	Meta   Meta   `json:"_meta,omitempty"`
}

// GetTaskResult is the result of tasks/get: the [Task] fields at the top
// level, plus `_meta`.
type GetTaskResult struct {
	Task
	Meta Meta `json:"_meta,omitempty"`
}

// TaskResultParams are the params of tasks/result. Its result is the
// original request's result (for example a [CallToolResult]) carrying
// [MetaRelatedTask], or the original error.
type TaskResultParams struct {
	TaskID string `json:"taskId"`
	Meta   Meta   `json:"_meta,omitempty"`
}

// ListTasksParams are the params of tasks/list.
type ListTasksParams PaginatedParams

// ListTasksResult is the result of tasks/list.
type ListTasksResult struct {
	Tasks      []Task `json:"tasks"`
	NextCursor string `json:"nextCursor,omitempty"`
	Meta       Meta   `json:"_meta,omitempty"`
}

// MarshalJSON writes a nil Tasks as [].
func (r ListTasksResult) MarshalJSON() ([]byte, error) {
	type wire ListTasksResult
	w := wire(r)
	w.Tasks = nonNil(w.Tasks)
	return jsonwire.Marshal(w)
}

// CancelTaskParams are the params of tasks/cancel.
type CancelTaskParams struct {
	TaskID string `json:"taskId"`
	Meta   Meta   `json:"_meta,omitempty"`
}

// CancelTaskResult is the result of tasks/cancel: the flattened [Task], in
// status cancelled, plus `_meta`.
type CancelTaskResult struct {
	Task
	Meta Meta `json:"_meta,omitempty"`
}

// TaskStatusNotificationParams are the params of notifications/tasks/status:
// the flattened [Task], plus `_meta`.
type TaskStatusNotificationParams struct {
	Task
	Meta Meta `json:"_meta,omitempty"`
}
