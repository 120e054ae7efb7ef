package mcp

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpi-dev/mcpi/internal/jsonwire/jsonwiretest"
)

// oldCallToolResult and oldContent marshal as CallToolResult and Content did before
// the fast paths and the HTML-escaping fix: the reference for what encoding/json
// writes for them.
type (
	oldCallToolResult CallToolResult
	oldContent        Content
)

func (r oldCallToolResult) MarshalJSON() ([]byte, error) {
	type wire struct {
		Content           []oldContent    `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
		IsError           bool            `json:"isError,omitempty"`
		Meta              Meta            `json:"_meta,omitempty"`
	}
	w := wire{Content: []oldContent{}, StructuredContent: r.StructuredContent, IsError: r.IsError, Meta: r.Meta}
	for _, c := range r.Content {
		w.Content = append(w.Content, oldContent(c))
	}
	return json.Marshal(w)
}

func (c oldContent) MarshalJSON() ([]byte, error) {
	switch c.Type {
	case ContentTypeText:
		return json.Marshal(textWire{c.Type, c.Text, c.Annotations, c.Meta})
	case ContentTypeImage, ContentTypeAudio:
		return json.Marshal(binaryWire{c.Type, c.Data, c.MimeType, c.Annotations, c.Meta})
	}
	return json.Marshal(contentFields(c))
}

// noEscape encodes v as the JSON-RPC layer encodes a result: without HTML escaping.
func noEscape(t testing.TB, v any) []byte {
	t.Helper()
	b, err := jsonwiretest.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCallToolResultIsNotHTMLEscaped(t *testing.T) {
	r := &CallToolResult{Content: []Content{TextContent("<b>&</b>")}, StructuredContent: json.RawMessage(`{"html":"<i>"}`),
		Meta: Meta{"note": "a<b"}}
	want := `{"content":[{"type":"text","text":"<b>&</b>"}],"structuredContent":{"html":"<i>"},"_meta":{"note":"a<b"}}`
	got, err := r.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("MarshalJSON = %s\nwant          %s", got, want)
	}
	// On the wire: inside a response, encoded as the JSON-RPC layer does.
	resp := struct {
		Result any `json:"result"`
	}{r}
	if got := noEscape(t, resp); string(got) != `{"result":`+want+`}` {
		t.Errorf("in a response: %s", got)
	}
}

// TestMarshalJSONIsNotHTMLEscaped covers every MarshalJSON of the package.
func TestMarshalJSONIsNotHTMLEscaped(t *testing.T) {
	const s = "<b>&</b>"
	text := TextContent(s)
	for _, v := range []json.Marshaler{
		text,
		ImageContent([]byte("x"), s),
		ResourceLinkContent(Resource{URI: "u", Name: s}),
		EmbeddedResourceContent(TextResourceContents("u", "", s)),
		ToolUseContent("id", s, nil),
		ToolResultContent("id", []Content{text}, false),
		Content{Type: "custom", Text: s},
		TextResourceContents("u", "", s),
		BlobResourceContents("u", s, []byte("x")),
		Tool{Name: s},
		ListToolsResult{Tools: []Tool{{Name: s}}},
		CallToolResult{Content: []Content{text}},
		CallToolResult{Content: []Content{ImageContent([]byte("x"), s)}},
		ListPromptsResult{Prompts: []Prompt{{Name: s}}},
		GetPromptResult{Description: s},
		ListResourcesResult{Resources: []Resource{{URI: s}}},
		ListResourceTemplatesResult{ResourceTemplates: []ResourceTemplate{{URITemplate: s}}},
		ReadResourceResult{Contents: []ResourceContents{TextResourceContents("u", "", s)}},
		SamplingMessage{Role: "user", Content: []Content{text}},
		CreateMessageParams{SystemPrompt: s},
		CreateMessageResult{Role: "assistant", Content: []Content{text}, Model: s},
		ListTasksResult{NextCursor: s},
		Completion{Values: []string{s}},
		ListRootsResult{Roots: []Root{{URI: s}}},
		CallToolParams{Name: s},
		GetTaskParams{TaskID: s},
		TaskResultParams{TaskID: s},
		CancelTaskParams{TaskID: s},
		Task{TaskID: s},
		CreateTaskResult{Task: Task{TaskID: s}},
		GetTaskResult{Task: Task{StatusMessage: s}},
		CancelTaskResult{Task: Task{CreatedAt: s}},
		TaskStatusNotificationParams{Meta: Meta{"k": s}},
	} {
		got, err := v.MarshalJSON()
		if err != nil {
			t.Fatalf("%T: %v", v, err)
		}
		if !bytes.Contains(got, []byte(s)) || !json.Valid(got) {
			t.Errorf("%T.MarshalJSON = %s, want %q unescaped", v, got, s)
		}
		// json.Marshal escapes as it always did.
		if escaped, err := json.Marshal(v); err != nil || bytes.Contains(escaped, []byte("<")) {
			t.Errorf("json.Marshal(%T) = %s, %v", v, escaped, err)
		}
	}
}

var toolResultSeeds = []string{"", "done", "<b>&</b>", "quote \" backslash \\ slash /", "ctl \x00\x01\b\f\n\r\t\x1f\x7f",
	"é€😀", "bad \xff\xfe utf8 \xed\xa0\x80 \xe2\x82", "sep \u2028\u2029", strings.Repeat("long text ", 50)}

// checkToolResult holds the fast encoding of r to the general one, and to the old one
// once both are HTML-escaped by json.Marshal.
func checkToolResult(t *testing.T, r CallToolResult) {
	t.Helper()
	got, gotErr := r.MarshalJSON()
	want, wantErr := r.marshalWire()
	if errString(gotErr) != errString(wantErr) || !bytes.Equal(got, want) {
		t.Fatalf("MarshalJSON(%#v) = %s, %v\nwant %s, %v", r, got, gotErr, want, wantErr)
	}
	if gotErr != nil {
		return
	}
	for _, c := range r.Content {
		got, gotErr := c.MarshalJSON()
		want, wantErr := c.marshalWire()
		if errString(gotErr) != errString(wantErr) || !bytes.Equal(got, want) {
			t.Fatalf("Content.MarshalJSON(%#v) = %s, %v\nwant %s, %v", c, got, gotErr, want, wantErr)
		}
	}
	got, gotErr = json.Marshal(r)
	want, wantErr = json.Marshal(oldCallToolResult(r))
	if errString(gotErr) != errString(wantErr) || !bytes.Equal(got, want) {
		t.Fatalf("json.Marshal(%#v) = %s, %v\nold  %s, %v", r, got, gotErr, want, wantErr)
	}
}

func TestCallToolResultMarshal(t *testing.T) {
	prio := 0.5
	ann := &Annotations{Audience: []Role{"user"}, Priority: &prio}
	results := []CallToolResult{
		{},
		{Content: []Content{}},
		{Content: []Content{TextContent("done")}},
		{Content: []Content{TextContent("a"), ImageContent([]byte("png"), "image/png"), TextContent("b")}, IsError: true},
		{Content: []Content{{Type: ContentTypeText, Text: "x", Annotations: ann, Meta: Meta{"k": json.Number("1")}}}},
		{StructuredContent: json.RawMessage(" { \"a\" : [1, 2] } "), Meta: Meta{"b": []any{"<"}, "a": nil}},
		{Meta: Meta{}},
		{Content: []Content{{Type: ContentTypeText, Meta: Meta{}}}},
		// Errors come from the general path, as before.
		{StructuredContent: json.RawMessage(`{"a":`)},
		{Meta: Meta{"c": make(chan int)}},
		{Content: []Content{{Type: ContentTypeText, Meta: Meta{"f": func() {}}}}},
	}
	for _, s := range toolResultSeeds {
		results = append(results, CallToolResult{Content: []Content{TextContent(s)}})
	}
	for _, r := range results {
		checkToolResult(t, r)
	}
}

func FuzzCallToolResultMarshal(f *testing.F) {
	for i, s := range toolResultSeeds {
		f.Add(s, s, i%2 == 0, uint8(i))
	}
	f.Fuzz(func(t *testing.T, text, other string, isError bool, shape uint8) {
		r := CallToolResult{Content: []Content{TextContent(text)}, IsError: isError}
		if shape&1 != 0 {
			r.Content = append(r.Content, TextContent(other))
		}
		if shape&2 != 0 {
			r.Meta = Meta{other: text}
		}
		if shape&4 != 0 {
			r.Content[0].Annotations = &Annotations{LastModified: other}
		}
		if shape&8 != 0 {
			r.StructuredContent, _ = json.Marshal(map[string]string{text: other})
		}
		if shape&16 != 0 {
			r.Content = append(r.Content, ImageContent([]byte(text), other))
		}
		checkToolResult(t, r)
	})
}
