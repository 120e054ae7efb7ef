package cmdutil

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpi-dev/mcpi/internal/plural"
)

// ExactArgs is cobra.ExactArgs with a usage error that says what is missing.
func ExactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch {
		case len(args) < n:
			return UsageErrorf("%q needs %s", cmd.CommandPath(), what)
		case len(args) > n:
			return UsageErrorf("%q takes %s, but was given %s", cmd.CommandPath(), what, plural.Count(len(args), "argument", "arguments"))
		}
		return nil
	}
}

// ExactArgsKV is [ExactArgs] for a command with a repeatable NAME=VALUE flag (--arg)
// whose values are in *values: a value without "=" followed by one argument too many is
// the space typed in place of the "=", and is said so.
func ExactArgsKV(n int, what, flag string, values *[]string) cobra.PositionalArgs {
	exact := ExactArgs(n, what)
	return func(cmd *cobra.Command, args []string) error {
		if len(args) > n {
			for _, v := range *values {
				if !strings.Contains(v, "=") {
					return UsageErrorf("%s wants NAME=VALUE in one word: %s %s=%s, not %s %s %s", flag, flag, v, args[n], flag, v, args[n])
				}
			}
		}
		return exact(cmd, args)
	}
}

// TaskIDArgs checks the arguments of a command that takes one task id, or at most one
// when optional. An empty id is bad usage, as a missing one is: it is what a script
// passes on when the command that should have printed the id failed
// (id=$(mcpi ... --detach)), and no server gives a task the id "".
func TaskIDArgs(optional bool) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch {
		case len(args) > 1 && optional:
			return UsageErrorf("%q takes at most one task id, but was given %d arguments", cmd.CommandPath(), len(args))
		case len(args) == 0 && optional:
			return nil
		}
		if err := ExactArgs(1, "a task id")(cmd, args); err != nil {
			return err
		}
		if args[0] == "" {
			return UsageErrorf("%q was given an empty task id; give the id of a task (\"mcpi tasks list\" lists them)", cmd.CommandPath())
		}
		return nil
	}
}

// NoArgs is cobra.NoArgs with a usage error.
func NoArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		if cmd.HasSubCommands() {
			// cobra's own suggestions come with its error, which this one replaces.
			var names []string
			for _, c := range cmd.Commands() {
				if c.IsAvailableCommand() {
					names = append(names, c.Name())
				}
			}
			if near := Closest(args[0], names); near != "" {
				return UsageErrorf("%q has no command %q; did you mean %q?", cmd.CommandPath(), args[0], near)
			}
			return UsageErrorf("%q has no command %q", cmd.CommandPath(), args[0])
		}
		return UsageErrorf("%q takes no arguments, but was given %q", cmd.CommandPath(), strings.Join(args, " "))
	}
	return nil
}

// SplitKV splits a flag value of the form KEY=VALUE.
func SplitKV(flag, s string) (key, value string, err error) {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return "", "", UsageErrorf("%s wants KEY=VALUE, not %q", flag, s)
	}
	return k, v, nil
}

// FlagErrorFunc turns cobra's flag parsing errors into usage errors.
func FlagErrorFunc(_ *cobra.Command, err error) error {
	return &UsageError{Msg: fmt.Sprint(err)}
}

// ShowHelp is the RunE of a command that only groups others: without arguments it
// prints its help, with one it names the unknown command.
func ShowHelp(cmd *cobra.Command, args []string) error {
	if err := NoArgs(cmd, args); err != nil {
		return err
	}
	return cmd.Help()
}

// AnswersFlag adds --answers FILE to cmd, for the commands whose server may ask for the
// user's input; [RequestPolicy.Answers] takes the file.
func AnswersFlag(cmd *cobra.Command, file *string) {
	cmd.Flags().StringVar(file, "answers", "", "answer the server's elicitation and sampling requests from `FILE`")
}

// ShellQuote quotes s for a POSIX shell when it needs it.
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@%+,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// UnknownName is the error of a name (of a tool, a prompt) that the server does not
// have: with the closest of names when one is close ("did you mean"), else with the
// command that lists them (list, such as "mcpi tools list").
func UnknownName(what, name string, names []string, list string) error {
	if near := Closest(name, names); near != "" {
		return UsageErrorf("the server has no %s named %q; did you mean %q?", what, name, near)
	}
	return UsageErrorf("the server has no %s named %q (%q lists its %ss)", what, name, list, what)
}

// Closest returns the one of names nearest to name, for a "did you mean": one it is a
// prefix of, or within two edits of it and fewer than its length, case ignored; "" if
// none is.
func Closest(name string, names []string) string {
	lower := strings.ToLower(name)
	best, bestD := "", 3
	for _, n := range names {
		ln := strings.ToLower(n)
		d := distance(lower, ln)
		if strings.HasPrefix(ln, lower) && lower != "" {
			d = min(d, 1)
		}
		if d < bestD && d < len(name) {
			best, bestD = n, d
		}
	}
	return best
}

// distance is the Levenshtein distance of a and b, in bytes.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
