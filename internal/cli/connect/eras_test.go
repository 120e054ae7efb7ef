package connect_test

import (
	"context"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/scripted"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// An era taken because the probe went unanswered is remembered as guessed (trusted for
// less long); one the server stated, by refusing server/discover, is not. A session of
// 2026-07-28 forced with --protocol replaces what was remembered.
func TestEraRememberedAsGuessed(t *testing.T) {
	ctx := context.Background()
	silent := scripted.NewLegacy(t, func(ctx context.Context, _ *jsonrpc.Request) (any, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	refusing := scripted.NewLegacy(t, nil)
	mem := &eras{}
	for _, c := range []struct {
		url     string
		guessed bool
	}{{silent.HTTP(), true}, {refusing.HTTP(), false}} {
		sel := &connect.Selection{URL: c.url, Eras: mem}
		sess, err := sel.Connect(ctx, &client.Options{ProbeTimeout: 200 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		sess.Close()
		key := "http " + c.url
		if mem.m[key] != mcp.LatestProtocolVersion || mem.guessed[key] != c.guessed {
			t.Errorf("%s: remembered %q, guessed %v; want %q, %v", c.url, mem.m[key], mem.guessed[key], mcp.LatestProtocolVersion, c.guessed)
		}
	}

	modern := scripted.New(t).HTTP()
	mem.m["http "+modern] = mcp.LatestProtocolVersion
	sess, err := (&connect.Selection{URL: modern, Eras: mem, Protocol: mcp.ProtocolVersion20260728}).Connect(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	sess.Close()
	if got := mem.m["http "+modern]; got != mcp.ProtocolVersion20260728 {
		t.Errorf("after --protocol 2026-07-28: remembered %q", got)
	}
}
