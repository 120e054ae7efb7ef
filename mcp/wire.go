package mcp

import (
	"bytes"
	"encoding/json"
	"sync"
	"unicode/utf8"
)

// marshalNoEscape is json.Marshal without HTML escaping, for the MarshalJSON methods
// of this package. Like the JSON-RPC layer, mcp never writes "<" as "\u003c": MCP
// payloads are full of code and markup, and an escaped copy would make raw traffic
// unreadable and change the bytes of results that pass through unchanged. An encoder
// that does escape (plain json.Marshal) still escapes the output of these methods, as
// it compacts it.
func marshalNoEscape(v any) ([]byte, error) {
	e := encoderPool.Get().(*noEscapeEncoder)
	defer e.release()
	if err := e.enc.Encode(v); err != nil {
		return nil, err
	}
	b := e.buf.Bytes()
	return bytes.Clone(b[:len(b)-1]), nil // without Encode's newline
}

// noEscapeEncoder is a json.Encoder with HTML escaping off, and its buffer. Pooled,
// because building one per call costs two allocations on paths that run per message.
type noEscapeEncoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

var encoderPool = sync.Pool{New: func() any {
	e := &noEscapeEncoder{}
	e.enc = json.NewEncoder(&e.buf)
	e.enc.SetEscapeHTML(false)
	return e
}}

func (e *noEscapeEncoder) release() {
	// A rare huge value should not pin its buffer for good.
	if e.buf.Cap() > 64<<10 {
		return
	}
	e.buf.Reset()
	encoderPool.Put(e)
}

// appendMarshal appends v encoded by marshalNoEscape.
func appendMarshal(b []byte, v any) ([]byte, error) {
	e := encoderPool.Get().(*noEscapeEncoder)
	defer e.release()
	if err := e.enc.Encode(v); err != nil {
		return b, err
	}
	raw := e.buf.Bytes()
	return append(b, raw[:len(raw)-1]...), nil
}

// appendRaw appends raw compacted, as encoding/json writes a json.RawMessage.
func appendRaw(b []byte, raw json.RawMessage) ([]byte, error) {
	buf := bytes.NewBuffer(b)
	if err := json.Compact(buf, raw); err != nil {
		return b, err
	}
	return buf.Bytes(), nil
}

// appendString appends s as a JSON string exactly as encoding/json writes it with HTML
// escaping off: control characters, '"' and '\\' escaped, invalid UTF-8 as \ufffd, and
// U+2028 and U+2029 escaped.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= ' ' && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
