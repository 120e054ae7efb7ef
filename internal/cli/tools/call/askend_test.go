package call

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/internal/clitest"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/tasks"
)

// watchWriter is a terminal's stderr that tells when a text has been written to it.
type watchWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	seen chan struct{}
}

func (w *watchWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.buf.Write(p)
	if w.seen != nil && strings.Contains(w.buf.String(), w.want) {
		close(w.seen)
		w.seen = nil
	}
	return n, err
}

func (w *watchWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// promptingTerminal makes env's streams a terminal's: what the test writes to answer is
// what the user types, errOut is the screen, and asked is closed once mcpi asks whether
// to cancel the task or leave it running.
func promptingTerminal(t *testing.T, env *clitest.Env) (answer *io.PipeWriter, errOut *watchWriter, asked <-chan struct{}) {
	env.IO.SetStdinTTY(true)
	env.IO.SetStderrTTY(true)
	in, answer := io.Pipe()
	t.Cleanup(func() { answer.Close() })
	seen := make(chan struct{})
	errOut = &watchWriter{want: "[c/l] ", seen: seen}
	env.IO.In, env.IO.ErrOut = in, errOut
	return answer, errOut, seen
}

// A task that ends while mcpi asks, after Ctrl-C, whether to cancel it or leave it
// running is not said to be "still running" on the answer "l": mcpi sees that it has
// ended, and prints its outcome as if it had followed it to the end (exit 0 for a
// result). A log line of the server that comes while the question is open waits for the
// answer, not written onto the question's line.
func TestTaskEndsWhileAsking(t *testing.T) {
	clitest.StateDir(t)
	release := make(chan struct{})
	fetched := make(chan struct{})
	var once sync.Once
	srv := server.New(mcp.Implementation{Name: "ends", Version: "1"}, &server.Options{
		Tasks: &tasks.Options{PollInterval: 20 * time.Millisecond},
		Tap: func(_ *server.Session, dir jsonrpc.Direction, m jsonrpc.Message) {
			if req, ok := m.(*jsonrpc.Request); ok && dir == jsonrpc.Inbound && req.Method == mcp.MethodTasksResult {
				once.Do(func() { close(fetched) }) // the follower has seen the task end
			}
		},
	})
	srv.AddTool(&mcp.Tool{Name: "wait", InputSchema: []byte(`{"type":"object"}`),
		Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportRequired}},
		func(ctx context.Context, r *server.ToolRequest) (*mcp.CallToolResult, error) {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-release:
			}
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("finally")}}, nil
		})
	env := clitest.New(t, &connect.Selection{URL: clitest.Serve(t, srv).URL, Protocol: mcp.LatestProtocolVersion})
	answer, errOut, asked := promptingTerminal(t, env)
	ctx, connectFn := env.InterruptOnCreate(t)
	go func() {
		select {
		case <-asked:
		case <-time.After(30 * time.Second):
			return
		}
		env.IO.Note("server info (sleeper): second 5") // as --server-log writes it
		close(release)
		select {
		case <-fetched:
		case <-time.After(30 * time.Second):
		}
		errOut.Write([]byte("l\n")) // the terminal echoes what the user types
		io.WriteString(answer, "l\n")
	}()
	opts := &Options{Name: "wait", Task: true, IO: env.IO, Connect: connectFn, Selection: env.Selection, Tick: -1}
	if msg, code := clitest.Describe(Run(ctx, opts)); code != 0 {
		t.Fatalf("got %q (exit %d), want the result; stderr:\n%q", msg, code, errOut)
	}
	if env.Out.String() != "finally\n" {
		t.Errorf("stdout %q, want the result", env.Out)
	}
	got := errOut.String()
	question := "Cancel the task on the server, or leave it running? [c/l] "
	if i := strings.Index(got, question); i < 0 || !strings.HasPrefix(got[i+len(question):], "l\nserver info (sleeper): second 5\nThe task ") ||
		!strings.Contains(got, " ended (completed) while mcpi asked.\n") {
		t.Errorf("stderr:\n%q\nwant the question, then the log line held while it was open, then that the task ended", got)
	}
}
