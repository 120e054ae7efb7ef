package root

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/internal/clitest"
	"github.com/mcpi-dev/mcpi/internal/cli/iostreams"
	"github.com/mcpi-dev/mcpi/internal/cli/state/statetest"
	"github.com/mcpi-dev/mcpi/internal/cli/tools/list"
)

// mcpiBin is the mcpi binary, built once by TestMain.
var mcpiBin string

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeServerEnv); mode != "" {
		os.Exit(fakeServer(mode))
	}
	dir, err := os.MkdirTemp("", "mcpi-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	mcpiBin = filepath.Join(dir, "mcpi")
	build := exec.Command("go", "build", "-o", mcpiBin, "github.com/mcpi-dev/mcpi/cmd/mcpi")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building mcpi:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := statetest.Main(m) // the tests run mcpi's commands: their state goes to a directory of their own
	os.RemoveAll(dir)
	os.Exit(code)
}

// mcpi runs the CLI in-process, as main does.
func mcpi(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	code = Main(clitest.Context(t), ios, args, "test")
	return out.String(), errOut.String(), code
}

// freePort returns a loopback port where nothing listens.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return port
}

// serveDemoHTTP runs "mcpi serve demo --http" on a free loopback port until the test
// ends, and returns its endpoint URL once it accepts connections.
func serveDemoHTTP(t *testing.T, flags ...string) string {
	t.Helper()
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	srv := exec.Command(mcpiBin, append([]string{"serve", "demo", "--http", addr}, flags...)...)
	var srvErr strings.Builder
	srv.Stderr = &srvErr
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = srv.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = srv.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = srv.Process.Kill()
			<-done
		}
	})
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("mcpi serve demo --http %s did not start: %s", addr, srvErr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return "http://" + addr + "/mcp"
}

func toolsListJSON(t *testing.T, sel *connect.Selection) string {
	t.Helper()
	env := clitest.New(t, sel)
	if err := list.Run(clitest.Context(t), &list.Options{IO: env.IO, Connect: env.Factory.Connect, JSON: true}); err != nil {
		msg, _ := clitest.Describe(err)
		t.Fatalf("tools list --json: %s", msg)
	}
	return env.Out.String()
}

func TestSameOutputOverEveryTransport(t *testing.T) {
	embedded := toolsListJSON(t, nil)
	if !strings.Contains(embedded, `"name": "add"`) {
		t.Fatalf("embedded output lacks the add tool:\n%s", embedded)
	}

	t.Run("stdio", func(t *testing.T) {
		got := toolsListJSON(t, &connect.Selection{Stdio: "'" + mcpiBin + "' serve demo"})
		if got != embedded {
			t.Errorf("over stdio:\n%s\nembedded:\n%s", got, embedded)
		}
	})

	t.Run("http", func(t *testing.T) {
		url := serveDemoHTTP(t)
		got := toolsListJSON(t, &connect.Selection{URL: url})
		if got != embedded {
			t.Errorf("over HTTP:\n%s\nembedded:\n%s", got, embedded)
		}
	})
}

func TestErrors(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("needs sh")
	}
	dir := t.TempDir()
	badJSON := filepath.Join(dir, "bad.json")
	os.WriteFile(badJSON, []byte(`{"mcpServers": {"demo": {"command": "mcpi",}}}`), 0o600)
	good := filepath.Join(dir, "good.json")
	os.WriteFile(good, []byte(`{"mcpServers": {"demo": {"command": "`+mcpiBin+`", "args": ["serve", "demo"]}, "web": {"type": "http", "url": "http://127.0.0.1:1/mcp"}}}`), 0o600)
	closed := fmt.Sprintf("http://127.0.0.1:%d/mcp", freePort(t))
	argsString := filepath.Join(dir, "args.json")
	os.WriteFile(argsString, []byte(`{"mcpServers": {"demo": {"command": "x", "args": "serve demo"}}}`), 0o600)
	argsInCommand := filepath.Join(dir, "spaces.json")
	os.WriteFile(argsInCommand, []byte(`{"mcpServers": {"demo": {"command": "`+mcpiBin+` serve demo"}}}`), 0o600)

	tests := []struct {
		args []string
		want string
		code int
	}{
		{[]string{"tools", "call", "x"}, `mcpi: the server has no tool named "x" ("mcpi tools list" lists its tools)`, 2},
		{[]string{"tools", "call", "ad"}, `mcpi: the server has no tool named "ad"; did you mean "add"?`, 2},
		// A prompt is checked as a tool is, before it is asked for.
		{[]string{"prompts", "get", "gret"}, `mcpi: the server has no prompt named "gret"; did you mean "greet"?`, 2},
		{[]string{"prompts", "get", "x"}, `mcpi: the server has no prompt named "x" ("mcpi prompts list" lists its prompts)`, 2},
		{[]string{"prompts", "get", "greet"}, `mcpi: the prompt "greet" needs the argument "name": give --arg name=VALUE`, 2},
		{[]string{"tool", "list"}, `mcpi: "mcpi" has no command "tool"; did you mean "tools"?`, 2},
		{[]string{"tools", "lst"}, `mcpi: "mcpi tools" has no command "lst"; did you mean "list"?`, 2},
		// --arg NAME VALUE, the space for the "=": a second word is no second tool.
		{[]string{"tools", "call", "add", "--arg", "a", "1"}, `mcpi: --arg wants NAME=VALUE in one word: --arg a=1, not --arg a 1`, 2},
		{[]string{"tools", "call", "add", "--args-json", "{a:1}"}, `mcpi: --args-json is not valid JSON: invalid character 'a' looking for beginning of object key string at line 1, column 2`, 2},
		{[]string{"--protocol", "2025-01-01", "ping"}, `mcpi: --protocol "2025-01-01": give auto, 2026-07-28, or 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05`, 2},
		{[]string{"--stdio", `sh -c 'echo boom >&2; exit 3'`, "--protocol", "2026-07-28", "ping"},
			`mcpi: the server exited (exit status 3) when asked for protocol version 2026-07-28: it may not speak that version, or not start at all (drop --protocol to let mcpi choose); its last output: boom`, 2},
		{[]string{"tools", "call", "add", "--arg", "a=2"}, `mcpi: argument "b" is required`, 2},
		{[]string{"tools", "call", "add", "--arg", "a=two", "--arg", "b=3"}, `mcpi: argument "a" must be a number, not a string`, 2},
		{[]string{"--stdio", "mcpi-no-such-server-command", "tools", "list"}, `mcpi: the server command "mcpi-no-such-server-command" was not found`, 2},
		{[]string{"--stdio", `sh -c 'echo boom >&2; exit 3'`, "tools", "list"},
			`mcpi: the server "sh -c 'echo boom >&2; exit 3'" exited before it finished starting (exit status 3); its last output: boom`, 2},
		{[]string{"--url", closed, "tools", "list"}, "mcpi: nothing is listening at " + closed, 2},
		// A URL's password is not printed.
		{[]string{"--url", strings.Replace(closed, "//", "//user:hunter2@", 1), "tools", "list"}, "mcpi: nothing is listening at " + strings.Replace(closed, "//", "//user:xxxxx@", 1), 2},
		{[]string{"--config", badJSON, "--server", "demo", "tools", "list"},
			"mcpi: the config file " + badJSON + " is not valid JSON: invalid character '}' looking for beginning of object key string at line 1, column 44", 2},
		{[]string{"--config", good, "--server", "nope", "tools", "list"},
			"mcpi: the config file " + good + ` has no server named "nope"; it has "demo" and "web"`, 2},
		{[]string{"--config", argsString, "tools", "list"},
			"mcpi: the config file " + argsString + " is not in the mcpServers format: mcpServers.demo.args must be an array, not a string (line 1, column 61)", 2},
		{[]string{"--config", argsInCommand, "tools", "list"},
			"mcpi: the config file " + argsInCommand + ` cannot be used: server "demo" has the "command" "` + mcpiBin + ` serve demo", which is no program: its arguments go in "args" ("command": "` + mcpiBin + `", "args": ["serve", "demo"])`, 2},
		{[]string{"resources", "read", "nosuch://thing"}, "", 1},
		{[]string{"tools", "frobnicate"}, `mcpi: "mcpi tools" has no command "frobnicate"`, 2},
		{[]string{"tools", "list", "--bogus"}, "mcpi: unknown flag: --bogus", 2},
		{[]string{"--stdio", "x", "serve", "demo"}, "", 2},
		// Bad input that used to reach exec or net/http, and came back as their errors.
		{[]string{"--cwd", filepath.Join(dir, "missing"), "--stdio", mcpiBin + " serve demo", "tools", "list"},
			`mcpi: the server "` + mcpiBin + ` serve demo" cannot be started in the directory "` + filepath.Join(dir, "missing") + `": it does not exist`, 2},
		{[]string{"--cwd", good, "--stdio", mcpiBin + " serve demo", "tools", "list"},
			`mcpi: the server "` + mcpiBin + ` serve demo" cannot be started in the directory "` + good + `": it is not a directory`, 2},
		{[]string{"--stdio", dir, "tools", "list"}, `mcpi: the server command "` + dir + `" is a directory`, 2},
		{[]string{"--stdio", `"" serve`, "tools", "list"}, "mcpi: the --stdio command's program name is empty", 2},
		// An empty value (an unset variable) is not the flag left out, which would mean the
		// demo server; a negative bound or timeout is not "none".
		{[]string{"--url", "", "tools", "list"}, `mcpi: invalid argument "" for "--url" flag: it is empty`, 2},
		{[]string{"--stdio=", "tools", "list"}, `mcpi: invalid argument "" for "--stdio" flag: it is empty`, 2},
		{[]string{"--config", "", "--server", "a", "tools", "list"}, `mcpi: invalid argument "" for "--config" flag: it is empty`, 2},
		{[]string{"--timeout", "-5s", "ping"}, `mcpi: invalid argument "-5s" for "--timeout" flag: want 0 (never) or more`, 2},
		{[]string{"--max-items", "-1", "tools", "list"}, `mcpi: invalid argument "-1" for "--max-items" flag: want 0 (no bound) or more`, 2},
		{[]string{"serve", "demo", "--session-timeout", "-1s"}, `mcpi: invalid argument "-1s" for "--session-timeout" flag: want 0 (never) or more`, 2},
		{[]string{"serve", "demo", "--max-sessions", "-1"}, `mcpi: invalid argument "-1" for "--max-sessions" flag: want 0 (no bound) or more`, 2},
		{[]string{"tools", "call", "slow_task", "--task", "--ttl", "0"}, `mcpi: --ttl must be positive, not 0s (leave it out to let the server choose the task's lifetime)`, 2},
		{[]string{"tools", "call", "slow_task", "--task", "--ttl", "-5m"}, `mcpi: --ttl must be positive, not -5m0s (leave it out to let the server choose the task's lifetime)`, 2},
		{[]string{"tools", "call", "echo", "--ttl", "0"}, `mcpi: --ttl applies to a task: add --task`, 2},
		{[]string{"--url", "http://[::1", "tools", "list"}, `mcpi: "http://[::1" is not a valid URL: missing ']' in host`, 2},
		{[]string{"--url", closed, "--header", "X-Key=a\nb", "tools", "list"},
			`mcpi: --header "X-Key=a\nb" cannot be sent: a header's name is letters, digits and !#$%&'*+-.^_` + "`" + `|~, and its value has no control characters`, 2},
		{[]string{"--url", closed, "--header", "X(Key)=1", "tools", "list"},
			`mcpi: --header "X(Key)=1" cannot be sent: a header's name is letters, digits and !#$%&'*+-.^_` + "`" + `|~, and its value has no control characters`, 2},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			stdout, stderr, code := mcpi(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d; stderr: %s", code, tt.code, stderr)
			}
			if strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "mcpi: ") {
				t.Errorf("stderr is not one mcpi: line: %q", stderr)
			}
			if tt.want != "" && strings.TrimSuffix(stderr, "\n") != tt.want {
				t.Errorf("stderr:\n%s\nwant:\n%s", stderr, tt.want)
			}
			for _, goish := range []string{"jsonrpc:", "initialize:", "transport:", "tools/call:", "goroutine"} {
				if strings.Contains(stderr, goish) {
					t.Errorf("stderr has Go internals (%q): %s", goish, stderr)
				}
			}
			if stdout != "" {
				t.Errorf("stdout: %s", stdout)
			}
		})
	}
}

func TestConfigServer(t *testing.T) {
	file := filepath.Join(t.TempDir(), "mcp.json")
	os.WriteFile(file, []byte(`{"mcpServers": {"demo": {"type": "stdio", "command": "`+mcpiBin+`", "args": ["serve", "demo"]}}}`), 0o600)
	stdout, stderr, code := mcpi(t, "--config", file, "--server", "demo", "tools", "call", "add", "--arg", "a=2", "--arg", "b=3")
	if code != 0 || stdout != "5\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

func TestVersion(t *testing.T) {
	stdout, _, code := mcpi(t, "--version")
	if code != 0 || stdout != "mcpi test\n" {
		t.Errorf("--version: exit %d, %q", code, stdout)
	}
	out, err := exec.Command(mcpiBin, "--version").Output()
	if err != nil || !strings.HasPrefix(string(out), "mcpi ") {
		t.Errorf("binary --version: %q, %v", out, err)
	}
}

// "mcpi version" says what --version does, and "mcpi completion SHELL" writes the
// completion script of each shell cobra knows.
func TestVersionCommandAndCompletion(t *testing.T) {
	if stdout, stderr, code := mcpi(t, "version"); code != 0 || stdout != "mcpi test\n" {
		t.Errorf("version: exit %d, %q, %q", code, stdout, stderr)
	}
	for shell, mark := range map[string]string{"bash": "__start_mcpi", "zsh": "#compdef mcpi", "fish": "complete -c mcpi", "powershell": "Register-ArgumentCompleter"} {
		if stdout, stderr, code := mcpi(t, "completion", shell); code != 0 || !strings.Contains(stdout, mark) {
			t.Errorf("completion %s: exit %d, stderr %q, %d bytes without %q", shell, code, stderr, len(stdout), mark)
		}
	}
}

func TestPing(t *testing.T) {
	stdout, stderr, code := mcpi(t, "ping")
	if code != 0 || !strings.HasPrefix(stdout, "pong from ") {
		t.Errorf("ping: exit %d, %q, %q", code, stdout, stderr)
	}
}

func TestBinaryExitCodes(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, mcpiBin, "tools", "call", "add", "--arg", "a=1")
	out, err := cmd.CombinedOutput()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 2 || string(out) != "mcpi: argument \"b\" is required\n" {
		t.Errorf("mcpi tools call add --arg a=1: %v, %q", err, out)
	}
}

// eachServerAndEra runs f in a subtest for each way of naming the demo server (embedded,
// a stdio subprocess, Streamable HTTP at url) in each era, with the flags that select
// them (the embedded one needs none).
func eachServerAndEra(t *testing.T, url string, f func(t *testing.T, args []string)) {
	t.Helper()
	for _, server := range [][]string{nil, {"--stdio", mcpiBin + " serve demo"}, {"--url", url}} {
		for _, protocol := range []string{"2025-11-25", "2026-07-28"} {
			name := "embedded"
			if server != nil {
				name = server[0]
			}
			t.Run(name+" "+protocol, func(t *testing.T) {
				f(t, append(append([]string(nil), server...), "--protocol", protocol))
			})
		}
	}
}

// TestURLSecretsRedacted: a URL's password and the values of its query (where a server's
// key or token is often passed) never reach a sentence, whether mcpi names the server
// itself or quotes a transport error that names it.
func TestURLSecretsRedacted(t *testing.T) {
	plain := httptest.NewServer(http.NotFoundHandler()) // no TLS: an https:// client fails
	t.Cleanup(plain.Close)
	closed := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	tlsTo := strings.TrimPrefix(plain.URL, "http://")
	for _, tt := range []struct{ url, want string }{
		{"http://user:hunter2@" + closed + "/mcp?token=s3cret&v",
			"mcpi: nothing is listening at http://user:xxxxx@" + closed + "/mcp?token=xxxxx&v"},
		{"https://user:hunter2@" + tlsTo + "/mcp?token=s3cret",
			"mcpi: cannot start a session with https://user:xxxxx@" + tlsTo + "/mcp?token=xxxxx: sending server/discover: " +
				`Post "https://user:xxxxx@` + tlsTo + `/mcp?token=xxxxx": http: server gave HTTP response to HTTPS client`},
		{"http://user:hunter2@[::1/mcp?token=s3cret",
			`mcpi: "http://user:xxxxx@[::1/mcp?token=xxxxx" is not a valid URL: missing ']' in host`},
	} {
		t.Run(tt.url, func(t *testing.T) {
			_, stderr, code := mcpi(t, "--url", tt.url, "tools", "list")
			if code != 2 || strings.TrimSuffix(stderr, "\n") != tt.want {
				t.Errorf("exit %d, stderr:\n%s\nwant exit 2 and:\n%s", code, stderr, tt.want)
			}
		})
	}
}

// Servers are told mcpi's version alone, without what `mcpi version` adds to it in
// parentheses.
func TestServersToldTheVersionAlone(t *testing.T) {
	for version, want := range map[string]string{
		"dev (built without version information)":         "dev",
		"dev (commit 0123456789ab, 2026-11-28T10:00:00Z)": "dev",
		"v1.2.3": "v1.2.3",
	} {
		ios, _, _, _ := iostreams.Test()
		Main(clitest.Context(t), ios, []string{"version"}, version)
		if connect.Impl.Version != want {
			t.Errorf("version %q: servers are told %q, want %q", version, connect.Impl.Version, want)
		}
	}
}
