package call

import (
	"testing"

	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/internal/clitest"
)

// askingIn returns an environment that selects clitest.AskingServer over Streamable HTTP
// in the protocol era given.
func askingIn(t *testing.T, protocol string) *clitest.Env {
	t.Helper()
	return clitest.New(t, &connect.Selection{URL: clitest.Serve(t, clitest.AskingServer()).URL, Protocol: protocol})
}

var eras = []string{"2026-07-28", "2025-11-25"}

// A tool that asks several forms (two at once, then a third) is answered from one
// answer for the tool: each form takes the fields that are its own.
func TestAnswersForSeveralForms(t *testing.T) {
	answers := clitest.WriteFile(t, "answers.json", `{"elicitation": {"ask_multi": {"color": "red", "age": "42", "ok": "true", "yes": "true"}}}`)
	for _, protocol := range eras {
		env := askingIn(t, protocol)
		checkErr(t, runIn(t, env, &Options{Name: "ask_multi", Answers: answers}), "", 0)
		want := `{"age":{"action":"accept","content":{"age":42,"ok":true}},"color":{"action":"accept","content":{"color":"red"}},"confirm":{"action":"accept","content":{"yes":true}}}` + "\n"
		if got := env.Out.String(); got != want {
			t.Errorf("%s: stdout\n %q\nwant\n %q", protocol, got, want)
		}
	}
}

// In 2026-07-28 an answer may name the input request's key (TOOL#KEY), before the
// tool's own answer.
func TestAnswersByInputKey(t *testing.T) {
	answers := clitest.WriteFile(t, "answers.json", `{"elicitation": {
		"ask_multi#color": {"color": "green"}, "ask_multi#confirm": "decline",
		"ask_multi": {"age": 7, "color": "red"}}}`)
	env := askingIn(t, "2026-07-28")
	checkErr(t, runIn(t, env, &Options{Name: "ask_multi", Answers: answers}), "", 0)
	want := `{"age":{"action":"accept","content":{"age":7}},"color":{"action":"accept","content":{"color":"green"}},"confirm":{"action":"decline"}}` + "\n"
	if got := env.Out.String(); got != want {
		t.Errorf("stdout\n %q\nwant\n %q", got, want)
	}
}

// An answer that gives no field of the form is still refused, and names the form's
// fields; so is an answer by input key with a field the form does not have.
func TestAnswersThatFitNoForm(t *testing.T) {
	for _, tt := range []struct{ file, want string }{
		{`{"elicitation": {"ask_two": {"nme": "Ada"}}, "sampling": {"*": "hi"}}`,
			`field "nme" is not a field of this form (its fields: name)`},
		{`{"elicitation": {"ask_two#a": {"name": "Ada", "age": 3}}, "sampling": {"*": "hi"}}`,
			`field "age" is not a field of this form (its fields: name)`},
	} {
		file := clitest.WriteFile(t, "answers.json", tt.file)
		env := askingIn(t, "2026-07-28")
		checkErr(t, runIn(t, env, &Options{Name: "ask_two", Answers: file}),
			`mcpi: the answers file `+file+` does not fit the form the server sent for the tool "ask_two": `+tt.want, 2)
	}
}

// A URL elicitation is accepted from the file by "accept" (or an answer of no fields),
// and the page to open is said on stderr, as on a terminal; without an answer, the
// example says "accept". Fields are no answer to it.
func TestAnswersForURLElicitation(t *testing.T) {
	for _, protocol := range eras {
		for _, file := range []string{`{"elicitation": {"ask_url": "accept"}}`, `{"elicitation": {"*": {}}}`} {
			answers := clitest.WriteFile(t, "answers.json", file)
			env := askingIn(t, protocol)
			checkErr(t, runIn(t, env, &Options{Name: "ask_url", Answers: answers}), "", 0)
			if got, want := env.Out.String(), `{"action":"accept"}`+"\n"; got != want {
				t.Errorf("%s, %s: stdout %q, want %q", protocol, file, got, want)
			}
			want := "The answers file " + answers + " accepts the server's request to open " + clitest.AskURL + " (Open this page to log in)\n"
			if got := env.ErrOut.String(); got != want {
				t.Errorf("%s, %s: stderr\n %q\nwant\n %q", protocol, file, got, want)
			}
		}
		env := askingIn(t, protocol)
		checkErr(t, runIn(t, env, &Options{Name: "ask_url"}),
			`mcpi: the server asked for the user's input (elicitation for the tool "ask_url"), which mcpi can only give on a terminal or from an answers file; run it on a terminal, or pass --answers FILE with {"elicitation": {"ask_url": "accept"}}`, 2)
		answers := clitest.WriteFile(t, "answers.json", `{"elicitation": {"ask_url": {"name": "Ada"}}}`)
		env = askingIn(t, protocol)
		checkErr(t, runIn(t, env, &Options{Name: "ask_url", Answers: answers}),
			`mcpi: the answers file `+answers+` answers the server's URL elicitation for the tool "ask_url" with fields, which it has none of; answer it "accept", "decline" or "cancel"`, 2)
	}
}

// A round of 2026-07-28 that asks for several inputs at once, none of which mcpi can
// give, is refused with a sentence that names every answer missing, keyed by input key
// where a tool asks several of a kind at once.
func TestEveryMissingInputNamed(t *testing.T) {
	const tail = `, which mcpi can only give on a terminal or from an answers file; run it on a terminal, or pass --answers FILE with `
	env := askingIn(t, "2026-07-28")
	checkErr(t, runIn(t, env, &Options{Name: "ask_two"}),
		`mcpi: the server asked for the user's input (elicitation and sampling for the tool "ask_two")`+tail+
			`{"elicitation": {"ask_two": {"name": "..."}}, "sampling": {"ask_two": "the model's reply"}}`, 2)
	env = askingIn(t, "2026-07-28")
	checkErr(t, runIn(t, env, &Options{Name: "ask_multi"}),
		`mcpi: the server asked for the user's input (elicitation for the tool "ask_multi")`+tail+
			`{"elicitation": {"ask_multi#age": {"age": 0, "ok": false}, "ask_multi#color": {"color": "red"}}}`, 2)
	// What the file answers is not asked for again.
	answers := clitest.WriteFile(t, "answers.json", `{"sampling": {"*": "hi"}}`)
	env = askingIn(t, "2026-07-28")
	checkErr(t, runIn(t, env, &Options{Name: "ask_two", Answers: answers}),
		`mcpi: the server asked for the user's input (elicitation for the tool "ask_two"), and the answers file `+answers+
			` has no answer for it; add one, such as {"elicitation": {"ask_two": {"name": "..."}}}, or run mcpi on a terminal`, 2)
}
