package jsonrpc_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/transport"
)

// nowStream is a Stream whose WriteNow writes when now is set, and whose Write waits
// for held to be closed: a peer that does not read, as a full pipe would make it.
type nowStream struct {
	*transport.Stream
	now    atomic.Bool
	held   chan struct{}
	direct atomic.Int32 // messages WriteNow wrote
	writes atomic.Int32 // calls of Write, which wait until held is closed
}

func (s *nowStream) WriteNow(m jsonrpc.Message) (bool, error) {
	if !s.now.Load() {
		return false, nil
	}
	s.direct.Add(1)
	return true, s.Stream.Write(context.Background(), m)
}

func (s *nowStream) Write(ctx context.Context, m jsonrpc.Message) error {
	s.writes.Add(1)
	select {
	case <-s.held:
	case <-ctx.Done():
		return ctx.Err()
	}
	return s.Stream.Write(ctx, m)
}

// newQuickPeer is newRawPeer over a nowStream.
func newQuickPeer(t *testing.T, opts jsonrpc.Options) (*jsonrpc.Conn, *rawPeer, *nowStream) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ns := &nowStream{Stream: transport.NewStream(inR, outW, 0), held: make(chan struct{})}
	conn := jsonrpc.NewConn(ns, opts)
	p := drainInto(t, inW, outR)
	t.Cleanup(func() {
		conn.Close()
		inW.Close()
		outR.Close()
	})
	return conn, p, ns
}

// Options.Quick answers on the reading goroutine what it can, and the Handler the rest:
// its answer goes out at once when the connection takes it (WriteNow), and otherwise
// through a worker, while the reading goes on.
func TestQuickAnswers(t *testing.T) {
	var handled, quick atomic.Int32
	notes := make(chan string, 8)
	conn, p, ns := newQuickPeer(t, jsonrpc.Options{
		Logger: slog.New(slog.DiscardHandler), // the panic's
		Handler: jsonrpc.HandlerFunc(func(_ context.Context, req *jsonrpc.Request) (any, error) {
			if req.IsNotification() {
				notes <- req.Method
				return nil, nil
			}
			handled.Add(1)
			return map[string]string{"by": "handler"}, nil
		}),
		Quick: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			if r, ok := jsonrpc.RequestFromContext(ctx); !ok || r != req {
				t.Errorf("Quick's context has no request")
			}
			switch req.Method {
			case "get":
				quick.Add(1)
				return map[string]string{"by": "quick"}, nil
			case "fail":
				return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "unknown task")
			case "boom":
				panic("the quick handler broke")
			}
			return nil, jsonrpc.ErrNotQuick
		}),
	})
	ns.now.Store(true)
	close(ns.held)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"get"}`)
	p.expect(`{"jsonrpc":"2.0","id":1,"result":{"by":"quick"}}`)
	p.send(`{"jsonrpc":"2.0","id":2,"method":"other"}`)
	p.expect(`{"jsonrpc":"2.0","id":2,"result":{"by":"handler"}}`)
	p.send(`{"jsonrpc":"2.0","id":3,"method":"fail"}`)
	p.expect(`{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"unknown task"}}`)
	p.send(`{"jsonrpc":"2.0","id":4,"method":"boom"}`)
	p.expect(`{"jsonrpc":"2.0","id":4,"error":{"code":-32603,"message":"internal error handling boom"}}`)
	if q, h, d := quick.Load(), handled.Load(), ns.direct.Load(); q != 1 || h != 1 || d != 3 {
		t.Errorf("quick %d, handler %d, written by WriteNow %d; want 1, 1, 3", q, h, d)
	}
	// The connection cannot take an answer now: a worker writes it, after the reading
	// has gone on to the next message.
	ns.now.Store(false)
	p.send(`{"jsonrpc":"2.0","id":5,"method":"get"}`)
	p.expect(`{"jsonrpc":"2.0","id":5,"result":{"by":"quick"}}`)
	if err := conn.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	if d := ns.direct.Load(); d != 3 {
		t.Errorf("written by WriteNow %d, want 3", d)
	}
}

// A peer that does not read holds up none of the reading: answers that cannot be
// written at once wait on workers, Drain waits for them, and they go out once the peer
// reads.
func TestQuickNeverHoldsTheReading(t *testing.T) {
	notes := make(chan string, 8)
	conn, p, ns := newQuickPeer(t, jsonrpc.Options{
		Handler: jsonrpc.HandlerFunc(func(_ context.Context, req *jsonrpc.Request) (any, error) {
			notes <- req.Method
			return nil, nil
		}),
		Quick: jsonrpc.HandlerFunc(func(context.Context, *jsonrpc.Request) (any, error) { return "ok", nil }),
	})
	for _, id := range []string{"1", "2", "3"} {
		p.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"get"}`)
	}
	p.send(`{"jsonrpc":"2.0","method":"note"}`)
	if got := recv(t, notes, "the notification after three unwritten answers"); got != "note" {
		t.Fatalf("handled %q", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := conn.Drain(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Drain with three answers unwritten = %v, want it to wait", err)
	}
	close(ns.held)
	got := map[string]bool{}
	for range 3 {
		got[p.recv()] = true
	}
	for _, id := range []string{"1", "2", "3"} {
		if line := `{"jsonrpc":"2.0","id":` + id + `,"result":"ok"}`; !got[line] {
			t.Errorf("missing %s in %v", line, got)
		}
	}
	if err := conn.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// plainConn hides the WriteNow of the connection it carries.
type plainConn struct{ jsonrpc.Connection }

// Without a NowWriter, Quick is not asked: every request goes to the Handler.
func TestQuickNeedsANowWriter(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	conn := jsonrpc.NewConn(plainConn{transport.NewStream(inR, outW, 0)}, jsonrpc.Options{
		Handler: jsonrpc.HandlerFunc(func(context.Context, *jsonrpc.Request) (any, error) { return "handler", nil }),
		Quick: jsonrpc.HandlerFunc(func(context.Context, *jsonrpc.Request) (any, error) {
			t.Error("Quick was asked over a connection without WriteNow")
			return "quick", nil
		}),
	})
	p := drainInto(t, inW, outR)
	t.Cleanup(func() {
		conn.Close()
		inW.Close()
		outR.Close()
	})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"get"}`)
	p.expect(`{"jsonrpc":"2.0","id":1,"result":"handler"}`)
}

// A Quick handler may take a request up to answer it later, from a goroutine of its
// own (AnswerLater): the reading goes on meanwhile, the request counts as handled until
// its answer (Drain waits, the bounds count it), one answer goes out however often the
// function is called, and a request the peer withdraws gets none.
func TestQuickAnswersLater(t *testing.T) {
	type taken struct {
		ctx    context.Context
		answer func(any, error)
	}
	later := make(chan taken, 4)
	conn, p, ns := newQuickPeer(t, jsonrpc.Options{
		MaxInFlight: 2,
		Handler: jsonrpc.HandlerFunc(func(context.Context, *jsonrpc.Request) (any, error) {
			return "handler", nil
		}),
		Quick: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			if req.Method != "wait" {
				return nil, jsonrpc.ErrNotQuick
			}
			rctx, answer, ok := jsonrpc.AnswerLater(ctx)
			if !ok {
				t.Error("AnswerLater refused a Quick handler's request")
				return nil, jsonrpc.ErrNotQuick
			}
			if _, _, again := jsonrpc.AnswerLater(ctx); again {
				t.Error("AnswerLater took the same request up twice")
			}
			later <- taken{rctx, answer}
			return nil, jsonrpc.ErrAnswerLater
		}),
	})
	ns.now.Store(true)
	close(ns.held)
	if _, _, ok := jsonrpc.AnswerLater(context.Background()); ok {
		t.Error("AnswerLater took up a context of no request")
	}
	p.send(`{"jsonrpc":"2.0","id":1,"method":"wait"}`)
	first := recv(t, later, "the first request taken up")
	p.send(`{"jsonrpc":"2.0","id":2,"method":"wait"}`)
	second := recv(t, later, "the second request taken up")
	// Two requests wait: a third is over MaxInFlight.
	p.send(`{"jsonrpc":"2.0","id":3,"method":"other"}`)
	p.expect(`{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"too many requests: 2 requests of yours are waiting for their response; send more once some are answered"}}`)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := conn.Drain(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Drain with two requests unanswered = %v, want it to wait", err)
	}
	go first.answer(map[string]int{"n": 1}, nil)
	p.expect(`{"jsonrpc":"2.0","id":1,"result":{"n":1}}`)
	first.answer("again", nil)
	// The peer withdraws the second: its context ends, and its answer goes nowhere.
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`)
	waitClosed(t, second.ctx.Done(), "the withdrawn request's context to end")
	second.answer("too late", nil)
	if err := conn.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	p.send(`{"jsonrpc":"2.0","id":4,"method":"other"}`)
	p.expect(`{"jsonrpc":"2.0","id":4,"result":"handler"}`) // nothing of 1 or 2 before it
}

// A Quick handler that took its request up (AnswerLater) and then panicked, or returned
// anything but ErrAnswerLater, answers it with what it returned, as a worker answers the
// Handler's panic: the request is not left waiting for an answer nobody will give
// (Drain would wait for it, and it would count against MaxInFlight for good). The answer
// function it was given then writes nothing.
func TestQuickTakenUpThenPanics(t *testing.T) {
	var answers []func(any, error)
	conn, p, ns := newQuickPeer(t, jsonrpc.Options{
		MaxInFlight: 1,
		Logger:      slog.New(slog.DiscardHandler),
		Handler: jsonrpc.HandlerFunc(func(context.Context, *jsonrpc.Request) (any, error) {
			return "handler", nil
		}),
		Quick: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			if req.Method == "ping" {
				return nil, jsonrpc.ErrNotQuick
			}
			_, answer, _ := jsonrpc.AnswerLater(ctx)
			answers = append(answers, answer) // the reading goroutine's alone
			switch req.Method {
			case "boom":
				panic("boom")
			case "fails":
				return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "no such thing")
			}
			return nil, jsonrpc.ErrAnswerLater
		}),
	})
	ns.now.Store(true)
	close(ns.held)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"boom"}`)
	p.expect(`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"internal error handling boom"}}`)
	p.send(`{"jsonrpc":"2.0","id":2,"method":"fails"}`)
	p.expect(`{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"no such thing"}}`)
	if err := conn.Drain(t.Context()); err != nil {
		t.Fatal(err)
	}
	p.send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	for _, answer := range answers {
		answer("again", nil)
	}
	p.expect(`{"jsonrpc":"2.0","id":3,"result":"handler"}`) // nothing of 1 or 2 before it
}

// TestQuickUnreadAnswersBounded: a peer that sends requests and does not read their
// answers holds at most MaxInFlight of them waiting to be written, whether the Quick
// handler or the Handler answered them; past that the reading waits for the peer to take
// answers (so that a peer that never reads piles up no goroutines), and it refuses none,
// since the answers are what the peer has not read yet. Once it reads, every answer goes
// out and the reading goes on.
func TestQuickUnreadAnswersBounded(t *testing.T) {
	for _, quick := range []bool{true, false} {
		name := map[bool]string{true: "quick", false: "handler"}[quick]
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				notes := make(chan string, 8)
				opts := jsonrpc.Options{
					MaxInFlight: 2,
					Handler: jsonrpc.HandlerFunc(func(_ context.Context, req *jsonrpc.Request) (any, error) {
						if req.IsNotification() {
							notes <- req.Method
						}
						return "ok", nil
					}),
				}
				if quick {
					opts.Quick = jsonrpc.HandlerFunc(func(context.Context, *jsonrpc.Request) (any, error) { return "ok", nil })
				}
				conn, p, ns := newQuickPeer(t, opts)
				// One at a time, so that each is answered (and its answer waits) before the
				// next is read: two handlers still running would have the third refused.
				for _, id := range []string{"1", "2"} {
					p.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"get"}`)
					synctest.Wait()
				}
				// One write: the reading stops in it.
				p.send(`{"jsonrpc":"2.0","id":3,"method":"get"}` + "\n" + `{"jsonrpc":"2.0","method":"note"}`)
				synctest.Wait()
				if n := ns.writes.Load(); n != 2 {
					t.Errorf("%d answers wait to be written to a peer that does not read, want 2 (MaxInFlight)", n)
				}
				if len(notes) != 0 {
					t.Errorf("the notification after three unread answers was read, with one of them over MaxInFlight")
				}
				close(ns.held)
				got := map[string]bool{}
				for range 3 {
					got[p.recv()] = true
				}
				for _, id := range []string{"1", "2", "3"} {
					if line := `{"jsonrpc":"2.0","id":` + id + `,"result":"ok"}`; !got[line] {
						t.Errorf("missing %s in %v", line, got)
					}
				}
				if got := recv(t, notes, "the notification once the answers were read"); got != "note" {
					t.Errorf("handled %q", got)
				}
				if err := conn.Drain(t.Context()); err != nil {
					t.Fatal(err)
				}
				p.send(`{"jsonrpc":"2.0","id":4,"method":"get"}`)
				p.expect(`{"jsonrpc":"2.0","id":4,"result":"ok"}`)
			})
		})
	}
}

// Work a Quick handler asks to follow its answer (AfterResponse) runs once the answer
// is written, on a worker, while the reading goes on: after WriteNow's write, and
// after a worker's write when the connection cannot take the answer at once. A
// handler that declines has what it asked dropped (the Handler asks again), and one
// that asked cannot answer later.
func TestQuickAfterResponse(t *testing.T) {
	ran := make(chan string, 4)
	release := make(chan struct{})
	var laterRefused atomic.Bool
	conn, p, ns := newQuickPeer(t, jsonrpc.Options{
		Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			if !jsonrpc.AfterResponse(ctx, func() { ran <- "handler's " + req.Method }) {
				t.Error("AfterResponse refused in a Handler")
			}
			return map[string]string{"by": "handler"}, nil
		}),
		Quick: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			if !jsonrpc.AfterResponse(ctx, func() {
				ran <- req.Method
				<-release // holds its worker, not the reading
			}) {
				t.Error("AfterResponse refused in a Quick handler")
			}
			if _, _, ok := jsonrpc.AnswerLater(ctx); ok {
				laterRefused.Store(false)
			} else {
				laterRefused.Store(true)
			}
			if req.Method == "decline" {
				return nil, jsonrpc.ErrNotQuick
			}
			return map[string]string{"by": "quick"}, nil
		}),
	})
	ns.now.Store(true)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"first"}`)
	p.expect(`{"jsonrpc":"2.0","id":1,"result":{"by":"quick"}}`)
	if got := <-ran; got != "first" {
		t.Fatalf("ran %q, want the first request's work", got)
	}
	if !laterRefused.Load() {
		t.Error("AnswerLater took up a request that asked for work after its answer")
	}
	// The first's work holds its worker; the reading goes on, and a request the
	// connection cannot answer at once has its work run after a worker's write.
	ns.now.Store(false)
	p.send(`{"jsonrpc":"2.0","id":2,"method":"second"}`)
	select {
	case got := <-ran:
		t.Fatalf("%q ran before its answer was written", got)
	default:
	}
	close(ns.held)
	p.expect(`{"jsonrpc":"2.0","id":2,"result":{"by":"quick"}}`)
	if got := <-ran; got != "second" {
		t.Fatalf("ran %q, want the second request's work", got)
	}
	p.send(`{"jsonrpc":"2.0","id":3,"method":"decline"}`)
	p.expect(`{"jsonrpc":"2.0","id":3,"result":{"by":"handler"}}`)
	if got := <-ran; got != "handler's decline" {
		t.Fatalf("ran %q, want the Handler's work alone", got)
	}
	close(release)
	if err := conn.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-ran:
		t.Fatalf("%q ran too: the declining handler's work", got)
	default:
	}
}
