package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

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
// that cannot succeed is refused before it is sent. A schema that cannot be compiled is
// the server's problem, not the caller's: it skips the check and returns nil.
func ValidateArguments(tool *mcp.Tool, args json.RawMessage) error {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return &ArgumentError{Problem: "are not valid JSON"}
	}
	if _, ok := inst.(map[string]any); !ok {
		return &ArgumentError{Problem: "must be a JSON object, not " + jsonKind(inst)}
	}
	sch := compileSchema(tool.InputSchema)
	if sch == nil {
		return nil
	}
	err = sch.Validate(inst)
	if err == nil {
		return nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return &ArgumentError{Problem: "could not be checked: " + err.Error()}
	}
	return describe(firstProblem(ve), inst)
}

// compileSchema compiles a tool's input schema; nil when it is missing or broken.
func compileSchema(raw json.RawMessage) *jsonschema.Schema {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil
	}
	const loc = "mcpi:///tool-input-schema.json"
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{}) // never fetch remote $refs while validating
	if err := c.AddResource(loc, doc); err != nil {
		return nil
	}
	sch, err := c.Compile(loc)
	if err != nil {
		return nil
	}
	return sch
}

type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("mcpi does not load referenced schema %s", url)
}

// firstProblem picks, deterministically, the error to report: the leaf nearest the top of
// the instance, or an anyOf/oneOf as a whole (its branches are alternatives, and naming
// one of them would mislead).
func firstProblem(ve *jsonschema.ValidationError) *jsonschema.ValidationError {
	var leaves []*jsonschema.ValidationError
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		switch e.ErrorKind.(type) {
		case *kind.AnyOf, *kind.OneOf:
			leaves = append(leaves, e)
			return
		}
		if len(e.Causes) == 0 {
			leaves = append(leaves, e)
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	slices.SortStableFunc(leaves, func(a, b *jsonschema.ValidationError) int {
		if d := len(a.InstanceLocation) - len(b.InstanceLocation); d != 0 {
			return d
		}
		if c := strings.Compare(strings.Join(a.InstanceLocation, "/"), strings.Join(b.InstanceLocation, "/")); c != 0 {
			return c
		}
		return strings.Compare(strings.Join(a.ErrorKind.KeywordPath(), "/"), strings.Join(b.ErrorKind.KeywordPath(), "/"))
	})
	return leaves[0]
}

// describe turns one validation error into an [ArgumentError].
func describe(e *jsonschema.ValidationError, inst any) *ArgumentError {
	loc := e.InstanceLocation
	value := lookup(inst, loc)
	ae := &ArgumentError{Field: fieldName(loc)}
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		ae.Field = fieldName(append(slices.Clone(loc), k.Missing[0]))
		ae.Problem = "is required"
	case *kind.AdditionalProperties:
		ae.Field = fieldName(append(slices.Clone(loc), k.Properties[0]))
		ae.Problem = "is not a parameter of this tool"
		if len(loc) > 0 {
			ae.Problem = "is not allowed here"
		}
	case *kind.Type:
		got := jsonKind(value)
		if k.Got == "number" && slices.Contains(k.Want, "integer") {
			got = fmt.Sprint(value) // "must be an integer, not 2.5"
		}
		ae.Problem = "must be " + wantTypes(k.Want) + ", not " + got
	case *kind.Enum:
		var want []string
		for _, w := range k.Want {
			want = append(want, display(w))
		}
		if len(want) == 1 {
			ae.Problem = "must be " + want[0]
		} else {
			ae.Problem = "must be one of " + strings.Join(want, ", ")
		}
	case *kind.Const:
		ae.Problem = "must be " + display(k.Want)
	case *kind.Minimum:
		ae.Problem = "must be at least " + rat(k.Want)
	case *kind.Maximum:
		ae.Problem = "must be at most " + rat(k.Want)
	case *kind.ExclusiveMinimum:
		ae.Problem = "must be greater than " + rat(k.Want)
	case *kind.ExclusiveMaximum:
		ae.Problem = "must be less than " + rat(k.Want)
	case *kind.MultipleOf:
		ae.Problem = "must be a multiple of " + rat(k.Want)
	case *kind.MinLength:
		ae.Problem = fmt.Sprintf("must be at least %d characters long", k.Want)
	case *kind.MaxLength:
		ae.Problem = fmt.Sprintf("must be at most %d characters long", k.Want)
	case *kind.Pattern:
		ae.Problem = fmt.Sprintf("must match the pattern %s", k.Want)
	case *kind.Format:
		ae.Problem = "must be a valid " + k.Want
	case *kind.MinItems:
		ae.Problem = fmt.Sprintf("must have at least %d items", k.Want)
	case *kind.MaxItems:
		ae.Problem = fmt.Sprintf("must have at most %d items", k.Want)
	case *kind.UniqueItems:
		ae.Problem = "must not repeat items"
	case *kind.AnyOf, *kind.OneOf:
		ae.Problem = "does not match any of the forms the tool accepts"
	case *kind.FalseSchema:
		ae.Problem = "is not allowed"
	default:
		p := message.NewPrinter(language.English)
		ae.Problem = "is invalid: " + e.ErrorKind.LocalizedString(p)
	}
	if ae.Field == "" && strings.HasPrefix(ae.Problem, "is ") {
		ae.Problem = "are" + strings.TrimPrefix(ae.Problem, "is")
	}
	return ae
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

func lookup(v any, loc []string) any {
	for _, tok := range loc {
		switch x := v.(type) {
		case map[string]any:
			v = x[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
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
