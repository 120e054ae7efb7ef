package jsonwire

import "bytes"

// Skimmer reads what a JSON-RPC frame says of itself, a piece at a time and keeping
// nothing but a few bytes: the top-level "id" and whether the object has a "method" (a
// request or notification) or a "result" or "error" (a response). It follows only the
// nesting of brackets and strings, not the grammar, so a frame that is too large to take,
// nested too deep for a decoder, or holds a value that is no JSON (NaN) still tells who it
// answers. A frame that is not an object, or names an id too long to keep, tells nothing.
// The members may come in any order (the TypeScript SDK writes the id after the result).
type Skimmer struct {
	// depth is the nesting of objects and arrays, inString and escaped follow strings at
	// any depth, and state the top-level object; key collects a top-level member name,
	// value the top-level "id" value while it is read, and id holds it once read.
	depth             int
	inString, escaped bool
	state             skimState
	key, value, id    []byte
	method, response  bool
	broken            bool // not a JSON object
}

type skimState int

const (
	skimStart skimState = iota // before the opening brace
	skimKey                    // expecting a member name
	skimColon                  // after a member name
	skimValue                  // in a member's value
	skimEnd                    // after the closing brace
)

// maxSkimKey and maxSkimID bound what a Skimmer keeps.
const (
	maxSkimKey = 16
	maxSkimID  = 256
)

// Write takes the next piece of the frame.
func (k *Skimmer) Write(p []byte) {
	for _, c := range p {
		if k.broken {
			return
		}
		k.byte(c)
	}
}

// Frame says what the frame written so far is: the raw value of its top-level "id" (nil
// when it has none), and whether it has a "method" or a "result" or "error" member. ok
// is false unless the frame was one whole object at its top level.
func (k *Skimmer) Frame() (id []byte, method, response, ok bool) {
	if k.broken || k.state != skimEnd {
		return nil, false, false, false
	}
	return k.id, k.method, k.response, true
}

func (k *Skimmer) byte(c byte) {
	top := k.depth == 1
	if k.inString {
		switch {
		case k.escaped:
			k.escaped = false
		case c == '\\':
			k.escaped = true
		case c == '"':
			k.inString = false
		}
		switch {
		case top && k.state == skimKey && k.inString:
			// A longer name is cut short, which keeps it unlike the names looked for.
			if len(k.key) < maxSkimKey {
				k.key = append(k.key, c)
			}
		case top && k.state == skimKey:
			k.state = skimColon
		case top && k.state == skimValue && k.value != nil:
			k.keep(c)
		}
		return
	}
	switch c {
	case ' ', '\t', '\r', '\n':
		return
	}
	switch k.state {
	case skimStart:
		if c != '{' {
			k.broken = true
			return
		}
		k.depth, k.state = 1, skimKey
	case skimKey:
		switch c {
		case '"':
			k.inString, k.key = true, k.key[:0]
		case '}':
			k.depth, k.state = 0, skimEnd
		default:
			k.broken = true
		}
	case skimColon:
		if c != ':' {
			k.broken = true
			return
		}
		k.state = skimValue
		switch string(k.key) {
		case "id":
			k.value = make([]byte, 0, 16)
		case "method":
			k.method = true
		case "result", "error":
			k.response = true
		}
	case skimValue:
		switch {
		case c == '"':
			k.inString = true
		case c == '{' || c == '[':
			k.depth++
		case (c == '}' || c == ']') && k.depth > 1:
			k.depth--
		case k.depth == 1 && (c == ',' || c == '}'):
			if k.value != nil {
				k.id, k.value = k.value, nil
			}
			k.state = skimKey
			if c == '}' {
				k.depth, k.state = 0, skimEnd
			}
			return
		}
		if k.value != nil {
			k.keep(c)
		}
	case skimEnd:
		k.broken = true
	}
}

// keep adds c to the id value being read, unless it is too long to be one.
func (k *Skimmer) keep(c byte) {
	if len(k.value) >= maxSkimID {
		k.value = nil
		return
	}
	k.value = append(k.value, c)
}

// SkimString returns the value of obj's first top-level member whose name literal is
// name (quotes included, escapes as written) when it is a string without escapes,
// quotes taken off. As [EachMember] it does not check obj: it is a guess for a fast
// path, which the decoding that follows must confirm. ok is false when obj is no
// object, has no such member before it breaks off, or its value is something else.
func SkimString(obj []byte, name string) (_ []byte, ok bool) {
	var found []byte
	EachMember(obj, func(n, value []byte) {
		if found == nil && string(n) == name {
			found = value
		}
	})
	if len(found) < 2 || found[0] != '"' || found[len(found)-1] != '"' {
		return nil, false
	}
	v := found[1 : len(found)-1]
	if bytes.IndexByte(v, '\\') >= 0 {
		return nil, false
	}
	return v, true
}
