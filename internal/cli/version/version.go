// Package version implements "mcpi version".
package version

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
)

// NewCmd returns the command, which prints what "mcpi --version" prints.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Show mcpi's version (as --version does)",
		Args:  cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := fmt.Fprintf(f.IOStreams.Out, "mcpi %s\n", f.Version)
			return err
		},
	}
}
