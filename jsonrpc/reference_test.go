package jsonrpc_test

// The codec as it was when encoding/json did all the work, kept as the reference the
// differential tests hold the hand-written one to. It uses only the package's exported
// API, so a change to the package cannot change the reference.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/mcpi-dev/mcpi/internal/jsonwire/jsonwiretest"
	"github.com/mcpi-dev/mcpi/jsonrpc"
)

var refMarshalNoEscape = jsonwiretest.Marshal

func refMarshalID(id jsonrpc.ID) []byte {
	switch v := id.Raw().(type) {
	case string:
		b, _ := refMarshalNoEscape(v)
		return b
	case int64:
		return strconv.AppendInt(nil, v, 10)
	}
	return []byte("null")
}

func refUnmarshalID(b []byte) (jsonrpc.ID, error) {
	b = bytes.TrimSpace(b)
	switch {
	case bytes.Equal(b, []byte("null")):
		return jsonrpc.ID{}, nil
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return jsonrpc.ID{}, err
		}
		if !refExactString(b[1 : len(b)-1]) {
			return jsonrpc.ID{}, errors.New("id must be a string of valid UTF-8")
		}
		return jsonrpc.StringID(s), nil
	default:
		n, err := strconv.ParseInt(string(b), 10, 64)
		if err != nil {
			return jsonrpc.ID{}, fmt.Errorf("id must be a string or an integer, got %s", b)
		}
		return jsonrpc.Int64ID(n), nil
	}
}

// refExactString reports whether the body of a valid JSON string literal decodes to
// what it says: valid UTF-8, and every \u escape of a surrogate half of a pair.
func refExactString(body []byte) bool {
	if !utf8.Valid(body) {
		return false
	}
	for i := 0; i < len(body); i++ {
		if body[i] != '\\' {
			continue
		}
		i++
		if body[i] != 'u' {
			continue
		}
		r, _ := strconv.ParseUint(string(body[i+1:i+5]), 16, 32)
		i += 4
		switch {
		case r >= 0xDC00 && r <= 0xDFFF:
			return false // a low half first
		case r >= 0xD800 && r <= 0xDBFF:
			if i+6 >= len(body) || body[i+1] != '\\' || body[i+2] != 'u' {
				return false
			}
			lo, _ := strconv.ParseUint(string(body[i+3:i+7]), 16, 32)
			if lo < 0xDC00 || lo > 0xDFFF {
				return false
			}
			i += 6
		}
	}
	return true
}

// refTopMembers counts the members named name of the object data, which is valid JSON.
func refTopMembers(data []byte, name string) int {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.Token() // {
	n := 0
	for dec.More() {
		k, _ := dec.Token()
		if k == name {
			n++
		}
		var skip json.RawMessage
		dec.Decode(&skip)
	}
	return n
}

type refWire struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *jsonrpc.Error  `json:"error,omitempty"`
}

func refEncodeMessage(m jsonrpc.Message) ([]byte, error) {
	w := refWire{JSONRPC: jsonrpc.Version}
	switch m := m.(type) {
	case *jsonrpc.Request:
		if m.ID.IsValid() {
			w.ID = refMarshalID(m.ID)
		}
		w.Method = m.Method
		if len(m.Params) > 0 {
			w.Params = m.Params
		}
	case *jsonrpc.Response:
		w.ID = refMarshalID(m.ID)
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
	return refMarshalNoEscape(w)
}

func refDecodeError(id jsonrpc.ID, code int64, msg string) *jsonrpc.DecodeError {
	return &jsonrpc.DecodeError{ID: id, Err: jsonrpc.NewError(code, msg)}
}

func refDecodeMessage(data []byte) (jsonrpc.Message, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, refDecodeError(jsonrpc.ID{}, jsonrpc.CodeParseError, "parse error: empty message")
	}
	if data[0] != '{' {
		switch {
		case !json.Valid(data):
			return nil, refDecodeError(jsonrpc.ID{}, jsonrpc.CodeParseError, "parse error: invalid JSON")
		case data[0] == '[':
			return nil, refDecodeError(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "invalid request: batches are not supported")
		default:
			return nil, refDecodeError(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "invalid request: a message must be a JSON object")
		}
	}
	var w refWire
	if err := json.Unmarshal(data, &w); err != nil {
		if _, ok := err.(*json.SyntaxError); ok {
			return nil, refDecodeError(jsonrpc.ID{}, jsonrpc.CodeParseError, "parse error: invalid JSON")
		}
		return nil, refDecodeError(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
	}
	for _, name := range []string{"id", "method", "params"} {
		if refTopMembers(data, name) > 1 {
			return nil, refDecodeError(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "invalid request: the "+name+" member appears more than once")
		}
	}
	for _, name := range []string{"result", "error"} {
		if refTopMembers(data, name) > 1 {
			return nil, refDecodeError(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "invalid response: the "+name+" member appears more than once")
		}
	}
	var id jsonrpc.ID
	if w.ID != nil {
		var err error
		if id, err = refUnmarshalID(w.ID); err != nil {
			return nil, refDecodeError(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
		}
	}
	if w.JSONRPC != jsonrpc.Version {
		return nil, refDecodeError(id, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: jsonrpc must be %q", jsonrpc.Version))
	}
	hasResult := w.Result != nil
	hasError := w.Error != nil
	switch {
	case w.Method != "":
		if hasResult || hasError {
			return nil, refDecodeError(id, jsonrpc.CodeInvalidRequest, "invalid request: a request cannot carry result or error")
		}
		if w.ID != nil && !id.IsValid() {
			return nil, refDecodeError(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "invalid request: id must not be null")
		}
		if p := bytes.TrimSpace(w.Params); len(p) > 0 && p[0] != '{' && p[0] != '[' {
			return nil, refDecodeError(id, jsonrpc.CodeInvalidRequest, "invalid request: params must be an object or an array")
		}
		return &jsonrpc.Request{ID: id, Method: w.Method, Params: w.Params}, nil
	case hasResult && hasError:
		return nil, refDecodeError(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "invalid response: both result and error")
	case hasResult || hasError:
		if hasError && (w.Error.Message == "" && w.Error.Code == 0) {
			return nil, refDecodeError(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "invalid response: error without code")
		}
		if hasResult && !id.IsValid() {
			return nil, refDecodeError(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "invalid response: result without id")
		}
		return &jsonrpc.Response{ID: id, Result: w.Result, Error: w.Error}, nil
	default:
		return nil, refDecodeError(id, jsonrpc.CodeInvalidRequest, "invalid request: no method, result or error")
	}
}
