// Package prompts implements "mcpi prompts".
package prompts

import (
	"github.com/spf13/cobra"

	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/prompts/get"
	"github.com/mcpi-dev/mcpi/internal/cli/prompts/list"
)

// NewCmd returns "prompts" and its verbs.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "prompts",
		Short: "List and render the server's prompts",
		Args:  cmdutil.NoArgs,
		RunE:  cmdutil.ShowHelp,
	}
	cmd.AddCommand(list.NewCmd(f, nil), get.NewCmd(f, nil))
	return cmd
}
