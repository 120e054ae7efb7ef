package get

import (
	"strings"
	"testing"

	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/internal/clitest"
)

func run(t *testing.T, protocol string, opts *Options) (*clitest.Env, string, int) {
	t.Helper()
	env := clitest.New(t, &connect.Selection{URL: clitest.Serve(t, clitest.AskingServer()).URL, Protocol: protocol})
	opts.IO, opts.Connect = env.IO, env.Factory.Connect
	msg, code := clitest.Describe(Run(clitest.Context(t), opts))
	return env, msg, code
}

// A prompt whose server asks for input (2026-07-28: input_required on prompts/get; 2025-11-25:
// an elicitation/create while it answers) is answered from --answers, keyed by the
// prompt's name; without an answer the command says how to give one, and exits 2.
func TestPromptInputFromAnswers(t *testing.T) {
	answers := clitest.WriteFile(t, "answers.json", `{"elicitation": {"ask_prompt": {"topic": "go"}}}`)
	for _, protocol := range []string{"2026-07-28", "2025-11-25"} {
		env, msg, code := run(t, protocol, &Options{Name: "ask_prompt", Answers: answers})
		if code != 0 || !strings.Contains(env.Out.String(), "Topic: go") {
			t.Errorf("%s: %q (exit %d), stdout %q", protocol, msg, code, env.Out)
		}
		env, msg, code = run(t, protocol, &Options{Name: "ask_prompt"})
		want := `mcpi: the server asked for the user's input (elicitation for the prompt "ask_prompt"), which mcpi can only give on a terminal or from an answers file; run it on a terminal, or pass --answers FILE with {"elicitation": {"ask_prompt": {"topic": "..."}}}`
		if code != 2 || msg != want || env.Out.Len() != 0 {
			t.Errorf("%s, no answer:\n got %q (exit %d)\nwant %q (exit 2); stdout %q", protocol, msg, code, want, env.Out)
		}
	}
}
