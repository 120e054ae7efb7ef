package mcp

import (
	"bytes"
	"encoding/json"

	"github.com/mcpi-dev/mcpi/internal/jsonwire"
)

// Sampling include-context values (CreateMessageParams.IncludeContext).
const (
	IncludeContextNone       = "none"
	IncludeContextThisServer = "thisServer"
	IncludeContextAllServers = "allServers"
)

// Stop reasons (CreateMessageResult.StopReason); the field is open-ended.
const (
	StopReasonEndTurn      = "endTurn"
	StopReasonStopSequence = "stopSequence"
	StopReasonMaxTokens    = "maxTokens"
	StopReasonToolUse      = "toolUse"
)

// SamplingMessage is one message of a sampling conversation.
//
// On the wire its content is either a single block or an array of blocks.
// Content always holds the blocks; encoding writes a single object when there
// is exactly one block, unless the message was decoded from an array, so a
// decoded message re-encodes as it arrived.
type SamplingMessage struct {
	Role    Role      `json:"role"`
	Content []Content `json:"content"`
	Meta    Meta      `json:"_meta,omitempty"`

	contentList bool
}

// MarshalJSON writes Content as one object or as an array; see
// [SamplingMessage].
func (m SamplingMessage) MarshalJSON() ([]byte, error) {
	c, err := encodeSamplingContent(m.Content, m.contentList)
	if err != nil {
		return nil, err
	}
	return jsonwire.Marshal(struct {
		Role    Role            `json:"role"`
		Content json.RawMessage `json:"content"`
		Meta    Meta            `json:"_meta,omitempty"`
	}{m.Role, c, m.Meta})
}

// UnmarshalJSON accepts content as one object or as an array.
func (m *SamplingMessage) UnmarshalJSON(data []byte) error {
	var w struct {
		Role    Role            `json:"role"`
		Content json.RawMessage `json:"content"`
		Meta    Meta            `json:"_meta,omitempty"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	blocks, list, err := decodeSamplingContent(w.Content)
	if err != nil {
		return err
	}
	*m = SamplingMessage{Role: w.Role, Content: blocks, Meta: w.Meta, contentList: list}
	return nil
}

func encodeSamplingContent(blocks []Content, list bool) (json.RawMessage, error) {
	if len(blocks) == 1 && !list {
		return jsonwire.Marshal(blocks[0])
	}
	return jsonwire.Marshal(nonNil(blocks))
}

func decodeSamplingContent(raw json.RawMessage) (blocks []Content, list bool, err error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, false, nil
	}
	if raw[0] == '[' {
		err = json.Unmarshal(raw, &blocks)
		return blocks, true, err
	}
	var c Content
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, false, err
	}
	return []Content{c}, false, nil
}

// ModelPreferences are the server's advisory wishes for model choice. The
// priorities run from 0 to 1.
type ModelPreferences struct {
	Hints                []ModelHint `json:"hints,omitempty"`
	CostPriority         *float64    `json:"costPriority,omitempty"`
	SpeedPriority        *float64    `json:"speedPriority,omitempty"`
	IntelligencePriority *float64    `json:"intelligencePriority,omitempty"`
}

// ModelHint suggests a model by (a substring of) its name.
type ModelHint struct {
	Name string `json:"name,omitempty"`
}

// ToolChoice says how the model may use the tools of a sampling request.
type ToolChoice struct {
	// Mode is "auto" (default), "required" or "none".
	Mode string `json:"mode,omitempty"`
}

// CreateMessageParams are the params of sampling/createMessage.
type CreateMessageParams struct {
	Messages         []SamplingMessage `json:"messages"`
	ModelPreferences *ModelPreferences `json:"modelPreferences,omitempty"`
	SystemPrompt     string            `json:"systemPrompt,omitempty"`
	IncludeContext   string            `json:"includeContext,omitempty"`
	Temperature      *float64          `json:"temperature,omitempty"`
	MaxTokens        int64             `json:"maxTokens"`
	StopSequences    []string          `json:"stopSequences,omitempty"`
	// Metadata is provider-specific and passed through.
	Metadata   json.RawMessage `json:"metadata,omitempty"`
	Tools      []Tool          `json:"tools,omitempty"`
	ToolChoice *ToolChoice     `json:"toolChoice,omitempty"`
	// Task, when non-nil, asks the client to run the request as a task.
	Task *TaskMetadata `json:"task,omitempty"`
	Meta Meta          `json:"_meta,omitempty"`
}

// MarshalJSON writes a nil Messages as [].
func (p CreateMessageParams) MarshalJSON() ([]byte, error) {
	type wire CreateMessageParams
	w := wire(p)
	w.Messages = nonNil(w.Messages)
	return jsonwire.Marshal(w)
}

// CreateMessageResult is the result of sampling/createMessage (and of
// tasks/result for a sampling task). Content follows the same one-or-many
// rule as [SamplingMessage].
type CreateMessageResult struct {
	Role       Role      `json:"role"`
	Content    []Content `json:"content"`
	Model      string    `json:"model"`
	StopReason string    `json:"stopReason,omitempty"`
	Meta       Meta      `json:"_meta,omitempty"`

	contentList bool
}

type createMessageResultWire struct {
	Role       Role            `json:"role"`
	Content    json.RawMessage `json:"content"`
	Model      string          `json:"model"`
	StopReason string          `json:"stopReason,omitempty"`
	Meta       Meta            `json:"_meta,omitempty"`
}

// MarshalJSON writes Content as one object or as an array.
func (r CreateMessageResult) MarshalJSON() ([]byte, error) {
	c, err := encodeSamplingContent(r.Content, r.contentList)
	if err != nil {
		return nil, err
	}
	return jsonwire.Marshal(createMessageResultWire{r.Role, c, r.Model, r.StopReason, r.Meta})
}

// UnmarshalJSON accepts content as one object or as an array.
func (r *CreateMessageResult) UnmarshalJSON(data []byte) error {
	var w createMessageResultWire
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	blocks, list, err := decodeSamplingContent(w.Content)
	if err != nil {
		return err
	}
	*r = CreateMessageResult{Role: w.Role, Content: blocks, Model: w.Model,
		StopReason: w.StopReason, Meta: w.Meta, contentList: list}
	return nil
}
