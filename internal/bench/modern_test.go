package bench

import (
	"context"
	"testing"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/scripted"
	"github.com/mcpi-dev/mcpi/mcp"
)

// BenchmarkModernTask is the 2026-07-28 task round trip of mcpi's client: a tools/call
// the server answers with a task that is already complete, then the tasks/get that
// inlines its result; beside it the same session's server/discover, the one-exchange
// request of that era (it has no ping). The server is internal/scripted, which answers
// from memory: no server implements the Tasks extension yet (the demo server gets it in
// issue 14), so this measures the client's path, not a server's. Compare the two
// sub-benchmarks of one transport, from one run.
func BenchmarkModernTask(b *testing.B) {
	for _, tr := range []string{Pipe, HTTP} {
		f := scripted.New(b)
		f.Answer(mcp.MethodToolsList, `{"resultType":"complete","tools":[{"name":"instant","inputSchema":{"type":"object"}}]}`)
		f.Answer(mcp.MethodToolsCall, string(scripted.TaskJSON("task", "t1", mcp.TaskStatusCompleted, 1000, "")))
		f.Answer(mcp.MethodTasksGet, string(scripted.TaskJSON("complete", "t1", mcp.TaskStatusCompleted, 1000, scripted.ResultDone)))
		ctx := context.Background()
		var s *client.Session
		if tr == HTTP {
			s = f.ConnectHTTP(ctx, nil)
		} else {
			s = f.MustConnect(ctx, nil)
		}
		p := &mcp.CallToolParams{Name: "instant"}
		b.Run(tr+"/task", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				t, err := s.StartToolTask(ctx, p, nil)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := t.Wait(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(tr+"/discover", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := s.Ping(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
		s.Close()
	}
}
