package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/transport"
)

// FuzzServerMessages plays a hostile server: after a proper initialize, it sends the
// client whatever messages the input holds (one per line: notifications, requests,
// responses to nothing), then pings it. The client must not panic, and must still answer
// the ping: nothing a server sends may wedge the session. scripts/fuzz.sh runs it for a
// while in CI; `go test` runs the seeds.
func FuzzServerMessages(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"t","status":"completed","createdAt":"x","lastUpdatedAt":"y","ttl":-1,"pollInterval":9000000000000}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"mcpi-1","progress":1e308,"total":-1}}`,
		`{"jsonrpc":"2.0","id":7,"method":"sampling/createMessage","params":{"messages":[],"maxTokens":1,"task":{"ttl":99999999999999}}}`,
		`{"jsonrpc":"2.0","id":8,"method":"elicitation/create","params":{"message":"\u001b]0;x\u0007","requestedSchema":{"type":"object","properties":{"a":{"type":"string","default":5}}}}}`,
		`{"jsonrpc":"2.0","id":9,"method":"tasks/get","params":{"taskId":"nope"}}`,
		`{"jsonrpc":"2.0","id":10,"method":"tasks/list","params":{"cursor":"!!"}}`,
		`{"jsonrpc":"2.0","id":11,"method":"roots/list"}`,
		`{"jsonrpc":"2.0","id":99,"result":{"tools":[]}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"emergency","data":{"deep":[[[[[]]]]]}}}`,
		`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`,
		// A request method without an id: a notification nobody can answer. The client
		// once queued it for the user on its reading goroutine, and read nothing more.
		`{"jsonrpc":"2.0","method":"sampling/createMessage","params":{"messages":[],"maxTokens":1}}`,
		`{"jsonrpc":"2.0","method":"elicitation/create","params":{"message":"?","requestedSchema":{"type":"object"}}}`,
		`{"jsonrpc":"2.0","id":12,"method":"notifications/progress","params":{"progressToken":1,"progress":1}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		pinged := make(chan error, 1)
		tr := transport.PipeTransport{Serve: func(_ context.Context, conn jsonrpc.Connection) error {
			go hostileServer(ctx, conn, data, pinged)
			return nil
		}}
		s, err := client.New(mcp.Implementation{Name: "fuzz", Version: "0"}, &client.Options{
			ProtocolVersion: mcp.LatestProtocolVersion, // the server below speaks 2025-11-25
			Receiver:        &client.ReceiverOptions{},
		}).Connect(ctx, tr)
		if err != nil {
			t.Fatalf("initialize: %v", err)
		}
		defer s.Close()
		select {
		case err := <-pinged:
			if err != nil {
				t.Fatalf("after the hostile messages the client does not answer a ping: %v", err)
			}
		case <-ctx.Done():
			t.Fatal("the hostile server never got to its ping")
		}
	})
}

// hostileServer answers initialize, sends the messages of data, then pings the client
// and reports how that went.
func hostileServer(ctx context.Context, conn jsonrpc.Connection, data []byte, pinged chan<- error) {
	// The connection outlives this function: the client may still be finishing its
	// handshake when the ping comes back.
	context.AfterFunc(ctx, func() { conn.Close() })
	init, err := conn.Read(ctx)
	if err != nil {
		pinged <- err
		return
	}
	result, _ := json.Marshal(mcp.InitializeResult{ProtocolVersion: mcp.LatestProtocolVersion,
		ServerInfo: mcp.Implementation{Name: "hostile", Version: "0"}})
	if err := conn.Write(ctx, &jsonrpc.Response{ID: init.(*jsonrpc.Request).ID, Result: result}); err != nil {
		pinged <- err
		return
	}
	// What the client sends from now on (notifications/initialized, answers, polls) is
	// read and answered plainly, so that it never blocks on a full pipe.
	answers := make(chan *jsonrpc.Response, 1)
	go func() {
		for {
			m, err := conn.Read(ctx)
			if err != nil {
				return
			}
			switch m := m.(type) {
			case *jsonrpc.Request:
				if !m.IsNotification() {
					_ = conn.Write(ctx, &jsonrpc.Response{ID: m.ID, Error: jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "hostile")})
				}
			case *jsonrpc.Response:
				if m.ID == jsonrpc.StringID("hostile-ping") {
					answers <- m
				}
			}
		}
	}()
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		m, err := jsonrpc.DecodeMessage(line)
		if err != nil {
			continue
		}
		if err := conn.Write(ctx, m); err != nil {
			pinged <- err
			return
		}
	}
	if err := conn.Write(ctx, &jsonrpc.Request{ID: jsonrpc.StringID("hostile-ping"), Method: mcp.MethodPing}); err != nil {
		pinged <- err
		return
	}
	select {
	case r := <-answers:
		if r.Error != nil {
			pinged <- r.Error
			return
		}
		pinged <- nil
	case <-time.After(5 * time.Second):
		pinged <- context.DeadlineExceeded
	}
}
