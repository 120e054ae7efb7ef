package root

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/internal/cli/internal/clitest"
	"github.com/mcpi-dev/mcpi/internal/cli/iostreams"
)

// TestEndlessPagination: a server that hands out cursors forever makes a listing stop at
// --max-pages or --max-items (or their defaults): what was listed is printed, then a
// sentence that names the flag, and the exit status is 2.
func TestEndlessPagination(t *testing.T) {
	for _, tt := range []struct {
		args  []string
		rows  int // printed on stdout, each naming its item, the first "0", the last rows-1
		first string
		want  string
	}{
		{[]string{"tools", "list", "--max-pages", "20"}, 20, "t", "mcpi: the server's tools/list went on past 20 pages; mcpi stopped there (--max-pages raises the bound)"},
		{[]string{"--max-items", "7", "tasks", "list"}, 7, "t", "mcpi: the server's tasks/list went on past 7 items; mcpi stopped there (--max-items raises the bound)"},
		{[]string{"tools", "list"}, 1000, "t", "mcpi: the server's tools/list went on past 1000 pages; mcpi stopped there (--max-pages raises the bound)"},
		{[]string{"--max-items", "3", "tools", "list"}, 3, "t", "mcpi: the server's tools/list went on past 3 items; mcpi stopped there (--max-items raises the bound)"},
		{[]string{"--max-items", "3", "prompts", "list"}, 3, "p", "mcpi: the server's prompts/list went on past 3 items; mcpi stopped there (--max-items raises the bound)"},
		{[]string{"--max-pages", "4", "resources", "list"}, 4, "file:///r", "mcpi: the server's resources/list went on past 4 pages; mcpi stopped there (--max-pages raises the bound)"},
		{[]string{"--max-items", "2", "resources", "templates"}, 2, "file:///r", "mcpi: the server's resources/templates/list went on past 2 items; mcpi stopped there (--max-items raises the bound)"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			stdout, stderr, code := mcpi(t, append(fakeStdio("endless"), tt.args...)...)
			lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
			names := func(line string, n int) bool { // "t0 ..." or "file:///r0/{x} ...", not t10
				return strings.HasPrefix(line, tt.first+strconv.Itoa(n)+" ") || strings.HasPrefix(line, tt.first+strconv.Itoa(n)+"/")
			}
			if code != 2 || strings.TrimSuffix(stderr, "\n") != tt.want || len(lines) != tt.rows+1 || !names(lines[1], 0) || !names(lines[tt.rows], tt.rows-1) {
				t.Errorf("exit %d, %d lines on stdout:\n%.300s\nstderr:\n%s\nwant:\n%s", code, len(lines), stdout, stderr, tt.want)
			}
		})
	}
}

// TestEndlessPaginationJSON: with --json, the items listed before the bound are printed
// as the listing's JSON, and the sentence goes to stderr.
func TestEndlessPaginationJSON(t *testing.T) {
	stdout, stderr, code := mcpi(t, append(fakeStdio("endless"), "--max-items", "3", "tools", "list", "--json")...)
	var got struct {
		Tools []struct{ Name string }
	}
	want := "mcpi: the server's tools/list went on past 3 items; mcpi stopped there (--max-items raises the bound)\n"
	if err := json.Unmarshal([]byte(stdout), &got); err != nil || code != 2 || stderr != want || len(got.Tools) != 3 || got.Tools[2].Name != "t2" {
		t.Errorf("exit %d (%v), stdout %q, stderr:\n%s\nwant:\n%s", code, err, stdout, stderr, want)
	}
}

// TestOversizedMessage: a response over the message size limit fails the command at once
// with a sentence that gives both sizes and names the flag, which lets it through.
func TestOversizedMessage(t *testing.T) {
	stdout, stderr, code := mcpi(t, append(fakeStdio("huge"), "tools", "list")...)
	want := regexp.MustCompile(`^mcpi: the server's answer to tools/list was dropped: message too large \(52429\d\d bytes, limit 4194304; --max-message-size\)\n$`)
	if code != 2 || !want.MatchString(stderr) || stdout != "" {
		t.Errorf("exit %d, stdout %q, stderr:\n%s", code, stdout, stderr)
	}
	stdout, stderr, code = mcpi(t, append(fakeStdio("huge"), "--max-message-size", "8MiB", "tools", "list")...)
	if code != 0 || !strings.Contains(stdout, "big") {
		t.Errorf("with --max-message-size 8MiB: exit %d, stderr %s", code, stderr)
	}
}

// TestOversizedAnswerOfEveryTransport: an answer over --max-message-size is named as
// such however it came: over stdio (where mcpi then ends the server, whose exit was
// reported instead), and over 2025-11-25 HTTP in an event stream line far longer than
// the limit (which ended the stream, and the request with a resumption the server
// refused), and from the embedded demo server over its in-memory pipe (which had no
// limit but the default).
func TestOversizedAnswerOfEveryTransport(t *testing.T) {
	legacy := serveDemoHTTP(t, "--legacy")
	stdio := "'" + mcpiBin + "' serve demo"
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--stdio", stdio, "--max-message-size", "100", "ping"},
			`^mcpi: cannot start a session with the server "` + regexp.QuoteMeta(stdio) + `": the server's answer to server/discover was dropped: message too large \(\d+ bytes, limit 100; --max-message-size\)\n$`},
		{[]string{"--stdio", stdio + " --legacy", "--protocol", "2025-11-25", "--max-message-size", "100", "ping"},
			`^mcpi: cannot start a session with the server "` + regexp.QuoteMeta(stdio) + ` --legacy": the server's answer to initialize was dropped: message too large \(\d+ bytes, limit 100; --max-message-size\)\n$`},
		{[]string{"--url", legacy, "--max-message-size", "2000", "tools", "list"},
			`^mcpi: the server's answer to tools/list was dropped: message too large \(\d{5} bytes, limit 2000; --max-message-size\)\n$`},
		// The embedded demo server is a server like any other to the flag.
		{[]string{"--max-message-size", "100", "ping"},
			`^mcpi: cannot start a session with the embedded demo server: the server's answer to server/discover was dropped: message too large \(\d+ bytes, limit 100; --max-message-size\)\n$`},
	} {
		stdout, stderr, code := run(t, t.TempDir(), tt.args...)
		if code != 2 || !regexp.MustCompile(tt.want).MatchString(stderr) || stdout != "" {
			t.Errorf("mcpi %s: exit %d, stdout %q, stderr:\n%s", strings.Join(tt.args, " "), code, stdout, stderr)
		}
	}
}

// TestRequestTimeout: a request the server never answers fails after --timeout.
func TestRequestTimeout(t *testing.T) {
	start := time.Now()
	stdout, stderr, code := mcpi(t, append(fakeStdio("mute"), "--timeout", "500ms", "tools", "list")...)
	want := "mcpi: the server did not answer tools/list within 500ms (--timeout raises the bound)\n"
	if code != 2 || stderr != want || stdout != "" {
		t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant:\n%s", code, stdout, stderr, want)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("took %s", took)
	}
}

// TestServerThatDoesNotRead: a server that writes one message, then lines that are not
// JSON, and never reads its stdin (mcpi answers the lines with parse errors until the
// pipe to the server is full, and drops the answers then) is given up on after
// --timeout, and Ctrl-C ends the command too. mcpi used to hang for ever, deaf to
// --timeout and to Ctrl-C: the withdrawn request's notifications/cancelled waited for
// the pipe without a bound. (Without the message first, the bound on stray lines ends
// it at once: TestStrayStdoutFloodGivenUpOn.)
func TestServerThatDoesNotRead(t *testing.T) {
	for _, tt := range []struct {
		name      string
		args      []string
		interrupt bool
		want      string
	}{
		{name: "timeout", args: []string{"--timeout", "1s", "ping"}, want: "mcpi: the server " + strconv.Quote(fakeStdio("spoken-garbage")[1]) + " "},
		{name: "interrupt", args: []string{"--timeout", "0", "ping"}, interrupt: true, want: "mcpi: interrupted while starting a session with the server " + strconv.Quote(fakeStdio("spoken-garbage")[1]) + "\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(clitest.Context(t))
			defer cancel()
			ios, _, out, errOut := iostreams.Test()
			done := make(chan int, 1)
			go func() { done <- Main(ctx, ios, append(fakeStdio("spoken-garbage"), tt.args...), "test") }()
			if tt.interrupt {
				time.Sleep(time.Second)
				cancel()
			}
			select {
			case code := <-done:
				// (Which request the bound cut depends on how soon the probe was
				// withdrawn, with the server's output flooding in.)
				if stderr := errOut.String(); code != 2 || !strings.HasPrefix(stderr, tt.want) || !tt.interrupt && !strings.Contains(stderr, " within 1.0s (--timeout raises the bound)") || strings.Count(stderr, "\n") != 1 || out.Len() != 0 {
					t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant it to start with:\n%s", code, out, stderr, tt.want)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("mcpi did not end")
			}
		})
	}
}

// TestLongStderrLine: a server that writes a stderr line over 1 MiB is not stalled (it
// was, and mcpi then said it "did not finish initializing within 30s").
func TestLongStderrLine(t *testing.T) {
	stdout, stderr, code := mcpi(t, append(fakeStdio("stderr"), "ping")...)
	if code != 0 || stderr != "" || !strings.HasPrefix(stdout, "pong") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestInterruptBeforeTheTask: Ctrl-C while the server has not answered a task call ends
// the command within a short wait for the id (it used to wait for the id forever), and
// says that nothing is left to cancel.
func TestInterruptBeforeTheTask(t *testing.T) {
	ctx, cancel := context.WithCancel(clitest.Context(t))
	ios, _, out, errOut := iostreams.Test()
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, ios, append(fakeStdio("mute-call"), "tools", "call", "wait", "--task"), "test")
	}()
	time.Sleep(300 * time.Millisecond)
	interrupted := time.Now()
	cancel()
	select {
	case code := <-done:
		want := "mcpi: interrupted before the server answered with the task's id; the call was withdrawn, but the server may have started the task already (and may ignore the withdrawal), and with no id mcpi cannot cancel it or fetch its result\n"
		if code != 2 || errOut.String() != want || out.String() != "" {
			t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant:\n%s", code, out, errOut, want)
		}
		if took := time.Since(interrupted); took > 5*time.Second {
			t.Errorf("ended %s after the interrupt", took)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("mcpi did not end after the interrupt")
	}
}

// TestCrossOriginRedirect: --header values are not sent to another origin that the
// server redirects to; the command says where it was sent instead.
func TestCrossOriginRedirect(t *testing.T) {
	var got atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Add(1)
		w.WriteHeader(http.StatusTeapot)
	}))
	defer other.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/mcp", http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	_, stderr, code := mcpi(t, "--url", srv.URL+"/mcp", "--header", "X-Api-Key=secret", "tools", "list")
	want := "mcpi: cannot start a session with " + srv.URL + "/mcp: the server redirected to " + other.URL +
		"/mcp, another origin, which mcpi does not follow with your headers and session (name it with --url if you trust it)\n"
	if code != 2 || stderr != want {
		t.Errorf("exit %d, stderr:\n%s\nwant:\n%s", code, stderr, want)
	}
	if n := got.Load(); n != 0 {
		t.Errorf("the other origin got %d requests", n)
	}
}

// A stdio server that writes its log on stdout and never answers: the sentence says it
// did not answer, and quotes what it wrote there instead, with where its log belongs.
func TestStrayStdoutQuoted(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	_, stderr, code := mcpi(t, "--stdio", `sh -c 'echo "Server running on port 3000"; exec cat >/dev/null'`, "--protocol", "2025-11-25", "--timeout", "300ms", "tools", "list")
	want := `did not answer initialize within 300ms (--timeout raises the bound); it wrote a line on its stdout that is no MCP message ("Server running on port 3000"): a stdio server writes only MCP messages there, and its log to stderr`
	if code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, %q\nwant it to end %q", code, stderr, want)
	}
}

// A stdio server that floods its stdout with lines that are no MCP message is given up
// on once it has written more than 1,000 of them, long before --timeout (it was waited
// on until then, each line answered with a parse error); so is one that never reads
// its stdin, whose pipe the parse errors filled before the bound, which held mcpi's
// reading until --timeout. A --timeout shorter than the grace a server gets to end
// (2 s) is not what the sentence names: the server given up on is stopped at once.
func TestStrayStdoutFloodGivenUpOn(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	for _, tt := range []struct{ name, cmd, timeout string }{
		{"reads", `sh -c 'exec 3<&0; cat <&3 >/dev/null & exec yes starting'`, "1m"},
		{"never reads", `sh -c 'exec yes starting'`, "1m"},
		{"short timeout", `sh -c 'exec yes starting'`, "1s"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cmd := tt.cmd
			ctx, cancel := context.WithTimeout(clitest.Context(t), 20*time.Second)
			defer cancel()
			ios, _, out, errOut := iostreams.Test()
			code := Main(ctx, ios, []string{"--stdio", cmd, "--timeout", tt.timeout, "tools", "list"}, "test")
			want := "mcpi: gave up on the server " + strconv.Quote(cmd) + ": it wrote more than 1000 lines or 1 MiB on its stdout before its first MCP message; " +
				`it wrote 1001 lines on its stdout that are no MCP message (the last: "starting"): a stdio server writes only MCP messages there, and its log to stderr` + "\n"
			if ctx.Err() != nil || code != 2 || errOut.String() != want || out.Len() != 0 {
				t.Errorf("exit %d (test context: %v), stdout %q, stderr:\n%s\nwant:\n%s", code, ctx.Err(), out, errOut, want)
			}
		})
	}
}

// A stdio server that answers nothing, in auto mode: --timeout bounds the handshake as a
// whole (the server/discover probe and initialize), and the sentence names both.
func TestSilentServerHandshakeWithinTimeout(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	_, stderr, code := mcpi(t, "--stdio", `sh -c 'exec cat >/dev/null'`, "--timeout", "600ms", "tools", "list")
	want := `mcpi: the server "sh -c 'exec cat >/dev/null'" answered neither server/discover nor initialize within 600ms (--timeout raises the bound)` + "\n"
	if code != 2 || stderr != want {
		t.Errorf("exit %d, stderr:\n%s\nwant:\n%s", code, stderr, want)
	}
}
