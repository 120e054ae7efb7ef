// Package auth implements "mcpi auth": logging in to HTTP servers that ask for OAuth,
// out, and what is stored.
package auth

import (
	"github.com/spf13/cobra"

	"github.com/mcpi-dev/mcpi/internal/cli/auth/login"
	"github.com/mcpi-dev/mcpi/internal/cli/auth/logout"
	"github.com/mcpi-dev/mcpi/internal/cli/auth/status"
	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/connect"
)

// NewCmd returns "auth" and its verbs. sel is the root command's server selection.
func NewCmd(f *cmdutil.Factory, sel *connect.Selection) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "auth",
		Short: "Log in to HTTP servers that ask for OAuth, out, and see the logins",
		Long: `Any command against an HTTP server that answers 401 logs in by itself on a
terminal: it opens the browser at the authorization server's page (--no-browser
prints the URL instead), and takes the answer on a loopback address. "mcpi auth"
does the same on demand, forgets a login, and shows what is stored.

Tokens are kept per server, in a file of mode 0600 in the state directory
($MCPI_STATE_DIR, else $XDG_STATE_HOME/mcpi, else ~/.local/state/mcpi), or with
--token-store keyring in the OS keyring. Scripts pass a token with --header
"Authorization=Bearer T", or use a client's own credentials with --client-id,
--client-secret (or $MCPI_CLIENT_SECRET) and --client-credentials.`,
		Args: cmdutil.NoArgs,
		RunE: cmdutil.ShowHelp,
	}
	cmd.AddCommand(login.NewCmd(f, sel, nil), logout.NewCmd(f, sel, nil), status.NewCmd(f, sel, nil))
	return cmd
}
