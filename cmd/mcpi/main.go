// Command mcpi is the MCP inspector's command line. See "mcpi --help".
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/mcpi-dev/mcpi/internal/cli/iostreams"
	"github.com/mcpi-dev/mcpi/internal/cli/root"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version = ""

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// The first Ctrl-C ends ctx, and the command winds down (a followed task asks
	// whether to cancel it); a second one kills mcpi the usual way.
	go func() {
		<-ctx.Done()
		stop()
	}()
	code := root.Main(ctx, iostreams.System(), os.Args[1:], buildVersion())
	stop()
	os.Exit(code)
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
