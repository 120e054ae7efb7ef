// Package bench measures mcpi against the clients a user would pick instead, on the
// workloads of the benchmark contract (shared/BENCH.md): ping and plain tools/call round
// trips, task round trips, bursts of concurrent tasks, receiver tasks at scale, and the
// CLI's cold start.
//
// The package holds the workloads as functions that the go test benchmarks
// (bench_test.go) and the bench command (internal/bench/cmd/mcpibench) share. The peers (the
// TypeScript SDK client, mcp-go's client, the MCP Inspector CLI) live under internal/bench/peers,
// each with its own go.mod or package.json and lockfile, so that the main module depends
// on none of them. See docs/PERFORMANCE.md for the figures and how to reproduce them.
package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/internal/pause"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/tasks"
	"github.com/mcpi-dev/mcpi/transport"
)

// MaxBurst is the most concurrent tasks one session of the benchmark server may run. The
// stock demo server keeps the task engine's default of 100 per session, which would
// refuse most of a 1,000-task burst.
const MaxBurst = 20000

// ServerOptions configures the benchmark server.
type ServerOptions struct {
	// DropStatus drops every notifications/tasks/status the server would send, so that
	// clients see a server without status notifications and must poll.
	DropStatus bool
	Logger     *slog.Logger
}

// NewServer returns the demo server ([demo.New]) as the workloads use it: unchanged but
// for two per-session guards of its task engine, which a benchmark would otherwise
// measure instead of the client: the cap on running tasks, raised to [MaxBurst], and the
// limit on task requests per second ([demo.DefaultTaskRate]), turned off (a task round
// trip makes two task requests, and mcpi makes several thousand round trips a second).
//
// It speaks both eras. In 2026-07-28 the server decides what becomes a task, and the demo
// answers instant_task inline (it is quick); ToolInstantExtTask is the same work made a
// task of every call that declares the Tasks extension, for the task round trip of that
// era.
func NewServer() *server.Server {
	srv := demo.New(&demo.Options{Tasks: &tasks.Options{MaxActive: MaxBurst, RatePerSecond: -1}})
	srv.AddToolWith(&mcp.Tool{
		Name:        ToolInstantExtTask,
		Description: "Completes at once; in 2026-07-28 always a task of the Tasks extension.",
		InputSchema: json.RawMessage(`{"type":"object"}`),
	}, func(context.Context, *server.ToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{{Type: mcp.ContentTypeText, Text: demo.InstantTaskText}}}, nil
	}, &server.ToolOptions{TaskPolicy: server.TaskAlways})
	srv.AddToolWith(&mcp.Tool{
		Name:        ToolSleepExtTask,
		Description: "Completes after the given number of seconds (0 to 600), like sleep_task; in 2026-07-28 always a task of the Tasks extension.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"seconds":{"type":"number","minimum":0,"maximum":600}},"required":["seconds"]}`),
	}, sleepExtTask, &server.ToolOptions{TaskPolicy: server.TaskAlways})
	return srv
}

// Tools of the benchmark server besides the demo's: the 2026-07-28 task round trip, and
// the 2026-07-28 burst. In that era the server decides what becomes a task, and the
// demo's instant_task and sleep_task (taskSupport optional) run inline first and become
// tasks only when slow (server.TaskWhenSlow, after 250 ms): these are tasks from the
// start, as the 2025-11-25 calls that ask for one.
const (
	ToolInstantExtTask = "instant_ext_task"
	ToolSleepExtTask   = "sleep_ext_task"
)

// sleepExtTask is sleep_task's work: it waits seconds and says so.
func sleepExtTask(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		Seconds *float64 `json:"seconds"`
	}
	if err := json.Unmarshal(req.Params.Arguments, &args); err != nil || args.Seconds == nil ||
		*args.Seconds < 0 || *args.Seconds > demo.MaxTaskSeconds || math.IsNaN(*args.Seconds) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{mcp.TextContent("seconds must be a number from 0 to 600")}}, nil
	}
	d := time.Duration(*args.Seconds * float64(time.Second))
	if err := pause.For(ctx, d); err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("slept " + d.String())}}, nil
}

// ServeConn serves one connection with srv, dropping status notifications when asked,
// and returns the session.
func ServeConn(ctx context.Context, srv *server.Server, conn jsonrpc.Connection, o ServerOptions) *server.Session {
	if o.DropStatus {
		conn = dropStatus{conn}
	}
	return srv.Connect(ctx, conn)
}

// ServeStdio serves the benchmark server on stdin and stdout until stdin closes or ctx
// ends.
func ServeStdio(ctx context.Context, o ServerOptions) error {
	srv := NewServer()
	defer srv.Close()
	ss := ServeConn(ctx, srv, transport.NewStream(os.Stdin, os.Stdout, 0), o)
	select {
	case <-ss.Done():
	case <-ctx.Done():
		ss.Close()
	}
	return nil
}

// HTTPServer is the benchmark server over Streamable HTTP on a loopback listener.
type HTTPServer struct {
	// URL is the MCP endpoint.
	URL string
	hs  *http.Server
	srv *server.Server
	h   *transport.HTTPHandler
	err chan error
	// conns counts the TCP connections clients opened, which GET /conns reports.
	conns atomic.Int64
}

// ConnsURL is where GET reports the TCP connections opened to the server so far:
// {"opened": N}.
func (s *HTTPServer) ConnsURL() string { return strings.TrimSuffix(s.URL, "/mcp") + "/conns" }

// ConnsOpened is how many TCP connections clients opened to the server so far.
func (s *HTTPServer) ConnsOpened() int64 { return s.conns.Load() }

// StartHTTP serves the benchmark server at http://ADDR/mcp; addr must be a loopback
// address ("127.0.0.1:0" picks a free port).
func StartHTTP(addr string, o ServerOptions) (*HTTPServer, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return nil, errors.New("bench: the benchmark server listens on loopback addresses only")
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	srv := NewServer()
	// A burst of MaxBurst task calls may all be waiting for their answers at once.
	opts := &transport.HTTPOptions{MaxInFlight: -1, ModernProtocolVersions: mcp.ModernProtocolVersions, SupportedVersions: server.SupportedVersions}
	// The server's own handler, as `mcpi serve` uses it: a stateless request of
	// 2026-07-28 is served on its HTTP request's goroutine. Only to drop status
	// notifications are the connections wrapped, and then every one (2026-07-28
	// requests too) is served as a session.
	var h *transport.HTTPHandler
	if o.DropStatus {
		h = transport.NewHTTPHandler(func(ctx context.Context, conn jsonrpc.Connection) {
			ss := ServeConn(ctx, srv, conn, o)
			<-ss.Done()
		}, opts)
	} else {
		h = srv.HTTPHandler(opts)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	s := &HTTPServer{
		URL: "http://" + ln.Addr().String() + "/mcp",
		srv: srv,
		h:   h,
		err: make(chan error, 1),
	}
	mux.HandleFunc("/conns", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprintf(w, `{"opened":%d}`, s.conns.Load())
	})
	s.hs = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second,
		ConnState: func(_ net.Conn, st http.ConnState) {
			if st == http.StateNew {
				s.conns.Add(1)
			}
		}}
	go func() { s.err <- s.hs.Serve(ln) }()
	return s, nil
}

// Close stops the server.
func (s *HTTPServer) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = s.h.Close()
	err := s.hs.Shutdown(ctx)
	if err != nil {
		_ = s.hs.Close()
	}
	s.srv.Close()
	<-s.err
	return nil
}

// dropStatus is a connection that never sends notifications/tasks/status.
type dropStatus struct{ jsonrpc.Connection }

func (d dropStatus) Write(ctx context.Context, m jsonrpc.Message) error {
	if r, ok := m.(*jsonrpc.Request); ok && r.IsNotification() && r.Method == mcp.NotificationTasksStatus {
		return nil
	}
	return d.Connection.Write(ctx, m)
}

// AnswerInBody passes the session's choice of requests answered in one piece on to an
// HTTP connection, so that only the notifications differ from the stock server.
func (d dropStatus) AnswerInBody(f func(*jsonrpc.Request) bool) {
	if ab, ok := d.Connection.(interface {
		AnswerInBody(func(*jsonrpc.Request) bool)
	}); ok {
		ab.AnswerInBody(f)
	}
}
