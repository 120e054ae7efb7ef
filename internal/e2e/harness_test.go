package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/tasks"
	"github.com/mcpi-dev/mcpi/transport"
)

// Environment of the test binary re-executed as a stdio server.
const (
	serveEnv        = "MCPI_E2E_SERVE"         // "stdio": serve the demo server on stdin/stdout
	pageSizeEnv     = "MCPI_E2E_PAGE_SIZE"     // demo.Options.PageSize
	crashEnv        = "MCPI_E2E_CRASH_TOOL"    // "1": add the crash tool
	pollEnv         = "MCPI_E2E_POLL_INTERVAL" // the task pollInterval, as a time.Duration
	taskPageSizeEnv = "MCPI_E2E_TASK_PAGE"     // the tasks/list page size
	plainEnv        = "MCPI_E2E_PLAIN"         // "1": serve the plain server instead of the demo
	requestorEnv    = "MCPI_E2E_REQUESTOR"     // "1": add the requestor test tools (receiver_harness_test.go)
	filesEnv        = "MCPI_E2E_FILES"         // demo.Options.SideEffectDir
	modernEnv       = "MCPI_E2E_MODERN"        // "1": the demo server speaks 2026-07-28 as well (demo.Options.Legacy unset)
)

// crashTool makes the stdio child exit in the middle of the call, with status 3.
const crashTool = "crash"

func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) == "stdio" {
		os.Exit(serveStdio())
	}
	os.Exit(m.Run())
}

// serveStdio runs the demo server on this process's stdin and stdout, configured from the
// environment, until stdin closes.
func serveStdio() int {
	size, _ := strconv.Atoi(os.Getenv(pageSizeEnv))
	taskPage, _ := strconv.Atoi(os.Getenv(taskPageSizeEnv))
	poll, _ := time.ParseDuration(os.Getenv(pollEnv))
	cfg := serverConfig{pageSize: size, taskPageSize: taskPage, pollInterval: poll, plain: os.Getenv(plainEnv) == "1",
		requestorTools: os.Getenv(requestorEnv) == "1", files: os.Getenv(filesEnv), modern: os.Getenv(modernEnv) == "1"}
	srv := newServer(cfg)
	if os.Getenv(crashEnv) == "1" {
		srv.AddTool(&mcp.Tool{Name: crashTool, Description: "Exits the server process with status 3."},
			func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
				fmt.Fprintln(os.Stderr, "e2e: crashing on purpose")
				os.Exit(3)
				return nil, nil
			})
	}
	if err := srv.Run(context.Background(), transport.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: serving stdio:", err)
		return 1
	}
	return 0
}

// testSleep replaces time in the demo server: a wait shorter than a minute passes at once,
// a longer one lasts until the call is cancelled. So slow {seconds: 600, steps: 2} blocks in
// its first step until cancelled, and every shorter slow call finishes without sleeping.
func testSleep(ctx context.Context, d time.Duration) error {
	if d >= time.Minute {
		<-ctx.Done()
	}
	return ctx.Err()
}

// serverConfig describes the demo server a test wants.
type serverConfig struct {
	pageSize int
	// crashTool adds the crash tool (stdio only: it exits the process).
	crashTool bool
	// onSlowExit is demo.Options.OnSlowExit. It is only called for servers in this
	// process; a stdio child cannot call back.
	onSlowExit func(steps int, err error)

	// pollInterval is the pollInterval the server suggests for its tasks (0: the demo's
	// default, 1 s); taskPageSize bounds a tasks/list page (0: the engine's default).
	pollInterval time.Duration
	taskPageSize int
	// maxActive caps the tasks a session may have running (0: the engine's default).
	maxActive int
	// plain serves [newPlainServer] instead of the demo server.
	plain bool
	// requestorTools adds the test tools of [addRequestorTestTools] to the demo server.
	requestorTools bool
	// tap and onSideEffectExit are demo.Options.Tap and OnSideEffectExit; like
	// onSlowExit, they only work for servers in this process.
	tap              func(s *server.Session, dir jsonrpc.Direction, m jsonrpc.Message)
	onSideEffectExit func(path string, err error)
	// files is demo.Options.SideEffectDir.
	files string
	// modern: the demo server speaks 2026-07-28 (and the Tasks
	// extension) besides 2025-11-25.
	modern bool
}

// harness connects client sessions to a fresh server over one kind of connection.
type harness struct {
	name      string
	inProcess bool
	start     func(t *testing.T, cfg serverConfig) *endpoint
}

var harnesses = []harness{
	{name: "pipe", inProcess: true, start: servePipe},
	{name: "stdio", start: serveStdioChild},
	{name: "http", inProcess: true, start: serveHTTP},
}

// serve starts a server for the test, as cfg describes, and returns its endpoint.
func (h harness) serve(t *testing.T, cfg serverConfig) *endpoint {
	t.Helper()
	e := h.start(t, cfg)
	e.h = h
	return e
}

// endpoint is a server started for one test, which sessions connect to.
type endpoint struct {
	h harness
	// srv is the server, nil when it runs in another process.
	srv *server.Server
	// shared says that every session opened on the endpoint reaches the same server.
	// A stdio server serves one session: each session starts a process of its own.
	shared bool
	// transport returns a transport that reaches the server.
	transport func() transport.Transport
}

func demoOptions(cfg serverConfig) *demo.Options {
	return &demo.Options{
		PageSize:         cfg.pageSize,
		Sleep:            testSleep,
		OnSlowExit:       cfg.onSlowExit,
		Tap:              cfg.tap,
		OnSideEffectExit: cfg.onSideEffectExit,
		SideEffectDir:    cfg.files,
		Legacy:           !cfg.modern,
		Tasks:            &tasks.Options{PollInterval: cfg.pollInterval, PageSize: cfg.taskPageSize, MaxActive: cfg.maxActive},
	}
}

// newServer returns the server cfg asks for.
func newServer(cfg serverConfig) *server.Server {
	if cfg.plain {
		return newPlainServer(cfg)
	}
	if cfg.requestorTools {
		return newRequestorServer(cfg)
	}
	return demo.New(demoOptions(cfg))
}

func servePipe(t *testing.T, cfg serverConfig) *endpoint {
	srv := newServer(cfg)
	t.Cleanup(srv.Close)
	return &endpoint{srv: srv, shared: true, transport: func() transport.Transport {
		return transport.PipeTransport{Serve: func(ctx context.Context, conn jsonrpc.Connection) error {
			srv.Connect(ctx, conn)
			return nil
		}}
	}}
}

func serveStdioChild(t *testing.T, cfg serverConfig) *endpoint {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env := []string{
		serveEnv + "=stdio",
		pageSizeEnv + "=" + strconv.Itoa(cfg.pageSize),
		taskPageSizeEnv + "=" + strconv.Itoa(cfg.taskPageSize),
		pollEnv + "=" + cfg.pollInterval.String(),
		filesEnv + "=" + cfg.files,
		// A race-enabled child would otherwise linger a second at exit.
		"GORACE=" + strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"),
	}
	if cfg.crashTool {
		env = append(env, crashEnv+"=1")
	}
	if cfg.plain {
		env = append(env, plainEnv+"=1")
	}
	if cfg.requestorTools {
		env = append(env, requestorEnv+"=1")
	}
	if cfg.modern {
		env = append(env, modernEnv+"=1")
	}
	return &endpoint{transport: func() transport.Transport {
		return &transport.Command{Path: exe, Args: []string{"-test.run=^$"}, Env: env}
	}}
}

func serveHTTP(t *testing.T, cfg serverConfig) *endpoint {
	srv := newServer(cfg)
	h := srv.HTTPHandler(nil)
	ts := httptest.NewServer(h) // on 127.0.0.1
	t.Cleanup(func() {
		h.Close()
		ts.Close()
		srv.Close()
	})
	return &endpoint{srv: srv, shared: true, transport: func() transport.Transport {
		return &transport.HTTPClient{URL: ts.URL + "/mcp"}
	}}
}

// forEachTransport runs test once per kind of connection.
func forEachTransport(t *testing.T, test func(t *testing.T, h harness)) {
	t.Helper()
	for _, h := range harnesses {
		t.Run(h.name, func(t *testing.T) { test(t, h) })
	}
}

// testContext bounds a test, so that a bug fails it instead of hanging the run.
func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// open connects a session to a fresh server with client options opts (nil for the
// defaults) and closes it when the test ends.
func (h harness) open(t *testing.T, ctx context.Context, cfg serverConfig, opts *client.Options) *client.Session {
	t.Helper()
	return h.serve(t, cfg).open(t, ctx, opts)
}

// open connects one more session to the endpoint's server and closes it when the test
// ends.
func (e *endpoint) open(t *testing.T, ctx context.Context, opts *client.Options) *client.Session {
	t.Helper()
	return e.openVia(t, ctx, opts, nil)
}

// openVia is open with the transport wrapped by wrap (when not nil).
func (e *endpoint) openVia(t *testing.T, ctx context.Context, opts *client.Options, wrap func(transport.Transport) transport.Transport) *client.Session {
	t.Helper()
	c := client.New(mcp.Implementation{Name: "mcpi-e2e", Version: "0.0.1"}, opts)
	tr := e.transport()
	if wrap != nil {
		tr = wrap(tr)
	}
	s, err := c.Connect(ctx, tr)
	if err != nil {
		t.Fatalf("connecting over %s: %v", e.h.name, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// call calls a tool with args (marshalled to JSON) and fails the test on a JSON-RPC error.
func call(t *testing.T, ctx context.Context, s *client.Session, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := s.CallTool(ctx, toolParams(t, name, args), nil)
	if err != nil {
		t.Fatalf("calling %s: %v", name, err)
	}
	return res
}

func toolParams(t *testing.T, name string, args any) *mcp.CallToolParams {
	t.Helper()
	p := &mcp.CallToolParams{Name: name}
	if args != nil {
		raw, err := json.Marshal(args)
		if err != nil {
			t.Fatal(err)
		}
		p.Arguments = raw
	}
	return p
}

// onlyText returns the text of a result that must hold exactly one text item.
func onlyText(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 || res.Content[0].Type != mcp.ContentTypeText {
		t.Fatalf("want one text item, got %+v", res.Content)
	}
	return res.Content[0].Text
}

// drain returns the events already queued on sub, without waiting for more.
func drain(sub *client.Subscription) []client.Event {
	done, cancel := context.WithCancel(context.Background())
	cancel()
	var out []client.Event
	for {
		e, ok := sub.Next(done) // a queued event wins over the ended context
		if !ok {
			return out
		}
		out = append(out, e)
	}
}

// waitFor reads sub until an event of type E satisfies match, skipping the others.
func waitFor[E client.Event](t *testing.T, ctx context.Context, sub *client.Subscription, match func(E) bool) E {
	t.Helper()
	for {
		e, ok := sub.Next(ctx)
		if !ok {
			var zero E
			t.Fatalf("the event stream ended (%v) before the awaited %T", ctx.Err(), zero)
			return zero
		}
		if ev, ok := e.(E); ok && (match == nil || match(ev)) {
			return ev
		}
	}
}

// rpcCode returns the JSON-RPC error code in err's chain, or 0.
func rpcCode(err error) int64 {
	var e *jsonrpc.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

// jsonEqual reports whether two JSON texts hold the same value.
func jsonEqual(t *testing.T, got []byte, want string) bool {
	t.Helper()
	var a, b any
	if err := json.Unmarshal(got, &a); err != nil {
		t.Fatalf("invalid JSON %s: %v", got, err)
	}
	if err := json.Unmarshal([]byte(want), &b); err != nil {
		t.Fatalf("invalid JSON %s: %v", want, err)
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// sameJSON reports whether a and b encode to the same JSON value.
func sameJSON(t *testing.T, a, b any) bool {
	t.Helper()
	ja, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	jb, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return jsonEqual(t, ja, string(jb))
}
