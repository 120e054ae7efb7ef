// Package call implements "mcpi tools call".
package call

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/iostreams"
	"github.com/mcpi-dev/mcpi/internal/cli/render"
	"github.com/mcpi-dev/mcpi/internal/cli/state"
	"github.com/mcpi-dev/mcpi/internal/cli/taskview"
	"github.com/mcpi-dev/mcpi/internal/look"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// Options are the inputs of "tools call".
type Options struct {
	IO      *iostreams.IOStreams
	Connect cmdutil.ConnectFunc
	// Selection is the server the user selected (for the state file, and to refuse
	// --detach with the embedded server); nil means the embedded demo server.
	Selection *connect.Selection
	// State is the local state file; nil means the default one.
	State *state.Store

	Name string
	// Args are --arg values, NAME=VALUE, applied over ArgsJSON in order.
	Args     []string
	ArgsJSON string
	JSON     bool

	// Task calls the tool as a task and follows it; TTL asks for its lifetime.
	Task bool
	TTL  time.Duration
	// TTLSet is set when --ttl was given (0 included).
	TTLSet bool
	// Detach prints the task id and returns once the task is created.
	Detach bool
	// SendAnyway skips the local task-support checks.
	SendAnyway bool
	// Answers is the --answers file.
	Answers string

	// Now is the clock (nil: time.Now); Tick is how often the status line is redrawn
	// (0: 100ms; negative: only on changes).
	Now  func() time.Time
	Tick time.Duration

	// tool is the tool called, as the server lists it: its output schema checks the
	// result.
	tool *mcp.Tool
}

// NewCmd returns the command; runF replaces [Run] in tests of the flag handling. sel is
// the root command's server selection.
func NewCmd(f *cmdutil.Factory, sel *connect.Selection, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{IO: f.IOStreams, Connect: f.Connect, Selection: sel}
	cmd := &cobra.Command{
		Use:   "call NAME [--arg NAME=VALUE ...] [--args-json JSON] [--task [--ttl DURATION] [--detach]]",
		Short: "Call a tool, plainly or as a task",
		Long: `Call a tool and print its result.

Arguments come from --args-json (a JSON object) and --arg NAME=VALUE; --arg wins.
A --arg value is read by the type the tool's input schema gives it: for number,
integer, boolean, array and object it is parsed as JSON, a string is taken as it
is. The arguments are checked against the input schema before the call is sent.

Tasks. With --task the tool runs as an MCP task ("call now, fetch later"): mcpi
follows it live and prints its result like a plain call. On a terminal one
status line on stderr shows the status, the status message, a progress bar when
the total is known, the elapsed time and the number of polls; without a
terminal (and without --json, whose "created" event has it) mcpi says on stderr
"The server runs the call as task ID." once the task exists, so that a script
learns its id before the outcome. --ttl asks the
server to keep the task (and its result) that long. A tool whose taskSupport is
"required" must be called with --task, and one whose taskSupport is "forbidden"
(or absent) without it; mcpi refuses otherwise before sending anything, unless
--send-anyway is given (for testing servers).

In protocol 2026-07-28 (the Tasks extension) the server decides which calls
become tasks: --task declares that mcpi can follow one, and mcpi says on stderr
what the server chose (a task, or an answer at once). A tool the server runs
only as a task needs --task. --ttl is ignored (the server picks the ttl), there
is no progress bar (the status message carries the steps), and the server's
questions come as the task's input requests, answered like any other.

--detach prints the task id (with --json, the "created" event; of a call the
server answers at once, without a task, the answer: with --json its "result"
event) and exits at
once (not with a stdio server or the embedded one, which end with mcpi, and
their tasks with them); the task is recorded in the local state file, so that
"mcpi tasks result ID" finds its server again without flags ("mcpi tasks list
--local" shows the recorded tasks; a record is kept a minute at least, and a ttl
shorter than that is said on stderr, since the server may delete the task before
its result is fetched). A task of a 2025-11-25 Streamable HTTP
session is recorded with that session, which mcpi leaves open on the server (some
servers bind a task to the session that created it), and the "mcpi tasks"
commands on it take that session up. Ctrl-C while following asks, on a terminal,
whether to cancel the task on the server or leave it running; without a
terminal, or with a server that declares no tasks.cancel (which "mcpi tasks
cancel" refuses too), it leaves it running, records it (with its session, as
--detach does), and says how to fetch its result (a task of a stdio server ends
with it, as mcpi stops it on exit). A task that ends while the question is
open has its outcome printed, as if mcpi had followed it to the end; what
--server-log prints meanwhile waits for the answer.
Ctrl-C before the server has created the task waits two seconds for its id,
then withdraws the call.

` + taskview.EventsHelp + `

` + taskview.ReceiverEventsHelp + `

A task's progress, status and input events are not printed without --json
unless stderr is a terminal.

Input. The server may ask for the user's input while the tool runs (elicitation
or sampling; for a task, through its side channel). On a terminal mcpi asks at a
prompt; --answers FILE answers from a JSON file instead, by tool name or "*":
  {"elicitation": {"ask_task": {"name": "Ada"}, "*": "decline"},
   "sampling": {"ask_task": "the model's reply"}}
An elicitation answer is an object of field values (the requested schema's
defaults fill in the rest), "decline" or "cancel"; a sampling answer is the
reply's text, or "decline". Field values are checked against the form the
server sends, read by its types as --arg values are ("true" for a boolean); an
answer that does not fit is not sent, and mcpi says which field is wrong. A
request mcpi cannot answer (no terminal and no answer, or one that does not fit)
is refused (the server is told only "the client could not answer this request",
error -1), and the command exits 2 with the reason, even when the server goes on
without the answer and its result is printed. In 2026-07-28 a task's input cannot
be refused: mcpi cancels the task instead, and says so with the reason.

The server may run such a request as a task on mcpi (mcpi accepts sampling and
elicitation tasks, kept 10 minutes unless the server asks otherwise, at most an
hour): it is answered the same way, and mcpi shows that the server polls it, on
a terminal with the line "the server is polling this request as task ID (N
polls)", with --json as "polled" event lines (on stderr for a call without
--task, whose stdout holds the result alone).

The result's structuredContent is checked against the tool's output schema
(servers must give a tool with one results that fit it): a result that does
not fit, or has no structuredContent, is printed as it came, and mcpi says on
stderr what is wrong and exits 1, as for a server's error; with --task --json
the "result" event also carries the sentence as "outputProblem".

With --json, a JSON-RPC error that the server answers the call with is printed
on stdout as it came, data included, for scripts: {"error":{"code":N,"message":S,
"data":ANY}} ("data" left out when the server sent none), or with --task its
"error" event line; stderr has the sentence, as without --json.

A server that needs the user to open a web page before it can answer (the
JSON-RPC error -32042, URL elicitation required) has its pages named on stderr,
each with the server's message; a URL that is not an http or https address is
quoted and marked as not to be opened. With --json stdout also has the error
with its data: {"error":{"code":-32042,"message":S,"data":{"elicitations":[...]}}},
or with --task its "error" event line. Open the pages, then call again.

A followed task whose fate mcpi cannot learn is lost: its polls failed (no
answer, or an error each time), or the server ended the session (2025-11-25)
while mcpi followed it. mcpi records it as it records a task left running (with
its session, unless the server ended it) and says how to get its result later: a
server may still run it, as "mcpi serve demo" lets a new session take over the
tasks of an ended one.

Exit status: 0 on success (with --detach: the task was created, or the server
answered at once); 1 when the tool reports an error (isError), its result does
not fit its output schema, the server answers with a JSON-RPC error, the task
failed or was cancelled ("error" event), the server no longer knows the task
("gone" event), or the server answered its polls with errors until mcpi gave up
("lost" event); 2 on bad usage, a call refused for how it was made (a tool that runs only as
a task called without --task, by mcpi or by the server, or one that never
does called with it), input mcpi could not give, the
--max-input-rounds bound, a connection failure (the server exited, ended the
session or cannot be reached, whatever error it sent with the end; a task lost
so included, "lost" event) or an interruption ("interrupted" event).`,
		Example: `  mcpi tools call add --arg a=2 --arg b=3
  mcpi tools call echo --args-json '{"text":"hi"}' --json
  mcpi --url http://127.0.0.1:8080/mcp tools call slow_task --arg seconds=5 --arg steps=5 --task
  mcpi --url http://127.0.0.1:8080/mcp tools call slow_task --task --ttl 10m --detach
  mcpi tools call ask_task --task --json --answers answers.json`,
		Args: cmdutil.ExactArgsKV(1, "the name of a tool", "--arg", &opts.Args),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			opts.TTLSet = cmd.Flags().Changed("ttl")
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return Run(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringArrayVar(&opts.Args, "arg", nil, "set the argument `NAME=VALUE` (repeatable)")
	cmd.Flags().StringVar(&opts.ArgsJSON, "args-json", "", "the arguments as a `JSON` object")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the CallToolResult as JSON (with --task: one JSON event per line)")
	cmd.Flags().BoolVar(&opts.Task, "task", false, "call the tool as a task and follow it")
	cmd.Flags().DurationVar(&opts.TTL, "ttl", 0, "with --task, ask the server to keep the task and its result for `DURATION`, such as 10m (more than zero; without --ttl the server chooses, as it always does in 2026-07-28)")
	cmd.Flags().BoolVar(&opts.Detach, "detach", false, "with --task, print the task id and exit once the task is created")
	cmd.Flags().BoolVar(&opts.SendAnyway, "send-anyway", false, "send the call even when the tool's taskSupport says otherwise (testing servers)")
	cmdutil.AnswersFlag(cmd, &opts.Answers)
	return cmd
}

// embedded reports whether the selection is the embedded demo server.
func (opts *Options) embedded() bool { return opts.Selection == nil || !opts.Selection.IsSet() }

// stdioServer returns the command line of the selected server when it is a process
// mcpi starts (--stdio, or a config file's command), which mcpi stops when it exits; ""
// for other servers, and for a selection that cannot be used (Connect says why).
func (opts *Options) stdioServer() string {
	if opts.embedded() {
		return ""
	}
	t, err := opts.Selection.Resolve()
	if err != nil || !t.Stdio {
		return ""
	}
	return t.Name
}

// check refuses flag combinations that cannot work, before anything is sent.
func (opts *Options) check() error {
	switch {
	case (opts.TTLSet || opts.TTL != 0) && !opts.Task:
		return cmdutil.UsageErrorf("--ttl applies to a task: add --task")
	case opts.Detach && !opts.Task:
		return cmdutil.UsageErrorf("--detach applies to a task: add --task")
	case opts.TTL < 0 || opts.TTLSet && opts.TTL == 0:
		// The spec's ttl is a lifetime, not "unlimited" (which only a server may
		// choose): leaving --ttl out is how to let the server pick.
		return cmdutil.UsageErrorf("--ttl must be positive, not %s (leave it out to let the server choose the task's lifetime)", opts.TTL)
	case opts.TTL > 0 && opts.TTL < time.Millisecond:
		return cmdutil.UsageErrorf("--ttl is counted in milliseconds on the wire, so %s is too short", opts.TTL)
	case opts.Detach && opts.embedded():
		return cmdutil.UsageErrorf("--detach cannot work with the embedded demo server, which lives only as long as this mcpi process, so a detached task could never be fetched; run \"mcpi serve demo --http 127.0.0.1:8080\" and pass --url http://127.0.0.1:8080/mcp")
	case opts.Detach && opts.stdioServer() != "":
		// mcpi owns the process: it ends when mcpi exits, and its tasks with it.
		return cmdutil.UsageErrorf("--detach cannot work with a stdio server, which mcpi starts and stops when it exits, so a detached task could never be fetched; serve it over HTTP and pass --url")
	}
	if opts.Detach && opts.State == nil {
		// A detached task is recorded in the state file: with no place for it, refuse
		// before the task is created rather than leave it unrecorded on the server.
		if _, err := state.Dir(); err != nil {
			return err
		}
	}
	return nil
}

// Run calls the tool.
func Run(ctx context.Context, opts *Options) error {
	if err := opts.check(); err != nil {
		return err
	}
	base, err := parseArgsJSON(opts.ArgsJSON)
	if err != nil {
		return err
	}
	pairs := make([][2]string, 0, len(opts.Args))
	for _, a := range opts.Args {
		k, v, err := cmdutil.SplitKV("--arg", a)
		if err != nil {
			return err
		}
		pairs = append(pairs, [2]string{k, v})
	}
	sess, err := opts.Connect(ctx, cmdutil.RequestPolicy{
		Answers: opts.Answers,
		Tool:    opts.Name,
		// The task's input is for whoever fetches its result later.
		Hold: opts.Detach,
		// A followed task's input that mcpi cannot give is refused, not left waiting as
		// "tasks result" leaves it (RequestPolicy.Leave): without --detach the user asked
		// for the outcome in this run, and a script that lacks an answer should not leave
		// a task behind on the server for every run, holding its work until its ttl ends
		// with nobody told to come back to it. The refusal ends the task at once, and the
		// exit status 2 sentence says how to give the answer; --detach is how to ask for
		// a task whose input is given later.
	})
	if err != nil {
		return err
	}
	defer sess.Close()
	tool, err := sess.Tool(ctx, opts.Name)
	if _, ok := errors.AsType[*client.UnknownToolError](err); ok {
		var names []string
		for t, err := range sess.Tools(ctx, nil) {
			if err != nil {
				break // the suggestion is a help, not worth a failure of its own
			}
			names = append(names, t.Name)
		}
		return cmdutil.UnknownName("tool", opts.Name, names, "mcpi tools list")
	}
	if err != nil {
		return err
	}
	for _, p := range pairs {
		base[p[0]] = coerceArgument(tool, p[0], p[1])
	}
	args, err := json.Marshal(base)
	if err != nil {
		return err
	}
	if err := client.ValidateArguments(tool, args); err != nil {
		return err
	}

	opts.tool = tool
	params := &mcp.CallToolParams{Name: opts.Name, Arguments: args}
	if opts.Task {
		return runTask(ctx, opts, sess, params)
	}
	stop := func() {}
	if opts.IO.IsStderrTTY() {
		token := sess.NewProgressToken()
		params.Meta.SetProgressToken(token)
		stop = showProgress(ctx, opts.IO, sess.Session, token)
	}
	// With --json stdout holds the result alone, so the polls of receiver tasks go to
	// stderr as event lines.
	var polled *taskview.JSONWriter
	if opts.JSON {
		polled = taskview.NewJSONWriter(opts.IO.ErrOut)
	}
	stopPolls := taskview.WatchReceiver(sess.Session, opts.IO, polled, nil)
	res, err := sess.CallTool(ctx, params, &client.CallOptions{SendAnyway: opts.SendAnyway})
	stop()
	stopPolls()
	if opts.JSON && serverError(err) {
		// The script gets the server's error as it was sent, with its data (the pages
		// to open before calling again, for -32042): the sentence on stderr cannot
		// carry it.
		if perr := cmdutil.PrintJSON(opts.IO.Out, map[string]*taskview.Error{"error": taskview.ErrorOf(err)}); perr != nil {
			return perr
		}
	}
	return finish(opts, sess, res, err)
}

// serverError reports whether err is the server's JSON-RPC error answering the call,
// rather than a failure to get an answer or mcpi's own refusal of the server's request.
func serverError(err error) bool {
	var rpc *jsonrpc.Error
	return errors.As(err, &rpc) && client.ServerAnswered(err) && !errors.As(err, new(*client.InputError))
}

// needsPages reports whether err is the server's URL-elicitation-required error (-32042)
// naming pages the user must open before the call can succeed.
func needsPages(err error) bool {
	list, _ := look.URLElicitations(err)
	return len(list) > 0
}

// finish prints a call's outcome (unless printed already) and returns the error that
// gives the exit code.
func finish(opts *Options, sess *cmdutil.Session, res *mcp.CallToolResult, err error) error {
	if refused := sess.Refusal(res, err); refused != nil {
		if res != nil {
			_ = printResult(opts, res)
		}
		return refused
	}
	if err != nil {
		return err
	}
	if err := printResult(opts, res); err != nil {
		return err
	}
	return outcome(opts, res)
}

// outcome is the error that gives the exit code of a result that was printed: a tool
// error, or a result that does not fit the tool's output schema.
func outcome(opts *Options, res *mcp.CallToolResult) error {
	if res.IsError {
		return &cmdutil.ToolError{Tool: opts.Name}
	}
	var out *client.OutputError
	if errors.As(client.ValidateStructuredContent(opts.tool, res), &out) {
		return &cmdutil.OutputSchemaError{Tool: opts.Name, Err: out}
	}
	return nil
}

func printResult(opts *Options, res *mcp.CallToolResult) error {
	if opts.JSON {
		return cmdutil.PrintJSON(opts.IO.Out, res)
	}
	return render.ToolResult(opts.IO, res)
}

// showProgress shows the call's progress notifications in the status line on stderr
// until stop is called.
// progressLine is the status line of a plain call's progress notification: "progress
// 3/10: MESSAGE", the numbers as [look.Progress] words them.
func progressLine(p *mcp.ProgressNotificationParams) string {
	line := "progress " + look.Progress(p.Progress, p.Total, 24)
	if p.Message != "" {
		line += ": " + p.Message
	}
	return line
}

func showProgress(ctx context.Context, ios *iostreams.IOStreams, sess *client.Session, token string) (stop func()) {
	sub := sess.Subscribe()
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		shown := false
		for ev := range sub.All(ctx) {
			p, ok := ev.(*client.ProgressEvent)
			if !ok || fmt.Sprint(p.Params.ProgressToken) != token {
				continue
			}
			ios.SetStatusLine(progressLine(&p.Params))
			shown = true
		}
		if shown {
			ios.ClearStatusLine()
		}
	}()
	return func() {
		cancel()
		sub.Close()
		<-done
	}
}
