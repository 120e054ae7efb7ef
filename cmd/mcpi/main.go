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

	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/iostreams"
	"github.com/mcpi-dev/mcpi/internal/cli/root"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version = ""

func main() {
	// A write to a closed standard output must fail, not kill mcpi with SIGPIPE: the
	// guard of [iostreams.System] makes it an interruption. A handled signal (unlike an
	// ignored one) is reset for the stdio server mcpi starts. The channel is never read: a
	// signal that finds it full is dropped.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	ctx, stop, raise := interruptContext(repeatWindow)
	ios := iostreams.System()
	ios.OnOutputClosed(func() { raise(cmdutil.ErrOutputClosed) })
	code := root.Main(ctx, ios, os.Args[1:], buildVersion())
	stop()
	os.Exit(code)
}

// repeatWindow is how long after the first Ctrl-C (SIGINT, SIGTERM or SIGHUP) further ones are
// taken for the same interruption. One Ctrl-C often arrives twice: GNU timeout sends it
// to its child and then to its process group, and a shell or supervisor may signal both
// the process and its group; the copies come milliseconds apart, tens of milliseconds
// on a loaded machine. A person who presses Ctrl-C again does so on seeing that mcpi
// has not ended, which takes longer than half a second, and a window that short keeps a
// hurried second press meaningful.
const repeatWindow = 500 * time.Millisecond

// interruptContext returns a context that the first SIGINT, SIGTERM or SIGHUP ends (its
// cause a [cmdutil.StopError]), so that the command winds down (a followed task asks
// whether to cancel it, or is recorded as left running, and a stdio server is stopped).
// raise ends it as a signal would, with cause, when no signal came: the standard output
// was closed. Repeats within window are ignored; after it, the signals are left to their
// default action, and a second one kills mcpi the usual way.
func interruptContext(window time.Duration) (ctx context.Context, stop func(), raise func(cause error)) {
	sigs := make(chan os.Signal, 8)
	// SIGHUP is the terminal or the supervisor going away: its default action would kill
	// mcpi with nothing recorded and the stdio server's processes orphaned.
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	raised := make(chan error, 1)
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan struct{})
	go func() {
		defer signal.Stop(sigs)
		select {
		case s := <-sigs:
			cancel(&cmdutil.StopError{Signal: s})
		case err := <-raised:
			cancel(err)
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
	raise = func(cause error) {
		select {
		case raised <- cause:
		default: // raised already
		}
	}
	return ctx, sync.OnceFunc(func() {
		close(done)
		cancel(nil)
	}), raise
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

// versionOf is the module version recorded in bi (by go install, or since Go 1.24 by
// go build in a checkout), else "dev" with the commit, its time and whether the tree
// was modified, as older go builds recorded them, so that a bug report says which build
// it is. A build that recorded neither (-buildvcs=false, a tree without its VCS) says
// so, so that a bare "dev" is not taken for a build of the newest commit.
func versionOf(bi *debug.BuildInfo) string {
	const unknown = "dev (built without version information)"
	if bi == nil {
		return unknown
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
		return unknown
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
