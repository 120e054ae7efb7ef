// Package call implements "mcpi tools call".
package call

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpi-dev/mcpi/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/cli/iostreams"
	"github.com/mcpi-dev/mcpi/cli/render"
	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// Options are the inputs of "tools call".
type Options struct {
	IO      *iostreams.IOStreams
	Connect func(context.Context) (*client.Session, error)
	// InputRefused, if set, reports a server request refused for want of a terminal.
	InputRefused func() error

	Name string
	// Args are --arg values, NAME=VALUE, applied over ArgsJSON in order.
	Args     []string
	ArgsJSON string
	JSON     bool
}

// NewCmd returns the command; runF replaces [Run] in tests of the flag handling.
func NewCmd(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{IO: f.IOStreams, Connect: f.Connect, InputRefused: f.InputRefused}
	cmd := &cobra.Command{
		Use:   "call NAME [--arg NAME=VALUE ...] [--args-json JSON]",
		Short: "Call a tool",
		Long: `Call a tool and print its result.

Arguments come from --args-json (a JSON object) and --arg NAME=VALUE; --arg wins.
A --arg value is read by the type the tool's input schema gives it: for number,
integer, boolean, array and object it is parsed as JSON, a string is taken as it
is. The arguments are checked against the input schema before the call is sent.

Exit status: 0 on success, 1 when the tool reports an error (isError) or the
server answers with a JSON-RPC error, 2 on bad usage or a connection failure.`,
		Example: `  mcpi tools call add --arg a=2 --arg b=3
  mcpi tools call echo --args-json '{"text":"hi"}' --json`,
		Args: cmdutil.ExactArgs(1, "the name of a tool"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return Run(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringArrayVar(&opts.Args, "arg", nil, "set the argument `NAME=VALUE` (repeatable)")
	cmd.Flags().StringVar(&opts.ArgsJSON, "args-json", "", "the arguments as a `JSON` object")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the CallToolResult as JSON")
	return cmd
}

// Run calls the tool.
func Run(ctx context.Context, opts *Options) error {
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

	sess, err := opts.Connect(ctx)
	if err != nil {
		return err
	}
	defer sess.Close()
	tool, err := sess.Tool(ctx, opts.Name)
	if err != nil {
		return err
	}
	for _, p := range pairs {
		base[p[0]] = client.CoerceArgument(tool, p[0], p[1])
	}
	args, err := json.Marshal(base)
	if err != nil {
		return err
	}
	if err := client.ValidateArguments(tool, args); err != nil {
		return err
	}

	params := &mcp.CallToolParams{Name: opts.Name, Arguments: args}
	stop := func() {}
	if opts.IO.IsStderrTTY() {
		token := sess.NewProgressToken()
		params.Meta.SetProgressToken(token)
		stop = showProgress(ctx, opts.IO, sess, token)
	}
	res, err := sess.CallTool(ctx, params)
	stop()
	if opts.InputRefused != nil {
		var rpc *jsonrpc.Error
		if refused := opts.InputRefused(); refused != nil && (errors.As(err, &rpc) || (err == nil && res.IsError)) {
			if res != nil {
				_ = print(opts, res)
			}
			return refused
		}
	}
	if err != nil {
		return err
	}
	if err := print(opts, res); err != nil {
		return err
	}
	if res.IsError {
		return &cmdutil.ToolError{Tool: opts.Name}
	}
	return nil
}

func print(opts *Options, res *mcp.CallToolResult) error {
	if opts.JSON {
		return cmdutil.PrintJSON(opts.IO.Out, res)
	}
	return render.ToolResult(opts.IO, res)
}

func parseArgsJSON(s string) (map[string]json.RawMessage, error) {
	m := map[string]json.RawMessage{}
	if strings.TrimSpace(s) == "" {
		return m, nil
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return nil, cmdutil.UsageErrorf("--args-json is not valid JSON")
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, cmdutil.UsageErrorf("--args-json must be a JSON object, such as '{\"a\": 1}'")
	}
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return nil, cmdutil.UsageErrorf("--args-json is not valid JSON")
	}
	return m, nil
}

// showProgress prints the call's progress notifications on stderr until stop is called.
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
			line := fmt.Sprintf("progress %g", p.Params.Progress)
			if p.Params.Total != nil {
				line += fmt.Sprintf("/%g", *p.Params.Total)
			}
			if p.Params.Message != "" {
				line += ": " + p.Params.Message
			}
			fmt.Fprintf(ios.ErrOut, "\r\033[K%s", line)
			shown = true
		}
		if shown {
			fmt.Fprint(ios.ErrOut, "\r\033[K")
		}
	}()
	return func() {
		cancel()
		sub.Close()
		<-done
	}
}
