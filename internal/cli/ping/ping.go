// Package ping implements "mcpi ping".
package ping

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/iostreams"
	"github.com/mcpi-dev/mcpi/internal/look"
)

// Options are the inputs of "ping".
type Options struct {
	IO      *iostreams.IOStreams
	Connect cmdutil.ConnectFunc
	JSON    bool
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Result is the --json output of ping.
type Result struct {
	RoundTripMs float64 `json:"roundTripMs"`
	// ProtocolVersion is the version the session speaks, and Era its era: "legacy"
	// (2025-11-25: initialize, a session) or "modern" (2026-07-28: server/discover, no
	// session).
	ProtocolVersion string `json:"protocolVersion"`
	Era             string `json:"era"`
}

// NewCmd returns the command; runF replaces [Run] in tests of the flag handling.
func NewCmd(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{IO: f.IOStreams, Connect: f.Connect}
	cmd := &cobra.Command{
		Use:   "ping",
		Short: "Check that the server answers, and how fast",
		Args:  cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return Run(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, `print {"roundTripMs":N,"protocolVersion":V,"era":E} as JSON`)
	return cmd
}

// Run pings the server once, after initialization, and prints the round-trip time.
func Run(ctx context.Context, opts *Options) error {
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	sess, err := opts.Connect(ctx, cmdutil.RequestPolicy{})
	if err != nil {
		return err
	}
	defer sess.Close()
	start := now()
	if err := sess.Ping(ctx); err != nil {
		return err
	}
	rtt := now().Sub(start)
	era := look.Era(sess.Modern())
	if opts.JSON {
		return cmdutil.PrintJSON(opts.IO.Out, Result{RoundTripMs: float64(rtt.Microseconds()) / 1000, ProtocolVersion: sess.ProtocolVersion(), Era: era})
	}
	info := sess.InitializeResult().ServerInfo
	fmt.Fprintf(opts.IO.Out, "pong from %s %s in %s (protocol %s, %s era)\n", look.Safe(info.Name), look.Safe(info.Version),
		rtt.Round(time.Microsecond), look.Safe(sess.ProtocolVersion()), era)
	return nil
}
