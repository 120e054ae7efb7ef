package client_test

import (
	"context"
	"errors"
	"os/exec"
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
