package mcp

import (
	"encoding/json"
	"testing"

	"github.com/mcpi-dev/mcpi/internal/jsonwire"
)

// The hot paths of a task round trip: the _meta of a tasks/result result, and the
// tool result the server stores and returns.

var (
	benchMetaJSON  = []byte(`{"io.modelcontextprotocol/related-task":{"taskId":"6b0869bdf0eef31efc8c89e8022f384b"}}`)
	benchMetaMixed = []byte(`{"progressToken":42,"io.modelcontextprotocol/related-task":{"taskId":"6b08"},` +
		`"tags":["a","b\n",true,null,-1.5e3],"nested":{"x":{"y":[{}]}}}`)
	benchResultJSON = []byte(`{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"6b0869bdf0eef31efc8c89e8022f384b"}},"content":[{"type":"text","text":"done"}]}`)
)

func BenchmarkMetaUnmarshal(b *testing.B) {
	for _, c := range []struct {
		name string
		data []byte
	}{{"related", benchMetaJSON}, {"mixed", benchMetaMixed}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var m Meta
				if err := m.UnmarshalJSON(c.data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCallToolResultUnmarshal is the requestor's decode of a tasks/result result.
func BenchmarkCallToolResultUnmarshal(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		var r CallToolResult
		if err := json.Unmarshal(benchResultJSON, &r); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCallToolResultMarshal(b *testing.B) {
	r := &CallToolResult{Content: []Content{TextContent("done")}}
	b.Run("direct", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := r.MarshalJSON(); err != nil {
				b.Fatal(err)
			}
		}
	})
	// As the JSON-RPC layer encodes a result: MarshalJSON called directly, its output
	// checked.
	b.Run("jsonrpc", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := jsonwire.Marshal(r); err != nil {
				b.Fatal(err)
			}
		}
	})
	// As a user of encoding/json encodes it: encoding/json checks, compacts and escapes
	// MarshalJSON's output again.
	b.Run("json.Marshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(r); err != nil {
				b.Fatal(err)
			}
		}
	})
}

var benchStatus = &TaskStatusNotificationParams{Task: Task{TaskID: "6b0869bdf0eef31efc8c89e8022f384b", Status: TaskStatusCompleted,
	CreatedAt: "2026-11-22T03:52:35.475198281Z", LastUpdatedAt: "2026-11-22T03:52:35.47527423Z", TTL: ptr(int64(3600000)), PollInterval: ptr(int64(1000))}}

// BenchmarkTaskStatusNotificationMarshal encodes a status notification with json.Marshal,
// as a user of encoding/json would.
func BenchmarkTaskStatusNotificationMarshal(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(benchStatus); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTaskStatusNotificationEncode encodes a status notification as the JSON-RPC
// layer does.
func BenchmarkTaskStatusNotificationEncode(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := jsonwire.Marshal(benchStatus); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParamsUnmarshal(b *testing.B) {
	b.Run("TaskResultParams", func(b *testing.B) {
		data := []byte(`{"taskId":"6b0869bdf0eef31efc8c89e8022f384b"}`)
		b.ReportAllocs()
		for b.Loop() {
			var p TaskResultParams
			if err := json.Unmarshal(data, &p); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("CallToolParams", func(b *testing.B) {
		data := []byte(`{"name":"instant_task","task":{}}`)
		b.ReportAllocs()
		for b.Loop() {
			var p CallToolParams
			if err := json.Unmarshal(data, &p); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkUnmarshalParams(b *testing.B) {
	b.Run("TaskResultParams", func(b *testing.B) {
		data := []byte(`{"taskId":"6b0869bdf0eef31efc8c89e8022f384b"}`)
		b.ReportAllocs()
		for b.Loop() {
			var p TaskResultParams
			if err := p.UnmarshalJSON(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("CallToolParams", func(b *testing.B) {
		data := []byte(`{"name":"instant_task","task":{}}`)
		b.ReportAllocs()
		for b.Loop() {
			var p CallToolParams
			if err := p.UnmarshalJSON(data); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkListenCodecs compares the codecs of a task's subscriptions/listen and its
// acknowledgement with encoding/json on the types without them.
func BenchmarkListenCodecs(b *testing.B) {
	params := []byte(`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"notifications":{"taskIds":["6b0869bdf0eef31efc8c89e8022f384b"]}}`)
	ack := ListenAcknowledgedParams{Notifications: ListenFilter{TaskIDs: []string{"6b0869bdf0eef31efc8c89e8022f384b"}}, Meta: Meta{MetaSubscriptionID: 2}}
	for _, dec := range []struct {
		name string
		f    func([]byte, any) error
	}{{"UnmarshalJSON", unmarshalDirect}, {"reference", refUnmarshal}} {
		b.Run("ListenParams/"+dec.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := dec.f(params, new(ListenParams)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	for _, enc := range []struct {
		name string
		f    func(any) ([]byte, error)
	}{{"MarshalJSON", func(v any) ([]byte, error) { return v.(json.Marshaler).MarshalJSON() }}, {"reference", refMarshal}} {
		b.Run("ListenAcknowledgedParams/"+enc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := enc.f(ack); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
