package connect

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/mcpi-dev/mcpi/client"

	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/transport"
)

func TestSplitCommand(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{`mcpi serve demo`, []string{"mcpi", "serve", "demo"}},
		{`  npx   -y  pkg  `, []string{"npx", "-y", "pkg"}},
		{`sh -c 'echo boom >&2; exit 3'`, []string{"sh", "-c", "echo boom >&2; exit 3"}},
		{`a "b c" d`, []string{"a", "b c", "d"}},
		{`a "say \"hi\" \$HOME \n"`, []string{"a", `say "hi" $HOME \n`}},
		{`a b\ c`, []string{"a", "b c"}},
		{`a ''`, []string{"a", ""}},
		{`a x"y z"'w'`, []string{"a", "xy zw"}},
	}
	for _, tt := range tests {
		got, err := SplitCommand(tt.in)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("SplitCommand(%s) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{``, `   `, `a 'b`, `a "b`, `a \`} {
		if _, err := SplitCommand(bad); err == nil {
			t.Errorf("SplitCommand(%s) succeeded", bad)
		} else if _, ok := err.(*cmdutil.UsageError); !ok {
			t.Errorf("SplitCommand(%s) = %T, want a usage error", bad, err)
		}
	}
}

func writeConfig(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestResolveConfig(t *testing.T) {
	file := writeConfig(t, `{"mcpServers": {
		"local": {"command": "srv", "args": ["--x", "y z"], "env": {"A": "1"}, "cwd": "/tmp"},
		"typed": {"type": "stdio", "command": "srv2"},
		"remote": {"type": "streamable-http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer t"}},
		"bare": {"url": "http://127.0.0.1:9/mcp"},
		"old": {"type": "sse", "url": "http://x/sse"}
	}}`)

	tg, err := (&Selection{Config: file, Server: "local", Env: []string{"B=2"}}).Resolve()
	if err != nil {
		t.Fatal(err)
	}
	c, ok := tg.Transport.(*transport.Command)
	if !ok || c.Path != "srv" || !reflect.DeepEqual(c.Args, []string{"--x", "y z"}) || c.Dir != "/tmp" ||
		!reflect.DeepEqual(c.Env, []string{"A=1", "B=2"}) || !tg.Stdio {
		t.Errorf("local = %+v", tg.Transport)
	}
	tg, err = (&Selection{Config: file, Server: "typed"}).Resolve()
	if c, ok := tg.Transport.(*transport.Command); err != nil || !ok || c.Path != "srv2" {
		t.Errorf("typed = %+v, %v", tg, err)
	}
	tg, err = (&Selection{Config: file, Server: "remote", Headers: []string{"X-Extra=1"}}).Resolve()
	h, ok := tg.Transport.(*transport.HTTPClient)
	if err != nil || !ok || h.URL != "https://example.com/mcp" || h.Header.Get("Authorization") != "Bearer t" || h.Header.Get("X-Extra") != "1" {
		t.Errorf("remote = %+v, %v", tg, err)
	}
	if tg, err := (&Selection{Config: file, Server: "bare"}).Resolve(); err != nil || tg.Name != "http://127.0.0.1:9/mcp" {
		t.Errorf("bare = %+v, %v", tg, err)
	}
	_, err = (&Selection{Config: file, Server: "old"}).Resolve()
	if msg, _ := cmdutil.Describe(err); !strings.Contains(msg, "Streamable HTTP") {
		t.Errorf("sse: %v", msg)
	}
	_, err = (&Selection{Config: file, Server: "nope"}).Resolve()
	want := `the config file ` + file + ` has no server named "nope"; it has "bare", "local", "old", "remote" and "typed"`
	if msg, code := cmdutil.Describe(err); msg != want || code != 2 {
		t.Errorf("unknown name: %q (%d), want %q", msg, code, want)
	}
	_, err = (&Selection{Config: file}).Resolve()
	if msg, code := cmdutil.Describe(err); !strings.Contains(msg, "choose one with --server") || code != 2 {
		t.Errorf("no name: %q (%d)", msg, code)
	}

	single := writeConfig(t, `{"mcpServers": {"only": {"command": "x"}}}`)
	if tg, err := (&Selection{Config: single}).Resolve(); err != nil || tg.Name != `"only"` {
		t.Errorf("single entry: %+v, %v", tg, err)
	}
}

func TestResolveErrors(t *testing.T) {
	notJSON := writeConfig(t, "{\n  \"mcpServers\": {\n    \"a\": {command: \"x\"}\n  }\n}")
	noServers := writeConfig(t, `{"servers": {}}`)
	badHeader := writeConfig(t, `{"mcpServers": {"a": {"url": "http://x/mcp", "headers": {"X-Key": "a\r\nHost: evil"}}}}`)
	tests := []struct {
		sel  Selection
		want string
	}{
		{Selection{Stdio: "a", URL: "http://x"}, "give either --stdio or --url, not both"},
		{Selection{Server: "a"}, "--server names an entry of a config file: give the file with --config"},
		{Selection{URL: "ftp://x"}, `"ftp://x" is not a server URL: give an http:// or https:// URL`},
		{Selection{Stdio: "a 'b"}, "the --stdio command has an unterminated ' quote"},
		{Selection{Stdio: "a", Env: []string{"NOEQUALS"}}, `--env wants KEY=VALUE, not "NOEQUALS"`},
		{Selection{Env: []string{"A=1"}}, "--env, --cwd and --header need a server: give --stdio, --url or --config"},
		{Selection{Config: notJSON, Server: "a"}, "the config file " + notJSON + " is not valid JSON: invalid character 'c' looking for beginning of object key string at line 3, column 11"},
		{Selection{Config: noServers, Server: "a"}, "the config file " + noServers + ` cannot be used: it has no "mcpServers" object`},
		{Selection{Config: filepath.Join(t.TempDir(), "missing.json"), Server: "a"}, "does not exist"},
		{Selection{Config: badHeader, Server: "a"}, "the config file " + badHeader + ` cannot be used: server "a" has a header "X-Key" that cannot be sent`},
		{Selection{URL: "http://x/mcp", Headers: []string{"X-Key=a\x1b]0;t\x07"}}, `--header "X-Key=a\x1b]0;t\a" cannot be sent`},
		{Selection{Stdio: `'' x`}, "the --stdio command's program name is empty"},
	}
	for _, tt := range tests {
		_, err := tt.sel.Resolve()
		msg, code := cmdutil.Describe(err)
		if !strings.Contains(msg, tt.want) || code != 2 {
			t.Errorf("%+v: %q (exit %d), want %q (exit 2)", tt.sel, msg, code, tt.want)
		}
	}
}

func TestEmbedded(t *testing.T) {
	tg, err := (&Selection{}).Resolve()
	if err != nil || tg.Name != EmbeddedTarget {
		t.Fatalf("%+v, %v", tg, err)
	}
}

func TestLimitsFlags(t *testing.T) {
	parse := func(args ...string) (*Selection, error) {
		s := &Selection{}
		fs := pflag.NewFlagSet("mcpi", pflag.ContinueOnError)
		fs.SetOutput(io.Discard)
		s.AddFlags(fs)
		return s, fs.Parse(args)
	}
	s, err := parse()
	if err != nil || s.Limits.MaxPages != client.DefaultMaxPages || s.Limits.MaxItems != client.DefaultMaxItems ||
		s.Limits.MaxMessageSize != transport.DefaultMaxMessageSize {
		t.Fatalf("defaults %+v, %v", s.Limits, err)
	}
	s, err = parse("--max-pages", "0", "--max-items", "5", "--max-message-size", "16MiB")
	if err != nil || s.Limits.MaxPages != -1 || s.Limits.MaxItems != 5 || s.Limits.MaxMessageSize != 16<<20 {
		t.Fatalf("%+v, %v", s.Limits, err)
	}
	for in, want := range map[string]int{"1": 1, "512KiB": 512 << 10, "8m": 8 << 20, "1GiB": 1 << 30, "2 MiB": 2 << 20, "100B": 100} {
		if s, err := parse("--max-message-size", in); err != nil || s.Limits.MaxMessageSize != want {
			t.Errorf("--max-message-size %s: %d, %v; want %d", in, s.Limits.MaxMessageSize, err, want)
		}
	}
	for _, bad := range []string{"0", "-1", "x", "4TB", "3GiB", "MiB"} {
		if _, err := parse("--max-message-size", bad); err == nil {
			t.Errorf("--max-message-size %s was taken", bad)
		}
	}
	if got := (byteSize{new(100)}).String(); got != "100" {
		t.Errorf("String() = %q", got)
	}
	if got := (byteSize{new(4 << 20)}).String(); got != "4MiB" {
		t.Errorf("String() = %q", got)
	}
}

// TestReadConfigBounded: a config file is read up to MaxConfigSize, so that --config
// /dev/zero is refused instead of exhausting memory.
func TestReadConfigBounded(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	_, err := ReadConfig("/dev/zero")
	if msg, code := cmdutil.Describe(err); msg != "the config file /dev/zero is too large (over 1 MiB)" || code != 2 {
		t.Fatalf("--config /dev/zero: %q (exit %d)", msg, code)
	}
}

// recordedServer is the recorder's connection to a server process that reads its stdin
// and writes nothing.
func recordedServer(t *testing.T) jsonrpc.Connection {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	rec := &recorder{Transport: &transport.Command{Path: sh, Args: []string{"-c", "exec cat >/dev/null"}}}
	conn, err := rec.Connect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return conn
}

// The recorder's connection to a server process passes on CloseContext: a handshake
// that ran out of time stops the server at once (SIGTERM), rather than close its stdin
// and give it the grace of an orderly end (2 s more past --timeout for a server that
// answered nothing).
func TestRecorderHurriesTheServer(t *testing.T) {
	conn := recordedServer(t)
	c, ok := conn.(interface{ CloseContext(context.Context) error })
	if !ok {
		conn.Close()
		t.Fatalf("%T has no CloseContext", conn)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := c.CloseContext(ctx); err != nil {
		t.Fatal(err)
	}
}

// The recorder's connection to a server process writes as the process's does: locally,
// and at once when the pipe has room, so that the client sends a task's second request
// from its reading goroutine over stdio, as it does without the recorder.
func TestRecorderWritesAsTheProcess(t *testing.T) {
	conn := recordedServer(t)
	defer conn.Close()
	lw, ok := conn.(interface{ LocalWrites() bool })
	if !ok || !lw.LocalWrites() {
		t.Errorf("%T: no local writes", conn)
	}
	now, ok := conn.(jsonrpc.NowWriter)
	if !ok {
		t.Fatalf("%T writes nothing at once", conn)
	}
	// The pipe's room is read on Linux alone; elsewhere WriteNow declines every write.
	if wrote, err := now.WriteNow(&jsonrpc.Request{Method: "notifications/initialized"}); (!wrote && runtime.GOOS == "linux") || err != nil {
		t.Errorf("WriteNow to an empty pipe = %v, %v; want written", wrote, err)
	}
}
