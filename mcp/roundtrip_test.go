package mcp

import (
	"bytes"
	"encoding/json"
	"testing"
)

// rt decodes data into a T and encodes it again.
func rt[T any]() func([]byte) ([]byte, error) {
	return func(data []byte) ([]byte, error) {
		var v T
		if err := json.Unmarshal(data, &v); err != nil {
			return nil, err
		}
		return json.Marshal(v)
	}
}

func compact(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		t.Fatalf("bad test JSON %s: %v", s, err)
	}
	return b.String()
}

// TestRoundTrip checks that decoding and re-encoding gives the input back
// byte for byte (after compaction).
func TestRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		rt   func([]byte) ([]byte, error)
		in   string
	}{
		// Tasks, 2025-11-25 (digest §4).
		{"CreateTaskResult", rt[CreateTaskResult](), `{"task":{"taskId":"786512e2-9e0d-44bd-8f29-789f320fe840","status":"working","createdAt":"2025-11-25T10:30:00Z",
			"lastUpdatedAt":"2025-11-25T10:30:00Z","ttl":60000,"pollInterval":5000},
			"_meta":{"io.modelcontextprotocol/model-immediate-response":"Started; will report back."}}`},
		{"CreateTaskResult/ttl null", rt[CreateTaskResult](), `{"task":{"taskId":"a","status":"working","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:00Z","ttl":null}}`},
		{"GetTaskResult", rt[GetTaskResult](), `{"taskId":"786512e2","status":"working","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:05Z","ttl":30000,"pollInterval":5000}`},
		{"GetTaskResult/ttl null", rt[GetTaskResult](), `{"taskId":"786512e2","status":"input_required","statusMessage":"needs a name","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:05Z","ttl":null}`},
		{"GetTaskResult/meta", rt[GetTaskResult](), `{"taskId":"x","status":"failed","statusMessage":"boom","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:31:00Z","ttl":1000,"_meta":{"k":1}}`},
		{"CancelTaskResult", rt[CancelTaskResult](), `{"taskId":"786512e2","status":"cancelled","statusMessage":"Cancelled by request.","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:09Z","ttl":30000}`},
		{"ListTasksResult", rt[ListTasksResult](), `{"tasks":[{"taskId":"a","status":"working","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:00Z","ttl":30000}],"nextCursor":"n2"}`},
		{"ListTasksParams", rt[ListTasksParams](), `{"cursor":"opaque"}`},
		{"GetTaskParams", rt[GetTaskParams](), `{"taskId":"786512e2"}`},
		{"TaskResultParams", rt[TaskResultParams](), `{"taskId":"786512e2"}`},
		{"CancelTaskParams", rt[CancelTaskParams](), `{"taskId":"786512e2"}`},
		{"TaskStatusNotificationParams", rt[TaskStatusNotificationParams](), `{"taskId":"786512e2","status":"completed","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:31:00Z","ttl":60000}`},
		{"CallToolParams/task", rt[CallToolParams](), `{"name":"get_weather","arguments":{"city":"NYC"},"task":{"ttl":60000}}`},
		{"CallToolParams/empty task", rt[CallToolParams](), `{"name":"slow","task":{},"_meta":{"progressToken":7}}`},
		{"CallToolResult/related task", rt[CallToolResult](), `{"content":[{"type":"text","text":"72°F"}],"isError":true,
			"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"786512e2"}}}`},
		{"CallToolResult/structured", rt[CallToolResult](), `{"content":[],"structuredContent":{"temp":72,"unit":"F"}}`},
		{"ElicitParams/task", rt[ElicitParams](), `{"message":"Your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}},"task":{"ttl":5000},
			"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t1"}}}`},
		{"CreateMessageParams/task", rt[CreateMessageParams](), `{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":100,"task":{}}`},

		// Capabilities and lifecycle.
		{"ServerCapabilities/tasks", rt[ServerCapabilities](), `{"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}}`},
		{"ServerCapabilities/tasks empty", rt[ServerCapabilities](), `{"tasks":{}}`},
		{"ServerCapabilities/all", rt[ServerCapabilities](), `{"experimental":{"x":{"a":1}},"logging":{},"completions":{},"prompts":{"listChanged":true},
			"resources":{"subscribe":true,"listChanged":true},"tools":{},"tasks":{"list":{}},"extensions":{"io.modelcontextprotocol/tasks":{}}}`},
		{"ClientCapabilities/tasks", rt[ClientCapabilities](), `{"tasks":{"list":{},"cancel":{},"requests":{"sampling":{"createMessage":{}},"elicitation":{"create":{}}}}}`},
		{"ClientCapabilities/all", rt[ClientCapabilities](), `{"roots":{"listChanged":true},"sampling":{"context":{},"tools":{}},"elicitation":{"form":{},"url":{}}}`},
		{"ClientCapabilities/empty objects", rt[ClientCapabilities](), `{"roots":{},"sampling":{},"elicitation":{}}`},
		{"InitializeParams", rt[InitializeParams](), `{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},
			"clientInfo":{"name":"mcpi","title":"MCP Inspector","version":"0.1.0","description":"d","websiteUrl":"https://example.com",
			"icons":[{"src":"https://example.com/i.png","mimeType":"image/png","sizes":["48x48"],"theme":"dark"}]}}`},
		{"InitializeParams/no caps", rt[InitializeParams](), `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`},
		{"InitializeResult", rt[InitializeResult](), `{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true},"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}},
			"serverInfo":{"name":"demo","version":"1.0.0"},"instructions":"Be nice."}`},
		{"EmptyResult", rt[EmptyResult](), `{}`},
		{"PingParams/meta", rt[PingParams](), `{"_meta":{"progressToken":"p"}}`},

		// Content blocks.
		{"Content/text", rt[Content](), `{"type":"text","text":"hello"}`},
		{"Content/text empty", rt[Content](), `{"type":"text","text":""}`},
		{"Content/text annotated", rt[Content](), `{"type":"text","text":"x","annotations":{"audience":["user","assistant"],"priority":0,"lastModified":"2025-01-12T15:00:58Z"},"_meta":{"a":"b"}}`},
		{"Content/image", rt[Content](), `{"type":"image","data":"aGVsbG8=","mimeType":"image/png","annotations":{"priority":0.5}}`},
		{"Content/audio", rt[Content](), `{"type":"audio","data":"","mimeType":"audio/wav"}`},
		{"Content/resource_link", rt[Content](), `{"type":"resource_link","uri":"file:///project/src/main.rs","name":"main.rs","title":"Main",
			"description":"Primary application entry point","mimeType":"text/x-rust","size":0,"icons":[{"src":"data:image/png;base64,AA=="}],
			"annotations":{"audience":["assistant"]},"_meta":{"x":true}}`},
		{"Content/resource_link minimal", rt[Content](), `{"type":"resource_link","uri":"file:///a","name":""}`},
		{"Content/resource text", rt[Content](), `{"type":"resource","resource":{"uri":"file:///a.txt","mimeType":"text/plain","text":"abc","_meta":{"m":1}},"annotations":{"priority":1}}`},
		{"Content/resource empty text", rt[Content](), `{"type":"resource","resource":{"uri":"file:///a.txt","text":""}}`},
		{"Content/resource blob", rt[Content](), `{"type":"resource","resource":{"uri":"file:///a.bin","mimeType":"application/octet-stream","blob":"AAEC"},"_meta":{"z":null}}`},
		{"Content/tool_use", rt[Content](), `{"type":"tool_use","id":"tu1","name":"get_weather","input":{"city":"Paris"},"_meta":{"cache":"x"}}`},
		{"Content/tool_result", rt[Content](), `{"type":"tool_result","toolUseId":"tu1","content":[{"type":"text","text":"18C"}],"structuredContent":{"t":18},"isError":true}`},
		{"Content/tool_result empty", rt[Content](), `{"type":"tool_result","toolUseId":"tu1","content":[]}`},
		{"Content/unknown type", rt[Content](), `{"type":"video","data":"AA==","mimeType":"video/mp4"}`},

		// Tools, prompts, resources.
		{"Tool", rt[Tool](), `{"name":"get_weather","title":"Weather","description":"Get weather",
			"inputSchema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]},
			"outputSchema":{"type":"object"},"annotations":{"title":"W","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false},
			"execution":{"taskSupport":"optional"},"icons":[{"src":"https://e.com/w.svg"}],"_meta":{"k":"v"}}`},
		{"Tool/execution empty", rt[Tool](), `{"name":"t","inputSchema":{"type":"object"},"execution":{}}`},
		{"ListToolsResult", rt[ListToolsResult](), `{"tools":[{"name":"t","inputSchema":{"type":"object"}}],"nextCursor":"c2"}`},
		{"ListToolsResult/empty", rt[ListToolsResult](), `{"tools":[]}`},
		{"ListToolsParams", rt[ListToolsParams](), `{"cursor":"c2","_meta":{"progressToken":1}}`},
		{"Prompt", rt[Prompt](), `{"name":"code_review","title":"Review","description":"Review code","arguments":[{"name":"code","title":"Code","description":"the code","required":true}],"icons":[{"src":"x"}]}`},
		{"GetPromptParams", rt[GetPromptParams](), `{"name":"code_review","arguments":{"code":"x = 1"}}`},
		{"GetPromptResult", rt[GetPromptResult](), `{"description":"d","messages":[{"role":"user","content":{"type":"resource","resource":{"uri":"u","text":"t"}}},{"role":"assistant","content":{"type":"text","text":"ok"}}]}`},
		{"ListPromptsResult", rt[ListPromptsResult](), `{"prompts":[{"name":"p"}]}`},
		{"Resource", rt[Resource](), `{"uri":"file:///a","name":"a","title":"A","description":"d","mimeType":"text/plain","annotations":{"priority":0.1},"size":12,"icons":[{"src":"s"}],"_meta":{"m":"n"}}`},
		{"ListResourcesResult", rt[ListResourcesResult](), `{"resources":[],"nextCursor":"x"}`},
		{"ListResourceTemplatesResult", rt[ListResourceTemplatesResult](), `{"resourceTemplates":[{"uriTemplate":"file:///{path}","name":"files","mimeType":"text/plain"}]}`},
		{"ReadResourceParams", rt[ReadResourceParams](), `{"uri":"file:///a"}`},
		{"ReadResourceResult", rt[ReadResourceResult](), `{"contents":[{"uri":"file:///a","text":"hi"},{"uri":"file:///b","mimeType":"image/png","blob":"AA=="}]}`},
		{"SubscribeParams", rt[SubscribeParams](), `{"uri":"file:///a"}`},
		{"ResourceUpdatedNotificationParams", rt[ResourceUpdatedNotificationParams](), `{"uri":"file:///a","_meta":{"x":1}}`},

		// Utilities.
		{"SetLevelParams", rt[SetLevelParams](), `{"level":"warning"}`},
		{"LoggingMessageNotificationParams", rt[LoggingMessageNotificationParams](), `{"level":"error","logger":"db","data":{"error":"Connection failed","details":{"host":"localhost","port":5432}}}`},
		{"LoggingMessageNotificationParams/null data", rt[LoggingMessageNotificationParams](), `{"level":"info","data":null}`},
		{"CompleteParams/prompt", rt[CompleteParams](), `{"ref":{"type":"ref/prompt","name":"code_review"},"argument":{"name":"language","value":"py"},"context":{"arguments":{"a":"b"}}}`},
		{"CompleteParams/resource", rt[CompleteParams](), `{"ref":{"type":"ref/resource","uri":"file:///{path}"},"argument":{"name":"path","value":""}}`},
		{"CompleteResult", rt[CompleteResult](), `{"completion":{"values":["python","pytorch"],"total":10,"hasMore":true}}`},
		{"CompleteResult/empty", rt[CompleteResult](), `{"completion":{"values":[]}}`},
		{"ListRootsResult", rt[ListRootsResult](), `{"roots":[{"uri":"file:///home/user/projects/myproject","name":"My Project","_meta":{"a":1}}]}`},
		{"ProgressNotificationParams/int", rt[ProgressNotificationParams](), `{"progressToken":42,"progress":50,"total":100,"message":"halfway"}`},
		{"ProgressNotificationParams/string", rt[ProgressNotificationParams](), `{"progressToken":"abc","progress":0.5}`},
		{"ProgressNotificationParams/big int", rt[ProgressNotificationParams](), `{"progressToken":9007199254740993,"progress":1}`},
		{"CancelledNotificationParams", rt[CancelledNotificationParams](), `{"requestId":123,"reason":"User requested cancellation"}`},
		{"CancelledNotificationParams/string id", rt[CancelledNotificationParams](), `{"requestId":"r-1"}`},
		{"NotificationParams", rt[NotificationParams](), `{}`},
		{"Meta/big number", rt[PingParams](), `{"_meta":{"f":1.25,"n":12345678901234567890}}`},

		// Sampling.
		{"SamplingMessage/single", rt[SamplingMessage](), `{"role":"user","content":{"type":"text","text":"What is the capital of France?"}}`},
		{"SamplingMessage/array of one", rt[SamplingMessage](), `{"role":"user","content":[{"type":"text","text":"hi"}]}`},
		{"SamplingMessage/array", rt[SamplingMessage](), `{"role":"assistant","content":[{"type":"text","text":"calling"},{"type":"tool_use","id":"1","name":"f","input":{}}],"_meta":{"m":1}}`},
		{"CreateMessageParams", rt[CreateMessageParams](), `{"messages":[{"role":"user","content":{"type":"image","data":"AA==","mimeType":"image/png"}}],
			"modelPreferences":{"hints":[{"name":"claude-3-sonnet"}],"costPriority":0.3,"speedPriority":0.8,"intelligencePriority":0.5},
			"systemPrompt":"You are helpful.","includeContext":"thisServer","temperature":0.7,"maxTokens":100,"stopSequences":["END"],
			"metadata":{"a":1},"tools":[{"name":"f","inputSchema":{"type":"object"}}],"toolChoice":{"mode":"auto"},"task":{"ttl":1000},"_meta":{"progressToken":"p"}}`},
		{"CreateMessageResult", rt[CreateMessageResult](), `{"role":"assistant","content":{"type":"text","text":"Paris."},"model":"claude-3-sonnet-20240307","stopReason":"endTurn"}`},
		{"CreateMessageResult/array", rt[CreateMessageResult](), `{"role":"assistant","content":[{"type":"tool_use","id":"1","name":"f","input":{"x":1}}],"model":"m","stopReason":"toolUse",
			"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t"}}}`},

		// Elicitation.
		{"ElicitParams/form", rt[ElicitParams](), `{"mode":"form","message":"Your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string","default":"Ann"}},"required":["name"]}}`},
		{"ElicitParams/url", rt[ElicitParams](), `{"mode":"url","message":"Please authorize.","elicitationId":"550e8400","url":"https://mcp.example.com/connect?id=550e8400"}`},
		{"ElicitResult/accept", rt[ElicitResult](), `{"action":"accept","content":{"age":30,"name":"Luca","ok":true,"tags":["a","b"]}}`},
		{"ElicitResult/decline", rt[ElicitResult](), `{"action":"decline","_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t"}}}`},
		{"ElicitationCompleteNotificationParams", rt[ElicitationCompleteNotificationParams](), `{"elicitationId":"550e8400"}`},
		{"URLElicitationRequiredData", rt[URLElicitationRequiredData](), `{"elicitations":[{"mode":"url","message":"m","elicitationId":"e","url":"https://x"}]}`},

		// Tasks extension, 2026-07-28.
		{"ExtCreateTaskResult", rt[ExtCreateTaskResult](), `{"resultType":"task","taskId":"7f3c","status":"working",
			"createdAt":"2026-08-01T10:00:00Z","lastUpdatedAt":"2026-08-01T10:00:00Z","ttlMs":3600000,"pollIntervalMs":2000}`},
		{"ExtCreateTaskResult/ttl null", rt[ExtCreateTaskResult](), `{"resultType":"task","taskId":"7f3c","status":"working","createdAt":"2026-08-01T10:00:00Z","lastUpdatedAt":"2026-08-01T10:00:00Z","ttlMs":null}`},
		{"ExtGetTaskResult/input_required", rt[ExtGetTaskResult](), `{"resultType":"complete","taskId":"7f3c","status":"input_required","createdAt":"2026-08-01T10:00:00Z",
			"lastUpdatedAt":"2026-08-01T10:00:01Z","ttlMs":3600000,"inputRequests":{"name":{"method":"elicitation/create","params":{"mode":"form",
			"message":"Your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}}}`},
		{"ExtGetTaskResult/completed", rt[ExtGetTaskResult](), `{"resultType":"complete","taskId":"7f3c","status":"completed","createdAt":"2026-08-01T10:00:00Z",
			"lastUpdatedAt":"2026-08-01T10:00:02Z","ttlMs":3600000,"result":{"content":[{"type":"text","text":"Hello, Luca!"}],"isError":false}}`},
		{"ExtGetTaskResult/failed", rt[ExtGetTaskResult](), `{"resultType":"complete","taskId":"7f3c","status":"failed","statusMessage":"rate limited","createdAt":"2026-08-01T10:00:00Z",
			"lastUpdatedAt":"2026-08-01T10:00:02Z","ttlMs":null,"error":{"code":-32603,"message":"API rate limit exceeded"}}`},
		{"UpdateTaskParams", rt[UpdateTaskParams](), `{"taskId":"7f3c","inputResponses":{"name":{"action":"accept","content":{"name":"Luca"}}}}`},
		{"AckResult", rt[AckResult](), `{"resultType":"complete"}`},
		{"MissingCapabilityData", rt[MissingCapabilityData](), `{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`},
		{"UnsupportedProtocolVersionData", rt[UnsupportedProtocolVersionData](), `{"supported":["2026-07-28"],"requested":"1999-01-01"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := compact(t, tt.in)
			got, err := tt.rt([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != want {
				t.Errorf("round trip mismatch\n got: %s\nwant: %s", got, want)
			}
		})
	}
}

// TestMarshalRequiredFields checks that zero values still produce the keys
// the schema requires.
func TestMarshalRequiredFields(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"CallToolResult empty", CallToolResult{}, `{"content":[]}`},
		{"CallToolResult pointer", &CallToolResult{Content: []Content{TextContent("a")}}, `{"content":[{"type":"text","text":"a"}]}`},
		{"CallToolResult isError false omitted", CallToolResult{IsError: false}, `{"content":[]}`},
		{"ListToolsResult", ListToolsResult{}, `{"tools":[]}`},
		{"ListPromptsResult", ListPromptsResult{}, `{"prompts":[]}`},
		{"ListResourcesResult", ListResourcesResult{}, `{"resources":[]}`},
		{"ListResourceTemplatesResult", ListResourceTemplatesResult{}, `{"resourceTemplates":[]}`},
		{"ReadResourceResult", ReadResourceResult{}, `{"contents":[]}`},
		{"GetPromptResult", GetPromptResult{}, `{"messages":[]}`},
		{"ListTasksResult", ListTasksResult{}, `{"tasks":[]}`},
		{"ListRootsResult", ListRootsResult{}, `{"roots":[]}`},
		{"CompleteResult", CompleteResult{}, `{"completion":{"values":[]}}`},
		{"CreateMessageParams", CreateMessageParams{MaxTokens: 5}, `{"messages":[],"maxTokens":5}`},
		{"Tool default schema", Tool{Name: "t"}, `{"name":"t","inputSchema":{"type":"object"}}`},
		{"Task ttl null", Task{TaskID: "a", Status: TaskStatusWorking, CreatedAt: "c", LastUpdatedAt: "u"},
			`{"taskId":"a","status":"working","createdAt":"c","lastUpdatedAt":"u","ttl":null}`},
		{"GetTaskResult flattened", GetTaskResult{Task: Task{TaskID: "a", Status: TaskStatusCompleted, CreatedAt: "c", LastUpdatedAt: "u", TTL: ptr[int64](5)}},
			`{"taskId":"a","status":"completed","createdAt":"c","lastUpdatedAt":"u","ttl":5}`},
		{"CallToolParams empty task", CallToolParams{Name: "n", Task: &TaskMetadata{}}, `{"name":"n","task":{}}`},
		{"InitializeParams zero caps", InitializeParams{ProtocolVersion: LatestProtocolVersion, ClientInfo: Implementation{Name: "c", Version: "1"}},
			`{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`},
		{"ServerCapabilities tasks", ServerCapabilities{Tasks: &ServerTasksCapability{List: &struct{}{}, Cancel: &struct{}{},
			Requests: &ServerTaskRequests{Tools: &TaskToolRequests{Call: &struct{}{}}}}},
			`{"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}}`},
		{"TextContent empty", TextContent(""), `{"type":"text","text":""}`},
		{"ImageContent", ImageContent([]byte("hello"), "image/png"), `{"type":"image","data":"aGVsbG8=","mimeType":"image/png"}`},
		{"AudioContent", AudioContent(nil, "audio/wav"), `{"type":"audio","data":"","mimeType":"audio/wav"}`},
		{"ResourceLinkContent", ResourceLinkContent(Resource{URI: "u", Name: "n", Size: ptr[int64](3)}), `{"type":"resource_link","uri":"u","name":"n","size":3}`},
		{"EmbeddedResourceContent text", EmbeddedResourceContent(TextResourceContents("u", "", "")), `{"type":"resource","resource":{"uri":"u","text":""}}`},
		{"EmbeddedResourceContent blob", EmbeddedResourceContent(BlobResourceContents("u", "application/x", []byte{0, 1, 2})), `{"type":"resource","resource":{"uri":"u","mimeType":"application/x","blob":"AAEC"}}`},
		{"Resource block nil resource", Content{Type: ContentTypeResource}, `{"type":"resource","resource":{"uri":"","text":""}}`},
		{"ToolUseContent nil input", ToolUseContent("1", "f", nil), `{"type":"tool_use","id":"1","name":"f","input":{}}`},
		{"ToolResultContent", ToolResultContent("1", nil, false), `{"type":"tool_result","toolUseId":"1","content":[]}`},
		{"SamplingMessage one block", SamplingMessage{Role: RoleUser, Content: []Content{TextContent("x")}}, `{"role":"user","content":{"type":"text","text":"x"}}`},
		{"SamplingMessage no blocks", SamplingMessage{Role: RoleUser}, `{"role":"user","content":[]}`},
		{"LoggingMessage nil data", LoggingMessageNotificationParams{Level: LoggingLevelInfo}, `{"level":"info","data":null}`},
		{"ExtTask ttlMs null", ExtTask{TaskID: "a", Status: TaskStatusWorking, CreatedAt: "c", LastUpdatedAt: "u"},
			`{"taskId":"a","status":"working","createdAt":"c","lastUpdatedAt":"u","ttlMs":null}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.v)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("\n got: %s\nwant: %s", got, tt.want)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestCallToolResultIsErrorFalseNormalised(t *testing.T) {
	// The digest's tasks/result example carries "isError":false; false is the
	// default, so it is dropped on re-encoding. Everything else survives.
	in := `{"content":[{"type":"text","text":"72°F"}],"isError":false,"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"786512e2"}}}`
	var r CallToolResult
	if err := json.Unmarshal([]byte(in), &r); err != nil {
		t.Fatal(err)
	}
	if id, ok := r.Meta.RelatedTask(); !ok || id != "786512e2" {
		t.Errorf("RelatedTask() = %q, %v", id, ok)
	}
	got, _ := json.Marshal(r)
	want := `{"content":[{"type":"text","text":"72°F"}],"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"786512e2"}}}`
	if string(got) != want {
		t.Errorf("\n got: %s\nwant: %s", got, want)
	}
}
