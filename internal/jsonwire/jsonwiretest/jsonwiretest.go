// Package jsonwiretest holds the reference that the hand-written JSON codecs of mcpi are
// tested against: encoding/json itself, used only through its exported API, so that a
// change to the codecs cannot change the reference.
package jsonwiretest

import (
	"bytes"
	"encoding/json"
)

// Marshal is what encoding/json writes for v with HTML escaping off, without the newline
// an Encoder adds: the bytes the JSON-RPC layer must send for v.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
