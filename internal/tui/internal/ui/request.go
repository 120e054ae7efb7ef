package ui

import (
	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/cut"
	"github.com/mcpi-dev/mcpi/internal/look"
	"github.com/mcpi-dev/mcpi/mcp"
)

// RequestKind is "elicitation" or "sampling".
func RequestKind(r *client.Request) string {
	if r.Elicitation != nil {
		if r.Elicitation.EffectiveMode() == mcp.ElicitModeURL {
			return "elicitation (url)"
		}
		return "elicitation"
	}
	return "sampling"
}

// Channel says how a server request reached mcpi: "plain", "side-channel" (it belongs
// to a task mcpi asked for, and came on its tasks/result), or "task-augmented" (the
// server asked mcpi to run it as a task).
func Channel(r *client.Request) string {
	switch {
	case r.InputKey != "" && r.RelatedTask != "":
		return "task input"
	case r.InputKey != "":
		return "input_required"
	case r.Task != "":
		return "task-augmented"
	case r.RelatedTask != "":
		return "side-channel"
	}
	return "plain"
}

// ChannelLong is [Channel] with the task it is about.
func ChannelLong(r *client.Request) string {
	switch {
	case r.InputKey != "" && r.RelatedTask != "":
		return "input " + look.Safe(r.InputKey) + " of task " + look.ShortID(r.RelatedTask) + " (sent back with tasks/update)"
	case r.InputKey != "":
		return "input " + look.Safe(r.InputKey) + " of an input_required answer (the request is sent again with it)"
	case r.Task != "":
		return "task-augmented: runs as mcpi's task " + look.ShortID(r.Task) + ", which the server polls"
	case r.RelatedTask != "":
		return "side-channel of task " + look.ShortID(r.RelatedTask) + " (input_required)"
	}
	return "plain request"
}

// summaryBytes bounds the text a summary is made of: it fills one cell of a table, and
// a server's question may be megabytes, drawn at every frame.
const summaryBytes = 4 << 10

// RequestSummary is the question in one line: the elicitation's message, or the last
// text of the sampling conversation; its first few KiB.
func RequestSummary(r *client.Request) string {
	if r.Elicitation != nil {
		if r.Elicitation.Message != "" {
			return OneLine(cut.Bytes(r.Elicitation.Message, summaryBytes))
		}
		return cut.Bytes(r.Elicitation.URL, summaryBytes)
	}
	if r.Sampling != nil {
		for i := len(r.Sampling.Messages) - 1; i >= 0; i-- {
			for _, c := range r.Sampling.Messages[i].Content {
				if c.Type == mcp.ContentTypeText && c.Text != "" {
					return OneLine(cut.Bytes(c.Text, summaryBytes))
				}
			}
		}
	}
	return ""
}
