package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpi-dev/mcpi/mcp"
)

// ArgumentError says why a tool's arguments do not fit its input schema, about one
// argument. Field names the argument ("a", or "opts.size" and "items[2]" inside
// structured values); it is empty when the arguments as a whole are wrong.
type ArgumentError struct {
	Field string
	// Problem completes the sentence "argument FIELD ...", as in "is required" or "must
	// be a number, not a string".
	Problem string
}

func (e *ArgumentError) Error() string {
	if e.Field == "" {
		return "the arguments " + e.Problem
	}
	return fmt.Sprintf("argument %q %s", e.Field, e.Problem)
}

// ValidateArguments checks args (a JSON object; empty means {}) against tool's input
// schema and returns an [*ArgumentError] about the first problem found, so that a call
// that cannot succeed is refused before it is sent. A schema that cannot be read is the
// server's problem, not the caller's: it skips the check and returns nil.
func ValidateArguments(tool *mcp.Tool, args json.RawMessage) error {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	inst, err := decodeJSON(args)
	if err != nil {
		return &ArgumentError{Problem: "are not valid JSON"}
	}
	if _, ok := inst.(map[string]any); !ok {
		return &ArgumentError{Problem: "must be a JSON object, not " + jsonKind(inst)}
	}
	if len(bytes.TrimSpace(tool.InputSchema)) == 0 {
		return nil
	}
	schema, err := decodeJSON(tool.InputSchema)
	if err != nil {
		return nil
	}
	vs := checkSchema(schema, inst, inputSchema)
	if len(vs) == 0 {
		return nil
	}
	ae := &ArgumentError{}
	ae.Field, ae.Problem = describe(firstProblem(vs))
	if ae.Field == "" && strings.HasPrefix(ae.Problem, "is ") {
		ae.Problem = "are" + strings.TrimPrefix(ae.Problem, "is")
	}
	return ae
}

// errTrailing is the error of JSON with more after its value.
var errTrailing = errors.New("data after the JSON value")

// firstProblem picks, deterministically, the violation to report: the one nearest the
// top of the arguments, then by place and keyword.
func firstProblem(vs []violation) violation {
	return slices.MinFunc(vs, func(a, b violation) int {
		if d := len(a.loc) - len(b.loc); d != 0 {
			return d
		}
		if c := strings.Compare(strings.Join(a.loc, "/"), strings.Join(b.loc, "/")); c != 0 {
			return c
		}
		if c := strings.Compare(strings.Join(a.field, "/"), strings.Join(b.field, "/")); c != 0 {
			return c
		}
		return strings.Compare(a.keyword, b.keyword)
	})
}

// describe names the field of a violation (empty for the whole instance) and its
// problem.
func describe(v violation) (field, problem string) {
	loc := v.loc
	if v.field != nil {
		loc = v.field
	}
	return fieldName(loc), v.problem
}

// fieldName writes an instance location as a.b[2].c.
func fieldName(loc []string) string {
	var b strings.Builder
	for _, tok := range loc {
		if _, err := strconv.Atoi(tok); err == nil && b.Len() > 0 {
			b.WriteString("[" + tok + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
	}
	return b.String()
}

// jsonKind names the JSON type of v with an article: "a string", "an array".
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number, float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func wantTypes(types []string) string {
	out := make([]string, len(types))
	for i, t := range types {
		switch t {
		case "null":
			out[i] = "null"
		case "integer", "array", "object":
			out[i] = "an " + t
		default:
			out[i] = "a " + t
		}
	}
	return strings.Join(out, " or ")
}

func display(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func rat(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}
