// Package factory builds the [cmdutil.Factory] that the mcpi commands run with: the
// selected server, reached through package connect, with server requests answered by
// package prompt.
package factory

import (
	"context"

	"github.com/mcpi-dev/mcpi/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/cli/connect"
	"github.com/mcpi-dev/mcpi/cli/iostreams"
	"github.com/mcpi-dev/mcpi/cli/prompt"
	"github.com/mcpi-dev/mcpi/client"
)

// New returns a factory whose Connect opens a session with the server sel selects
// (read when Connect is called, so flags may fill sel in later).
func New(ios *iostreams.IOStreams, sel *connect.Selection, version string) *cmdutil.Factory {
	ans := prompt.New(ios)
	return &cmdutil.Factory{
		IOStreams: ios,
		Version:   version,
		Connect: func(ctx context.Context) (*client.Session, error) {
			return sel.Connect(ctx, &client.Options{OnRequest: ans.Handle})
		},
		InputRefused: ans.Refused,
	}
}
