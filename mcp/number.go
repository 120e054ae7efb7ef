package mcp

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
)

// The integer fields a peer sends (a task's ttl and pollInterval, ttlMs and
// pollIntervalMs, a resource's size, a completion's total, a sampling request's
// maxTokens) take any JSON number: the schema types some of them as number, and a server
// that computes them in floating point sends 2000.0 or 1.5. A fraction is rounded to the
// nearest integer (half away from zero), and a number beyond the range of int64 (1e300)
// is the nearest end of it, so that one odd number costs nothing else of the message it
// is in; what the number means is bounded where it is used (see [Milliseconds]). A value
// of another type (a string) is still a type error.

// wireInt is an int64 field as decoded from a peer, for encoding/json: it takes any JSON
// number, as [intOf] reads it. It encodes as the int64 it holds.
type wireInt int64

var int64Type = reflect.TypeFor[int64]()

// UnmarshalJSON decodes a JSON number; null leaves n as it is, as for an int64.
func (n *wireInt) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		return nil
	}
	v, ok := intOf(data)
	if !ok {
		return &json.UnmarshalTypeError{Value: valueKind(data), Type: int64Type}
	}
	*n = wireInt(v)
	return nil
}

// intOf reads the JSON number literal lit as an int64: an integer as it is, a fraction
// rounded to the nearest integer (half away from zero), a number beyond the range of
// int64 as the nearest end of it. ok is false when lit is no JSON number.
func intOf(lit []byte) (n int64, ok bool) {
	if n, err := strconv.ParseInt(string(lit), 10, 64); err == nil {
		return n, true
	}
	if !isNumber(lit) {
		return 0, false
	}
	f, _ := strconv.ParseFloat(string(lit), 64) // ±Inf beyond float64, 0 below it
	switch f = math.Round(f); {
	case f >= math.MaxInt64: // 2^63, as float64 has no MaxInt64
		return math.MaxInt64, true
	case f <= math.MinInt64:
		return math.MinInt64, true
	}
	return int64(f), true
}

// isNumber reports whether lit is one JSON number literal.
func isNumber(lit []byte) bool {
	d := metaDecoder{data: lit}
	return d.numberEnd() == len(lit)
}

// valueKind names the JSON value data is, as encoding/json names it in a type error.
func valueKind(data []byte) string {
	if len(data) > 0 {
		switch data[0] {
		case '"':
			return "string"
		case 't', 'f':
			return "bool"
		case '[':
			return "array"
		case '{':
			return "object"
		}
	}
	return "number"
}

// UnmarshalJSON decodes m as encoding/json decodes its fields, its ttl taking any JSON
// number (see wireInt).
func (m *TaskMetadata) UnmarshalJSON(data []byte) error {
	type TaskMetadata struct {
		TTL *wireInt `json:"ttl,omitempty"`
	}
	w := TaskMetadata{(*wireInt)(m.TTL)}
	err := json.Unmarshal(data, &w)
	m.TTL = (*int64)(w.TTL)
	return err
}

// UnmarshalJSON decodes r as encoding/json decodes its fields, its size taking any JSON
// number (see wireInt).
func (r *Resource) UnmarshalJSON(data []byte) error {
	type fields Resource
	type Resource struct {
		*fields
		Size *wireInt `json:"size,omitempty"`
	}
	w := Resource{(*fields)(r), (*wireInt)(r.Size)}
	err := json.Unmarshal(data, &w)
	r.Size = (*int64)(w.Size)
	return err
}

// UnmarshalJSON decodes r as encoding/json decodes its fields, its ttlMs taking any JSON
// number (see wireInt).
func (r *DiscoverResult) UnmarshalJSON(data []byte) error {
	type fields DiscoverResult
	type DiscoverResult struct {
		*fields
		TTLMs *wireInt `json:"ttlMs,omitempty"`
	}
	w := DiscoverResult{(*fields)(r), (*wireInt)(r.TTLMs)}
	err := json.Unmarshal(data, &w)
	r.TTLMs = (*int64)(w.TTLMs)
	return err
}

// UnmarshalJSON decodes c as encoding/json decodes its fields, its total taking any JSON
// number (see wireInt).
func (c *Completion) UnmarshalJSON(data []byte) error {
	type fields Completion
	type Completion struct {
		*fields
		Total *wireInt `json:"total,omitempty"`
	}
	w := Completion{(*fields)(c), (*wireInt)(c.Total)}
	err := json.Unmarshal(data, &w)
	c.Total = (*int64)(w.Total)
	return err
}

// UnmarshalJSON decodes p as encoding/json decodes its fields, its maxTokens taking any
// JSON number (see wireInt).
func (p *CreateMessageParams) UnmarshalJSON(data []byte) error {
	type fields CreateMessageParams
	type CreateMessageParams struct {
		*fields
		MaxTokens wireInt `json:"maxTokens"`
	}
	w := CreateMessageParams{(*fields)(p), wireInt(p.MaxTokens)}
	err := json.Unmarshal(data, &w)
	p.MaxTokens = int64(w.MaxTokens)
	return err
}
