package factory

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpi-dev/mcpi/mcp"
)

// A log line is one line, the server's text made safe for a terminal, its data cut.
func TestLogLine(t *testing.T) {
	for _, tt := range []struct {
		p    mcp.LoggingMessageNotificationParams
		want string
	}{
		{mcp.LoggingMessageNotificationParams{Level: mcp.LoggingLevelError, Logger: "db", Data: json.RawMessage(`"down\n\u001b]0;pwned\u0007"`)},
			"server error (db): down␊␛]0;pwned␇"},
		{mcp.LoggingMessageNotificationParams{Level: mcp.LoggingLevelInfo, Data: json.RawMessage(`{"n": 1}`)},
			`server info: {"n": 1}`},
	} {
		if got := LogLine(tt.p); got != tt.want {
			t.Errorf("LogLine = %q, want %q", got, tt.want)
		}
	}
	long := LogLine(mcp.LoggingMessageNotificationParams{Level: mcp.LoggingLevelInfo, Data: json.RawMessage(`"` + strings.Repeat("x", 100_000) + `"`)})
	if len(long) > maxLogData+100 {
		t.Errorf("a log line of %d bytes", len(long))
	}
}
