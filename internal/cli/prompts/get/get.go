// Package get implements "mcpi prompts get".
package get

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/iostreams"
	"github.com/mcpi-dev/mcpi/internal/cli/render"
	"github.com/mcpi-dev/mcpi/mcp"
)

// Options are the inputs of "prompts get".
type Options struct {
	IO      *iostreams.IOStreams
	Connect cmdutil.ConnectFunc

	Name string
	// Args are --arg values, NAME=VALUE; prompt arguments are always strings.
	Args []string
	JSON bool
	// Answers is the --answers file.
	Answers string
}

// NewCmd returns the command; runF replaces [Run] in tests of the flag handling.
func NewCmd(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{IO: f.IOStreams, Connect: f.Connect}
	cmd := &cobra.Command{
		Use:   "get NAME [--arg NAME=VALUE ...]",
		Short: "Render a prompt",
		Example: `  mcpi prompts get greet --arg name=Ada
  mcpi prompts get ask_prompt --answers answers.json   # the server asks for input`,
		Args: cmdutil.ExactArgsKV(1, "the name of a prompt", "--arg", &opts.Args),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return Run(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringArrayVar(&opts.Args, "arg", nil, "set the argument `NAME=VALUE` (repeatable)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the GetPromptResult as JSON")
	cmdutil.AnswersFlag(cmd, &opts.Answers)
	return cmd
}

// Run renders the prompt.
func Run(ctx context.Context, opts *Options) error {
	args := map[string]string{}
	for _, a := range opts.Args {
		k, v, err := cmdutil.SplitKV("--arg", a)
		if err != nil {
			return err
		}
		args[k] = v
	}
	sess, err := opts.Connect(ctx, cmdutil.RequestPolicy{Answers: opts.Answers, Tool: opts.Name, Kind: "prompt"})
	if err != nil {
		return err
	}
	defer sess.Close()
	if err := cmdutil.NeedPrompts(sess.Session); err != nil {
		return err
	}
	if err := checkPrompt(ctx, sess.Session, opts.Name, args); err != nil {
		return err
	}
	p := &mcp.GetPromptParams{Name: opts.Name}
	if len(args) > 0 {
		p.Arguments = args
	}
	res, err := sess.GetPrompt(ctx, p)
	refused := sess.RefusalAfter(err)
	if err != nil {
		if refused != nil {
			return refused
		}
		return err
	}
	if opts.JSON {
		if err := cmdutil.PrintJSON(opts.IO.Out, res); err != nil {
			return err
		}
	} else {
		render.PromptResult(opts.IO, res)
	}
	// The server went on without an answer mcpi could not give: its result is printed,
	// and the exit status says that the input was missing.
	return refused
}

// checkPrompt refuses, before it is asked for, a prompt the server does not list or one
// left without an argument it requires, as "tools call" checks a tool's arguments
// against its schema: the mistake is the user's (exit 2), and the sentence says what to
// type. A listing that fails leaves it to the server.
func checkPrompt(ctx context.Context, sess *client.Session, name string, args map[string]string) error {
	var names []string
	for p, err := range sess.Prompts(ctx, nil) {
		if err != nil {
			return nil
		}
		if p.Name != name {
			names = append(names, p.Name)
			continue
		}
		for _, a := range p.Arguments {
			if _, ok := args[a.Name]; a.Required && !ok {
				return cmdutil.UsageErrorf("the prompt %q needs the argument %q: give --arg %s=VALUE", name, a.Name, a.Name)
			}
		}
		return nil
	}
	return cmdutil.UnknownName("prompt", name, names, "mcpi prompts list")
}
