package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// HeaderParamKeyword is the JSON Schema keyword by which a 2026-07-28 tool asks
// for one of its arguments to be mirrored into an HTTP header, Mcp-Param-{Name}.
const HeaderParamKeyword = "x-mcp-header"

// HeaderParam is a tool argument that travels as an HTTP header as well.
type HeaderParam struct {
	// Name is the header's name without its "Mcp-Param-" prefix.
	Name string
	// Path is the argument's place: property names from the root of the
	// arguments object.
	Path []string
	// Type is the property's JSON Schema type: string, integer or boolean.
	Type string
}

// HeaderParamError is a tool whose x-mcp-header declarations break the rules
// of revision 2026-07-28; a client on HTTP leaves such a tool out of its list.
type HeaderParamError struct {
	Tool   string
	Reason string
}

func (e *HeaderParamError) Error() string {
	return fmt.Sprintf("the tool %q has an invalid %s: %s", e.Tool, HeaderParamKeyword, e.Reason)
}

// HeaderParams returns the tool's header parameters, in schema order, or a
// [*HeaderParamError] if any declaration is invalid: a name that is empty, not
// an HTTP token or not unique (ignoring case); a property whose type is not
// string, integer or boolean; or a declaration reachable from the root through
// anything but "properties" (items, anyOf, $defs, ...).
func (t *Tool) HeaderParams() ([]HeaderParam, error) {
	if !bytes.Contains(t.InputSchema, []byte(HeaderParamKeyword)) {
		return nil, nil
	}
	var root any
	if err := json.Unmarshal(t.InputSchema, &root); err != nil {
		return nil, nil // an unreadable schema has no header parameters to honour
	}
	w := headerWalk{tool: t.Name, seen: map[string]bool{}}
	w.node(root, nil, true)
	if w.err != nil {
		return nil, w.err
	}
	return w.params, nil
}

type headerWalk struct {
	tool   string
	params []HeaderParam
	seen   map[string]bool
	err    error
}

func (w *headerWalk) fail(format string, args ...any) {
	if w.err == nil {
		w.err = &HeaderParamError{Tool: w.tool, Reason: fmt.Sprintf(format, args...)}
	}
}

// node visits a schema value; static says it is reached from the root through
// "properties" members only, path names the property.
func (w *headerWalk) node(v any, path []string, static bool) {
	switch n := v.(type) {
	case []any:
		for _, e := range n {
			w.node(e, path, false)
		}
	case map[string]any:
		if h, ok := n[HeaderParamKeyword]; ok {
			w.declare(n, h, path, static)
		}
		for k, child := range orderedMembers(n) {
			if k == "properties" {
				if props, ok := child.(map[string]any); ok {
					for name, p := range orderedMembers(props) {
						w.node(p, append(path[:len(path):len(path)], name), static)
					}
					continue
				}
			}
			if k != HeaderParamKeyword {
				w.node(child, path, false)
			}
		}
	}
}

func (w *headerWalk) declare(schema map[string]any, h any, path []string, static bool) {
	name, ok := h.(string)
	switch {
	case !ok:
		w.fail("its value must be a string")
	case len(path) == 0 || !static:
		w.fail("%q is not on a property reached through properties alone", name)
	case !IsToken(name):
		w.fail("%q is not a valid header name", name)
	case w.seen[strings.ToLower(name)]:
		w.fail("%q is declared twice", name)
	default:
		typ, _ := schema["type"].(string)
		if typ != "string" && typ != "integer" && typ != "boolean" {
			w.fail("%q is on a property of type %v; only string, integer and boolean may be headers", name, schema["type"])
			return
		}
		w.seen[strings.ToLower(name)] = true
		w.params = append(w.params, HeaderParam{Name: name, Path: path, Type: typ})
	}
}

// IsToken reports whether s is an RFC 9110 token: what an HTTP header's name, and so an
// x-mcp-header, must be.
func IsToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// orderedMembers ranges over an object's members in key order, so that the
// same schema always gives the same parameters and the same first error.
func orderedMembers(m map[string]any) func(func(string, any) bool) {
	return func(yield func(string, any) bool) {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if !yield(k, m[k]) {
				return
			}
		}
	}
}

// HeaderParamValues returns the header values that arguments give the
// parameters (name without prefix → value, not yet encoded for a header). An
// argument that is absent or null gives no header; an integer outside
// ±(2^53-1) or a value of another type than declared is an error.
func HeaderParamValues(params []HeaderParam, arguments json.RawMessage) (map[string]string, error) {
	if len(params) == 0 || len(arguments) == 0 {
		return nil, nil
	}
	var args map[string]any
	dec := json.NewDecoder(bytes.NewReader(arguments))
	dec.UseNumber()
	if err := dec.Decode(&args); err != nil {
		return nil, nil // not an object: the server judges the arguments
	}
	out := map[string]string{}
	for _, p := range params {
		var v any = args
		for _, k := range p.Path {
			obj, ok := v.(map[string]any)
			if !ok {
				v = nil
				break
			}
			v = obj[k]
		}
		switch x := v.(type) {
		case nil:
		case string:
			if p.Type != "string" {
				return nil, fmt.Errorf("argument %s: want %s for header Mcp-Param-%s, have a string", strings.Join(p.Path, "."), p.Type, p.Name)
			}
			out[p.Name] = x
		case bool:
			if p.Type != "boolean" {
				return nil, fmt.Errorf("argument %s: want %s for header Mcp-Param-%s, have a boolean", strings.Join(p.Path, "."), p.Type, p.Name)
			}
			out[p.Name] = fmt.Sprint(x)
		case json.Number:
			i, err := x.Int64()
			if p.Type != "integer" || err != nil || i > 1<<53-1 || i < -(1<<53-1) {
				return nil, fmt.Errorf("argument %s: %s is not an integer within ±(2^53-1) for header Mcp-Param-%s", strings.Join(p.Path, "."), x, p.Name)
			}
			out[p.Name] = x.String()
		default:
			return nil, fmt.Errorf("argument %s: an object or array cannot travel in header Mcp-Param-%s", strings.Join(p.Path, "."), p.Name)
		}
	}
	return out, nil
}
