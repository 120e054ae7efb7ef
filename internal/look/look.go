// Package look is how tasks, durations and errors read to the user, in plain text, for
// every front end alike: one symbol and word per task status, one duration format, one
// way to show a task's TTL and id, one sentence per error of the library, and one way to
// show a server's text on a terminal without letting it drive the terminal ([Safe]).
// Colours and layout stay with each front end.
package look

import (
	"fmt"
	"github.com/mcpi-dev/mcpi/transport"
	"strings"
	"time"

	"github.com/mcpi-dev/mcpi/mcp"
)

// Symbol is the one-cell mark shown before a task status, so that statuses can be told
// apart without colour too. The check and cross are the light ones because many
// terminals draw the heavy ones (✔ ✘) as two-cell emoji, which breaks table columns.
func Symbol(s mcp.TaskStatus) string {
	switch s {
	case mcp.TaskStatusWorking:
		return "◐"
	case mcp.TaskStatusInputRequired:
		return "?"
	case mcp.TaskStatusCompleted:
		return "✓"
	case mcp.TaskStatusFailed:
		return "✗"
	case mcp.TaskStatusCancelled:
		return "⊘"
	case "":
		return "…"
	}
	return "·"
}

// Word is a task status as a word: the status itself, or "starting" before the server
// has given one. A status is the server's text (a client follows a task whose status it
// does not know), so it reads as [Safe] shows it.
func Word(s mcp.TaskStatus) string {
	if s == "" {
		return "starting"
	}
	return Safe(string(s))
}

// Status is a task status with its symbol, as "✓ completed".
func Status(s mcp.TaskStatus) string { return Symbol(s) + " " + Word(s) }

// Expired stands in for the status of a task its receiver no longer knows, although it
// never reached a terminal status (its TTL ran out, or the receiver restarted).
const Expired = "∅ expired"

// Legend lists every status with its symbol, for help screens.
func Legend() string {
	parts := []string{}
	for _, s := range []mcp.TaskStatus{mcp.TaskStatusWorking, mcp.TaskStatusInputRequired,
		mcp.TaskStatusCompleted, mcp.TaskStatusFailed, mcp.TaskStatusCancelled} {
		parts = append(parts, Status(s))
	}
	return strings.Join(append(parts, Expired), "  ")
}

// Duration renders a time span compactly: "2ms", "850ms", "4.2s", "42s", "1m05s",
// "2h03m"; a negative span reads as 0ms. Below a second it counts milliseconds, because
// a task that ends at once takes a few of them, and "0.0s" would hide how many.
func Duration(d time.Duration) string {
	switch {
	case d < 0:
		d = 0
		fallthrough
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < 10*time.Second:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// TTL renders a task's ttl in milliseconds as a [Duration], or "unlimited" for none.
func TTL(ms *int64) string {
	if ms == nil {
		return "unlimited"
	}
	return Duration(mcp.Milliseconds(*ms))
}

// shortID is how many characters of a task id [ShortID] keeps.
const shortID = 8

// ShortID is the start of a long task id, enough to tell tasks apart on screen.
func ShortID(id string) string {
	if r := []rune(id); len(r) > shortID {
		return string(r[:shortID])
	}
	return id
}

// Era names a session's protocol era as the specification does: "modern" (2026-07-28 and
// later: server/discover, per-request _meta, no session) or "legacy" (2025-11-25 and
// earlier: initialize, a session).
func Era(modern bool) string {
	if modern {
		return "modern"
	}
	return "legacy"
}

// TaskSupport is how a tool's task support reads in a list: in the 2026-07-28 era the
// server decides per call, and the tool says nothing of it.
func TaskSupport(t *mcp.Tool, modern bool) string {
	if modern {
		return "server decides"
	}
	return string(t.TaskSupport())
}

// TransportName names a transport for a front end's header: "stdio", "Streamable HTTP" or
// "in-memory pipe".
func TransportName(t transport.Transport) string {
	switch t.(type) {
	case *transport.Command:
		return "stdio"
	case *transport.HTTPClient:
		return "Streamable HTTP"
	case transport.PipeTransport, *transport.PipeTransport:
		return "in-memory pipe"
	}
	return ""
}
