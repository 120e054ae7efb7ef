package cmdutil

import (
	"encoding/json"
	"slices"
	"strings"
)

// CoerceValue turns a value typed by a user for a property of a schema (a tool's
// argument, a field of an elicitation form) into JSON, by the type the property's schema
// gives it: for number, integer, boolean, array, object and null the value is parsed as
// JSON; a string (or a property of no declared type, or none at all) is kept as it is. A
// value that does not parse as the declared type is kept as a string, so that the check
// against the schema names the problem.
func CoerceValue(property json.RawMessage, value string) json.RawMessage {
	var types []string
	if len(property) > 0 {
		types = schemaTypes(property)
	}
	asString := func() json.RawMessage {
		b, _ := json.Marshal(value)
		return b
	}
	if len(types) == 0 || (len(types) == 1 && types[0] == "string") {
		return asString()
	}
	dec := json.NewDecoder(strings.NewReader(value))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return asString()
	}
	got := ""
	switch x := v.(type) {
	case nil:
		got = "null"
	case bool:
		got = "boolean"
	case json.Number:
		got = "number"
		if _, err := x.Int64(); err == nil || !strings.ContainsAny(x.String(), ".eE") {
			got = "integer"
		}
	case string:
		got = "string"
	case []any:
		got = "array"
	case map[string]any:
		got = "object"
	}
	for _, t := range types {
		if t == got || (t == "number" && got == "integer") {
			return json.RawMessage(strings.TrimSpace(value))
		}
	}
	if slices.Contains(types, "string") {
		return asString()
	}
	// Not what the schema wants: still send the parsed value when it is not a string,
	// so the check says "must be a number, not a boolean" rather than "not a string".
	if got != "string" {
		return json.RawMessage(strings.TrimSpace(value))
	}
	return asString()
}

// schemaTypes returns the JSON types a schema declares (from "type", or from the
// branches of anyOf/oneOf, or from the values of an untyped enum).
func schemaTypes(raw json.RawMessage) []string {
	var p struct {
		Type  json.RawMessage   `json:"type"`
		AnyOf []json.RawMessage `json:"anyOf"`
		OneOf []json.RawMessage `json:"oneOf"`
		Enum  []any             `json:"enum"`
	}
	if json.Unmarshal(raw, &p) != nil {
		return nil
	}
	var types []string
	var one string
	if json.Unmarshal(p.Type, &one) == nil && one != "" {
		types = append(types, one)
	} else {
		_ = json.Unmarshal(p.Type, &types)
	}
	for _, b := range append(p.AnyOf, p.OneOf...) {
		for _, t := range schemaTypes(b) {
			if !slices.Contains(types, t) {
				types = append(types, t)
			}
		}
	}
	if len(types) == 0 {
		// An untyped enum of non-strings, such as [1, 2, 3], still wants JSON values.
		for _, e := range p.Enum {
			t := "string"
			switch e.(type) {
			case float64:
				t = "number"
			case bool:
				t = "boolean"
			case nil:
				t = "null"
			}
			if !slices.Contains(types, t) {
				types = append(types, t)
			}
		}
	}
	return types
}
