// Command mcpi is the MCP inspector's command line. See "mcpi --help".
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/cli/iostreams"
	"github.com/mcpi-dev/mcpi/internal/cli/root"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version = ""

func main() {
	ctx, stopped := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	// The first Ctrl-C ends ctx, and the command winds down (a followed task asks
	// whether to cancel it); a second one kills mcpi the usual way.
	go func() {
		s := <-sigs
		signal.Stop(sigs)
		stopped(stopSignal{s})
	}()
	code := root.Main(ctx, iostreams.System(), os.Args[1:], buildVersion())
	signal.Stop(sigs)
	stopped(nil)
	os.Exit(code)
}

// stopSignal is the cause of ctx's end when a signal stopped mcpi. Its message is the
// one os/signal gives; what a server is told of the requests it withdraws (the reason of
// notifications/cancelled) says who stopped them.
type stopSignal struct{ sig os.Signal }

func (e stopSignal) Error() string { return e.sig.String() + " signal received" }

func (e stopSignal) CancelReason() string {
	if e.sig == os.Interrupt {
		return client.ErrCancelledByUser.Error()
	}
	return "mcpi was stopped (" + e.sig.String() + ")"
}

// buildVersion is the version set at link time, else the module version go install
// recorded, else "dev".
func buildVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
