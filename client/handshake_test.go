package client_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/transport"
)

// trafficOf names each message as "→ method", "← method" (a notification or request of
// the server's) or "← answer".
func trafficOf(events []*client.MessageEvent) string {
	var out []string
	for _, e := range events {
		arrow := "→ "
		if e.Dir == jsonrpc.Inbound {
			arrow = "← "
		}
		switch m := e.Message.(type) {
		case *jsonrpc.Request:
			out = append(out, arrow+m.Method)
		case *jsonrpc.Response:
			out = append(out, arrow+"answer")
		}
	}
	return strings.Join(out, ", ")
}

// Session.Handshake keeps the messages of the session's start, which no subscriber can
// see (it subscribes after Connect): the era's handshake, the log level asked for, and,
// in auto mode, the probe; none of the session's later traffic.
func TestHandshakeMessages(t *testing.T) {
	for _, tt := range []struct {
		version string
		want    string
	}{
		{"2025-11-25", "→ initialize, ← answer, → notifications/initialized, → logging/setLevel, ← answer"},
		{mcp.ProtocolVersion20260728, "→ server/discover, ← answer"},
		{client.ProtocolAuto, "→ server/discover, ← answer"},
	} {
		t.Run(tt.version, func(t *testing.T) {
			ctx, s := demoSession(t, tt.version, &client.Options{LogLevel: mcp.LoggingLevelInfo})
			if err := s.Ping(ctx); err != nil {
				t.Fatal(err)
			}
			if got := trafficOf(s.Handshake()); got != tt.want {
				t.Errorf("Handshake = %s\nwant        %s", got, tt.want)
			}
		})
	}
}

// In auto mode with a server of the older era, the probe it refused comes first, and
// then the handshake of 2025-11-25 (over a connection of its own when the probe ended
// the first).
func TestHandshakeMessagesOfTheProbe(t *testing.T) {
	srv := demo.New(&demo.Options{Legacy: true})
	s, err := client.New(mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(t.Context(), transport.PipeTransport{
		Serve: func(ctx context.Context, conn jsonrpc.Connection) error {
			srv.Connect(ctx, conn)
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want := "→ server/discover, ← answer, → initialize, ← answer, → notifications/initialized"
	if got := trafficOf(s.Handshake()); got != want {
		t.Errorf("Handshake = %s\nwant        %s", got, want)
	}
}
