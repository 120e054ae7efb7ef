package jsonrpc_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/transport"
)

// A peer that writes thousands of lines that are no JSON-RPC message and never reads
// (a stdio server flooding its stdout): the connection answers what it can write at
// once and drops the other answers, and goes on reading, so that the response the
// peer writes after the flood settles its call. Its reading waited on the write of a
// parse error once the pipe to the peer was full, and read nothing more.
func TestMalformedFloodNeverHoldsTheReading(t *testing.T) {
	sr, pw, err := os.Pipe() // peer → conn
	if err != nil {
		t.Fatal(err)
	}
	pr, sw, err := os.Pipe() // conn → peer, which the peer reads only at the end
	if err != nil {
		t.Fatal(err)
	}
	conn := jsonrpc.NewConn(transport.NewStream(sr, sw, 0), jsonrpc.Options{})
	t.Cleanup(func() {
		conn.Close()
		pw.Close()
		pr.Close()
	})
	got := make(chan string, 1)
	if err := conn.Go(t.Context(), "work", nil, func(res json.RawMessage, err error) {
		if err != nil {
			got <- err.Error()
			return
		}
		got <- string(res)
	}); err != nil {
		t.Fatal(err)
	}
	const flood = 5000 // their answers come to about 7 times what a pipe holds
	go func() {
		w := bufio.NewWriter(pw)
		for range flood {
			w.WriteString("not json\n")
		}
		w.WriteString(`{"jsonrpc":"2.0","id":1,"result":"done"}` + "\n")
		w.Flush()
	}()
	if r := recv(t, got, "the response after the flood"); r != `"done"` {
		t.Fatalf("the call got %s, want \"done\"", r)
	}
	conn.Close()
	b, err := io.ReadAll(pr)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if lines[0] != `{"jsonrpc":"2.0","id":1,"method":"work"}` {
		t.Fatalf("the peer read first %s, want the request", lines[0])
	}
	const answer = `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: invalid JSON"}}`
	answers := lines[1:]
	if len(answers) == 0 || len(answers) >= flood {
		t.Fatalf("%d answers of %d malformed lines, want some dropped, some written", len(answers), flood)
	}
	for i, l := range answers {
		if l != answer {
			t.Fatalf("answer %d is\n%s\nwant\n%s", i, l, answer)
		}
	}
}

// A peer that reads gets an answer to each malformed line of a burst, in order, though
// none is written where the connection reads (over an in-memory pipe no write can be
// made at once): as many as the answers that may wait for their write.
func TestMalformedBurstAllAnswered(t *testing.T) {
	_, p := newRawPeer(t, jsonrpc.Options{Handler: pingHandler})
	const burst = 50
	var b strings.Builder
	for i := range burst {
		fmt.Fprintf(&b, `{"jsonrpc":"1.0","id":%d,"method":"ping"}`+"\n", i)
	}
	p.send(strings.TrimSuffix(b.String(), "\n"))
	for i := range burst {
		assertErrorReply(t, p.recv(), jsonrpc.Int64ID(int64(i)), jsonrpc.CodeInvalidRequest)
	}
	p.ping("after")
}
