package mcp

import (
	"encoding/json"
	"slices"
)

// The Tasks extension's results have hand-written decoders too, under the rules of
// resultsjson.go (the usual shape decoded directly, anything else left to encoding/json
// on a type of the same name and fields without methods): a 2026-07-28 task round trip
// decodes an [ExtCreateTaskResult] and a notifications/tasks ([DetailedTask]), and a
// poll an [ExtGetTaskResult].
//
// [ExtTask] has no methods: the other three embed it, and an embedded type's methods
// are promoted to the type that embeds it, where encoding/json would call them for the
// whole. For the same reason [ExtGetTaskResult], which embeds [DetailedTask], has a
// decoder of its own.

// plainDetailedTask is DetailedTask without its methods, for encoding/json.
type (
	plainDetailedTask        DetailedTask
	plainExtCreateTaskResult ExtCreateTaskResult
)

// UnmarshalJSON decodes d as encoding/json decodes its fields.
func (d *DetailedTask) UnmarshalJSON(data []byte) error {
	if d.isZero() && decodeExtTask(data, &d.ExtTask, extMembers{names: detailedTaskNames, result: &d.Result}) {
		return nil
	}
	type DetailedTask plainDetailedTask
	return json.Unmarshal(data, (*DetailedTask)(d))
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
	type ExtCreateTaskResult plainExtCreateTaskResult
	return json.Unmarshal(data, (*ExtCreateTaskResult)(r))
}

// UnmarshalJSON decodes r as encoding/json decodes its fields.
func (r *ExtGetTaskResult) UnmarshalJSON(data []byte) error {
	if r.ResultType == "" && r.DetailedTask.isZero() && r.Meta == nil &&
		decodeExtTask(data, &r.ExtTask, extMembers{names: extGetTaskResultNames, resultType: &r.ResultType, result: &r.Result, meta: &r.Meta}) {
		return nil
	}
	type detailedTask = DetailedTask
	type DetailedTask plainDetailedTask
	type ExtGetTaskResult struct {
		ResultType ResultType `json:"resultType"`
		DetailedTask
		Meta Meta `json:"_meta,omitempty"`
	}
	w := ExtGetTaskResult{r.ResultType, DetailedTask(r.DetailedTask), r.Meta}
	err := json.Unmarshal(data, &w)
	r.ResultType, r.DetailedTask, r.Meta = w.ResultType, detailedTask(w.DetailedTask), w.Meta
	return err
}

// The member names of each type as encoding/json sees them (see skipMember).
var (
	extTaskNames             = []string{"taskId", "status", "statusMessage", "createdAt", "lastUpdatedAt", "ttlMs", "pollIntervalMs"}
	extCreateTaskResultNames = append(slices.Clip(extTaskNames), "resultType", "_meta")
	detailedTaskNames        = append(slices.Clip(extTaskNames), "result", "error", "inputRequests")
	extGetTaskResultNames    = append(slices.Clip(detailedTaskNames), "resultType", "_meta")
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
	ok, more := d.openObject()
	for ok && more {
		var key []byte
		if key, ok = d.memberName(); !ok {
			break
		}
		var bit uint8
		switch {
		case x.resultType != nil && string(key) == "resultType":
			bit = 1
			var s string
			s, ok = d.stringValue()
			rt = ResultType(s)
		case x.result != nil && string(key) == "result":
			bit = 2
			// As json.RawMessage decodes: the value's bytes, whatever its type.
			start := d.i
			if ok = d.skipValue(); ok {
				res = append(json.RawMessage(nil), d.data[start:d.i]...)
			}
		case x.result != nil && (string(key) == "error" || string(key) == "inputRequests"):
			ok = false
		case x.meta != nil && string(key) == "_meta":
			bit = 4
			meta, ok = d.metaValue()
		default:
			var known bool
			if known, ok = d.taskMember(key, &q, &seen, true); !known {
				ok = d.skipMember(key, x.names)
			}
		}
		if also&bit != 0 {
			ok = false
		}
		also |= bit
		if ok {
			ok, more = d.nextMember()
		}
	}
	if !ok || !d.atEnd() {
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
