package tasksview

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
)

func msDuration(ms int64) time.Duration { return time.Duration(ms) * time.Millisecond }

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }

func asRPC(err error) *jsonrpc.Error {
	var e *jsonrpc.Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}
