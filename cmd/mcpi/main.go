// Command mcpi is the MCP inspector's command line. See "mcpi --help".
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/cli/iostreams"
	"github.com/mcpi-dev/mcpi/internal/cli/root"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version = ""

func main() {
	ctx, stop := interruptContext(repeatWindow)
	code := root.Main(ctx, iostreams.System(), os.Args[1:], buildVersion())
	stop()
	os.Exit(code)
}

// repeatWindow is how long after the first Ctrl-C (SIGINT or SIGTERM) further ones are
// taken for the same interruption. One Ctrl-C often arrives twice: GNU timeout sends it
// to its child and then to its process group, and a shell or supervisor may signal both
// the process and its group; the copies come milliseconds apart, tens of milliseconds
// on a loaded machine. A person who presses Ctrl-C again does so on seeing that mcpi
// has not ended, which takes longer than half a second, and a window that short keeps a
// hurried second press meaningful.
const repeatWindow = 500 * time.Millisecond

// interruptContext returns a context that the first SIGINT or SIGTERM ends, so that the
// command winds down (a followed task asks whether to cancel it, or is recorded as left
// running). Repeats within window are ignored; after it, the signals are left to their
// default action, and a second one kills mcpi the usual way.
func interruptContext(window time.Duration) (ctx context.Context, stop func()) {
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan struct{})
	go func() {
		defer signal.Stop(sigs)
		select {
		case s := <-sigs:
			cancel(stopSignal{s})
		case <-done:
			return
		}
		t := time.NewTimer(window)
		defer t.Stop()
		for {
			select {
			case <-sigs: // the same interruption, delivered again
			case <-done:
				return
			case <-t.C:
				signal.Stop(sigs)
				// A signal that came as the window ended lost its default action while it
				// waited here: it is sent again, to have it.
				for {
					select {
					case s := <-sigs:
						if p, err := os.FindProcess(os.Getpid()); err == nil {
							_ = p.Signal(s)
						}
					default:
						return
					}
				}
			}
		}
	}()
	return ctx, sync.OnceFunc(func() {
		close(done)
		cancel(nil)
	})
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

// buildVersion is the version set at link time, else the one the build recorded
// ([versionOf]).
func buildVersion() string {
	if version != "" {
		return version
	}
	bi, _ := debug.ReadBuildInfo()
	return versionOf(bi)
}

// versionOf is the module version go install recorded in bi, else "dev" with the
// commit, its time and whether the tree was modified, as go build records them from a
// checkout, so that a bug report says which build it is.
func versionOf(bi *debug.BuildInfo) string {
	if bi == nil {
		return "dev"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, at string
	modified := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" {
		return "dev"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	parts := []string{"commit " + rev}
	if at != "" {
		parts = append(parts, at)
	}
	if modified {
		parts = append(parts, "modified")
	}
	return "dev (" + strings.Join(parts, ", ") + ")"
}
