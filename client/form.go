package client

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/mcpi-dev/mcpi/mcp"
)

// FormError says why the content of an accepted form elicitation does not fit the
// schema the server requested, about one field. Field is empty when the content as a
// whole is wrong.
type FormError struct {
	Field string
	// Problem completes the sentence "field FIELD ...", as in "is required" or "must be a
	// boolean, not a string".
	Problem string
}

func (e *FormError) Error() string {
	if e.Field == "" {
		return "the answer " + e.Problem
	}
	return fmt.Sprintf("field %q %s", e.Field, e.Problem)
}

// ValidateElicitContent checks content, the answer to a form elicitation, against the
// schema the server requested, after the defaults [Request.Accept] fills in, and returns
// a [*FormError] about the first problem found. Like [ValidateArguments] it is a
// convenience for front ends that take answers from somewhere other than a form of their
// own (a file, a script): a schema that cannot be read, or a keyword the check does not
// know, passes.
func ValidateElicitContent(schema json.RawMessage, content map[string]any) error {
	if len(bytes.TrimSpace(schema)) == 0 {
		return nil
	}
	s, err := decodeJSON(schema)
	if err != nil {
		return nil
	}
	b, err := json.Marshal(mcp.ApplySchemaDefaults(schema, content))
	if err != nil {
		return &FormError{Problem: "cannot be written as JSON: " + err.Error()}
	}
	inst, err := decodeJSON(b)
	if err != nil {
		return nil
	}
	if inst == nil {
		inst = map[string]any{}
	}
	vs := checkSchema(s, inst, formSchema)
	if len(vs) == 0 {
		return nil
	}
	fe := &FormError{}
	fe.Field, fe.Problem = describe(firstProblem(vs))
	return fe
}
