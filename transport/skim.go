package transport

import (
	"encoding/json"
	"fmt"

	"github.com/mcpi-dev/mcpi/internal/jsonwire"
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

// skimmer reads what a dropped frame says of itself (see [jsonwire.Skimmer]), and its
// size.
type skimmer struct {
	jsonwire.Skimmer
	// size counts the bytes written; prev and last are the last two, to tell the line
	// terminator that ends them, which is not the frame's.
	size       int64
	prev, last byte
}

// write takes the next piece of the frame.
func (k *skimmer) write(p []byte) {
	k.size += int64(len(p))
	switch len(p) {
	case 0:
	case 1:
		k.prev, k.last = k.last, p[0]
	default:
		k.prev, k.last = p[len(p)-2], p[len(p)-1]
	}
	k.Write(p)
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

// decodeError is what the skimmed frame, dropped for being over limit bytes, gives its
// reader: the error to answer a request with, naming its id, or the response's id and
// cause, for the call it answers to fail.
func (k *skimmer) decodeError(limit int) *jsonrpc.DecodeError {
	de := &jsonrpc.DecodeError{
		Err:   jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "message too large: the limit is %d bytes", limit),
		Cause: &MessageTooLargeError{Size: k.frameSize(), Limit: int64(limit)},
	}
	rawID, method, response, ok := k.Frame()
	if !ok {
		return de
	}
	var id jsonrpc.ID
	if rawID != nil && json.Unmarshal(rawID, &id) != nil {
		return de
	}
	switch {
	case method && !response:
		de.ID = id
	case response && !method:
		de.ID, de.Response = id, true
	}
	return de
}
