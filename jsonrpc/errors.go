package jsonrpc

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpi-dev/mcpi/internal/jsonwire"
)

// Error codes defined by JSON-RPC 2.0.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
	// CodeConnectionClosed is not sent on the wire: it marks calls failed locally because
	// the connection ended before their response arrived.
	CodeConnectionClosed = -32000
	// CodeRequestCancelled marks a call the caller abandoned.
	CodeRequestCancelled = -32800
)

// Error is a JSON-RPC error object. It is also a Go error, so handlers return it to
// choose the code the peer sees, and callers match it with [errors.As].
type Error struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// NewError returns an error with the given code and message.
func NewError(code int64, msg string) *Error { return &Error{Code: code, Message: msg} }

// Errorf returns an error with a formatted message.
func Errorf(code int64, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

func (e *Error) Error() string {
	if e == nil {
		return "<nil>"
	}
	return fmt.Sprintf("%s (%d)", e.Message, e.Code)
}

// Is makes errors.Is(err, &Error{Code: c}) match any Error with code c, so callers can
// test for a code without caring about the message; a target with a message matches
// errors with that code and message, whatever their data (copies made by [Error.WithData]
// still match their sentinel).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t != nil && t.Code == e.Code && (t.Message == "" || t.Message == e.Message)
}

// WithData returns a copy of e carrying data.
func (e *Error) WithData(data any) *Error {
	c := *e
	b, err := jsonwire.Marshal(data)
	if err == nil {
		c.Data = b
	}
	return &c
}

// Sentinels for errors.Is: each matches any error of its code, whatever its message, so
// its own message is empty. A handler may return one as it is: the peer gets the code's
// standard message ([AsError]).
var (
	ErrParse          = &Error{Code: CodeParseError}
	ErrInvalidRequest = &Error{Code: CodeInvalidRequest}
	ErrMethodNotFound = &Error{Code: CodeMethodNotFound}
	ErrInvalidParams  = &Error{Code: CodeInvalidParams}
	ErrInternal       = &Error{Code: CodeInternalError}
	// ErrClosed is the error of every call still pending when the connection ends.
	ErrClosed = errors.New("jsonrpc: connection closed")
)

// AsError converts any error to a wire error: an [*Error] in the chain is kept as it is
// (one without a message, a sentinel's, gets the standard message of its code, as a
// message is required on the wire), anything else becomes an internal error carrying
// the message.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		if e.Message == "" {
			if msg, ok := standardMessages[e.Code]; ok {
				c := *e
				c.Message = msg
				return &c
			}
		}
		return e
	}
	return &Error{Code: CodeInternalError, Message: err.Error()}
}

// standardMessages are the messages JSON-RPC 2.0 gives its codes.
var standardMessages = map[int64]string{
	CodeParseError:     "Parse error",
	CodeInvalidRequest: "Invalid Request",
	CodeMethodNotFound: "Method not found",
	CodeInvalidParams:  "Invalid params",
	CodeInternalError:  "Internal error",
}

// CallError is a call or notification that failed on this side of the connection: its
// params could not be encoded, it could not be sent, its response could not be received
// (the transport dropped it, as too large), or its result could not be decoded into what
// the caller asked for (the peer answered, with a result of another shape). Op says
// which.
type CallError struct {
	Method string
	Op     CallOp
	Err    error
}

// CallOp is the step of a call that failed.
type CallOp int

// The steps of a call.
const (
	OpEncode  CallOp = iota // encoding the params
	OpSend                  // writing the message
	OpDecode                // decoding the result
	OpReceive               // reading the response
)

func (e *CallError) Error() string {
	switch e.Op {
	case OpEncode:
		return fmt.Sprintf("encoding %s params: %v", e.Method, e.Err)
	case OpSend:
		return fmt.Sprintf("sending %s: %v", e.Method, e.Err)
	case OpReceive:
		return fmt.Sprintf("receiving the response to %s: %v", e.Method, e.Err)
	}
	return fmt.Sprintf("decoding %s result: %v", e.Method, e.Err)
}

func (e *CallError) Unwrap() error { return e.Err }

// MalformedResponseError is a response that could not be decoded (invalid JSON, nested
// deeper than a decoder goes, or members of the wrong types) but whose id could be read:
// the call it answers fails with it, inside a [*CallError] of [OpReceive], at once rather
// than waiting for an answer that has come. It is this side's reading, not an error the
// peer sent: it holds no [*Error].
type MalformedResponseError struct {
	// Reason is what is wrong with the response, as the error a request would get
	// ("parse error: invalid JSON"); Detail says where, when the JSON is invalid.
	Reason, Detail string
}

func (e *MalformedResponseError) Error() string {
	if e.Detail == "" {
		return "malformed response: " + e.Reason
	}
	return "malformed response: " + e.Reason + " (" + e.Detail + ")"
}
