// Package stack gives what the log of a recovered panic needs: the goroutine's stack,
// bounded, and the logger to write it to.
package stack

import (
	"log/slog"
	"runtime/debug"
)

// Max bounds a stack as [Trace] gives it, in bytes: a panic deep in a recursion has a
// stack of megabytes, and its top is what tells where it happened.
const Max = 16 << 10

// Trace returns the calling goroutine's stack, cut to [Max] bytes.
func Trace() string {
	b := debug.Stack()
	if len(b) > Max {
		return string(b[:Max]) + "\n… (cut)"
	}
	return string(b)
}

// Logger returns the logger a recovered panic goes to: configured, or slog.Default()
// when none is configured, as net/http logs a handler's panic to the standard logger
// when its server has no ErrorLog. A panic is a bug, and told to nobody it is lost.
func Logger(configured *slog.Logger) *slog.Logger {
	if configured != nil {
		return configured
	}
	return slog.Default()
}
