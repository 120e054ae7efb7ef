package mcp

import (
	"bytes"
	"encoding/json"
	"math"
)

// Elicitation modes (ElicitParams.Mode).
const (
	ElicitModeForm = "form"
	ElicitModeURL  = "url"
)

// Elicitation actions (ElicitResult.Action).
const (
	ElicitActionAccept  = "accept"
	ElicitActionDecline = "decline"
	ElicitActionCancel  = "cancel"
)

// ElicitParams are the params of elicitation/create, in either mode: a form
// (Message and RequestedSchema) or a URL to visit (Message, URL and
// ElicitationID).
type ElicitParams struct {
	// Mode is "form", "url", or empty (which means form).
	Mode    string `json:"mode,omitempty"`
	Message string `json:"message"`
	// RequestedSchema is a flat object schema of primitive properties.
	RequestedSchema json.RawMessage `json:"requestedSchema,omitempty"`
	ElicitationID   string          `json:"elicitationId,omitempty"`
	URL             string          `json:"url,omitempty"`
	// Task, when non-nil, asks the client to run the request as a task.
	Task *TaskMetadata `json:"task,omitempty"`
	Meta Meta          `json:"_meta,omitempty"`
}

// EffectiveMode returns Mode, or [ElicitModeForm] when it is empty.
func (p *ElicitParams) EffectiveMode() string {
	if p.Mode == "" {
		return ElicitModeForm
	}
	return p.Mode
}

// ElicitResult is the result of elicitation/create (and of tasks/result for
// an elicitation task).
type ElicitResult struct {
	// Action is "accept", "decline" or "cancel".
	Action string `json:"action"`
	// Content holds the submitted form values (string, number, boolean or
	// string list) when Action is "accept" in form mode.
	Content map[string]any `json:"content,omitempty"`
	Meta    Meta           `json:"_meta,omitempty"`
}

// ElicitationCompleteNotificationParams are the params of
// notifications/elicitation/complete, which ends a URL-mode elicitation.
type ElicitationCompleteNotificationParams struct {
	ElicitationID string `json:"elicitationId"`
	Meta          Meta   `json:"_meta,omitempty"`
}

// URLElicitationRequiredData is the error data of
// [CodeURLElicitationRequired].
type URLElicitationRequiredData struct {
	Elicitations []ElicitParams `json:"elicitations"`
}

// ApplySchemaDefaults returns a copy of content in which every property of
// the elicitation schema that has a `default` and is missing from content
// is set to that default (SEP-1034). Only defaults a form can hold are used:
// strings, numbers, booleans and lists of strings, each only when it fits
// the property's declared type. content itself is never modified. A schema
// that cannot be read leaves the copy as it is; when content is nil and no
// default applies the result is nil.
func ApplySchemaDefaults(schema json.RawMessage, content map[string]any) map[string]any {
	var out map[string]any
	if content != nil {
		out = make(map[string]any, len(content))
		for k, v := range content {
			out[k] = v
		}
	}
	var s struct {
		Properties map[string]struct {
			Type    string          `json:"type"`
			Default json.RawMessage `json:"default"`
		} `json:"properties"`
	}
	if len(schema) == 0 || json.Unmarshal(schema, &s) != nil {
		return out
	}
	for name, prop := range s.Properties {
		if _, present := out[name]; present {
			continue
		}
		v, ok := primitiveDefault(prop.Type, prop.Default)
		if !ok {
			continue
		}
		if out == nil {
			out = make(map[string]any)
		}
		out[name] = v
	}
	return out
}

// primitiveDefault decodes a `default` value if it is a form-compatible value
// matching typ (any such value when typ is empty).
func primitiveDefault(typ string, raw json.RawMessage) (any, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, false
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil, false
	}
	switch x := v.(type) {
	case string:
		return x, typ == "" || typ == "string"
	case bool:
		return x, typ == "" || typ == "boolean"
	case float64:
		switch typ {
		case "", "number":
			return x, true
		case "integer":
			return x, x == math.Trunc(x)
		}
	case []any:
		if typ != "" && typ != "array" {
			return nil, false
		}
		list := make([]string, 0, len(x))
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, false
			}
			list = append(list, s)
		}
		return list, true
	}
	return nil, false
}
