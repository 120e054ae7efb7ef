package jsonrpc

import "github.com/mcpi-dev/mcpi/internal/jsonwire"

// Internals the external tests compare with encoding/json.
var (
	MarshalNoEscape = jsonwire.Marshal
	Valid           = jsonwire.Valid
	AppendRaw       = jsonwire.AppendRaw
)
