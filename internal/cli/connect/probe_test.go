package connect

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/auth"
	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/scripted"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// slowDiscover is a server of 2026-07-28 that answers server/discover after delay.
func slowDiscover(t *testing.T, delay time.Duration) string {
	f := scripted.New(t)
	answer := f.Handler(mcp.MethodServerDiscover)
	f.On(mcp.MethodServerDiscover, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return answer(ctx, req)
	})
	return f.HTTP()
}

// With --protocol 2026-07-28 there is no probe: a server slow to answer server/discover
// is waited for as --timeout says (it was given 5 s, whatever --timeout said), and one
// that does not answer within --timeout is said not to have answered server/discover,
// the request mcpi sent (not initialize).
func TestForcedModernDiscoverTimeout(t *testing.T) {
	ctx := context.Background()
	url := slowDiscover(t, 5500*time.Millisecond)
	sel := &Selection{URL: url, Protocol: mcp.ProtocolVersion20260728, Limits: Limits{Timeout: 30 * time.Second}}
	sess, err := sel.Connect(ctx, nil)
	if err != nil {
		msg, _ := cmdutil.Describe(err)
		t.Fatalf("--timeout 30s: %s", msg)
	}
	sess.Close()

	sel = &Selection{URL: slowDiscover(t, 3*time.Second), Protocol: mcp.ProtocolVersion20260728, Limits: Limits{Timeout: time.Second}}
	_, err = sel.Connect(ctx, nil)
	msg, code := cmdutil.Describe(err)
	want := "the server at " + sel.URL + " did not answer server/discover within 1.0s (--timeout raises the bound)"
	if msg != want || code != cmdutil.ExitUsage {
		t.Errorf("--timeout 1s: got %q (exit %d)\nwant %q (exit 2)", msg, code, want)
	}
}

// silentServer accepts connections and never answers on them.
func silentServer(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				for _, c := range conns {
					c.Close()
				}
				return
			}
			conns = append(conns, c)
		}
	}()
	t.Cleanup(func() { l.Close(); <-done })
	return "http://" + l.Addr().String() + "/mcp"
}

// The request that asks an HTTP server whether it wants a login, sent before the
// session starts, is bounded by --timeout when that is shorter than its own 5 s: at a
// server that never answers, --timeout 1s took 6 s.
func TestLoginProbeHonoursTimeout(t *testing.T) {
	sel := &Selection{URL: silentServer(t), Protocol: mcp.ProtocolVersion20260728, Limits: Limits{Timeout: 200 * time.Millisecond}}
	sel.Auth.Store = &auth.MemoryStore{}
	_, err := sel.Login(context.Background())
	msg, _ := cmdutil.Describe(err)
	if want := "the server did not answer within 200ms"; msg != want {
		t.Errorf("got %q, want %q", msg, want)
	}
}
