// Package result implements "mcpi tasks result".
package result

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/render"
	"github.com/mcpi-dev/mcpi/internal/cli/tasks/shared"
	"github.com/mcpi-dev/mcpi/internal/cli/taskview"
	"github.com/mcpi-dev/mcpi/jsonrpc"
)

// leaveWait bounds the tasks/get that an interrupted command asks the task's ttl with,
// for its record.
const leaveWait = 5 * time.Second

// Options are the inputs of "tasks result".
type Options struct {
	shared.Options

	ID string
	// Answers is the --answers file.
	Answers string
}

// NewCmd returns the command; runF replaces [Run] in tests of the flag handling.
func NewCmd(f *cmdutil.Factory, sel *connect.Selection, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{Options: shared.NewOptions(f, sel)}
	cmd := &cobra.Command{
		Use:   "result ID [--answers FILE]",
		Short: "Wait for a task's result and print it",
		Long: `Wait until a task ends and print its result (tasks/result): exactly what the
tool call would have returned. With --json: the CallToolResult; a task that
ended without one prints {"error":{"code":N,"message":S,"data":D}}, the server's
JSON-RPC error as it was sent (code and data only then), or {"error":{"message":S}}
saying what became of the task (cancelled, unknown to the server, lost). When a
signal (Ctrl-C, SIGTERM) interrupts the wait, the task runs on, left as "mcpi
tasks watch ID" leaves it: recorded in the local state file, with the session
that reached it left open on the server (which may bind the task to it), and
--json prints {"interrupted":{"state":"running","fetch":CMD},"error":{"message":S}},
CMD the command that gets its result later through that session; on the
embedded demo server or a stdio server, which mcpi stops as it exits, the task
ends with it: nothing is recorded, "state" is "stopped", with no "fetch", and S
says so.

Without server flags, a task recorded in the local state file (by --detach, or
Ctrl-C while following) is fetched from the server it was started on, in the
protocol version it was created in (unless --protocol names one), and through
the session it was created in when mcpi left that open (a task of a 2025-11-25
Streamable HTTP server, which may bind it to that session). When that server no
longer knows the task (it expired, the server restarted, or it ended the task's
session), the task is removed from the state file, and mcpi says so; the session
it was recorded with, when the server still has it, is then ended there, unless
another task recorded in the state file names it. Once the result is shown the
task stays recorded, with its session, until its ttl: a server that binds the
task to that session gives the result again through it.

While it waits, the server may ask for input for the task (elicitation, sampling):
it is answered at a prompt on a terminal, or from --answers FILE (see "mcpi tools
call --help"). Input mcpi cannot give (no terminal, and no answer in the file) is
left unanswered: mcpi exits with status 2 and says how to answer, and the task
keeps waiting for it, so that the command can be run again with --answers. The
task is recorded in the local state file, and the session that reached it (which
the question belongs to, and a server may bind the task to) is left open on the
server for that command to take up. On the embedded demo server or a stdio
server, which mcpi stops as it exits, the task ends with it: mcpi says to make
the call that started it again, on a terminal or with --answers FILE.

The result's structuredContent is checked against the tool's output schema, as
"mcpi tools call" checks it, when the task's tool is known (recorded in the local
state file): the tool is looked up in tools/list, and a result that does not fit,
or has no structuredContent, is printed as it came, and mcpi says on stderr what
is wrong and exits 1.

Exit status: 0 on success, 1 when the tool reported an error (isError), its
result does not fit its output schema, the task ended with a JSON-RPC error or
was cancelled, or the server has no such task, 2 on bad usage, input mcpi could
not give, a connection failure or an interruption.`,
		Example: `  id=$(mcpi --url http://127.0.0.1:8080/mcp tools call slow_task --task --detach)
  mcpi tasks result "$id"`,
		Args: cmdutil.TaskIDArgs(false),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return Run(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the CallToolResult as JSON")
	cmdutil.AnswersFlag(cmd, &opts.Answers)
	return cmd
}

// Run waits for the result and prints it.
func Run(ctx context.Context, opts *Options) error {
	entry, _, err := opts.Resolve(opts.ID)
	if err != nil {
		return err
	}
	// Input mcpi cannot give is left for a later command: refusing it would have the
	// server fail the task (or mcpi cancel it), which this command did not start.
	sess, err := opts.Open(ctx, cmdutil.RequestPolicy{Answers: opts.Answers, Tool: entry.Tool, Leave: true, TaskTool: opts.RecordedTool})
	if err != nil {
		return err
	}
	defer sess.Close()
	wait, stop := sess.Answerable(ctx)
	defer stop()
	res, err := sess.TaskResult(wait, opts.ID)
	if left := sess.Left(); left != nil {
		return opts.LeftInput(ctx, sess, opts.ID, entry.Tool, left)
	}
	if refused := sess.Refusal(res, err); refused != nil {
		return refused
	}
	if err != nil && errors.Is(err, context.Canceled) && ctx.Err() != nil {
		// Interrupted: the task, which this command did not start, runs on, and is left
		// as "tasks watch" leaves it: recorded, with this session kept open on the
		// server, which may have bound the task to it (ending it would drop the task
		// the fetch command names). The output says so and how to fetch its result;
		// or, on a server that stops as mcpi exits, that it ends with it, with nothing
		// to fetch later. The wait's context has ended: the task's ttl, for the
		// record, is asked for on one that has not, and briefly (a second Ctrl-C
		// kills mcpi all the same).
		lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), leaveWait)
		left := opts.Leave(lctx, sess, opts.ID, entry.Tool)
		cancel()
		intr := left.Interrupted(opts.ID)
		if opts.JSON {
			msg, _ := cmdutil.Describe(intr)
			_ = cmdutil.PrintJSON(opts.IO.Out, map[string]any{
				"interrupted": &taskview.Interrupted{State: left.State(), Fetch: intr.Fetch},
				"error":       &taskview.Error{Message: strings.TrimPrefix(msg, "mcpi: ")},
			})
		}
		return intr
	}
	if err != nil {
		err = opts.OutcomeErr(err, opts.ID)
		if opts.JSON {
			// A script gets the task's outcome as JSON whatever it is, as tools call
			// and tasks watch give it: the server's error with its data, or what
			// became of the task; stderr has the sentence.
			if perr := cmdutil.PrintJSON(opts.IO.Out, map[string]*taskview.Error{"error": outcomeError(err)}); perr != nil {
				return perr
			}
		}
		return err
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
	return opts.CheckOutput(ctx, sess, entry.Tool, res)
}

// outcomeError is the --json error of a task that ended without a result: the server's
// JSON-RPC error as it was sent, or the sentence that says what became of the task.
func outcomeError(err error) *taskview.Error {
	var rpc *jsonrpc.Error
	if errors.As(err, &rpc) && client.ServerAnswered(err) {
		return taskview.ErrorOf(err)
	}
	msg, _ := cmdutil.Describe(err)
	return &taskview.Error{Message: strings.TrimPrefix(msg, "mcpi: ")}
}
