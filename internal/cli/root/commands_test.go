package root

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/factory"
	"github.com/mcpi-dev/mcpi/internal/cli/internal/clitest"
	"github.com/mcpi-dev/mcpi/internal/cli/iostreams"
	"github.com/mcpi-dev/mcpi/internal/cli/ping"
	promptget "github.com/mcpi-dev/mcpi/internal/cli/prompts/get"
	promptlist "github.com/mcpi-dev/mcpi/internal/cli/prompts/list"
	resourcelist "github.com/mcpi-dev/mcpi/internal/cli/resources/list"
	"github.com/mcpi-dev/mcpi/internal/cli/resources/read"
	"github.com/mcpi-dev/mcpi/internal/cli/resources/templates"
)

// The other commands, through their run functions, against the embedded demo server.
func TestCommands(t *testing.T) {
	tests := []struct {
		name string
		run  func(env *clitest.Env) error
		want []string // substrings of stdout
		json string   // the top-level key of the --json output, if it is JSON
	}{
		{"prompts list", func(e *clitest.Env) error {
			return promptlist.Run(clitest.Context(t), &promptlist.Options{IO: e.IO, Connect: e.Factory.Connect})
		}, []string{"NAME", "ARGUMENTS", "greet"}, ""},
		{"prompts list --json", func(e *clitest.Env) error {
			return promptlist.Run(clitest.Context(t), &promptlist.Options{IO: e.IO, Connect: e.Factory.Connect, JSON: true})
		}, []string{`"name": "greet"`}, "prompts"},
		{"prompts get", func(e *clitest.Env) error {
			return promptget.Run(clitest.Context(t), &promptget.Options{IO: e.IO, Connect: e.Factory.Connect, Name: "greet", Args: []string{"name=Ada"}})
		}, []string{"[user]", "Ada"}, ""},
		{"prompts get --json", func(e *clitest.Env) error {
			return promptget.Run(clitest.Context(t), &promptget.Options{IO: e.IO, Connect: e.Factory.Connect, Name: "greet", Args: []string{"name=Ada"}, JSON: true})
		}, []string{"Ada"}, "messages"},
		{"resources list", func(e *clitest.Env) error {
			return resourcelist.Run(clitest.Context(t), &resourcelist.Options{IO: e.IO, Connect: e.Factory.Connect})
		}, []string{"URI", "demo://about"}, ""},
		{"resources templates --json", func(e *clitest.Env) error {
			return templates.Run(clitest.Context(t), &templates.Options{IO: e.IO, Connect: e.Factory.Connect, JSON: true})
		}, []string{"demo://greetings/{name}"}, "resourceTemplates"},
		{"resources read", func(e *clitest.Env) error {
			return read.Run(clitest.Context(t), &read.Options{IO: e.IO, Connect: e.Factory.Connect, URI: "demo://greetings/Bob"})
		}, []string{"Bob"}, ""},
		{"resources read --json", func(e *clitest.Env) error {
			return read.Run(clitest.Context(t), &read.Options{IO: e.IO, Connect: e.Factory.Connect, URI: "demo://about", JSON: true})
		}, []string{`"uri": "demo://about"`}, "contents"},
		{"ping --json", func(e *clitest.Env) error {
			return ping.Run(clitest.Context(t), &ping.Options{IO: e.IO, Connect: e.Factory.Connect, JSON: true})
		}, []string{"roundTripMs"}, "roundTripMs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := clitest.New(t, nil)
			if err := tt.run(env); err != nil {
				msg, _ := clitest.Describe(err)
				t.Fatal(msg)
			}
			out := env.Out.String()
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
			if tt.json != "" {
				var m map[string]json.RawMessage
				if err := json.Unmarshal(env.Out.Bytes(), &m); err != nil || m[tt.json] == nil {
					t.Errorf("stdout is not a JSON object with %q: %v\n%s", tt.json, err, out)
				}
			}
		})
	}
}

// The help texts agree with each other and with what the commands do: the terminal
// and the web inspector offer the same ttl for task calls, "serve conformance" shows
// --http as optional (it serves on stdio without it), and "mcpi --help" names every
// variable mcpi reads.
func TestHelpAgrees(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	sel := &connect.Selection{}
	cmd := NewCmd(factory.New(ios, sel, "test"), sel)
	find := func(path ...string) *cobra.Command {
		c, _, err := cmd.Find(path)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	if tui, web := find("tui").Flag("task-ttl").DefValue, find("web").Flag("task-ttl").DefValue; tui != web {
		t.Errorf("--task-ttl defaults to %s in mcpi tui, %s in mcpi web", tui, web)
	}
	if use := find("serve", "conformance").UseLine(); !strings.Contains(use, "[--http ADDR]") {
		t.Errorf("serve conformance: usage %q", use)
	}
	for _, v := range []string{"$MCPI_CLIENT_SECRET", "$MCPI_TOKEN_STORE", "$MCPI_STATE_DIR", "$XDG_STATE_HOME"} {
		if !strings.Contains(cmd.Long, v) && !strings.Contains(cmd.PersistentFlags().FlagUsages(), v) {
			t.Errorf("mcpi --help does not name %s", v)
		}
	}
}

// An empty task id is bad usage, as a missing one is: a script's
// id=$(mcpi ... --detach) that failed must not go on to watch every task, nor send the
// server a request for the task "".
func TestEmptyTaskID(t *testing.T) {
	clitest.StateDir(t)
	for _, verb := range []string{"watch", "result", "get", "cancel"} {
		stdout, stderr, code := mcpi(t, "tasks", verb, "")
		want := `mcpi: "mcpi tasks ` + verb + `" was given an empty task id; give the id of a task ("mcpi tasks list" lists them)` + "\n"
		if code != 2 || stderr != want || stdout != "" {
			t.Errorf("tasks %s \"\": exit %d, stdout %q, stderr %q\nwant exit 2 and %q", verb, code, stdout, stderr, want)
		}
	}
}
