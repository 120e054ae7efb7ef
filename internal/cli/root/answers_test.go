package root

import (
	"testing"

	"github.com/mcpi-dev/mcpi/internal/cli/internal/clitest"
)

// An answers file's values are read by the types of the form the demo's ask_user sends,
// in both revisions (MRTR in 2026-07-28, elicitation/create in 2025-11-25); one that
// cannot fit is never sent, and mcpi says which field is wrong. Without an answer, the
// example it suggests has a value of each field's type.
func TestAnswersFitTheForm(t *testing.T) {
	state := t.TempDir()
	good := clitest.WriteFile(t, "good.json", `{"elicitation": {"ask_user": {"name": "Ada", "subscribe": "true", "color": "red"}}}`)
	bad := clitest.WriteFile(t, "bad.json", `{"elicitation": {"*": {"name": "Ada", "subscribe": "maybe"}}}`)
	for _, protocol := range []string{"2026-07-28", "2025-11-25"} {
		stdout, stderr, code := run(t, state, "--protocol", protocol, "tools", "call", "ask_user", "--answers", good)
		if want := "Hello, Ada! Favourite colour: red. Subscribed: yes.\n"; code != 0 || stdout != want {
			t.Errorf("%s, good answers: exit %d, stdout %q (want %q), stderr %q", protocol, code, stdout, want, stderr)
		}
		stdout, stderr, code = run(t, state, "--protocol", protocol, "tools", "call", "ask_user", "--answers", bad)
		want := "mcpi: the answers file " + bad + ` does not fit the form the server sent for the tool "ask_user": field "subscribe" must be a boolean, not a string` + "\n"
		if code != 2 || stderr != want {
			t.Errorf("%s, bad answers: exit %d, stdout %q, stderr\n %q\nwant\n %q", protocol, code, stdout, stderr, want)
		}
		_, stderr, code = run(t, state, "--protocol", protocol, "tools", "call", "ask_user")
		want = `mcpi: the server asked for the user's input (elicitation for the tool "ask_user"), which mcpi can only give on a terminal or from an answers file; run it on a terminal, or pass --answers FILE with {"elicitation": {"ask_user": {"color": "blue", "name": "...", "subscribe": false}}}` + "\n"
		if code != 2 || stderr != want {
			t.Errorf("%s, no answers: exit %d, stderr\n %q\nwant\n %q", protocol, code, stderr, want)
		}
	}
}

// In 2026-07-28 a refusal cannot be sent back: the call ends in mcpi, which says so
// rather than putting its own refusal in the server's mouth.
func TestDeclinedInputIsNotTheServers(t *testing.T) {
	state := t.TempDir()
	decline := clitest.WriteFile(t, "decline.json", `{"sampling": {"*": "decline"}}`)
	_, stderr, code := run(t, state, "--protocol", "2026-07-28", "tools", "call", "ask_model", "--arg", "prompt=hi", "--answers", decline)
	want := `mcpi: the server's sampling/createMessage request was not answered, so the call ended: the answers file ` + decline + ` declines sampling for the tool "ask_model"` + "\n"
	if code != 1 || stderr != want {
		t.Errorf("exit %d, stderr\n %q\nwant\n %q", code, stderr, want)
	}
}

// --detach --json of a call the 2026-07-28 server answers at once prints the answer as
// the one event line it is, as --task --json does (it printed the result pretty, over
// many lines, unlike any other --json output of a task call).
func TestDetachedCallAnsweredAtOnce(t *testing.T) {
	url := serveDemoHTTP(t)
	stdout, stderr, code := run(t, t.TempDir(), "--url", url, "tools", "call", "add", "--arg", "a=1", "--arg", "b=2", "--task", "--detach", "--json")
	evs := eventLines(t, stdout)
	if code != 0 || len(evs) != 1 || evs[0].Event != "result" || evs[0].Result == nil || evs[0].Result.Content[0].Text != "3" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}
