package client

import (
	"bytes"
	"encoding/json"
	"maps"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// The check of a tool's arguments against its input schema (JSON Schema 2020-12), before
// the call is sent. It is a convenience, not the server's own validation: a keyword it
// does not know, a remote $ref or a pattern Go cannot read passes, so that it never
// refuses what the server would take. It is mcpi's own rather than a library's because
// the libraries compile their metaschemas when the program starts, which every command
// paid (issue 17).

// maxSchemaDepth bounds how deep the check follows schemas and $refs: a schema that refers
// to itself for ever is not followed past it.
const maxSchemaDepth = 64

// violation is one place where the arguments do not fit: the instance location, the
// keyword that failed, and the ArgumentError's problem.
type violation struct {
	loc     []string
	keyword string
	field   []string // where the problem is, when not loc (a required or extra property)
	problem string
}

// maxSchemaSteps bounds the work of one check: a server's schema of anyOf within anyOf
// could otherwise make it exponential. A check that runs out passes what is left.
const maxSchemaSteps = 200_000

// maxUniqueItems bounds the arrays whose uniqueItems is checked (the check is quadratic).
const maxUniqueItems = 2000

// schemaOf is what a checked schema belongs to.
type schemaOf int

const (
	inputSchema  schemaOf = iota // a tool's input schema
	formSchema                   // an elicitation form's requested schema
	outputSchema                 // a tool's output schema
)

type schemaCheck struct {
	root  any
	out   []violation
	steps *int // shared with the checks of alternatives
	// of is what the schema belongs to (for the wording).
	of schemaOf
}

// checkSchema returns the violations of inst against schema (both decoded with
// UseNumber); of says whose schema it is.
func checkSchema(schema, inst any, of schemaOf) []violation {
	steps := 0
	c := &schemaCheck{root: schema, steps: &steps, of: of}
	c.check(schema, inst, nil, 0)
	return c.out
}

// owner names what the schema belongs to, for a problem's wording.
func (c *schemaCheck) owner() string {
	switch c.of {
	case formSchema:
		return "the form"
	case outputSchema:
		return "the output schema"
	}
	return "the tool"
}

func (c *schemaCheck) add(loc []string, keyword, problem string) {
	c.out = append(c.out, violation{loc: slices.Clone(loc), keyword: keyword, problem: problem})
}

// valid reports whether inst fits s, without recording why.
func (c *schemaCheck) valid(s, inst any, loc []string, depth int) bool {
	sub := &schemaCheck{root: c.root, steps: c.steps, of: c.of}
	sub.check(s, inst, loc, depth)
	return len(sub.out) == 0
}

func (c *schemaCheck) check(s, inst any, loc []string, depth int) {
	*c.steps++
	if depth > maxSchemaDepth || *c.steps > maxSchemaSteps {
		return
	}
	switch s := s.(type) {
	case bool:
		if !s {
			c.add(loc, "false", "is not allowed")
		}
		return
	case map[string]any:
		c.object(s, inst, loc, depth)
	}
}

func (c *schemaCheck) object(s map[string]any, inst any, loc []string, depth int) {
	if ref, ok := s["$ref"].(string); ok {
		if target, ok := c.resolve(ref); ok {
			c.check(target, inst, loc, depth+1)
		}
		// Sibling keywords apply too (2020-12).
	}
	if t, ok := s["type"]; ok && !typeMatches(t, inst) {
		want := typeNames(t)
		got := jsonKind(inst)
		if n, ok := inst.(json.Number); ok && slices.Contains(want, "integer") {
			got = n.String() // "must be an integer, not 2.5"
		}
		c.add(loc, "type", "must be "+wantTypes(want)+", not "+got)
		return // the other keywords would only say it again
	}
	if e, ok := s["enum"].([]any); ok && !slices.ContainsFunc(e, func(w any) bool { return jsonEqual(w, inst) }) {
		want := make([]string, len(e))
		for i, w := range e {
			want[i] = display(w)
		}
		if len(want) == 1 {
			c.add(loc, "enum", "must be "+want[0])
		} else {
			c.add(loc, "enum", "must be one of "+strings.Join(want, ", "))
		}
	}
	if w, ok := s["const"]; ok && !jsonEqual(w, inst) {
		c.add(loc, "const", "must be "+display(w))
	}
	switch v := inst.(type) {
	case json.Number:
		c.number(s, v, loc)
	case string:
		c.str(s, v, loc)
	case []any:
		c.array(s, v, loc, depth)
	case map[string]any:
		c.properties(s, v, loc, depth)
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		alts, ok := s[k].([]any)
		if !ok {
			continue
		}
		n := 0
		for _, a := range alts {
			if c.valid(a, inst, loc, depth+1) {
				n++
			}
		}
		if n == 0 || k == "oneOf" && n > 1 {
			c.add(loc, k, "does not match any of the forms "+c.owner()+" accepts")
		}
	}
	if all, ok := s["allOf"].([]any); ok {
		for _, a := range all {
			c.check(a, inst, loc, depth+1)
		}
	}
	if not, ok := s["not"]; ok && c.valid(not, inst, loc, depth+1) {
		c.add(loc, "not", "is not allowed")
	}
	if cond, ok := s["if"]; ok {
		if c.valid(cond, inst, loc, depth+1) {
			if then, ok := s["then"]; ok {
				c.check(then, inst, loc, depth+1)
			}
		} else if els, ok := s["else"]; ok {
			c.check(els, inst, loc, depth+1)
		}
	}
}

// resolve follows a local $ref: "#", or a JSON pointer into the root schema. A remote
// one is not followed.
func (c *schemaCheck) resolve(ref string) (any, bool) {
	ptr, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, false
	}
	v := c.root
	for _, tok := range strings.Split(ptr, "/")[1:] {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := v.(type) {
		case map[string]any:
			if v, ok = x[tok]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

func (c *schemaCheck) number(s map[string]any, n json.Number, loc []string) {
	v, ok := new(big.Rat).SetString(n.String())
	if !ok {
		return
	}
	bound := func(k string) (*big.Rat, bool) {
		b, ok := s[k].(json.Number)
		if !ok {
			return nil, false
		}
		return new(big.Rat).SetString(b.String())
	}
	if b, ok := bound("minimum"); ok && v.Cmp(b) < 0 {
		c.add(loc, "minimum", "must be at least "+rat(b))
	}
	if b, ok := bound("maximum"); ok && v.Cmp(b) > 0 {
		c.add(loc, "maximum", "must be at most "+rat(b))
	}
	if b, ok := bound("exclusiveMinimum"); ok && v.Cmp(b) <= 0 {
		c.add(loc, "exclusiveMinimum", "must be greater than "+rat(b))
	}
	if b, ok := bound("exclusiveMaximum"); ok && v.Cmp(b) >= 0 {
		c.add(loc, "exclusiveMaximum", "must be less than "+rat(b))
	}
	if b, ok := bound("multipleOf"); ok && b.Sign() > 0 && !new(big.Rat).Quo(v, b).IsInt() {
		c.add(loc, "multipleOf", "must be a multiple of "+rat(b))
	}
}

// patterns keeps the regular expressions of the schemas checked, compiled once; nil for
// one Go cannot read (ECMA-262 has forms RE2 has not), which then passes.
var patterns = struct {
	sync.Mutex
	m map[string]*regexp.Regexp
}{m: map[string]*regexp.Regexp{}}

func pattern(p string) *regexp.Regexp {
	patterns.Lock()
	defer patterns.Unlock()
	if re, ok := patterns.m[p]; ok {
		return re
	}
	re, err := regexp.Compile(p)
	if err != nil {
		re = nil
	}
	if len(patterns.m) < 1024 {
		patterns.m[p] = re
	}
	return re
}

func (c *schemaCheck) str(s map[string]any, v string, loc []string) {
	n := utf8.RuneCountInString(v)
	if m, ok := intKeyword(s, "minLength"); ok && n < m {
		c.add(loc, "minLength", "must be at least "+strconv.Itoa(m)+" characters long")
	}
	if m, ok := intKeyword(s, "maxLength"); ok && n > m {
		c.add(loc, "maxLength", "must be at most "+strconv.Itoa(m)+" characters long")
	}
	if p, ok := s["pattern"].(string); ok {
		if re := pattern(p); re != nil && !re.MatchString(v) {
			c.add(loc, "pattern", "must match the pattern "+p)
		}
	}
}

func (c *schemaCheck) array(s map[string]any, v []any, loc []string, depth int) {
	if m, ok := intKeyword(s, "minItems"); ok && len(v) < m {
		c.add(loc, "minItems", "must have at least "+strconv.Itoa(m)+" items")
	}
	if m, ok := intKeyword(s, "maxItems"); ok && len(v) > m {
		c.add(loc, "maxItems", "must have at most "+strconv.Itoa(m)+" items")
	}
	if u, _ := s["uniqueItems"].(bool); u && len(v) <= maxUniqueItems {
	outer:
		for i := range v {
			for j := i + 1; j < len(v); j++ {
				if jsonEqual(v[i], v[j]) {
					c.add(loc, "uniqueItems", "must not repeat items")
					break outer
				}
			}
		}
	}
	prefix, _ := s["prefixItems"].([]any)
	for i, x := range v {
		at := append(slices.Clone(loc), strconv.Itoa(i))
		switch {
		case i < len(prefix):
			c.check(prefix[i], x, at, depth+1)
		case s["items"] != nil:
			c.check(s["items"], x, at, depth+1)
		}
	}
	if contains, ok := s["contains"]; ok {
		n := 0
		for i, x := range v {
			if c.valid(contains, x, append(slices.Clone(loc), strconv.Itoa(i)), depth+1) {
				n++
			}
		}
		lo, hasLo := intKeyword(s, "minContains")
		if !hasLo {
			lo = 1
		}
		if n < lo {
			c.add(loc, "contains", "must contain an item of the form "+c.owner()+" accepts")
		}
		if hi, ok := intKeyword(s, "maxContains"); ok && n > hi {
			c.add(loc, "maxContains", "must contain at most "+strconv.Itoa(hi)+" such items")
		}
	}
}

func (c *schemaCheck) properties(s map[string]any, v map[string]any, loc []string, depth int) {
	if req, ok := s["required"].([]any); ok {
		for _, r := range req {
			if name, ok := r.(string); ok {
				if _, has := v[name]; !has {
					c.out = append(c.out, violation{loc: slices.Clone(loc), keyword: "required", field: append(slices.Clone(loc), name), problem: "is required"})
				}
			}
		}
	}
	if dep, ok := s["dependentRequired"].(map[string]any); ok {
		for _, name := range slices.Sorted(maps.Keys(dep)) {
			if _, has := v[name]; !has {
				continue
			}
			list, _ := dep[name].([]any)
			for _, r := range list {
				if other, ok := r.(string); ok {
					if _, has := v[other]; !has {
						c.out = append(c.out, violation{loc: slices.Clone(loc), keyword: "dependentRequired", field: append(slices.Clone(loc), other), problem: "is required with " + name})
					}
				}
			}
		}
	}
	if m, ok := intKeyword(s, "minProperties"); ok && len(v) < m {
		c.add(loc, "minProperties", "must have at least "+strconv.Itoa(m)+" members")
	}
	if m, ok := intKeyword(s, "maxProperties"); ok && len(v) > m {
		c.add(loc, "maxProperties", "must have at most "+strconv.Itoa(m)+" members")
	}
	props, _ := s["properties"].(map[string]any)
	pats, _ := s["patternProperties"].(map[string]any)
	extra, hasExtra := s["additionalProperties"]
	for _, name := range slices.Sorted(maps.Keys(v)) {
		at := append(slices.Clone(loc), name)
		matched := false
		if sub, ok := props[name]; ok {
			matched = true
			c.check(sub, v[name], at, depth+1)
		}
		for _, p := range slices.Sorted(maps.Keys(pats)) {
			if re := pattern(p); re != nil && re.MatchString(name) {
				matched = true
				c.check(pats[p], v[name], at, depth+1)
			}
		}
		if matched || !hasExtra {
			continue
		}
		if b, ok := extra.(bool); ok && !b {
			problem := "is not allowed here"
			if len(loc) == 0 {
				switch c.of {
				case inputSchema:
					problem = "is not a parameter of this tool"
				case formSchema:
					problem = "is not a field of this form"
				case outputSchema:
					problem = "is not a field of the output schema"
				}
			}
			c.out = append(c.out, violation{loc: slices.Clone(loc), keyword: "additionalProperties", field: at, problem: problem})
			continue
		}
		c.check(extra, v[name], at, depth+1)
	}
}

// intKeyword reads a non-negative integer keyword.
func intKeyword(s map[string]any, k string) (int, bool) {
	n, ok := s[k].(json.Number)
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(n.String())
	if err != nil {
		if f, err := n.Float64(); err == nil && f == float64(int(f)) {
			return int(f), true
		}
		return 0, false
	}
	return i, i >= 0
}

// typeMatches reports whether inst is of one of the types t names ("integer" is a number
// with no fraction). A type the check does not know passes.
func typeMatches(t, inst any) bool {
	names := typeNames(t)
	if len(names) == 0 {
		return true
	}
	for _, name := range names {
		switch name {
		case "null":
			if inst == nil {
				return true
			}
		case "boolean":
			if _, ok := inst.(bool); ok {
				return true
			}
		case "string":
			if _, ok := inst.(string); ok {
				return true
			}
		case "number":
			if _, ok := inst.(json.Number); ok {
				return true
			}
		case "integer":
			if n, ok := inst.(json.Number); ok {
				if r, ok := new(big.Rat).SetString(n.String()); ok && r.IsInt() {
					return true
				}
			}
		case "array":
			if _, ok := inst.([]any); ok {
				return true
			}
		case "object":
			if _, ok := inst.(map[string]any); ok {
				return true
			}
		default:
			return true
		}
	}
	return false
}

func typeNames(t any) []string {
	switch t := t.(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, x := range t {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// jsonEqual compares two decoded JSON values, numbers by value.
func jsonEqual(a, b any) bool {
	switch a := a.(type) {
	case json.Number:
		bn, ok := b.(json.Number)
		if !ok {
			return false
		}
		ra, ok1 := new(big.Rat).SetString(a.String())
		rb, ok2 := new(big.Rat).SetString(bn.String())
		return ok1 && ok2 && ra.Cmp(rb) == 0
	case []any:
		bb, ok := b.([]any)
		return ok && slices.EqualFunc(a, bb, jsonEqual)
	case map[string]any:
		bb, ok := b.(map[string]any)
		if !ok || len(a) != len(bb) {
			return false
		}
		for k, v := range a {
			w, ok := bb[k]
			if !ok || !jsonEqual(v, w) {
				return false
			}
		}
		return true
	}
	return a == b
}

// decodeJSON decodes with numbers kept exact.
func decodeJSON(raw []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, errTrailing
	}
	return v, nil
}
