package mcp

import (
	"encoding/json"
	"strconv"
)

// UnmarshalResult is json.Unmarshal(data, v), quicker for what a requestor decodes on
// every task round trip: *[CallToolResult], *[CreateTaskResult], *[Task],
// *[GetTaskResult], *[CancelTaskResult] and *[TaskStatusNotificationParams], and
// *struct{ Task *Task `json:"task"` }, the probe that tells a CreateTaskResult from a
// plain result. When v is one of them, still zero, and data has their usual shape, it is decoded directly;
// anything else goes to json.Unmarshal, so the outcome, errors included, is always
// json.Unmarshal's.
//
// The usual shape: an object whose members are named exactly as on the wire, each once,
// with values of their types (content blocks holding only type, text and _meta).
// Members that name no field are skipped, as encoding/json skips them, unless the name
// is one encoding/json might still match to a field (it ignores case).
func UnmarshalResult(data []byte, v any) error {
	ok := false
	switch r := v.(type) {
	case *CallToolResult:
		ok = r != nil && r.Content == nil && r.StructuredContent == nil && !r.IsError && r.Meta == nil &&
			decodeCallToolResult(data, r)
	case *CreateTaskResult:
		ok = r != nil && r.Task == (Task{}) && r.Meta == nil && decodeCreateTaskResult(data, r)
	case *createTaskProbe:
		ok = r != nil && r.Task == nil && decodeCreateTaskProbe(data, r)
	case *Task:
		ok = r != nil && *r == (Task{}) && decodeFlatTask(data, r, nil)
	case *GetTaskResult:
		ok = r != nil && r.Task == (Task{}) && r.Meta == nil && decodeFlatTask(data, &r.Task, &r.Meta)
	case *CancelTaskResult:
		ok = r != nil && r.Task == (Task{}) && r.Meta == nil && decodeFlatTask(data, &r.Task, &r.Meta)
	case *TaskStatusNotificationParams:
		ok = r != nil && r.Task == (Task{}) && r.Meta == nil && decodeFlatTask(data, &r.Task, &r.Meta)
	}
	if ok {
		return nil
	}
	return json.Unmarshal(data, v)
}

// createTaskProbe is the shape a requestor decodes a task-augmented call's result into
// to tell a CreateTaskResult from a plain result: unlike [CreateTaskResult], it tells an
// absent or null "task" from an empty one, and ignores _meta. Being an alias of an
// unnamed type, it is the type of any such probe declared elsewhere.
type createTaskProbe = struct {
	Task *Task `json:"task"`
}

// The member names of each type as encoding/json sees them: a member whose name is
// close to one of these but not equal is left to encoding/json.
var (
	callToolResultNames   = []string{"content", "structuredContent", "isError", "_meta"}
	createTaskResultNames = []string{"task", "_meta"}
	createTaskProbeNames  = []string{"task"}
	taskNames             = []string{"taskId", "status", "statusMessage", "createdAt", "lastUpdatedAt", "ttl", "pollInterval"}
	taskMetaNames         = append(taskNames[:len(taskNames):len(taskNames)], "_meta")
)

// decodeCallToolResult decodes a tool result into r, which is zero, storing only when
// all of data is taken.
func decodeCallToolResult(data []byte, r *CallToolResult) bool {
	var q CallToolResult
	var seen uint8
	d := metaDecoder{data: data}
	ok, more := d.openObject()
	for ok && more {
		var key []byte
		if key, ok = d.memberName(); !ok {
			break
		}
		// A repeated member merges into what the first left in ways not worth copying.
		var bit uint8
		switch string(key) {
		case "content":
			bit = 1
			q.Content, ok = d.contentBlocks()
		case "structuredContent":
			bit = 2
			// As json.RawMessage decodes: the value's bytes, whatever its type.
			start := d.i
			if ok = d.skipValue(); ok {
				q.StructuredContent = append(json.RawMessage(nil), d.data[start:d.i]...)
			}
		case "isError":
			bit = 4
			switch {
			case d.literal("true"):
				q.IsError = true
			case d.literal("false"):
			default:
				ok = false
			}
		case "_meta":
			bit = 8
			q.Meta, ok = d.metaValue()
		default:
			ok = d.skipMember(key, callToolResultNames)
		}
		if seen&bit != 0 {
			ok = false
		}
		seen |= bit
		if ok {
			ok, more = d.nextMember()
		}
	}
	if !ok || !d.atEnd() {
		return false
	}
	*r = q
	return true
}

// contentBlocks decodes an array of text blocks. An empty array is an empty, non-nil
// slice, as encoding/json makes it; null is left to encoding/json.
func (d *metaDecoder) contentBlocks() ([]Content, bool) {
	if d.i >= len(d.data) || d.data[d.i] != '[' {
		return nil, false
	}
	if d.depth++; d.depth > maxMetaDepth {
		return nil, false
	}
	d.i++
	blocks := []Content{}
	d.skipSpace()
	if d.i < len(d.data) && d.data[d.i] == ']' {
		d.i++
		d.depth--
		return blocks, true
	}
	for {
		var c Content
		if !d.textBlock(&c) {
			return nil, false
		}
		blocks = append(blocks, c)
		d.skipSpace()
		if d.i >= len(d.data) {
			return nil, false
		}
		switch d.data[d.i] {
		case ',':
			d.i++
			d.skipSpace()
		case ']':
			d.i++
			d.depth--
			return blocks, true
		default:
			return nil, false
		}
	}
}

// textBlock decodes a block holding only type, text and _meta into c, which is zero, as
// [Content.UnmarshalJSON] would. Any other member is left to encoding/json: a block has
// too many fields to tell reliably which names it would ignore.
func (d *metaDecoder) textBlock(c *Content) bool {
	var seen uint8
	ok, more := d.openObject()
	for ok && more {
		var key []byte
		if key, ok = d.memberName(); !ok {
			return false
		}
		var bit uint8
		switch string(key) {
		case "type":
			bit = 1
			c.Type, ok = d.stringValue()
		case "text":
			bit = 2
			c.Text, ok = d.stringValue()
		case "_meta":
			bit = 4
			c.Meta, ok = d.metaValue()
		default:
			return false
		}
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
		ok, more = d.nextMember()
	}
	return ok
}

// decodeCreateTaskResult decodes {"task": {...}, "_meta": ...} into r, which is zero,
// storing only when all of data is taken.
func decodeCreateTaskResult(data []byte, r *CreateTaskResult) bool {
	var q CreateTaskResult
	var seen uint8
	d := metaDecoder{data: data}
	ok, more := d.openObject()
	for ok && more {
		var key []byte
		if key, ok = d.memberName(); !ok {
			break
		}
		var bit uint8
		switch string(key) {
		case "task":
			bit = 1
			ok = d.taskObject(&q.Task)
		case "_meta":
			bit = 2
			q.Meta, ok = d.metaValue()
		default:
			ok = d.skipMember(key, createTaskResultNames)
		}
		if seen&bit != 0 {
			ok = false
		}
		seen |= bit
		if ok {
			ok, more = d.nextMember()
		}
	}
	if !ok || !d.atEnd() {
		return false
	}
	*r = q
	return true
}

// decodeCreateTaskProbe decodes {"task": {...} or null} into r, which is zero, storing
// only when all of data is taken.
func decodeCreateTaskProbe(data []byte, r *createTaskProbe) bool {
	var task *Task
	seen := false
	d := metaDecoder{data: data}
	ok, more := d.openObject()
	for ok && more {
		var key []byte
		if key, ok = d.memberName(); !ok {
			break
		}
		switch {
		case string(key) == "task" && !seen:
			seen = true
			if !d.literal("null") {
				task = &Task{}
				ok = d.taskObject(task)
			}
		default:
			ok = d.skipMember(key, createTaskProbeNames)
		}
		if ok {
			ok, more = d.nextMember()
		}
	}
	if !ok || !d.atEnd() {
		return false
	}
	r.Task = task
	return true
}

// taskObject decodes the object at d.i into t, which is zero; null is left to
// encoding/json.
func (d *metaDecoder) taskObject(t *Task) bool {
	if d.i >= len(d.data) || d.data[d.i] != '{' {
		return false
	}
	var seen uint8
	ok, more := d.openObject()
	for ok && more {
		var key []byte
		if key, ok = d.memberName(); !ok {
			return false
		}
		var known bool
		if known, ok = d.taskMember(key, t, &seen); !known {
			ok = d.skipMember(key, taskNames)
		}
		if !ok {
			return false
		}
		ok, more = d.nextMember()
	}
	return ok
}

// decodeFlatTask decodes the Task fields, and _meta into *meta unless meta is nil (a
// bare Task has no _meta, so the member is skipped), into t and *meta, which are zero.
// It stores only when all of data is taken.
func decodeFlatTask(data []byte, t *Task, meta *Meta) bool {
	var q Task
	var m Meta
	var seen uint8
	names := taskNames
	if meta != nil {
		names = taskMetaNames
	}
	d := metaDecoder{data: data}
	ok, more := d.openObject()
	for ok && more {
		var key []byte
		if key, ok = d.memberName(); !ok {
			break
		}
		var known bool
		switch {
		case meta != nil && string(key) == "_meta":
			if ok = seen&0x80 == 0; ok {
				seen |= 0x80
				m, ok = d.metaValue()
			}
		default:
			if known, ok = d.taskMember(key, &q, &seen); !known {
				ok = d.skipMember(key, names)
			}
		}
		if ok {
			ok, more = d.nextMember()
		}
	}
	if !ok || !d.atEnd() {
		return false
	}
	*t = q
	if meta != nil {
		*meta = m
	}
	return true
}

// taskMember decodes a member named exactly as a Task field into t; known is false for
// any other name, and nothing is consumed then. seen holds the fields already decoded
// (bits 0-6), so that a repeat is left to encoding/json.
func (d *metaDecoder) taskMember(key []byte, t *Task, seen *uint8) (known, ok bool) {
	var bit uint8
	switch string(key) {
	case "taskId":
		bit = 1 << 0
		t.TaskID, ok = d.stringValue()
	case "status":
		bit = 1 << 1
		var s string
		s, ok = d.stringValue()
		t.Status = TaskStatus(s)
	case "statusMessage":
		bit = 1 << 2
		t.StatusMessage, ok = d.stringValue()
	case "createdAt":
		bit = 1 << 3
		t.CreatedAt, ok = d.stringValue()
	case "lastUpdatedAt":
		bit = 1 << 4
		t.LastUpdatedAt, ok = d.stringValue()
	case "ttl":
		bit = 1 << 5
		t.TTL, ok = d.int64OrNull()
	case "pollInterval":
		bit = 1 << 6
		t.PollInterval, ok = d.int64OrNull()
	default:
		return false, true
	}
	if *seen&bit != 0 {
		return true, false
	}
	*seen |= bit
	return true, ok
}

// int64OrNull decodes a *int64 field that was nil: null leaves it nil, an integer
// literal in range sets it. A fraction, an exponent or an overflow are type errors in
// encoding/json, left to it.
func (d *metaDecoder) int64OrNull() (*int64, bool) {
	if d.literal("null") {
		return nil, true
	}
	end := d.numberEnd()
	if end < 0 {
		return nil, false
	}
	n, err := strconv.ParseInt(string(d.data[d.i:end]), 10, 64)
	if err != nil {
		return nil, false
	}
	d.i = end
	return &n, true
}

// skipMember moves past the value of a member that names no field, as encoding/json
// ignores it. encoding/json also matches names to fields ignoring case, so a name close
// to one of names is not skipped but left to it.
func (d *metaDecoder) skipMember(key []byte, names []string) bool {
	for _, name := range names {
		if nameClose(key, name) {
			return false
		}
	}
	return d.skipValue()
}

// nameClose reports whether a and b are equal ignoring ASCII case, '_' and '-'. Case is
// what encoding/json ignores when matching a member name (a is ASCII, as memberName
// takes no other); the delimiters are ignored too so that an implementation matching
// more loosely cannot make a skipped member one it would have decoded.
func nameClose(a []byte, b string) bool {
	i, j := 0, 0
	for {
		for i < len(a) && (a[i] == '_' || a[i] == '-') {
			i++
		}
		for j < len(b) && (b[j] == '_' || b[j] == '-') {
			j++
		}
		if i == len(a) || j == len(b) {
			return i == len(a) && j == len(b)
		}
		if lowerASCII(a[i]) != lowerASCII(b[j]) {
			return false
		}
		i++
		j++
	}
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
