// Package root builds the mcpi command tree and runs it: the one place where a
// command's error becomes the sentence on stderr and the exit code.
package root

import (
	"context"
	"fmt"
	webcmd "github.com/mcpi-dev/mcpi/internal/cli/web"
	"strings"

	"github.com/spf13/cobra"

	authcmd "github.com/mcpi-dev/mcpi/internal/cli/auth"
	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/factory"
	"github.com/mcpi-dev/mcpi/internal/cli/info"
	"github.com/mcpi-dev/mcpi/internal/cli/iostreams"
	"github.com/mcpi-dev/mcpi/internal/cli/ping"
	"github.com/mcpi-dev/mcpi/internal/cli/prompts"
	"github.com/mcpi-dev/mcpi/internal/cli/resources"
	"github.com/mcpi-dev/mcpi/internal/cli/serve"
	"github.com/mcpi-dev/mcpi/internal/cli/state"
	"github.com/mcpi-dev/mcpi/internal/cli/tasks"
	"github.com/mcpi-dev/mcpi/internal/cli/tools"
	tuicmd "github.com/mcpi-dev/mcpi/internal/cli/tui"
	"github.com/mcpi-dev/mcpi/internal/cli/version"
)

// NewCmd returns the root command. sel receives the server selection flags; f must
// connect through it (see [factory.New]).
func NewCmd(f *cmdutil.Factory, sel *connect.Selection) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcpi",
		Short: "Inspect and test MCP servers",
		Long: `mcpi talks to an MCP server and shows what it offers.

Name the server with --stdio "COMMAND ARGS", --url URL or --config FILE --server NAME;
without any, mcpi talks to its embedded demo server. An HTTP server that asks for
OAuth is logged in to in the browser, and the token kept (see "mcpi auth --help").

Output is a table for people by default; --json prints the exact MCP result.
State (tasks left running, OAuth tokens) is kept in $MCPI_STATE_DIR, else
$XDG_STATE_HOME/mcpi, else ~/.local/state/mcpi. With none of them (no HOME),
mcpi runs without state, and only what needs it fails (--detach, a task recorded
without --url, auth login).

Exit status: 0 success, 1 the server answered with an error (a tool result with
isError, or a JSON-RPC error), 2 bad usage, no connection, or a listing cut short
at --max-pages or --max-items (printed as far as it went).

Long tools run as MCP tasks: "mcpi tools call NAME --task" follows one live,
--detach leaves it running, and "mcpi tasks" lists, watches, fetches and cancels
them (see "mcpi tools call --help" and "mcpi tasks --help").`,
		Example: `  mcpi tools list
  mcpi tools call add --arg a=2 --arg b=3 --json
  mcpi --url http://127.0.0.1:8080/mcp tools call slow_task --task --json
  mcpi tasks result TASK_ID
  mcpi --stdio "npx -y @modelcontextprotocol/server-everything" prompts list
  mcpi --url http://127.0.0.1:8080/mcp --header "Authorization=Bearer T" ping
  mcpi --config ~/.cursor/mcp.json --server github tools list`,
		Version: f.Version,
		Args:    cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			// On a terminal, mcpi alone opens the terminal inspector.
			if f.IOStreams.IsStdinTTY() && f.IOStreams.IsStdoutTTY() {
				return tuicmd.Run(cmd.Context(), &tuicmd.Options{IO: f.IOStreams, Sel: sel, Browser: f.Browser})
			}
			return cmdutil.ShowHelp(cmd, args)
		},
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	cmd.SetVersionTemplate("mcpi {{.Version}}\n")
	cmd.SetOut(f.IOStreams.Out)
	cmd.SetErr(f.IOStreams.ErrOut)
	cmd.SetIn(f.IOStreams.In)
	cmd.SetFlagErrorFunc(cmdutil.FlagErrorFunc)
	// "mcpi completion SHELL" writes the shell's completion script: commands and flags.
	// Tool and prompt names are not completed, as that would start or reach a server
	// on every Tab.
	cmd.CompletionOptions.DisableDefaultCmd = false
	sel.AddFlags(cmd.PersistentFlags())

	cmd.AddCommand(
		authcmd.NewCmd(f, sel),
		tools.NewCmd(f, sel),
		tasks.NewCmd(f, sel),
		prompts.NewCmd(f),
		resources.NewCmd(f),
		ping.NewCmd(f, nil),
		info.NewCmd(f, nil),
		serve.NewCmd(f, sel.IsSet),
		tuicmd.NewCmd(f, sel),
		webcmd.NewCmd(f, sel),
		version.NewCmd(f),
	)
	return cmd
}

// Main runs mcpi with args and returns its exit code. Errors are printed on ios.ErrOut
// as one sentence prefixed "mcpi: ".
func Main(ctx context.Context, ios *iostreams.IOStreams, args []string, version string) int {
	return mainWith(ctx, ios, args, version, nil)
}

// mainWith is Main; setup, if given, changes the factory and the selection before the
// command runs (tests play the browser in place of the system one).
func mainWith(ctx context.Context, ios *iostreams.IOStreams, args []string, version string, setup func(*cmdutil.Factory, *connect.Selection)) int {
	sel := &connect.Selection{}
	if eras, err := state.DefaultEras(); err == nil {
		sel.Eras = eras
	}
	sel.Auth.OpenStore = state.OpenTokenStore
	// Servers are told the version alone: what follows it in parentheses ("dev (commit
	// …)") is for the person reading `mcpi version`.
	connect.Impl.Version, _, _ = strings.Cut(version, " (")
	f := factory.New(ios, sel, version)
	if setup != nil {
		setup(f, sel)
	}
	cmd := NewCmd(f, sel)
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(ctx)
	if err == nil {
		return cmdutil.ExitOK
	}
	msg, code := cmdutil.Describe(err)
	if context.Cause(ctx) == cmdutil.ErrOutputClosed {
		// Nobody reads what mcpi would print: the sentence says why it stopped.
		if rest, ok := strings.CutPrefix(msg, "interrupted"); ok {
			msg = cmdutil.ErrOutputClosed.Error() + rest
		}
	}
	fmt.Fprintf(ios.ErrOut, "mcpi: %s\n", oneLine(msg))
	return code
}

// oneLine keeps a sentence on one line, whatever it quotes.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return s
}
