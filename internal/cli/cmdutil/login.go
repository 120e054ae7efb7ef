package cmdutil

import (
	"context"
	"fmt"

	"github.com/mcpi-dev/mcpi/internal/cli/iostreams"
	"github.com/mcpi-dev/mcpi/internal/look"
)

// LoginNeededError is a server that wants the user to log in (the OAuth authorization
// code grant, in a browser) while no one can: mcpi is not on a terminal, and
// --no-browser was not given. It is returned before anything is sent to the
// authorization server.
type LoginNeededError struct {
	// Server is the server's URL; Flags the mcpi flags that name it, for the login
	// command to suggest.
	Server, Flags string
}

func (e *LoginNeededError) Error() string {
	return fmt.Sprintf("the server at %s wants you to log in (OAuth), and mcpi is not on a terminal to open a browser: run \"mcpi auth login %s\" on a terminal first, or add --no-browser to have the login URL printed (scripts can pass a token with --header, or use --client-id, --client-secret and --client-credentials)", e.Server, e.Flags)
}

// ShowLogin returns how mcpi shows the user the authorization URL of a login (see
// connect.Auth.Show): with noBrowser, a line on stderr; else it opens the browser with
// open, and says so on stderr with the URL, for a browser that does not open. It
// returns nil when no one can log in: stdin and stderr are not a terminal and noBrowser
// is not set (a script, which must not wait minutes for a login no one sees).
func ShowLogin(ios *iostreams.IOStreams, noBrowser bool, open func(url string) error) func(ctx context.Context, server, authURL string) error {
	if !noBrowser && !ios.CanPrompt() {
		return nil
	}
	return func(_ context.Context, server, authURL string) error {
		// What the server and the authorization server say is shown safe: a URL with a
		// control character in it must not drive the terminal.
		server, u := look.Safe(server), look.Safe(authURL)
		if noBrowser {
			fmt.Fprintf(ios.ErrOut, "mcpi: to log in to %s, open %s\n", server, u)
			return nil
		}
		fmt.Fprintf(ios.ErrOut, "mcpi: %s wants you to log in: opening the browser; waiting for the login (if no browser opens, open %s)\n", server, u)
		if err := open(authURL); err != nil {
			fmt.Fprintf(ios.ErrOut, "mcpi: could not open a browser (%s); open the URL above\n", look.Sentence(err))
		}
		return nil
	}
}
