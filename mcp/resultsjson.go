package mcp

import (
	"encoding/json"
	"strconv"

	"github.com/mcpi-dev/mcpi/internal/jsonwire"
)

// What a requestor decodes on every task round trip, and a receiver encodes, has
// hand-written codecs behind MarshalJSON and UnmarshalJSON: [CallToolResult],
// [CreateTaskResult], [CreateTaskProbe], [Task], [GetTaskResult], [CancelTaskResult] and
// [TaskStatusNotificationParams]. As for the params (see paramsjson.go), a decoder takes
// the usual shape into a zero value and leaves anything else to encoding/json on a type
// of the same name and fields without methods, so the outcome, errors included, is
// always what encoding/json made of the type before it had methods.
//
// The usual shape: an object whose members are named exactly as on the wire, each once,
// with values of their types (content blocks holding only type, text and _meta).
// Members that name no field are skipped, as encoding/json skips them, unless the name
// is one encoding/json might still match to a field (it ignores case).

// The result types without their methods, for encoding/json. A type that holds a Task
// holds a plainTask in its local copy, so that encoding/json goes on past an error inside
// the task as it did, and names the task's fields as it did.
type plainCallToolResult CallToolResult

// plainTask is Task's fields, whose integers take any JSON number (see wireInt).
type plainTask struct {
	TaskID        string     `json:"taskId"`
	Status        TaskStatus `json:"status"`
	StatusMessage string     `json:"statusMessage,omitempty"`
	CreatedAt     string     `json:"createdAt"`
	LastUpdatedAt string     `json:"lastUpdatedAt"`
	TTL           *wireInt   `json:"ttl"`
	PollInterval  *wireInt   `json:"pollInterval,omitempty"`
}

func plainOf(t Task) plainTask {
	return plainTask{t.TaskID, t.Status, t.StatusMessage, t.CreatedAt, t.LastUpdatedAt, (*wireInt)(t.TTL), (*wireInt)(t.PollInterval)}
}

func (p plainTask) task() Task {
	return Task{p.TaskID, p.Status, p.StatusMessage, p.CreatedAt, p.LastUpdatedAt, (*int64)(p.TTL), (*int64)(p.PollInterval)}
}

// UnmarshalJSON decodes r as encoding/json decodes its fields.
func (r *CallToolResult) UnmarshalJSON(data []byte) error {
	if r.Content == nil && r.StructuredContent == nil && !r.IsError && r.Meta == nil && decodeCallToolResult(data, r) {
		return nil
	}
	type CallToolResult plainCallToolResult
	return json.Unmarshal(data, (*CallToolResult)(r))
}

// MarshalJSON writes t as encoding/json writes its fields, with HTML escaping off.
func (t Task) MarshalJSON() ([]byte, error) {
	b := append(make([]byte, 0, t.encodedSize()), '{')
	return append(t.appendMembers(b, false), '}'), nil
}

// UnmarshalJSON decodes t as encoding/json decodes its fields.
func (t *Task) UnmarshalJSON(data []byte) error {
	if *t == (Task{}) && decodeFlatTask(data, t, nil) {
		return nil
	}
	type Task plainTask
	w := Task(plainOf(*t))
	err := json.Unmarshal(data, &w)
	*t = plainTask(w).task()
	return err
}

// MarshalJSON writes r as encoding/json writes its fields, with HTML escaping off.
func (r CreateTaskResult) MarshalJSON() ([]byte, error) {
	b := append(make([]byte, 0, 16+r.Task.encodedSize()), `{"task":{`...)
	b = append(r.Task.appendMembers(b, false), '}')
	if b, err := appendMeta(b, r.Meta); err == nil {
		return b, nil
	}
	type Task plainTask
	type CreateTaskResult struct {
		Task Task `json:"task"`
		Meta Meta `json:"_meta,omitempty"`
	}
	return jsonwire.Marshal(CreateTaskResult{Task(plainOf(r.Task)), r.Meta}) // and the error encoding/json gives
}

// UnmarshalJSON decodes r as encoding/json decodes its fields.
func (r *CreateTaskResult) UnmarshalJSON(data []byte) error {
	if r.Task == (Task{}) && r.Meta == nil && decodeCreateTaskResult(data, r) {
		return nil
	}
	type Task plainTask
	type CreateTaskResult struct {
		Task Task `json:"task"`
		Meta Meta `json:"_meta,omitempty"`
	}
	w := CreateTaskResult{Task(plainOf(r.Task)), r.Meta}
	err := json.Unmarshal(data, &w)
	r.Task, r.Meta = plainTask(w.Task).task(), w.Meta
	return err
}

// UnmarshalJSON decodes p as encoding/json decodes its fields.
func (p *CreateTaskProbe) UnmarshalJSON(data []byte) error {
	if p.Task == nil && decodeCreateTaskProbe(data, p) {
		return nil
	}
	type Task plainTask
	type CreateTaskProbe struct {
		Task *Task `json:"task"`
	}
	var w CreateTaskProbe
	if p.Task != nil {
		t := Task(plainOf(*p.Task))
		w.Task = &t
	}
	err := json.Unmarshal(data, &w)
	p.Task = nil
	if w.Task != nil {
		t := plainTask(*w.Task).task()
		p.Task = &t
	}
	return err
}

// MarshalJSON writes r as encoding/json writes its fields, with HTML escaping off.
func (r GetTaskResult) MarshalJSON() ([]byte, error) { return marshalFlatTask(&r.Task, r.Meta) }

// UnmarshalJSON decodes r as encoding/json decodes its fields.
func (r *GetTaskResult) UnmarshalJSON(data []byte) error {
	if r.Task == (Task{}) && r.Meta == nil && decodeFlatTask(data, &r.Task, &r.Meta) {
		return nil
	}
	type Task plainTask
	type GetTaskResult struct {
		Task
		Meta Meta `json:"_meta,omitempty"`
	}
	w := GetTaskResult{Task(plainOf(r.Task)), r.Meta}
	err := json.Unmarshal(data, &w)
	r.Task, r.Meta = plainTask(w.Task).task(), w.Meta
	return err
}

// MarshalJSON writes r as encoding/json writes its fields, with HTML escaping off.
func (r CancelTaskResult) MarshalJSON() ([]byte, error) { return marshalFlatTask(&r.Task, r.Meta) }

// UnmarshalJSON decodes r as encoding/json decodes its fields.
func (r *CancelTaskResult) UnmarshalJSON(data []byte) error {
	if r.Task == (Task{}) && r.Meta == nil && decodeFlatTask(data, &r.Task, &r.Meta) {
		return nil
	}
	type Task plainTask
	type CancelTaskResult struct {
		Task
		Meta Meta `json:"_meta,omitempty"`
	}
	w := CancelTaskResult{Task(plainOf(r.Task)), r.Meta}
	err := json.Unmarshal(data, &w)
	r.Task, r.Meta = plainTask(w.Task).task(), w.Meta
	return err
}

// MarshalJSON writes p as encoding/json writes its fields, with HTML escaping off.
func (p TaskStatusNotificationParams) MarshalJSON() ([]byte, error) {
	return marshalFlatTask(&p.Task, p.Meta)
}

// UnmarshalJSON decodes p as encoding/json decodes its fields.
func (p *TaskStatusNotificationParams) UnmarshalJSON(data []byte) error {
	if p.Task == (Task{}) && p.Meta == nil && decodeFlatTask(data, &p.Task, &p.Meta) {
		return nil
	}
	type Task plainTask
	type TaskStatusNotificationParams struct {
		Task
		Meta Meta `json:"_meta,omitempty"`
	}
	w := TaskStatusNotificationParams{Task(plainOf(p.Task)), p.Meta}
	err := json.Unmarshal(data, &w)
	p.Task, p.Meta = plainTask(w.Task).task(), w.Meta
	return err
}

// marshalFlatTask writes the Task fields and _meta in one object, as encoding/json writes
// GetTaskResult, CancelTaskResult and TaskStatusNotificationParams.
func marshalFlatTask(t *Task, meta Meta) ([]byte, error) {
	b := append(make([]byte, 0, t.encodedSize()), '{')
	if b, err := appendMeta(t.appendMembers(b, false), meta); err == nil {
		return b, nil
	}
	type Task plainTask
	type flatTask struct {
		Task
		Meta Meta `json:"_meta,omitempty"`
	}
	return jsonwire.Marshal(flatTask{Task(plainOf(*t)), meta}) // and the error encoding/json gives
}

// encodedSize is room for t encoded, with numbers of usual length.
func (t *Task) encodedSize() int {
	return 100 + len(t.TaskID) + len(t.Status) + len(t.StatusMessage) + len(t.CreatedAt) + len(t.LastUpdatedAt)
}

// appendMembers appends t's members as encoding/json writes them, without the braces;
// with ext, as it writes the [ExtTask] that holds the same (ttlMs, pollIntervalMs).
func (t *Task) appendMembers(b []byte, ext bool) []byte {
	b = append(b, `"taskId":`...)
	b = jsonwire.AppendString(b, t.TaskID)
	b = append(b, `,"status":`...)
	b = jsonwire.AppendString(b, string(t.Status))
	if t.StatusMessage != "" {
		b = append(b, `,"statusMessage":`...)
		b = jsonwire.AppendString(b, t.StatusMessage)
	}
	b = append(b, `,"createdAt":`...)
	b = jsonwire.AppendString(b, t.CreatedAt)
	b = append(b, `,"lastUpdatedAt":`...)
	b = jsonwire.AppendString(b, t.LastUpdatedAt)
	ttl, poll := `,"ttl":`, `,"pollInterval":`
	if ext {
		ttl, poll = `,"ttlMs":`, `,"pollIntervalMs":`
	}
	b = append(b, ttl...)
	if t.TTL == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, *t.TTL, 10)
	}
	if t.PollInterval != nil {
		b = append(b, poll...)
		b = strconv.AppendInt(b, *t.PollInterval, 10)
	}
	return b
}

// The member names of each type as encoding/json sees them: a member whose name is
// close to one of these but not equal is left to encoding/json.
var (
	callToolResultNames   = []string{"content", "structuredContent", "isError", "_meta"}
	createTaskResultNames = []string{"task", "_meta"}
	createTaskProbeNames  = []string{"task"}
	taskNames             = []string{"taskId", "status", "statusMessage", "createdAt", "lastUpdatedAt", "ttl", "pollInterval"}
	taskMetaNames         = append(taskNames[:len(taskNames):len(taskNames)], "_meta")

	ttlName, pollIntervalName = []byte("ttl"), []byte("pollInterval")
)

// decodeCallToolResult decodes a tool result into r, which is zero, storing only when
// all of data is taken.
func decodeCallToolResult(data []byte, r *CallToolResult) bool {
	var q CallToolResult
	var seen uint8
	d := metaDecoder{data: data}
	if !d.members(func(key []byte) (ok bool) {
		switch string(key) {
		case "content":
			q.Content, ok = d.contentBlocks()
			return ok && once(&seen, 1)
		case "structuredContent":
			// As json.RawMessage decodes: the value's bytes, whatever its type.
			var raw []byte
			if raw, ok = d.rawValue(); ok {
				q.StructuredContent = append(json.RawMessage(nil), raw...)
			}
			return ok && once(&seen, 2)
		case "isError":
			q.IsError, ok = d.boolValue()
			return ok && once(&seen, 4)
		case "_meta":
			q.Meta, ok = d.metaValue()
			return ok && once(&seen, 8)
		}
		return d.skipMember(key, callToolResultNames)
	}) || !d.atEnd() {
		return false
	}
	*r = q
	return true
}

// contentBlocks decodes an array of text blocks. An empty array is an empty, non-nil
// slice, as encoding/json makes it; null is left to encoding/json.
func (d *metaDecoder) contentBlocks() ([]Content, bool) {
	blocks := []Content{}
	if !d.elements(func() bool {
		var c Content
		if !d.textBlock(&c) {
			return false
		}
		blocks = append(blocks, c)
		return true
	}) {
		return nil, false
	}
	return blocks, true
}

// textBlock decodes a block holding only type, text and _meta into c, which is zero, as
// [Content.UnmarshalJSON] would. Any other member is left to encoding/json: a block has
// too many fields to tell reliably which names it would ignore.
func (d *metaDecoder) textBlock(c *Content) bool {
	var seen uint8
	return d.members(func(key []byte) (ok bool) {
		switch string(key) {
		case "type":
			c.Type, ok = d.stringValue()
			return ok && once(&seen, 1)
		case "text":
			c.Text, ok = d.stringValue()
			return ok && once(&seen, 2)
		case "_meta":
			c.Meta, ok = d.metaValue()
			return ok && once(&seen, 4)
		}
		return false
	})
}

// decodeCreateTaskResult decodes {"task": {...}, "_meta": ...} into r, which is zero,
// storing only when all of data is taken.
func decodeCreateTaskResult(data []byte, r *CreateTaskResult) bool {
	var q CreateTaskResult
	var seen uint8
	d := metaDecoder{data: data}
	if !d.members(func(key []byte) (ok bool) {
		switch string(key) {
		case "task":
			return d.taskObject(&q.Task) && once(&seen, 1)
		case "_meta":
			q.Meta, ok = d.metaValue()
			return ok && once(&seen, 2)
		}
		return d.skipMember(key, createTaskResultNames)
	}) || !d.atEnd() {
		return false
	}
	*r = q
	return true
}

// decodeCreateTaskProbe decodes {"task": {...} or null} into r, which is zero, storing
// only when all of data is taken.
func decodeCreateTaskProbe(data []byte, r *CreateTaskProbe) bool {
	var task *Task
	seen := false
	d := metaDecoder{data: data}
	if !d.members(func(key []byte) bool {
		if string(key) != "task" || seen {
			return d.skipMember(key, createTaskProbeNames)
		}
		seen = true
		if d.literal("null") {
			return true
		}
		task = &Task{}
		return d.taskObject(task)
	}) || !d.atEnd() {
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
	return d.members(func(key []byte) bool {
		known, ok := d.taskMember(key, t, &seen, false)
		if !known {
			ok = d.skipMember(key, taskNames)
		}
		return ok
	})
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
	if !d.members(func(key []byte) (ok bool) {
		if meta != nil && string(key) == "_meta" {
			m, ok = d.metaValue()
			return ok && once(&seen, 0x80)
		}
		known, ok := d.taskMember(key, &q, &seen, false)
		if !known {
			ok = d.skipMember(key, names)
		}
		return ok
	}) || !d.atEnd() {
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
// (bits 0-6), so that a repeat is left to encoding/json. With ext, the names are
// [ExtTask]'s: ttlMs and pollIntervalMs stand for ttl and pollInterval, which are then
// no field's.
func (d *metaDecoder) taskMember(key []byte, t *Task, seen *uint8, ext bool) (known, ok bool) {
	name := key
	switch {
	case !ext:
	case string(key) == "ttlMs":
		name = ttlName
	case string(key) == "pollIntervalMs":
		name = pollIntervalName
	case string(key) == "ttl", string(key) == "pollInterval":
		return false, true
	}
	var bit uint8
	switch string(name) {
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

// int64OrNull decodes a *int64 field that was nil: null leaves it nil, a number sets it
// (see wireInt).
func (d *metaDecoder) int64OrNull() (*int64, bool) {
	if d.literal("null") {
		return nil, true
	}
	end := d.numberEnd()
	if end < 0 {
		return nil, false
	}
	n, ok := intOf(d.data[d.i:end])
	if !ok {
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
