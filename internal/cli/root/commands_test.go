package root

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpi-dev/mcpi/internal/cli/internal/clitest"
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
