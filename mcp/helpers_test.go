package mcp

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
	"time"
)

func TestValidTransition(t *testing.T) {
	const (
		W = TaskStatusWorking
		I = TaskStatusInputRequired
		C = TaskStatusCompleted
		F = TaskStatusFailed
		X = TaskStatusCancelled
	)
	tests := []struct {
		from, to TaskStatus
		want     bool
	}{
		{"", W, true},
		{"", I, false},
		{"", C, false},
		{"", X, false},
		{W, I, true},
		{W, C, true},
		{W, F, true},
		{W, X, true},
		{W, W, true},
		{I, W, true},
		{I, C, true},
		{I, F, true},
		{I, X, true},
		{I, I, true},
		{C, W, false},
		{C, I, false},
		{C, F, false},
		{C, X, false},
		{C, C, false},
		{F, W, false},
		{F, C, false},
		{F, F, false},
		{X, W, false},
		{X, C, false},
		{X, X, false},
		{W, "done", false},
		{W, "", false},
		{"bogus", W, false},
	}
	for _, tt := range tests {
		if got := ValidTransition(tt.from, tt.to); got != tt.want {
			t.Errorf("ValidTransition(%q, %q) = %v, want %v", tt.from, tt.to, got, tt.want)
		}
	}
}

func TestTaskStatus(t *testing.T) {
	tests := []struct {
		s               TaskStatus
		terminal, valid bool
	}{
		{TaskStatusWorking, false, true},
		{TaskStatusInputRequired, false, true},
		{TaskStatusCompleted, true, true},
		{TaskStatusFailed, true, true},
		{TaskStatusCancelled, true, true},
		{"", false, false},
		{"canceled", false, false},
	}
	for _, tt := range tests {
		if got := tt.s.IsTerminal(); got != tt.terminal {
			t.Errorf("%q.IsTerminal() = %v", tt.s, got)
		}
		if got := tt.s.IsValid(); got != tt.valid {
			t.Errorf("%q.IsValid() = %v", tt.s, got)
		}
	}
}

func TestIsCreateTaskResult(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want bool
	}{
		{"create task result", `{"task":{"taskId":"786512e2","status":"working","createdAt":"c","lastUpdatedAt":"u","ttl":null}}`, true},
		{"with meta", `{"task":{"taskId":"x"},"_meta":{"io.modelcontextprotocol/model-immediate-response":"soon"}}`, true},
		{"empty task id", `{"task":{"taskId":""}}`, true},
		{"call tool result", `{"content":[{"type":"text","text":"72°F"}],"isError":false}`, false},
		{"task without id", `{"task":{"status":"working"}}`, false},
		{"numeric id", `{"task":{"taskId":5}}`, false},
		{"task not object", `{"task":"abc"}`, false},
		{"task null", `{"task":null}`, false},
		{"flattened get task result", `{"taskId":"a","status":"working"}`, false},
		{"ext create result", `{"resultType":"task","taskId":"a","status":"working"}`, false},
		{"not an object", `[1,2]`, false},
		{"invalid", `{`, false},
		{"empty", ``, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsCreateTaskResult(json.RawMessage(tt.raw)); got != tt.want {
				t.Errorf("IsCreateTaskResult(%s) = %v, want %v", tt.raw, got, tt.want)
			}
		})
	}
}

func TestResultTypeOf(t *testing.T) {
	tests := []struct {
		raw  string
		want ResultType
	}{
		{`{"resultType":"task","taskId":"a"}`, ResultTypeTask},
		{`{"resultType":"complete"}`, ResultTypeComplete},
		{`{"resultType":"input_required","inputRequests":{}}`, ResultTypeInputRequired},
		{`{"resultType":"weird"}`, "weird"},
		{`{"content":[]}`, ResultTypeComplete},
		{`[]`, ResultTypeComplete},
		{`{"resultType":"t\u0061sk"}`, ResultTypeTask},
		{`{"resultType":"task","resultType":"other"}`, "other"},
		{`{"resultType":null}`, ResultTypeComplete},
		{`{"resultType":5}`, "5"},
		{`{"resultType":{}}`, "{}"},
		{`{"resultType":"task"`, ResultTypeComplete},
		{`{"x":{"resultType":"task"}}`, ResultTypeComplete},
		{``, ResultTypeComplete},
	}
	for _, tt := range tests {
		if got := ResultTypeOf(json.RawMessage(tt.raw)); got != tt.want {
			t.Errorf("ResultTypeOf(%s) = %q, want %q", tt.raw, got, tt.want)
		}
	}
	if !IsExtCreateTaskResult(json.RawMessage(`{"resultType":"task","taskId":"a"}`)) {
		t.Error("IsExtCreateTaskResult: want true")
	}
	if IsExtCreateTaskResult(json.RawMessage(`{"task":{"taskId":"a"}}`)) {
		t.Error("IsExtCreateTaskResult on legacy shape: want false")
	}
}

func TestApplySchemaDefaults(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{
		"name":{"type":"string","default":"Ann"},
		"age":{"type":"integer","default":30},
		"ratio":{"type":"number","default":0.5},
		"subscribe":{"type":"boolean","default":false},
		"color":{"type":"string","enum":["red","green"],"default":"green"},
		"tags":{"type":"array","items":{"type":"string","enum":["a","b"]},"default":["a"]},
		"nodefault":{"type":"string"},
		"nulldefault":{"type":"string","default":null},
		"mismatch":{"type":"boolean","default":"yes"},
		"fraction":{"type":"integer","default":1.5},
		"object":{"default":{"a":1}},
		"mixedlist":{"type":"array","default":["a",1]},
		"untyped":{"default":7}
	}}`)
	tests := []struct {
		name    string
		schema  json.RawMessage
		content map[string]any
		want    map[string]any
	}{
		{
			name:    "fills missing",
			schema:  schema,
			content: map[string]any{"name": "Luca", "subscribe": true},
			want: map[string]any{
				"name": "Luca", "subscribe": true, "age": 30.0, "ratio": 0.5,
				"color": "green", "tags": []string{"a"}, "untyped": 7.0,
			},
		},
		{
			name:    "nil content",
			schema:  schema,
			content: nil,
			want: map[string]any{
				"name": "Ann", "subscribe": false, "age": 30.0, "ratio": 0.5,
				"color": "green", "tags": []string{"a"}, "untyped": 7.0,
			},
		},
		{
			name:    "present empty values kept",
			schema:  json.RawMessage(`{"properties":{"name":{"type":"string","default":"Ann"}}}`),
			content: map[string]any{"name": ""},
			want:    map[string]any{"name": ""},
		},
		{
			name:    "no defaults nil content",
			schema:  json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`),
			content: nil,
			want:    nil,
		},
		{
			name:    "invalid schema",
			schema:  json.RawMessage(`not json`),
			content: map[string]any{"a": "b"},
			want:    map[string]any{"a": "b"},
		},
		{
			name:    "empty schema",
			schema:  nil,
			content: map[string]any{"a": "b"},
			want:    map[string]any{"a": "b"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before map[string]any
			if tt.content != nil {
				before = make(map[string]any)
				for k, v := range tt.content {
					before[k] = v
				}
			}
			got := ApplySchemaDefaults(tt.schema, tt.content)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v\nwant %#v", got, tt.want)
			}
			if !reflect.DeepEqual(tt.content, before) {
				t.Errorf("input modified: %#v", tt.content)
			}
		})
	}
}

func TestToolTaskSupport(t *testing.T) {
	tests := []struct {
		name string
		tool *Tool
		want TaskSupport
	}{
		{"nil tool", nil, TaskSupportForbidden},
		{"no execution", &Tool{Name: "t"}, TaskSupportForbidden},
		{"empty execution", &Tool{Execution: &ToolExecution{}}, TaskSupportForbidden},
		{"forbidden", &Tool{Execution: &ToolExecution{TaskSupport: TaskSupportForbidden}}, TaskSupportForbidden},
		{"optional", &Tool{Execution: &ToolExecution{TaskSupport: TaskSupportOptional}}, TaskSupportOptional},
		{"required", &Tool{Execution: &ToolExecution{TaskSupport: TaskSupportRequired}}, TaskSupportRequired},
		{"unknown", &Tool{Execution: &ToolExecution{TaskSupport: "sometimes"}}, TaskSupportForbidden},
	}
	for _, tt := range tests {
		if got := tt.tool.TaskSupport(); got != tt.want {
			t.Errorf("%s: TaskSupport() = %q, want %q", tt.name, got, tt.want)
		}
	}
	var tool Tool
	if err := json.Unmarshal([]byte(`{"name":"t","inputSchema":{"type":"object"},"execution":{"taskSupport":"required"}}`), &tool); err != nil {
		t.Fatal(err)
	}
	if tool.TaskSupport() != TaskSupportRequired {
		t.Errorf("decoded TaskSupport() = %q", tool.TaskSupport())
	}
}

func TestToolDisplayName(t *testing.T) {
	if got := (&Tool{Name: "n"}).DisplayName(); got != "n" {
		t.Errorf("got %q", got)
	}
	if got := (&Tool{Name: "n", Annotations: &ToolAnnotations{Title: "a"}}).DisplayName(); got != "a" {
		t.Errorf("got %q", got)
	}
	if got := (&Tool{Name: "n", Title: "t", Annotations: &ToolAnnotations{Title: "a"}}).DisplayName(); got != "t" {
		t.Errorf("got %q", got)
	}
}

func TestServerTasksCapability(t *testing.T) {
	decode := func(s string) *ServerCapabilities {
		var c ServerCapabilities
		if err := json.Unmarshal([]byte(s), &c); err != nil {
			t.Fatal(err)
		}
		return &c
	}
	tests := []struct {
		caps                 string
		list, cancel, call   bool
		requestToolsCall     bool
		requestSamplingOnSrv bool
	}{
		{`{}`, false, false, false, false, false},
		{`{"tasks":{}}`, false, false, false, false, false},
		{`{"tasks":{"list":{}}}`, true, false, false, false, false},
		{`{"tasks":{"cancel":{}}}`, false, true, false, false, false},
		{`{"tasks":{"requests":{}}}`, false, false, false, false, false},
		{`{"tasks":{"requests":{"tools":{}}}}`, false, false, false, false, false},
		{`{"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}}`, true, true, true, true, false},
	}
	for _, tt := range tests {
		c := decode(tt.caps).Tasks
		if c.SupportsList() != tt.list || c.SupportsCancel() != tt.cancel || c.SupportsToolCall() != tt.call ||
			c.SupportsRequest(MethodToolsCall) != tt.requestToolsCall ||
			c.SupportsRequest(MethodSamplingCreateMessage) != tt.requestSamplingOnSrv {
			t.Errorf("%s: list=%v cancel=%v call=%v", tt.caps, c.SupportsList(), c.SupportsCancel(), c.SupportsToolCall())
		}
	}
}

func TestClientTasksCapability(t *testing.T) {
	var nilCaps *ClientTasksCapability
	if nilCaps.SupportsList() || nilCaps.SupportsCancel() || nilCaps.SupportsSamplingCreateMessage() ||
		nilCaps.SupportsElicitationCreate() || nilCaps.SupportsRequest(MethodElicitationCreate) {
		t.Error("nil capability reports support")
	}
	var c ClientCapabilities
	in := `{"tasks":{"list":{},"requests":{"elicitation":{"create":{}}}}}`
	if err := json.Unmarshal([]byte(in), &c); err != nil {
		t.Fatal(err)
	}
	tc := c.Tasks
	if !tc.SupportsList() || tc.SupportsCancel() || tc.SupportsSamplingCreateMessage() || !tc.SupportsElicitationCreate() {
		t.Errorf("unexpected support: %+v", tc)
	}
	if !tc.SupportsRequest(MethodElicitationCreate) || tc.SupportsRequest(MethodSamplingCreateMessage) || tc.SupportsRequest(MethodToolsCall) {
		t.Error("SupportsRequest mismatch")
	}
	c.Tasks.Requests.Sampling = &TaskSamplingRequests{CreateMessage: &struct{}{}}
	if !c.Tasks.SupportsRequest(MethodSamplingCreateMessage) {
		t.Error("sampling not supported after setting it")
	}
}

func TestElicitationCapability(t *testing.T) {
	tests := []struct {
		caps      string
		form, url bool
	}{
		{`{}`, false, false},
		{`{"elicitation":{}}`, true, false},
		{`{"elicitation":{"form":{}}}`, true, false},
		{`{"elicitation":{"url":{}}}`, false, true},
		{`{"elicitation":{"form":{},"url":{}}}`, true, true},
	}
	for _, tt := range tests {
		var c ClientCapabilities
		if err := json.Unmarshal([]byte(tt.caps), &c); err != nil {
			t.Fatal(err)
		}
		if c.Elicitation.SupportsForm() != tt.form || c.Elicitation.SupportsURL() != tt.url {
			t.Errorf("%s: form=%v url=%v", tt.caps, c.Elicitation.SupportsForm(), c.Elicitation.SupportsURL())
		}
	}
}

func TestMetaHelpers(t *testing.T) {
	var m Meta
	if _, ok := m.RelatedTask(); ok {
		t.Error("nil meta has a related task")
	}
	if _, ok := m.ProgressToken(); ok {
		t.Error("nil meta has a progress token")
	}
	m.SetRelatedTask("t-1")
	m.SetProgressToken(42)
	m.SetModelImmediateResponse("working on it")
	if id, ok := m.RelatedTask(); !ok || id != "t-1" {
		t.Errorf("RelatedTask() = %q, %v", id, ok)
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"io.modelcontextprotocol/model-immediate-response":"working on it","io.modelcontextprotocol/related-task":{"taskId":"t-1"},"progressToken":42}`
	if string(b) != want {
		t.Errorf("got %s\nwant %s", b, want)
	}

	var back Meta
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if id, ok := back.RelatedTask(); !ok || id != "t-1" {
		t.Errorf("decoded RelatedTask() = %q, %v", id, ok)
	}
	if tok, ok := back.ProgressToken(); !ok || tok != int64(42) {
		t.Errorf("decoded ProgressToken() = %#v, %v", tok, ok)
	}
	if s, ok := back.ModelImmediateResponse(); !ok || s != "working on it" {
		t.Errorf("ModelImmediateResponse() = %q, %v", s, ok)
	}
	if !reflect.DeepEqual(back[MetaRelatedTask], m[MetaRelatedTask]) {
		t.Errorf("built and decoded related-task differ: %#v vs %#v", back[MetaRelatedTask], m[MetaRelatedTask])
	}

	// Field setter through a struct, from a nil map.
	var p CallToolParams
	p.Meta.SetProgressToken("tok")
	if tok, ok := p.Meta.ProgressToken(); !ok || tok != "tok" {
		t.Errorf("ProgressToken() = %#v, %v", tok, ok)
	}

	// Other representations of the related-task value.
	for _, v := range []any{
		RelatedTaskMetadata{TaskID: "a"},
		&RelatedTaskMetadata{TaskID: "a"},
		json.RawMessage(`{"taskId":"a"}`),
	} {
		if id, ok := (Meta{MetaRelatedTask: v}).RelatedTask(); !ok || id != "a" {
			t.Errorf("RelatedTask() for %T = %q, %v", v, id, ok)
		}
	}
	for _, v := range []any{"a", map[string]any{"taskId": 1}, nil, (*RelatedTaskMetadata)(nil)} {
		if _, ok := (Meta{MetaRelatedTask: v}).RelatedTask(); ok {
			t.Errorf("RelatedTask() for %#v: want not ok", v)
		}
	}

	// Clone is shallow and independent at the top level.
	c := m.Clone()
	c["x"] = 1
	if _, ok := m["x"]; ok {
		t.Error("Clone shares the map")
	}
	if Meta(nil).Clone() != nil {
		t.Error("Clone(nil) != nil")
	}
}

func TestNormalizeID(t *testing.T) {
	tests := []struct {
		in   any
		want any
		ok   bool
	}{
		{"a", "a", true},
		{float64(3), int64(3), true},
		{1.5, 1.5, true},
		{json.Number("9007199254740993"), int64(9007199254740993), true},
		{json.Number("2.5"), 2.5, true},
		{7, int64(7), true},
		{int32(7), int64(7), true},
		{uint64(7), int64(7), true},
		{uint(7), int64(7), true},
		{nil, nil, false},
		{true, nil, false},
		{map[string]any{}, nil, false},
	}
	for _, tt := range tests {
		got, ok := NormalizeID(tt.in)
		if ok != tt.ok || got != tt.want {
			t.Errorf("NormalizeID(%#v) = %#v, %v; want %#v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestDecodedIDs(t *testing.T) {
	var p ProgressNotificationParams
	if err := json.Unmarshal([]byte(`{"progressToken":9007199254740993,"progress":1,"_meta":{"a":1}}`), &p); err != nil {
		t.Fatal(err)
	}
	if p.ProgressToken != int64(9007199254740993) || p.Progress != 1 || p.Meta == nil {
		t.Errorf("got %#v", p)
	}
	var c CancelledNotificationParams
	if err := json.Unmarshal([]byte(`{"requestId":"abc","reason":"r"}`), &c); err != nil {
		t.Fatal(err)
	}
	if c.RequestID != "abc" || c.Reason != "r" {
		t.Errorf("got %#v", c)
	}
	c = CancelledNotificationParams{}
	if err := json.Unmarshal([]byte(`{}`), &c); err != nil {
		t.Fatal(err)
	}
	if c.RequestID != nil {
		t.Errorf("absent requestId = %#v", c.RequestID)
	}
}

func TestContentHelpers(t *testing.T) {
	img := ImageContent([]byte{1, 2, 3}, "image/png")
	if b, err := img.DecodeData(); err != nil || !reflect.DeepEqual(b, []byte{1, 2, 3}) {
		t.Errorf("DecodeData() = %v, %v", b, err)
	}
	rc := BlobResourceContents("u", "", []byte("xyz"))
	if !rc.IsBlob() {
		t.Error("IsBlob() = false")
	}
	if b, err := rc.DecodeBlob(); err != nil || string(b) != "xyz" {
		t.Errorf("DecodeBlob() = %q, %v", b, err)
	}
	if TextResourceContents("u", "", "t").IsBlob() {
		t.Error("text contents IsBlob")
	}
	r := Resource{URI: "u", Name: "n", Title: "T", Description: "d", MimeType: "m", Size: ptr[int64](1),
		Icons: []Icon{{Src: "s"}}, Annotations: &Annotations{Priority: ptr(0.5)}, Meta: Meta{"k": "v"}}
	if got := ResourceLinkContent(r).AsResource(); !reflect.DeepEqual(got, r) {
		t.Errorf("AsResource() = %#v", got)
	}

	// Nested tool_result content decodes recursively.
	var c Content
	if err := json.Unmarshal([]byte(`{"type":"tool_result","toolUseId":"1","content":[{"type":"image","data":"AA==","mimeType":"image/png"}]}`), &c); err != nil {
		t.Fatal(err)
	}
	if len(c.Content) != 1 || c.Content[0].Type != ContentTypeImage || c.Content[0].MimeType != "image/png" {
		t.Errorf("nested content = %#v", c.Content)
	}
}

func TestSamplingContentForms(t *testing.T) {
	var m SamplingMessage
	if err := json.Unmarshal([]byte(`{"role":"user","content":{"type":"text","text":"hi"}}`), &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Content) != 1 || m.Content[0].Text != "hi" {
		t.Errorf("single: %#v", m.Content)
	}
	var r CreateMessageResult
	if err := json.Unmarshal([]byte(`{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"model":"m"}`), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Content) != 2 || r.Model != "m" {
		t.Errorf("array: %#v", r)
	}
	built := CreateMessageResult{Role: RoleAssistant, Content: []Content{TextContent("x")}, Model: "m"}
	b, _ := json.Marshal(built)
	if want := `{"role":"assistant","content":{"type":"text","text":"x"},"model":"m"}`; string(b) != want {
		t.Errorf("got %s\nwant %s", b, want)
	}
}

func TestTaskTimes(t *testing.T) {
	created := time.Date(2025, 11, 25, 10, 30, 0, 0, time.UTC)
	task := Task{CreatedAt: FormatTime(created), TTL: ptr[int64](60000)}
	if task.CreatedAt != "2025-11-25T10:30:00Z" {
		t.Errorf("FormatTime = %q", task.CreatedAt)
	}
	at, ok := task.ExpiresAt()
	if !ok || !at.Equal(created.Add(time.Minute)) {
		t.Errorf("ExpiresAt() = %v, %v", at, ok)
	}
	task.TTL = nil
	if _, ok := task.ExpiresAt(); ok {
		t.Error("unlimited task expires")
	}
	if got, err := ParseTime("2025-11-25T10:30:00.123+02:00"); err != nil || !got.Equal(time.Date(2025, 11, 25, 8, 30, 0, 123e6, time.UTC)) {
		t.Errorf("ParseTime = %v, %v", got, err)
	}
	if d := task.PollDuration(time.Second); d != time.Second {
		t.Errorf("default PollDuration = %v", d)
	}
	task.PollInterval = ptr[int64](250)
	if d := task.PollDuration(time.Second); d != 250*time.Millisecond {
		t.Errorf("PollDuration = %v", d)
	}
}

// TestHugeMilliseconds: a ttl or pollInterval too large for a time.Duration saturates
// instead of wrapping negative (9e12 ms once made a follower poll nonstop).
func TestHugeMilliseconds(t *testing.T) {
	for ms, want := range map[int64]time.Duration{
		-5:                0,
		0:                 0,
		250:               250 * time.Millisecond,
		9_223_372_036_854: 9_223_372_036_854 * time.Millisecond,
		9_223_372_036_855: math.MaxInt64,
		1e13:              math.MaxInt64,
		math.MaxInt64:     math.MaxInt64,
	} {
		if got := Milliseconds(ms); got != want {
			t.Errorf("Milliseconds(%d) = %v, want %v", ms, got, want)
		}
	}
	task := Task{CreatedAt: "2025-11-25T10:30:00Z", TTL: ptr[int64](1e13), PollInterval: ptr[int64](9e15)}
	if d := task.PollDuration(time.Second); d != math.MaxInt64 {
		t.Errorf("PollDuration = %v, want the longest duration", d)
	}
	created, _ := ParseTime(task.CreatedAt)
	if at, ok := task.ExpiresAt(); !ok || !at.After(created.AddDate(290, 0, 0)) {
		t.Errorf("ExpiresAt() = %v, %v; want centuries after its creation", at, ok)
	}
}

func TestExtTaskConversion(t *testing.T) {
	task := Task{TaskID: "a", Status: TaskStatusFailed, StatusMessage: "m", CreatedAt: "c", LastUpdatedAt: "u",
		TTL: ptr[int64](10), PollInterval: ptr[int64](5)}
	ext := ExtTaskFrom(task)
	if ext.TTLMs != task.TTL || ext.PollIntervalMs != task.PollInterval || ext.TaskID != "a" {
		t.Errorf("ExtTaskFrom = %#v", ext)
	}
	if back := ext.ToTask(); !reflect.DeepEqual(back, task) {
		t.Errorf("ToTask = %#v", back)
	}
	if d := ext.PollDuration(time.Second); d != 5*time.Millisecond {
		t.Errorf("PollDuration = %v", d)
	}
}

func TestProtocolConstants(t *testing.T) {
	if LatestProtocolVersion != SupportedProtocolVersions[0] {
		t.Error("latest is not first")
	}
	for _, v := range []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"} {
		if !IsSupportedProtocolVersion(v) {
			t.Errorf("%s not supported", v)
		}
	}
	if IsSupportedProtocolVersion(ProtocolVersion20260728) || IsSupportedProtocolVersion("") {
		t.Error("unexpected supported version")
	}
	for _, m := range []string{MethodToolsCall, MethodSamplingCreateMessage, MethodElicitationCreate} {
		if !IsTaskAugmentable(m) {
			t.Errorf("%s not augmentable", m)
		}
	}
	for _, m := range []string{MethodPromptsGet, MethodTasksGet, MethodResourcesRead, ""} {
		if IsTaskAugmentable(m) {
			t.Errorf("%s augmentable", m)
		}
	}
	if LoggingLevelDebug.Severity() >= LoggingLevelEmergency.Severity() || LoggingLevel("x").Severity() != -1 {
		t.Error("Severity ordering")
	}
}

func TestElicitParamsEffectiveMode(t *testing.T) {
	if m := (&ElicitParams{}).EffectiveMode(); m != ElicitModeForm {
		t.Errorf("empty mode = %q", m)
	}
	if m := (&ElicitParams{Mode: ElicitModeURL}).EffectiveMode(); m != ElicitModeURL {
		t.Errorf("url mode = %q", m)
	}
}
