// Package tasks implements "mcpi tasks": the tasks a server runs for mcpi.
package tasks

import (
	"github.com/spf13/cobra"

	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/tasks/cancel"
	"github.com/mcpi-dev/mcpi/internal/cli/tasks/get"
	"github.com/mcpi-dev/mcpi/internal/cli/tasks/list"
	"github.com/mcpi-dev/mcpi/internal/cli/tasks/result"
	"github.com/mcpi-dev/mcpi/internal/cli/tasks/watch"
)

// NewCmd returns "tasks" and its verbs. sel is the root command's server selection.
func NewCmd(f *cmdutil.Factory, sel *connect.Selection) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tasks",
		Short: "List, follow, fetch and cancel the server's tasks",
		Long: `List, follow, fetch and cancel tasks: tool calls a server runs as MCP tasks
(start one with "mcpi tools call NAME --task").

A task that mcpi left running (--detach, or Ctrl-C while following) is recorded
in the local state file with the server flags it was started with: "mcpi tasks
list --local" shows them, and get, result, cancel and watch with a recorded id
and no server flags go back to that server. The state file is tasks.json in
$MCPI_STATE_DIR, else $XDG_STATE_HOME/mcpi, else ~/.local/state/mcpi; it keeps
tasks until their TTL runs out, and at most 500. It holds what later commands
send again: the server flags, the values of --header (an Authorization header
given with it included) and --env among them, and the id of a kept session; so
it is readable by its owner only (mode 0600, in a directory of mode 0700), and
"tasks list --local" shows those names but not the values, nor the session's id.
An OAuth login's token is never in it: later commands take it from the token
store.

A server lists only the tasks of the current session; tasks of earlier mcpi runs
are reached by id. A 2025-11-25 task that mcpi left running on a Streamable HTTP
server is recorded with its session, which mcpi leaves open on the server, and
get, result, cancel and watch take that session up: some servers bind a task to
the session that created it. Others (such as "mcpi serve demo") let a new session
take over a task whose session ended.`,
		Args: cmdutil.NoArgs,
		RunE: cmdutil.ShowHelp,
	}
	cmd.AddCommand(
		list.NewCmd(f, sel, nil),
		get.NewCmd(f, sel, nil),
		result.NewCmd(f, sel, nil),
		cancel.NewCmd(f, sel, nil),
		watch.NewCmd(f, sel, nil),
	)
	return cmd
}
