// Package answers reads an answers file: the replies mcpi gives, without asking anyone,
// to the server's elicitation and sampling requests, so that scripts can run tools that
// ask for input (side-channel requests of tasks included).
//
// The file is a JSON object:
//
//	{
//	  "elicitation": {"ask_task": {"name": "Ada"}, "*": "decline"},
//	  "sampling":    {"ask_task": "the model's reply", "*": "decline"}
//	}
//
// Both keys are optional. Each maps a tool name, or "*" for any tool, to an answer. The
// tool of a request is the tool of the task it belongs to (its related task), or the
// tool being called. A request of the 2026-07-28 era has a key of its own (its
// inputRequests key), and "TOOL#KEY" or "*#KEY" answers it alone, before TOOL and "*".
// An elicitation answer is an object of field values (accepted; the fields it leaves
// out take the defaults of the requested schema; checked against the requested schema,
// by whose types a string value is read), "accept" (a URL elicitation's answer, or a
// form's defaults), "decline" or "cancel". A tool's answer may serve several forms: each
// takes its own fields from it. A sampling answer is the text of the model's reply, or
// "decline" to refuse.
package answers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"slices"
	"strings"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cut"
	"github.com/mcpi-dev/mcpi/internal/look"
	"github.com/mcpi-dev/mcpi/mcp"
)

// Any is the key that answers for every tool without a key of its own.
const Any = "*"

// Shape is the expected shape, quoted in error messages.
const Shape = `{"elicitation": {"TOOL": {"field": "value"}}, "sampling": {"TOOL": "the model's reply"}}`

// Elicitation is the answer to an elicitation request.
type Elicitation struct {
	// Action is accept, decline or cancel.
	Action  string
	Content map[string]any
}

// Sampling is the answer to a sampling request: Text, or a refusal.
type Sampling struct {
	Decline bool
	Text    string
}

// Set is a loaded answers file.
type Set struct {
	File        string
	Elicitation map[string]Elicitation
	Sampling    map[string]Sampling
	// Kind is what the tool names in sentences: "tool" (or empty), "prompt" or
	// "resource" (whose name is a URI), as [cmdutil.RequestPolicy.Kind].
	Kind string
	// Note, when set, is told each page that a URL elicitation accepted from the file
	// asks the user to open, on one line made safe for a terminal.
	Note func(line string)
}

// MaxFileSize bounds an answers file: answers are short, and a file named by mistake
// (or /dev/zero) must not exhaust memory.
const MaxFileSize = 4 << 20

// Load reads and checks an answers file. Every error is a [*cmdutil.UsageError] of one
// sentence that names the file.
func Load(file string) (*Set, error) {
	data, err := cmdutil.ReadFile(file, MaxFileSize)
	if err != nil {
		var (
			pe    *fs.PathError
			large *cmdutil.FileTooLargeError
		)
		switch {
		case errors.As(err, &large):
			return nil, cmdutil.UsageErrorf("the answers file %s is too large (over %s)", file, cmdutil.Size(large.Limit))
		case errors.Is(err, fs.ErrNotExist):
			return nil, cmdutil.UsageErrorf("the answers file %s does not exist", file)
		case errors.As(err, &pe):
			return nil, cmdutil.UsageErrorf("cannot read the answers file %s: %v", file, pe.Err)
		}
		return nil, cmdutil.UsageErrorf("cannot read the answers file %s: %v", file, err)
	}
	return Parse(file, data)
}

// Parse checks the content of an answers file; file names it in errors.
func Parse(file string, data []byte) (*Set, error) {
	bad := func(format string, args ...any) error {
		return cmdutil.UsageErrorf("the answers file %s is not in the expected shape %s: %s", file, Shape, fmt.Sprintf(format, args...))
	}
	var top map[string]json.RawMessage
	if err := strictDecode(data, &top); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field == "" {
			return nil, bad("the file must hold an object, not %s", kind(bytes.TrimSpace(data)))
		}
		return nil, cmdutil.UsageErrorf("the answers file %s is not valid JSON: %v", file, cmdutil.JSONSyntaxError(data, err))
	}
	if top == nil {
		return nil, bad("the file must hold an object, not null")
	}
	s := &Set{File: file, Elicitation: map[string]Elicitation{}, Sampling: map[string]Sampling{}}
	keys := slices.Sorted(maps.Keys(top))
	for _, k := range keys {
		if k != "elicitation" && k != "sampling" {
			return nil, bad("it has the unknown key %q (the keys are \"elicitation\" and \"sampling\")", k)
		}
	}
	if raw, ok := top["elicitation"]; ok {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil || m == nil {
			return nil, bad(`"elicitation" must be an object of answers by tool name, not %s`, kind(raw))
		}
		for _, tool := range slices.Sorted(maps.Keys(m)) {
			v := bytes.TrimSpace(m[tool])
			var str string
			var obj map[string]any
			switch {
			case json.Unmarshal(v, &str) == nil && (str == "decline" || str == "cancel"):
				s.Elicitation[tool] = Elicitation{Action: str}
			case str == mcp.ElicitActionAccept:
				s.Elicitation[tool] = Elicitation{Action: str}
			case json.Unmarshal(v, &obj) == nil && obj != nil:
				s.Elicitation[tool] = Elicitation{Action: mcp.ElicitActionAccept, Content: obj}
			default:
				return nil, bad(`the elicitation answer for %q must be an object of field values, "accept", "decline" or "cancel", not %s`, tool, kind(v))
			}
		}
	}
	if raw, ok := top["sampling"]; ok {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil || m == nil {
			return nil, bad(`"sampling" must be an object of answers by tool name, not %s`, kind(raw))
		}
		for _, tool := range slices.Sorted(maps.Keys(m)) {
			v := bytes.TrimSpace(m[tool])
			var str string
			if json.Unmarshal(v, &str) != nil {
				return nil, bad(`the sampling answer for %q must be a string (the model's reply, or "decline"), not %s`, tool, kind(v))
			}
			if str == "decline" {
				s.Sampling[tool] = Sampling{Decline: true}
			} else {
				s.Sampling[tool] = Sampling{Text: str}
			}
		}
	}
	return s, nil
}

// strictDecode decodes one JSON value and refuses anything after it.
func strictDecode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("there is more after the first JSON value")
	}
	return nil
}

// kind names the JSON type of v for a message: "a number", "an array", the string itself.
func kind(v []byte) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		var s string
		_ = json.Unmarshal(v, &s)
		return fmt.Sprintf("the string %q", s)
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// Has reports whether the set answers r's kind of request for tool (or for any tool).
func (s *Set) Has(r *client.Request, tool string) bool {
	if s == nil {
		return false
	}
	switch {
	case r.Elicitation != nil:
		_, _, ok := lookup(s.Elicitation, tool, r.InputKey)
		return ok
	case r.Sampling != nil:
		_, _, ok := lookup(s.Sampling, tool, r.InputKey)
		return ok
	}
	return false
}

// KeySep joins a tool and the key of an input request of the 2026-07-28 era in the
// key of an answer for that request alone: "TOOL#KEY".
const KeySep = "#"

// lookup finds the answer for a request of tool asked under key (2026-07-28; "" for a
// server request): TOOL#KEY, TOOL, *#KEY, then *. byKey says that the answer was for
// that request alone.
func lookup[V any](m map[string]V, tool, key string) (v V, byKey, ok bool) {
	for _, k := range []struct {
		name  string
		byKey bool
	}{{tool + KeySep + key, true}, {tool, false}, {Any + KeySep + key, true}, {Any, false}} {
		if k.byKey && key == "" || k.name == "" || k.name == KeySep+key {
			continue
		}
		if v, ok := m[k.name]; ok {
			return v, k.byKey, true
		}
	}
	return v, false, false
}

// Answer answers r from the set, for the tool it belongs to. It reports false, and
// leaves r alone, when the set has no answer for it. An elicitation answer whose field
// values do not fit the form the server sent is not sent: Answer leaves r alone and
// returns a [*cmdutil.UsageError] that names the file, the tool and the field. A value
// given as a string for a field of another type is read as that type, as a --arg value
// is ("true" for a boolean). A URL elicitation that the set accepts is told to Note.
func (s *Set) Answer(r *client.Request, tool string) (bool, error) {
	if s == nil {
		return false, nil
	}
	switch {
	case r.Elicitation != nil:
		a, byKey, ok := lookup(s.Elicitation, tool, r.InputKey)
		if !ok {
			return false, nil
		}
		switch a.Action {
		case "decline":
			_ = r.Decline()
			return true, nil
		case "cancel":
			_ = r.Dismiss()
			return true, nil
		}
		if r.Elicitation.EffectiveMode() == mcp.ElicitModeURL {
			if len(a.Content) > 0 {
				return false, cmdutil.UsageErrorf(`the answers file %s answers the server's URL elicitation for %s with fields, which it has none of; answer it "accept", "decline" or "cancel"`, s.File, s.subject(tool))
			}
			if s.Note != nil {
				s.Note(urlNote(r.Elicitation, s.File))
			}
			_ = r.Accept(nil)
			return true, nil
		}
		content, err := fitForm(r.Elicitation.RequestedSchema, a.Content, byKey)
		if err != nil {
			// The problem may quote the server's field names: a line's worth of them.
			return false, cmdutil.UsageErrorf("the answers file %s does not fit the form the server sent for %s: %s", s.File, s.subject(tool), cut.Bytes(err.Error(), 300))
		}
		_ = r.Accept(content)
		return true, nil
	case r.Sampling != nil:
		a, _, ok := lookup(s.Sampling, tool, r.InputKey)
		if !ok {
			return false, nil
		}
		if a.Decline {
			_ = r.Refuse("the answers file " + s.File + " declines sampling for " + strings.TrimSpace(s.subject(tool)))
			return true, nil
		}
		_ = r.Respond(&mcp.CreateMessageResult{
			Role:       mcp.RoleAssistant,
			Content:    []mcp.Content{mcp.TextContent(a.Text)},
			Model:      "mcpi-answers",
			StopReason: mcp.StopReasonEndTurn,
		})
		return true, nil
	}
	return false, nil
}

// urlNote says which page a URL elicitation accepted from file asks the user to open,
// as the terminal's prompt shows it: the page is the user's to open, mcpi opens none.
func urlNote(p *mcp.ElicitParams, file string) string {
	page, web := look.WebURL(p.URL)
	if !web {
		page = fmt.Sprintf("%q, no web address and not to be opened", cut.Bytes(p.URL, 200))
	}
	line := "The answers file " + file + " accepts the server's request to open " + page
	if msg := strings.TrimSpace(p.Message); msg != "" {
		line += " (" + strings.TrimSuffix(cut.Bytes(msg, 300), ".") + ")"
	}
	return look.Safe(line)
}

// fitForm returns the content of an answer for the form schema: a string given for a
// field the form declares of another type (boolean, number, integer, array) is read as
// that type, when it can be. A field the form does not have is left out when the answer
// is the tool's (byKey false), whose forms may be several, each taking its own fields
// from it; but an answer that gives fields and none of this form's is refused, and so is
// any field not of the form in an answer for this request alone: in a file written by
// hand it is most likely a misspelt one, which the server would ignore. The content is
// then checked against the form; a problem mentions the fields left out.
func fitForm(schema json.RawMessage, content map[string]any, byKey bool) (map[string]any, error) {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	_ = json.Unmarshal(schema, &s)
	var other []string
	if len(s.Properties) > 0 {
		for _, k := range slices.Sorted(maps.Keys(content)) {
			if _, ok := s.Properties[k]; !ok {
				other = append(other, k)
			}
		}
		if len(other) > 0 && (byKey || len(other) == len(content)) {
			names := slices.Sorted(maps.Keys(s.Properties))
			if len(names) > 20 {
				names = append(names[:20], "…")
			}
			for i, n := range names {
				names[i] = cut.Bytes(n, 64)
			}
			return nil, &client.FormError{Field: other[0], Problem: "is not a field of this form (its fields: " + strings.Join(names, ", ") + ")"}
		}
	}
	out := make(map[string]any, len(content))
	for k, v := range content {
		if len(s.Properties) > 0 && s.Properties[k] == nil {
			continue
		}
		out[k] = v
		str, ok := v.(string)
		if !ok || s.Properties[k] == nil {
			continue
		}
		var typed any
		if json.Unmarshal(cmdutil.CoerceValue(s.Properties[k], str), &typed) == nil {
			out[k] = typed
		}
	}
	if err := client.ValidateElicitContent(schema, out); err != nil {
		if len(other) == 0 {
			return nil, err
		}
		if len(other) > 5 {
			other = append(other[:5], "…")
		}
		for i, n := range other {
			other[i] = fmt.Sprintf("%q", cut.Bytes(n, 64))
		}
		return nil, fmt.Errorf("%w (the answer's %s, not of this form, left out)", err, strings.Join(other, ", "))
	}
	return out, nil
}

// Example is an answer for a form, for a message that says how to write one: each field
// of schema (sorted by name) with its default, or a value of its type ("..." for a
// string, the first of an enum's values, false, 0, []). It is "field": "value" when
// schema has no fields that can be read.
func Example(schema json.RawMessage) string {
	var s struct {
		Properties map[string]struct {
			Type  string `json:"type"`
			Enum  []any  `json:"enum"`
			OneOf []struct {
				Const any `json:"const"`
			} `json:"oneOf"`
		} `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil || len(s.Properties) == 0 {
		return `"field": "value"`
	}
	defaults := mcp.ApplySchemaDefaults(schema, nil)
	var fields []string
	names := slices.Sorted(maps.Keys(s.Properties))
	if len(names) > maxExampleFields {
		names = names[:maxExampleFields] // a sentence's worth of a server's form
	}
	for _, name := range names {
		p := s.Properties[name]
		v, ok := defaults[name]
		switch {
		case ok:
		case len(p.Enum) > 0:
			v = p.Enum[0]
		case len(p.OneOf) > 0:
			v = p.OneOf[0].Const
		case p.Type == "boolean":
			v = false
		case p.Type == "integer" || p.Type == "number":
			v = 0
		case p.Type == "array":
			v = []string{}
		default:
			v = "..."
		}
		b, err := json.Marshal(v)
		if err != nil || len(b) > 64 {
			b = []byte(`"..."`)
		}
		fields = append(fields, fmt.Sprintf("%q: %s", cut.Bytes(name, 64), b))
	}
	return strings.Join(fields, ", ")
}

// maxExampleFields bounds the fields of an [Example].
const maxExampleFields = 20

// subject names what tool names, for a sentence.
func (s *Set) subject(tool string) string {
	if tool == "" {
		return "this request"
	}
	return cmdutil.Subject(s.Kind, tool)
}
