// Package clitest has helpers for the tests of the mcpi commands.
package clitest

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/cli/connect"
	"github.com/mcpi-dev/mcpi/cli/factory"
	"github.com/mcpi-dev/mcpi/cli/iostreams"
)

// Env is a factory over buffers.
type Env struct {
	Factory         *cmdutil.Factory
	IO              *iostreams.IOStreams
	In, Out, ErrOut *bytes.Buffer
	Selection       *connect.Selection
}

// New returns a test environment connecting to the server sel selects; nil means the
// embedded demo server.
func New(t testing.TB, sel *connect.Selection) *Env {
	t.Helper()
	if sel == nil {
		sel = &connect.Selection{}
	}
	ios, in, out, errOut := iostreams.Test()
	return &Env{
		Factory:   factory.New(ios, sel, "test"),
		IO:        ios,
		In:        in,
		Out:       out,
		ErrOut:    errOut,
		Selection: sel,
	}
}

// Context returns a context that ends with the test, or after a minute.
func Context(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// Describe returns what the user would see for err: the stderr line and exit code.
func Describe(err error) (string, int) {
	if err == nil {
		return "", 0
	}
	msg, code := cmdutil.Describe(err)
	return "mcpi: " + msg, code
}
