package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/transport"
)

// In 2026-07-28 SubscribeResource returns once the server has acknowledged the
// subscriptions/listen stream with the resource: the demo does; a server that refuses the
// stream, acknowledges it without the resource, or ends it first gets an error. It
// returned nil at once whatever the server made of it (a refused stream was only logged),
// so the TUI and the web page said "subscribed" to a server that had refused.
func TestSubscribeResourceWaitsForTheAcknowledgement(t *testing.T) {
	ctx := bounded(t)
	srv := demo.New(nil)
	s, err := client.New(mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, transport.PipeTransport{Serve: func(ctx context.Context, conn jsonrpc.Connection) error {
		srv.Connect(ctx, conn)
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !s.Modern() {
		t.Fatal("the demo was not spoken to in 2026-07-28")
	}
	if err := s.SubscribeResource(ctx, demo.ResourceAbout); err != nil {
		t.Fatalf("the demo's subscription: %v", err)
	}
	if n := srv.Listeners(); n != 1 {
		t.Errorf("the demo has %d listen streams once subscribed, want 1", n)
	}
	if err := s.UnsubscribeResource(ctx, demo.ResourceAbout); err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct {
		name string
		ack  func(f *fakeServer, ctx context.Context, req *jsonrpc.Request) (any, error)
		want func(error) bool
	}{
		{"refused", func(*fakeServer, context.Context, *jsonrpc.Request) (any, error) {
			return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "no listen here")
		}, func(err error) bool {
			var rerr *jsonrpc.Error
			return errors.As(err, &rerr) && rerr.Code == jsonrpc.CodeMethodNotFound
		}},
		{"acknowledged without it", func(f *fakeServer, ctx context.Context, req *jsonrpc.Request) (any, error) {
			_ = f.Conn().Notify(ctx, mcp.NotificationSubscriptionsAcknowledged, map[string]any{
				"_meta":         map[string]any{mcp.MetaSubscriptionID: req.ID},
				"notifications": map[string]any{},
			})
			<-ctx.Done()
			return nil, ctx.Err()
		}, func(err error) bool { return errors.Is(err, client.ErrSubscriptionRefused) }},
		{"ended first", func(*fakeServer, context.Context, *jsonrpc.Request) (any, error) {
			return json.RawMessage(`{"resultType":"complete"}`), nil
		}, func(err error) bool { return err != nil && strings.Contains(err.Error(), "before it acknowledged") }},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFake(t)
			f.On(mcp.MethodSubscriptionsListen, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
				return c.ack(f, ctx, req)
			})
			s := f.MustConnect(ctx, nil)
			if err := s.SubscribeResource(ctx, "demo://about"); !c.want(err) {
				t.Errorf("SubscribeResource: %v", err)
			}
		})
	}
}
