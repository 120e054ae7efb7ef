package call

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/internal/clitest"
	"github.com/mcpi-dev/mcpi/mcp"
)

func run(t *testing.T, opts *Options) (*clitest.Env, error) {
	t.Helper()
	env := clitest.New(t, nil)
	return env, runIn(t, env, opts)
}

// runIn runs the command in env, with everything the factory gives it.
func runIn(t *testing.T, env *clitest.Env, opts *Options) error {
	t.Helper()
	opts.IO = env.IO
	opts.Connect = env.Factory.Connect
	opts.Selection = env.Selection
	if opts.Tick == 0 {
		opts.Tick = -1
	}
	return Run(clitest.Context(t), opts)
}

func TestAddJSON(t *testing.T) {
	env, err := run(t, &Options{Name: "add", Args: []string{"a=2", "b=3"}, JSON: true})
	if err != nil {
		t.Fatal(err)
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal(env.Out.Bytes(), &res); err != nil {
		t.Fatalf("output is not a CallToolResult: %v\n%s", err, env.Out)
	}
	if res.IsError || len(res.Content) != 1 || res.Content[0].Type != "text" || res.Content[0].Text != "5" {
		t.Errorf("result = %s, want one text block \"5\"", env.Out)
	}
}

func TestAddHuman(t *testing.T) {
	env, err := run(t, &Options{Name: "add", ArgsJSON: `{"a": 1, "b": 1}`, Args: []string{"a=40", "b=2"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := env.Out.String(); got != "42\n" {
		t.Errorf("stdout = %q, want %q", got, "42\n")
	}
}

func TestBadInput(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		want string
		code int
	}{
		{"unknown tool", Options{Name: "x"}, `mcpi: the server has no tool named "x" ("mcpi tools list" lists its tools)`, 2},
		{"missing argument", Options{Name: "add", Args: []string{"a=2"}}, `mcpi: argument "b" is required`, 2},
		{"wrong type", Options{Name: "add", Args: []string{"a=two", "b=3"}}, `mcpi: argument "a" must be a number, not a string`, 2},
		{"wrong type in JSON", Options{Name: "add", ArgsJSON: `{"a": 1, "b": true}`}, `mcpi: argument "b" must be a number, not a boolean`, 2},
		{"--arg without =", Options{Name: "add", Args: []string{"a"}}, `mcpi: --arg wants KEY=VALUE, not "a"`, 2},
		{"--args-json not an object", Options{Name: "add", ArgsJSON: `[1]`}, `mcpi: --args-json must be a JSON object, such as '{"a": 1}'`, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, err := run(t, &tt.opts)
			msg, code := clitest.Describe(err)
			if msg != tt.want || code != tt.code {
				t.Errorf("got %q (exit %d), want %q (exit %d)", msg, code, tt.want, tt.code)
			}
			if env.Out.Len() != 0 {
				t.Errorf("stdout: %s", env.Out)
			}
		})
	}
}

func TestElicitationWithoutTerminal(t *testing.T) {
	env, err := run(t, &Options{Name: "ask_user", JSON: true})
	msg, code := clitest.Describe(err)
	if code != cmdutil.ExitUsage || !strings.Contains(msg, "run it on a terminal") {
		t.Errorf("got %q (exit %d), want the run-on-a-terminal error (exit 2); stdout: %s", msg, code, env.Out)
	}
}

func TestElicitationOnTerminal(t *testing.T) {
	env := clitest.New(t, nil)
	env.IO.SetStdinTTY(true)
	env.IO.SetStderrTTY(true)
	// Answer the form: accept, name Ada, colour 1 (red), subscribe y.
	env.In.WriteString("\nAda\n1\ny\n")
	err := Run(clitest.Context(t), &Options{IO: env.IO, Connect: env.Factory.Connect, Name: "ask_user"})
	if err != nil {
		msg, _ := clitest.Describe(err)
		t.Fatalf("%s\nprompts:\n%s", msg, env.ErrOut)
	}
	if got, want := env.Out.String(), "Hello, Ada! Favourite colour: red. Subscribed: yes.\n"; got != want {
		t.Errorf("stdout = %q, want %q", got, want)
	}
	if !strings.Contains(env.ErrOut.String(), "Favourite colour") {
		t.Errorf("the prompts do not show the field titles:\n%s", env.ErrOut)
	}
}

func TestSamplingWithoutTerminal(t *testing.T) {
	env, err := run(t, &Options{Name: "ask_model", Args: []string{"prompt=hi"}})
	msg, code := clitest.Describe(err)
	if code != cmdutil.ExitUsage || !strings.Contains(msg, `(sampling for the tool "ask_model")`) || !strings.Contains(msg, "run it on a terminal") || !strings.Contains(msg, "--answers FILE") {
		t.Errorf("got %q (exit %d); stdout: %s", msg, code, env.Out)
	}
}
