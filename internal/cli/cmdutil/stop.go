package cmdutil

import (
	"context"
	"os"
	"syscall"

	"github.com/mcpi-dev/mcpi/client"
)

// StopError is the cause of a command's context when something outside mcpi stopped it:
// a signal (Ctrl-C, SIGTERM, SIGHUP), or its standard output closing under it (a
// script's "| head -1"). It matches context.Canceled, as the end of a context does, so
// that whatever it ends reads as an interruption and not as a failure.
type StopError struct {
	// Signal is the signal received; nil when the standard output was closed.
	Signal os.Signal
}

// ErrOutputClosed is the interruption by a closed standard output.
var ErrOutputClosed error = &StopError{}

func (e *StopError) Error() string {
	if e.Signal == nil {
		return "interrupted (its standard output was closed)"
	}
	return "interrupted"
}

func (e *StopError) Is(target error) bool { return target == context.Canceled }

// CancelReason is what a server is told of the requests the interruption withdraws (the
// reason of notifications/cancelled): who stopped them.
func (e *StopError) CancelReason() string {
	switch e.Signal {
	case nil:
		return "mcpi's output was closed"
	case os.Interrupt:
		return client.ErrCancelledByUser.Error()
	case syscall.SIGHUP:
		return "mcpi's terminal or supervisor went away (hangup)"
	}
	return "mcpi was stopped (" + e.Signal.String() + ")"
}
