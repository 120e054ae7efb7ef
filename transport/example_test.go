package transport_test

import (
	"context"
	"fmt"
	"log"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/transport"
)

// A Pipe is two ends of an in-memory connection that frames messages as stdio does: a
// test's client and server, or a server embedded in its client's process (as
// PipeTransport hands one end to a server). Most programs give the ends to a
// jsonrpc.Conn, a server.Server or a client.Client rather than read them.
func ExamplePipe() {
	ctx := context.Background()
	a, b := transport.Pipe()
	defer a.Close()
	defer b.Close()

	// A write waits until the other end reads it, as with io.Pipe.
	go func() {
		if err := a.Write(ctx, &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "ping"}); err != nil {
			log.Fatal(err)
		}
	}()
	m, err := b.Read(ctx)
	if err != nil {
		log.Fatal(err)
	}
	req := m.(*jsonrpc.Request)
	fmt.Println(req.Method, req.ID, req.IsNotification())
	// Output:
	// ping 1 false
}
