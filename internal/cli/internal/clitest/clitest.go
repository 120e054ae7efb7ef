// Package clitest has helpers for the tests of the mcpi commands.
package clitest

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/factory"
	"github.com/mcpi-dev/mcpi/internal/cli/iostreams"
	"github.com/mcpi-dev/mcpi/internal/cli/state"
	"github.com/mcpi-dev/mcpi/server"
)

// Env is a factory over buffers.
type Env struct {
	Factory         *cmdutil.Factory
	IO              *iostreams.IOStreams
	In, Out, ErrOut *bytes.Buffer
	Selection       *connect.Selection
}

// New returns a test environment connecting to the server sel selects; nil means the
// embedded demo server.
func New(t testing.TB, sel *connect.Selection) *Env {
	t.Helper()
	if sel == nil {
		sel = &connect.Selection{}
	}
	if sel.Eras == nil && os.Getenv("MCPI_STATE_DIR") != "" {
		// As mcpi itself runs (root.Main), when the test has a state directory of its own.
		if e, err := state.DefaultEras(); err == nil {
			sel.Eras = e
		}
	}
	ios, in, out, errOut := iostreams.Test()
	return &Env{
		Factory:   factory.New(ios, sel, "test"),
		IO:        ios,
		In:        in,
		Out:       out,
		ErrOut:    errOut,
		Selection: sel,
	}
}

// Context returns a context that ends with the test, or after a minute.
func Context(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// Describe returns what the user would see for err: the stderr line and exit code.
func Describe(err error) (string, int) {
	if err == nil {
		return "", 0
	}
	msg, code := cmdutil.Describe(err)
	return "mcpi: " + msg, code
}

// Demo is a server (the demo server, unless [Serve] was given another) served over
// Streamable HTTP for a test.
type Demo struct {
	URL    string
	Server *server.Server
}

// ServeDemo serves the demo server (with opts) over Streamable HTTP on a loopback port
// until the test ends.
func ServeDemo(t testing.TB, opts *demo.Options) *Demo {
	t.Helper()
	return Serve(t, demo.New(opts))
}

// Serve serves srv over Streamable HTTP on a loopback port until the test ends, and
// closes it then.
func Serve(t testing.TB, srv *server.Server) *Demo {
	t.Helper()
	h := srv.HTTPHandler(nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	ts := httptest.NewServer(mux)
	t.Cleanup(func() {
		h.Close()
		ts.Close()
		srv.Close()
	})
	return &Demo{URL: ts.URL + "/mcp", Server: srv}
}

// DemoHTTP is [ServeDemo]'s URL.
func DemoHTTP(t testing.TB, opts *demo.Options) string { return ServeDemo(t, opts).URL }

// WaitIdle waits until the server has no session left but those that commands left open
// for their tasks, which the state file records: after a command that ended its
// session, the server has seen it end, so that the next command's session may take an
// orphaned task over. The server notices an ended session on its own goroutine, so this
// polls, with a deadline.
func (d *Demo) WaitIdle(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(d.Server.Sessions()) > keptSessions() {
		if time.Now().After(deadline) {
			t.Fatalf("the server still has %d sessions, %d of them kept for tasks", len(d.Server.Sessions()), keptSessions())
		}
		time.Sleep(time.Millisecond)
	}
}

// keptSessions counts the sessions the default state file records for its tasks.
func keptSessions() int {
	store, err := state.Default()
	if err != nil {
		return 0
	}
	entries, _ := store.Load()
	ids := map[string]bool{}
	for _, e := range entries {
		if e.Session != nil {
			ids[e.Session.SessionID] = true
		}
	}
	return len(ids)
}

// StateDir points the local state file at a fresh directory for the test (through
// MCPI_STATE_DIR, so the test must not run in parallel) and returns it.
func StateDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("MCPI_STATE_DIR", dir)
	return dir
}

// WriteFile writes content to a file in a temporary directory and returns its path.
func WriteFile(t testing.TB, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// InterruptOnCreate returns a context and a Connect for e that end the context (as
// Ctrl-C does) as soon as the session's task is created.
func (e *Env) InterruptOnCreate(t testing.TB) (context.Context, cmdutil.ConnectFunc) {
	ctx, stop := context.WithCancel(Context(t))
	return ctx, func(c context.Context, requests cmdutil.RequestPolicy) (*cmdutil.Session, error) {
		sess, err := e.Factory.Connect(c, requests)
		if err != nil {
			return nil, err
		}
		sub := sess.Subscribe()
		go func() {
			defer sub.Close()
			for ev := range sub.All(context.Background()) {
				if te, ok := ev.(*client.TaskEvent); ok && te.Kind == client.TaskCreated {
					stop()
					return
				}
			}
		}()
		return sess, nil
	}
}
