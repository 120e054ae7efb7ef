// Package jsonwire holds the JSON encoding primitives the wire packages share (jsonrpc,
// mcp, tasks, client), one copy each: the string escaper, marshalling without HTML
// escaping, the validating scanner and compaction of raw values, and a call of
// UnmarshalJSON without encoding/json's reflection around it.
//
// Everything here writes exactly the bytes, and accepts exactly the input, that
// encoding/json does with HTML escaping off; the tests hold it to encoding/json.
package jsonwire

import (
	"bytes"
	"encoding/json"
	"reflect"
	"sync"
)

// Marshal is json.Marshal without HTML escaping: MCP payloads are full of code and
// markup, and "<" written as "\u003c" would make raw traffic unreadable and change the
// bytes of every message that passes through unchanged.
//
// A [json.Marshaler] (a json.RawMessage, or a type with a hand-written encoder) is
// called directly, its output checked and compacted as encoding/json would. Output
// that is compact already is returned as it is, not copied (except a json.RawMessage's,
// whose bytes are its holder's): a MarshalJSON that returns bytes it changes later
// would see the change.
func Marshal(v any) ([]byte, error) {
	if m, ok := v.(json.Marshaler); ok {
		if _, raw := m.(json.RawMessage); raw {
			return appendMarshaler(nil, m)
		}
		return marshaler(m)
	}
	e := encoders.Get().(*encoder)
	defer e.release()
	if err := e.enc.Encode(v); err != nil {
		return nil, err
	}
	b := e.buf.Bytes()
	return bytes.Clone(b[:len(b)-1]), nil // without Encode's newline
}

// marshaler returns m's encoding as [Marshal] says.
func marshaler(m json.Marshaler) ([]byte, error) {
	if rv := reflect.ValueOf(m); rv.Kind() == reflect.Pointer && rv.IsNil() {
		return []byte("null"), nil
	}
	raw, err := m.MarshalJSON()
	if err == nil {
		s := scanner{data: raw}
		if err = s.whole(); err == nil {
			if !s.spaced {
				return raw, nil
			}
			return AppendRaw(make([]byte, 0, len(raw)), raw)
		}
		err = json.Compact(new(bytes.Buffer), raw) // the error encoding/json gives
	}
	return nil, &json.MarshalerError{Type: reflect.TypeOf(m), Err: err}
}

// AppendMarshal appends what [Marshal] returns for v to b. On error, b is returned as
// it was.
func AppendMarshal(b []byte, v any) ([]byte, error) {
	if m, ok := v.(json.Marshaler); ok {
		out, err := appendMarshaler(b, m)
		if err != nil {
			return b, err
		}
		return out, nil
	}
	e := encoders.Get().(*encoder)
	defer e.release()
	if err := e.enc.Encode(v); err != nil {
		return b, err
	}
	raw := e.buf.Bytes()
	return append(b, raw[:len(raw)-1]...), nil
}

// appendMarshaler appends m's encoding as encoding/json writes a top-level Marshaler: a
// nil pointer as null, errors wrapped in a *json.MarshalerError, the output checked and
// compacted.
func appendMarshaler(b []byte, m json.Marshaler) ([]byte, error) {
	if rv := reflect.ValueOf(m); rv.Kind() == reflect.Pointer && rv.IsNil() {
		return append(b, "null"...), nil
	}
	raw, err := m.MarshalJSON()
	if err == nil {
		var out []byte
		if out, err = AppendRaw(b, raw); err == nil {
			return out, nil
		}
		// The error encoding/json gives, which names no offset.
		err = json.Compact(new(bytes.Buffer), raw)
	}
	return nil, &json.MarshalerError{Type: reflect.TypeOf(m), Err: err}
}

// encoder is a json.Encoder with HTML escaping off, writing to its own buffer, kept for
// reuse: a fresh encoder and a buffer grown from nothing cost more than encoding a small
// value.
type encoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

var encoders = sync.Pool{New: func() any {
	e := new(encoder)
	e.enc = json.NewEncoder(&e.buf)
	e.enc.SetEscapeHTML(false)
	return e
}}

// maxPooledBuffer keeps one huge value from pinning its buffer in the pool.
const maxPooledBuffer = 1 << 20

func (e *encoder) release() {
	if e.buf.Cap() > maxPooledBuffer {
		return
	}
	e.buf.Reset()
	encoders.Put(e)
}

// Unmarshal is json.Unmarshal. When v is a non-nil pointer that implements
// [json.Unmarshaler], data is checked by the scanner of this package instead of
// encoding/json's, and v.UnmarshalJSON is called directly with the value (without the
// whitespace around it), as encoding/json would call it.
func Unmarshal(data []byte, v any) error {
	if u, ok := v.(json.Unmarshaler); ok {
		if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && !rv.IsNil() {
			if start, end, err := span(data); err == nil {
				return u.UnmarshalJSON(data[start:end])
			}
			// Invalid JSON: the error encoding/json gives.
		}
	}
	return json.Unmarshal(data, v)
}
