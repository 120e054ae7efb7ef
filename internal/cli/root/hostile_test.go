package root

import (
	"encoding/json"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/mcpi-dev/mcpi/internal/cli/internal/clitest"
	"github.com/mcpi-dev/mcpi/internal/cli/iostreams"
	"github.com/mcpi-dev/mcpi/internal/hostile"
	"github.com/mcpi-dev/mcpi/internal/look"
	"github.com/mcpi-dev/mcpi/mcp"
)

// onTerminal runs the CLI in-process, as main does, with stdin, stdout and stderr
// terminals 80 cells wide, and input typed at its prompts.
func onTerminal(t *testing.T, input string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ios, in, out, errOut := iostreams.Test()
	in.WriteString(input)
	ios.SetStdinTTY(true)
	ios.SetStdoutTTY(true)
	ios.SetStderrTTY(true)
	ios.SetTerminalWidth(80)
	code = Main(clitest.Context(t), ios, args, "test")
	return out.String(), errOut.String(), code
}

// A server that puts escape sequences and control characters in every text it sends
// cannot retitle the terminal, write its clipboard, erase the screen, go back over a
// line or reverse text with any command: the CLI shows those characters instead, on
// stdout and stderr alike, and the only controls it writes are its own (the status
// line's carriage return and erase-line).
func TestHostileServerCannotDriveTheTerminal(t *testing.T) {
	clitest.StateDir(t)
	url := clitest.Serve(t, hostile.New()).URL
	tests := []struct {
		name  string
		args  []string
		input string
		code  int
		// shown is what must be on the screen: the payload with its controls visible.
		shown string
	}{
		{name: "tools list", args: []string{"tools", "list"}},
		{name: "prompts list", args: []string{"prompts", "list"}},
		{name: "prompts get", args: []string{"prompts", "get", hostile.Prompt}},
		{name: "resources list", args: []string{"resources", "list"}},
		{name: "resources read", args: []string{"resources", "read", hostile.ResourceURI}},
		{name: "ping", args: []string{"ping"}},
		{name: "info", args: []string{"info"}},
		{name: "tools call", args: []string{"tools", "call", hostile.Plain}},
		{name: "tools call error", args: []string{"tools", "call", hostile.Fail}, code: 1},
		{name: "tools call --task", args: []string{"tools", "call", hostile.Slow, "--task"}},
		{name: "tools call elicitation", args: []string{"tools", "call", hostile.Ask}, input: "d\n"},
		{name: "tools call --detach", args: []string{"tools", "call", hostile.Detach, "--task", "--detach"}},
		{name: "tasks get", args: []string{"tasks", "get", hostile.TaskID}},
		{name: "tasks list", args: []string{"tasks", "list"}},
		{name: "tasks watch ID", args: []string{"tasks", "watch", hostile.TaskID}},
		{name: "tasks watch", args: []string{"tasks", "watch"}},
		{name: "tasks result", args: []string{"tasks", "result", hostile.TaskID}},
		// The sentence quotes the id with %q, which shows escapes its own way.
		{name: "tasks cancel", args: []string{"tasks", "cancel", hostile.TaskID}, code: 1, shown: `\x1b]0;pwned\a`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := onTerminal(t, tt.input, append([]string{"--url", url}, tt.args...)...)
			if code != tt.code {
				t.Errorf("exit %d, want %d; stderr: %q", code, tt.code, stderr)
			}
			// The status line is redrawn with CR and erase-line: mcpi's own.
			stderr = strings.ReplaceAll(stderr, "\r\x1b[K", "")
			if bad := hostile.Injected(stdout); bad != "" {
				t.Errorf("stdout has %s", bad)
			}
			if bad := hostile.Injected(stderr); bad != "" {
				t.Errorf("stderr has %s", bad)
			}
			shown := tt.shown
			if shown == "" {
				shown = hostile.Shown[0]
			}
			if !strings.Contains(stdout+stderr, shown) {
				t.Errorf("the output does not show %q:\nstdout: %q\nstderr: %q", shown, stdout, stderr)
			}
		})
	}
}

// Every piece of the payload is shown, the newline of a one-line text as a control
// picture too, so that a server cannot forge a line of mcpi's own.
func TestHostileTextIsShownWhole(t *testing.T) {
	url := clitest.Serve(t, hostile.New()).URL
	stdout, stderr, code := onTerminal(t, "", "--url", url, "tools", "call", hostile.Plain)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range hostile.Shown {
		if !strings.Contains(stdout, want) {
			t.Errorf("the result does not show %q: %q", want, stdout)
		}
	}
	_, stderr, _ = onTerminal(t, "", "--url", url, "tools", "call", hostile.Fail)
	if strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "mcpi: the server returned an error: <␛]0;pwned␇") ||
		!strings.HasSuffix(stderr, "(JSON-RPC error -32050)\n") {
		t.Errorf("the error is not one whole mcpi: line: %q", stderr)
	}
	// A server process's last output on stderr is quoted when it exits: raw bytes.
	if _, err := exec.LookPath("sh"); err == nil {
		_, stderr, _ = onTerminal(t, "", "--stdio", `sh -c 'printf "\033]0;pwned\007\r\233x\n" >&2; exit 3'`, "tools", "list")
		if bad := hostile.Injected(stderr); bad != "" || !strings.HasSuffix(stderr, "its last output: ␛]0;pwned␇␍\uFFFDx\n") {
			t.Errorf("the server's output is not shown safely (%s): %q", bad, stderr)
		}
	}
}

// --json is for programs: it stays the exact JSON of the server's answer, with
// encoding/json's escapes and, for what a terminal would obey or what disguises text (a
// C1 control, a bidi control, an invisible character), escapes of its own, so that the
// output is the same JSON and safe to print.
func TestHostileJSONIsExact(t *testing.T) {
	url := clitest.Serve(t, hostile.New()).URL
	stdout, stderr, code := onTerminal(t, "", "--url", url, "tools", "list", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var res mcp.ListToolsResult
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatal(err)
	}
	want, _ := json.MarshalIndent(res, "", "  ")
	if stdout != string(look.SafeJSON(want))+"\n" {
		t.Errorf("--json is not the result as encoding/json writes it, made safe:\n%s\nwant\n%s", stdout, want)
	}
	// The server sent the raw byte 0x9b as U+FFFD, being JSON; the rest arrives as sent.
	sent := hostile.Mark + "\ufffd2J"
	if len(res.Tools) == 0 || res.Tools[0].Description != sent || !strings.Contains(stdout, `\u001b]0;pwned\u0007`) ||
		!strings.Contains(stdout, `forged\u009b2J\u202eevil`) {
		t.Errorf("--json changed the server's text: %s", stdout)
	}
}

// No command's --json, nor a task's event stream, writes a control a terminal obeys:
// a C1 control such as U+009B (CSI) or a bidi override, which encoding/json leaves as
// they are, is written as a JSON escape, and the output is still JSON.
func TestHostileJSONCannotDriveTheTerminal(t *testing.T) {
	clitest.StateDir(t)
	url := clitest.Serve(t, hostile.New()).URL
	for _, args := range [][]string{
		{"tools", "list"}, {"prompts", "list"}, {"prompts", "get", hostile.Prompt}, {"resources", "list"},
		{"resources", "read", hostile.ResourceURI}, {"ping"}, {"info"}, {"tools", "call", hostile.Plain},
		{"tools", "call", hostile.Fail}, {"tools", "call", hostile.Slow, "--task"},
		{"tools", "call", hostile.Detach, "--task", "--detach"}, {"tasks", "get", hostile.TaskID}, {"tasks", "list"},
		{"tasks", "list", "--local"}, {"tasks", "watch", hostile.TaskID}, {"tasks", "watch"}, {"tasks", "result", hostile.TaskID},
		{"tasks", "cancel", hostile.TaskID},
	} {
		t.Run(strings.Join(args[:min(len(args), 2)], " "), func(t *testing.T) {
			server := []string{"--url", url}
			if slices.Contains(args, "--local") {
				server = nil
			}
			stdout, stderr, code := onTerminal(t, "", append(append(server, args...), "--json")...)
			if strings.TrimSpace(stdout) == "" && code == 0 {
				t.Fatalf("no JSON; stderr: %q", stderr)
			}
			if bad := hostile.Injected(stdout); bad != "" {
				t.Errorf("stdout has %s", bad)
			}
			if bad := hostile.Injected(stderr); bad != "" {
				t.Errorf("stderr has %s", bad)
			}
			dec := json.NewDecoder(strings.NewReader(stdout))
			for {
				var v any
				if err := dec.Decode(&v); err == io.EOF {
					break
				} else if err != nil {
					t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
				}
			}
		})
	}
}
