package answers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/transport"
)

func write(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "answers.json")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoad(t *testing.T) {
	file := write(t, `{
		"elicitation": {"ask_task": {"name": "Ada"}, "other": "decline", "third": "cancel", "url": "accept", "*": {}},
		"sampling": {"ask_task": "Hello, Ada!", "*": "decline"}
	}`)
	s, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if e := s.Elicitation["ask_task"]; e.Action != "accept" || e.Content["name"] != "Ada" {
		t.Errorf("elicitation ask_task = %+v", e)
	}
	if s.Elicitation["other"].Action != "decline" || s.Elicitation["url"].Action != "accept" || s.Elicitation["url"].Content != nil || s.Elicitation["third"].Action != "cancel" || s.Elicitation["*"].Action != "accept" {
		t.Errorf("elicitation = %+v", s.Elicitation)
	}
	if s.Sampling["ask_task"].Text != "Hello, Ada!" || !s.Sampling["*"].Decline {
		t.Errorf("sampling = %+v", s.Sampling)
	}
	if s, err := Parse("f", []byte(`{}`)); err != nil || len(s.Elicitation) != 0 || len(s.Sampling) != 0 {
		t.Errorf("empty object: %+v, %v", s, err)
	}
}

// Every bad file is one sentence naming the file, and exit status 2.
func TestLoadErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.json")
	tests := []struct {
		content string // "" means the file does not exist
		want    string
	}{
		{"", "the answers file " + missing + " does not exist"},
		{"{\n  \"elicitation\": {\"a\": }\n}", "is not valid JSON: invalid character '}' looking for beginning of value at line 2, column 24"},
		{`{"elicitation": {}`, "is not valid JSON: it ends too early"},
		{`{} {}`, "is not valid JSON: there is more after the first JSON value"},
		{`[1]`, "the file must hold an object, not an array"},
		{`null`, "the file must hold an object, not null"},
		{`{"elicitations": {}}`, `it has the unknown key "elicitations" (the keys are "elicitation" and "sampling")`},
		{`{"elicitation": []}`, `"elicitation" must be an object of answers by tool name, not an array`},
		{`{"elicitation": {"t": 3}}`, `the elicitation answer for "t" must be an object of field values, "accept", "decline" or "cancel", not a number`},
		{`{"elicitation": {"t": "yes"}}`, `the elicitation answer for "t" must be an object of field values, "accept", "decline" or "cancel", not the string "yes"`},
		{`{"sampling": "hi"}`, `"sampling" must be an object of answers by tool name, not the string "hi"`},
		{`{"sampling": {"t": {"text": "hi"}}}`, `the sampling answer for "t" must be a string (the model's reply, or "decline"), not an object`},
	}
	for _, tt := range tests {
		file := missing
		if tt.content != "" {
			file = write(t, tt.content)
		}
		_, err := Load(file)
		var usage *cmdutil.UsageError
		if !errors.As(err, &usage) {
			t.Errorf("%s: error %T %v, want a usage error", tt.content, err, err)
			continue
		}
		msg, code := cmdutil.Describe(err)
		if code != cmdutil.ExitUsage || !strings.Contains(msg, tt.want) || !strings.Contains(msg, file) || strings.Contains(msg, "\n") {
			t.Errorf("%s:\n got %q (exit %d)\nwant it to contain %q and the file name, on one line (exit 2)", tt.content, msg, code, tt.want)
		}
	}
}

// An answer is looked up by the request's input key first (2026-07-28), then by tool,
// then for any tool.
func TestLookup(t *testing.T) {
	m := map[string]string{"t#k": "t#k", "t": "t", "*#k": "*#k", "*": "*", "#k": "#k"}
	tests := []struct {
		tool, key, want string
		byKey           bool
	}{
		{"t", "k", "t#k", true},
		{"t", "other", "t", false},
		{"t", "", "t", false},
		{"u", "k", "*#k", true},
		{"u", "", "*", false},
		{"", "k", "*#k", true},
		{"", "", "*", false},
	}
	for _, tt := range tests {
		got, byKey, ok := lookup(m, tt.tool, tt.key)
		if !ok || got != tt.want || byKey != tt.byKey {
			t.Errorf("lookup(%q, %q) = %q, %v, %v; want %q, %v", tt.tool, tt.key, got, byKey, ok, tt.want, tt.byKey)
		}
	}
	if _, _, ok := lookup(map[string]string{"t": "x"}, "u", "k"); ok {
		t.Error("found an answer for another tool")
	}
}

// whoForm is the form connect's tool asks for unless told another.
const whoForm = `{"type":"object","properties":{"name":{"type":"string"},"colour":{"type":"string","default":"red"}},"required":["name"]}`

// connect returns a session whose server has a tool "t" that elicits a form (whoForm, a
// field with a default), then samples, and returns both answers; requests are answered
// from s, and an answer that does not fit is refused with Answer's error.
func connect(t *testing.T, s *Set, tool string) *client.Session {
	t.Helper()
	return connectForm(t, s, tool, whoForm)
}

func connectForm(t *testing.T, s *Set, tool, form string) *client.Session {
	t.Helper()
	srv := server.New(mcp.Implementation{Name: "t", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "t"}, func(ctx context.Context, r *server.ToolRequest) (*mcp.CallToolResult, error) {
		er, err := r.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Who?", RequestedSchema: json.RawMessage(form)})
		if err != nil {
			return nil, err
		}
		var text string
		mr, err := r.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 5, Messages: []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: []mcp.Content{mcp.TextContent("hi")}}}})
		if err != nil {
			var rpc *jsonrpc.Error
			if !errors.As(err, &rpc) {
				return nil, err
			}
			text = "refused: " + rpc.Message
		} else {
			text = mr.Content[0].Text
		}
		b, _ := json.Marshal(map[string]any{"elicit": er, "sample": text})
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(string(b))}}, nil
	})
	tr := transport.PipeTransport{Serve: func(_ context.Context, c jsonrpc.Connection) error {
		srv.Connect(context.Background(), c)
		return nil
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	sess, err := client.New(mcp.Implementation{Name: "test", Version: "1"}, &client.Options{
		OnRequest: func(ctx context.Context, r *client.Request) {
			switch ok, err := s.Answer(r, tool); {
			case err != nil:
				_ = r.Reject(jsonrpc.NewError(-1, err.Error()))
			case !ok:
				_ = r.Reject(jsonrpc.NewError(-1, "no answer"))
			}
		},
	}).Connect(ctx, tr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	return sess
}

func call(t *testing.T, sess *client.Session) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "t"}, nil)
	if err != nil {
		return "error: " + err.Error()
	}
	return res.Content[0].Text
}

func TestAnswer(t *testing.T) {
	set, err := Parse("answers.json", []byte(`{
		"elicitation": {"t": {"name": "Ada"}, "*": "decline"},
		"sampling": {"t": "Hello!", "*": "decline"}
	}`))
	if err != nil {
		t.Fatal(err)
	}
	// By tool name: accepted with the schema's default filled in; the reply's text.
	got := call(t, connect(t, set, "t"))
	want := `{"elicit":{"action":"accept","content":{"colour":"red","name":"Ada"}},"sample":"Hello!"}`
	if got != want {
		t.Errorf("tool t:\n got %s\nwant %s", got, want)
	}
	// Another tool falls back to "*": declined, and sampling refused.
	got = call(t, connect(t, set, "other"))
	want = `{"elicit":{"action":"decline"},"sample":"refused: the answers file answers.json declines sampling for the tool \"other\""}`
	if got != want {
		t.Errorf("tool other:\n got %s\nwant %s", got, want)
	}
	// No answer at all: Answer leaves the request alone.
	empty, _ := Parse("e.json", []byte(`{"sampling": {"x": "y"}}`))
	if got := call(t, connect(t, empty, "t")); !strings.Contains(got, "no answer") {
		t.Errorf("without an answer: %s", got)
	}
	var none *Set
	if ok, err := none.Answer(nil, "t"); ok || err != nil || none.Has(nil, "t") {
		t.Error("a nil set answers")
	}
}

// An answer is read by the types of the form the server sent ("true" for a boolean, as
// the example of NeedTerminalError once suggested), and one that cannot fit is not sent:
// Answer says which field is wrong, and how, in a usage error that names the file.
func TestAnswerFitsTheForm(t *testing.T) {
	const form = `{"type":"object","properties":{` +
		`"name":{"type":"string","minLength":1},` +
		`"colour":{"type":"string","enum":["red","green","blue"],"default":"blue"},` +
		`"subscribe":{"type":"boolean","default":false},` +
		`"age":{"type":"integer","minimum":0},` +
		`"size":{"type":"number"}},"required":["name","age"]}`
	tests := []struct {
		answer string
		want   string // the elicitation's outcome as the tool returned it, or the error
	}{
		{`{"name": "Ada", "subscribe": "true", "age": "36", "size": "1.5"}`,
			`{"action":"accept","content":{"age":36,"colour":"blue","name":"Ada","size":1.5,"subscribe":true}}`},
		{`{"name": "Ada", "subscribe": true, "age": 36, "colour": "green"}`,
			`{"action":"accept","content":{"age":36,"colour":"green","name":"Ada","subscribe":true}}`},
		{`{"name": "Ada", "subscribe": "maybe", "age": 36}`,
			`the answers file a.json does not fit the form the server sent for the tool "t": field "subscribe" must be a boolean, not a string`},
		{`{"name": "Ada", "age": "thirty"}`,
			`the answers file a.json does not fit the form the server sent for the tool "t": field "age" must be an integer, not a string`},
		{`{"name": "Ada", "age": 1.5}`, `field "age" must be an integer, not 1.5`},
		{`{"name": "Ada", "age": -1}`, `field "age" must be at least 0`},
		{`{"name": "Ada", "age": 3, "colour": "pink"}`, `field "colour" must be one of "red", "green", "blue"`},
		{`{"name": "", "age": 3}`, `field "name" must be at least 1 characters long`},
		{`{"name": "Ada"}`, `field "age" is required`},
		// A tool's answer may hold the fields of its other forms: one not of this form is
		// left out, and said so when the form is not filled.
		{`{"nme": "Ada", "age": 3}`, `field "name" is required (the answer's "nme", not of this form, left out)`},
		{`{"name": "Ada", "age": 3, "confirm": true}`,
			`{"action":"accept","content":{"age":3,"colour":"blue","name":"Ada","subscribe":false}}`},
		// But an answer that gives none of the form's fields is no answer to it.
		{`{"nme": "Ada", "confirm": true}`, `field "confirm" is not a field of this form (its fields: age, colour, name, size, subscribe)`},
	}
	for _, tt := range tests {
		set, err := Parse("a.json", []byte(`{"elicitation": {"t": `+tt.answer+`}}`))
		if err != nil {
			t.Fatal(err)
		}
		got := call(t, connectForm(t, set, "t", form))
		if !strings.Contains(got, tt.want) {
			t.Errorf("%s:\n got %s\nwant it to contain %s", tt.answer, got, tt.want)
		}
	}
}

// The example answer of a message that asks for an answers file gives each field a value
// of its type: its default, an enum's first value, false, 0, [] or "...".
func TestExample(t *testing.T) {
	tests := []struct{ schema, want string }{
		{`{"type":"object","properties":{` +
			`"name":{"type":"string"},"colour":{"type":"string","enum":["red","green"]},` +
			`"size":{"type":"string","oneOf":[{"const":"s","title":"Small"}]},` +
			`"subscribe":{"type":"boolean"},"age":{"type":"integer"},"tags":{"type":"array","items":{"type":"string"}},` +
			`"tone":{"type":"string","enum":["calm","loud"],"default":"loud"},"n":{"type":"number","default":2.5}}}`,
			`"age": 0, "colour": "red", "n": 2.5, "name": "...", "size": "s", "subscribe": false, "tags": [], "tone": "loud"`},
		{`{"type":"object"}`, `"field": "value"`},
		// A hostile form: a default too long to quote, a name cut.
		{`{"type":"object","properties":{"` + strings.Repeat("n", 100) + `":{"type":"string","default":"` + strings.Repeat("d", 100) + `"}}}`,
			`"` + strings.Repeat("n", 64) + `…": "..."`},
		{`not json`, `"field": "value"`},
		{``, `"field": "value"`},
	}
	for _, tt := range tests {
		if got := Example(json.RawMessage(tt.schema)); got != tt.want {
			t.Errorf("Example(%s)\n got %s\nwant %s", tt.schema, got, tt.want)
		}
	}
}

// A hostile form's field names (the problem quotes them) are cut to a line's worth.
func TestAnswerProblemQuotesTheFormBriefly(t *testing.T) {
	long := strings.Repeat("n", 100_000)
	form := `{"type":"object","properties":{"` + long + `":{"type":"string"}},"required":["` + long + `"]}`
	for _, answer := range []string{`{"x": "y"}`, `{}`} {
		set, err := Parse("a.json", []byte(`{"elicitation": {"t": `+answer+`}}`))
		if err != nil {
			t.Fatal(err)
		}
		got := call(t, connectForm(t, set, "t", form))
		if len(got) > 600 || !strings.Contains(got, "does not fit the form") {
			t.Errorf("%s: %d bytes: %.200s", answer, len(got), got)
		}
	}
}

// An example names at most 20 of a form's fields.
func TestExampleOfManyFields(t *testing.T) {
	var props []string
	for i := range 1000 {
		props = append(props, fmt.Sprintf(`"f%04d":{"type":"boolean"}`, i))
	}
	got := Example(json.RawMessage(`{"type":"object","properties":{` + strings.Join(props, ",") + `}}`))
	if n := strings.Count(got, `": false`); n != 20 || !strings.HasPrefix(got, `"f0000": false`) {
		t.Errorf("%d fields: %.200s", n, got)
	}
}
