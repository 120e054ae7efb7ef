package mcp

import (
	"encoding/json"
	"reflect"

	"github.com/mcpi-dev/mcpi/internal/jsonwire/jsonwiretest"
)

// The reference the hand-written codecs are held to: encoding/json on types of the same
// names and fields as the real ones, but without their methods, which is what
// encoding/json made of the real types before they had methods.

type (
	refTask             Task
	refCallToolResult   CallToolResult
	refCallToolParams   CallToolParams
	refGetTaskParams    GetTaskParams
	refTaskResultParams TaskResultParams
	refCancelTaskParams CancelTaskParams
	refDetailedTask     DetailedTask
	refExtCreateTask    ExtCreateTaskResult
	refListenParams     ListenParams
	refListenAck        ListenAcknowledgedParams
)

// refUnmarshal is json.Unmarshal(data, v) on v's type without methods.
func refUnmarshal(data []byte, v any) error {
	type task = Task
	type Task refTask // below, Task is the reference type; task is the real one
	switch v := v.(type) {
	case *CallToolParams:
		type CallToolParams refCallToolParams
		return json.Unmarshal(data, (*CallToolParams)(v))
	case *GetTaskParams:
		type GetTaskParams refGetTaskParams
		return json.Unmarshal(data, (*GetTaskParams)(v))
	case *TaskResultParams:
		type TaskResultParams refTaskResultParams
		return json.Unmarshal(data, (*TaskResultParams)(v))
	case *CancelTaskParams:
		type CancelTaskParams refCancelTaskParams
		return json.Unmarshal(data, (*CancelTaskParams)(v))
	case *CallToolResult:
		type CallToolResult refCallToolResult
		return json.Unmarshal(data, (*CallToolResult)(v))
	case *task:
		return json.Unmarshal(data, (*Task)(v))
	case *CreateTaskResult:
		type CreateTaskResult struct {
			Task Task `json:"task"`
			Meta Meta `json:"_meta,omitempty"`
		}
		w := CreateTaskResult{Task(v.Task), v.Meta}
		err := json.Unmarshal(data, &w)
		v.Task, v.Meta = task(w.Task), w.Meta
		return err
	case *CreateTaskProbe:
		type CreateTaskProbe struct {
			Task *Task `json:"task"`
		}
		w := CreateTaskProbe{(*Task)(v.Task)}
		err := json.Unmarshal(data, &w)
		v.Task = (*task)(w.Task)
		return err
	case *GetTaskResult:
		type GetTaskResult struct {
			Task
			Meta Meta `json:"_meta,omitempty"`
		}
		w := GetTaskResult{Task(v.Task), v.Meta}
		err := json.Unmarshal(data, &w)
		v.Task, v.Meta = task(w.Task), w.Meta
		return err
	case *CancelTaskResult:
		type CancelTaskResult struct {
			Task
			Meta Meta `json:"_meta,omitempty"`
		}
		w := CancelTaskResult{Task(v.Task), v.Meta}
		err := json.Unmarshal(data, &w)
		v.Task, v.Meta = task(w.Task), w.Meta
		return err
	case *TaskStatusNotificationParams:
		type TaskStatusNotificationParams struct {
			Task
			Meta Meta `json:"_meta,omitempty"`
		}
		w := TaskStatusNotificationParams{Task(v.Task), v.Meta}
		err := json.Unmarshal(data, &w)
		v.Task, v.Meta = task(w.Task), w.Meta
		return err
	case *DetailedTask:
		type DetailedTask refDetailedTask
		return json.Unmarshal(data, (*DetailedTask)(v))
	case *ExtCreateTaskResult:
		type ExtCreateTaskResult refExtCreateTask
		return json.Unmarshal(data, (*ExtCreateTaskResult)(v))
	case *ExtGetTaskResult:
		type detailedTask = DetailedTask
		type DetailedTask refDetailedTask
		type ExtGetTaskResult struct {
			ResultType ResultType `json:"resultType"`
			DetailedTask
			Meta Meta `json:"_meta,omitempty"`
		}
		w := ExtGetTaskResult{v.ResultType, DetailedTask(v.DetailedTask), v.Meta}
		err := json.Unmarshal(data, &w)
		v.ResultType, v.DetailedTask, v.Meta = w.ResultType, detailedTask(w.DetailedTask), w.Meta
		return err
	case *ListenParams:
		type ListenParams refListenParams
		return json.Unmarshal(data, (*ListenParams)(v))
	case *ListenAcknowledgedParams:
		type ListenAcknowledgedParams refListenAck
		return json.Unmarshal(data, (*ListenAcknowledgedParams)(v))
	case *TasksNotificationParams:
		type detailedTask = DetailedTask
		type DetailedTask refDetailedTask
		type TasksNotificationParams struct {
			DetailedTask
			Meta Meta `json:"_meta,omitempty"`
		}
		w := TasksNotificationParams{DetailedTask(v.DetailedTask), v.Meta}
		err := json.Unmarshal(data, &w)
		v.DetailedTask, v.Meta = detailedTask(w.DetailedTask), w.Meta
		return err
	}
	panic("refUnmarshal: no reference for this type")
}

// refMarshal is json.Marshal(v) with HTML escaping off, on v's type without methods. A
// nil pointer is null.
func refMarshal(v any) ([]byte, error) {
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return []byte("null"), nil
		}
		v = rv.Elem().Interface()
	}
	type task = Task
	type Task refTask // below, Task is the reference type; task is the real one
	type flat struct {
		Task
		Meta Meta `json:"_meta,omitempty"`
	}
	var w any
	switch v := v.(type) {
	case CallToolParams:
		w = refCallToolParams(v)
	case GetTaskParams:
		w = refGetTaskParams(v)
	case TaskResultParams:
		w = refTaskResultParams(v)
	case CancelTaskParams:
		w = refCancelTaskParams(v)
	case task:
		w = Task(v)
	case CreateTaskResult:
		w = struct {
			Task Task `json:"task"`
			Meta Meta `json:"_meta,omitempty"`
		}{Task(v.Task), v.Meta}
	case GetTaskResult:
		w = flat{Task(v.Task), v.Meta}
	case CancelTaskResult:
		w = flat{Task(v.Task), v.Meta}
	case TaskStatusNotificationParams:
		w = flat{Task(v.Task), v.Meta}
	case ExtCreateTaskResult:
		w = refExtCreateTask(v)
	case ListenParams:
		w = refListenParams(v)
	case ListenAcknowledgedParams:
		w = refListenAck(v)
	case ExtGetTaskResult:
		type DetailedTask refDetailedTask
		w = struct {
			ResultType ResultType `json:"resultType"`
			DetailedTask
			Meta Meta `json:"_meta,omitempty"`
		}{v.ResultType, DetailedTask(v.DetailedTask), v.Meta}
	case TasksNotificationParams:
		type DetailedTask refDetailedTask
		w = struct {
			DetailedTask
			Meta Meta `json:"_meta,omitempty"`
		}{DetailedTask(v.DetailedTask), v.Meta}
	default:
		panic("refMarshal: no reference for this type")
	}
	return jsonwiretest.Marshal(w)
}
