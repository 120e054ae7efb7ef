package jsonrpc_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/transport"
)

// failsafe bounds every wait in these tests. Nothing waits for it to pass: it only turns
// a hang into a failure. Inside a synctest bubble it fires as soon as the bubble is stuck.
const failsafe = 10 * time.Second

func recv[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(failsafe):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

func waitClosed(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(failsafe):
		t.Fatalf("timed out waiting for %s", what)
	}
}

// newPair connects two Conns over an in-memory pipe.
func newPair(t *testing.T, client, server jsonrpc.Options) (*jsonrpc.Conn, *jsonrpc.Conn) {
	a, b := transport.Pipe()
	c := jsonrpc.NewConn(a, client)
	s := jsonrpc.NewConn(b, server)
	t.Cleanup(func() {
		c.Close()
		s.Close()
	})
	return c, s
}

// mux routes requests by method; unknown methods get -32601.
type mux map[string]jsonrpc.HandlerFunc

func (m mux) Handle(ctx context.Context, req *jsonrpc.Request) (any, error) {
	if h, ok := m[req.Method]; ok {
		return h(ctx, req)
	}
	return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "method not found: %s", req.Method)
}

// echo returns the request's params.
func echo(_ context.Context, req *jsonrpc.Request) (any, error) { return req.Params, nil }

// rawPeer is the far end of a Conn as plain bytes: tests write exact lines and read the
// exact lines the Conn writes.
type rawPeer struct {
	t     *testing.T
	w     io.Writer
	lines chan string
}

func newRawPeer(t *testing.T, opts jsonrpc.Options) (*jsonrpc.Conn, *rawPeer) {
	inR, inW := io.Pipe()   // peer → conn
	outR, outW := io.Pipe() // conn → peer
	conn := jsonrpc.NewConn(transport.NewStream(inR, outW, 0), opts)
	p := drainInto(t, inW, outR)
	t.Cleanup(func() {
		conn.Close()
		inW.Close()
		outR.Close()
	})
	return conn, p
}

// drainInto is the peer that writes to w and reads what the connection writes to r.
func drainInto(t *testing.T, w io.Writer, outR io.Reader) *rawPeer {
	p := &rawPeer{t: t, w: w, lines: make(chan string, 1024)}
	go func() {
		// Drain continuously, so the Conn never blocks on a write while the test writes.
		defer close(p.lines)
		r := bufio.NewReader(outR)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			p.lines <- strings.TrimSuffix(line, "\n")
		}
	}()
	return p
}

func (p *rawPeer) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.w, line+"\n"); err != nil {
		p.t.Fatalf("raw write: %v", err)
	}
}

func (p *rawPeer) recv() string {
	p.t.Helper()
	select {
	case l, ok := <-p.lines:
		if !ok {
			p.t.Fatal("the connection closed its output")
		}
		return l
	case <-time.After(failsafe):
		p.t.Fatal("timed out waiting for a line from the connection")
	}
	return ""
}

// expect reads one line and checks it byte for byte.
func (p *rawPeer) expect(want string) {
	p.t.Helper()
	if got := p.recv(); got != want {
		p.t.Fatalf("connection wrote\n got %s\nwant %s", got, want)
	}
}

// ping checks the connection still answers requests, and that nothing else was written
// before the answer.
func (p *rawPeer) ping(id string) {
	p.t.Helper()
	p.send(`{"jsonrpc":"2.0","id":"` + id + `","method":"ping"}`)
	p.expect(`{"jsonrpc":"2.0","id":"` + id + `","result":{}}`)
}

var pingHandler = mux{"ping": func(context.Context, *jsonrpc.Request) (any, error) { return struct{}{}, nil }}

func TestCallResponse(t *testing.T) {
	type addParams struct{ A, B int }
	server := mux{
		"add": func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			var p addParams
			if err := json.Unmarshal(req.Params, &p); err != nil {
				return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, err.Error())
			}
			return map[string]int{"sum": p.A + p.B}, nil
		},
		"nothing": func(context.Context, *jsonrpc.Request) (any, error) { return nil, nil },
		"self": func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			got, ok := jsonrpc.RequestFromContext(ctx)
			if !ok || got != req {
				return nil, errors.New("RequestFromContext does not return the request")
			}
			id, ok := jsonrpc.RelatedRequest(ctx)
			if !ok || id != req.ID {
				return nil, fmt.Errorf("RelatedRequest = %v, %v; want %v", id, ok, req.ID)
			}
			return req.ID.Raw(), nil
		},
		"chan": func(context.Context, *jsonrpc.Request) (any, error) { return make(chan int), nil },
	}
	c, _ := newPair(t, jsonrpc.Options{}, jsonrpc.Options{Handler: server})
	ctx := context.Background()

	var sum struct{ Sum int }
	if err := c.Call(ctx, "add", addParams{2, 40}, &sum); err != nil || sum.Sum != 42 {
		t.Fatalf("add: %+v, %v", sum, err)
	}
	var raw json.RawMessage
	if err := c.Call(ctx, "add", json.RawMessage(`{"A":1,"B":1}`), &raw); err != nil || string(raw) != `{"sum":2}` {
		t.Fatalf("add raw: %s, %v", raw, err)
	}
	if err := c.Call(ctx, "add", addParams{1, 2}, nil); err != nil {
		t.Fatalf("add, result discarded: %v", err)
	}
	if err := c.Call(ctx, "nothing", nil, &raw); err != nil || string(raw) != `{}` {
		t.Fatalf("a nil result is sent as {}: got %s, %v", raw, err)
	}
	var id int64
	if err := c.Call(ctx, "self", nil, &id); err != nil || id <= 0 {
		t.Fatalf("self: %v, %v", id, err)
	}
	var id2 int64
	if err := c.Call(ctx, "self", nil, &id2); err != nil || id2 == id {
		t.Fatalf("two calls share id %d (%v)", id, err)
	}

	// The result does not fit the caller's type.
	var wrong []string
	err := c.Call(ctx, "add", addParams{1, 2}, &wrong)
	if err == nil || !strings.Contains(err.Error(), "decoding add result") {
		t.Errorf("decoding into the wrong type: %v", err)
	}
	var ce *jsonrpc.CallError
	if !errors.As(err, &ce) || ce.Op != jsonrpc.OpDecode || ce.Method != "add" {
		t.Errorf("decoding into the wrong type: %#v, want a *CallError of OpDecode for add", err)
	}
	// Params that cannot be encoded fail locally, before anything is sent.
	if err := c.Call(ctx, "add", make(chan int), nil); err == nil || !strings.Contains(err.Error(), "encoding add params") {
		t.Errorf("bad params: %v", err)
	} else if !errors.As(err, &ce) || ce.Op != jsonrpc.OpEncode {
		t.Errorf("bad params: %#v, want a *CallError of OpEncode", err)
	}
	// A result the handler cannot encode becomes an internal error.
	err = c.Call(ctx, "chan", nil, nil)
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInternalError || !strings.Contains(werr.Message, "encoding the result") {
		t.Errorf("unencodable result: %v", err)
	}
	// Invalid params chosen by the handler.
	err = c.Call(ctx, "add", []int{1}, nil)
	if !errors.Is(err, jsonrpc.ErrInvalidParams) {
		t.Errorf("invalid params: %v", err)
	}
}

func TestConcurrentCallsMatchedByID(t *testing.T) {
	const n = 500
	var (
		mu      sync.Mutex
		arrived int
		release = make(chan struct{})
	)
	server := mux{"echo": func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		// Hold every request until all n are in flight, so responses go out in whatever
		// order the handlers wake up in, not in request order.
		mu.Lock()
		arrived++
		if arrived == n {
			close(release)
		}
		mu.Unlock()
		select {
		case <-release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return req.Params, nil
	}}
	c, _ := newPair(t, jsonrpc.Options{}, jsonrpc.Options{Handler: server})

	type echoed struct {
		N int    `json:"n"`
		S string `json:"s"`
	}
	errs := make(chan error, n)
	for i := range n {
		go func() {
			var got echoed
			err := c.Call(context.Background(), "echo", echoed{i, fmt.Sprint("call-", i)}, &got)
			if err == nil && (got.N != i || got.S != fmt.Sprint("call-", i)) {
				err = fmt.Errorf("call %d got the result of %+v", i, got)
			}
			errs <- err
		}()
	}
	for range n {
		if err := recv(t, errs, "a call to return"); err != nil {
			t.Error(err)
		}
	}
}

func TestInboundRequestsDispatchedConcurrently(t *testing.T) {
	firstStarted := make(chan struct{})
	secondArrived := make(chan struct{})
	noteSeen := make(chan struct{})
	server := mux{
		"first": func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			close(firstStarted)
			select {
			case <-secondArrived:
				return "first done", nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		},
		"second": func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			close(secondArrived)
			return "second done", nil
		},
		"note": func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			close(noteSeen)
			return nil, nil
		},
	}
	c, _ := newPair(t, jsonrpc.Options{}, jsonrpc.Options{Handler: server})
	ctx := context.Background()

	firstResult := make(chan string, 1)
	go func() {
		var s string
		if err := c.Call(ctx, "first", nil, &s); err != nil {
			s = "error: " + err.Error()
		}
		firstResult <- s
	}()
	waitClosed(t, firstStarted, "the first handler to start")

	// While "first" blocks, the reader still reads: a notification is handled...
	if err := c.Notify(ctx, "note", nil); err != nil {
		t.Fatal(err)
	}
	waitClosed(t, noteSeen, "the notification to be handled while a request blocks")
	// ...and the request that unblocks "first" is dispatched.
	var s string
	if err := c.Call(ctx, "second", nil, &s); err != nil || s != "second done" {
		t.Fatalf("second: %q, %v", s, err)
	}
	if got := recv(t, firstResult, "the first call"); got != "first done" {
		t.Fatalf("first: %q", got)
	}
}

func TestMethodNotFound(t *testing.T) {
	for name, opts := range map[string]jsonrpc.Options{
		"no handler":           {},
		"handler says unknown": {Handler: mux{}},
	} {
		t.Run(name, func(t *testing.T) {
			c, _ := newPair(t, jsonrpc.Options{}, opts)
			err := c.Call(context.Background(), "no/such/method", map[string]int{"a": 1}, nil)
			if err == nil {
				t.Fatal("an unknown method succeeded")
			}
			var werr *jsonrpc.Error
			if !errors.As(err, &werr) {
				t.Fatalf("error %v (%T) is not a *jsonrpc.Error", err, err)
			}
			if werr.Code != jsonrpc.CodeMethodNotFound || !strings.Contains(werr.Message, "no/such/method") {
				t.Errorf("got %+v, want -32601 naming the method", werr)
			}
			if !errors.Is(err, jsonrpc.ErrMethodNotFound) {
				t.Error("errors.Is(err, ErrMethodNotFound) = false")
			}
			if errors.Is(err, jsonrpc.ErrInternal) || errors.Is(err, jsonrpc.ErrClosed) {
				t.Error("the error matches sentinels of other codes")
			}
		})
	}
}

// TestSentinelErrorsOnTheWire: a handler that returns a sentinel sends the standard
// message of its code (it sent "message":""); a wrapped one and one with data too.
func TestSentinelErrorsOnTheWire(t *testing.T) {
	handler := mux{}
	for _, e := range []*jsonrpc.Error{jsonrpc.ErrParse, jsonrpc.ErrInvalidRequest, jsonrpc.ErrMethodNotFound, jsonrpc.ErrInvalidParams, jsonrpc.ErrInternal} {
		handler[fmt.Sprint(e.Code)] = func(context.Context, *jsonrpc.Request) (any, error) { return nil, e }
	}
	handler["wrapped"] = func(context.Context, *jsonrpc.Request) (any, error) {
		return nil, fmt.Errorf("looking: %w", jsonrpc.ErrInvalidParams.WithData(map[string]int{"n": 1}))
	}
	_, p := newRawPeer(t, jsonrpc.Options{Handler: handler})
	for method, want := range map[string]string{
		"-32700":  `{"code":-32700,"message":"Parse error"}`,
		"-32600":  `{"code":-32600,"message":"Invalid Request"}`,
		"-32601":  `{"code":-32601,"message":"Method not found"}`,
		"-32602":  `{"code":-32602,"message":"Invalid params"}`,
		"-32603":  `{"code":-32603,"message":"Internal error"}`,
		"wrapped": `{"code":-32602,"message":"Invalid params","data":{"n":1}}`,
	} {
		p.send(`{"jsonrpc":"2.0","id":1,"method":"` + method + `"}`)
		p.expect(`{"jsonrpc":"2.0","id":1,"error":` + want + `}`)
	}
	if jsonrpc.ErrInvalidParams.Message != "" {
		t.Error("the sentinel itself changed")
	}
}

func TestHandlerErrors(t *testing.T) {
	type uriData struct {
		URI string `json:"uri"`
	}
	server := mux{
		"custom": func(context.Context, *jsonrpc.Request) (any, error) {
			// Wrapped: the *Error is found in the chain.
			return nil, fmt.Errorf("reading: %w",
				jsonrpc.NewError(-32002, "resource not found").WithData(uriData{"file:///x"}))
		},
		"sentinel": func(context.Context, *jsonrpc.Request) (any, error) {
			return nil, jsonrpc.ErrInvalidParams
		},
		"plain": func(context.Context, *jsonrpc.Request) (any, error) {
			return nil, errors.New("disk full")
		},
		"panic": func(context.Context, *jsonrpc.Request) (any, error) {
			panic("handler bug")
		},
		"ok": func(context.Context, *jsonrpc.Request) (any, error) { return "fine", nil },
	}
	c, _ := newPair(t, jsonrpc.Options{}, jsonrpc.Options{Handler: server})
	ctx := context.Background()

	t.Run("*Error keeps code, message and data", func(t *testing.T) {
		err := c.Call(ctx, "custom", nil, nil)
		var werr *jsonrpc.Error
		if !errors.As(err, &werr) {
			t.Fatalf("%v is not a *jsonrpc.Error", err)
		}
		if werr.Code != -32002 || werr.Message != "resource not found" {
			t.Errorf("got %+v", werr)
		}
		var d uriData
		if err := json.Unmarshal(werr.Data, &d); err != nil || d.URI != "file:///x" {
			t.Errorf("data = %s (%v)", werr.Data, err)
		}
		if !errors.Is(err, &jsonrpc.Error{Code: -32002}) {
			t.Error("errors.Is by code fails")
		}
	})
	t.Run("sentinel", func(t *testing.T) {
		err := c.Call(ctx, "sentinel", nil, nil)
		if !errors.Is(err, jsonrpc.ErrInvalidParams) {
			t.Errorf("got %v, want -32602", err)
		}
	})
	t.Run("plain error is internal", func(t *testing.T) {
		err := c.Call(ctx, "plain", nil, nil)
		var werr *jsonrpc.Error
		if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInternalError || werr.Message != "disk full" {
			t.Fatalf("got %v, want -32603 disk full", err)
		}
		if !errors.Is(err, jsonrpc.ErrInternal) {
			t.Error("errors.Is(err, ErrInternal) = false")
		}
	})
	t.Run("panic is internal and the conn survives", func(t *testing.T) {
		for range 3 {
			err := c.Call(ctx, "panic", nil, nil)
			var werr *jsonrpc.Error
			if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInternalError {
				t.Fatalf("got %v, want -32603", err)
			}
			if strings.Contains(werr.Message, "handler bug") || strings.Contains(werr.Message, "goroutine") {
				t.Errorf("the panic value or a stack leaked to the peer: %q", werr.Message)
			}
			var s string
			if err := c.Call(ctx, "ok", nil, &s); err != nil || s != "fine" {
				t.Fatalf("after a panic: %q, %v", s, err)
			}
		}
	})
}

func TestNotificationsHandledInOrder(t *testing.T) {
	var (
		mu   sync.Mutex
		seen []int
	)
	server := mux{
		"note": func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			if _, ok := jsonrpc.RelatedRequest(ctx); ok {
				return nil, errors.New("a notification context names a related request")
			}
			var p struct{ N int }
			if err := json.Unmarshal(req.Params, &p); err != nil {
				return nil, err
			}
			mu.Lock()
			seen = append(seen, p.N)
			mu.Unlock()
			return nil, nil
		},
		"count": func(context.Context, *jsonrpc.Request) (any, error) {
			mu.Lock()
			defer mu.Unlock()
			return len(seen), nil
		},
	}
	c, _ := newPair(t, jsonrpc.Options{}, jsonrpc.Options{Handler: server})
	ctx := context.Background()
	const n = 300
	for i := range n {
		if err := c.Notify(ctx, "note", map[string]int{"n": i}); err != nil {
			t.Fatal(err)
		}
	}
	// Notifications are handled on the reader before the next message is read, so once a
	// later request is answered all of them have been handled.
	var count int
	if err := c.Call(ctx, "count", nil, &count); err != nil {
		t.Fatal(err)
	}
	if count != n {
		t.Fatalf("%d notifications handled before a later request, want %d", count, n)
	}
	mu.Lock()
	defer mu.Unlock()
	for i, v := range seen {
		if v != i {
			t.Fatalf("notification %d handled at position %d: %v", v, i, seen[:i+1])
		}
	}
}

func TestNotificationGetsNoResponse(t *testing.T) {
	h := mux{
		"ping":  pingHandler["ping"],
		"fails": func(context.Context, *jsonrpc.Request) (any, error) { return nil, errors.New("ignored") },
		"panics": func(context.Context, *jsonrpc.Request) (any, error) {
			panic("notification handler bug")
		},
	}
	_, p := newRawPeer(t, jsonrpc.Options{Handler: h})
	p.send(`{"jsonrpc":"2.0","method":"fails","params":{}}`)
	p.send(`{"jsonrpc":"2.0","method":"no/such/notification"}`)
	// A panicking notification handler runs on the reader: it must neither answer nor
	// take the connection (or the program) down.
	p.send(`{"jsonrpc":"2.0","method":"panics"}`)
	p.ping("after-notifications")
}

func TestUnknownResponseIgnored(t *testing.T) {
	c, p := newRawPeer(t, jsonrpc.Options{Handler: pingHandler})
	p.send(`{"jsonrpc":"2.0","id":999,"result":{"late":true}}`)
	p.send(`{"jsonrpc":"2.0","id":"never-sent","error":{"code":-32603,"message":"x"}}`)
	p.send(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`)
	// Nothing is written back for those: the next line is the answer to the ping.
	p.ping("p1")

	// Outbound calls still work.
	done := make(chan error, 1)
	var got string
	go func() { done <- c.Call(context.Background(), "hello", map[string]string{"a": "b"}, &got) }()
	req := decodeLine(t, p.recv())
	r, ok := req.(*jsonrpc.Request)
	if !ok || r.Method != "hello" || !r.ID.IsValid() || string(r.Params) != `{"a":"b"}` {
		t.Fatalf("unexpected request %#v", req)
	}
	// Answer with the wrong id type first (a string with the same digits): not a match.
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":"%v","result":"wrong"}`, r.ID.Raw()))
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%v,"result":"right"}`, r.ID.Raw()))
	if err := recv(t, done, "the call"); err != nil || got != "right" {
		t.Fatalf("call: %q, %v", got, err)
	}
	// A duplicate response for an id already answered is ignored too.
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%v,"result":"again"}`, r.ID.Raw()))
	p.ping("p2")
}

func TestMalformedInputAnswered(t *testing.T) {
	c, p := newRawPeer(t, jsonrpc.Options{Handler: pingHandler})

	p.send(`{"jsonrpc":"2.0","id":1,"method":`)
	line := p.recv()
	if !strings.HasPrefix(line, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,`) {
		t.Fatalf("reply to truncated JSON: %s", line)
	}
	p.ping("a")

	p.send(`not json at all`)
	assertErrorReply(t, p.recv(), jsonrpc.ID{}, jsonrpc.CodeParseError)
	p.send(`{"jsonrpc":"1.0","id":5,"method":"ping"}`)
	assertErrorReply(t, p.recv(), jsonrpc.Int64ID(5), jsonrpc.CodeInvalidRequest)
	p.send(`{"jsonrpc":"2.0","id":"s","method":"ping","params":"str"}`)
	assertErrorReply(t, p.recv(), jsonrpc.StringID("s"), jsonrpc.CodeInvalidRequest)
	p.send(`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`)
	assertErrorReply(t, p.recv(), jsonrpc.ID{}, jsonrpc.CodeInvalidRequest)
	p.send(`{"jsonrpc":"2.0","id":true,"method":"ping"}`)
	assertErrorReply(t, p.recv(), jsonrpc.ID{}, jsonrpc.CodeInvalidRequest)
	p.ping("b")

	select {
	case <-c.Done():
		t.Fatalf("malformed input ended the connection: %v", c.Err())
	default:
	}
}

func decodeLine(t *testing.T, line string) jsonrpc.Message {
	t.Helper()
	m, err := jsonrpc.DecodeMessage([]byte(line))
	if err != nil {
		t.Fatalf("the connection wrote an invalid message %s: %v", line, err)
	}
	return m
}

func assertErrorReply(t *testing.T, line string, id jsonrpc.ID, code int64) {
	t.Helper()
	r, ok := decodeLine(t, line).(*jsonrpc.Response)
	if !ok || r.Error == nil || r.Error.Code != code || r.ID != id {
		t.Fatalf("got %s, want an error %d for id %v", line, code, id)
	}
	if !id.IsValid() && !strings.Contains(line, `"id":null`) {
		t.Fatalf("an error reply without an id does not say \"id\":null: %s", line)
	}
}

// tapLog records what a Tap sees, as encoded messages.
type tapLog struct {
	mu  sync.Mutex
	log []string
}

func (l *tapLog) tap(dir jsonrpc.Direction, m jsonrpc.Message) {
	b, err := jsonrpc.EncodeMessage(m)
	if err != nil {
		b = []byte(err.Error())
	}
	l.mu.Lock()
	l.log = append(l.log, dir.String()+" "+string(b))
	l.mu.Unlock()
}

func (l *tapLog) lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.log...)
}

func TestTapSeesEverythingInOrder(t *testing.T) {
	var tl tapLog
	var noteSeen = make(chan struct{}, 1)
	h := mux{
		"ping": pingHandler["ping"],
		"note": func(context.Context, *jsonrpc.Request) (any, error) { noteSeen <- struct{}{}; return nil, nil },
	}
	c, p := newRawPeer(t, jsonrpc.Options{Handler: h, Tap: tl.tap})
	ctx := context.Background()

	// Inbound request, outbound response.
	p.send(`{"jsonrpc":"2.0","id":"r1","method":"ping"}`)
	p.expect(`{"jsonrpc":"2.0","id":"r1","result":{}}`)

	// Outbound call, inbound response.
	done := make(chan error, 1)
	go func() { done <- c.Call(ctx, "tools/list", map[string]any{"cursor": "c<1>"}, nil) }()
	req := decodeLine(t, p.recv()).(*jsonrpc.Request)
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%v,"result":{"tools":[]}}`, req.ID.Raw()))
	if err := recv(t, done, "the call"); err != nil {
		t.Fatal(err)
	}

	// Outbound notification.
	if err := c.Notify(ctx, "notifications/initialized", nil); err != nil {
		t.Fatal(err)
	}
	p.expect(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	// Inbound notification.
	p.send(`{"jsonrpc":"2.0","method":"note","params":{"x":1}}`)
	recv(t, noteSeen, "the notification")

	// A malformed frame shows up as the error it caused, in both directions.
	p.send(`{oops`)
	errLine := p.recv()

	// Unknown response: seen inbound, nothing outbound.
	p.send(`{"jsonrpc":"2.0","id":12345,"result":{}}`)
	p.ping("r2")

	want := []string{
		`in {"jsonrpc":"2.0","id":"r1","method":"ping"}`,
		`out {"jsonrpc":"2.0","id":"r1","result":{}}`,
		fmt.Sprintf(`out {"jsonrpc":"2.0","id":%v,"method":"tools/list","params":{"cursor":"c<1>"}}`, req.ID.Raw()),
		fmt.Sprintf(`in {"jsonrpc":"2.0","id":%v,"result":{"tools":[]}}`, req.ID.Raw()),
		`out {"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`in {"jsonrpc":"2.0","method":"note","params":{"x":1}}`,
		`in ` + errLine,
		`out ` + errLine,
		`in {"jsonrpc":"2.0","id":12345,"result":{}}`,
		`in {"jsonrpc":"2.0","id":"r2","method":"ping"}`,
		`out {"jsonrpc":"2.0","id":"r2","result":{}}`,
	}
	got := tl.lines()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("tap saw\n%s\n\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// isCancelFor reports whether m is notifications/cancelled for id, and its reason.
func isCancelFor(m jsonrpc.Message, id jsonrpc.ID) (string, bool) {
	r, ok := m.(*jsonrpc.Request)
	if !ok || r.Method != jsonrpc.CancelledMethod || !r.IsNotification() {
		return "", false
	}
	var p struct {
		RequestID jsonrpc.ID `json:"requestId"`
		Reason    string     `json:"reason"`
	}
	if json.Unmarshal(r.Params, &p) != nil || p.RequestID != id {
		return "", false
	}
	return p.Reason, true
}

// msgLog records messages a Tap sees, by direction.
type msgLog struct {
	mu      sync.Mutex
	in, out []jsonrpc.Message
}

func (l *msgLog) tap(dir jsonrpc.Direction, m jsonrpc.Message) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if dir == jsonrpc.Inbound {
		l.in = append(l.in, m)
	} else {
		l.out = append(l.out, m)
	}
}

func (l *msgLog) snapshot() (in, out []jsonrpc.Message) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]jsonrpc.Message(nil), l.in...), append([]jsonrpc.Message(nil), l.out...)
}

func TestCancelledCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var clientLog, serverLog msgLog
		started := make(chan jsonrpc.ID, 1)
		handlerErr := make(chan error, 1)
		server := mux{
			"slow": func(ctx context.Context, req *jsonrpc.Request) (any, error) {
				started <- req.ID
				<-ctx.Done()
				handlerErr <- ctx.Err()
				return "too late", nil // must not be sent
			},
			"ping": pingHandler["ping"],
		}
		c, _ := newPair(t, jsonrpc.Options{Tap: clientLog.tap}, jsonrpc.Options{Handler: server, Tap: serverLog.tap})

		ctx, cancel := context.WithCancelCause(context.Background())
		callErr := make(chan error, 1)
		go func() { callErr <- c.Call(ctx, "slow", nil, nil) }()
		id := recv(t, started, "the handler to start")
		cancel(errors.New("the user pressed Esc"))

		if err := recv(t, callErr, "the cancelled call"); !errors.Is(err, context.Canceled) {
			t.Fatalf("Call = %v, want context.Canceled", err)
		}
		if err := recv(t, handlerErr, "the handler's context to end"); !errors.Is(err, context.Canceled) {
			t.Fatalf("handler ctx.Err() = %v", err)
		}
		synctest.Wait() // every goroutine is idle: whatever the server would send, it has sent

		_, clientOut := clientLog.snapshot()
		if len(clientOut) != 2 {
			t.Fatalf("client sent %d messages, want the request and its cancellation", len(clientOut))
		}
		if r, ok := clientOut[0].(*jsonrpc.Request); !ok || r.ID != id || r.Method != "slow" {
			t.Fatalf("first message %#v", clientOut[0])
		}
		reason, ok := isCancelFor(clientOut[1], id)
		if !ok {
			b, _ := jsonrpc.EncodeMessage(clientOut[1])
			t.Fatalf("second message %s is not notifications/cancelled for id %v", b, id)
		}
		if reason != "the user pressed Esc" {
			t.Errorf("reason = %q, want the context's cause", reason)
		}
		serverIn, serverOut := serverLog.snapshot()
		if len(serverIn) != 2 {
			t.Errorf("server received %d messages, want 2", len(serverIn))
		}
		for _, m := range serverOut {
			b, _ := jsonrpc.EncodeMessage(m)
			t.Errorf("the server answered a cancelled request: %s", b)
		}

		// The connection keeps working.
		if err := c.Call(context.Background(), "ping", nil, nil); err != nil {
			t.Fatal(err)
		}
	})
}

func TestCancelledInitializeSendsNoCancellation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var clientLog msgLog
		started := make(chan struct{})
		release := make(chan struct{})
		ctxAlive := make(chan bool, 1)
		server := mux{"initialize": func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			close(started)
			<-release
			ctxAlive <- ctx.Err() == nil
			return map[string]string{"protocolVersion": "2025-11-25"}, nil
		}}
		c, _ := newPair(t, jsonrpc.Options{Tap: clientLog.tap}, jsonrpc.Options{Handler: server})
		ctx, cancel := context.WithCancel(context.Background())
		callErr := make(chan error, 1)
		go func() { callErr <- c.Call(ctx, "initialize", nil, nil) }()
		<-started
		cancel()
		if err := <-callErr; !errors.Is(err, context.Canceled) {
			t.Fatalf("Call = %v", err)
		}
		synctest.Wait()
		_, out := clientLog.snapshot()
		if len(out) != 1 {
			t.Fatalf("client sent %d messages, want only the initialize request (MCP forbids cancelling it)", len(out))
		}
		close(release)
		if !<-ctxAlive {
			t.Error("the server's initialize handler was cancelled")
		}
		synctest.Wait() // the late response arrives and is dropped
		select {
		case <-c.Done():
			t.Fatalf("a late response ended the connection: %v", c.Err())
		default:
		}
	})
}

func TestCloseFailsPendingCalls(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n = 5
		started := make(chan struct{}, n)
		serverCtxErr := make(chan error, n)
		server := mux{"hang": func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			started <- struct{}{}
			<-ctx.Done()
			serverCtxErr <- ctx.Err()
			return nil, ctx.Err()
		}}
		c, s := newPair(t, jsonrpc.Options{}, jsonrpc.Options{Handler: server})
		errs := make(chan error, n)
		for range n {
			go func() { errs <- c.Call(context.Background(), "hang", nil, nil) }()
		}
		for range n {
			<-started // all n calls are pending
		}
		if err := c.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		for range n {
			if err := <-errs; !errors.Is(err, jsonrpc.ErrClosed) {
				t.Errorf("pending call failed with %v, want ErrClosed", err)
			}
		}
		<-c.Done()
		if !errors.Is(c.Err(), jsonrpc.ErrClosed) {
			t.Errorf("Err() = %v", c.Err())
		}
		// After Close, calls and notifications fail at once.
		if err := c.Call(context.Background(), "hang", nil, nil); !errors.Is(err, jsonrpc.ErrClosed) {
			t.Errorf("Call after Close = %v", err)
		}
		if err := c.Notify(context.Background(), "x", nil); !errors.Is(err, jsonrpc.ErrClosed) {
			t.Errorf("Notify after Close = %v", err)
		}
		if err := c.Close(); err != nil {
			t.Errorf("second Close: %v", err)
		}
		// The server sees the end of its input and cancels its handlers.
		for range n {
			if err := <-serverCtxErr; !errors.Is(err, context.Canceled) {
				t.Errorf("server handler ctx: %v", err)
			}
		}
		<-s.Done()
		if !errors.Is(s.Err(), jsonrpc.ErrClosed) || !errors.Is(s.Err(), io.EOF) {
			t.Errorf("server Err() = %v, want ErrClosed wrapping io.EOF", s.Err())
		}
	})
}

func TestPeerEOFFailsPendingCalls(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		started := make(chan struct{})
		server := mux{"hang": func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			close(started)
			<-ctx.Done()
			return nil, ctx.Err()
		}}
		c, s := newPair(t, jsonrpc.Options{}, jsonrpc.Options{Handler: server})
		callErr := make(chan error, 1)
		go func() { callErr <- c.Call(context.Background(), "hang", nil, nil) }()
		<-started
		s.Close()
		err := <-callErr
		if !errors.Is(err, jsonrpc.ErrClosed) || !errors.Is(err, io.EOF) {
			t.Fatalf("pending call failed with %v, want ErrClosed wrapping io.EOF", err)
		}
		<-c.Done()
		if !errors.Is(c.Err(), io.EOF) {
			t.Errorf("Err() = %v", c.Err())
		}
	})
}

// failingConn ends with a transport error that is neither EOF nor ErrClosed.
type failingConn struct {
	jsonrpc.Connection
	fail chan error
}

func (f *failingConn) Read(ctx context.Context) (jsonrpc.Message, error) { return nil, <-f.fail }

func TestTransportErrorFailsPendingCallsWithErrClosed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b := transport.Pipe()
		defer b.Close()
		// Drain whatever the conn writes.
		go func() {
			for {
				if _, err := b.Read(context.Background()); err != nil {
					return
				}
			}
		}()
		fc := &failingConn{Connection: a, fail: make(chan error)}
		c := jsonrpc.NewConn(fc, jsonrpc.Options{})
		defer c.Close()
		callErr := make(chan error, 1)
		go func() { callErr <- c.Call(context.Background(), "x", nil, nil) }()
		synctest.Wait()
		cause := errors.New("the server process exited with status 3")
		fc.fail <- cause
		err := <-callErr
		if !errors.Is(err, jsonrpc.ErrClosed) || !errors.Is(err, cause) {
			t.Fatalf("pending call failed with %v, want an error matching both ErrClosed and the cause", err)
		}
	})
}

// ctxConn records the related request of the context each message is written with.
type ctxConn struct {
	jsonrpc.Connection
	mu      sync.Mutex
	related map[string]any // method or "response:<id>" → related request id
}

func (c *ctxConn) Write(ctx context.Context, m jsonrpc.Message) error {
	key := ""
	switch m := m.(type) {
	case *jsonrpc.Request:
		key = m.Method
	case *jsonrpc.Response:
		key = "response:" + m.ID.String()
	}
	id, ok := jsonrpc.RelatedRequest(ctx)
	c.mu.Lock()
	if ok {
		c.related[key] = id.Raw()
	} else {
		c.related[key] = nil
	}
	c.mu.Unlock()
	return c.Connection.Write(ctx, m)
}

func TestWriteContextNamesRelatedRequest(t *testing.T) {
	a, b := transport.Pipe()
	cc := &ctxConn{Connection: b, related: map[string]any{}}
	var server *jsonrpc.Conn
	h := mux{"work": func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		// A progress notification sent while handling belongs to the request.
		if err := server.Notify(ctx, "notifications/progress", nil); err != nil {
			return nil, err
		}
		// Work that outlives the request names another one explicitly.
		other := jsonrpc.WithRelatedRequest(context.Background(), jsonrpc.StringID("other"))
		return nil, server.Notify(other, "notifications/elsewhere", nil)
	}}
	server = jsonrpc.NewConn(cc, jsonrpc.Options{Handler: h})
	client := jsonrpc.NewConn(a, jsonrpc.Options{})
	defer client.Close()
	defer server.Close()

	if err := client.Call(context.Background(), "work", nil, nil); err != nil {
		t.Fatal(err)
	}
	cc.mu.Lock()
	defer cc.mu.Unlock()
	want := map[string]any{
		"notifications/progress":  int64(1),
		"notifications/elsewhere": "other",
		"response:1":              int64(1),
	}
	for k, v := range want {
		if got, ok := cc.related[k]; !ok || got != v {
			t.Errorf("%s written with related request %v (%v), want %v", k, got, ok, v)
		}
	}
	if _, ok := jsonrpc.RelatedRequest(jsonrpc.WithRelatedRequest(context.Background(), jsonrpc.ID{})); ok {
		t.Error("an absent id counts as a related request")
	}
}

// Drain returns once the request being handled has been answered, and gives up with its
// context.
func TestDrain(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{})
	client, server := newPair(t, jsonrpc.Options{}, jsonrpc.Options{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		close(started)
		<-release
		return "done", nil
	})})
	if err := server.Drain(t.Context()); err != nil {
		t.Fatalf("Drain with nothing in flight: %v", err)
	}
	answered := make(chan string, 1)
	go func() {
		var s string
		_ = client.Call(context.Background(), "slow", nil, &s)
		answered <- s
	}()
	<-started
	short, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	if err := server.Drain(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Drain while the handler runs: %v, want the context's error", err)
	}
	close(release)
	if err := server.Drain(t.Context()); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-answered:
		if s != "done" {
			t.Errorf("answer %q", s)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Drain returned but the response never came")
	}
}

// TestInFlightBounded: past MaxInFlight requests being handled, or MaxInFlightBytes of
// their params, a request is refused at once with -32600; a request that reuses the id of
// one still handled is refused too; once the held ones are answered, requests are taken
// again.
func TestInFlightBounded(t *testing.T) {
	release := make(chan struct{})
	held := make(chan struct{}, 16)
	hold := mux{
		"hold": func(ctx context.Context, _ *jsonrpc.Request) (any, error) {
			held <- struct{}{}
			<-release
			return "done", nil
		},
		"ping": func(context.Context, *jsonrpc.Request) (any, error) { return struct{}{}, nil },
	}
	_, p := newRawPeer(t, jsonrpc.Options{Handler: hold, MaxInFlight: 2, MaxInFlightBytes: 64})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"hold","params":{}}`)
	recv(t, held, "the first request handled")
	p.send(`{"jsonrpc":"2.0","id":1,"method":"hold","params":{}}`)
	assertErrorReply(t, p.recv(), jsonrpc.Int64ID(1), jsonrpc.CodeInvalidRequest)

	p.send(`{"jsonrpc":"2.0","id":2,"method":"hold","params":{"pad":"` + strings.Repeat("x", 60) + `"}}`)
	line := p.recv()
	assertErrorReply(t, line, jsonrpc.Int64ID(2), jsonrpc.CodeInvalidRequest)
	if !strings.Contains(line, "too many requests") || !strings.Contains(line, "bytes") {
		t.Fatalf("refusal over the bytes bound: %s", line)
	}
	p.send(`{"jsonrpc":"2.0","id":3,"method":"hold","params":{}}`)
	recv(t, held, "the second request handled")
	p.send(`{"jsonrpc":"2.0","id":4,"method":"ping"}`)
	line = p.recv()
	assertErrorReply(t, line, jsonrpc.Int64ID(4), jsonrpc.CodeInvalidRequest)
	if !strings.Contains(line, "too many requests: 2 requests") {
		t.Fatalf("refusal over the count bound: %s", line)
	}

	close(release)
	got := []string{p.recv(), p.recv()}
	slices.Sort(got)
	if want := []string{`{"jsonrpc":"2.0","id":1,"result":"done"}`, `{"jsonrpc":"2.0","id":3,"result":"done"}`}; !slices.Equal(got, want) {
		t.Fatalf("the held requests ended with %v", got)
	}
	p.ping("again")
}

// TestInFlightBoundOfOne: the refusal at a MaxInFlight of 1 says "1 request of yours is
// waiting", its noun and verb agreeing with the count.
func TestInFlightBoundOfOne(t *testing.T) {
	release := make(chan struct{})
	held := make(chan struct{}, 1)
	_, p := newRawPeer(t, jsonrpc.Options{MaxInFlight: 1, Handler: mux{
		"hold": func(ctx context.Context, _ *jsonrpc.Request) (any, error) {
			held <- struct{}{}
			<-release
			return "done", nil
		},
	}})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"hold"}`)
	recv(t, held, "the first request handled")
	p.send(`{"jsonrpc":"2.0","id":2,"method":"hold"}`)
	line := p.recv()
	assertErrorReply(t, line, jsonrpc.Int64ID(2), jsonrpc.CodeInvalidRequest)
	if want := "too many requests: 1 request of yours is waiting for its response; send more once it is answered"; !strings.Contains(line, want) {
		t.Errorf("refusal at a bound of 1: %s, want it to hold %q", line, want)
	}
	close(release)
	if got := p.recv(); got != `{"jsonrpc":"2.0","id":1,"result":"done"}` {
		t.Errorf("the held request ended with %s", got)
	}
}
