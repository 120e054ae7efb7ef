// Package cmdutil holds what the mcpi commands share: the [Factory] they are built with,
// the [Session] it opens, their error values, the one mapping from errors to the sentence
// and exit code the user sees ([Describe]), and output helpers for tables and JSON.
package cmdutil

import (
	"github.com/mcpi-dev/mcpi/internal/cli/iostreams"
)

// Factory gives commands what they need from the outside world. The root command fills
// it in; tests build one around buffers and the embedded demo server.
type Factory struct {
	IOStreams *iostreams.IOStreams
	Version   string
	// Connect opens a session with the server the user selected.
	Connect ConnectFunc
	// Browser opens a URL in the user's web browser (an OAuth login's authorization
	// page); tests play the browser in its place.
	Browser func(url string) error
}
