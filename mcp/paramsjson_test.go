package mcp

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpi-dev/mcpi/internal/jsonwire"
	"github.com/mcpi-dev/mcpi/internal/jsonwire/jsonwiretest"
)

var paramsSeeds = []string{
	`{"name":"instant_task","task":{}}`,
	`{"name":"echo","arguments":{"text":"hello"}}`,
	` { "name" : "x" , "arguments" : [ 1, {"a" : null} ] , "task" : { "ttl" : 60000 } , "_meta" : { "progressToken" : 7 } } `,
	`{"name":"x","arguments":null,"task":null,"_meta":null}`,
	`{"name":"x","arguments":"s","task":{"ttl":null}}`,
	`{"name":"x","arguments":-1.5e3}`,
	`{"name":"x","arguments":true}`,
	`{"name":"x","task":{"ttl":5},"task":{}}`,
	`{"name":"x","task":{"ttl":5},"task":{"ttl":null}}`,
	`{"name":"x","task":{"ttl":5},"task":null}`,
	`{"name":"a","name":"b","arguments":{},"arguments":[]}`,
	`{"name":"x","task":{"ttl":1.5}}`,
	`{"name":"x","task":{"ttl":1e3}}`,
	`{"name":"x","task":{"ttl":-0}}`,
	`{"name":"x","task":{"ttl":9223372036854775808}}`,
	`{"name":"x","task":{"ttl":"5"}}`,
	`{"name":"x","task":{"TTL":5}}`,
	`{"name":"x","task":{"other":5}}`,
	`{"name":"x","task":[]}`,
	`{"name":"x","task":5}`,
	`{"Name":"x"}`,
	`{"NAME":"x","TaskId":"t"}`,
	`{"n\u0061me":"x","task\u0049d":"t"}`,
	`{"name":null,"taskId":null}`,
	`{"name":5}`,
	`{"name":"\ud800 \u00e9 \"q\" \\","taskId":"\ud83d\ude00"}`,
	"{\"name\":\"bad \xff utf8\",\"taskId\":\"\xed\xa0\x80\"}",
	`{"extra":1}`,
	`{"name":"x","arguments":{"deep":[[[[{"a":"b"}]]]]}}`,
	`{"name":"x","arguments":{"bad":tru}}`,
	`{"name":"x","arguments":{"bad":"\x"}}`,
	`{"name":"x","arguments":{"bad":01}}`,
	`{"name":"x","arguments":{"a":1,}}`,
	`{"name":"x","arguments":[1,]}`,
	`{"name":"x","arguments":{"a"}}`,
	`{"name":"x","_meta":[1]}`,
	`{"name":"x","_meta":"m"}`,
	`{"taskId":"6b0869bdf0eef31efc8c89e8022f384b"}`,
	`{"taskId":"t","_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t"}}}`,
	`{"taskId":"t","_meta":{}}`,
	`{"taskId":5}`,
	`{"taskId":"t","_meta":5}`,
	`{"taskId":"t"} `,
	`{"taskId":"t"}x`,
	`{"taskId":"t"}{}`,
	`{}`,
	` {} `,
	`null`,
	`[]`,
	`"s"`,
	`1`,
	``,
	`{`,
	`{"taskId"`,
	`{"taskId":`,
	`{"taskId":"t"`,
	`{"taskId":"t",}`,
	"{\"name\":\"x\",\"arguments\":\"tab\there\"}",
	strings.Repeat(`{"name":"x","arguments":`, 1) + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`,
	// subscriptions/listen and its acknowledgement.
	`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"notifications":{"taskIds":["6b0869bdf0eef31efc8c89e8022f384b"]}}`,
	`{"notifications":{"taskIds":["a","b"]},"_meta":{"io.modelcontextprotocol/subscriptionId":12}}`,
	` { "notifications" : { "toolsListChanged" : true , "promptsListChanged" : false , "resourcesListChanged" : true , "resourceSubscriptions" : [ "file:///a" , "\u00e9" ] , "taskIds" : [ ] } } `,
	`{"notifications":{}}`,
	`{"notifications":null}`,
	`{"notifications":[]}`,
	`{"notifications":{"taskIds":null}}`,
	`{"notifications":{"taskIds":[null]}}`,
	`{"notifications":{"taskIds":[1]}}`,
	`{"notifications":{"taskIds":["a",]}}`,
	`{"notifications":{"taskIds":["a"] "x":1}}`,
	`{"notifications":{"taskIds":"a"}}`,
	`{"notifications":{"taskIds":["a"],"taskIds":["b"]}}`,
	`{"notifications":{"TaskIds":["a"]}}`,
	`{"notifications":{"task_ids":["a"]}}`,
	`{"notifications":{"toolsListChanged":null}}`,
	`{"notifications":{"toolsListChanged":1}}`,
	`{"notifications":{"toolsListChanged":"true"}}`,
	`{"notifications":{"other":{"a":[1]},"toolsListChanged":true}}`,
	`{"notifications":{"taskIds":["a"]},"notifications":{"toolsListChanged":true}}`,
	`{"Notifications":{"taskIds":["a"]}}`,
	`{"notifications":{"taskIds":["a"]},"_meta":[]}`,
	`{"notifications":{"taskIds":["a"]},"other":1}`,
	`{"notifications":{"taskIds":["a"]}`,
	`{"notifications":{"taskIds":["a"`,
}

// checkParams holds the params decoders to encoding/json for each params type, into a
// zero value and into one already holding values: through json.Unmarshal, and with
// UnmarshalJSON called directly, as the JSON-RPC layer and the server call it.
func checkParams(t *testing.T, data []byte) {
	t.Helper()
	ttl := int64(9)
	for _, mk := range []func() any{
		func() any { return new(CallToolParams) },
		func() any { return new(GetTaskParams) },
		func() any { return new(TaskResultParams) },
		func() any { return new(CancelTaskParams) },
		func() any {
			return &CallToolParams{Name: "old", Arguments: json.RawMessage(`{"old":1}`), Task: &TaskMetadata{TTL: &ttl}, Meta: Meta{"old": true}}
		},
		func() any { return &TaskResultParams{TaskID: "old", Meta: Meta{"old": true}} },
		func() any { return new(ListenParams) },
		func() any { return new(ListenAcknowledgedParams) },
		func() any {
			return &ListenParams{Notifications: ListenFilter{ToolsListChanged: true, TaskIDs: []string{"old"}}, Meta: Meta{"old": true}}
		},
		func() any {
			return &ListenAcknowledgedParams{Notifications: ListenFilter{ResourceSubscriptions: []string{"old", "older"}}}
		},
	} {
		checkDecode(t, data, mk)
	}
}

// checkDecode holds json.Unmarshal and a direct UnmarshalJSON to the reference, for the
// values mk makes.
func checkDecode(t *testing.T, data []byte, mk func() any) {
	t.Helper()
	want := mk()
	wantErr := refUnmarshal(data, want)
	got := mk()
	gotErr := json.Unmarshal(data, got)
	if errString(gotErr) != errString(wantErr) {
		t.Fatalf("json.Unmarshal(%q, %T): error %v, want %v", data, got, gotErr, wantErr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("json.Unmarshal(%q, %T) = %#v\nwant %#v", data, got, got, want)
	}
	got = mk()
	gotErr = got.(json.Unmarshaler).UnmarshalJSON(data)
	if errString(gotErr) != errString(wantErr) {
		t.Fatalf("%T.UnmarshalJSON(%q): error %v, want %v", got, data, gotErr, wantErr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%T.UnmarshalJSON(%q) = %#v\nwant %#v", got, data, got, want)
	}
}

func TestParamsUnmarshalMatchesEncodingJSON(t *testing.T) {
	for _, s := range paramsSeeds {
		checkParams(t, []byte(s))
	}
}

// TestParamsUnmarshalFastPath: the usual shapes are decoded without encoding/json.
func TestParamsUnmarshalFastPath(t *testing.T) {
	for _, s := range []string{
		`{"name":"instant_task","task":{}}`,
		`{"name":"echo","arguments":{"text":"hello"},"_meta":{"progressToken":1}}`,
		`{"name":"x","task":{"ttl":60000}}`,
	} {
		var p CallToolParams
		if !decodeCallToolParams([]byte(s), &p) {
			t.Errorf("%s: not decoded directly", s)
		}
	}
	for _, s := range []string{`{"taskId":"t"}`, `{"taskId":"t","_meta":{"a":[1]}}`, `{}`} {
		var p TaskResultParams
		if !decodeTaskIDParams([]byte(s), &p.TaskID, &p.Meta) {
			t.Errorf("%s: not decoded directly", s)
		}
	}
	for _, s := range []string{
		`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"notifications":{"taskIds":["t"]}}`,
		`{"notifications":{"toolsListChanged":true,"promptsListChanged":false,"resourcesListChanged":true,"resourceSubscriptions":["a"],"taskIds":[]},"other":[1]}`,
		`{"notifications":{}}`,
	} {
		var p ListenParams
		if !decodeListen([]byte(s), &p.Notifications, &p.Meta) {
			t.Errorf("%s: not decoded directly", s)
		}
	}
}

func FuzzParamsUnmarshal(f *testing.F) {
	for _, s := range paramsSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParams(t, data)
	})
}

// checkMarshal holds v's MarshalJSON to the reference, errors included; and what the
// JSON-RPC layer writes (jsonwire.Marshal) and json.Marshal too. direct requires the
// hand-written encoder to take v.
func checkMarshal(t *testing.T, v any, direct bool) {
	t.Helper()
	want, wantErr := refMarshal(v)
	if rv := reflect.ValueOf(v); rv.Kind() != reflect.Pointer || !rv.IsNil() {
		got, gotErr := v.(json.Marshaler).MarshalJSON()
		if errString(gotErr) != errString(wantErr) || !bytes.Equal(got, want) {
			t.Fatalf("%T.MarshalJSON(%#v) = %s, %v\nwant %s, %v", v, v, got, gotErr, want, wantErr)
		}
	}
	got, gotErr := jsonwire.Marshal(v)
	if (gotErr == nil) != (wantErr == nil) || !bytes.Equal(got, want) {
		t.Fatalf("jsonwire.Marshal(%#v) = %s, %v\nwant %s, %v", v, got, gotErr, want, wantErr)
	}
	if wantErr == nil {
		// json.Marshal escapes HTML as it always did.
		var buf bytes.Buffer
		json.HTMLEscape(&buf, want)
		if got, err := json.Marshal(v); err != nil || !bytes.Equal(got, buf.Bytes()) {
			t.Fatalf("json.Marshal(%#v) = %s, %v\nwant %s", v, got, err, buf.Bytes())
		}
	}
	if !direct {
		return
	}
	var b []byte
	var err error
	switch p := v.(type) {
	case *CallToolParams:
		b, err = p.appendJSON(nil)
	case *TaskResultParams:
		b, err = appendTaskIDParams(nil, p.TaskID, p.Meta)
	}
	if err != nil || !bytes.Equal(b, want) {
		t.Fatalf("direct encoding of %#v = %s, %v; want %s", v, b, err, want)
	}
}

func TestParamsMarshal(t *testing.T) {
	ttl := int64(60000)
	neg := int64(-1)
	for _, p := range []*CallToolParams{
		{Name: "instant_task", Task: &TaskMetadata{}},
		{Name: "echo", Arguments: json.RawMessage(` { "text" : "<b>&</b>" } `), Task: &TaskMetadata{TTL: &ttl}},
		{Name: "x", Task: &TaskMetadata{TTL: &neg}, Meta: Meta{"progressToken": "mcpi-1", "html": "<i>"}},
		{Name: "ünï\u2028\"q\"\\\x01", Arguments: json.RawMessage(`[1,2,{"a":null}]`)},
		{Name: "bad \xff utf8", Meta: Meta{}},
		{},
	} {
		checkMarshal(t, p, true)
	}
	// What the direct path does not take goes to encoding/json, errors included.
	for _, v := range []any{
		&CallToolParams{Name: "x", Arguments: json.RawMessage(`{"bad":tru}`)},
		&CallToolParams{Name: "x", Meta: Meta{"c": make(chan int)}},
		(*CallToolParams)(nil),
		&GetTaskParams{TaskID: "t", Meta: Meta{"f": func() {}}},
		CallToolParams{Name: "<value>", Arguments: json.RawMessage(` [ ] `)},
		CancelTaskParams{TaskID: "t", Meta: Meta{"n": json.Number("1")}},
	} {
		checkMarshal(t, v, false)
	}
	for _, f := range []ListenFilter{
		{},
		{TaskIDs: []string{"6b0869bdf0eef31efc8c89e8022f384b"}},
		{ToolsListChanged: true, PromptsListChanged: true, ResourcesListChanged: true, ResourceSubscriptions: []string{"file:///<a>", "\u2028 \xff"}, TaskIDs: []string{"a", "b"}},
		{PromptsListChanged: true, ResourceSubscriptions: []string{}, TaskIDs: []string{""}},
	} {
		for _, meta := range []Meta{nil, {}, {MetaSubscriptionID: 7}, {"c": make(chan int)}} {
			checkMarshal(t, ListenParams{f, meta}, false)
			checkMarshal(t, &ListenAcknowledgedParams{f, meta}, false)
		}
	}
	checkMarshal(t, (*ListenParams)(nil), false)
	for _, id := range []string{"", "t-1", "<&>", "\xed\xa0\x80"} {
		checkMarshal(t, &TaskResultParams{TaskID: id}, true)
		checkMarshal(t, &GetTaskParams{TaskID: id, Meta: Meta{"k": []any{1, "v"}}}, false)
		checkMarshal(t, &CancelTaskParams{TaskID: id}, false)
	}
}

func FuzzParamsMarshal(f *testing.F) {
	f.Add("echo", []byte(`{"text":"hi"}`), int64(5), uint8(3), "k", "v")
	f.Add("<x>", []byte(` [1, 2] `), int64(-1), uint8(7), "progressToken", "\u2028")
	f.Add("x", []byte(`{"a":`), int64(0), uint8(0), "", "")
	f.Fuzz(func(t *testing.T, name string, args []byte, ttl int64, shape uint8, key, val string) {
		p := &CallToolParams{Name: name, Arguments: args}
		if shape&1 != 0 {
			p.Task = &TaskMetadata{}
			if shape&2 != 0 {
				p.Task.TTL = &ttl
			}
		}
		if shape&4 != 0 {
			p.Meta = Meta{key: val}
		}
		checkMarshal(t, p, false)
		checkMarshal(t, &TaskResultParams{TaskID: name, Meta: p.Meta}, false)
		f := ListenFilter{ToolsListChanged: shape&8 != 0, PromptsListChanged: shape&16 != 0, ResourcesListChanged: shape&32 != 0}
		if shape&64 != 0 {
			f.ResourceSubscriptions = []string{key, val}
		}
		if shape&128 != 0 {
			f.TaskIDs = []string{name}
		}
		checkMarshal(t, ListenParams{f, p.Meta}, false)
		checkMarshal(t, ListenAcknowledgedParams{f, p.Meta}, false)
	})
}

// TestAppendMeta: a _meta of one scalar, written directly, and any other, written by
// encoding/json, are what encoding/json writes.
func TestAppendMeta(t *testing.T) {
	for _, m := range []Meta{
		{MetaSubscriptionID: int64(12)}, {MetaSubscriptionID: "sub-<1>"}, {"progressToken": 7}, {"k": -1},
		{"k": true}, {"k": false}, {"k": nil}, {"\u2028 \xff \"q\"": "\x00 \xed\xa0\x80 </script>"}, {"": ""},
		{"k": 1.5}, {"k": json.Number("12")}, {"k": uint8(1)}, {"k": []any{1}}, {"k": map[string]any{"a": nil}},
		{"b": 1, "a": "x"}, {"k": make(chan int)},
	} {
		want, wantErr := jsonwiretest.Marshal(map[string]any(m))
		got, err := appendMeta([]byte(`{"x":1`), m)
		if (err == nil) != (wantErr == nil) {
			t.Errorf("appendMeta(%#v): error %v, want %v", m, err, wantErr)
			continue
		}
		if err == nil && string(got) != `{"x":1,"_meta":`+string(want)+`}` {
			t.Errorf("appendMeta(%#v) = %s, want the member %s", m, got, want)
		}
	}
	if got, err := appendMeta([]byte(`{"x":1`), Meta{}); err != nil || string(got) != `{"x":1}` {
		t.Errorf("empty: %s, %v", got, err)
	}
}
