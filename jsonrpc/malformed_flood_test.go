package jsonrpc_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

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

// logLines is a logger's text records, one a line, without their time.
type logLines struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logLines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logLines) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	}))
}

// take returns the lines written since the last take.
func (l *logLines) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := strings.TrimSuffix(l.b.String(), "\n")
	l.b.Reset()
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// pingPast sends a ping and reads what the connection wrote until its answer, each line
// before it the answer to a line that is no JSON.
func (p *rawPeer) pingPast(id string) {
	p.t.Helper()
	p.send(`{"jsonrpc":"2.0","id":"` + id + `","method":"ping"}`)
	const parseError = `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: invalid JSON"}}`
	for {
		switch l := p.recv(); l {
		case `{"jsonrpc":"2.0","id":"` + id + `","result":{}}`:
			return
		case parseError:
		default:
			p.t.Fatalf("connection wrote %s, want a parse error or the ping's answer", l)
		}
	}
}

// A peer that writes thousands of lines that are no JSON-RPC message makes a few log
// lines, not one each: the first ten, then a summary at most once a minute saying how
// many more came, and one when the connection ends. Each was logged at Warn, a million
// garbage lines a million log lines.
func TestMalformedFloodLoggedBriefly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var log logLines
		conn, p := newRawPeer(t, jsonrpc.Options{Handler: pingHandler, Logger: log.logger()})
		garbage := func(n int) {
			p.send(strings.TrimSuffix(strings.Repeat("not json\n", n), "\n"))
		}
		const one = `level=WARN msg="malformed message" error="parse error: invalid JSON"`
		summary := func(n int) string {
			return fmt.Sprintf(`level=WARN msg="malformed messages not logged one by one" count=%d lastError="parse error: invalid JSON"`, n)
		}

		garbage(3000)
		p.pingPast("flood")
		want := slices.Repeat([]string{one}, 10)
		if got := log.take(); !slices.Equal(got, want) {
			t.Fatalf("after 3,000 malformed lines the log holds %d lines:\n%s\nwant the first ten:\n%s",
				len(got), strings.Join(got[:min(len(got), 20)], "\n"), strings.Join(want, "\n"))
		}

		garbage(1000) // within the minute: counted, not logged
		p.pingPast("same minute")
		if got := log.take(); len(got) != 0 {
			t.Fatalf("within the minute the log got %d lines, want none: %s", len(got), got[0])
		}

		time.Sleep(time.Minute)
		garbage(1)
		p.pingPast("a minute later")
		if got := log.take(); !slices.Equal(got, []string{summary(3991)}) {
			t.Fatalf("a minute later the log got\n%s\nwant\n%s", strings.Join(got, "\n"), summary(3991))
		}

		garbage(5)
		p.pingPast("before the end")
		conn.Close()
		<-conn.Done()
		if got := log.take(); !slices.Equal(got, []string{summary(5)}) {
			t.Fatalf("at the end the log got\n%s\nwant\n%s", strings.Join(got, "\n"), summary(5))
		}
	})
}

// The other lines a peer can make repeat at will are bounded as malformed messages
// are: responses to no request of the connection's, and requests refused past
// MaxInFlight, the first ten logged one by one, the rest counted in a summary when the
// connection ends.
func TestPeerRepeatedLinesLoggedBriefly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var log logLines
		release := make(chan struct{})
		conn, p := newRawPeer(t, jsonrpc.Options{Logger: log.logger(), MaxInFlight: 1,
			Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
				<-release
				return struct{}{}, nil
			})})
		var b strings.Builder
		for i := range 500 {
			fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"result":{}}`+"\n", 1000+i)
		}
		b.WriteString(`{"jsonrpc":"2.0","id":"held","method":"hold"}`)
		p.send(b.String())
		b.Reset()
		for i := range 300 {
			fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"more"}`+"\n", i)
		}
		p.send(strings.TrimSuffix(b.String(), "\n"))
		for range 300 {
			p.recv() // the refusals
		}
		close(release)
		p.recv() // the held request's answer
		conn.Close()
		synctest.Wait()
		count := map[string]int{}
		for _, l := range log.take() {
			for _, msg := range []string{`msg="response to an unknown request id"`, `msg="refused a request"`,
				`msg="responses to unknown request ids not logged one by one" count=490`, `msg="refused requests not logged one by one" count=290`} {
				if strings.Contains(l, msg) {
					count[msg]++
				}
			}
		}
		want := map[string]int{`msg="response to an unknown request id"`: 10, `msg="refused a request"`: 10,
			`msg="responses to unknown request ids not logged one by one" count=490`: 1, `msg="refused requests not logged one by one" count=290`: 1}
		if !maps.Equal(count, want) {
			t.Errorf("log lines %v, want %v", count, want)
		}
	})
}
