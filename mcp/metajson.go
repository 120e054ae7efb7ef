package mcp

import (
	"encoding/json"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// The decoder below turns a _meta object into the values encoding/json produces with
// UseNumber (map[string]any, []any, string, json.Number, bool, nil) in one pass, without
// the buffer, second validation and reflection of a json.Decoder on every message.
//
// It validates as it goes, because UnmarshalJSON may be called directly with any bytes.
// Whatever it does not take (a syntax error, a value that is not an object, trailing
// bytes, excessive nesting) is left to encoding/json, so errors and edge cases stay
// exactly encoding/json's.

// maxMetaDepth is encoding/json's nesting limit.
const maxMetaDepth = 10000

type metaDecoder struct {
	data  []byte
	i     int
	depth int
}

// decodeMetaObject decodes data, which must hold one JSON object and nothing but
// whitespace around it; ok is false otherwise.
func decodeMetaObject(data []byte) (m map[string]any, ok bool) {
	d := metaDecoder{data: data}
	d.skipSpace()
	if d.i >= len(data) || data[d.i] != '{' {
		return nil, false
	}
	if m, ok = d.object(); !ok {
		return nil, false
	}
	d.skipSpace()
	return m, d.i == len(data)
}

func (d *metaDecoder) skipSpace() {
	for d.i < len(d.data) {
		switch d.data[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *metaDecoder) value() (any, bool) {
	if d.i >= len(d.data) {
		return nil, false
	}
	switch c := d.data[d.i]; {
	case c == '{':
		m, ok := d.object()
		return m, ok
	case c == '[':
		return d.array()
	case c == '"':
		s, ok := d.string()
		return s, ok
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	case c == '-' || '0' <= c && c <= '9':
		return d.number()
	}
	return nil, false
}

func (d *metaDecoder) literal(lit string) bool {
	if len(d.data)-d.i < len(lit) || string(d.data[d.i:d.i+len(lit)]) != lit {
		return false
	}
	d.i += len(lit)
	return true
}

// object decodes the object at d.i, which is '{'.
func (d *metaDecoder) object() (map[string]any, bool) {
	m := map[string]any{}
	if !d.sequence('}', func() bool {
		if d.i >= len(d.data) || d.data[d.i] != '"' {
			return false
		}
		k, ok := d.key()
		if !ok || !d.colon() {
			return false
		}
		v, ok := d.value()
		m[k] = v
		return ok
	}) {
		return nil, false
	}
	return m, true
}

// array decodes the array at d.i, which is '['. An empty array is an empty, non-nil
// slice, as encoding/json makes it.
func (d *metaDecoder) array() (any, bool) {
	a := []any{}
	if !d.elements(func() bool {
		v, ok := d.value()
		a = append(a, v)
		return ok
	}) {
		return nil, false
	}
	return a, true
}

// key decodes an object key, sharing the strings of the keys MCP itself puts in _meta
// instead of allocating each.
func (d *metaDecoder) key() (string, bool) {
	start := d.i + 1
	if end := d.plainEnd(start); end >= 0 {
		d.i = end + 1
		switch k := d.data[start:end]; string(k) {
		case MetaRelatedTask:
			return MetaRelatedTask, true
		case "taskId":
			return "taskId", true
		case MetaProgressToken:
			return MetaProgressToken, true
		default:
			return string(k), true
		}
	}
	return d.string()
}

// plainEnd returns the index of the closing quote of a string whose contents start at
// start and need no unquoting (printable ASCII without escapes), or -1.
func (d *metaDecoder) plainEnd(start int) int {
	for i := start; i < len(d.data); i++ {
		switch c := d.data[i]; {
		case c == '"':
			return i
		case c == '\\' || c < ' ' || c >= utf8.RuneSelf:
			return -1
		}
	}
	return -1
}

// string decodes the string at d.i, which is '"', exactly as encoding/json unquotes:
// invalid UTF-8 and lone surrogates become U+FFFD.
func (d *metaDecoder) string() (string, bool) {
	start := d.i + 1
	if end := d.plainEnd(start); end >= 0 {
		d.i = end + 1
		return string(d.data[start:end]), true
	}
	var b []byte
	i := start
	for i < len(d.data) {
		switch c := d.data[i]; {
		case c == '"':
			d.i = i + 1
			return string(b), true
		case c == '\\':
			if i+1 >= len(d.data) {
				return "", false
			}
			switch e := d.data[i+1]; e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r := getu4(d.data[i:])
				if r < 0 {
					return "", false
				}
				i += 6
				if utf16.IsSurrogate(r) {
					if dec := utf16.DecodeRune(r, getu4(d.data[i:])); dec != unicode.ReplacementChar {
						i += 6
						b = utf8.AppendRune(b, dec)
						continue
					}
					r = unicode.ReplacementChar
				}
				b = utf8.AppendRune(b, r)
				continue
			default:
				return "", false
			}
			i += 2
		case c < ' ':
			return "", false
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			r, size := utf8.DecodeRune(d.data[i:])
			b = utf8.AppendRune(b, r)
			i += size
		}
	}
	return "", false
}

// getu4 decodes \uXXXX at the start of s, or returns -1.
func getu4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c = c - '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// number checks the JSON number grammar and keeps the literal, as UseNumber does.
func (d *metaDecoder) number() (any, bool) {
	end := d.numberEnd()
	if end < 0 {
		return nil, false
	}
	n := json.Number(d.data[d.i:end])
	d.i = end
	return n, true
}

// numberEnd returns the end of the number at d.i, or -1 if there is none.
func (d *metaDecoder) numberEnd() int {
	s, i := d.data, d.i
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && '1' <= s[i] && s[i] <= '9':
		i = digits(s, i)
	default:
		return -1
	}
	if i < len(s) && s[i] == '.' {
		j := digits(s, i+1)
		if j == i+1 {
			return -1
		}
		i = j
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := digits(s, i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

// skipValue checks the value at d.i and moves past it without building it.
func (d *metaDecoder) skipValue() bool {
	if d.i >= len(d.data) {
		return false
	}
	switch c := d.data[d.i]; {
	case c == '[':
		return d.sequence(']', d.skipValue)
	case c == '{':
		return d.sequence('}', func() bool {
			return d.i < len(d.data) && d.data[d.i] == '"' && d.skipString() && d.colon() && d.skipValue()
		})
	case c == '"':
		return d.skipString()
	case c == 't':
		return d.literal("true")
	case c == 'f':
		return d.literal("false")
	case c == 'n':
		return d.literal("null")
	}
	end := d.numberEnd()
	if end < 0 {
		return false
	}
	d.i = end
	return true
}

// skipString checks the string at d.i, which is '"', and moves past it.
func (d *metaDecoder) skipString() bool {
	for i := d.i + 1; i < len(d.data); {
		switch c := d.data[i]; {
		case c == '"':
			d.i = i + 1
			return true
		case c == '\\':
			if i+1 >= len(d.data) {
				return false
			}
			switch d.data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if getu4(d.data[i:]) < 0 {
					return false
				}
				i += 6
			default:
				return false
			}
		case c < ' ':
			return false
		default:
			i++
		}
	}
	return false
}

func digits(s []byte, i int) int {
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	return i
}
