package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpi-dev/mcpi/mcp"
)

// Schemas of the keywords the check knows, for the differential test against a complete
// JSON Schema 2020-12 validator (a test dependency only: the binaries do not link it).
var referenceSchemas = []string{
	`{"type":"object","properties":{"a":{"type":"number","minimum":1,"maximum":10},"b":{"type":"integer","exclusiveMinimum":0,"multipleOf":3}},"required":["a"]}`,
	`{"type":"object","properties":{"s":{"type":"string","minLength":2,"maxLength":5,"pattern":"^[a-z]+$"},"e":{"enum":["x",1,null,{"k":[1]}]},"c":{"const":2.50}}}`,
	`{"type":"object","properties":{"t":{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":3,"uniqueItems":true},"p":{"type":"array","prefixItems":[{"type":"integer"},{"type":"boolean"}],"items":false}}}`,
	`{"type":"object","$defs":{"pt":{"type":"object","properties":{"x":{"type":"integer"},"y":{"$ref":"#/$defs/pt"}},"required":["x"],"additionalProperties":false}},"properties":{"o":{"$ref":"#/$defs/pt"}}}`,
	`{"type":"object","properties":{"u":{"anyOf":[{"type":"string"},{"type":"number","minimum":0}]},"v":{"oneOf":[{"type":"integer"},{"type":"number","maximum":1}]},"w":{"allOf":[{"type":"string"},{"minLength":1}]},"n":{"not":{"type":"null"}}}}`,
	`{"type":"object","patternProperties":{"^x-":{"type":"string"}},"additionalProperties":{"type":"number"},"minProperties":1,"maxProperties":3}`,
	`{"type":"object","properties":{"k":{"type":["string","null"]}},"dependentRequired":{"a":["b"]},"if":{"required":["mode"]},"then":{"required":["level"]},"else":{"maxProperties":2}}`,
	`{"type":"object","properties":{"c":{"type":"array","contains":{"type":"integer"},"minContains":2,"maxContains":3}}}`,
	`{"type":"object","properties":{"f":false,"t":true}}`,
}

func referenceValid(t testing.TB, schema string, args []byte) (bool, bool) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(schema)))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("mcpi:///s.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("mcpi:///s.json")
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return false, false
	}
	return sch.Validate(inst) == nil, true
}

// FuzzArgumentsAgainstReference: for the schemas above, the check says valid exactly when
// a complete validator does.
func FuzzArgumentsAgainstReference(f *testing.F) {
	for _, seed := range []string{
		`{"a":2,"b":3}`, `{"a":0}`, `{"b":3}`, `{"a":1.5,"b":6.0}`, `{"s":"abc"}`, `{"s":"A"}`, `{"e":{"k":[1.0]}}`, `{"c":2.5}`,
		`{"t":["a","a"]}`, `{"t":[]}`, `{"p":[1,true]}`, `{"p":[1,true,3]}`, `{"o":{"x":1,"y":{"x":2}}}`, `{"o":{"x":1,"z":0}}`,
		`{"u":-1}`, `{"v":1}`, `{"v":0.5}`, `{"w":""}`, `{"n":null}`, `{"x-a":"s","b":1}`, `{"x-a":1}`, `{}`,
		`{"a":1}`, `{"mode":1}`, `{"mode":1,"level":2}`, `{"k":null,"z":1,"y":2}`, `{"c":[1,2,"x"]}`, `{"c":[1,2,3,4]}`,
		`{"f":1}`, `{"t":1}`, `{"a":1e400}`, `{"b":-0}`,
	} {
		for i := range referenceSchemas {
			f.Add(i, seed)
		}
	}
	f.Fuzz(func(t *testing.T, i int, args string) {
		if i < 0 {
			i = -i
		}
		schema := referenceSchemas[i%len(referenceSchemas)]
		want, ok := referenceValid(t, schema, []byte(args))
		if !ok {
			return // not JSON: ValidateArguments says so itself
		}
		if _, isObject := decodeObject([]byte(args)); !isObject {
			return
		}
		err := ValidateArguments(&mcp.Tool{Name: "t", InputSchema: json.RawMessage(schema)}, json.RawMessage(args))
		if got := err == nil; got != want {
			t.Errorf("schema %s, arguments %s: the check says valid=%v (%v), the reference %v", schema, args, got, err, want)
		}
	})
}

func decodeObject(raw []byte) (map[string]any, bool) {
	v, err := decodeJSON(raw)
	if err != nil {
		return nil, false
	}
	m, ok := v.(map[string]any)
	return m, ok
}

// The messages of the keywords the first tests do not reach.
func TestArgumentMessages(t *testing.T) {
	for _, c := range []struct{ schema, args, want string }{
		{referenceSchemas[0], `{"a":11}`, `argument "a" must be at most 10`},
		{referenceSchemas[0], `{"a":1,"b":0}`, `argument "b" must be greater than 0`},
		{referenceSchemas[0], `{"a":1,"b":4}`, `argument "b" must be a multiple of 3`},
		{referenceSchemas[1], `{"s":"a"}`, `argument "s" must be at least 2 characters long`},
		{referenceSchemas[1], `{"s":"abcdef"}`, `argument "s" must be at most 5 characters long`},
		{referenceSchemas[1], `{"s":"AB"}`, `argument "s" must match the pattern ^[a-z]+$`},
		{referenceSchemas[1], `{"c":3}`, `argument "c" must be 2.50`},
		{referenceSchemas[2], `{"t":[]}`, `argument "t" must have at least 1 items`},
		{referenceSchemas[2], `{"t":["a","a"]}`, `argument "t" must not repeat items`},
		{referenceSchemas[2], `{"p":[1,true,3]}`, `argument "p[2]" is not allowed`},
		{referenceSchemas[3], `{"o":{"y":{"x":1}}}`, `argument "o.x" is required`},
		{referenceSchemas[3], `{"o":{"x":1,"y":{"x":"1"}}}`, `argument "o.y.x" must be an integer, not a string`},
		{referenceSchemas[4], `{"n":null}`, `argument "n" is not allowed`},
		{referenceSchemas[5], `{}`, `the arguments must have at least 1 members`},
		{referenceSchemas[6], `{"a":1}`, `argument "b" is required with a`},
		{referenceSchemas[6], `{"mode":"x"}`, `argument "level" is required`},
		{referenceSchemas[7], `{"c":["x"]}`, `argument "c" must contain an item of the form the tool accepts`},
	} {
		err := ValidateArguments(&mcp.Tool{Name: "t", InputSchema: json.RawMessage(c.schema)}, json.RawMessage(c.args))
		if err == nil || err.Error() != c.want {
			t.Errorf("%s against %s: %v, want %q", c.args, c.schema, err, c.want)
		}
	}
}

// A schema that refers to itself for ever ends.
func TestArgumentsSelfReference(t *testing.T) {
	tool := &mcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"$ref":"#","type":"object"}`)}
	if err := ValidateArguments(tool, json.RawMessage(`{"a":1}`)); err != nil {
		t.Fatal(err)
	}
}

// A server's schema that would make the check exponential (anyOf within anyOf, 40 deep)
// ends at once, and passes.
func TestArgumentsExponentialSchemaEnds(t *testing.T) {
	// Each definition refers twice to the one before: small to send, 2^40 paths to walk.
	defs := `"d0":{"type":"string"}`
	for i := 1; i <= 40; i++ {
		ref := fmt.Sprintf(`{"$ref":"#/$defs/d%d"}`, i-1)
		defs += fmt.Sprintf(`,"d%d":{"anyOf":[%s,%s]}`, i, ref, ref)
	}
	tool := &mcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object","$defs":{` + defs + `},"properties":{"x":{"$ref":"#/$defs/d40"}}}`)}
	done := make(chan error, 1)
	go func() { done <- ValidateArguments(tool, json.RawMessage(`{"x":1}`)) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the check of a nested anyOf did not end")
	}
}
