// Package cmdutil holds what the mcpi commands share: the [Factory] they are built with,
// their error values, the one mapping from errors to the sentence and exit code the user
// sees ([Describe]), and output helpers for tables and JSON.
package cmdutil

import (
	"context"

	"github.com/mcpi-dev/mcpi/cli/iostreams"
	"github.com/mcpi-dev/mcpi/client"
)

// Factory gives commands what they need from the outside world. The root command fills
// it in; tests build one around buffers and the embedded demo server.
type Factory struct {
	IOStreams *iostreams.IOStreams
	Version   string
	// Connect opens a session with the server the user selected.
	Connect func(ctx context.Context) (*client.Session, error)
	// InputRefused returns a [*NeedTerminalError] if a server request (elicitation or
	// sampling) had to be refused because no terminal was there to ask the user, else nil.
	InputRefused func() error
}
