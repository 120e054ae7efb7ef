package demo_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/mcp"
)

// The tools that ask the client work unchanged in both eras: in 2025-11-25 they send
// elicitation/create and sampling/createMessage, in 2026-07-28 the same calls answer
// input_required and run again with the client's answers.
func TestAskToolsInBothEras(t *testing.T) {
	for _, version := range []string{mcp.LatestProtocolVersion, client.ProtocolAuto} {
		var mu sync.Mutex
		var asked []string
		ctx, s := connect(t, &demo.Options{}, &client.Options{
			ProtocolVersion: version,
			OnRequest: func(ctx context.Context, r *client.Request) {
				mu.Lock()
				asked = append(asked, r.Method+" key="+r.InputKey)
				mu.Unlock()
				switch {
				case r.Elicitation != nil:
					_ = r.Accept(map[string]any{"name": "Ada", "color": "green"})
				case r.Sampling != nil:
					_ = r.Respond(&mcp.CreateMessageResult{Role: mcp.RoleAssistant, Model: "m", Content: []mcp.Content{mcp.TextContent("42")}})
				}
			},
		})
		want := mcp.LatestProtocolVersion
		if version == client.ProtocolAuto {
			want = mcp.ProtocolVersion20260728
		}
		if got := s.ProtocolVersion(); got != want {
			t.Fatalf("version %q: connected at %s, want %s", version, got, want)
		}
		if res := call(t, ctx, s, demo.ToolAskUser, ""); res.IsError || !strings.Contains(text(t, res), "Ada") {
			t.Errorf("%s: ask_user = %+v", want, res)
		}
		if res := call(t, ctx, s, demo.ToolAskModel, `{"prompt":"6*7?"}`); res.IsError || !strings.Contains(text(t, res), "42") {
			t.Errorf("%s: ask_model = %+v", want, res)
		}
		mu.Lock()
		defer mu.Unlock()
		t.Logf("%s: %q", want, asked)
		if version == "" && (len(asked) != 2 || !strings.Contains(asked[0], "key=elicitation-1") || !strings.Contains(asked[1], "key=sampling-1")) {
			t.Errorf("2026-07-28 requests %q, want them by MRTR keys", asked)
		}
	}
}
