// Package result implements "mcpi tasks result".
package result

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/render"
	"github.com/mcpi-dev/mcpi/internal/cli/tasks/shared"
	"github.com/mcpi-dev/mcpi/jsonrpc"
)

// Options are the inputs of "tasks result".
type Options struct {
	shared.Options
	// InputRefused, UseAnswers and SetRequestTool: see [cmdutil.Factory].
	InputRefused   func() error
	UseAnswers     func(file string) error
	SetRequestTool func(tool string)

	ID      string
	Answers string
}

// NewCmd returns the command; runF replaces [Run] in tests of the flag handling.
func NewCmd(f *cmdutil.Factory, sel *connect.Selection, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{Options: shared.NewOptions(f, sel), InputRefused: f.InputRefused, UseAnswers: f.UseAnswers, SetRequestTool: f.SetRequestTool}
	cmd := &cobra.Command{
		Use:   "result ID [--answers FILE]",
		Short: "Wait for a task's result and print it",
		Long: `Wait until a task ends and print its result (tasks/result): exactly what the
tool call would have returned. With --json: the CallToolResult.

Without server flags, a task recorded in the local state file (by --detach, or
Ctrl-C while following) is fetched from the server it was started on.

While it waits, the server may ask for input for the task (elicitation, sampling):
it is answered at a prompt on a terminal, or from --answers FILE (see "mcpi tools
call --help").

Exit status: 0 on success, 1 when the tool reported an error (isError), the task
ended with a JSON-RPC error or was cancelled, or the server has no such task, 2
on bad usage or a connection failure.`,
		Example: `  id=$(mcpi --url http://127.0.0.1:8080/mcp tools call slow_task --task --detach)
  mcpi tasks result "$id"`,
		Args: cmdutil.ExactArgs(1, "a task id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return Run(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the CallToolResult as JSON")
	cmd.Flags().StringVar(&opts.Answers, "answers", "", "answer the server's elicitation and sampling requests from `FILE`")
	return cmd
}

// Run waits for the result and prints it.
func Run(ctx context.Context, opts *Options) error {
	entry, _, err := opts.Resolve(opts.ID)
	if err != nil {
		return err
	}
	if opts.Answers != "" {
		if opts.UseAnswers == nil {
			return cmdutil.UsageErrorf("--answers is not available here")
		}
		if err := opts.UseAnswers(opts.Answers); err != nil {
			return err
		}
	}
	if opts.SetRequestTool != nil {
		opts.SetRequestTool(entry.Tool)
	}
	sess, err := opts.Connect(ctx)
	if err != nil {
		return err
	}
	defer sess.Close()
	res, err := sess.TaskResult(ctx, opts.ID)
	if opts.InputRefused != nil {
		var rpc *jsonrpc.Error
		if refused := opts.InputRefused(); refused != nil && (errors.As(err, &rpc) || (err == nil && res.IsError)) {
			return refused
		}
	}
	if err != nil {
		return opts.OutcomeErr(err, opts.ID)
	}
	if opts.JSON {
		err = cmdutil.PrintJSON(opts.IO.Out, res)
	} else {
		err = render.ToolResult(opts.IO, res)
	}
	if err != nil {
		return err
	}
	if res.IsError {
		return &cmdutil.ToolError{Tool: entry.Tool, Task: opts.ID}
	}
	return nil
}
