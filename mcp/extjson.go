package mcp

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"

	"github.com/mcpi-dev/mcpi/internal/jsonwire"
)

// The Tasks extension's results have hand-written decoders too, under the rules of
// resultsjson.go (the usual shape decoded directly, anything else left to encoding/json
// on a type of the same name and fields without methods): a 2026-07-28 task round trip
// decodes an [ExtCreateTaskResult] and a notifications/tasks ([DetailedTask]), and a
// poll an [ExtGetTaskResult].
//
// The server encodes the create result, the tasks/get result and the notification
// directly as well.
//
// [ExtTask] has no JSON methods: the others embed it, and an embedded type's methods
// are promoted to the type that embeds it, where encoding/json would call them for the
// whole. For the same reason the types that embed [DetailedTask] have a decoder of their
// own, and DetailedTask no encoder.

// The types without their JSON methods, for encoding/json to encode.
type (
	plainDetailedTask        DetailedTask
	plainExtCreateTaskResult ExtCreateTaskResult
)

// plainExtTask is ExtTask's fields, whose integers take any JSON number (see wireInt),
// for encoding/json to decode. The decoders' local types embed it as ExtTask, and hold a
// DetailedTask's other fields as detailFields, so that encoding/json names the fields
// in its errors as it did.
type plainExtTask struct {
	TaskID         string     `json:"taskId"`
	Status         TaskStatus `json:"status"`
	StatusMessage  string     `json:"statusMessage,omitempty"`
	CreatedAt      string     `json:"createdAt"`
	LastUpdatedAt  string     `json:"lastUpdatedAt"`
	TTLMs          *wireInt   `json:"ttlMs"`
	PollIntervalMs *wireInt   `json:"pollIntervalMs,omitempty"`
}

func plainExtOf(t ExtTask) plainExtTask {
	return plainExtTask{t.TaskID, t.Status, t.StatusMessage, t.CreatedAt, t.LastUpdatedAt, (*wireInt)(t.TTLMs), (*wireInt)(t.PollIntervalMs)}
}

func (p plainExtTask) extTask() ExtTask {
	return ExtTask{p.TaskID, p.Status, p.StatusMessage, p.CreatedAt, p.LastUpdatedAt, (*int64)(p.TTLMs), (*int64)(p.PollIntervalMs)}
}

// TasksNotificationParams are the params of notifications/tasks: the task as tasks/get
// gives it, and the _meta that names the subscriptions/listen stream carrying it.
type TasksNotificationParams struct {
	DetailedTask
	Meta Meta `json:"_meta,omitempty"`
}

// MarshalJSON writes r as encoding/json writes its fields, with HTML escaping off.
func (r ExtCreateTaskResult) MarshalJSON() ([]byte, error) {
	t := r.ToTask()
	b := append(make([]byte, 0, 20+len(r.ResultType)+t.encodedSize()), `{"resultType":`...)
	b = jsonwire.AppendString(b, string(r.ResultType))
	if b, err := appendMeta(t.appendMembers(append(b, ','), true), r.Meta); err == nil {
		return b, nil
	}
	type ExtCreateTaskResult plainExtCreateTaskResult
	return jsonwire.Marshal((*ExtCreateTaskResult)(&r)) // and the error encoding/json gives
}

// MarshalJSON writes r as encoding/json writes its fields, with HTML escaping off.
func (r ExtGetTaskResult) MarshalJSON() ([]byte, error) {
	b := append(make([]byte, 0, 20+len(r.ResultType)+r.encodedSize()), `{"resultType":`...)
	b = jsonwire.AppendString(b, string(r.ResultType))
	b, err := r.DetailedTask.appendMembers(append(b, ','))
	if err == nil {
		if b, err = appendMeta(b, r.Meta); err == nil {
			return b, nil
		}
	}
	type DetailedTask plainDetailedTask
	type ExtGetTaskResult struct {
		ResultType ResultType `json:"resultType"`
		DetailedTask
		Meta Meta `json:"_meta,omitempty"`
	}
	return jsonwire.Marshal(ExtGetTaskResult{r.ResultType, DetailedTask(r.DetailedTask), r.Meta}) // and the error encoding/json gives
}

// MarshalJSON writes p as encoding/json writes its fields, with HTML escaping off.
func (p TasksNotificationParams) MarshalJSON() ([]byte, error) {
	b, err := p.DetailedTask.appendMembers(append(make([]byte, 0, p.encodedSize()), '{'))
	if err == nil {
		if b, err = appendMeta(b, p.Meta); err == nil {
			return b, nil
		}
	}
	type DetailedTask plainDetailedTask
	type TasksNotificationParams struct {
		DetailedTask
		Meta Meta `json:"_meta,omitempty"`
	}
	return jsonwire.Marshal(TasksNotificationParams{DetailedTask(p.DetailedTask), p.Meta}) // and the error encoding/json gives
}

// UnmarshalJSON decodes p as encoding/json decodes its fields.
func (p *TasksNotificationParams) UnmarshalJSON(data []byte) error {
	if p.DetailedTask.isZero() && p.Meta == nil &&
		decodeExtTask(data, &p.ExtTask, extMembers{names: tasksNotificationNames, result: &p.Result, meta: &p.Meta}) {
		return nil
	}
	type detailedTask = DetailedTask
	type ExtTask plainExtTask
	type DetailedTask struct {
		ExtTask
		Result        json.RawMessage         `json:"result,omitempty"`
		Error         *ErrorObject            `json:"error,omitempty"`
		InputRequests map[string]InputRequest `json:"inputRequests,omitempty"`
	}
	type TasksNotificationParams struct {
		DetailedTask
		Meta Meta `json:"_meta,omitempty"`
	}
	d := &p.DetailedTask
	w := TasksNotificationParams{DetailedTask{ExtTask(plainExtOf(d.ExtTask)), d.Result, d.Error, d.InputRequests}, p.Meta}
	err := json.Unmarshal(data, &w)
	v := w.DetailedTask
	p.DetailedTask, p.Meta = detailedTask{plainExtTask(v.ExtTask).extTask(), v.Result, v.Error, v.InputRequests}, w.Meta
	return err
}

// encodedSize is room for d encoded, with numbers of usual length and no input requests.
func (d *DetailedTask) encodedSize() int {
	n := 120 + len(d.TaskID) + len(d.Status) + len(d.StatusMessage) + len(d.CreatedAt) + len(d.LastUpdatedAt) + len(d.Result)
	if d.Error != nil {
		n += 60 + len(d.Error.Message) + len(d.Error.Data)
	}
	return n
}

// appendMembers appends d's members as encoding/json writes them, without the braces.
// Invalid JSON in a raw member is an error, whose wording is left to encoding/json.
func (d *DetailedTask) appendMembers(b []byte) ([]byte, error) {
	t := d.ToTask()
	b = t.appendMembers(b, true)
	var err error
	if len(d.Result) > 0 {
		if b, err = jsonwire.AppendRaw(append(b, `,"result":`...), d.Result); err != nil {
			return nil, err
		}
	}
	if e := d.Error; e != nil {
		b = strconv.AppendInt(append(b, `,"error":{"code":`...), int64(e.Code), 10)
		b = jsonwire.AppendString(append(b, `,"message":`...), e.Message)
		if len(e.Data) > 0 {
			if b, err = jsonwire.AppendRaw(append(b, `,"data":`...), e.Data); err != nil {
				return nil, err
			}
		}
		b = append(b, '}')
	}
	if len(d.InputRequests) > 0 {
		b = append(b, `,"inputRequests":{`...)
		for i, key := range slices.Sorted(maps.Keys(d.InputRequests)) {
			if i > 0 {
				b = append(b, ',')
			}
			r := d.InputRequests[key]
			b = jsonwire.AppendString(append(jsonwire.AppendString(b, key), `:{"method":`...), r.Method)
			if len(r.Params) > 0 {
				if b, err = jsonwire.AppendRaw(append(b, `,"params":`...), r.Params); err != nil {
					return nil, err
				}
			}
			b = append(b, '}')
		}
		b = append(b, '}')
	}
	return b, nil
}

// UnmarshalJSON decodes d as encoding/json decodes its fields.
func (d *DetailedTask) UnmarshalJSON(data []byte) error {
	if d.isZero() && decodeExtTask(data, &d.ExtTask, extMembers{names: detailedTaskNames, result: &d.Result}) {
		return nil
	}
	type detailedTask = DetailedTask
	type ExtTask plainExtTask
	type DetailedTask struct {
		ExtTask
		Result        json.RawMessage         `json:"result,omitempty"`
		Error         *ErrorObject            `json:"error,omitempty"`
		InputRequests map[string]InputRequest `json:"inputRequests,omitempty"`
	}
	w := DetailedTask{ExtTask(plainExtOf(d.ExtTask)), d.Result, d.Error, d.InputRequests}
	err := json.Unmarshal(data, &w)
	*d = detailedTask{plainExtTask(w.ExtTask).extTask(), w.Result, w.Error, w.InputRequests}
	return err
}

func (d *DetailedTask) isZero() bool {
	return d.ExtTask == (ExtTask{}) && d.Result == nil && d.Error == nil && d.InputRequests == nil
}

// UnmarshalJSON decodes r as encoding/json decodes its fields.
func (r *ExtCreateTaskResult) UnmarshalJSON(data []byte) error {
	if r.ResultType == "" && r.ExtTask == (ExtTask{}) && r.Meta == nil &&
		decodeExtTask(data, &r.ExtTask, extMembers{names: extCreateTaskResultNames, resultType: &r.ResultType, meta: &r.Meta}) {
		return nil
	}
	type extCreateTaskResult = ExtCreateTaskResult
	type ExtTask plainExtTask
	type ExtCreateTaskResult struct {
		ResultType ResultType `json:"resultType"`
		ExtTask
		Meta Meta `json:"_meta,omitempty"`
	}
	w := ExtCreateTaskResult{r.ResultType, ExtTask(plainExtOf(r.ExtTask)), r.Meta}
	err := json.Unmarshal(data, &w)
	*r = extCreateTaskResult{w.ResultType, plainExtTask(w.ExtTask).extTask(), w.Meta}
	return err
}

// UnmarshalJSON decodes r as encoding/json decodes its fields.
func (r *ExtGetTaskResult) UnmarshalJSON(data []byte) error {
	if r.ResultType == "" && r.DetailedTask.isZero() && r.Meta == nil &&
		decodeExtTask(data, &r.ExtTask, extMembers{names: extGetTaskResultNames, resultType: &r.ResultType, result: &r.Result, meta: &r.Meta}) {
		return nil
	}
	type detailedTask = DetailedTask
	type ExtTask plainExtTask
	type DetailedTask struct {
		ExtTask
		Result        json.RawMessage         `json:"result,omitempty"`
		Error         *ErrorObject            `json:"error,omitempty"`
		InputRequests map[string]InputRequest `json:"inputRequests,omitempty"`
	}
	type ExtGetTaskResult struct {
		ResultType ResultType `json:"resultType"`
		DetailedTask
		Meta Meta `json:"_meta,omitempty"`
	}
	d := &r.DetailedTask
	w := ExtGetTaskResult{r.ResultType, DetailedTask{ExtTask(plainExtOf(d.ExtTask)), d.Result, d.Error, d.InputRequests}, r.Meta}
	err := json.Unmarshal(data, &w)
	v := w.DetailedTask
	r.ResultType, r.DetailedTask, r.Meta = w.ResultType, detailedTask{plainExtTask(v.ExtTask).extTask(), v.Result, v.Error, v.InputRequests}, w.Meta
	return err
}

// The member names of each type as encoding/json sees them (see skipMember).
var (
	extTaskNames             = []string{"taskId", "status", "statusMessage", "createdAt", "lastUpdatedAt", "ttlMs", "pollIntervalMs"}
	extCreateTaskResultNames = append(slices.Clip(extTaskNames), "resultType", "_meta")
	detailedTaskNames        = append(slices.Clip(extTaskNames), "result", "error", "inputRequests")
	extGetTaskResultNames    = append(slices.Clip(detailedTaskNames), "resultType", "_meta")
	tasksNotificationNames   = append(slices.Clip(detailedTaskNames), "_meta")
)

// extMembers are the members a type holds besides its task's, each decoded into where
// it points unless that is nil.
type extMembers struct {
	names      []string
	resultType *ResultType
	// result is a completed task's; a failed task's error and a waiting task's
	// inputRequests are left to encoding/json.
	result *json.RawMessage
	meta   *Meta
}

// decodeExtTask decodes an object of the task's members and those x names into t and
// x's targets, which are zero, storing only when all of data is taken.
func decodeExtTask(data []byte, t *ExtTask, x extMembers) bool {
	var (
		q          Task
		rt         ResultType
		res        json.RawMessage
		meta       Meta
		seen, also uint8
	)
	d := metaDecoder{data: data}
	if !d.members(func(key []byte) (ok bool) {
		switch {
		case x.resultType != nil && string(key) == "resultType":
			var s string
			s, ok = d.stringValue()
			rt = ResultType(s)
			return ok && once(&also, 1)
		case x.result != nil && string(key) == "result":
			// As json.RawMessage decodes: the value's bytes, whatever its type.
			var raw []byte
			if raw, ok = d.rawValue(); ok {
				res = append(json.RawMessage(nil), raw...)
			}
			return ok && once(&also, 2)
		case x.result != nil && (string(key) == "error" || string(key) == "inputRequests"):
			return false
		case x.meta != nil && string(key) == "_meta":
			meta, ok = d.metaValue()
			return ok && once(&also, 4)
		}
		known, ok := d.taskMember(key, &q, &seen, true)
		if !known {
			ok = d.skipMember(key, x.names)
		}
		return ok
	}) || !d.atEnd() {
		return false
	}
	*t = ExtTaskFrom(q)
	if x.resultType != nil {
		*x.resultType = rt
	}
	if x.result != nil {
		*x.result = res
	}
	if x.meta != nil {
		*x.meta = meta
	}
	return true
}
