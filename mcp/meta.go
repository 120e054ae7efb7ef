package mcp

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
)

// Meta is the `_meta` object that requests, results, notifications and many
// data objects may carry. Keys are free-form; the ones this package knows
// have constants (MetaRelatedTask, MetaProgressToken, ...) and accessors.
//
// Decoding keeps numbers as [json.Number], so that integers such as progress
// tokens survive a round trip exactly. Read them through the accessors, or
// convert the json.Number yourself.
type Meta map[string]any

// UnmarshalJSON decodes with UseNumber; see [Meta].
func (m *Meta) UnmarshalJSON(data []byte) error {
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		*m = nil
		return nil
	}
	if raw, ok := decodeMetaObject(data); ok {
		*m = raw
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var raw map[string]any
	if err := dec.Decode(&raw); err != nil {
		return err
	}
	*m = raw
	return nil
}

// Clone returns a shallow copy of m (nil stays nil).
func (m Meta) Clone() Meta {
	if m == nil {
		return nil
	}
	c := make(Meta, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// set stores v under key, allocating the map when needed.
func (m *Meta) set(key string, v any) {
	if *m == nil {
		*m = Meta{}
	}
	(*m)[key] = v
}

// RelatedTask returns the task ID under [MetaRelatedTask], which ties a
// side-channel request, a notification or a tasks/result response to a task.
func (m Meta) RelatedTask() (taskID string, ok bool) {
	switch v := m[MetaRelatedTask].(type) {
	case map[string]any:
		id, ok := v["taskId"].(string)
		return id, ok
	case RelatedTaskMetadata:
		return v.TaskID, true
	case *RelatedTaskMetadata:
		if v != nil {
			return v.TaskID, true
		}
	case json.RawMessage:
		var r RelatedTaskMetadata
		if json.Unmarshal(v, &r) == nil && r.TaskID != "" {
			return r.TaskID, true
		}
	}
	return "", false
}

// SetRelatedTask stores {"taskId": id} under [MetaRelatedTask], allocating
// the map if it is nil. It stores the same shape that decoding produces, so a
// value built here compares equal to one read off the wire.
func (m *Meta) SetRelatedTask(taskID string) {
	m.set(MetaRelatedTask, map[string]any{"taskId": taskID})
}

// ProgressToken returns the request's progress token, normalised to a string
// or an int64 (a non-integral number comes back as float64). ok is false when
// there is no token or it is neither a string nor a number.
func (m Meta) ProgressToken() (any, bool) {
	v, present := m[MetaProgressToken]
	if !present {
		return nil, false
	}
	return NormalizeID(v)
}

// SetProgressToken stores a progress token (a string or an integer).
func (m *Meta) SetProgressToken(token any) {
	m.set(MetaProgressToken, token)
}

// ModelImmediateResponse returns the string under
// [MetaModelImmediateResponse], if any.
func (m Meta) ModelImmediateResponse() (string, bool) {
	s, ok := m[MetaModelImmediateResponse].(string)
	return s, ok
}

// SetModelImmediateResponse stores s under [MetaModelImmediateResponse].
func (m *Meta) SetModelImmediateResponse(s string) {
	m.set(MetaModelImmediateResponse, s)
}

// NormalizeID turns a decoded JSON-RPC-style identifier (a request ID or a
// progress token: string or number) into a comparable Go value: a string, an
// int64 for integers, or a float64 for other numbers. It accepts the forms
// that encoding/json produces (float64, json.Number) and Go integer types.
// ok is false for anything else, including nil.
func NormalizeID(v any) (any, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return i, true
		}
		f, err := x.Float64()
		if err != nil {
			return nil, false
		}
		return normalizeFloat(f), true
	case float64:
		return normalizeFloat(x), true
	case float32:
		return normalizeFloat(float64(x)), true
	case int:
		return int64(x), true
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case uint:
		return NormalizeID(uint64(x))
	case uint8:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint32:
		return int64(x), true
	case uint64:
		if x <= math.MaxInt64 {
			return int64(x), true
		}
		return float64(x), true
	}
	return nil, false
}

func normalizeFloat(f float64) any {
	if f == math.Trunc(f) && f >= math.MinInt64 && f < math.MaxInt64 {
		return int64(f)
	}
	return f
}

// decodeID decodes a string-or-number identifier and normalises it with
// [NormalizeID]. Absent or null gives nil.
func decodeID(raw json.RawMessage) (any, error) {
	if len(raw) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if n, ok := NormalizeID(v); ok {
		return n, nil
	}
	return v, nil
}
