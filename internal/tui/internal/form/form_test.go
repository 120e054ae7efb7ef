package form

import (
	"encoding/json"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/mcpi-dev/mcpi/internal/tui/internal/tuitest"
)

const schema = `{"type":"object","properties":{
 "zeta":{"type":"string","title":"Zeta","minLength":2},
 "count":{"type":"integer","minimum":1,"default":3},
 "ratio":{"type":"number"},
 "mode":{"type":"string","enum":["fast","slow"],"default":"slow"},
 "level":{"oneOf":[{"const":"lo","title":"Low"},{"const":"hi","title":"High"}]},
 "on":{"type":"boolean"},
 "tags":{"type":"array","items":{"enum":["a","b","c"]}},
 "opts":{"type":"object"},
 "any":{}
},"required":["zeta","on"]}`

func keys(f *Form, names ...string) {
	for _, n := range names {
		f.Update(tuitest.KeyPress(n))
	}
}

func typ(f *Form, s string) {
	for _, r := range s {
		f.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// Fields come in schema order with their kinds, defaults and required marks.
func TestFromSchema(t *testing.T) {
	fields, err := FromSchema(json.RawMessage(schema))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name string
		kind Kind
		req  bool
	}{{"zeta", String, true}, {"count", Integer, false}, {"ratio", Number, false}, {"mode", Enum, false},
		{"level", Enum, false}, {"on", Boolean, true}, {"tags", MultiEnum, false}, {"opts", JSON, false}, {"any", Any, false}}
	if len(fields) != len(want) {
		t.Fatalf("%d fields, want %d", len(fields), len(want))
	}
	for i, w := range want {
		f := fields[i]
		if f.Name != w.name || f.Kind != w.kind || f.Required != w.req {
			t.Errorf("field %d = %s %v required=%v, want %s %v %v", i, f.Name, f.Kind, f.Required, w.name, w.kind, w.req)
		}
	}
	if fields[1].Text() != "3" {
		t.Errorf("count's default is %q", fields[1].Text())
	}
	f := New(fields, "OK")
	f.Validate = SchemaValidator(json.RawMessage(schema))
	view := ansi.Strip(f.View(80, 30))
	for _, s := range []string{"Zeta*", "‹ slow ›", "‹ (none) ›", "[ ] false", "[ ]a [ ]b [ ]c", "[ OK ]"} {
		if !strings.Contains(view, s) {
			t.Errorf("the form lacks %q:\n%s", s, view)
		}
	}
}

// Values are typed by kind, and problems (a value of the wrong kind, or what the
// schema refuses) are named at their field before anything is sent.
func TestValuesAndValidation(t *testing.T) {
	fields, _ := FromSchema(json.RawMessage(schema))
	f := New(fields, "OK")
	f.Validate = SchemaValidator(json.RawMessage(schema))
	if _, ok := f.Values(); ok {
		t.Fatal("an empty required field was accepted")
	}
	if !strings.Contains(ansi.Strip(f.View(80, 30)), "Zeta is required") {
		t.Errorf("the problem is not shown:\n%s", ansi.Strip(f.View(80, 30)))
	}
	typ(f, "x")
	if f.Field("zeta").Err() != "must be at least 2 characters long" {
		t.Errorf("zeta's problem is %q", f.Field("zeta").Err())
	}
	typ(f, "yz")
	keys(f, "tab")
	typ(f, ".5")
	if f.Field("count").Err() != "must be a whole number" {
		t.Errorf("count's problem is %q", f.Field("count").Err())
	}
	keys(f, "backspace", "backspace")
	keys(f, "tab")
	typ(f, "2.5")
	keys(f, "tab", "left")           // mode: slow -> fast
	keys(f, "tab", "right")          // level: (none) -> lo
	keys(f, "tab", "space")          // on: false -> true
	keys(f, "tab", "right", "space") // tags: b
	keys(f, "tab")
	typ(f, `{"k":1}`)
	keys(f, "tab")
	typ(f, "plain words")
	values, ok := f.Values()
	if !ok {
		t.Fatalf("valid values refused: %s", ansi.Strip(f.View(80, 30)))
	}
	got, _ := json.Marshal(values)
	const want = `{"any":"plain words","count":3,"level":"lo","mode":"fast","on":true,"opts":{"k":1},"ratio":2.5,"tags":["b"],"zeta":"xyz"}`
	if string(got) != want {
		t.Errorf("values = %s\nwant     %s", got, want)
	}
	keys(f, "tab")
	if _, pressed := f.Update(tuitest.KeyPress("enter")); pressed != 0 {
		t.Errorf("enter on the button pressed %d", pressed)
	}
}

// Every problem shows at the first check: a value of the wrong kind in one field does
// not hide what the schema refuses in another, nor one schema problem another.
func TestEveryProblemAtOnce(t *testing.T) {
	fields, _ := FromSchema(json.RawMessage(schema))
	f := New(fields, "OK")
	f.Validate = SchemaValidator(json.RawMessage(schema))
	typ(f, "x")    // zeta: too short (the schema)
	keys(f, "tab") // count
	keys(f, "ctrl+a", "ctrl+k")
	typ(f, "-3")   // below the minimum (the schema)
	keys(f, "tab") // ratio
	typ(f, "abc")  // not a number (the field)
	if _, ok := f.Values(); ok {
		t.Fatal("bad values were accepted")
	}
	for name, want := range map[string]string{"zeta": "must be at least 2 characters long", "count": "must be at least 1", "ratio": "must be a number"} {
		if got := f.Field(name).Err(); !strings.Contains(got, want) {
			t.Errorf("%s's problem is %q, want %q", name, got, want)
		}
	}
	if got := f.Field("on").Err(); got != "" {
		t.Errorf("on (a boolean, false by default) has the problem %q", got)
	}
	// Fixed, the values go, checked as a whole.
	keys(f, "shift+tab", "shift+tab")
	typ(f, "yz")
	keys(f, "tab", "ctrl+a", "ctrl+k")
	typ(f, "3")
	keys(f, "tab", "ctrl+a", "ctrl+k")
	if _, ok := f.Values(); !ok {
		t.Fatalf("valid values refused:\n%s", ansi.Strip(f.View(80, 30)))
	}
}
