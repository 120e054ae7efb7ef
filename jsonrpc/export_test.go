package jsonrpc

// Internals the external tests compare with encoding/json.
var (
	MarshalNoEscape = marshalNoEscape
	Valid           = valid
	AppendRaw       = appendRaw
)
