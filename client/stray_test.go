package client_test

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/transport"
)

// A stdio server that writes its log on stdout and never answers (it reads its input
// to the end, then exits) fails the handshake
// with a *StrayOutputError that quotes what it wrote, in each way of connecting, the
// timeout still matched with errors.As; a server that writes nothing of the kind gives
// the timeout alone.
func TestHandshakeQuotesStrayOutput(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	for _, version := range []string{"2025-11-25", mcp.ModernProtocolVersions[0], client.ProtocolAuto} {
		t.Run(version, func(t *testing.T) {
			c := client.New(mcp.Implementation{Name: "c", Version: "1"}, &client.Options{
				ProtocolVersion: version, RequestTimeout: 300 * time.Millisecond, ProbeTimeout: 300 * time.Millisecond,
			})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			_, err := c.Connect(ctx, &transport.Command{Path: "sh", Args: []string{"-c", `echo "listening on :3000"; echo '{"level":30}'; exec cat >/dev/null`}})
			var stray *client.StrayOutputError
			if !errors.As(err, &stray) || stray.Lines != 2 || stray.Last != `{"level":30}` {
				t.Fatalf("Connect: %v, want a *StrayOutputError of 2 lines, the last {\"level\":30}", err)
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("Connect: %v, want it to match the timeout", err)
			}
			_, err = c.Connect(ctx, &transport.Command{Path: "sh", Args: []string{"-c", "exec cat >/dev/null"}})
			if err == nil || errors.As(err, &stray) {
				t.Errorf("Connect to a silent server: %v, want the timeout alone", err)
			}
		})
	}
}

// A stdio server that floods its stdout with lines that are no JSON-RPC message before
// it ever answers is given up on once it has written more of them than the bound
// (transport.DefaultMaxStrayLines), in each way of connecting, with the sentence that
// quotes the last: not at the handshake's bound of a minute, each line answered with a
// parse error until then. So is one that never reads its stdin: the parse errors that
// filled the pipe to it held the client's reading until that bound.
func TestHandshakeGivesUpOnStrayFlood(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	servers := map[string]string{
		// (cat reads the server's stdin: a background command's is /dev/null.)
		"reads":       `exec 3<&0; cat <&3 >/dev/null & exec yes "starting up"`,
		"never reads": `exec yes "starting up"`,
	}
	for _, version := range []string{"2025-11-25", mcp.ModernProtocolVersions[0], client.ProtocolAuto} {
		for name, script := range servers {
			t.Run(version+"/"+name, func(t *testing.T) {
				testHandshakeGivesUpOnStrayFlood(t, version, script)
			})
		}
	}
}

func testHandshakeGivesUpOnStrayFlood(t *testing.T, version, script string) {
	c := client.New(mcp.Implementation{Name: "c", Version: "1"}, &client.Options{
		ProtocolVersion: version, RequestTimeout: time.Minute, ProbeTimeout: time.Minute,
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := c.Connect(ctx, &transport.Command{Path: "sh", Args: []string{"-c", script}})
	if ctx.Err() != nil {
		t.Fatalf("Connect: %v, after the test's bound of 20s", err)
	}
	var stray *client.StrayOutputError
	if !errors.As(err, &stray) || stray.Lines != transport.DefaultMaxStrayLines+1 || stray.Last != "starting up" || !errors.Is(err, transport.ErrStrayFlood) {
		t.Fatalf("Connect: %v, want a *StrayOutputError of %d lines, the last \"starting up\", matching transport.ErrStrayFlood", err, transport.DefaultMaxStrayLines+1)
	}
	want := fmt.Sprintf(`(the server wrote %d lines on its stdout that are no JSON-RPC message; the last: "starting up")`, transport.DefaultMaxStrayLines+1)
	if !strings.HasSuffix(err.Error(), want) {
		t.Errorf("Connect: %q, want it to end %q", err, want)
	}
}
