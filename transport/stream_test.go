package transport_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/transport"
)

// streamFailsafe turns a hang into a failure; nothing waits for it to pass.
const streamFailsafe = 10 * time.Second

// frame returns a valid notification exactly n bytes long (n ≥ 40).
func frame(n int) string {
	const head, tail = `{"jsonrpc":"2.0","method":"pad","params":{"p":"`, `"}}`
	if n < len(head)+len(tail) {
		panic("frame too short")
	}
	return head + strings.Repeat("a", n-len(head)-len(tail)) + tail
}

const (
	msgA = `{"jsonrpc":"2.0","id":1,"method":"a"}`
	msgB = `{"jsonrpc":"2.0","method":"b"}`
)

// readAll reads messages until an error and returns them, encoded, with the error. Decode
// errors are recorded in place as "decode <code> <message>".
func readAll(t *testing.T, s jsonrpc.Connection) ([]string, error) {
	t.Helper()
	var got []string
	for {
		m, err := s.Read(context.Background())
		var de *jsonrpc.DecodeError
		switch {
		case errors.As(err, &de):
			got = append(got, fmt.Sprintf("decode %d %s", de.Err.Code, de.Err.Message))
			continue
		case err != nil:
			return got, err
		}
		b, err := jsonrpc.EncodeMessage(m)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(b))
	}
}

func expectMessages(t *testing.T, input string, max int, want ...string) {
	t.Helper()
	s := transport.NewStream(strings.NewReader(input), io.Discard, max)
	got, err := readAll(t, s)
	if !errors.Is(err, io.EOF) {
		t.Errorf("stream ended with %v, want io.EOF", err)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("read\n%s\nwant\n%s", abbreviate(got), abbreviate(want))
	}
	// Reading after the end keeps returning EOF.
	if _, err := s.Read(context.Background()); !errors.Is(err, io.EOF) {
		t.Errorf("read after the end: %v, want io.EOF", err)
	}
}

func abbreviate(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		if len(l) > 120 {
			l = fmt.Sprintf("%s…(%d bytes)", l[:100], len(l))
		}
		b.WriteString("  " + l + "\n")
	}
	return b.String()
}

func tooLarge(max int) string {
	return fmt.Sprintf("decode %d message too large: the limit is %d bytes", jsonrpc.CodeInvalidRequest, max)
}

func TestStreamReadFraming(t *testing.T) {
	for _, tc := range []struct {
		name  string
		input string
		want  []string
	}{
		{"one per line", msgA + "\n" + msgB + "\n", []string{msgA, msgB}},
		{"blank lines skipped", "\n\n" + msgA + "\n \t \n\r\n\n" + msgB + "\n\n", []string{msgA, msgB}},
		{"final message without newline", msgA + "\n" + msgB, []string{msgA, msgB}},
		{"only message without newline", msgA, []string{msgA}},
		{"CRLF", msgA + "\r\n" + msgB + "\r\n", []string{msgA, msgB}},
		{"CRLF and blank CRLF lines", "\r\n" + msgA + "\r\n\r\n" + msgB, []string{msgA, msgB}},
		{"surrounding spaces", "  " + msgA + "  \n", []string{msgA}},
		{"empty input", "", nil},
		{"only blank lines", "\n\r\n \n", nil},
		{"trailing blank without newline", msgA + "\n   ", []string{msgA}},
		{"malformed line then a good one", "{oops\n" + msgA + "\n",
			[]string{"decode -32700 parse error: invalid JSON", msgA}},
		{"two messages on one line", msgA + msgB + "\n" + msgA + "\n",
			[]string{"decode -32700 parse error: invalid JSON", msgA}},
	} {
		t.Run(tc.name, func(t *testing.T) { expectMessages(t, tc.input, 0, tc.want...) })
	}
}

func TestStreamMessageSizeLimit(t *testing.T) {
	const max = 128
	exact, over := frame(max), frame(max+1)
	for _, tc := range []struct {
		name  string
		input string
		want  []string
	}{
		{"exactly the limit", exact + "\n" + msgA + "\n", []string{exact, msgA}},
		{"exactly the limit, CRLF", exact + "\r\n" + msgA + "\r\n", []string{exact, msgA}},
		{"exactly the limit, at the end", msgA + "\n" + exact, []string{msgA, exact}},
		{"one byte over", over + "\n" + msgA + "\n", []string{tooLarge(max), msgA}},
		{"one byte over, CRLF", over + "\r\n" + msgA + "\n", []string{tooLarge(max), msgA}},
		{"one byte over, at the end", msgA + "\n" + over, []string{msgA, tooLarge(max)}},
		{"far over, then more", frame(10*max) + "\n" + frame(3*max) + "\n" + msgB + "\n",
			[]string{tooLarge(max), tooLarge(max), msgB}},
		{"far over, at the end", msgA + "\n" + frame(10*max), []string{msgA, tooLarge(max)}},
	} {
		t.Run(tc.name, func(t *testing.T) { expectMessages(t, tc.input, max, tc.want...) })
	}

	// A limit above the reader's internal buffer (64 KiB) is enforced across fragments.
	const big = 100_000
	t.Run("large limit", func(t *testing.T) {
		expectMessages(t, frame(big)+"\n"+frame(big+1)+"\n"+msgA+"\n"+frame(big+1), big,
			frame(big), tooLarge(big), msgA, tooLarge(big))
	})
	t.Run("large limit, far over at the end", func(t *testing.T) {
		expectMessages(t, frame(big)+"\r\n"+frame(5*big), big, frame(big), tooLarge(big))
	})
}

func TestStreamTenMegabyteLine(t *testing.T) {
	huge := frame(10 << 20)
	input := io.MultiReader(strings.NewReader(huge+"\n"), strings.NewReader(msgA+"\n"))
	s := transport.NewStream(input, io.Discard, 0)

	_, err := s.Read(context.Background())
	var de *jsonrpc.DecodeError
	if !errors.As(err, &de) {
		t.Fatalf("reading a 10 MB line: %v, want a *jsonrpc.DecodeError", err)
	}
	if de.Err.Code != jsonrpc.CodeInvalidRequest || !strings.Contains(de.Err.Message, "too large") {
		t.Fatalf("got %+v, want -32600 saying too large", de.Err)
	}
	if !strings.Contains(de.Err.Message, fmt.Sprint(transport.DefaultMaxMessageSize)) {
		t.Errorf("the message %q does not state the limit", de.Err.Message)
	}
	if de.ID.IsValid() {
		t.Errorf("the reply names id %v", de.ID)
	}
	m, err := s.Read(context.Background())
	if err != nil {
		t.Fatalf("the message after the huge line: %v", err)
	}
	if r, ok := m.(*jsonrpc.Request); !ok || r.Method != "a" {
		t.Fatalf("the message after the huge line is %#v", m)
	}
	if _, err := s.Read(context.Background()); !errors.Is(err, io.EOF) {
		t.Fatalf("then %v, want EOF", err)
	}
}

// TestStreamTenMegabyteLineOverConn sends the huge line through a pipe to a Conn: the peer
// gets a -32600 reply with a null id and the connection keeps working.
func TestStreamTenMegabyteLineOverConn(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ping := jsonrpc.HandlerFunc(func(context.Context, *jsonrpc.Request) (any, error) { return "pong", nil })
	conn := jsonrpc.NewConn(transport.NewStream(inR, outW, 0), jsonrpc.Options{Handler: ping})
	defer conn.Close()
	defer inW.Close()
	defer outR.Close()

	lines := make(chan string, 16)
	go func() {
		defer close(lines)
		r := bufio.NewReader(outR)
		for {
			l, err := r.ReadString('\n')
			if err != nil {
				return
			}
			lines <- l
		}
	}()
	writeErr := make(chan error, 1)
	go func() {
		_, err := io.WriteString(inW, frame(10<<20)+"\n"+`{"jsonrpc":"2.0","id":"after","method":"ping"}`+"\n")
		writeErr <- err
	}()
	next := func() string {
		t.Helper()
		select {
		case l := <-lines:
			return l
		case <-time.After(streamFailsafe):
			t.Fatal("timed out waiting for the connection to write")
			return ""
		}
	}
	// The answer to the huge line is written without the reading waiting on it, so the
	// next request's answer may come first: JSON-RPC orders no responses.
	want := []string{
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"message too large: the limit is 4194304 bytes"}}` + "\n",
		`{"jsonrpc":"2.0","id":"after","result":"pong"}` + "\n",
	}
	got := []string{next(), next()}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("replies to the huge line and the next request:\n got %q\nwant %q", got, want)
	}
	if err := <-writeErr; err != nil {
		t.Fatal(err)
	}
}

type failingReader struct{ err error }

func (r failingReader) Read([]byte) (int, error) { return 0, r.err }

func TestStreamReadError(t *testing.T) {
	boom := errors.New("device gone")
	s := transport.NewStream(io.MultiReader(strings.NewReader(msgA+"\n"), failingReader{boom}), io.Discard, 0)
	if _, err := s.Read(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Read(context.Background()); !errors.Is(err, boom) {
		t.Fatalf("got %v, want the reader's error", err)
	}
}

// lineRecorder checks that every Write call carries exactly one whole line.
type lineRecorder struct {
	mu    sync.Mutex
	lines []string
	bad   []string
}

func (w *lineRecorder) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := string(p)
	if !strings.HasSuffix(s, "\n") || strings.Count(s, "\n") != 1 {
		w.bad = append(w.bad, s)
	}
	w.lines = append(w.lines, strings.TrimSuffix(s, "\n"))
	return len(p), nil
}

func TestStreamWrite(t *testing.T) {
	var w lineRecorder
	s := transport.NewStream(strings.NewReader(""), &w, 0)
	const n = 200
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			m := &jsonrpc.Request{ID: jsonrpc.Int64ID(int64(i)), Method: "m",
				Params: []byte(fmt.Sprintf(`{"text":"line\nbreak <%d>","i":%d}`, i, i))}
			if err := s.Write(context.Background(), m); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if len(w.bad) > 0 {
		t.Fatalf("writes that are not one whole line: %q", w.bad[0])
	}
	if len(w.lines) != n {
		t.Fatalf("%d lines written, want %d", len(w.lines), n)
	}
	seen := map[int64]bool{}
	for _, l := range w.lines {
		m, err := jsonrpc.DecodeMessage([]byte(l))
		if err != nil {
			t.Fatalf("wrote an invalid line %s: %v", l, err)
		}
		seen[m.(*jsonrpc.Request).ID.Raw().(int64)] = true
	}
	if len(seen) != n {
		t.Fatalf("%d distinct messages, want %d", len(seen), n)
	}

	// Invalid raw params are refused, and nothing is written.
	if err := s.Write(context.Background(), &jsonrpc.Request{Method: "m", Params: []byte(`{bad`)}); err == nil {
		t.Error("wrote invalid params")
	}
	if len(w.lines) != n {
		t.Error("a failed encoding wrote something")
	}
}

type errWriter struct{ err error }

func (w errWriter) Write([]byte) (int, error) { return 0, w.err }

func TestStreamWriteError(t *testing.T) {
	boom := errors.New("broken pipe")
	s := transport.NewStream(strings.NewReader(""), errWriter{boom}, 0)
	err := s.Write(context.Background(), &jsonrpc.Request{Method: "m"})
	if !errors.Is(err, boom) {
		t.Fatalf("got %v, want the writer's error", err)
	}
}

type closeCounter struct {
	io.Reader
	io.Writer
	n   int
	err error
}

func (c *closeCounter) Close() error { c.n++; return c.err }

func TestStreamClose(t *testing.T) {
	r := &closeCounter{Reader: strings.NewReader(""), err: errors.New("reader close failed")}
	w := &closeCounter{Writer: io.Discard}
	s := transport.NewStream(r, w, 0)
	if err := s.Close(); err == nil || err.Error() != "reader close failed" {
		t.Errorf("Close = %v, want the first close error", err)
	}
	if err := s.Close(); err == nil || err.Error() != "reader close failed" {
		t.Errorf("second Close = %v, want the same error", err)
	}
	if r.n != 1 || w.n != 1 {
		t.Errorf("closed reader %d and writer %d times, want once each", r.n, w.n)
	}
	// Plain readers and writers are left alone.
	if err := transport.NewStream(strings.NewReader(""), io.Discard, 0).Close(); err != nil {
		t.Errorf("Close without closers = %v", err)
	}
}

func TestPipe(t *testing.T) {
	a, b := transport.Pipe()
	ctx := context.Background()
	got := make(chan jsonrpc.Message, 1)
	readErr := make(chan error, 1)
	read := func(c jsonrpc.Connection) {
		m, err := c.Read(ctx)
		if err != nil {
			readErr <- err
			return
		}
		got <- m
	}
	wait := func() jsonrpc.Message {
		t.Helper()
		select {
		case m := <-got:
			return m
		case err := <-readErr:
			t.Fatalf("read: %v", err)
		case <-time.After(streamFailsafe):
			t.Fatal("timed out")
		}
		return nil
	}
	go read(b)
	if err := a.Write(ctx, &jsonrpc.Request{ID: jsonrpc.StringID("x"), Method: "ping"}); err != nil {
		t.Fatal(err)
	}
	if r, ok := wait().(*jsonrpc.Request); !ok || r.ID != jsonrpc.StringID("x") || r.Method != "ping" {
		t.Fatalf("b read %#v", r)
	}
	go read(a)
	if err := b.Write(ctx, &jsonrpc.Response{ID: jsonrpc.StringID("x"), Result: []byte(`{"ok":true}`)}); err != nil {
		t.Fatal(err)
	}
	if r, ok := wait().(*jsonrpc.Response); !ok || string(r.Result) != `{"ok":true}` {
		t.Fatalf("a read %#v", r)
	}

	// Closing one end: the other reads EOF, and writes to the closed end fail.
	go read(b)
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-readErr:
		if !errors.Is(err, io.EOF) {
			t.Fatalf("b read %v after a closed, want io.EOF", err)
		}
	case m := <-got:
		t.Fatalf("b read %#v after a closed", m)
	case <-time.After(streamFailsafe):
		t.Fatal("timed out")
	}
	if err := b.Write(ctx, &jsonrpc.Request{Method: "late"}); err == nil {
		t.Error("writing to a closed pipe succeeded")
	}
	if err := a.Write(ctx, &jsonrpc.Request{Method: "late"}); err == nil {
		t.Error("writing on a closed end succeeded")
	}
	b.Close()
}

func TestPipeTransport(t *testing.T) {
	var server jsonrpc.Connection
	pt := transport.PipeTransport{Serve: func(ctx context.Context, s jsonrpc.Connection) error {
		server = s
		go jsonrpc.NewConn(s, jsonrpc.Options{Handler: jsonrpc.HandlerFunc(
			func(ctx context.Context, req *jsonrpc.Request) (any, error) { return req.Method, nil })})
		return nil
	}}
	var _ transport.Transport = pt
	cc, err := pt.Connect(context.Background())
	if err != nil || server == nil {
		t.Fatalf("Connect: %v", err)
	}
	c := jsonrpc.NewConn(cc, jsonrpc.Options{})
	defer c.Close()
	var s string
	if err := c.Call(context.Background(), "hello", nil, &s); err != nil || s != "hello" {
		t.Fatalf("call over PipeTransport: %q, %v", s, err)
	}

	boom := errors.New("cannot serve")
	var refused jsonrpc.Connection
	pt = transport.PipeTransport{Serve: func(ctx context.Context, s jsonrpc.Connection) error {
		refused = s
		return boom
	}}
	if cc, err := pt.Connect(context.Background()); !errors.Is(err, boom) || cc != nil {
		t.Fatalf("Connect = %v, %v; want the Serve error", cc, err)
	}
	// The server half was closed.
	if err := refused.Write(context.Background(), &jsonrpc.Request{Method: "x"}); err == nil {
		t.Error("the refused server half is still open")
	}
}

// The framing tests above read from in-memory readers; this checks the writer side pairs
// with the reader side across real line boundaries in a single buffer.
func TestStreamWriteThenRead(t *testing.T) {
	var buf bytes.Buffer
	w := transport.NewStream(strings.NewReader(""), &buf, 0)
	msgs := []jsonrpc.Message{
		&jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "a", Params: []byte(`{"s":"x\ny"}`)},
		&jsonrpc.Request{Method: "b"},
		&jsonrpc.Response{ID: jsonrpc.Int64ID(1), Result: []byte(`"<b>"`)},
		&jsonrpc.Response{Error: jsonrpc.NewError(-32700, "parse error")},
	}
	var want []string
	for _, m := range msgs {
		if err := w.Write(context.Background(), m); err != nil {
			t.Fatal(err)
		}
		b, _ := jsonrpc.EncodeMessage(m)
		want = append(want, string(b))
	}
	if strings.Count(buf.String(), "\n") != len(msgs) {
		t.Fatalf("wrote %q", buf.String())
	}
	expectMessages(t, buf.String(), 0, want...)
}

// TestStreamMessagesOutliveTheirLine: a line is decoded in the reader's buffer, which the
// next read overwrites; every part of a message read earlier must be a copy.
func TestStreamMessagesOutliveTheirLine(t *testing.T) {
	var in strings.Builder
	pad := strings.Repeat("p", 2000) // 50 of them refill the reader's 64 KiB buffer
	for i := range 50 {
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":"r%d","method":"m%d","params":{"i":%d}}`+"\n", i, i, i)
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","method":"pad","params":{"p":"%s"}}`+"\n", pad)
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"result":{"r":%d}}`+"\n", i, i)
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"error":{"code":-1,"message":"e%d","data":{"d":%d}}}`+"\n", 1000+i, i, i)
	}
	s := transport.NewStream(strings.NewReader(in.String()), io.Discard, 0)
	var msgs []jsonrpc.Message
	for {
		m, err := s.Read(context.Background())
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, m)
	}
	if len(msgs) != 200 {
		t.Fatalf("%d messages read, want 200", len(msgs))
	}
	for i := range 50 {
		req := msgs[4*i].(*jsonrpc.Request)
		res := msgs[4*i+2].(*jsonrpc.Response)
		fail := msgs[4*i+3].(*jsonrpc.Response)
		if req.ID != jsonrpc.StringID(fmt.Sprintf("r%d", i)) || req.Method != fmt.Sprintf("m%d", i) || string(req.Params) != fmt.Sprintf(`{"i":%d}`, i) {
			t.Errorf("request %d changed after later reads: %v %s %s", i, req.ID, req.Method, req.Params)
		}
		if string(res.Result) != fmt.Sprintf(`{"r":%d}`, i) {
			t.Errorf("result %d changed after later reads: %s", i, res.Result)
		}
		if fail.Error == nil || fail.Error.Message != fmt.Sprintf("e%d", i) || string(fail.Error.Data) != fmt.Sprintf(`{"d":%d}`, i) {
			t.Errorf("error %d changed after later reads: %+v", i, fail.Error)
		}
	}
}

// A write that waits behind another, which a peer that does not read holds up, gives up
// when its context ends; a stream that is free is written whatever the context.
func TestStreamWriteWaitEndsWithContext(t *testing.T) {
	w := &heldWriter{entered: make(chan struct{}, 4), release: make(chan struct{})}
	s := transport.NewStream(strings.NewReader(""), w, 0)
	stuck := make(chan error, 1)
	go func() { stuck <- s.Write(context.Background(), &jsonrpc.Request{Method: "first"}) }()
	<-w.entered // the first write holds the stream
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if err := s.Write(ctx, &jsonrpc.Request{Method: "second"}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("the waiting write: %v, want its context's end", err)
	}
	close(w.release)
	if err := <-stuck; err != nil {
		t.Errorf("the first write, once read: %v", err)
	}
	done, stop := context.WithCancel(t.Context())
	stop()
	if err := s.Write(done, &jsonrpc.Request{Method: "third"}); err != nil {
		t.Errorf("a write to a free stream with an ended context: %v", err)
	}
	if got := w.buf.String(); strings.Contains(got, "second") || !strings.Contains(got, "first") || !strings.Contains(got, "third") {
		t.Errorf("written: %q", got)
	}
}

// heldWriter is a peer that reads nothing until released.
type heldWriter struct {
	entered chan struct{}
	release chan struct{}
	buf     bytes.Buffer
}

func (w *heldWriter) Write(p []byte) (int, error) {
	w.entered <- struct{}{}
	<-w.release
	return w.buf.Write(p)
}

// Lines that are no JSON-RPC message (a log on stdout, JSON of another kind) are
// counted, the latest kept cut, and skipped; messages around them are read, and a
// response the client could not decode is no stray line.
func TestStreamStrayLines(t *testing.T) {
	in := "starting server on port 3000\n" +
		`{"jsonrpc":"2.0","method":"ping","id":1}` + "\n" +
		`{"level":30,"msg":"listening"}` + "\n" +
		strings.Repeat("x", 1000) + "\n" +
		`{"jsonrpc":"2.0","method":"ping","id":2}` + "\n"
	s := transport.NewStream(strings.NewReader(in), io.Discard, 0)
	var ids []string
	for {
		m, err := s.Read(context.Background())
		if errors.Is(err, io.EOF) {
			break
		}
		if err == nil {
			ids = append(ids, m.(*jsonrpc.Request).ID.String())
		}
	}
	n, last := s.StrayLines()
	if n != 3 || last != strings.Repeat("x", 200) || strings.Join(ids, ",") != "1,2" {
		t.Errorf("stray %d, last %q, messages %v; want 3 stray, the last cut to 200 bytes, messages 1,2", n, last, ids)
	}
}
