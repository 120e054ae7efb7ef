// Package cmdutil holds what the mcpi commands share: the [Factory] they are built with,
// their error values, the one mapping from errors to the sentence and exit code the user
// sees ([Describe]), and output helpers for tables and JSON.
package cmdutil

import (
	"context"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/cli/iostreams"
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
	// UseAnswers makes the server's requests be answered from the answers file (see
	// package answers) before the user is asked on a terminal. It fails with a
	// [*UsageError] when the file cannot be used.
	UseAnswers func(file string) error
	// SetRequestTool names the tool the server's requests belong to when they name no task
	// the session started (a plain call, or a task fetched by id): the key looked up in
	// the answers file.
	SetRequestTool func(tool string)
	// HoldRequests leaves the server's requests unanswered from now on: for a command that
	// detaches from a task, whose session ends at once (withdrawing them), so that the
	// task's input can be given later by the command that fetches its result.
	HoldRequests func()
	// Choose asks the user a question on the terminal whose answer is one of letters.
	Choose func(ctx context.Context, question, letters string) (byte, error)
}
