package bench

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/mcp"
)

// The test binary doubles as the stdio benchmark server: with this variable set it
// serves instead of testing, so that the stdio benchmarks need no separate build.
const serveEnv = "MCPI_BENCH_SERVE"

func TestMain(m *testing.M) {
	if mode := os.Getenv(serveEnv); mode != "" {
		_ = ServeStdio(context.Background(), ServerOptions{DropStatus: mode == "nostatus"})
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// target returns how to reach a benchmark server over tr, and a function that stops
// what was started for it.
func target(tb testing.TB, tr string, o ServerOptions) Target {
	tb.Helper()
	switch tr {
	case Pipe:
		return Target{Transport: Pipe, Server: o}
	case Stdio:
		mode := "status"
		if o.DropStatus {
			mode = "nostatus"
		}
		return Target{Transport: Stdio, Command: []string{os.Args[0]}, Env: []string{serveEnv + "=" + mode}}
	case HTTP:
		hs, err := StartHTTP("127.0.0.1:0", o)
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { hs.Close() })
		return Target{Transport: HTTP, URL: hs.URL}
	}
	tb.Fatalf("unknown transport %q", tr)
	return Target{}
}

func connect(tb testing.TB, t Target) *client.Session {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := Connect(ctx, t, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

var transports = []string{Pipe, Stdio, HTTP}

// benchRoundTrip runs one latency workload over every transport. Each op is bounded by a
// timeout, and b.N by -benchtime.
func benchRoundTrip(b *testing.B, workload string) {
	for _, tr := range transports {
		b.Run(tr, func(b *testing.B) {
			s := connect(b, target(b, tr, ServerOptions{}))
			op, err := WorkloadOp(s, workload)
			if err != nil {
				b.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			if _, err := RoundTrips(ctx, 50, op); err != nil { // warm-up
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if err := op(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPing is the ping round trip: the floor of any request.
func BenchmarkPing(b *testing.B) { benchRoundTrip(b, "ping") }

// BenchmarkCall is a plain tools/call round trip (echo).
func BenchmarkCall(b *testing.B) { benchRoundTrip(b, "call") }

// BenchmarkTask is a task round trip: instant_task called as a task, through to its
// result.
func BenchmarkTask(b *testing.B) { benchRoundTrip(b, "task") }

// BenchmarkBurst is the throughput workload without the task's own time: 1,000
// sleep_task {seconds: 0} launched at once as tasks on one session, each through to its
// result (ns/op is one whole burst; tasks/s is reported too).
func BenchmarkBurst(b *testing.B) {
	for _, tr := range transports {
		b.Run(tr, func(b *testing.B) {
			s := connect(b, target(b, tr, ServerOptions{}))
			const c = 1000
			b.ReportAllocs()
			for b.Loop() {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // per burst
				r, err := Burst(ctx, s, c, 0)
				cancel()
				if err != nil {
					b.Fatal(err)
				}
				if r.OK != c {
					b.Fatalf("%d of %d tasks ended with a result: %s", r.OK, c, r.FirstError)
				}
			}
			b.ReportMetric(float64(c*b.N)/b.Elapsed().Seconds(), "tasks/s")
		})
	}
}

// BenchmarkReceiverGet times the server's tasks/get of a client's receiver task with
// 10,000 tasks pending (ns/op is one tasks/get, over 2,000 of them whatever b.N), and
// reports the heap per pending task and the heap after all expired over the baseline.
func BenchmarkReceiverGet(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	r, err := Receiver(ctx, ReceiverOptions{Tasks: 10000, TTL: 3 * time.Second, Gets: 2000})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(r.GetUs*1000, "ns/op")
	b.ReportMetric(r.HeapPerTaskBytes, "heapB/task")
	b.ReportMetric(r.AfterRatio, "after/baseline")
}

// TestSmoke runs every workload once at a tiny size, so that `go test ./internal/bench/...`
// checks that the benchmarks work without spending a benchmark's time.
func TestSmoke(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			s := connect(t, target(t, tr, ServerOptions{}))
			for _, w := range []string{"ping", "call", "call2", "task"} {
				op, err := WorkloadOp(s, w)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := RoundTrips(ctx, 3, op); err != nil {
					t.Fatalf("%s: %v", w, err)
				}
			}
		})
	}
	for _, drop := range []bool{false, true} {
		t.Run(fmt.Sprintf("burst/dropStatus=%v", drop), func(t *testing.T) {
			s := connect(t, target(t, Stdio, ServerOptions{DropStatus: drop}))
			r, err := Burst(ctx, s, 5, 0)
			if err != nil {
				t.Fatal(err)
			}
			if r.OK != 5 || r.TasksResult < 5 || r.ServerMaxRssKiB <= 0 {
				t.Fatalf("burst = %+v", r)
			}
		})
	}
	// The burst over Streamable HTTP in both eras, the server deciding in 2026-07-28
	// (sleep_ext_task is always a task there).
	for _, era := range []string{"", mcp.ProtocolVersion20260728} {
		t.Run("burst/http/"+cmp.Or(era, mcp.LatestProtocolVersion), func(t *testing.T) {
			tg := target(t, HTTP, ServerOptions{})
			tg.Era = era
			s := connect(t, tg)
			if s.Modern() != (era != "") {
				t.Fatalf("connected at %s", s.ProtocolVersion())
			}
			const c = 20
			r, err := Burst(ctx, s, c, 0.01)
			if err != nil {
				t.Fatal(err)
			}
			if r.OK != c {
				t.Fatalf("%d of %d tasks ended with a result: %s", r.OK, c, r.FirstError)
			}
			if !s.Modern() && r.TasksResult < c {
				t.Fatalf("burst = %+v: a tasks/result per task expected", r)
			}
		})
	}
	t.Run("receiver", func(t *testing.T) {
		// The ttl must outlast the tasks' creation and the heap's settling on a loaded
		// machine (at 300 ms a tasks/get found a task expired under load).
		r, err := Receiver(ctx, ReceiverOptions{Tasks: 50, TTL: 2 * time.Second, Gets: 10})
		if err != nil {
			t.Fatal(err)
		}
		if r.HeapPerTaskBytes <= 0 || r.GetUs <= 0 || r.GoroutinesAfter > r.BaselineGoroutine+10 {
			t.Fatalf("receiver = %+v", r)
		}
	})
	t.Run("coldstart", func(t *testing.T) {
		// The test binary as a one-shot stdio server that exits when its input ends.
		cmd := []string{"/bin/sh", "-c", "echo | " + shellQuote(os.Args[0])}
		r, err := RunMeasured(ctx, cmd, append(os.Environ(), serveEnv+"=status"))
		if err != nil {
			t.Fatal(err)
		}
		if r.Wall <= 0 || r.MaxRSSKiB <= 0 {
			t.Fatalf("cold start = %+v", r)
		}
	})
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
