package mcp

import (
	"encoding/json"
	"reflect"

	"github.com/mcpi-dev/mcpi/internal/jsonwire/jsonwiretest"
)

// The reference the hand-written codecs are held to: encoding/json on types of the same
// names and fields as the real ones, but without their methods, which is what
// encoding/json made of the real types before they had methods; but for their integers,
// which take any JSON number (wireInt).

type (
	refTask             plainTask
	refMarshalTask      Task // encodes as refTask does
	refDetailedTask     DetailedTask
	refExtCreateTask    ExtCreateTaskResult
	refCallToolResult   CallToolResult
	refCallToolParams   CallToolParams
	refGetTaskParams    GetTaskParams
	refTaskResultParams TaskResultParams
	refCancelTaskParams CancelTaskParams
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
		w := Task(plainOf(*v))
		err := json.Unmarshal(data, &w)
		*v = plainTask(w).task()
		return err
	case *CreateTaskResult:
		type CreateTaskResult struct {
			Task Task `json:"task"`
			Meta Meta `json:"_meta,omitempty"`
		}
		w := CreateTaskResult{Task(plainOf(v.Task)), v.Meta}
		err := json.Unmarshal(data, &w)
		v.Task, v.Meta = plainTask(w.Task).task(), w.Meta
		return err
	case *CreateTaskProbe:
		type CreateTaskProbe struct {
			Task *Task `json:"task"`
		}
		var w CreateTaskProbe
		if v.Task != nil {
			t := Task(plainOf(*v.Task))
			w.Task = &t
		}
		err := json.Unmarshal(data, &w)
		v.Task = nil
		if w.Task != nil {
			t := plainTask(*w.Task).task()
			v.Task = &t
		}
		return err
	case *GetTaskResult:
		type GetTaskResult struct {
			Task
			Meta Meta `json:"_meta,omitempty"`
		}
		w := GetTaskResult{Task(plainOf(v.Task)), v.Meta}
		err := json.Unmarshal(data, &w)
		v.Task, v.Meta = plainTask(w.Task).task(), w.Meta
		return err
	case *CancelTaskResult:
		type CancelTaskResult struct {
			Task
			Meta Meta `json:"_meta,omitempty"`
		}
		w := CancelTaskResult{Task(plainOf(v.Task)), v.Meta}
		err := json.Unmarshal(data, &w)
		v.Task, v.Meta = plainTask(w.Task).task(), w.Meta
		return err
	case *TaskStatusNotificationParams:
		type TaskStatusNotificationParams struct {
			Task
			Meta Meta `json:"_meta,omitempty"`
		}
		w := TaskStatusNotificationParams{Task(plainOf(v.Task)), v.Meta}
		err := json.Unmarshal(data, &w)
		v.Task, v.Meta = plainTask(w.Task).task(), w.Meta
		return err
	case *DetailedTask:
		type detailedTask = DetailedTask
		type ExtTask plainExtTask
		type DetailedTask struct {
			ExtTask
			Result        json.RawMessage         `json:"result,omitempty"`
			Error         *ErrorObject            `json:"error,omitempty"`
			InputRequests map[string]InputRequest `json:"inputRequests,omitempty"`
		}
		ref := func(d *detailedTask) DetailedTask {
			return DetailedTask{ExtTask(plainExtOf(d.ExtTask)), d.Result, d.Error, d.InputRequests}
		}
		real := func(d DetailedTask) detailedTask {
			return detailedTask{plainExtTask(d.ExtTask).extTask(), d.Result, d.Error, d.InputRequests}
		}
		w := ref(v)
		err := json.Unmarshal(data, &w)
		*v = real(w)
		return err
	case *ExtCreateTaskResult:
		type ExtTask plainExtTask
		type ExtCreateTaskResult struct {
			ResultType ResultType `json:"resultType"`
			ExtTask
			Meta Meta `json:"_meta,omitempty"`
		}
		w := ExtCreateTaskResult{v.ResultType, ExtTask(plainExtOf(v.ExtTask)), v.Meta}
		err := json.Unmarshal(data, &w)
		v.ResultType, v.ExtTask, v.Meta = w.ResultType, plainExtTask(w.ExtTask).extTask(), w.Meta
		return err
	case *ExtGetTaskResult:
		type detailedTask = DetailedTask
		type ExtTask plainExtTask
		type DetailedTask struct {
			ExtTask
			Result        json.RawMessage         `json:"result,omitempty"`
			Error         *ErrorObject            `json:"error,omitempty"`
			InputRequests map[string]InputRequest `json:"inputRequests,omitempty"`
		}
		ref := func(d *detailedTask) DetailedTask {
			return DetailedTask{ExtTask(plainExtOf(d.ExtTask)), d.Result, d.Error, d.InputRequests}
		}
		real := func(d DetailedTask) detailedTask {
			return detailedTask{plainExtTask(d.ExtTask).extTask(), d.Result, d.Error, d.InputRequests}
		}
		type ExtGetTaskResult struct {
			ResultType ResultType `json:"resultType"`
			DetailedTask
			Meta Meta `json:"_meta,omitempty"`
		}
		w := ExtGetTaskResult{v.ResultType, ref(&v.DetailedTask), v.Meta}
		err := json.Unmarshal(data, &w)
		v.ResultType, v.DetailedTask, v.Meta = w.ResultType, real(w.DetailedTask), w.Meta
		return err
	case *ListenParams:
		type ListenParams refListenParams
		return json.Unmarshal(data, (*ListenParams)(v))
	case *ListenAcknowledgedParams:
		type ListenAcknowledgedParams refListenAck
		return json.Unmarshal(data, (*ListenAcknowledgedParams)(v))
	case *TasksNotificationParams:
		type detailedTask = DetailedTask
		type ExtTask plainExtTask
		type DetailedTask struct {
			ExtTask
			Result        json.RawMessage         `json:"result,omitempty"`
			Error         *ErrorObject            `json:"error,omitempty"`
			InputRequests map[string]InputRequest `json:"inputRequests,omitempty"`
		}
		ref := func(d *detailedTask) DetailedTask {
			return DetailedTask{ExtTask(plainExtOf(d.ExtTask)), d.Result, d.Error, d.InputRequests}
		}
		real := func(d DetailedTask) detailedTask {
			return detailedTask{plainExtTask(d.ExtTask).extTask(), d.Result, d.Error, d.InputRequests}
		}
		type TasksNotificationParams struct {
			DetailedTask
			Meta Meta `json:"_meta,omitempty"`
		}
		w := TasksNotificationParams{ref(&v.DetailedTask), v.Meta}
		err := json.Unmarshal(data, &w)
		v.DetailedTask, v.Meta = real(w.DetailedTask), w.Meta
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
	type Task refMarshalTask // below, Task is the reference type; task is the real one
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
