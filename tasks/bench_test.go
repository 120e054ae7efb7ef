package tasks

import (
	"context"
	"encoding/json"
	"runtime"
	"testing"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

func BenchmarkWithRelatedTaskMeta(b *testing.B) {
	const id = "6b0869bdf0eef31efc8c89e8022f384b"
	for _, c := range []struct {
		name   string
		result string
	}{
		{"insert", `{"content":[{"type":"text","text":"done"}]}`},
		{"merge", `{"content":[{"type":"text","text":"done"}],"_meta":{"progressToken":7}}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			raw := json.RawMessage(c.result)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := WithRelatedTaskMeta(raw, id); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkTaskRoundTrip is the engine's share of a task round trip: create, run to
// completion, announce, and hand out the result.
func BenchmarkTaskRoundTrip(b *testing.B) {
	done := make(chan struct{}, 1)
	m := New(Options{MaxActive: 1 << 20, OnChange: func(string, mcp.Task) {
		select {
		case done <- struct{}{}:
		default:
		}
	}})
	defer m.Close()
	// Encoding the result, as a tool task does, grows the stack of the goroutine that runs
	// the work.
	run := func(ctx context.Context, h *Handle) Outcome {
		raw, err := json.Marshal(&mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("done")}})
		if err != nil {
			return Outcome{Error: jsonrpc.NewError(jsonrpc.CodeInternalError, err.Error())}
		}
		return Outcome{Result: raw}
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		t, err := m.Create("owner", &mcp.TaskMetadata{}, run)
		if err != nil {
			b.Fatal(err)
		}
		<-done
		if _, err := m.Result(ctx, "owner", t.TaskID, jsonrpc.Int64ID(1)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCreateAtCapacity is a task created and finished by an owner that keeps as
// many tasks as it may: each new one evicts the oldest terminal one, as on a server
// that has run for a while.
func BenchmarkCreateAtCapacity(b *testing.B) {
	m := New(Options{MaxActive: 1 << 20})
	defer m.Close()
	spin := func() {
		h, err := m.Defer("owner", &mcp.TaskMetadata{}, nil)
		if err != nil {
			b.Fatal(err)
		}
		h.Finish(Outcome{Result: json.RawMessage(`{}`)})
	}
	for range 2000 { // past MaxKept (1000)
		spin()
	}
	b.ReportAllocs()
	for b.Loop() {
		spin()
	}
}

// BenchmarkKeptTask reports what an ended task costs while the engine keeps it (up to
// MaxKept an owner, until its TTL): the live heap and objects per task, which every
// collection traces, in each dialect.
func BenchmarkKeptTask(b *testing.B) {
	for name, d := range map[string]Dialect{"2025-11-25": DialectCore, "2026-07-28": DialectExtension} {
		b.Run(name, func(b *testing.B) {
			const kept = 1000
			var bytes, objects uint64
			for b.Loop() {
				m := New(Options{MaxActive: kept, MaxKept: kept})
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				for range kept {
					h, err := m.DeferIn(d, "owner", &mcp.TaskMetadata{}, nil)
					if err != nil {
						b.Fatal(err)
					}
					h.Finish(Outcome{Result: json.RawMessage(`{"content":[{"type":"text","text":"done"}]}`)})
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				runtime.KeepAlive(m)
				bytes += after.HeapAlloc - before.HeapAlloc
				objects += after.HeapObjects - before.HeapObjects
				m.Close()
			}
			b.ReportMetric(float64(bytes)/float64(b.N*kept), "B/task")
			b.ReportMetric(float64(objects)/float64(b.N*kept), "objects/task")
		})
	}
}
