package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/transport"
)

// Transports the workloads run over.
const (
	Pipe  = "pipe"  // in-memory pipe, server in the same process
	Stdio = "stdio" // the server as a child process
	HTTP  = "http"  // Streamable HTTP on 127.0.0.1
)

// Target says how to reach the benchmark server.
type Target struct {
	Transport string
	// Command starts a stdio server (argv); Env is added to its environment.
	Command []string
	Env     []string
	// URL is a Streamable HTTP endpoint.
	URL string
	// Server configures the in-process server of a pipe.
	Server ServerOptions
	// Era is the protocol version the client speaks: "" (2025-11-25, the era every
	// figure against the peers is measured in) or 2026-07-28. The server speaks both.
	Era string
}

// Impl is how the benchmark client introduces itself.
var Impl = mcp.Implementation{Name: "mcpi-bench", Version: "dev"}

// Connect opens a session with the benchmark server. Closing the session stops a stdio
// server and the in-process server of a pipe.
func Connect(ctx context.Context, t Target, opts *client.Options) (*client.Session, error) {
	var tr transport.Transport
	switch t.Transport {
	case Pipe:
		srv := NewServer()
		tr = transport.PipeTransport{Serve: func(ctx context.Context, conn jsonrpc.Connection) error {
			ss := ServeConn(ctx, srv, conn, t.Server)
			go func() {
				<-ss.Done()
				srv.Close()
			}()
			return nil
		}}
	case Stdio:
		if len(t.Command) == 0 {
			return nil, errors.New("bench: no stdio server command")
		}
		tr = &transport.Command{Path: t.Command[0], Args: t.Command[1:], Env: t.Env}
	case HTTP:
		tr = &transport.HTTPClient{URL: t.URL}
	default:
		return nil, fmt.Errorf("bench: unknown transport %q", t.Transport)
	}
	o := client.Options{}
	if opts != nil {
		o = *opts
	}
	if o.ProtocolVersion == "" {
		o.ProtocolVersion = t.Era
	}
	if o.ProtocolVersion == "" {
		o.ProtocolVersion = mcp.LatestProtocolVersion
	}
	return client.New(Impl, &o).Connect(ctx, tr)
}

// Op is one round trip of a workload.
type Op func(ctx context.Context) error

// PingOp is the ping round trip.
func PingOp(s *client.Session) Op { return s.Ping }

// echoParams is the echo call of the call workload.
var echoParams = &mcp.CallToolParams{Name: demo.ToolEcho, Arguments: json.RawMessage(`{"text":"hello"}`)}

// CallOp is the plain tools/call round trip (echo).
func CallOp(s *client.Session) Op {
	return func(ctx context.Context) error {
		r, err := s.CallTool(ctx, echoParams, nil)
		if err != nil {
			return err
		}
		if len(r.Content) != 1 || r.Content[0].Text != "hello" {
			return fmt.Errorf("echo returned %+v", r.Content)
		}
		return nil
	}
}

var (
	instantParams    = &mcp.CallToolParams{Name: demo.ToolInstantTask}
	instantExtParams = &mcp.CallToolParams{Name: ToolInstantExtTask}
)

// TaskOp is the task round trip: instant_task called as a task (in 2026-07-28
// instant_ext_task, which the server makes a task of), from the call to the final result.
func TaskOp(s *client.Session) Op {
	p := instantParams
	if s.Modern() {
		p = instantExtParams // instant_task is answered inline in 2026-07-28
	}
	return func(ctx context.Context) error {
		t, r, err := s.RunToolTask(ctx, p, nil)
		if err != nil {
			return err
		}
		if len(r.Content) != 1 || r.Content[0].Text != demo.InstantTaskText {
			return fmt.Errorf("instant_task returned %+v", r.Content)
		}
		if t.ID() == "" {
			return fmt.Errorf("%s was answered without a task", p.Name)
		}
		return nil
	}
}

// TwoCallsOp is two plain tools/call round trips in a row: what a task round trip would
// cost if each of its two exchanges cost what a plain call does, a yardstick for it.
func TwoCallsOp(s *client.Session) Op {
	call := CallOp(s)
	return func(ctx context.Context) error {
		if err := call(ctx); err != nil {
			return err
		}
		return call(ctx)
	}
}

// WorkloadOp returns the op of a latency workload: "ping", "call", "call2" (two calls) or
// "task".
func WorkloadOp(s *client.Session, workload string) (Op, error) {
	switch workload {
	case "ping":
		return PingOp(s), nil
	case "call":
		return CallOp(s), nil
	case "call2":
		return TwoCallsOp(s), nil
	case "task":
		return TaskOp(s), nil
	}
	return nil, fmt.Errorf("bench: unknown latency workload %q", workload)
}

// RoundTrips runs op n times in a row and returns the mean time of one.
func RoundTrips(ctx context.Context, n int, op Op) (time.Duration, error) {
	if n <= 0 {
		return 0, nil
	}
	start := time.Now()
	for i := range n {
		if err := op(ctx); err != nil {
			return 0, fmt.Errorf("round trip %d: %w", i+1, err)
		}
	}
	return time.Since(start) / time.Duration(n), nil
}

// Stats is what bench_stats reports.
type Stats struct {
	Counts    map[string]int64 `json:"counts"`
	MaxRssKiB int64            `json:"maxRssKiB"`
}

// ReadStats calls bench_stats, zeroing the counts afterwards when reset is set.
func ReadStats(ctx context.Context, s *client.Session, reset bool) (*Stats, error) {
	args := `{}`
	if reset {
		args = `{"reset":true}`
	}
	r, err := s.CallTool(ctx, &mcp.CallToolParams{Name: demo.ToolBenchStats, Arguments: json.RawMessage(args)}, nil)
	if err != nil {
		return nil, err
	}
	if r.IsError || len(r.Content) == 0 {
		return nil, fmt.Errorf("bench_stats failed: %+v", r.Content)
	}
	var st Stats
	if err := json.Unmarshal([]byte(r.Content[0].Text), &st); err != nil {
		return nil, fmt.Errorf("bench_stats: %w", err)
	}
	return &st, nil
}

// BurstResult is one burst.
type BurstResult struct {
	Tasks int `json:"tasks"`
	// OK counts the tasks whose result arrived.
	OK int `json:"ok"`
	// Wall is from the launch to the last result.
	WallMs float64 `json:"wallMs"`
	// CreatedMs is from the launch to the last task created (the last call answered):
	// mcpi's driver only.
	CreatedMs float64 `json:"createdMs,omitempty"`
	// TasksGet and TasksResult are the requests the server received during the burst.
	TasksGet    int64   `json:"tasksGet"`
	TasksResult int64   `json:"tasksResult"`
	GetsPerTask float64 `json:"getsPerTask"`
	// Listens counts subscriptions/listen (2026-07-28: the stream of a task's
	// notifications/tasks, each inlining the task as tasks/get would).
	Listens int64 `json:"listens,omitempty"`
	// ClientPolls is the tasks/get the client says it sent.
	ClientPolls     int    `json:"clientPolls"`
	ServerMaxRssKiB int64  `json:"serverMaxRssKiB"`
	ClientMaxRssKiB int64  `json:"clientMaxRssKiB,omitempty"`
	FirstError      string `json:"firstError,omitempty"`
}

// Burst launches c task calls of sleep_task {seconds} at once (in 2026-07-28
// sleep_ext_task, which the server makes a task of at once) and waits for every result.
// A call answered without a task counts as failed. The server's request counts are
// reset first and read afterwards.
func Burst(ctx context.Context, s *client.Session, c int, seconds float64) (*BurstResult, error) {
	tool := demo.ToolSleepTask
	if s.Modern() {
		tool = ToolSleepExtTask
	}
	if _, err := s.Tool(ctx, tool); err != nil { // list the tools first
		return nil, err
	}
	if _, err := ReadStats(ctx, s, true); err != nil {
		return nil, err
	}
	p := &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(fmt.Sprintf(`{"seconds":%g}`, seconds))}
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		ok      int
		polls   int
		first   error
		created time.Duration
	)
	start := time.Now()
	for range c {
		wg.Go(func() {
			var err error
			t, err := s.StartToolTask(ctx, p, nil)
			if err == nil {
				d := time.Since(start)
				mu.Lock()
				created = max(created, d)
				mu.Unlock()
				var r *mcp.CallToolResult
				r, err = t.Wait(ctx)
				switch {
				case err != nil:
				case t.ID() == "":
					err = fmt.Errorf("%s was answered without a task", tool)
				case r.IsError:
					err = fmt.Errorf("%s failed: %+v", tool, r.Content)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if t != nil {
				polls += t.Polls()
			}
			if err != nil {
				if first == nil {
					first = err
				}
				return
			}
			ok++
		})
	}
	wg.Wait()
	wall := time.Since(start)
	st, err := ReadStats(ctx, s, false)
	if err != nil {
		return nil, err
	}
	r := &BurstResult{
		Tasks:           c,
		OK:              ok,
		WallMs:          ms(wall),
		CreatedMs:       ms(created),
		TasksGet:        st.Counts[mcp.MethodTasksGet],
		TasksResult:     st.Counts[mcp.MethodTasksResult],
		Listens:         st.Counts[mcp.MethodSubscriptionsListen],
		ClientPolls:     polls,
		ServerMaxRssKiB: st.MaxRssKiB,
	}
	if c > 0 {
		r.GetsPerTask = float64(r.TasksGet) / float64(c)
	}
	if first != nil {
		r.FirstError = first.Error()
	}
	return r, nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
