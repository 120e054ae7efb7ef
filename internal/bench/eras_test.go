package bench

import (
	"context"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/mcp"
)

// BenchmarkTaskEras is the task round trip in both eras against the one demo server: in
// 2025-11-25 a tools/call with params.task, then tasks/result; in 2026-07-28 a tools/call
// the server makes a task of, then the result inlined in the notifications/tasks of the
// task's subscriptions/listen (or in a tasks/get, for a server with no listen). Each is reported
// with the 2025-11-25 ping of the same transport, measured alternately in the same loop
// (2026-07-28 has no ping), so the ratios compare like with like.
func BenchmarkTaskEras(b *testing.B) {
	const rounds = 300
	for _, tr := range transports {
		b.Run(tr, func(b *testing.B) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			t := target(b, tr, ServerOptions{})
			old := connect(b, t)
			t.Era = mcp.ProtocolVersion20260728
			modern := connect(b, t)
			if !modern.Modern() || old.Modern() {
				b.Fatalf("eras: %v and %v", old.Modern(), modern.Modern())
			}
			ops := []Op{PingOp(old), TaskOp(old), TaskOp(modern)}
			for _, op := range ops {
				if _, err := RoundTrips(ctx, 50, op); err != nil { // warm-up
					b.Fatal(err)
				}
			}
			for b.Loop() {
				var sum [3]time.Duration
				for range rounds {
					for i, op := range ops {
						t0 := time.Now()
						if err := op(ctx); err != nil {
							b.Fatal(err)
						}
						sum[i] += time.Since(t0)
					}
				}
				ping := float64(sum[0]) / rounds
				b.ReportMetric(ping/1e3, "ping-µs")
				b.ReportMetric(float64(sum[1])/rounds/1e3, "task2025-µs")
				b.ReportMetric(float64(sum[2])/rounds/1e3, "task2026-µs")
				b.ReportMetric(float64(sum[1])/rounds/ping, "task2025/ping")
				b.ReportMetric(float64(sum[2])/rounds/ping, "task2026/ping")
			}
		})
	}
}
