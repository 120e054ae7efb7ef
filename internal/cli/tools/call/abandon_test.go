package call

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/internal/clitest"
	"github.com/mcpi-dev/mcpi/internal/cli/state"
	"github.com/mcpi-dev/mcpi/mcp"
)

// In 2026-07-28 a task whose input the answers file cannot give is cancelled by mcpi (the
// Tasks extension has no way to refuse input): the sentence says why the input was not
// given, and that the task was cancelled for it.
func TestTaskCancelledForAnswersThatDoNotFit(t *testing.T) {
	bad := clitest.WriteFile(t, "bad.json", `{"elicitation": {"ask_task": {"colour": "blue"}}}`)
	env := clitest.New(t, &connect.Selection{Protocol: mcp.ProtocolVersion20260728})
	msg, code := clitest.Describe(runIn(t, env, &Options{Name: "ask_task", Task: true, Answers: bad}))
	if code != 2 || !strings.HasPrefix(msg, "mcpi: the answers file "+bad+` does not fit the form the server sent for the tool "ask_task": field "colour" is not a field of this form`) ||
		!strings.Contains(msg, `; so mcpi cancelled the task "`) || !strings.HasSuffix(msg, `" (in protocol 2026-07-28 a task's input cannot be refused)`) {
		t.Errorf("got %q (exit %d)", msg, code)
	}
}

// --detach whose task cannot be recorded (the state file cannot be written) still prints
// the id, and the sentence says first that the task was created and runs, then why it
// was not recorded, and how to get its result without the record.
func TestDetachUnrecorded(t *testing.T) {
	file := clitest.WriteFile(t, "not-a-dir", "x")
	url := clitest.DemoHTTP(t, nil)
	env := clitest.New(t, &connect.Selection{URL: url, Protocol: mcp.LatestProtocolVersion})
	err := runIn(t, env, &Options{Name: "slow_task", Args: []string{"seconds=30"}, Task: true, Detach: true,
		State: &state.Store{Path: filepath.Join(file, state.FileName)}})
	id := strings.TrimSpace(env.Out.String())
	msg, code := clitest.Describe(err)
	want := `mcpi: the task "` + id + `" was created and runs on the server, but mcpi could not record it (`
	if id == "" || code != 2 || !strings.HasPrefix(msg, want) || !strings.HasSuffix(msg, `): get its result with "mcpi --url `+url+` --protocol 2025-11-25 tasks result `+id+`"`) {
		t.Errorf("stdout %q; got %q (exit %d), want %q...", env.Out, msg, code, want)
	}
}

// The command that fetches a task mcpi could not record names the server's flags, but
// not the values of --header (a bearer token), which it printed on the terminal and into
// logs: they are [redacted], and the sentence says to give them again.
func TestDetachUnrecordedHidesHeaderValues(t *testing.T) {
	file := clitest.WriteFile(t, "not-a-dir", "x")
	url := clitest.DemoHTTP(t, nil)
	env := clitest.New(t, &connect.Selection{URL: url, Protocol: mcp.LatestProtocolVersion, Headers: []string{"Authorization=Bearer sekrit"}})
	err := runIn(t, env, &Options{Name: "slow_task", Args: []string{"seconds=30"}, Task: true, Detach: true,
		State: &state.Store{Path: filepath.Join(file, state.FileName)}})
	id := strings.TrimSpace(env.Out.String())
	msg, code := clitest.Describe(err)
	want := `: get its result with "mcpi --url ` + url + ` --header 'Authorization=[redacted]' --protocol 2025-11-25 tasks result ` + id +
		`" (mcpi does not show the values of --header and --env: give yours again in place of [redacted])`
	if id == "" || code != 2 || !strings.HasSuffix(msg, want) || strings.Contains(msg, "sekrit") {
		t.Errorf("got %q (exit %d), want ...%q", msg, code, want)
	}
}
