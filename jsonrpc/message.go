// Package jsonrpc implements JSON-RPC 2.0 messages and a connection that multiplexes
// outbound calls with concurrently dispatched inbound requests over any [Connection].
//
// The package knows nothing about MCP methods; it only knows requests, notifications,
// responses and the errors the JSON-RPC specification defines.
package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpi-dev/mcpi/internal/jsonwire"
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
func (id ID) MarshalJSON() ([]byte, error) { return id.appendJSON(nil), nil }

func (id ID) appendJSON(b []byte) []byte {
	switch {
	case id.isStr:
		return jsonwire.AppendString(b, id.str)
	case id.isNum:
		return strconv.AppendInt(b, id.num, 10)
	}
	return append(b, "null"...)
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
		if !jsonwire.Valid(b) {
			var s string
			return json.Unmarshal(b, &s) // the error encoding/json gives
		}
		str := unquote(b)
		if !exactString(b, str) {
			// Decoded with U+FFFD in its place, the id would come back in the reply as
			// one the peer never sent, and its call would wait for ever.
			return errors.New("id must be a string of valid UTF-8")
		}
		*id = StringID(str)
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

	// after is what its handler asked to run once the response is written
	// ([AfterResponse]); deferrable says the Conn that serves it runs such a function.
	after      func()
	deferrable bool
	// quick is the Conn whose [Options.Quick] handler has the request, for [AnswerLater];
	// answer, set once the handler took it up, is the function AnswerLater gave it.
	quick  *Conn
	answer func(any, error)
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

// EncodeMessage returns the JSON encoding of m, without a trailing newline. Members come
// in the order jsonrpc, id, method, params or result or error; raw members are checked
// and compacted onto one line, so a message can be framed by newlines.
func EncodeMessage(m Message) ([]byte, error) {
	var b []byte
	var err error
	switch m := m.(type) {
	case *Request:
		b = make([]byte, 0, encodedSize+len(m.ID.str)+len(m.Method)+len(m.Params))
		b = append(b, `{"jsonrpc":"2.0"`...)
		if m.ID.IsValid() {
			b = append(b, `,"id":`...)
			b = m.ID.appendJSON(b)
		}
		if m.Method != "" {
			b = append(b, `,"method":`...)
			b = jsonwire.AppendString(b, m.Method)
		}
		if len(m.Params) > 0 {
			b = append(b, `,"params":`...)
			if b, err = jsonwire.AppendRaw(b, m.Params); err != nil {
				return nil, fmt.Errorf("jsonrpc: params of %s are not valid JSON: %w", m.Method, err)
			}
		}
	case *Response:
		size := encodedSize + len(m.ID.str) + len(m.Result)
		if m.Error != nil {
			size += len(m.Error.Message) + len(m.Error.Data)
		}
		b = make([]byte, 0, size)
		b = append(b, `{"jsonrpc":"2.0","id":`...)
		b = m.ID.appendJSON(b)
		switch {
		case m.Error != nil:
			b = append(b, `,"error":{"code":`...)
			b = strconv.AppendInt(b, m.Error.Code, 10)
			b = append(b, `,"message":`...)
			b = jsonwire.AppendString(b, m.Error.Message)
			if len(m.Error.Data) > 0 {
				b = append(b, `,"data":`...)
				if b, err = jsonwire.AppendRaw(b, m.Error.Data); err != nil {
					return nil, fmt.Errorf("jsonrpc: error data is not valid JSON: %w", err)
				}
			}
			b = append(b, '}')
		case len(m.Result) == 0:
			b = append(b, `,"result":{}`...)
		default:
			b = append(b, `,"result":`...)
			if b, err = jsonwire.AppendRaw(b, m.Result); err != nil {
				return nil, fmt.Errorf("jsonrpc: result is not valid JSON: %w", err)
			}
		}
	default:
		return nil, fmt.Errorf("jsonrpc: cannot encode %T", m)
	}
	return append(b, '}'), nil
}

// encodedSize is what a message adds to its strings and raw members, with room for the
// newline a line transport appends, so that most messages take one allocation.
const encodedSize = 80

// DecodeError is returned by [DecodeMessage] for input that is not a valid JSON-RPC 2.0
// message. Err is the error response to send back; ID is the request's id when it could be
// read, so the reply can name it.
//
// A transport that drops a frame it could not take (one over its size limit) says what it
// could tell of it: Response reports a frame that is a response, whose ID is then the id
// of the call it answers, and Cause why it was dropped. A [Conn] fails that call with
// Cause and sends no reply, since a response is never answered.
type DecodeError struct {
	ID       ID
	Err      *Error
	Response bool
	Cause    error
}

func (e *DecodeError) Error() string { return "jsonrpc: " + e.Err.Message }

// Unwrap returns Err, and Cause when there is one.
func (e *DecodeError) Unwrap() []error {
	if e.Cause != nil {
		return []error{e.Err, e.Cause}
	}
	return []error{e.Err}
}

func decodeError(id ID, code int64, msg string) *DecodeError {
	return &DecodeError{ID: id, Err: NewError(code, msg)}
}

// members holds what a frame's object says in the members JSON-RPC defines, picked out
// while the frame is validated. A duplicate id, method, params, result or error is
// refused; of the others, as with encoding/json, the last of duplicate members wins, and
// a null string member leaves the one before it in place.
type members struct {
	jsonrpc, method    []byte // string literals, quotes included
	id, params, result []byte // raw values
	err                *Error
	mismatch           string // why a member has the wrong type
	seen               uint8  // members met, for those a null leaves unset
}

// msgTwoIDs refuses a frame with two id members. A response so refused names no call:
// failing the one either id names could fail a call the peer did not answer.
const msgTwoIDs = "invalid request: the id member appears more than once"

// Bits of members.seen.
const (
	seenMethod uint8 = 1 << iota
	seenError
)

// split validates the object frame and picks out its members. Member names match
// exactly, as JSON-RPC spells them (encoding/json would also match "Method").
func (ms *members) split(frame []byte) error {
	return jsonwire.Members(frame, ms.set)
}

// set records the member named by the string literal lit; v is its valid raw value.
func (ms *members) set(lit, v []byte) {
	name := lit[1 : len(lit)-1]
	if bytes.IndexByte(name, '\\') >= 0 {
		name = []byte(unquote(lit))
	}
	switch string(name) {
	case "jsonrpc":
		ms.jsonrpc = ms.strMember(ms.jsonrpc, v, `invalid request: jsonrpc must be "2.0"`)
	case "method":
		if ms.seen&seenMethod != 0 {
			// Which of them is meant is anyone's guess, and a proxy or a handler that
			// reads the frame again may guess otherwise than this end, as for the id.
			ms.typeMismatch("invalid request: the method member appears more than once")
		}
		ms.seen |= seenMethod
		ms.method = ms.strMember(ms.method, v, "invalid request: method must be a string")
	case "id":
		if ms.id != nil {
			// Which of them a reply should name is anyone's guess, and a proxy may
			// guess otherwise than this end.
			ms.typeMismatch(msgTwoIDs)
		}
		ms.id = v
	case "params":
		if ms.params != nil {
			ms.typeMismatch("invalid request: the params member appears more than once")
		}
		ms.params = v
	case "result":
		if ms.result != nil {
			// A response that says two things says neither: the call it answers
			// fails, as it does for any other malformed response.
			ms.typeMismatch("invalid response: the result member appears more than once")
		}
		ms.result = v
	case "error":
		if ms.seen&seenError != 0 {
			ms.typeMismatch("invalid response: the error member appears more than once")
		}
		ms.seen |= seenError
		// Errors are rare: encoding/json decodes them.
		if v[0] != '{' && v[0] != 'n' {
			ms.typeMismatch("invalid response: error must be an object")
			return
		}
		// &ms.err would make all of ms escape to the heap through json.Unmarshal;
		// this way only frames with an error member pay for an allocation.
		e := ms.err
		err := json.Unmarshal(v, &e)
		ms.err = e
		if err != nil {
			msg := "invalid response: error must be an object with an integer code and a string message"
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				switch te.Field {
				case "code":
					msg = "invalid response: error code must be an integer"
				case "message":
					msg = "invalid response: error message must be a string"
				}
			}
			ms.typeMismatch(msg)
		}
	}
}

// strMember returns what a string member with value v leaves: v itself, or old for
// null, or old after recording a mismatch for any other type.
func (ms *members) strMember(old, v []byte, mismatch string) []byte {
	switch v[0] {
	case '"':
		return v
	case 'n':
		return old
	}
	ms.typeMismatch(mismatch)
	return old
}

// typeMismatch records a member of the wrong type; the first one found is reported, after
// the whole frame has been checked for invalid JSON.
func (ms *members) typeMismatch(msg string) {
	if ms.mismatch == "" {
		ms.mismatch = msg
	}
}

// DecodeMessage parses one JSON-RPC 2.0 message strictly. Batches are refused: MCP
// removed them in revision 2025-06-18. Member names match only as JSON-RPC spells them
// ("Method" is an unknown member, not the method). Params and Result are copies, not
// views of data.
//
// A frame it refuses that is still a response by its top-level members (a "result" or
// an "error", no "method") gives a [*DecodeError] with Response set, the id when it can
// be read, and a [*MalformedResponseError] as Cause: the call it answers can fail at once,
// and nothing is sent back.
func DecodeMessage(data []byte) (Message, error) {
	m, err := decodeMessage(data)
	if err != nil {
		err.asResponse(data)
		return nil, err
	}
	return m, nil
}

// asResponse marks e, the error of data, as a response's when data's top-level members
// say it is one: they are read past what made data invalid (a NaN, nesting too deep).
func (e *DecodeError) asResponse(data []byte) {
	var k jsonwire.Skimmer
	k.Write(data)
	rawID, method, response, ok := k.Frame()
	if !ok || !response || method {
		return
	}
	var id ID
	if rawID == nil || e.Err.Message == msgTwoIDs || id.UnmarshalJSON(rawID) != nil {
		id = ID{}
	}
	bad := &MalformedResponseError{Reason: e.Err.Message}
	if e.Err.Code == CodeParseError {
		if err := jsonwire.Check(data); err != nil {
			bad.Detail = err.Error()
		}
	}
	e.ID, e.Response, e.Cause = id, true, bad
}

func decodeMessage(data []byte) (Message, *DecodeError) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, decodeError(ID{}, CodeParseError, "parse error: empty message")
	}
	if data[0] != '{' {
		switch {
		case !jsonwire.Valid(data):
			return nil, decodeError(ID{}, CodeParseError, "parse error: invalid JSON")
		case data[0] == '[':
			return nil, decodeError(ID{}, CodeInvalidRequest, "invalid request: batches are not supported")
		default:
			return nil, decodeError(ID{}, CodeInvalidRequest, "invalid request: a message must be a JSON object")
		}
	}
	// One JSON value and nothing after it: invalid JSON anywhere in the frame is a parse
	// error, even after a member of the wrong type.
	var ms members
	if err := ms.split(data); err != nil {
		return nil, decodeError(ID{}, CodeParseError, "parse error: invalid JSON")
	}
	if ms.mismatch != "" {
		return nil, decodeError(ID{}, CodeInvalidRequest, ms.mismatch)
	}
	var id ID
	if ms.id != nil {
		if err := id.UnmarshalJSON(ms.id); err != nil {
			return nil, decodeError(ID{}, CodeInvalidRequest, "invalid request: "+err.Error())
		}
	}
	if ms.jsonrpc == nil || (string(ms.jsonrpc) != `"`+Version+`"` && unquote(ms.jsonrpc) != Version) {
		return nil, decodeError(id, CodeInvalidRequest, fmt.Sprintf("invalid request: jsonrpc must be %q", Version))
	}
	var method string
	if ms.method != nil {
		method = unquote(ms.method)
	}
	hasResult, hasError := ms.result != nil, ms.err != nil
	switch {
	case method != "":
		if hasResult || hasError {
			return nil, decodeError(id, CodeInvalidRequest, "invalid request: a request cannot carry result or error")
		}
		if ms.id != nil && !id.IsValid() {
			return nil, decodeError(ID{}, CodeInvalidRequest, "invalid request: id must not be null")
		}
		if p := ms.params; p != nil && p[0] != '{' && p[0] != '[' {
			return nil, decodeError(id, CodeInvalidRequest, "invalid request: params must be an object or an array")
		}
		return &Request{ID: id, Method: method, Params: bytes.Clone(ms.params)}, nil
	case hasResult && hasError:
		return nil, decodeError(ID{}, CodeInvalidRequest, "invalid response: both result and error")
	case hasResult || hasError:
		if hasError && (ms.err.Message == "" && ms.err.Code == 0) {
			return nil, decodeError(ID{}, CodeInvalidRequest, "invalid response: error without code")
		}
		if hasResult && !id.IsValid() {
			return nil, decodeError(ID{}, CodeInvalidRequest, "invalid response: result without id")
		}
		return &Response{ID: id, Result: bytes.Clone(ms.result), Error: ms.err}, nil
	default:
		return nil, decodeError(id, CodeInvalidRequest, "invalid request: no method, result or error")
	}
}

func truncate(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}

// exactString reports whether s, the decoding of the valid string literal raw, holds
// what raw says: no invalid UTF-8 and no lone surrogate escape, which decode to U+FFFD.
func exactString(raw []byte, s string) bool {
	body := raw[1 : len(raw)-1]
	if !utf8.Valid(body) {
		return false
	}
	n := strings.Count(s, "\uFFFD")
	if n == 0 {
		return true
	}
	// U+FFFD said as itself or as an escape is what it says; any other one came from a
	// lone surrogate.
	said := bytes.Count(body, []byte("\uFFFD")) + bytes.Count(bytes.ToLower(body), []byte(`\ufffd`))
	return n == said
}

// unquote decodes the string literal raw (quotes included), which is valid JSON.
func unquote(raw []byte) string {
	if body := raw[1 : len(raw)-1]; bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
		return string(body)
	}
	// Escapes, or invalid UTF-8 to replace with U+FFFD: rare enough for encoding/json.
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}
