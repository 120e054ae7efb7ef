// Package resources implements "mcpi resources".
package resources

import (
	"github.com/spf13/cobra"

	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/resources/list"
	"github.com/mcpi-dev/mcpi/internal/cli/resources/read"
	"github.com/mcpi-dev/mcpi/internal/cli/resources/templates"
)

// NewCmd returns "resources" and its verbs.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "resources",
		Short: "List and read the server's resources",
		Args:  cmdutil.NoArgs,
		RunE:  cmdutil.ShowHelp,
	}
	cmd.AddCommand(list.NewCmd(f, nil), read.NewCmd(f, nil), templates.NewCmd(f, nil))
	return cmd
}
