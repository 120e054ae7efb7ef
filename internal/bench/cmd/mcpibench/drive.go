package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"syscall"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/bench"
	"github.com/mcpi-dev/mcpi/mcp"
)

// DriveOutput is what a driver (mcpi's, or a peer's) prints: one JSON object.
type DriveOutput struct {
	Client    string    `json:"client"`
	Version   string    `json:"version,omitempty"`
	Node      string    `json:"node,omitempty"`
	Workload  string    `json:"workload"`
	Transport string    `json:"transport"`
	N         int       `json:"n,omitempty"`
	PerOpUs   []float64 `json:"perOpUs,omitempty"`
	// CPUUsPerOp is the driver's own CPU time (user+system) per round trip, per pass:
	// over a pipe, client and server together.
	CPUUsPerOp []float64 `json:"cpuUsPerOp,omitempty"`
	// The ratio workload: per pass, the mean task and ping round trips, timed in
	// alternating blocks on one session so that both see the same machine.
	TaskUs    []float64             `json:"taskUs,omitempty"`
	PingUs    []float64             `json:"pingUs,omitempty"`
	MaxRssKiB int64                 `json:"maxRssKiB"`
	Burst     *bench.BurstResult    `json:"burst,omitempty"`
	Receiver  *bench.ReceiverResult `json:"receiver,omitempty"`
	Error     string                `json:"error,omitempty"`
}

// serveMain is `mcpibench serve [-http ADDR] [-no-status]` (and profiles): the
// benchmark server (the demo server with room for a 1,000-task burst) over stdio, or
// over Streamable HTTP on a loopback address, whose URL it prints on stdout.
func serveMain(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ExitOnError)
	addr := fs.String("http", "", "serve Streamable HTTP at `ADDR` (loopback only; port 0 picks one) instead of stdio")
	noStatus := fs.Bool("no-status", false, "never send notifications/tasks/status")
	prof := fs.String("cpuprofile", "", "write a CPU profile to `FILE`")
	traceOut := fs.String("trace", "", "write an execution trace to `FILE`")
	heapProf := fs.String("heapprofile", "", "write the heap's profile (live and allocated) to `FILE` as it stops, once its sessions have ended")
	_ = fs.Parse(args)
	defer func() {
		if err := writeHeapProfile(*heapProf); err != nil {
			fmt.Fprintln(os.Stderr, "mcpibench serve:", err)
		}
	}()
	if stop, err := startProfile(*prof); err != nil {
		return err
	} else {
		defer stop()
	}
	if stop, err := startTrace(*traceOut); err != nil {
		return err
	} else {
		defer stop()
	}
	o := bench.ServerOptions{DropStatus: *noStatus}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *addr == "" {
		return bench.ServeStdio(ctx, o)
	}
	hs, err := bench.StartHTTP(*addr, o)
	if err != nil {
		return err
	}
	fmt.Println(hs.URL)
	<-ctx.Done()
	return hs.Close()
}

// driveMain is `mcpibench drive`: one workload with mcpi's client, as a process of its
// own so that its peak RSS is the client's.
func driveMain(args []string) error {
	fs := flag.NewFlagSet("drive", flag.ExitOnError)
	var (
		workload  = fs.String("workload", "ping", "ping, call, call2 (two calls), task, ratio (task and ping alternately), burst or receiver")
		ratioOf   = fs.String("ratio-of", "task", "ratio: the workload set against the ping (task; or a yardstick: call, one plain tools/call, or call2, two in a row)")
		transport = fs.String("transport", bench.Stdio, "pipe, stdio or http")
		server    = fs.String("server", "", "stdio server command line as a JSON array")
		url       = fs.String("url", "", "Streamable HTTP endpoint")
		era       = fs.String("era", "", "protocol version the client speaks: 2025-11-25 (empty) or 2026-07-28")
		noStatus  = fs.Bool("no-status", false, "pipe: the in-process server sends no status notifications")
		n         = fs.Int("n", 1000, "round trips per pass")
		warmup    = fs.Int("warmup", 100, "round trips before the first pass")
		passes    = fs.Int("passes", 5, "passes")
		repeat    = fs.Int("repeat", 1, "burst: bursts in a row on one session, for a profile (the figures are the last one's)")
		c         = fs.Int("c", 1000, "burst: concurrent tasks")
		seconds   = fs.Float64("seconds", 1, "burst: seconds each task sleeps")
		tasks     = fs.Int("tasks", 100000, "receiver: pending receiver tasks")
		ttl       = fs.Duration("ttl", 20*time.Second, "receiver: the tasks' ttl")
		gets      = fs.Int("gets", 2000, "receiver: tasks/get to time")
		timeout   = fs.Duration("timeout", 5*time.Minute, "bound on the whole run")
		prof      = fs.String("cpuprofile", "", "write a CPU profile of the measured passes to `FILE`")
		traceOut  = fs.String("trace", "", "write an execution trace of the measured passes of a latency workload to `FILE` (go tool trace; it counts the goroutine hand-offs)")
		heapProf  = fs.String("heapprofile", "", "receiver: write heap profiles to `FILE`.loaded and FILE.after; a latency workload: the heap after its passes (live and allocated) to FILE")
	)
	_ = fs.Parse(args)
	out := DriveOutput{Client: "mcpi", Workload: *workload, Transport: *transport, N: *n}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	err := func() error {
		if *workload == "receiver" {
			stop, err := startProfile(*prof)
			if err != nil {
				return err
			}
			defer stop()
			r, err := bench.Receiver(ctx, bench.ReceiverOptions{Tasks: *tasks, TTL: *ttl, Gets: *gets, HeapProfile: *heapProf})
			out.Receiver = r
			return err
		}
		t := bench.Target{Transport: *transport, URL: *url, Server: bench.ServerOptions{DropStatus: *noStatus}, Era: *era}
		if *server != "" {
			if err := json.Unmarshal([]byte(*server), &t.Command); err != nil {
				return fmt.Errorf("-server wants a JSON array: %w", err)
			}
		}
		s, err := bench.Connect(ctx, t, nil)
		if err != nil {
			return err
		}
		defer s.Close()
		if *era != "" && s.ProtocolVersion() != *era {
			return fmt.Errorf("asked for %s, connected at %s", *era, s.ProtocolVersion())
		}
		if *workload == "burst" {
			stop, err := startProfile(*prof)
			if err != nil {
				return err
			}
			defer stop()
			for range max(*repeat, 1) {
				r, err := bench.Burst(ctx, s, *c, *seconds)
				out.Burst = r
				if err != nil {
					return err
				}
			}
			return nil
		}
		if *workload == "ratio" {
			pinged := s
			if s.Modern() {
				// 2026-07-28 has no ping: the task round trip is set against the ping of
				// a 2025-11-25 session to the same server, taken in turn with it.
				t.Era = mcp.LatestProtocolVersion
				if pinged, err = bench.Connect(ctx, t, nil); err != nil {
					return fmt.Errorf("the 2025-11-25 session for the ping: %w", err)
				}
				defer pinged.Close()
			}
			op, err := bench.WorkloadOp(s, *ratioOf)
			if err != nil {
				return err
			}
			return ratio(ctx, op, pinged, &out, *n, *warmup, *passes)
		}
		op, err := bench.WorkloadOp(s, *workload)
		if err != nil {
			return err
		}
		if _, err := bench.RoundTrips(ctx, *warmup, op); err != nil {
			return fmt.Errorf("warm-up: %w", err)
		}
		stop, err := startProfile(*prof)
		if err != nil {
			return err
		}
		defer stop()
		stopTrace, err := startTrace(*traceOut)
		if err != nil {
			return err
		}
		defer stopTrace()
		for range *passes {
			cpu := bench.SelfCPU()
			d, err := bench.RoundTrips(ctx, *n, op)
			if err != nil {
				return err
			}
			out.PerOpUs = append(out.PerOpUs, float64(d)/float64(time.Microsecond))
			out.CPUUsPerOp = append(out.CPUUsPerOp, float64(bench.SelfCPU()-cpu)/float64(*n)/float64(time.Microsecond))
		}
		return writeHeapProfile(*heapProf)
	}()
	if err != nil {
		out.Error = err.Error()
	}
	out.MaxRssKiB = bench.SelfMaxRSSKiB()
	if out.Burst != nil {
		out.Burst.ClientMaxRssKiB = out.MaxRssKiB
	}
	return json.NewEncoder(os.Stdout).Encode(out)
}

// startProfile starts a CPU profile into path ("" for none) and returns its stop.
func startProfile(path string) (func(), error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// writeHeapProfile writes the heap's profile to path ("" for none), after a collection
// so that what is live is what the passes left.
func writeHeapProfile(path string) error {
	if path == "" {
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	runtime.GC()
	if err := pprof.WriteHeapProfile(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// startTrace starts an execution trace into path ("" for none) and returns its stop.
func startTrace(path string) (func(), error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := trace.Start(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		trace.Stop()
		f.Close()
	}, nil
}

// ratio times round trips of task (of a session in either era) and ping round trips on
// pinged (a session of 2025-11-25: the same one in that era) in alternating blocks of 50:
// n of each per pass.
func ratio(ctx context.Context, task bench.Op, pinged *client.Session, out *DriveOutput, n, warmup, passes int) error {
	ping := bench.PingOp(pinged)
	if _, err := bench.RoundTrips(ctx, warmup, task); err != nil {
		return err
	}
	if _, err := bench.RoundTrips(ctx, warmup, ping); err != nil {
		return err
	}
	const block = 50
	for range passes {
		var taskT, pingT time.Duration
		for done := 0; done < n; done += block {
			k := min(block, n-done)
			d, err := bench.RoundTrips(ctx, k, ping)
			if err != nil {
				return err
			}
			pingT += d * time.Duration(k)
			if d, err = bench.RoundTrips(ctx, k, task); err != nil {
				return err
			}
			taskT += d * time.Duration(k)
		}
		out.TaskUs = append(out.TaskUs, float64(taskT)/float64(n)/float64(time.Microsecond))
		out.PingUs = append(out.PingUs, float64(pingT)/float64(n)/float64(time.Microsecond))
		out.PerOpUs = append(out.PerOpUs, float64(taskT)/float64(pingT))
	}
	return nil
}
