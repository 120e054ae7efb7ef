// Package jsonrpc implements JSON-RPC 2.0 messages and a connection that multiplexes
// outbound calls with concurrently dispatched inbound requests over any [Connection].
//
// The package knows nothing about MCP methods; it only knows requests, notifications,
// responses and the errors the JSON-RPC specification defines.
package jsonrpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// Version is the only value accepted in the "jsonrpc" member.
const Version = "2.0"

// ID is a request id: a string or an integer. The zero ID is "absent" (a notification,
// or the null id of an error response to a message whose id could not be read).
type ID struct {
	str   string
	num   int64
	isStr bool
	isNum bool
}

// Int64ID returns a numeric ID.
func Int64ID(n int64) ID { return ID{num: n, isNum: true} }

// StringID returns a string ID.
func StringID(s string) ID { return ID{str: s, isStr: true} }

// IsValid reports whether the ID is present.
func (id ID) IsValid() bool { return id.isStr || id.isNum }

// Raw returns the ID as a Go value: string, int64, or nil when absent.
func (id ID) Raw() any {
	switch {
	case id.isStr:
		return id.str
	case id.isNum:
		return id.num
	}
	return nil
}

func (id ID) String() string {
	switch {
	case id.isStr:
		return strconv.Quote(id.str)
	case id.isNum:
		return strconv.FormatInt(id.num, 10)
	}
	return "null"
}

// MarshalJSON encodes the ID; an absent ID encodes as null.
func (id ID) MarshalJSON() ([]byte, error) {
	switch {
	case id.isStr:
		return marshalNoEscape(id.str)
	case id.isNum:
		return strconv.AppendInt(nil, id.num, 10), nil
	}
	return []byte("null"), nil
}

// marshalNoEscape is json.Marshal without HTML escaping: MCP payloads are full of code and
// markup, and "<" written as "\u003c" would make raw traffic unreadable and change the bytes
// of every message that passes through unchanged.
func marshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// UnmarshalJSON accepts a string, an integer, or null. Fractions and other types are
// rejected, as JSON-RPC discourages them and MCP forbids them.
func (id *ID) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	*id = ID{}
	switch {
	case bytes.Equal(b, []byte("null")):
		return nil
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*id = StringID(s)
		return nil
	default:
		n, err := strconv.ParseInt(string(b), 10, 64)
		if err != nil {
			return fmt.Errorf("id must be a string or an integer, got %s", truncate(b, 40))
		}
		*id = Int64ID(n)
		return nil
	}
}

// Message is a [*Request] (which may be a notification) or a [*Response].
type Message interface{ isMessage() }

// Request is a call (ID set) or a notification (ID absent).
type Request struct {
	ID     ID
	Method string
	Params json.RawMessage
}

// IsNotification reports whether no response is expected.
func (r *Request) IsNotification() bool { return !r.ID.IsValid() }

// Response carries either Result or Error for the request with the same ID.
type Response struct {
	ID     ID
	Result json.RawMessage
	Error  *Error
}

func (*Request) isMessage()  {}
func (*Response) isMessage() {}

// wire is the union of every member a JSON-RPC message may carry; pointers and raw
// messages distinguish "absent" from "null".
type wire struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// EncodeMessage returns the JSON encoding of m, without a trailing newline.
func EncodeMessage(m Message) ([]byte, error) {
	w := wire{JSONRPC: Version}
	switch m := m.(type) {
	case *Request:
		if m.ID.IsValid() {
			w.ID, _ = m.ID.MarshalJSON()
		}
		w.Method = m.Method
		if len(m.Params) > 0 {
			w.Params = m.Params
		}
	case *Response:
		w.ID, _ = m.ID.MarshalJSON()
		if m.Error != nil {
			w.Error = m.Error
		} else {
			w.Result = m.Result
			if len(w.Result) == 0 {
				w.Result = json.RawMessage("{}")
			}
		}
	default:
		return nil, fmt.Errorf("jsonrpc: cannot encode %T", m)
	}
	return marshalNoEscape(w)
}

// DecodeError is returned by [DecodeMessage] for input that is not a valid JSON-RPC 2.0
// message. Err is the error response to send back; ID is the request's id when it could be
// read, so the reply can name it.
type DecodeError struct {
	ID  ID
	Err *Error
}

func (e *DecodeError) Error() string { return "jsonrpc: " + e.Err.Message }
func (e *DecodeError) Unwrap() error { return e.Err }

// DecodeMessage parses one JSON-RPC 2.0 message strictly. Batches are refused: MCP
// removed them in revision 2025-06-18.
func DecodeMessage(data []byte) (Message, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, &DecodeError{Err: NewError(CodeParseError, "parse error: empty message")}
	}
	// One JSON value and nothing after it: a decoder would stop at the end of the first
	// value and let trailing "]" or "}" through. json.Unmarshal checks the whole input
	// before decoding anything, and reports invalid JSON, and only that, as a
	// *json.SyntaxError, so an object needs no separate json.Valid pass.
	if data[0] != '{' {
		switch {
		case !json.Valid(data):
			return nil, &DecodeError{Err: NewError(CodeParseError, "parse error: invalid JSON")}
		case data[0] == '[':
			return nil, &DecodeError{Err: NewError(CodeInvalidRequest, "invalid request: batches are not supported")}
		default:
			return nil, &DecodeError{Err: NewError(CodeInvalidRequest, "invalid request: a message must be a JSON object")}
		}
	}
	var w wire
	if err := json.Unmarshal(data, &w); err != nil {
		if _, ok := err.(*json.SyntaxError); ok {
			return nil, &DecodeError{Err: NewError(CodeParseError, "parse error: invalid JSON")}
		}
		return nil, &DecodeError{Err: NewError(CodeInvalidRequest, "invalid request: "+err.Error())}
	}
	var id ID
	if w.ID != nil {
		if err := id.UnmarshalJSON(w.ID); err != nil {
			return nil, &DecodeError{Err: NewError(CodeInvalidRequest, "invalid request: "+err.Error())}
		}
	}
	if w.JSONRPC != Version {
		return nil, &DecodeError{ID: id, Err: NewError(CodeInvalidRequest, fmt.Sprintf("invalid request: jsonrpc must be %q", Version))}
	}
	hasResult := w.Result != nil
	hasError := w.Error != nil
	switch {
	case w.Method != "":
		if hasResult || hasError {
			return nil, &DecodeError{ID: id, Err: NewError(CodeInvalidRequest, "invalid request: a request cannot carry result or error")}
		}
		if w.ID != nil && !id.IsValid() {
			return nil, &DecodeError{Err: NewError(CodeInvalidRequest, "invalid request: id must not be null")}
		}
		if p := bytes.TrimSpace(w.Params); len(p) > 0 && p[0] != '{' && p[0] != '[' {
			return nil, &DecodeError{ID: id, Err: NewError(CodeInvalidRequest, "invalid request: params must be an object or an array")}
		}
		return &Request{ID: id, Method: w.Method, Params: w.Params}, nil
	case hasResult && hasError:
		return nil, &DecodeError{Err: NewError(CodeInvalidRequest, "invalid response: both result and error")}
	case hasResult || hasError:
		if hasError && (w.Error.Message == "" && w.Error.Code == 0) {
			return nil, &DecodeError{Err: NewError(CodeInvalidRequest, "invalid response: error without code")}
		}
		if hasResult && !id.IsValid() {
			return nil, &DecodeError{Err: NewError(CodeInvalidRequest, "invalid response: result without id")}
		}
		return &Response{ID: id, Result: w.Result, Error: w.Error}, nil
	default:
		return nil, &DecodeError{ID: id, Err: NewError(CodeInvalidRequest, "invalid request: no method, result or error")}
	}
}

func truncate(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}
