package client

import (
	"bytes"
	"fmt"

	"github.com/mcpi-dev/mcpi/mcp"
)

// OutputError says why a tool's result does not fit the tool's output schema, about one
// problem: the result has no structuredContent, or a field of it does not fit. Servers
// must give a tool with an output schema structured results that conform to it; clients
// should check (revision 2025-11-25, Tools).
type OutputError struct {
	// Missing is set when the result has no structuredContent at all.
	Missing bool
	// Field names the field of the structured content ("sum", "items[2].name"), or is
	// empty when the content as a whole is wrong.
	Field string
	// Problem completes the sentence "field FIELD ...", as in "is required" or "must be a
	// number, not a string".
	Problem string
}

func (e *OutputError) Error() string {
	switch {
	case e.Missing:
		return "the result has no structuredContent, which the tool's output schema calls for"
	case e.Field == "":
		return "the structuredContent does not fit the tool's output schema: it " + e.Problem
	}
	return fmt.Sprintf("the structuredContent does not fit the tool's output schema: field %q %s", e.Field, e.Problem)
}

// ValidateStructuredContent checks the structuredContent of res, a result of tool, against
// the tool's output schema, and returns an [*OutputError] about the first problem found,
// or nil. A tool without an output schema, a result with isError (the tool's failure,
// which need not have the shape of a success), a schema that cannot be read and a keyword
// the check does not know pass; the check's work is bounded as that of
// [ValidateArguments] is.
func ValidateStructuredContent(tool *mcp.Tool, res *mcp.CallToolResult) error {
	if tool == nil || res == nil || res.IsError || len(bytes.TrimSpace(tool.OutputSchema)) == 0 {
		return nil
	}
	schema, err := decodeJSON(tool.OutputSchema)
	if err != nil {
		return nil
	}
	if len(bytes.TrimSpace(res.StructuredContent)) == 0 {
		return &OutputError{Missing: true}
	}
	inst, err := decodeJSON(res.StructuredContent)
	if err != nil {
		return &OutputError{Problem: "is not valid JSON"}
	}
	vs := checkSchema(schema, inst, outputSchema)
	if len(vs) == 0 {
		return nil
	}
	oe := &OutputError{}
	oe.Field, oe.Problem = describe(firstProblem(vs))
	return oe
}
