package transport

import (
	"encoding/json"
	"fmt"

	"github.com/mcpi-dev/mcpi/jsonrpc"
)

// MessageTooLargeError is an inbound message over the size limit, which was dropped
// unread. Size is its length in bytes, or -1 when it is not known (a body cut off at the
// limit); Limit is the limit (see [DefaultMaxMessageSize] and the MaxMessageSize options).
// A call whose response it was fails with it.
type MessageTooLargeError struct {
	Size, Limit int64
}

func (e *MessageTooLargeError) Error() string {
	if e.Size < 0 {
		return fmt.Sprintf("message too large (over the limit of %d bytes)", e.Limit)
	}
	return fmt.Sprintf("message too large (%d bytes, limit %d)", e.Size, e.Limit)
}

// skimmer reads what a dropped frame says of itself, a piece at a time and keeping
// nothing but a few bytes: the top-level "id" and whether the object has a "method" (a
// request or notification) or a "result" or "error" (a response). A frame that is not a
// JSON object, or names an id too long to keep, tells nothing. The members may come in
// any order (the TypeScript SDK writes the id after the result).
type skimmer struct {
	// size counts the bytes written; prev and last are the last two, to tell the line
	// terminator that ends them, which is not the frame's.
	size       int64
	prev, last byte

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

// maxSkimKey and maxSkimID bound what a skimmer keeps.
const (
	maxSkimKey = 16
	maxSkimID  = 256
)

// write takes the next piece of the frame.
func (k *skimmer) write(p []byte) {
	k.size += int64(len(p))
	for _, c := range p {
		k.prev, k.last = k.last, c
		if !k.broken {
			k.byte(c)
		}
	}
}

// frameSize is the size of what was written, without its line terminator.
func (k *skimmer) frameSize() int64 {
	switch {
	case k.last != '\n':
		return k.size
	case k.prev == '\r':
		return k.size - 2
	}
	return k.size - 1
}

func (k *skimmer) byte(c byte) {
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
func (k *skimmer) keep(c byte) {
	if len(k.value) >= maxSkimID {
		k.value = nil
		return
	}
	k.value = append(k.value, c)
}

// decodeError is what the skimmed frame, dropped for being over limit bytes, gives its
// reader: the error to answer a request with, naming its id, or the response's id and
// cause, for the call it answers to fail.
func (k *skimmer) decodeError(limit int) *jsonrpc.DecodeError {
	de := &jsonrpc.DecodeError{
		Err:   jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "message too large: the limit is %d bytes", limit),
		Cause: &MessageTooLargeError{Size: k.frameSize(), Limit: int64(limit)},
	}
	if k.broken || k.state != skimEnd {
		return de
	}
	var id jsonrpc.ID
	if k.id != nil && json.Unmarshal(k.id, &id) != nil {
		return de
	}
	switch {
	case k.method && !k.response:
		de.ID = id
	case k.response && !k.method:
		de.ID, de.Response = id, true
	}
	return de
}
