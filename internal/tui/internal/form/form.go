// Package form builds input forms from JSON Schemas: tool arguments (a tool's
// inputSchema), elicitation forms (a requested schema) and prompt arguments. A form
// knows each field's type, choices, default and whether it is required, checks values
// as they are typed, and shows the problem next to its field before anything is sent.
package form

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/cut"
	"github.com/mcpi-dev/mcpi/internal/tui/internal/ui"
	"github.com/mcpi-dev/mcpi/mcp"
)

// Kind is how a field is edited and what JSON value it gives.
type Kind int

// Field kinds.
const (
	String    Kind = iota // free text, a JSON string
	Number                // a JSON number
	Integer               // a JSON number without a fraction
	Boolean               // true or false, toggled
	Enum                  // one of Choices
	MultiEnum             // a list of Choices, toggled one by one
	JSON                  // any JSON value, typed as JSON
	Any                   // untyped: JSON when it parses, else a string
)

func (k Kind) String() string {
	return [...]string{"string", "number", "integer", "boolean", "choice", "choices", "JSON", "value"}[k]
}

// Choice is one allowed value of an Enum or MultiEnum field.
type Choice struct {
	Value any
	Label string

	display string // Value as a default is compared with it
}

// Field is one input of a form.
type Field struct {
	Name        string
	Label       string
	Description string
	Hint        string
	Kind        Kind
	Required    bool
	Choices     []Choice
	// Extra fields are not part of [Form.Values]: settings that go with the request,
	// such as a task's TTL.
	Extra bool

	input   textinput.Model
	choice  int    // Enum: index into Choices, -1 for none
	boolean int    // Boolean: 0 unset, 1 true, 2 false
	multi   []bool // MultiEnum: chosen
	mcur    int    // MultiEnum: cursor
	touched bool
	err     string
}

// NewField returns a field; set a default with [Field.SetText].
func NewField(name, label string, kind Kind) *Field {
	f := &Field{Name: name, Label: label, Kind: kind, choice: -1}
	f.input = newInput()
	return f
}

func newInput() textinput.Model {
	in := textinput.New()
	in.Prompt = ""
	s := textinput.DefaultDarkStyles()
	s.Cursor.Blink = false
	in.SetStyles(s)
	return in
}

// SetText sets a text field's value.
func (f *Field) SetText(s string) { f.input.SetValue(s) }

// SetChoice chooses the i-th choice of an Enum field (-1 for none).
func (f *Field) SetChoice(i int) { f.choice = max(min(i, len(f.Choices)-1), -1) }

// Text is a text field's value as typed.
func (f *Field) Text() string { return f.input.Value() }

// Err is the problem shown for the field, if any.
func (f *Field) Err() string { return f.err }

func (f *Field) isText() bool {
	return f.Kind == String || f.Kind == Number || f.Kind == Integer || f.Kind == JSON || f.Kind == Any
}

// value returns the field's JSON value; set is false when it is empty (the argument
// is left out), and problem says why the text is not a value of its kind.
func (f *Field) value() (v any, set bool, problem string) {
	switch f.Kind {
	case Boolean:
		switch f.boolean {
		case 1:
			return true, true, ""
		case 2:
			return false, true, ""
		}
		return nil, false, ""
	case Enum:
		if f.choice < 0 {
			return nil, false, ""
		}
		return f.Choices[f.choice].Value, true, ""
	case MultiEnum:
		var list []any
		for i, on := range f.multi {
			if on {
				list = append(list, f.Choices[i].Value)
			}
		}
		if list == nil {
			return nil, false, ""
		}
		return list, true, ""
	}
	text := f.input.Value()
	if text == "" {
		return nil, false, ""
	}
	switch f.Kind {
	case Number, Integer:
		t := strings.TrimSpace(text)
		n, err := strconv.ParseFloat(t, 64)
		if err != nil {
			return nil, false, "must be a number"
		}
		if f.Kind == Integer && (n != float64(int64(n)) || strings.ContainsAny(t, ".eE")) {
			if n != float64(int64(n)) {
				return nil, false, "must be a whole number"
			}
			t = strconv.FormatInt(int64(n), 10)
		}
		return json.Number(t), true, ""
	case JSON, Any:
		dec := json.NewDecoder(strings.NewReader(text))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil || dec.More() {
			if f.Kind == Any {
				return text, true, ""
			}
			return nil, false, "must be JSON"
		}
		return v, true, ""
	}
	return text, true, ""
}

// Form is a list of fields and a row of buttons.
type Form struct {
	Fields  []*Field
	Buttons []string
	// Validate, when set, checks the values (with the schema) and returns every problem
	// it finds, each at its field ("" for the values as a whole).
	Validate func(values map[string]any) []Problem
	// Below, when set, returns lines to draw under the focused field's input, each at
	// most w cells (the input's width), such as the values a server suggests for it.
	// They are drawn indented to the input's column and seen through [ui.Safe].
	Below func(fl *Field, w int) []string

	focus   int
	err     string
	showAll bool
	offset  int

	labelW   int // the widest label, measured for labelsOf fields
	labelsOf int
}

// New returns a form with the given fields and buttons, the first field focused.
func New(fields []*Field, buttons ...string) *Form {
	f := &Form{Fields: fields, Buttons: buttons}
	f.setFocus(0)
	f.revalidate()
	return f
}

// Len is the number of focusable items: fields, then buttons.
func (f *Form) Len() int { return len(f.Fields) + len(f.Buttons) }

// Focus is the index of the focused item.
func (f *Form) Focus() int { return f.focus }

// FocusButton focuses the button with this label.
func (f *Form) FocusButton(label string) {
	if i := slices.Index(f.Buttons, label); i >= 0 {
		f.setFocus(len(f.Fields) + i)
	}
}

// FocusField focuses the field named name.
func (f *Form) FocusField(name string) {
	for i, fl := range f.Fields {
		if fl.Name == name {
			f.setFocus(i)
		}
	}
}

// Field returns the field named name, or nil.
func (f *Form) Field(name string) *Field {
	for _, fl := range f.Fields {
		if fl.Name == name {
			return fl
		}
	}
	return nil
}

// Focused returns the focused field, or nil when a button has the focus.
func (f *Form) Focused() *Field {
	if f.focus < len(f.Fields) {
		return f.Fields[f.focus]
	}
	return nil
}

// SetFieldText sets the text of the field named name as if it had been typed: the
// cursor goes to its end and the form is checked again.
func (f *Form) SetFieldText(name, text string) {
	fl := f.Field(name)
	if fl == nil || !fl.isText() {
		return
	}
	fl.input.SetValue(text)
	fl.input.CursorEnd()
	fl.touched = true
	f.revalidate()
}

// Editing reports whether a text input has the focus (so letters are typed, not
// commands).
func (f *Form) Editing() bool {
	return f.focus < len(f.Fields) && f.Fields[f.focus].isText()
}

func (f *Form) setFocus(i int) {
	n := f.Len()
	if n == 0 {
		return
	}
	i = ((i % n) + n) % n
	if f.focus < len(f.Fields) {
		f.Fields[f.focus].input.Blur()
	}
	f.focus = i
	if i < len(f.Fields) && f.Fields[i].isText() {
		f.Fields[i].input.Focus()
		f.Fields[i].input.CursorEnd()
	}
}

// Form keys.
var (
	keyNext   = key.NewBinding(key.WithKeys("tab", "down"), key.WithHelp("tab/↓", "next field"))
	keyPrev   = key.NewBinding(key.WithKeys("shift+tab", "up"), key.WithHelp("shift+tab/↑", "previous"))
	keyEnter  = key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "next / press"))
	keyToggle = key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "toggle"))
	keyLeft   = key.NewBinding(key.WithKeys("left"), key.WithHelp("←/→", "choose"))
	keyRight  = key.NewBinding(key.WithKeys("right"))
	keyUnset  = key.NewBinding(key.WithKeys("backspace", "delete"), key.WithHelp("del", "unset a choice"))
)

// Keys are the form's keys, for the help bar.
func Keys() []key.Binding {
	return []key.Binding{keyNext, keyPrev, keyEnter, keyToggle, keyLeft, keyUnset}
}

// Update handles a key or a click. pressed is the index of the button pressed, or -1.
func (f *Form) Update(msg tea.Msg) (cmd tea.Cmd, pressed int) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		if f.focus < len(f.Fields) && f.Fields[f.focus].isText() {
			fl := f.Fields[f.focus]
			fl.input, cmd = fl.input.Update(msg)
		}
		return cmd, -1
	}
	var fl *Field
	if f.focus < len(f.Fields) {
		fl = f.Fields[f.focus]
	}
	switch {
	case key.Matches(k, keyNext):
		f.setFocus(f.focus + 1)
		return nil, -1
	case key.Matches(k, keyPrev):
		f.setFocus(f.focus - 1)
		return nil, -1
	case key.Matches(k, keyEnter):
		if fl == nil {
			return nil, f.focus - len(f.Fields)
		}
		f.setFocus(f.focus + 1)
		return nil, -1
	}
	if fl == nil {
		switch {
		case key.Matches(k, keyLeft):
			f.setFocus(f.focus - 1)
		case key.Matches(k, keyRight):
			f.setFocus(f.focus + 1)
		case key.Matches(k, keyToggle):
			return nil, f.focus - len(f.Fields)
		}
		return nil, -1
	}
	changed := false
	switch fl.Kind {
	case Boolean:
		switch {
		case key.Matches(k, keyToggle, keyLeft, keyRight):
			fl.boolean = map[int]int{0: 1, 1: 2, 2: 1}[fl.boolean]
			changed = true
		case key.Matches(k, keyUnset) && !fl.Required:
			fl.boolean = 0
			changed = true
		}
	case Enum:
		n := len(fl.Choices)
		lo := -1
		if fl.Required {
			lo = 0
		}
		switch {
		case key.Matches(k, keyUnset) && !fl.Required:
			fl.choice = -1
			changed = true
		case key.Matches(k, keyToggle, keyRight):
			fl.choice++
			if fl.choice >= n {
				fl.choice = lo
			}
			changed = true
		case key.Matches(k, keyLeft):
			fl.choice--
			if fl.choice < lo {
				fl.choice = n - 1
			}
			changed = true
		}
	case MultiEnum:
		switch {
		case key.Matches(k, keyLeft):
			fl.mcur = max(fl.mcur-1, 0)
		case key.Matches(k, keyRight):
			fl.mcur = min(fl.mcur+1, len(fl.Choices)-1)
		case key.Matches(k, keyToggle):
			if fl.mcur < len(fl.multi) {
				fl.multi[fl.mcur] = !fl.multi[fl.mcur]
				changed = true
			}
		}
	default:
		before := fl.input.Value()
		fl.input, cmd = fl.input.Update(msg)
		changed = fl.input.Value() != before
	}
	if changed {
		fl.touched = true
		f.revalidate()
	}
	return cmd, -1
}

// Values returns the form's values (fields left empty are left out), and ok false when
// a field does not hold a value of its kind or the validator found a problem: the
// problems are then shown, every field's included.
func (f *Form) Values() (map[string]any, bool) {
	f.showAll = true
	values, ok := f.revalidate()
	return values, ok
}

// SetError shows problem at the field named name (the part of an argument path before
// any "." or "["), or for the form as a whole.
func (f *Form) SetError(name, problem string) {
	if i := strings.IndexAny(name, ".["); i >= 0 {
		name = name[:i]
	}
	if fl := f.Field(name); fl != nil && name != "" {
		fl.err = problem
		fl.touched = true
		return
	}
	if name != "" {
		problem = fmt.Sprintf("%s %s", name, problem)
	}
	f.err = problem
}

// SetFormError shows a message for the form as a whole ("" clears it).
func (f *Form) SetFormError(msg string) { f.err = msg }

// Problem is what a validator finds wrong: Field is the argument path of the field
// ("" for the values as a whole), Problem completes the sentence "FIELD ...".
type Problem struct{ Field, Problem string }

// revalidate reads every field, then runs the validator on the values that could be
// read, so that every problem shows at once: a field whose text is not a value of its
// kind keeps that problem, and the others get the validator's.
func (f *Form) revalidate() (map[string]any, bool) {
	values := map[string]any{}
	ok := true
	f.err = ""
	for _, fl := range f.Fields {
		fl.err = ""
		v, set, problem := fl.value()
		if problem != "" {
			fl.err = problem
			ok = false
			continue
		}
		if fl.Extra {
			continue
		}
		if set {
			values[fl.Name] = v
		} else if fl.Required {
			fl.err = "is required"
			ok = false
		}
	}
	if f.Validate != nil {
		unread := !ok
		for _, p := range f.Validate(values) {
			top := p.Field
			if i := strings.IndexAny(top, ".["); i >= 0 {
				top = top[:i]
			}
			fl := f.Field(top)
			switch {
			case top == "" || fl == nil:
				if unread || f.err != "" {
					continue // about the values as a whole: maybe only the field not read
				}
			case fl.err != "":
				continue // its own problem shows
			}
			f.SetError(p.Field, p.Problem)
			ok = false
		}
	}
	return values, ok
}

// Valid reports whether the values as they stand would be accepted.
func (f *Form) Valid() bool {
	for _, fl := range f.Fields {
		if fl.err != "" {
			return false
		}
	}
	return f.err == ""
}

// View renders the form in at most h lines of w cells, scrolled so that the focused
// item shows. Only the fields on screen are rendered: a server's schema can have
// thousands of properties, and the form is drawn at every key.
func (f *Form) View(w, h int) string {
	if h <= 0 || w <= 0 {
		return ""
	}
	labelW := min(f.labelWidth(), max(w/3, 8))
	inputW := max(w-labelW-4, 6)
	var head []string
	if f.err != "" {
		// A problem can quote a whole schema (an enum of every value): a screenful of it.
		for _, l := range ui.Wrap("✗ "+cut.Bytes(f.err, w*h), w) {
			head = append(head, ui.Error.Render(l))
		}
		head = head[:min(len(head), h)]
	}
	// Where each item starts, counted without rendering it: a field takes one line, the
	// focused one its description too, and one more when its problem shows.
	var focusLines []string
	if f.focus < len(f.Fields) {
		focusLines = f.fieldLines(f.Fields[f.focus], true, labelW, inputW, w)
	}
	height := func(i int, fl *Field) int {
		if i == f.focus {
			return len(focusLines)
		}
		if fl.err != "" && (fl.touched || f.showAll) {
			return 2
		}
		return 1
	}
	total, focusLine := len(head), 0
	for i, fl := range f.Fields {
		if i == f.focus {
			focusLine = total
		}
		total += height(i, fl)
	}
	var buttons string
	if len(f.Buttons) > 0 {
		var bs []string
		for i, b := range f.Buttons {
			s := "[ " + b + " ]"
			if f.focus == len(f.Fields)+i {
				s = ui.Selected.Render(s)
				focusLine = total + 1
			}
			bs = append(bs, s)
		}
		buttons = "  " + strings.Join(bs, "  ")
		total += 2
	}
	f.offset = ui.Window(f.offset, focusLine, total, h)
	if f.focus >= len(f.Fields) { // keep the whole tail in view with the buttons
		f.offset = max(total-h, 0)
	}
	end := min(f.offset+h, total)
	lines := make([]string, 0, h)
	at := 0 // the line the next item starts at
	add := func(ls ...string) {
		for _, l := range ls {
			if at >= f.offset && at < end {
				lines = append(lines, l)
			}
			at++
		}
	}
	add(head...)
	for i, fl := range f.Fields {
		if at >= end {
			break
		}
		n := height(i, fl)
		if at+n <= f.offset {
			at += n
			continue
		}
		if i == f.focus {
			add(focusLines...)
		} else {
			add(f.fieldLines(fl, false, labelW, inputW, w)...)
		}
	}
	if buttons != "" {
		at = total - 2
		add("", buttons)
	}
	return ui.Block(lines, w, h)
}

// fieldLines are the lines of one field: its label and input, for the focused one what
// it is about, and its problem once shown.
func (f *Form) fieldLines(fl *Field, focused bool, labelW, inputW, w int) []string {
	mark := "  "
	label := ui.Fit(fl.label(), labelW)
	if focused {
		mark = ui.Accent.Render("› ")
		label = ui.Bold.Render(label)
	}
	lines := []string{mark + label + " " + fl.render(focused, inputW)}
	if focused && f.Below != nil && fl.isText() {
		indent := strings.Repeat(" ", 2+labelW+1)
		for _, l := range f.Below(fl, inputW) {
			lines = append(lines, indent+ui.Cut(l, inputW))
		}
	}
	if focused {
		about := fl.Hint
		if fl.Description != "" {
			about = strings.TrimSpace(cut.Bytes(fl.Description, 16*w) + " · " + fl.Hint)
			about = strings.TrimSuffix(about, " ·")
		}
		if about != "" {
			wrapped := ui.Wrap(ui.OneLine(about), max(w-4, 10))
			if len(wrapped) > 2 {
				wrapped = wrapped[:2]
			}
			for _, l := range wrapped {
				lines = append(lines, "    "+ui.Dim.Render(l))
			}
		}
	}
	if fl.err != "" && (fl.touched || f.showAll) {
		lines = append(lines, "    "+ui.Error.Render("✗ "+fl.label0()+" "+cut.Bytes(fl.err, 4*w)))
	}
	return lines
}

// labelWidth is the width of the widest label and one space, at least 8; it is
// measured once for the fields the form has.
func (f *Form) labelWidth() int {
	if f.labelsOf != len(f.Fields) {
		f.labelsOf, f.labelW = len(f.Fields), 8
		for _, fl := range f.Fields {
			f.labelW = max(f.labelW, ui.Width(fl.label())+1)
		}
	}
	return f.labelW
}

func (fl *Field) label() string {
	l := fl.label0()
	if fl.Required {
		l += "*"
	}
	return l
}

func (fl *Field) label0() string {
	if fl.Label != "" {
		return fl.Label
	}
	return fl.Name
}

func (fl *Field) render(focused bool, w int) string {
	switch fl.Kind {
	case Boolean:
		s := [...]string{"[-] not set", "[x] true", "[ ] false"}[fl.boolean]
		if focused {
			s = ui.Selected.Render(s)
		}
		return s
	case Enum:
		s := "(none)"
		if fl.choice >= 0 {
			s = fl.Choices[fl.choice].Label
		}
		s = "‹ " + s + " ›"
		if focused {
			s = ui.Selected.Render(s)
		}
		return ui.Cut(s, w)
	case MultiEnum:
		var parts []string
		for i, c := range fl.Choices {
			box := "[ ]"
			if fl.multi[i] {
				box = "[x]"
			}
			p := box + c.Label
			if focused && i == fl.mcur {
				p = ui.Selected.Render(p)
			}
			parts = append(parts, p)
		}
		return ui.Cut(strings.Join(parts, " "), w)
	}
	fl.input.SetWidth(w)
	v := fl.input.View()
	if !focused {
		if fl.input.Value() == "" {
			return ui.Dim.Render(ui.Cut("(empty)", w))
		}
		return ui.Cut(fl.input.Value(), w)
	}
	return v
}

// FromSchema returns one field per property of an object schema, in the order the
// schema lists them, with its kind, choices, default and whether it is required.
func FromSchema(schema json.RawMessage) ([]*Field, error) {
	if len(bytes.TrimSpace(schema)) == 0 {
		return nil, nil
	}
	var s struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, fmt.Errorf("the schema is not a JSON object: %w", err)
	}
	names, err := orderedKeys(s.Properties)
	if err != nil {
		return nil, err
	}
	var props map[string]json.RawMessage
	if len(s.Properties) > 0 {
		if err := json.Unmarshal(s.Properties, &props); err != nil {
			return nil, err
		}
	}
	required := make(map[string]bool, len(s.Required))
	for _, name := range s.Required {
		required[name] = true
	}
	var fields []*Field
	for _, name := range names {
		fl := fieldFromSchema(name, props[name])
		fl.Required = required[name]
		if fl.Kind == Enum && fl.Required && fl.choice < 0 && len(fl.Choices) > 0 {
			fl.choice = 0
		}
		if fl.Kind == Boolean && fl.Required && fl.boolean == 0 {
			fl.boolean = 2
		}
		fields = append(fields, fl)
	}
	return fields, nil
}

type constOption struct {
	Const json.RawMessage `json:"const"`
	Title string          `json:"title"`
}

type propSchema struct {
	Type        json.RawMessage   `json:"type"`
	Title       string            `json:"title"`
	Description string            `json:"description"`
	Default     json.RawMessage   `json:"default"`
	Enum        []json.RawMessage `json:"enum"`
	EnumNames   []string          `json:"enumNames"`
	OneOf       []constOption     `json:"oneOf"`
	AnyOf       []constOption     `json:"anyOf"`
	Items       *propSchema       `json:"items"`
	Minimum     *float64          `json:"minimum"`
	Maximum     *float64          `json:"maximum"`
	MinLength   *int              `json:"minLength"`
	MaxLength   *int              `json:"maxLength"`
	Format      string            `json:"format"`
	Pattern     string            `json:"pattern"`
}

func (p *propSchema) types() []string {
	var one string
	if json.Unmarshal(p.Type, &one) == nil && one != "" {
		return []string{one}
	}
	var many []string
	_ = json.Unmarshal(p.Type, &many)
	return slices.DeleteFunc(many, func(t string) bool { return t == "null" })
}

func (p *propSchema) choices() []Choice {
	var out []Choice
	for i, raw := range p.Enum {
		var v any
		if json.Unmarshal(raw, &v) != nil {
			continue
		}
		shown := display(v)
		label := shown
		if i < len(p.EnumNames) && p.EnumNames[i] != "" {
			label = p.EnumNames[i] + " (" + label + ")"
		}
		out = append(out, Choice{Value: v, Label: label, display: shown})
	}
	if out != nil {
		return out
	}
	opts := p.OneOf
	if len(opts) == 0 {
		opts = p.AnyOf
	}
	for _, o := range opts {
		if len(o.Const) == 0 {
			return nil // not a list of constants
		}
		var v any
		if json.Unmarshal(o.Const, &v) != nil {
			return nil
		}
		shown := display(v)
		label := shown
		if o.Title != "" {
			label = o.Title + " (" + label + ")"
		}
		out = append(out, Choice{Value: v, Label: label, display: shown})
	}
	return out
}

func display(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func fieldFromSchema(name string, raw json.RawMessage) *Field {
	var p propSchema
	_ = json.Unmarshal(raw, &p)
	fl := NewField(name, p.Title, Any)
	fl.Description = p.Description
	types := p.types()
	typ := ""
	if len(types) == 1 {
		typ = types[0]
	} else if len(types) > 1 {
		typ = "multi"
	}
	var def any
	hasDef := len(bytes.TrimSpace(p.Default)) > 0 && json.Unmarshal(p.Default, &def) == nil && def != nil
	if choices := p.choices(); len(choices) > 0 && typ != "array" {
		fl.Kind, fl.Choices = Enum, choices
		if hasDef {
			d := display(def)
			for i, c := range choices {
				if c.display == d {
					fl.choice = i
				}
			}
		}
		fl.Hint = fmt.Sprintf("one of %s (←/→ or space; del unsets)", ui.Count(len(choices), "choice", "choices"))
		return fl
	}
	switch typ {
	case "boolean":
		fl.Kind = Boolean
		if b, ok := def.(bool); ok && hasDef {
			fl.boolean = map[bool]int{true: 1, false: 2}[b]
		}
		fl.Hint = "boolean (space toggles, del unsets)"
		return fl
	case "integer", "number":
		fl.Kind = Number
		if typ == "integer" {
			fl.Kind = Integer
		}
		fl.Hint = typ + rangeHint(p.Minimum, p.Maximum)
	case "string":
		fl.Kind = String
		var hints []string
		if p.Format != "" {
			hints = append(hints, p.Format)
		}
		if p.MinLength != nil || p.MaxLength != nil {
			hints = append(hints, lengthHint(p.MinLength, p.MaxLength))
		}
		if p.Pattern != "" {
			hints = append(hints, "pattern "+p.Pattern)
		}
		fl.Hint = strings.Join(append([]string{"string"}, hints...), ", ")
	case "array":
		if p.Items != nil {
			if choices := p.Items.choices(); len(choices) > 0 {
				fl.Kind, fl.Choices = MultiEnum, choices
				fl.multi = make([]bool, len(choices))
				if list, ok := def.([]any); ok {
					on := make(map[string]bool, len(list))
					for _, d := range list {
						on[display(d)] = true
					}
					for i, c := range choices {
						fl.multi[i] = on[c.display]
					}
				}
				fl.Hint = "choose any (←/→ move, space toggles)"
				return fl
			}
		}
		fl.Kind = JSON
		fl.Hint = "a JSON array"
	case "object", "multi":
		fl.Kind = JSON
		fl.Hint = "JSON"
		if typ == "multi" {
			fl.Hint = "JSON: " + strings.Join(types, " or ")
		}
	default:
		fl.Hint = "any JSON value, or text"
	}
	fl.input.Placeholder = fl.Kind.String()
	if hasDef {
		if s, ok := def.(string); ok && fl.Kind != JSON {
			fl.SetText(s)
		} else {
			b, _ := json.Marshal(def)
			fl.SetText(string(b))
		}
	}
	return fl
}

func rangeHint(lo, hi *float64) string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	switch {
	case lo != nil && hi != nil:
		return fmt.Sprintf(", %s to %s", f(*lo), f(*hi))
	case lo != nil:
		return ", at least " + f(*lo)
	case hi != nil:
		return ", at most " + f(*hi)
	}
	return ""
}

func lengthHint(lo, hi *int) string {
	chars := func(n int) string {
		if n == 1 {
			return "1 character"
		}
		return fmt.Sprintf("%d characters", n)
	}
	switch {
	case lo != nil && hi != nil:
		return fmt.Sprintf("%d to %s", *lo, chars(*hi))
	case lo != nil:
		return "at least " + chars(*lo)
	}
	return "at most " + chars(*hi)
}

// orderedKeys returns the keys of a JSON object in the order they are written.
func orderedKeys(raw json.RawMessage) ([]string, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("properties is not an object")
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return keys, nil
}

// SchemaValidator checks values against an object schema with the client's argument
// check, so a form says exactly what the server's schema would refuse. It finds every
// field's problem at once: each value is checked on its own, against the schema of its
// property alone (a required field left empty is the form's to find); once none has a
// problem, the values are checked as a whole. A form is checked at every key, so each
// value's check is kept until the value changes.
func SchemaValidator(schema json.RawMessage) func(map[string]any) []Problem {
	tool := &mcp.Tool{InputSchema: schema}
	var root struct {
		Properties  map[string]json.RawMessage `json:"properties"`
		Defs        json.RawMessage            `json:"$defs"`
		Definitions json.RawMessage            `json:"definitions"`
	}
	_ = json.Unmarshal(schema, &root) // a schema that cannot be read is checked as a whole
	type checked struct {
		value   string
		problem *Problem
	}
	cache := map[string]checked{}
	check := func(tool *mcp.Tool, values []byte) *Problem {
		err := client.ValidateArguments(tool, values)
		if ae, ok := err.(*client.ArgumentError); ok {
			return &Problem{Field: ae.Field, Problem: ae.Problem}
		}
		if err != nil {
			return &Problem{Problem: err.Error()}
		}
		return nil
	}
	// alone checks the value of property name against its schema alone (with the
	// definitions it may refer to).
	alone := func(name string, v any) *Problem {
		prop, ok := root.Properties[name]
		if !ok {
			return nil
		}
		b, err := json.Marshal(map[string]any{name: v})
		if err != nil {
			return &Problem{Field: name, Problem: err.Error()}
		}
		if c, ok := cache[name]; ok && c.value == string(b) {
			return c.problem
		}
		one := map[string]json.RawMessage{"type": json.RawMessage(`"object"`), "properties": nil}
		one["properties"], _ = json.Marshal(map[string]json.RawMessage{name: prop})
		if bytes.Contains(prop, []byte(`"$ref"`)) {
			if root.Defs != nil {
				one["$defs"] = root.Defs
			}
			if root.Definitions != nil {
				one["definitions"] = root.Definitions
			}
		}
		s, _ := json.Marshal(one)
		p := check(&mcp.Tool{InputSchema: s}, b)
		cache[name] = checked{value: string(b), problem: p}
		return p
	}
	return func(values map[string]any) []Problem {
		var out []Problem
		for _, name := range slices.Sorted(maps.Keys(values)) {
			if p := alone(name, values[name]); p != nil {
				out = append(out, *p)
			}
		}
		if len(out) == 0 {
			b, err := json.Marshal(values)
			if err != nil {
				return []Problem{{Problem: err.Error()}}
			}
			if p := check(tool, b); p != nil {
				out = append(out, *p)
			}
		}
		return out
	}
}

// Marshal encodes form values as a JSON object.
func Marshal(values map[string]any) json.RawMessage {
	b, _ := json.Marshal(values)
	return b
}
