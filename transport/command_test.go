package transport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
)

// The command tests re-execute this test binary as the child process: with
// cmdHelperEnv set, TestCommandHelperProcess turns into a tiny server whose behaviour
// the variable names, and exits before the testing package prints anything.
const cmdHelperEnv = "MCPI_TRANSPORT_TEST_HELPER"

// cmdFailsafe turns a hang into a failure; nothing waits for it to pass.
const cmdFailsafe = 20 * time.Second

func TestCommandHelperProcess(t *testing.T) {
	mode := os.Getenv(cmdHelperEnv)
	if mode == "" {
		t.Skip("the child process of the command tests")
	}
	os.Exit(cmdHelperMain(mode))
}

func cmdHelperMain(mode string) int {
	out := bufio.NewWriter(os.Stdout)
	send := func(format string, args ...any) {
		fmt.Fprintf(out, format+"\n", args...)
		out.Flush()
	}
	// serve answers each request with its method, params and a few facts about the
	// process, until stdin ends. afterAnswer, if set, runs after each answer.
	var afterAnswer func()
	serve := func(onRequest func(*jsonrpc.Request) bool) int {
		in := bufio.NewScanner(os.Stdin)
		in.Buffer(nil, 16<<20)
		for in.Scan() {
			m, err := jsonrpc.DecodeMessage(in.Bytes())
			if err != nil {
				fmt.Fprintln(os.Stderr, "helper: bad input:", err)
				continue
			}
			req, ok := m.(*jsonrpc.Request)
			if !ok || req.IsNotification() {
				continue
			}
			if onRequest != nil && !onRequest(req) {
				return 0
			}
			id, _ := req.ID.MarshalJSON()
			wd, _ := os.Getwd()
			facts, _ := json.Marshal(map[string]any{
				"method": req.Method,
				"params": req.Params,
				"args":   os.Args[1:],
				"env":    os.Getenv("MCPI_HELPER_VALUE"),
				"dir":    wd,
			})
			send(`{"jsonrpc":"2.0","id":%s,"result":%s}`, id, facts)
			if afterAnswer != nil {
				afterAnswer()
			}
		}
		return 0
	}

	switch mode {
	case "echo":
		fmt.Fprintln(os.Stderr, "helper: echo server ready")
		send(`{"jsonrpc":"2.0","method":"ready"}`)
		return serve(nil)

	case "exit3":
		// Fails at once, before reading anything, as a misconfigured server does.
		fmt.Fprintln(os.Stderr, "starting up")
		fmt.Fprintln(os.Stderr, "fatal: config file /etc/nowhere.json not found")
		return 3

	case "exit3-after-request":
		// Fails while a request is pending: five stderr lines, of which the error quotes
		// the last three.
		in := bufio.NewScanner(os.Stdin)
		in.Scan()
		for i := 1; i <= 5; i++ {
			fmt.Fprintf(os.Stderr, "stderr line %d\n", i)
		}
		return 3

	case "respond-then-exit":
		// Answers one request and exits at once: the answer must not be lost.
		afterAnswer = func() { os.Exit(0) }
		return serve(nil)

	case "burst":
		// Writes many notifications and exits without waiting for anyone to read them.
		for i := range 2000 {
			send(`{"jsonrpc":"2.0","method":"notifications/message","params":{"n":%d}}`, i)
		}
		return 0

	case "ignore-stdin", "ignore-sigterm":
		// Does not stop when stdin closes (and maybe not on SIGTERM either).
		if mode == "ignore-sigterm" {
			signal.Ignore(syscall.SIGTERM)
		}
		send(`{"jsonrpc":"2.0","method":"ready"}`)
		for {
			time.Sleep(time.Hour)
		}

	case "long-stderr", "long-stderr-exit3":
		// Writes a 2 MiB line to stderr, then more than a pipe holds, then another long
		// line; then serves, or exits 3 at once.
		w := bufio.NewWriter(os.Stderr)
		w.WriteString(strings.Repeat("é", 1<<20) + "\n")
		for i := range 1000 {
			fmt.Fprintf(w, "line %d %s\n", i, strings.Repeat("x", 1000))
		}
		w.WriteString("short\r\n")
		w.WriteString(strings.Repeat("b", 2<<20) + "\n")
		w.Flush()
		if mode == "long-stderr-exit3" {
			return 3
		}
		return serve(nil)

	case "close-stdout":
		// Closes its output but keeps running until stdin ends.
		send(`{"jsonrpc":"2.0","method":"ready"}`)
		os.Stdout.Close()
		in := bufio.NewScanner(os.Stdin)
		for in.Scan() {
		}
		return 0
	}
	fmt.Fprintln(os.Stderr, "unknown helper mode", mode)
	return 2
}

// cmdHelper returns a Command running this test binary in the given helper mode.
func cmdHelper(t *testing.T, mode string) *Command {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return &Command{
		Path: exe,
		Args: []string{"-test.run=^TestCommandHelperProcess$", "--"},
		Env: []string{
			cmdHelperEnv + "=" + mode,
			// A race-enabled child otherwise lingers a second after exiting.
			"GORACE=" + strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"),
		},
	}
}

// cmdConnect starts the command and returns its connection, closed at cleanup.
func cmdConnect(t *testing.T, c *Command) *process {
	t.Helper()
	conn, err := c.Connect(context.Background())
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	p, ok := conn.(*process)
	if !ok {
		t.Fatalf("Connect returned %T", conn)
	}
	return p
}

func cmdWait[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(cmdFailsafe):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

// cmdShortGrace shortens the shutdown grace periods for one test.
func cmdShortGrace(t *testing.T) {
	old, oldPipe := processGrace, pipeGrace
	processGrace, pipeGrace = 20*time.Millisecond, 5*time.Millisecond
	t.Cleanup(func() { processGrace, pipeGrace = old, oldPipe })
}

// cmdLogBuffer collects log output safely.
type cmdLogBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *cmdLogBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *cmdLogBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestCommandEcho(t *testing.T) {
	var logs cmdLogBuffer
	c := cmdHelper(t, "echo")
	c.Args = append(c.Args, "--extra-arg", "two words")
	c.Env = append(c.Env, "MCPI_HELPER_VALUE=from the parent")
	c.Dir = t.TempDir()
	c.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	var _ Transport = c

	conn := jsonrpc.NewConn(cmdConnect(t, c), jsonrpc.Options{})
	var got struct {
		Method string
		Params map[string]string
		Args   []string
		Env    string
		Dir    string
	}
	err := conn.Call(context.Background(), "tools/call", map[string]string{"name": "echo <1>"}, &got)
	if err != nil {
		t.Fatalf("Call: %v", err)
	}
	if got.Method != "tools/call" || got.Params["name"] != "echo <1>" {
		t.Errorf("the child saw %+v", got)
	}
	if n := len(got.Args); n < 2 || got.Args[n-2] != "--extra-arg" || got.Args[n-1] != "two words" {
		t.Errorf("the child got args %q", got.Args)
	}
	if got.Env != "from the parent" {
		t.Errorf("the child's MCPI_HELPER_VALUE = %q", got.Env)
	}
	wantDir, _ := filepath.EvalSymlinks(c.Dir)
	if gotDir, _ := filepath.EvalSymlinks(got.Dir); gotDir != wantDir {
		t.Errorf("the child ran in %q, want %q", got.Dir, c.Dir)
	}
	// Many calls on one child, concurrently.
	errs := make(chan error, 50)
	for i := range 50 {
		go func() {
			var r struct{ Params map[string]int }
			err := conn.Call(context.Background(), "m", map[string]int{"i": i}, &r)
			if err == nil && r.Params["i"] != i {
				err = fmt.Errorf("call %d got %v", i, r.Params)
			}
			errs <- err
		}()
	}
	for range 50 {
		if err := cmdWait(t, errs, "a call"); err != nil {
			t.Error(err)
		}
	}

	// Closing stdin ends an orderly server; its stderr went to the logger.
	if err := conn.Close(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), "helper: echo server ready") {
		t.Errorf("the child's stderr is not in the log:\n%s", logs.String())
	}
}

func TestCommandNotFound(t *testing.T) {
	for _, path := range []string{
		"mcpi-no-such-server-for-tests",
		filepath.Join(t.TempDir(), "missing", "server"),
	} {
		c := &Command{Path: path}
		conn, err := c.Connect(context.Background())
		if err == nil {
			conn.Close()
			t.Fatalf("Connect(%q) succeeded", path)
		}
		if !strings.Contains(err.Error(), "not found") || !strings.Contains(err.Error(), path) {
			t.Errorf("Connect(%q) = %v, want an error naming it as not found", path, err)
		}
	}
	if _, err := (&Command{}).Connect(context.Background()); err == nil {
		t.Error("Connect without a path succeeded")
	}
}

// assertExitError checks an error reports the exit, its status and the stderr tail.
func assertExitError(t *testing.T, err error, status string, want []string, notWant []string) {
	t.Helper()
	if !errors.Is(err, ErrServerExited) {
		t.Fatalf("error %q does not wrap ErrServerExited", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, status) {
		t.Errorf("error %q does not give the status %q", msg, status)
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q does not quote %q", msg, w)
		}
	}
	for _, w := range notWant {
		if strings.Contains(msg, w) {
			t.Errorf("error %q quotes %q, beyond the last three lines", msg, w)
		}
	}
}

func TestCommandExitFailsPendingCall(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("exit statuses are spelled differently")
	}
	// The child reads the request, then fails: the pending call gets the exit.
	conn := jsonrpc.NewConn(cmdConnect(t, cmdHelper(t, "exit3-after-request")), jsonrpc.Options{})
	err := conn.Call(context.Background(), "initialize", map[string]any{}, nil)
	assertExitError(t, err, "exit status 3",
		[]string{"stderr line 3", "stderr line 4", "stderr line 5"},
		[]string{"stderr line 1", "stderr line 2"})
	if !errors.Is(err, jsonrpc.ErrClosed) {
		t.Errorf("error %q does not match jsonrpc.ErrClosed", err)
	}
	cmdWait(t, conn.Done(), "the connection to end")
}

func TestCommandExitAtOnce(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("exit statuses are spelled differently")
	}
	const stderrLine = "fatal: config file /etc/nowhere.json not found"

	t.Run("call", func(t *testing.T) {
		// Whether the request is written before or after the child dies, the call fails
		// with the exit, its status and its last words.
		conn := jsonrpc.NewConn(cmdConnect(t, cmdHelper(t, "exit3")), jsonrpc.Options{})
		err := conn.Call(context.Background(), "initialize", map[string]any{}, nil)
		assertExitError(t, err, "exit status 3", []string{stderrLine, "starting up"}, nil)
	})
	t.Run("write after exit", func(t *testing.T) {
		// Deterministically the write path: the child is gone before anything is sent.
		p := cmdConnect(t, cmdHelper(t, "exit3"))
		cmdWait(t, p.exited, "the child to exit")
		err := p.Write(context.Background(), &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "initialize"})
		assertExitError(t, err, "exit status 3", []string{stderrLine}, nil)
	})
	t.Run("read after exit", func(t *testing.T) {
		p := cmdConnect(t, cmdHelper(t, "exit3"))
		_, err := p.Read(context.Background())
		assertExitError(t, err, "exit status 3", []string{stderrLine}, nil)
	})
}

func TestCommandExitErrorFields(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("exit statuses are spelled differently")
	}
	// A child that writes five stderr lines and exits 3 while a request waits: the error
	// is an *ExitError with the status, the last three lines, and the wait error under it.
	conn := jsonrpc.NewConn(cmdConnect(t, cmdHelper(t, "exit3-after-request")), jsonrpc.Options{})
	err := conn.Call(context.Background(), "initialize", map[string]any{}, nil)
	var exit *ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("error %T %q holds no *ExitError", err, err)
	}
	if exit.Status != "exit status 3" {
		t.Errorf("Status = %q, want %q", exit.Status, "exit status 3")
	}
	if want := []string{"stderr line 3", "stderr line 4", "stderr line 5"}; !slices.Equal(exit.Stderr, want) {
		t.Errorf("Stderr = %q, want %q", exit.Stderr, want)
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Errorf("errors.As(*exec.ExitError) = %v, want the wait error with exit code 3", ee)
	}
	if !errors.Is(err, ErrServerExited) {
		t.Errorf("error %q does not match ErrServerExited", err)
	}
	cmdWait(t, conn.Done(), "the connection to end")
}

func TestExitErrorMessage(t *testing.T) {
	for _, tt := range []struct {
		err  *ExitError
		want string
	}{
		{&ExitError{Status: "exit status 0"}, "the server process exited (exit status 0)"},
		{&ExitError{Status: "exit status 3", Stderr: []string{"a", "b"}},
			"the server process exited (exit status 3); its last output: a | b"},
		{&ExitError{Status: "signal: killed", Stderr: []string{"c"}},
			"the server process exited (signal: killed); its last output: c"},
		{&ExitError{Err: io.EOF}, "the server process exited: its output closed: EOF"},
		{&ExitError{}, "the server process exited: its output closed"},
	} {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
		if !errors.Is(tt.err, ErrServerExited) {
			t.Errorf("%q does not match ErrServerExited", tt.err)
		}
	}
	if errors.Is(&ExitError{Err: io.EOF}, io.ErrUnexpectedEOF) || !errors.Is(&ExitError{Err: io.EOF}, io.EOF) {
		t.Error("ExitError does not unwrap to exactly its Err")
	}
}

func TestCommandLastResponseNotLost(t *testing.T) {
	// The child answers and exits at once; the answer was written before the exit, so
	// the call succeeds. Repeat: losing it is a race with the exit.
	for i := range 20 {
		conn := jsonrpc.NewConn(cmdConnect(t, cmdHelper(t, "respond-then-exit")), jsonrpc.Options{})
		var got struct{ Method string }
		if err := conn.Call(context.Background(), "ping", nil, &got); err != nil || got.Method != "ping" {
			t.Fatalf("run %d: %+v, %v", i, got, err)
		}
		cmdWait(t, conn.Done(), "the connection to end")
		assertExitError(t, conn.Err(), "status 0", nil, nil)
	}
}

func TestCommandOutputBeforeExitNotLost(t *testing.T) {
	for i := range 5 {
		var (
			mu   sync.Mutex
			seen []int
		)
		h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			var p struct{ N int }
			json.Unmarshal(req.Params, &p)
			mu.Lock()
			seen = append(seen, p.N)
			mu.Unlock()
			return nil, nil
		})
		conn := jsonrpc.NewConn(cmdConnect(t, cmdHelper(t, "burst")), jsonrpc.Options{Handler: h})
		cmdWait(t, conn.Done(), "the connection to end")
		mu.Lock()
		n := len(seen)
		inOrder := true
		for j, v := range seen {
			inOrder = inOrder && v == j
		}
		mu.Unlock()
		if n != 2000 || !inOrder {
			t.Fatalf("run %d: received %d of 2000 notifications (in order: %v) before the end: %v", i, n, inOrder, conn.Err())
		}
		assertExitError(t, conn.Err(), "status 0", nil, nil)
	}
}

// cmdReady connects to a helper that announces itself with a "ready" notification.
func cmdReady(t *testing.T, mode string) (*process, *jsonrpc.Conn) {
	t.Helper()
	ready := make(chan struct{}, 1)
	h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		if req.Method == "ready" {
			ready <- struct{}{}
		}
		return nil, nil
	})
	p := cmdConnect(t, cmdHelper(t, mode))
	conn := jsonrpc.NewConn(p, jsonrpc.Options{Handler: h})
	cmdWait(t, ready, "the child to be ready")
	return p, conn
}

func TestCommandCloseTerminatesStubbornChild(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no signals")
	}
	cmdShortGrace(t)
	for _, tc := range []struct {
		mode   string
		signal syscall.Signal
	}{
		{"ignore-stdin", syscall.SIGTERM},   // stopped by SIGTERM
		{"ignore-sigterm", syscall.SIGKILL}, // needs SIGKILL
	} {
		t.Run(tc.mode, func(t *testing.T) {
			p, conn := cmdReady(t, tc.mode)
			closed := make(chan error, 1)
			go func() { closed <- conn.Close() }()
			if err := cmdWait(t, closed, "Close to return"); err != nil {
				t.Fatalf("Close: %v", err)
			}
			select {
			case <-p.exited:
			default:
				t.Fatal("Close returned before the child exited")
			}
			ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus)
			if !ok || !ws.Signaled() || ws.Signal() != tc.signal {
				t.Fatalf("the child ended with %v, want killed by %v", p.cmd.ProcessState, tc.signal)
			}
			// The connection is closed: calls fail at once.
			if err := conn.Call(context.Background(), "x", nil, nil); !errors.Is(err, jsonrpc.ErrClosed) {
				t.Errorf("Call after Close = %v", err)
			}
		})
	}
}

func TestCommandCloseOrderlyChild(t *testing.T) {
	// A child that stops when its stdin closes exits by itself, with status 0, and is
	// never signalled (the grace period is long, so a signal would mean a hang).
	p, conn := cmdReady(t, "echo")
	closed := make(chan error, 1)
	go func() { closed <- conn.Close() }()
	if err := cmdWait(t, closed, "Close to return"); err != nil {
		t.Fatal(err)
	}
	if !p.cmd.ProcessState.Success() {
		t.Fatalf("the child ended with %v, want status 0", p.cmd.ProcessState)
	}
	// Closing again is harmless.
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestCommandStdoutClosedChildStillRunning(t *testing.T) {
	// The child closes its output but lives on: the read reports that rather than
	// waiting forever for an exit status.
	cmdShortGrace(t)
	p, conn := cmdReady(t, "close-stdout")
	cmdWait(t, conn.Done(), "the connection to end")
	err := conn.Err()
	if !errors.Is(err, ErrServerExited) || !strings.Contains(err.Error(), "output closed") {
		t.Fatalf("Err() = %v, want ErrServerExited saying the output closed", err)
	}
	if exit := (*ExitError)(nil); !errors.As(err, &exit) || exit.Status != "" {
		t.Errorf("Err() = %#v, want an *ExitError without a status: the child has not exited", exit)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	cmdWait(t, p.exited, "the child to exit")
}
