package mcp

import (
	"encoding/json"
	"strconv"

	"github.com/mcpi-dev/mcpi/internal/jsonwire"
)

// The params that arrive with every tool call and task request (tools/call, tasks/get,
// tasks/result, tasks/cancel) have hand-written codecs behind their MarshalJSON and
// UnmarshalJSON methods, quicker than encoding/json's reflection. A decoder takes the
// usual shape (members named exactly as on the wire, values of their types) into a zero
// value, and leaves anything else to encoding/json on a type of the same name and fields
// without methods: the outcome, errors included, is always what encoding/json made of
// the type before it had methods. The methods accept any input, valid JSON or not, so
// they may be called directly.

// The params types without their methods, for encoding/json.
type (
	plainCallToolParams   CallToolParams
	plainGetTaskParams    GetTaskParams
	plainTaskResultParams TaskResultParams
	plainCancelTaskParams CancelTaskParams
)

// MarshalJSON writes p as encoding/json writes its fields, with HTML escaping off.
func (p CallToolParams) MarshalJSON() ([]byte, error) {
	b, err := p.appendJSON(make([]byte, 0, 64+len(p.Name)+len(p.Arguments)))
	if err != nil {
		return jsonwire.Marshal(plainCallToolParams(p)) // and the error encoding/json gives
	}
	return b, nil
}

// UnmarshalJSON decodes p as encoding/json decodes its fields.
func (p *CallToolParams) UnmarshalJSON(data []byte) error {
	if p.Name == "" && p.Arguments == nil && p.Task == nil && p.Meta == nil && decodeCallToolParams(data, p) {
		return nil
	}
	// Named as p's type, for encoding/json's errors.
	type CallToolParams plainCallToolParams
	return json.Unmarshal(data, (*CallToolParams)(p))
}

// MarshalJSON writes p as encoding/json writes its fields, with HTML escaping off.
func (p GetTaskParams) MarshalJSON() ([]byte, error) { return marshalTaskIDParams(p.TaskID, p.Meta) }

// UnmarshalJSON decodes p as encoding/json decodes its fields.
func (p *GetTaskParams) UnmarshalJSON(data []byte) error {
	type GetTaskParams plainGetTaskParams
	return unmarshalTaskIDParams(data, &p.TaskID, &p.Meta, (*GetTaskParams)(p))
}

// MarshalJSON writes p as encoding/json writes its fields, with HTML escaping off.
func (p TaskResultParams) MarshalJSON() ([]byte, error) { return marshalTaskIDParams(p.TaskID, p.Meta) }

// UnmarshalJSON decodes p as encoding/json decodes its fields.
func (p *TaskResultParams) UnmarshalJSON(data []byte) error {
	type TaskResultParams plainTaskResultParams
	return unmarshalTaskIDParams(data, &p.TaskID, &p.Meta, (*TaskResultParams)(p))
}

// MarshalJSON writes p as encoding/json writes its fields, with HTML escaping off.
func (p CancelTaskParams) MarshalJSON() ([]byte, error) { return marshalTaskIDParams(p.TaskID, p.Meta) }

// UnmarshalJSON decodes p as encoding/json decodes its fields.
func (p *CancelTaskParams) UnmarshalJSON(data []byte) error {
	type CancelTaskParams plainCancelTaskParams
	return unmarshalTaskIDParams(data, &p.TaskID, &p.Meta, (*CancelTaskParams)(p))
}

// marshalTaskIDParams writes the params of tasks/get, tasks/result and tasks/cancel,
// which are alike.
func marshalTaskIDParams(id string, meta Meta) ([]byte, error) {
	b, err := appendTaskIDParams(make([]byte, 0, 32+len(id)), id, meta)
	if err != nil {
		return jsonwire.Marshal(plainGetTaskParams{id, meta}) // and the error encoding/json gives
	}
	return b, nil
}

// unmarshalTaskIDParams decodes the params of tasks/get, tasks/result or tasks/cancel
// into *id and *meta, or else into plain, the same params as a type of the same name
// without methods.
func unmarshalTaskIDParams(data []byte, id *string, meta *Meta, plain any) error {
	if *id == "" && *meta == nil && decodeTaskIDParams(data, id, meta) {
		return nil
	}
	return json.Unmarshal(data, plain)
}

// decodeTaskIDParams decodes {"taskId": string, "_meta": object or null}, storing only
// when all of data is taken.
func decodeTaskIDParams(data []byte, id *string, meta *Meta) bool {
	var taskID string
	var m Meta
	d := metaDecoder{data: data}
	if !d.members(func(key []byte) (ok bool) {
		switch string(key) {
		case "taskId":
			taskID, ok = d.stringValue()
		case "_meta":
			m, ok = d.metaValue()
		}
		return ok
	}) || !d.atEnd() {
		return false
	}
	*id, *meta = taskID, m
	return true
}

// decodeCallToolParams decodes the usual tools/call params into p, which is zero,
// storing only when all of data is taken.
func decodeCallToolParams(data []byte, p *CallToolParams) bool {
	var q CallToolParams
	d := metaDecoder{data: data}
	if !d.members(func(key []byte) (ok bool) {
		switch string(key) {
		case "name":
			q.Name, ok = d.stringValue()
		case "arguments":
			// As json.RawMessage decodes: the value's bytes, whatever its type.
			var raw []byte
			if raw, ok = d.rawValue(); ok {
				q.Arguments = append(q.Arguments[:0], raw...)
			}
		case "task":
			ok = d.taskMetadata(&q.Task)
		case "_meta":
			q.Meta, ok = d.metaValue()
		}
		return ok
	}) || !d.atEnd() {
		return false
	}
	*p = q
	return true
}

// taskMetadata decodes params.task into *t as encoding/json does: null clears it, an
// object fills the TaskMetadata that is there or a new one.
func (d *metaDecoder) taskMetadata(t **TaskMetadata) bool {
	if d.literal("null") {
		*t = nil
		return true
	}
	if d.i >= len(d.data) || d.data[d.i] != '{' {
		return false
	}
	if *t == nil {
		*t = &TaskMetadata{}
	}
	return d.members(func(key []byte) bool {
		if string(key) != "ttl" {
			return false
		}
		if d.literal("null") {
			(*t).TTL = nil
			return true
		}
		end := d.numberEnd()
		if end < 0 {
			return false
		}
		n, ok := intOf(d.data[d.i:end])
		if !ok {
			return false
		}
		d.i = end
		if (*t).TTL == nil {
			(*t).TTL = new(int64)
		}
		*(*t).TTL = n
		return true
	})
}

// rawValue moves past the value at d.i and returns its bytes, as a json.RawMessage
// decodes them whatever the value's type.
func (d *metaDecoder) rawValue() ([]byte, bool) {
	start := d.i
	if !d.skipValue() {
		return nil, false
	}
	return d.data[start:d.i], true
}

// members decodes the object at d.i (after whitespace) member by member: member gets
// each name, with d at its value, and consumes the value, reporting whether it could.
// members reports false when the object is not of the usual shape (a name with escapes
// included) or member gives up.
func (d *metaDecoder) members(member func(key []byte) bool) bool {
	ok, more := d.openObject()
	for ok && more {
		key, named := d.memberName()
		if !named || !member(key) {
			return false
		}
		ok, more = d.nextMember()
	}
	return ok
}

// elements decodes the array at d.i element by element: elem, with d at each element,
// consumes it, reporting whether it could. elements reports false when there is no array
// at d.i, it is not well formed or nested too deep, or elem gives up.
func (d *metaDecoder) elements(elem func() bool) bool {
	if d.i >= len(d.data) || d.data[d.i] != '[' {
		return false
	}
	return d.sequence(']', elem)
}

// sequence consumes the array or object whose opening bracket is at d.i, up to closing:
// item consumes each element (or member, name included), reporting whether it could.
// It reports false when the sequence is not well formed or nested too deep, or item
// gives up.
func (d *metaDecoder) sequence(closing byte, item func() bool) bool {
	if d.depth++; d.depth > maxMetaDepth {
		return false
	}
	d.i++
	d.skipSpace()
	if d.i < len(d.data) && d.data[d.i] == closing {
		d.i++
		d.depth--
		return true
	}
	for {
		if !item() {
			return false
		}
		d.skipSpace()
		if d.i >= len(d.data) {
			return false
		}
		switch d.data[d.i] {
		case ',':
			d.i++
			d.skipSpace()
		case closing:
			d.i++
			d.depth--
			return true
		default:
			return false
		}
	}
}

// once records bit in *seen and reports whether it was not there yet: a member decoded
// twice merges in ways not worth copying, and is left to encoding/json.
func once[T ~uint8 | ~uint16](seen *T, bit T) bool {
	if *seen&bit != 0 {
		return false
	}
	*seen |= bit
	return true
}

// openObject consumes the '{' of an object at d.i (after whitespace); more reports
// whether a member follows.
func (d *metaDecoder) openObject() (ok, more bool) {
	d.skipSpace()
	if d.i >= len(d.data) || d.data[d.i] != '{' {
		return false, false
	}
	if d.depth++; d.depth > maxMetaDepth {
		return false, false
	}
	d.i++
	d.skipSpace()
	if d.i < len(d.data) && d.data[d.i] == '}' {
		d.i++
		d.depth--
		return true, false
	}
	return true, true
}

// memberName reads a member name that needs no unquoting, and the colon after it. A
// name with escapes is left to encoding/json, which may match it to a field.
func (d *metaDecoder) memberName() ([]byte, bool) {
	if d.i >= len(d.data) || d.data[d.i] != '"' {
		return nil, false
	}
	end := d.plainEnd(d.i + 1)
	if end < 0 {
		return nil, false
	}
	name := d.data[d.i+1 : end]
	d.i = end + 1
	return name, d.colon()
}

// colon consumes the ':' after a member's name, and the whitespace around it.
func (d *metaDecoder) colon() bool {
	d.skipSpace()
	if d.i >= len(d.data) || d.data[d.i] != ':' {
		return false
	}
	d.i++
	d.skipSpace()
	return true
}

// nextMember consumes what follows a member's value: ',' (more is true) or '}'.
func (d *metaDecoder) nextMember() (ok, more bool) {
	d.skipSpace()
	if d.i >= len(d.data) {
		return false, false
	}
	switch d.data[d.i] {
	case ',':
		d.i++
		d.skipSpace()
		return true, true
	case '}':
		d.i++
		d.depth--
		return true, false
	}
	return false, false
}

func (d *metaDecoder) atEnd() bool {
	d.skipSpace()
	return d.i == len(d.data)
}

// stringValue decodes a string value; null and other types are left to encoding/json.
func (d *metaDecoder) stringValue() (string, bool) {
	if d.i >= len(d.data) || d.data[d.i] != '"' {
		return "", false
	}
	return d.string()
}

// boolValue decodes true or false; null and other types are left to encoding/json.
func (d *metaDecoder) boolValue() (v, ok bool) {
	switch {
	case d.literal("true"):
		return true, true
	case d.literal("false"):
		return false, true
	}
	return false, false
}

// stringArray decodes an array of strings. An empty array is an empty, non-nil slice,
// as encoding/json makes it; null and other types are left to encoding/json.
func (d *metaDecoder) stringArray() ([]string, bool) {
	ss := []string{}
	if !d.elements(func() bool {
		s, ok := d.stringValue()
		ss = append(ss, s)
		return ok
	}) {
		return nil, false
	}
	return ss, true
}

// metaValue decodes a _meta value as [Meta.UnmarshalJSON] does: an object, or null
// for none. Other types are errors, whose wording encoding/json gives.
func (d *metaDecoder) metaValue() (Meta, bool) {
	if d.literal("null") {
		return nil, true
	}
	if d.i >= len(d.data) || d.data[d.i] != '{' {
		return nil, false
	}
	return d.object()
}

// appendJSON appends p as encoding/json writes it; an error leaves the error's wording to
// encoding/json.
func (p *CallToolParams) appendJSON(b []byte) ([]byte, error) {
	var err error
	b = append(b, `{"name":`...)
	b = jsonwire.AppendString(b, p.Name)
	if len(p.Arguments) > 0 {
		b = append(b, `,"arguments":`...)
		if b, err = jsonwire.AppendRaw(b, p.Arguments); err != nil {
			return nil, err
		}
	}
	if p.Task != nil {
		b = append(b, `,"task":{`...)
		if p.Task.TTL != nil {
			b = append(b, `"ttl":`...)
			b = strconv.AppendInt(b, *p.Task.TTL, 10)
		}
		b = append(b, '}')
	}
	return appendMeta(b, p.Meta)
}

func appendTaskIDParams(b []byte, id string, meta Meta) ([]byte, error) {
	b = append(b, `{"taskId":`...)
	b = jsonwire.AppendString(b, id)
	return appendMeta(b, meta)
}

// appendMeta appends `,"_meta":{...}` unless meta is empty, then closes the object.
func appendMeta(b []byte, meta Meta) ([]byte, error) {
	if len(meta) > 0 {
		b = append(b, `,"_meta":`...)
		if out, ok := appendOneScalar(b, meta); ok {
			b = out
		} else {
			var err error
			if b, err = jsonwire.AppendMarshal(b, map[string]any(meta)); err != nil {
				return nil, err
			}
		}
	}
	return append(b, '}'), nil
}

// appendOneScalar appends meta as encoding/json writes it when it holds one member
// whose value is a string, an integer, a bool or null (a stream's subscription id, a
// progress token: most of what goes out); for anything else it appends nothing and
// reports false.
func appendOneScalar(b []byte, meta Meta) ([]byte, bool) {
	if len(meta) != 1 {
		return b, false
	}
	for k, v := range meta {
		start := len(b)
		b = append(jsonwire.AppendString(append(b, '{'), k), ':')
		switch v := v.(type) {
		case string:
			b = jsonwire.AppendString(b, v)
		case int:
			b = strconv.AppendInt(b, int64(v), 10)
		case int64:
			b = strconv.AppendInt(b, v, 10)
		case bool:
			b = strconv.AppendBool(b, v)
		case nil:
			b = append(b, "null"...)
		default:
			return b[:start], false
		}
		return append(b, '}'), true
	}
	return b, false
}
