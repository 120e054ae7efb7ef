// Command mcpgo-drive runs mcpi's benchmark workloads with mcp-go's client: the Go client
// a user would pick instead of mcpi for plain calls. It prints one JSON object, the same
// shape as `mcpibench drive`, on stdout.
//
// mcp-go cannot call a tool as a task (the CreateTaskResult fails to parse as a
// CallToolResult), so the task workloads report that error instead of a figure.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

type output struct {
	Client    string    `json:"client"`
	Version   string    `json:"version"`
	Workload  string    `json:"workload"`
	Transport string    `json:"transport"`
	N         int       `json:"n"`
	PerOpUs   []float64 `json:"perOpUs,omitempty"`
	MaxRssKiB int64     `json:"maxRssKiB"`
	Error     string    `json:"error,omitempty"`
}

func main() {
	var (
		workload  = flag.String("workload", "ping", "ping, call or task")
		transport = flag.String("transport", "stdio", "stdio or http")
		server    = flag.String("server", "", "stdio server command line as a JSON array")
		url       = flag.String("url", "", "Streamable HTTP endpoint")
		n         = flag.Int("n", 1000, "round trips per pass")
		warmup    = flag.Int("warmup", 100, "round trips before the first pass")
		passes    = flag.Int("passes", 5, "passes")
		timeout   = flag.Duration("timeout", 5*time.Minute, "bound on the whole run")
	)
	flag.Parse()
	out := output{Client: "mcp-go", Version: "v1.2.1", Workload: *workload, Transport: *transport, N: *n}
	err := run(&out, *workload, *transport, *server, *url, *n, *warmup, *passes, *timeout)
	if err != nil {
		out.Error = err.Error()
	}
	out.MaxRssKiB = maxRSS()
	_ = json.NewEncoder(os.Stdout).Encode(out)
}

func run(out *output, workload, transport, server, url string, n, warmup, passes int, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var c *client.Client
	var err error
	switch transport {
	case "stdio":
		var argv []string
		if err := json.Unmarshal([]byte(server), &argv); err != nil || len(argv) == 0 {
			return fmt.Errorf("-server wants a JSON array: %v", err)
		}
		c, err = client.NewStdioMCPClient(argv[0], nil, argv[1:]...)
	case "http":
		c, err = client.NewStreamableHttpClient(url)
		if err == nil {
			err = c.Start(ctx)
		}
	default:
		return fmt.Errorf("unknown transport %q", transport)
	}
	if err != nil {
		return err
	}
	defer c.Close()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = "2025-11-25"
	init.Params.ClientInfo = mcp.Implementation{Name: "mcp-go-bench", Version: "v1.2.1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	var op func() error
	switch workload {
	case "ping":
		op = func() error { return c.Ping(ctx) }
	case "call":
		req := mcp.CallToolRequest{}
		req.Params.Name = "echo"
		req.Params.Arguments = map[string]any{"text": "hello"}
		op = func() error {
			r, err := c.CallTool(ctx, req)
			if err != nil {
				return err
			}
			if len(r.Content) != 1 {
				return fmt.Errorf("echo returned %d content items", len(r.Content))
			}
			if tc, ok := r.Content[0].(mcp.TextContent); !ok || tc.Text != "hello" {
				return fmt.Errorf("echo returned %+v", r.Content[0])
			}
			return nil
		}
	case "task":
		// What a user of mcp-go would write: the call with params.task set.
		req := mcp.CallToolRequest{}
		req.Params.Name = "instant_task"
		req.Params.Task = &mcp.TaskParams{}
		r, err := c.CallTool(ctx, req)
		if err != nil {
			return fmt.Errorf("mcp-go cannot call a tool as a task: %w", err)
		}
		return fmt.Errorf("mcp-go cannot call a tool as a task: the CreateTaskResult came back as a CallToolResult with %d content items and no task", len(r.Content))
	default:
		return errors.New("unknown workload " + workload)
	}
	for i := 0; i < warmup; i++ {
		if err := op(); err != nil {
			return fmt.Errorf("warm-up: %w", err)
		}
	}
	for p := 0; p < passes; p++ {
		start := time.Now()
		for i := 0; i < n; i++ {
			if err := op(); err != nil {
				return fmt.Errorf("pass %d: %w", p+1, err)
			}
		}
		out.PerOpUs = append(out.PerOpUs, float64(time.Since(start))/float64(n)/float64(time.Microsecond))
	}
	return nil
}

func maxRSS() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return int64(ru.Maxrss)
}
