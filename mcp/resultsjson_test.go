package mcp

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

var resultSeeds = []string{
	// As the demo server and the task round trip send them.
	`{"content":[{"type":"text","text":"done"}],"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"abc"}}}`,
	`{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"6b0869bdf0eef31efc8c89e8022f384b"}},"content":[{"type":"text","text":"done"}]}`,
	`{"task":{"taskId":"6b0869bdf0eef31efc8c89e8022f384b","status":"working","createdAt":"2026-11-22T05:02:55.123456789Z","lastUpdatedAt":"2026-11-22T05:02:55.123456789Z","ttl":60000,"pollInterval":1000}}`,
	`{"task":{"taskId":"t","status":"working","createdAt":"c","lastUpdatedAt":"l","ttl":null}}`,
	`{"taskId":"t","status":"completed","statusMessage":"ok","createdAt":"c","lastUpdatedAt":"l","ttl":null,"pollInterval":500}`,
	`{"taskId":"t","status":"input_required","createdAt":"c","lastUpdatedAt":"l","ttl":5,"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t"}}}`,
	` { "content" : [ { "type" : "text" , "text" : "a\nb \u00e9 \ud83d\ude00" , "_meta" : { "k" : [1, null] } } , {"text":"x"} ] , "isError" : true , "structuredContent" : { "a" : [ 1 , 2 ] } } `,
	`{"content":[],"isError":false,"structuredContent":null,"_meta":null}`,
	`{"content":[{}]}`,
	`{"content":null}`,
	`{"content":{}}`,
	`{"content":[null]}`,
	`{"content":[{"type":"image","data":"AAAA","mimeType":"image/png"}]}`,
	`{"content":[{"type":"text","text":"a","annotations":{"priority":1}}]}`,
	`{"content":[{"type":"text","text":"a","Text":"b"}]}`,
	`{"content":[{"type":"text","text":"a","text":"b"}]}`,
	`{"content":[{"type":"text","text":5}]}`,
	`{"content":[{"type":"text","text":null}]}`,
	`{"content":[{"type":"text","extra":1}]}`,
	`{"content":[{"type":"text"}],"content":[]}`,
	`{"content":[{"type":"text","text":"x"},]}`,
	`{"content":[{"type":"text","text":"x"} {"type":"text"}]}`,
	`{"Content":[{"type":"text","text":"x"}]}`,
	`{"CONTENT":[]}`,
	`{"isError":1}`,
	`{"isError":null}`,
	`{"iserror":true}`,
	`{"is_error":true}`,
	`{"structuredContent":"s"}`,
	`{"structuredContent":-1.5e3}`,
	`{"structuredContent":[1,}`,
	`{"structuredContent":{"a":tru}}`,
	`{"structuredContent":1,"structuredContent":2}`,
	`{"_meta":5}`,
	`{"_meta":[]}`,
	`{"_meta":{},"_meta":{"a":1}}`,
	`{"_Meta":{}}`,
	`{"meta":{}}`,
	`{"other":{"x":[1,{"y":null}]},"content":[]}`,
	`{"other":{"x":tru}}`,
	`{"other":"\x"}`,
	`{"oth\u0065r":1}`,
	`{"cont\u0065nt":[]}`,
	"{\"content\":[{\"type\":\"text\",\"text\":\"bad \xff utf8 \xed\xa0\x80\"}]}",
	"{\"content\":[{\"type\":\"text\",\"text\":\"tab\there\"}]}",
	`{"content":[{"type":"text","text":"\ud800"}]}`,
	`{"task":null}`,
	`{"task":{"taskId":"t"},"task":null}`,
	`{"task":null,"task":{"taskId":"t"}}`,
	`{"task":{"taskId":"t"},"TASK":null}`,
	`{"task":nul}`,
	`{"task":{}}`,
	`{"task":[]}`,
	`{"task":5}`,
	`{"task":{"taskId":""}}`,
	`{"task":{"taskId":5}}`,
	`{"task":{"taskId":"t"},"task":{"status":"working"}}`,
	`{"task":{"taskId":"t","taskId":"u"}}`,
	`{"task":{"taskId":"t","TaskId":"u"}}`,
	`{"task":{"taskId":"t","task_id":"u"}}`,
	`{"task":{"taskId":"t","extra":{"a":[]}}}`,
	`{"task":{"taskId":"t","_meta":{"a":1}}}`,
	`{"Task":{"taskId":"t"}}`,
	`{"task":{"taskId":"t"},"_meta":{"a":1}}`,
	`{"task":{"taskId":"t"},"_meta":5}`,
	`{"task":{"taskId":"t"},"content":[{"type":"text","text":"x"}]}`,
	`{"taskId":"t","ttl":1.5}`,
	`{"taskId":"t","ttl":1e3}`,
	`{"taskId":"t","ttl":-0}`,
	`{"taskId":"t","ttl":9223372036854775807}`,
	`{"taskId":"t","ttl":9223372036854775808}`,
	`{"taskId":"t","ttl":-9223372036854775809}`,
	`{"taskId":"t","ttl":"5"}`,
	`{"taskId":"t","ttl":01}`,
	`{"taskId":"t","ttl":5,"ttl":null}`,
	`{"taskId":"t","pollInterval":null}`,
	`{"taskId":"t","status":null}`,
	`{"taskId":"t","status":5}`,
	`{"taskId":"t","Status":"working"}`,
	`{"taskId":"t","STATUSMESSAGE":"m"}`,
	`{"taskId":"t","task":{"taskId":"u"}}`,
	`{"taskId":"t","_meta":{}}`,
	`{"taskId":"t","_meta":{},"_meta":null}`,
	`{"taskId":"t","_meta":"m"}`,
	`{"taskId":"t","content":[]}`,
	`{"taskId":"t"}x`,
	`{"taskId":"t"}{}`,
	`{"taskId":"t",}`,
	`{"taskId":"t"`,
	`{"taskId":`,
	`{"taskId"`,
	`{`,
	``,
	`{}`,
	` {} `,
	`null`,
	`[]`,
	`"s"`,
	`1`,
	`true`,
	// The extension's shapes.
	`{"resultType":"task","taskId":"7f3c","status":"working","createdAt":"2026-08-01T10:00:00Z","lastUpdatedAt":"2026-08-01T10:00:00Z","ttlMs":60000,"pollIntervalMs":1000}`,
	`{"resultType":"task","taskId":"t","status":"working","createdAt":"c","lastUpdatedAt":"l","ttlMs":null,"_meta":{"a":[1]}}`,
	`{"_meta":{"io.modelcontextprotocol/subscriptionId":12},"taskId":"t","status":"completed","createdAt":"c","lastUpdatedAt":"l","ttlMs":5,"result":{"content":[{"type":"text","text":"done"}],"isError":false}}`,
	`{"resultType":"complete","taskId":"t","status":"completed","statusMessage":"m","createdAt":"c","lastUpdatedAt":"l","ttlMs":null,"pollIntervalMs":5,"result":{"content":[]}}`,
	`{"resultType":"complete","taskId":"t","status":"failed","createdAt":"c","lastUpdatedAt":"l","ttlMs":1,"error":{"code":-32603,"message":"boom","data":{"x":1}}}`,
	`{"resultType":"complete","taskId":"t","status":"input_required","createdAt":"c","lastUpdatedAt":"l","ttlMs":1,"inputRequests":{"k":{"method":"elicitation/create","params":{"message":"?"}}}}`,
	`{"taskId":"t","error":null,"inputRequests":null}`,
	`{"taskId":"t","result":null}`,
	`{"taskId":"t","result":"s"}`,
	`{"taskId":"t","result":[1,{"a":tru}]}`,
	`{"taskId":"t","result":1,"result":2}`,
	`{"taskId":"t","Result":{}}`,
	`{"taskId":"t","ttl":5,"pollInterval":1}`,
	`{"taskId":"t","ttlMs":5,"ttlMs":6}`,
	`{"taskId":"t","ttlMs":1.5}`,
	`{"taskId":"t","ttlMs":"5"}`,
	`{"taskId":"t","TTLMS":5}`,
	`{"taskId":"t","ttl_ms":5}`,
	`{"taskId":"t","pollIntervalMs":-1}`,
	`{"resultType":null,"taskId":"t"}`,
	`{"resultType":5}`,
	`{"resultType":"task","resultType":"complete"}`,
	`{"ResultType":"task"}`,
	`{"resultType":"t\u0061sk","taskId":"t"}`,
	`{"taskId":"t","_meta":{"a":1},"_meta":{}}`,
	`{"taskId":"t","task":{"taskId":"u"},"content":[]}`,
	`{"other":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`,
	`{"other":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`,
}

// checkResult holds the result decoders to encoding/json for each type that has one,
// into a zero value and into one already holding values.
func checkResult(t *testing.T, data []byte) {
	t.Helper()
	ttl := int64(9)
	old := Task{TaskID: "old", Status: TaskStatusWorking, StatusMessage: "m", CreatedAt: "c", LastUpdatedAt: "l", TTL: &ttl}
	for _, mk := range []func() any{
		func() any { return new(CallToolResult) },
		func() any { return new(CreateTaskResult) },
		func() any { return new(CreateTaskProbe) },
		func() any { return new(Task) },
		func() any { return new(GetTaskResult) },
		func() any { return new(CancelTaskResult) },
		func() any { return new(TaskStatusNotificationParams) },
		func() any {
			return &CallToolResult{Content: []Content{TextContent("old")}, StructuredContent: json.RawMessage(`{"old":1}`), IsError: true, Meta: Meta{"old": true}}
		},
		func() any { return &CreateTaskResult{Task: old, Meta: Meta{"old": true}} },
		func() any {
			o := old
			return &CreateTaskProbe{&o}
		},
		func() any { o := old; o.TTL = new(int64); return &o },
		func() any {
			o := old
			o.TTL = new(int64)
			return &TaskStatusNotificationParams{Task: o, Meta: Meta{"old": true}}
		},
		func() any { return &GetTaskResult{Task: old} },
		func() any { return new(DetailedTask) },
		func() any { return new(ExtCreateTaskResult) },
		func() any { return new(ExtGetTaskResult) },
		func() any { return new(TasksNotificationParams) },
		func() any {
			return &TasksNotificationParams{DetailedTask: DetailedTask{ExtTask: ExtTaskFrom(old), Result: json.RawMessage(`1`)}, Meta: Meta{"old": true}}
		},
		func() any {
			return &DetailedTask{ExtTask: ExtTaskFrom(old), Result: json.RawMessage(`{"old":1}`), InputRequests: map[string]InputRequest{"old": {Method: "m"}}}
		},
		func() any {
			return &ExtCreateTaskResult{ResultType: "old", ExtTask: ExtTaskFrom(old), Meta: Meta{"old": true}}
		},
		func() any {
			return &ExtGetTaskResult{ResultType: "old", DetailedTask: DetailedTask{ExtTask: ExtTaskFrom(old), Error: &ErrorObject{Code: 1}}}
		},
	} {
		checkDecode(t, data, mk)
	}
}

func TestResultUnmarshalMatchesEncodingJSON(t *testing.T) {
	for _, s := range resultSeeds {
		checkResult(t, []byte(s))
	}
}

// TestResultUnmarshalFastPath: the usual shapes are decoded without encoding/json.
func TestResultUnmarshalFastPath(t *testing.T) {
	for _, s := range []string{
		`{"content":[{"type":"text","text":"done"}],"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"abc"}}}`,
		`{"content":[],"structuredContent":{"a":1},"isError":true,"other":[1]}`,
	} {
		var r CallToolResult
		if !decodeCallToolResult([]byte(s), &r) {
			t.Errorf("%s: not decoded directly as a CallToolResult", s)
		}
	}
	for _, s := range []string{
		`{"task":{"taskId":"t","status":"working","createdAt":"c","lastUpdatedAt":"l","ttl":60000,"pollInterval":1000}}`,
		`{"task":{"taskId":"t","ttl":null,"extra":1},"_meta":{"a":1}}`,
		`{"content":[{"type":"text","text":"plain"}]}`,
	} {
		var r CreateTaskResult
		if !decodeCreateTaskResult([]byte(s), &r) {
			t.Errorf("%s: not decoded directly as a CreateTaskResult", s)
		}
	}
	for _, s := range []string{
		`{"task":{"taskId":"t","status":"working","createdAt":"c","lastUpdatedAt":"l","ttl":60000,"pollInterval":1000}}`,
		`{"content":[{"type":"text","text":"plain"}],"_meta":{"a":1}}`,
		`{"task":null}`,
	} {
		var probe CreateTaskProbe
		if !decodeCreateTaskProbe([]byte(s), &probe) {
			t.Errorf("%s: not decoded directly as the probe", s)
		}
	}
	for _, s := range []string{
		`{"taskId":"t","status":"completed","statusMessage":"m","createdAt":"c","lastUpdatedAt":"l","ttl":null,"pollInterval":5}`,
		`{"taskId":"t","_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t"}}}`,
	} {
		var p TaskStatusNotificationParams
		if !decodeFlatTask([]byte(s), &p.Task, &p.Meta) {
			t.Errorf("%s: not decoded directly as TaskStatusNotificationParams", s)
		}
		var task Task
		if !decodeFlatTask([]byte(s), &task, nil) {
			t.Errorf("%s: not decoded directly as a Task", s)
		}
	}
}

// TestExtResultUnmarshalFastPath: the extension's usual shapes are decoded without
// encoding/json.
func TestExtResultUnmarshalFastPath(t *testing.T) {
	created := `{"resultType":"task","taskId":"t","status":"working","createdAt":"c","lastUpdatedAt":"l","ttlMs":60000,"pollIntervalMs":1000,"_meta":{"a":1}}`
	var c ExtCreateTaskResult
	if !decodeExtTask([]byte(created), &c.ExtTask, extMembers{names: extCreateTaskResultNames, resultType: &c.ResultType, meta: &c.Meta}) {
		t.Errorf("%s: not decoded directly as an ExtCreateTaskResult", created)
	}
	ttl, poll := int64(60000), int64(1000)
	if want := (ExtCreateTaskResult{ResultTypeTask, ExtTask{"t", TaskStatusWorking, "", "c", "l", &ttl, &poll}, Meta{"a": json.Number("1")}}); !reflect.DeepEqual(c, want) {
		t.Errorf("decoded %#v, want %#v", c, want)
	}
	for _, s := range []string{
		`{"_meta":{"io.modelcontextprotocol/subscriptionId":12},"taskId":"t","status":"completed","createdAt":"c","lastUpdatedAt":"l","ttlMs":null,"result":{"content":[{"type":"text","text":"done"}]}}`,
		`{"taskId":"t","status":"working","createdAt":"c","lastUpdatedAt":"l","ttlMs":5,"extra":[1]}`,
	} {
		var d DetailedTask
		if !decodeExtTask([]byte(s), &d.ExtTask, extMembers{names: detailedTaskNames, result: &d.Result}) {
			t.Errorf("%s: not decoded directly as a DetailedTask", s)
		}
		var r ExtGetTaskResult
		if !decodeExtTask([]byte(`{"resultType":"complete",`+s[1:]), &r.ExtTask, extMembers{names: extGetTaskResultNames, resultType: &r.ResultType, result: &r.Result, meta: &r.Meta}) {
			t.Errorf("%s: not decoded directly as an ExtGetTaskResult", s)
		}
	}
}

func FuzzResultUnmarshal(f *testing.F) {
	for _, s := range resultSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkResult(t, data)
	})
}

// BenchmarkUnmarshalResult compares the hand-written decoders, called directly as the
// JSON-RPC layer calls them, with json.Unmarshal (which calls them after checking the
// input) on what a task round trip decodes.
func BenchmarkUnmarshalResult(b *testing.B) {
	created := []byte(`{"task":{"taskId":"6b0869bdf0eef31efc8c89e8022f384b","status":"working","createdAt":"2026-11-22T05:02:55.123456789Z","lastUpdatedAt":"2026-11-22T05:02:55.123456789Z","ttl":60000,"pollInterval":1000}}`)
	status := []byte(`{"taskId":"6b0869bdf0eef31efc8c89e8022f384b","status":"completed","createdAt":"2026-11-22T05:02:55.123456789Z","lastUpdatedAt":"2026-11-22T05:02:55.223456789Z","ttl":60000,"pollInterval":1000}`)
	// The extension's, as mcpi's server writes them for the bench's task.
	extCreated := []byte(`{"resultType":"task","taskId":"6b0869bdf0eef31efc8c89e8022f384b","status":"working","createdAt":"2026-11-22T05:02:55.123456789Z","lastUpdatedAt":"2026-11-22T05:02:55.123456789Z","ttlMs":60000,"pollIntervalMs":1000}`)
	extNotification := []byte(`{"taskId":"6b0869bdf0eef31efc8c89e8022f384b","status":"completed","createdAt":"2026-11-22T05:02:55.123456789Z","lastUpdatedAt":"2026-11-22T05:02:55.223456789Z","ttlMs":60000,"pollIntervalMs":1000,"result":{"content":[{"type":"text","text":"done"}]},"_meta":{"io.modelcontextprotocol/subscriptionId":2}}`)
	extGot := []byte(`{"resultType":"complete","taskId":"6b0869bdf0eef31efc8c89e8022f384b","status":"completed","createdAt":"2026-11-22T05:02:55.123456789Z","lastUpdatedAt":"2026-11-22T05:02:55.223456789Z","ttlMs":60000,"pollIntervalMs":1000,"result":{"content":[{"type":"text","text":"done"}]}}`)
	for _, c := range []struct {
		name string
		data []byte
		mk   func() any
	}{
		{"CallToolResult", benchResultJSON, func() any { return new(CallToolResult) }},
		{"CreateTaskResult", created, func() any { return new(CreateTaskResult) }},
		{"probe", created, func() any { return new(CreateTaskProbe) }},
		{"Task", status, func() any { return new(Task) }},
		{"GetTaskResult", status, func() any { return new(GetTaskResult) }},
		{"TaskStatusNotificationParams", status, func() any { return new(TaskStatusNotificationParams) }},
		{"ExtCreateTaskResult", extCreated, func() any { return new(ExtCreateTaskResult) }},
		{"DetailedTask", extNotification, func() any { return new(DetailedTask) }},
		{"TasksNotificationParams", extNotification, func() any { return new(TasksNotificationParams) }},
		{"ExtGetTaskResult", extGot, func() any { return new(ExtGetTaskResult) }},
	} {
		for _, dec := range []struct {
			name string
			f    func([]byte, any) error
		}{{"UnmarshalResult", unmarshalDirect}, {"json.Unmarshal", json.Unmarshal}, {"reference", refUnmarshal}} {
			b.Run(c.name+"/"+dec.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if err := dec.f(c.data, c.mk()); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func unmarshalDirect(data []byte, v any) error { return v.(json.Unmarshaler).UnmarshalJSON(data) }

// BenchmarkExtResultMarshal compares the extension's hand-written encoders with
// encoding/json on the types without them, on what a task round trip encodes.
func BenchmarkExtResultMarshal(b *testing.B) {
	ttl, poll := int64(60000), int64(1000)
	task := ExtTask{TaskID: "6b0869bdf0eef31efc8c89e8022f384b", Status: TaskStatusCompleted, CreatedAt: "2026-11-22T05:02:55.123456789Z",
		LastUpdatedAt: "2026-11-22T05:02:55.223456789Z", TTLMs: &ttl, PollIntervalMs: &poll}
	done := DetailedTask{ExtTask: task, Result: json.RawMessage(`{"content":[{"type":"text","text":"done"}]}`)}
	for _, c := range []struct {
		name string
		v    json.Marshaler
	}{
		{"ExtCreateTaskResult", ExtCreateTaskResult{ResultType: ResultTypeTask, ExtTask: task}},
		{"TasksNotificationParams", TasksNotificationParams{done, Meta{MetaSubscriptionID: 2}}},
		{"ExtGetTaskResult", ExtGetTaskResult{ResultType: ResultTypeComplete, DetailedTask: done}},
	} {
		b.Run(c.name+"/MarshalJSON", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.v.MarshalJSON(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/reference", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := refMarshal(c.v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// checkTaskMarshal holds the encoders of Task and of the results that hold one to the
// reference.
func checkTaskMarshal(t *testing.T, task Task, meta Meta) {
	t.Helper()
	for _, v := range []any{
		task, &task,
		CreateTaskResult{task, meta}, &CreateTaskResult{task, meta},
		GetTaskResult{task, meta}, &CancelTaskResult{task, meta}, TaskStatusNotificationParams{task, meta},
	} {
		checkMarshal(t, v, false)
	}
}

var taskMarshalSeeds = []string{"", "t-1", "<b>&</b>", "\u2028 \xff \x00 \"q\" \\", "6b0869bdf0eef31efc8c89e8022f384b"}

func TestResultMarshal(t *testing.T) {
	ttl, poll, neg := int64(60000), int64(1000), int64(-1)
	for _, s := range taskMarshalSeeds {
		for _, task := range []Task{
			{},
			{TaskID: s, Status: TaskStatusWorking, CreatedAt: "2026-11-22T05:02:55.123456789Z", LastUpdatedAt: s, TTL: &ttl, PollInterval: &poll},
			{TaskID: s, Status: TaskStatus(s), StatusMessage: s, TTL: &neg},
			{PollInterval: &neg},
		} {
			for _, meta := range []Meta{nil, {}, {"k": s}, {MetaRelatedTask: map[string]any{"taskId": s}}, {"bad": make(chan int)}} {
				checkTaskMarshal(t, task, meta)
			}
		}
	}
	checkMarshal(t, (*Task)(nil), false)
	checkMarshal(t, (*GetTaskResult)(nil), false)
}

// checkExtTaskMarshal holds the encoders of the extension's results to the reference,
// for task with each of the members a detailed task may hold.
func checkExtTaskMarshal(t *testing.T, task Task, meta Meta, raw string) {
	t.Helper()
	ext := ExtTaskFrom(task)
	checkMarshal(t, ExtCreateTaskResult{ResultTypeTask, ext, meta}, false)
	checkMarshal(t, &ExtCreateTaskResult{ResultType(raw), ext, meta}, false)
	for _, d := range []DetailedTask{
		{ExtTask: ext},
		{ExtTask: ext, Result: json.RawMessage(raw)},
		{ExtTask: ext, Error: &ErrorObject{Code: -32603, Message: task.TaskID, Data: json.RawMessage(raw)}},
		{ExtTask: ext, Error: &ErrorObject{Message: raw}},
		{ExtTask: ext, InputRequests: map[string]InputRequest{}},
		{ExtTask: ext, InputRequests: map[string]InputRequest{task.TaskID: {Method: raw, Params: json.RawMessage(raw)}, "b": {Method: "elicitation/create"}, "a": {}}},
		{ExtTask: ext, Result: json.RawMessage(raw), Error: &ErrorObject{}, InputRequests: map[string]InputRequest{raw: {}}},
	} {
		checkMarshal(t, ExtGetTaskResult{ResultTypeComplete, d, meta}, false)
		checkMarshal(t, &TasksNotificationParams{d, meta}, false)
	}
}

var extRawSeeds = []string{`{"content":[{"type":"text","text":"done"}]}`, ` [ 1 , "a\u0041" ] `, `null`, `"<&>"`, `{"a":tru}`, `{`, ``}

func TestExtResultMarshal(t *testing.T) {
	ttl, poll := int64(60000), int64(1000)
	for i, s := range taskMarshalSeeds {
		task := Task{TaskID: s, Status: TaskStatusCompleted, StatusMessage: s, CreatedAt: "2026-11-22T05:02:55.123456789Z", LastUpdatedAt: s}
		if i%2 == 0 {
			task.TTL, task.PollInterval = &ttl, &poll
		}
		for _, raw := range extRawSeeds {
			for _, meta := range []Meta{nil, {}, {MetaSubscriptionID: 12}, {"bad": make(chan int)}} {
				checkExtTaskMarshal(t, task, meta, raw)
			}
		}
	}
	checkMarshal(t, (*ExtCreateTaskResult)(nil), false)
	checkMarshal(t, (*TasksNotificationParams)(nil), false)
}

func FuzzExtResultMarshal(f *testing.F) {
	for i, s := range taskMarshalSeeds {
		f.Add(s, s, extRawSeeds[i%len(extRawSeeds)], int64(i*1000), uint8(i))
	}
	f.Fuzz(func(t *testing.T, id, other, raw string, ttl int64, shape uint8) {
		task := Task{TaskID: id, Status: TaskStatus(other), CreatedAt: other, LastUpdatedAt: id}
		if shape&1 != 0 {
			task.StatusMessage = other
		}
		if shape&2 != 0 {
			task.TTL = &ttl
		}
		if shape&4 != 0 {
			task.PollInterval = &ttl
		}
		var meta Meta
		if shape&8 != 0 {
			meta = Meta{other: raw}
		}
		checkExtTaskMarshal(t, task, meta, raw)
	})
}

func FuzzResultMarshal(f *testing.F) {
	for i, s := range taskMarshalSeeds {
		f.Add(s, s, s, int64(i*1000), int64(-i), uint8(i))
	}
	f.Fuzz(func(t *testing.T, id, status, other string, ttl, poll int64, shape uint8) {
		task := Task{TaskID: id, Status: TaskStatus(status), CreatedAt: other, LastUpdatedAt: id}
		if shape&1 != 0 {
			task.StatusMessage = other
		}
		if shape&2 != 0 {
			task.TTL = &ttl
		}
		if shape&4 != 0 {
			task.PollInterval = &poll
		}
		var meta Meta
		if shape&8 != 0 {
			meta = Meta{other: status}
		}
		checkTaskMarshal(t, task, meta)
	})
}
