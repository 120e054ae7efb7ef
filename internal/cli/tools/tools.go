// Package tools implements "mcpi tools".
package tools

import (
	"github.com/spf13/cobra"

	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/tools/call"
	"github.com/mcpi-dev/mcpi/internal/cli/tools/list"
)

// NewCmd returns "tools" and its verbs.
func NewCmd(f *cmdutil.Factory, sel *connect.Selection) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tools",
		Short: "List and call the server's tools",
		Args:  cmdutil.NoArgs,
		RunE:  cmdutil.ShowHelp,
	}
	cmd.AddCommand(list.NewCmd(f, nil), call.NewCmd(f, sel, nil))
	return cmd
}
