package interop

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// subscriptions/listen against the TypeScript SDK v2 server, over HTTP and stdio: the
// server acknowledges the stream with the notifications it accepted, tagged with the
// listen request's id, and the stream ends when the client withdraws it.
func TestTS2Listen(t *testing.T) {
	ctx := testContext(t)
	url := startTS2HTTP(t, ctx)
	for name, tr := range map[string]func() (*client.Session, error){
		"http": func() (*client.Session, error) {
			tr, _ := tapHTTP(t, url)
			s, _, err := connectPeer(t, ctx, tr, client.ProtocolAuto)
			return s, err
		},
		"stdio": func() (*client.Session, error) {
			s, _, err := connectPeer(t, ctx, ts2Stdio(t), client.ProtocolAuto)
			return s, err
		},
	} {
		t.Run(name, func(t *testing.T) {
			s, err := tr()
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			sub := s.Subscribe()
			defer sub.Close()
			lctx, cancel := context.WithCancel(ctx)
			ended := make(chan error, 1)
			go func() { ended <- s.Listen(lctx, mcp.ListenFilter{ToolsListChanged: true}) }()

			var listenID jsonrpc.ID
			var ack *mcp.ListenAcknowledgedParams
			wait, stop := context.WithTimeout(ctx, 10*time.Second)
			defer stop()
			for e := range sub.All(wait) {
				m, ok := e.(*client.MessageEvent)
				if !ok {
					continue
				}
				req, ok := m.Message.(*jsonrpc.Request)
				switch {
				case !ok:
				case req.Method == mcp.MethodSubscriptionsListen:
					listenID = req.ID
				case req.Method == mcp.NotificationSubscriptionsAcknowledged:
					ack = new(mcp.ListenAcknowledgedParams)
					if err := json.Unmarshal(req.Params, ack); err != nil {
						t.Fatalf("acknowledgement %s: %v", req.Params, err)
					}
				}
				if ack != nil {
					break
				}
			}
			if ack == nil || !listenID.IsValid() {
				t.Fatalf("no acknowledgement of the listen (id %v)", listenID)
			}
			if !ack.Notifications.ToolsListChanged {
				t.Errorf("acknowledged %+v, want toolsListChanged", ack.Notifications)
			}
			id, ok := ack.Meta.SubscriptionID()
			want, _ := mcp.NormalizeID(json.Number(listenID.String()))
			if !ok || id != want {
				t.Errorf("acknowledgement tagged %v, want the listen's id %v", id, want)
			}
			cancel()
			select {
			case err := <-ended:
				if err != nil {
					t.Errorf("Listen after the client withdrew it: %v", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Listen did not return after its context ended")
			}
			// The session goes on.
			if _, err := s.ListTools(ctx, nil); err != nil {
				t.Errorf("tools/list after the listen: %v", err)
			}
		})
	}
}
