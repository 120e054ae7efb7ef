// Package serve implements "mcpi serve".
package serve

import (
	"github.com/spf13/cobra"

	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/serve/conformance"
	"github.com/mcpi-dev/mcpi/internal/cli/serve/demo"
)

// NewCmd returns "serve" and its verbs. selected reports whether server selection flags
// were given, which make no sense for a command that is itself the server.
func NewCmd(f *cmdutil.Factory, selected func() bool) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run one of mcpi's own servers, over stdio or Streamable HTTP",
		Args:  cmdutil.NoArgs,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			if selected != nil && selected() {
				return cmdutil.UsageErrorf("%q runs a server itself: --stdio, --url, --config, --server, --env, --cwd and --header do not apply", cmd.CommandPath())
			}
			return nil
		},
		RunE: cmdutil.ShowHelp,
	}
	cmd.AddCommand(demo.NewCmd(f, nil), conformance.NewCmd(f, nil))
	return cmd
}
