package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpi-dev/mcpi/internal/jsonwire"
	"github.com/mcpi-dev/mcpi/internal/loglimit"
	"github.com/mcpi-dev/mcpi/internal/stack"
	"github.com/mcpi-dev/mcpi/internal/workpool"
)

// Connection is one end of a transport, moving whole messages. Implementations must allow
// one Read at a time concurrently with any number of Writes.
//
// Read returns a [*DecodeError] for a frame that is not a valid message (the [Conn]
// answers it, or fails the call a dropped response answered, and keeps reading); any
// other error ends the connection. Write receives the
// context of the message's origin: transports that route messages (Streamable HTTP) read
// [RelatedRequest] from it.
type Connection interface {
	Read(ctx context.Context) (Message, error)
	Write(ctx context.Context, m Message) error
	Close() error
}

// NowWriter is a [Connection] that can write a message only if that cannot wait: WriteNow
// writes m and reports true when the write returns at once (a pipe with room for it),
// and otherwise writes nothing and reports false. Its error is the write's, when it
// wrote. See [Options.Quick].
type NowWriter interface {
	WriteNow(m Message) (bool, error)
}

// ErrNotQuick is what an [Options.Quick] handler returns for a request it cannot answer
// without waiting: the request then goes to the Handler, as any other.
var ErrNotQuick = errors.New("jsonrpc: the request cannot be answered without waiting")

// ErrAnswerLater is what an [Options.Quick] handler returns for a request it took up with
// [AnswerLater]: the answer goes out when the handler's answer function is called.
var ErrAnswerLater = errors.New("jsonrpc: the request is answered later")

// AnswerLater lets an [Options.Quick] handler answer its request later, from another
// goroutine (one that is running anyway, such as the one that ends a task), without a
// goroutine of the connection's waiting for it: it returns the request's context,
// which ends when the peer cancels the request or the connection ends, and the function
// that answers it, once (later calls do nothing). The handler then returns
// [ErrAnswerLater] (anything else it returns, or its panic, answers the request at
// once, as a Handler's would, and answer then writes nothing). Until it is answered,
// the request counts as being handled: against [Options.MaxInFlight], for
// [Conn.Drain], and for the peer's cancellation, after which answer writes nothing.
// ok is false, and nothing is done, when ctx is not that of a Quick handler, or it has
// asked for work to follow the answer ([AfterResponse]).
func AnswerLater(ctx context.Context) (_ context.Context, answer func(result any, err error), ok bool) {
	req, found := RequestFromContext(ctx)
	if !found || req.quick == nil || req.answer != nil || req.after != nil {
		return nil, nil, false
	}
	c := req.quick
	in := c.beginRequest(req)
	req.deferrable = false // no work runs after an answer given elsewhere
	var once sync.Once
	req.answer = func(result any, err error) {
		once.Do(func() {
			defer func() {
				c.answered()
				in.cancel(nil)
			}()
			c.respond(in, result, err)
		})
	}
	return in.ctx, req.answer, true
}

// Handler answers inbound requests and notifications. For a notification the result is
// ignored. Returning an [*Error] chooses the error the peer sees; any other error is sent
// as an internal error (-32603).
//
// Requests are handled concurrently, each on its own goroutine, but for those
// [Options.InOrder] and [Options.Quick] take on the reading goroutine. Notifications
// are handled one at a time, in arrival order, on the reading goroutine, so a
// notification handler must not block.
type Handler interface {
	Handle(ctx context.Context, req *Request) (result any, err error)
}

// HandlerFunc adapts a function to [Handler].
type HandlerFunc func(ctx context.Context, req *Request) (any, error)

// Handle calls f.
func (f HandlerFunc) Handle(ctx context.Context, req *Request) (any, error) { return f(ctx, req) }

// Direction tells a [Tap] which way a message went.
type Direction int

const (
	Inbound Direction = iota
	Outbound
)

func (d Direction) String() string {
	if d == Inbound {
		return "in"
	}
	return "out"
}

// Tap observes every message a connection reads or writes, including malformed frames
// (reported as the error response they caused). It runs synchronously and must be quick.
type Tap func(dir Direction, m Message)

// CancelledMethod is the notification that abandons a request (MCP's spelling). It is
// built in because handler contexts must end when the peer gives up on a request.
const CancelledMethod = "notifications/cancelled"

// cancelNotifyTimeout bounds how long the notifications/cancelled of a withdrawn call
// may take to be written: a peer that does not read must not keep the call from ending.
const cancelNotifyTimeout = 2 * time.Second

// cancelNotifyContext is the context of the notifications/cancelled of a call withdrawn
// because ctx ended: ctx's values, not its end, with [cancelNotifyTimeout].
func cancelNotifyContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), cancelNotifyTimeout)
}

// CancelReasoner is a cause of a call's end (context.WithCancelCause,
// context.WithTimeoutCause) that words, for the peer, why the call was withdrawn: the
// reason of the notifications/cancelled sent for it. A cause without it gives its
// message; Go's own context.Canceled and context.DeadlineExceeded, which say nothing
// to a peer, are worded here.
type CancelReasoner interface {
	CancelReason() string
}

// cancelReason is the reason the notifications/cancelled of a call withdrawn because
// ctx ended gives.
func cancelReason(ctx context.Context) string {
	cause := context.Cause(ctx)
	var r CancelReasoner
	switch {
	case errors.As(cause, &r):
		return r.CancelReason()
	case cause == nil, cause == context.Canceled:
		return "the request was withdrawn"
	case cause == context.DeadlineExceeded:
		return "the request timed out"
	}
	return cause.Error()
}

// uncancellable lists methods for which a cancelled call sends no notification: MCP forbids
// cancelling initialize.
var uncancellable = map[string]bool{"initialize": true}

// Options configures a [Conn]. The zero value is usable: unknown methods get -32601.
type Options struct {
	Handler Handler
	Tap     Tap
	Logger  *slog.Logger
	// MaxInFlight bounds the peer's requests being handled at once, and MaxInFlightBytes
	// the size of their params. A request past either is answered at once with
	// [CodeInvalidRequest] ("too many requests"), from the reading goroutine, and not
	// handled. Each request handled holds a goroutine and its params until it is
	// answered: without a bound, a peer that sends requests faster than they end (ones
	// that wait for a user, or any, while it does not read the answers) takes memory
	// without limit. Zero means no bound. A [NewServingConn] has its owner's bounds.
	//
	// An answer whose write waits (the peer does not read) holds a goroutine too, and
	// counts against MaxInFlight until it is written, though its request no longer
	// does: while the peer's requests handled and the answers it has not taken come to
	// MaxInFlight, the reading waits for it to take some. The request that comes then
	// is not refused: the peer may have sent it on reading an answer whose write has
	// not returned yet.
	MaxInFlight      int
	MaxInFlightBytes int
	// FirstID is the id of the first request the Conn sends, the later ones counting up
	// from it; zero means 1. A Conn that continues a session another connection began (a
	// resumed Streamable HTTP session) starts where that connection's ids cannot be: the
	// peer may still be handling its requests, and an id must not be used twice in a
	// session.
	FirstID int64
	// InOrder, when set, picks requests that are handled on the reading goroutine,
	// before the next message is read, instead of concurrently: the messages after such
	// a request find what it did (a handshake that later requests depend on). Its
	// response is written before the next message is read, so it should be quick.
	InOrder func(*Request) bool
	// Quick, when set and the Connection is a [NowWriter], is tried with each request
	// on the reading goroutine, before the request goes to a worker: it answers the
	// requests it can answer without waiting for anything (a lock another goroutine
	// holds, the peer, the clock), from memory, and returns [ErrNotQuick] for the
	// others, which go to Handler. Its answer is written there when the connection takes
	// it at once, and by a worker otherwise, so that the reading never waits for a peer
	// that does not read (an answer a worker writes counts against MaxInFlight until
	// written, as a Handler's does). It saves the wake-ups of a worker and of the goroutine that
	// would write. It must not block: while it runs, nothing is read. Its context has
	// the request ([RequestFromContext]) and is not cancelled by the peer. Work to
	// follow the answer ([AfterResponse]) runs on a worker once the answer is written;
	// a handler that returns ErrNotQuick must have done nothing, and what it asked to
	// run so is dropped.
	Quick Handler
}

// Conn is a JSON-RPC 2.0 peer over a [Connection]: it sends calls and matches their
// responses, and dispatches inbound requests to the [Handler].
type Conn struct {
	conn    Connection
	opts    Options
	log     *slog.Logger
	nextID  atomic.Int64
	ctx     context.Context         // lives as long as the connection; parent of handler contexts
	cancel  context.CancelCauseFunc // nil for a serving Conn, whose ctx is its owner's
	done    chan struct{}
	closing sync.Once

	mu       sync.Mutex
	pending  map[ID]chan reply              // made at the first call
	later    map[ID]*continuation           // calls of Go awaiting their response; made at the first
	inflight map[ID]context.CancelCauseFunc // requests being handled; made at the first
	inBytes  int                            // len(Params) of the requests in inflight
	inCount  int                            // requests not yet answered, for Drain
	writing  int                            // answers out of inflight whose write has not returned
	taken    chan struct{}                  // closed when writing drops, for the reading waiting for it
	idle     []chan struct{}                // Drain's, closed once inCount is 0
	err      error
	// answers to malformed messages waiting for writeMalformed (see answerMalformed)
	malformed        []*Response
	malformedBytes   int
	malformedWriting bool // writeMalformed runs
	malformedDropped int
	// The log lines a peer makes as many of as it likes (malformed messages, responses
	// dropped or to no request, requests refused), each bounded: a line each would let it
	// fill the log of one of mcpi's library users.
	malformedLog, droppedLog, unknownLog, refusedLog loglimit.Repeated

	// workers run inbound requests; idle ones end with the connection. Nil for a Conn
	// that does not read ([NewServingConn]): its owner runs each request.
	workers *workpool.Pool
	serving bool // made by NewServingConn
}

// reply is what a pending call receives: the peer's response, or why it cannot have it.
type reply struct {
	resp *Response
	err  error
}

// continuation is a call of [Conn.Go] awaiting its response.
type continuation struct {
	method string
	done   func(json.RawMessage, error)
	stop   func() bool // stops watching the call's context; nil when it cannot end
}

// errPeerCancelled is the cause of a handler context the peer cancelled.
var errPeerCancelled = errors.New("jsonrpc: request cancelled by the peer")

// NewConn starts reading from c and returns the connection. Close it to stop.
func NewConn(c Connection, opts Options) *Conn {
	ctx, cancel := context.WithCancelCause(context.Background())
	conn := newConn(ctx, cancel, c, opts)
	conn.workers = workpool.New(workpool.Options{Done: conn.done})
	go conn.readLoop()
	return conn
}

// NewServingConn returns a Conn over c that reads nothing from it: its owner reads what
// c carries and hands each request to [Conn.Serve], and closes the Conn when c ends.
// It is for a connection that carries one request (a stateless HTTP request of
// 2026-07-28), which it then serves on the owner's goroutine, without a reading
// goroutine and the hand-offs to and from it. The contexts of its handlers end when ctx
// does (the client left), as when the connection closes, or when a write fails.
// Notifications to the peer work as on any Conn; a call gets no response, since nothing
// is read.
func NewServingConn(ctx context.Context, c Connection, opts Options) *Conn {
	// Its handlers' contexts derive from ctx directly; the Conn ends them itself when it
	// ends (see shutdown), without a context of its own between: it lives for a request.
	conn := newConn(ctx, nil, c, opts)
	conn.serving = true
	return conn
}

func newConn(ctx context.Context, cancel context.CancelCauseFunc, c Connection, opts Options) *Conn {
	conn := &Conn{
		conn:   c,
		opts:   opts,
		log:    opts.Logger,
		ctx:    ctx,
		cancel: cancel,
		done:   make(chan struct{}),
	}
	conn.malformedLog = loglimit.Repeated{Level: slog.LevelWarn, Msg: "malformed message", Summary: "malformed messages not logged one by one"}
	conn.droppedLog = loglimit.Repeated{Level: slog.LevelWarn, Msg: "dropped a response", Summary: "dropped responses not logged one by one"}
	conn.unknownLog = loglimit.Repeated{Level: slog.LevelWarn, Msg: "response to an unknown request id", Summary: "responses to unknown request ids not logged one by one"}
	conn.refusedLog = loglimit.Repeated{Level: slog.LevelWarn, Msg: "refused a request", Summary: "refused requests not logged one by one"}
	if conn.log == nil {
		conn.log = discard
	}
	if opts.FirstID != 0 {
		conn.nextID.Store(opts.FirstID - 1)
	}
	return conn
}

// discard is the logger of a connection given none.
var discard = slog.New(slog.DiscardHandler)

// dispatch handles one message read: a response goes to its call, a notification is
// handled in order, a request on a worker, or on the calling goroutine when inline.
func (c *Conn) dispatch(m Message, inline bool) {
	if c.opts.Tap != nil {
		c.opts.Tap(Inbound, m)
	}
	switch m := m.(type) {
	case *Response:
		c.deliver(m)
	case *Request:
		switch {
		case m.IsNotification():
			c.handleNotification(m)
		case inline:
			c.serveRequest(c.beginRequest(m))
		default:
			msg, ok := c.admit(m)
			if !ok {
				return // the connection ended
			}
			if msg != "" {
				c.refuse(m, msg)
				return
			}
			if c.opts.InOrder != nil && c.opts.InOrder(m) {
				in := c.beginRequest(m)
				m.deferrable = false // work run after it would hold up the reading
				c.serveRequest(in)
				return
			}
			if c.opts.Quick != nil && c.serveQuick(m) {
				return
			}
			c.startRequest(m)
		}
	}
}

// Serve handles m, a message its owner read from the connection of a [NewServingConn],
// on the calling goroutine, as the reading goroutine of [NewConn] would have handled it:
// a request's response is written before Serve returns.
func (c *Conn) Serve(m Message) {
	c.dispatch(m, true)
}

// Done is closed when the connection has ended.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err returns why the connection ended, or nil while it is open.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close ends the connection: pending calls fail with [ErrClosed] and handler contexts are
// cancelled.
func (c *Conn) Close() error {
	c.shutdown(ErrClosed)
	<-c.done
	return nil
}

// Drain waits until no request of the peer's is being handled (every handler has
// returned and its response is written), the connection ends, or ctx ends. A server
// that tells its long-lived requests to finish calls it before closing, so that their
// final responses go out.
func (c *Conn) Drain(ctx context.Context) error {
	c.mu.Lock()
	if c.inCount == 0 {
		c.mu.Unlock()
		return nil
	}
	ch := make(chan struct{})
	c.idle = append(c.idle, ch)
	c.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-c.done:
		return c.Err()
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Call sends a request and waits for its response, decoding the result into result (which
// may be nil, or a *json.RawMessage to keep it raw). A JSON-RPC error from the peer is
// returned as an [*Error]. If ctx ends first the peer is told with notifications/cancelled
// and ctx's error is returned; the notification's reason is ctx's cause's (see
// [CancelReasoner]).
func (c *Conn) Call(ctx context.Context, method string, params, result any) error {
	raw, err := marshalParams(params)
	if err != nil {
		return &CallError{Method: method, Op: OpEncode, Err: err}
	}
	id := Int64ID(c.nextID.Add(1))
	ch := make(chan reply, 1)
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return err
	}
	if c.pending == nil {
		c.pending = make(map[ID]chan reply)
	}
	c.pending[id] = ch
	c.mu.Unlock()

	tellID(ctx, id)
	req := &Request{ID: id, Method: method, Params: raw}
	if err := c.write(ctx, req); err != nil {
		c.forget(id)
		if cerr := c.Err(); cerr != nil {
			// The connection ended while the request was being written (over Streamable
			// HTTP a request's write lasts until its answer starts to come): the call
			// fails as the calls waiting for an answer do, not as a send that failed.
			return cerr
		}
		return &CallError{Method: method, Op: OpSend, Err: err}
	}
	select {
	case r := <-ch:
		return decodeResult(method, r, result)
	case <-ctx.Done():
		c.forget(id)
		if !uncancellable[method] && c.Err() == nil {
			nctx, cancel := cancelNotifyContext(ctx)
			_ = c.Notify(nctx, CancelledMethod, map[string]any{"requestId": id, "reason": cancelReason(ctx)})
			cancel()
		}
		return ctx.Err()
	case <-c.done:
		// The reader may have delivered the response just before ending.
		select {
		case r := <-ch:
			return decodeResult(method, r, result)
		default:
		}
		return c.Err()
	}
}

// Go sends a request and returns once it is written, without waiting for its response:
// done is then called once, with the result as it arrived (the connection has checked
// it) or with the error [Conn.Call] would return. It runs on the goroutine that settles
// the call: the reading goroutine when the response arrives, so done must not block, as
// a notification handler must not; the one that ends the connection; or the one that
// ends ctx, once the peer has been told with notifications/cancelled. If the request
// cannot be written, Go returns why and done is never called.
//
// A caller that acts on a response where it arrives saves the hand-off of the response
// to a waiting goroutine and back, which is most of what a small round trip costs.
func (c *Conn) Go(ctx context.Context, method string, params any, done func(result json.RawMessage, err error)) error {
	return c.goCall(ctx, method, params, done, false)
}

// GoNow is [Conn.Go] for a caller that must not wait on the write: the reading
// goroutine, in a done of Go's. A request the connection cannot take at once (a
// [NowWriter] whose WriteNow declines: a pipe without room, another write under way) is
// written by a goroutine of its own, and done is then called with the write's error,
// should it fail; so the reading goes on while the peer reads nothing, and a peer whose
// own reading waits for this side to read (a bound on its requests, see
// [Options.MaxInFlight]) is not left waiting on a reader that waits on it. On a
// connection that is no NowWriter it is Go.
func (c *Conn) GoNow(ctx context.Context, method string, params any, done func(result json.RawMessage, err error)) error {
	return c.goCall(ctx, method, params, done, true)
}

func (c *Conn) goCall(ctx context.Context, method string, params any, done func(result json.RawMessage, err error), now bool) error {
	raw, err := marshalParams(params)
	if err != nil {
		return &CallError{Method: method, Op: OpEncode, Err: err}
	}
	id := Int64ID(c.nextID.Add(1))
	k := &continuation{method: method, done: done}
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return err
	}
	if c.later == nil {
		c.later = make(map[ID]*continuation)
	}
	c.later[id] = k
	c.mu.Unlock()
	tellID(ctx, id)
	req := &Request{ID: id, Method: method, Params: raw}
	if w, ok := c.conn.(NowWriter); now && ok {
		wrote, err := w.WriteNow(req)
		switch {
		case wrote && err == nil && c.opts.Tap != nil:
			c.opts.Tap(Outbound, req)
		case wrote && err != nil:
			if c.takeLater(id) == nil {
				return nil
			}
			return &CallError{Method: method, Op: OpSend, Err: err}
		case !wrote:
			go func() {
				if err := c.write(ctx, req); err != nil {
					if k := c.takeLater(id); k != nil {
						if k.stop != nil {
							k.stop()
						}
						k.done(nil, &CallError{Method: method, Op: OpSend, Err: err})
					}
				}
			}()
		}
	} else if err := c.write(ctx, req); err != nil {
		if c.takeLater(id) == nil {
			return nil // the connection ended meanwhile, and done was given why
		}
		return &CallError{Method: method, Op: OpSend, Err: err}
	}
	if ctx.Done() == nil {
		return nil
	}
	stop := context.AfterFunc(ctx, func() {
		if c.takeLater(id) == nil {
			return // settled meanwhile
		}
		if !uncancellable[method] && c.Err() == nil {
			nctx, cancel := cancelNotifyContext(ctx)
			_ = c.Notify(nctx, CancelledMethod, map[string]any{"requestId": id, "reason": cancelReason(ctx)})
			cancel()
		}
		done(nil, ctx.Err())
	})
	c.mu.Lock()
	if c.later[id] == k {
		k.stop = stop // read by whoever settles the call, after taking it under mu
		c.mu.Unlock()
		return nil
	}
	c.mu.Unlock()
	stop() // settled already
	return nil
}

// takeLater removes and returns the continuation pending under id, if any.
func (c *Conn) takeLater(id ID) *continuation {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := c.later[id]
	delete(c.later, id)
	return k
}

// run calls k's done with r, as [Conn.Call] would have returned it.
func (k *continuation) run(r reply) {
	if k.stop != nil {
		k.stop()
	}
	var raw json.RawMessage
	err := decodeResult(k.method, r, &raw)
	k.done(raw, err)
}

// decodeResult returns the peer's error, or why its response was lost, or decodes the
// result into result as [Conn.Call] says.
func decodeResult(method string, r reply, result any) error {
	if r.err != nil {
		return &CallError{Method: method, Op: OpReceive, Err: r.err}
	}
	resp := r.resp
	if resp.Error != nil {
		return resp.Error
	}
	return DecodeResult(method, resp.Result, result)
}

// DecodeResult decodes the result raw of a call of method into result as [Conn.Call]
// does (result may be nil, or a *json.RawMessage to keep it raw): for a caller of
// [Conn.Go] that waits for the answer elsewhere.
func DecodeResult(method string, raw json.RawMessage, result any) error {
	switch r := result.(type) {
	case nil:
		return nil
	case *json.RawMessage:
		*r = raw
		return nil
	}
	if err := jsonwire.Unmarshal(raw, result); err != nil {
		return &CallError{Method: method, Op: OpDecode, Err: err}
	}
	return nil
}

// Notify sends a notification.
func (c *Conn) Notify(ctx context.Context, method string, params any) error {
	raw, err := marshalParams(params)
	if err != nil {
		return &CallError{Method: method, Op: OpEncode, Err: err}
	}
	if err := c.Err(); err != nil {
		return err
	}
	return c.write(ctx, &Request{Method: method, Params: raw})
}

func (c *Conn) forget(id ID) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

func (c *Conn) write(ctx context.Context, m Message) error {
	if c.opts.Tap != nil {
		c.opts.Tap(Outbound, m)
	}
	err := c.conn.Write(ctx, m)
	if err != nil && c.serving && ctx.Err() == nil {
		// A serving Conn ends when a response or a notification cannot be written:
		// nothing reads the connection to notice that it has ended. (A connection may
		// refuse a call and stay open.)
		if req, ok := m.(*Request); !ok || req.IsNotification() {
			c.shutdown(closedBy(err))
		}
	}
	return err
}

func (c *Conn) readLoop() {
	defer close(c.done)
	defer func() {
		for _, r := range []*loglimit.Repeated{&c.malformedLog, &c.droppedLog, &c.unknownLog, &c.refusedLog} {
			r.Flush(c.log)
		}
	}()
	for {
		m, err := c.conn.Read(c.ctx)
		if err != nil {
			var de *DecodeError
			if errors.As(err, &de) && de.Response {
				c.droppedLog.Log(c.log, "id", de.ID.String(), "error", de.Err.Message)
				if de.ID.IsValid() && de.Cause != nil {
					c.settle(de.ID, reply{err: de.Cause})
				}
				continue
			}
			if errors.As(err, &de) {
				resp := &Response{ID: de.ID, Error: de.Err}
				if c.opts.Tap != nil {
					c.opts.Tap(Inbound, resp)
				}
				c.malformedLog.Log(c.log, "error", de.Err.Message)
				c.answerMalformed(resp)
				continue
			}
			c.shutdown(closedBy(err))
			return
		}
		c.dispatch(m, false)
	}
}

// maxMalformedQueued and maxMalformedQueuedBytes bound the answers to malformed
// messages waiting for their write (see answerMalformed): a peer that reads takes them
// as they come, and one that floods such lines without reading costs no more.
const (
	maxMalformedQueued      = 64
	maxMalformedQueuedBytes = 1 << 20
)

// answerMalformed answers a malformed message with resp without the reading waiting on
// the write: a peer that writes such lines and never reads (a stdio server flooding its
// stdout) would fill the pipe to it, and the reading, waiting, would read nothing more,
// not even what ends the connection (transport.ErrStrayFlood). resp is written at once
// when the connection can ([NowWriter]) and no earlier answer waits; else it waits, in
// order, for a goroutine that writes them, and past [maxMalformedQueued] of them (or
// [maxMalformedQueuedBytes]) it is dropped: JSON-RPC asks for the answer, but a peer
// that leaves that many unread reads none of them.
func (c *Conn) answerMalformed(resp *Response) {
	size := malformedSize(resp)
	c.mu.Lock()
	queued := c.malformedWriting
	c.mu.Unlock()
	if now, ok := c.conn.(NowWriter); ok && !queued {
		wrote, werr := now.WriteNow(resp)
		if wrote {
			if c.opts.Tap != nil {
				c.opts.Tap(Outbound, resp)
			}
			if werr != nil {
				c.log.Debug("writing the answer to a malformed message failed", "error", werr)
			}
			return
		}
	}
	c.mu.Lock()
	if len(c.malformed) >= maxMalformedQueued || c.malformedBytes+size > maxMalformedQueuedBytes {
		c.malformedDropped++
		n := c.malformedDropped
		c.mu.Unlock()
		c.log.Debug("dropped the answer to a malformed message: the peer has not read the earlier ones", "error", resp.Error.Message, "dropped", n)
		return
	}
	c.malformed = append(c.malformed, resp)
	c.malformedBytes += size
	start := !c.malformedWriting
	c.malformedWriting = true
	c.mu.Unlock()
	if start {
		go c.writeMalformed()
	}
}

// writeMalformed writes the queued answers to malformed messages, in order, until none
// is left. A write that fails does not end the connection, as a response's does not: the
// reading finds out why the peer is gone (a server that exited, one given up on), which
// a write's error, racing it, would hide.
func (c *Conn) writeMalformed() {
	for {
		c.mu.Lock()
		if len(c.malformed) == 0 {
			c.malformed = nil
			c.malformedWriting = false
			c.mu.Unlock()
			return
		}
		resp := c.malformed[0]
		c.malformed[0] = nil
		c.malformed = c.malformed[1:]
		c.malformedBytes -= malformedSize(resp)
		c.mu.Unlock()
		if err := c.write(c.ctx, resp); err != nil {
			c.log.Debug("writing the answer to a malformed message failed", "error", err)
		}
	}
}

// malformedSize is about what the answer to a malformed message holds in memory: its
// id, which the peer chose, and its error.
func malformedSize(resp *Response) int {
	return len(resp.ID.str) + len(resp.Error.Message) + len(resp.Error.Data)
}

func (c *Conn) deliver(resp *Response) { c.settle(resp.ID, reply{resp: resp}) }

// settle hands r to the call pending under id.
func (c *Conn) settle(id ID, r reply) {
	c.mu.Lock()
	ch, ok := c.pending[id]
	delete(c.pending, id)
	var k *continuation
	if !ok {
		if k = c.later[id]; k != nil {
			delete(c.later, id)
		}
	}
	c.mu.Unlock()
	switch {
	case ok:
		ch <- r
	case k != nil:
		k.run(r)
	default:
		c.unknownLog.Log(c.log, "id", id.String())
	}
}

func (c *Conn) handleNotification(req *Request) {
	if req.Method == CancelledMethod {
		var p struct {
			RequestID ID     `json:"requestId"`
			Reason    string `json:"reason"`
		}
		if json.Unmarshal(req.Params, &p) == nil && p.RequestID.IsValid() {
			c.mu.Lock()
			cancel := c.inflight[p.RequestID]
			c.mu.Unlock()
			if cancel != nil {
				cancel(errPeerCancelled)
			}
		}
	}
	if c.opts.Handler == nil {
		return
	}
	ctx := withRequest(c.ctx, req)
	defer func() {
		// A panic here would otherwise take the whole program down with the reader.
		if p := recover(); p != nil {
			stack.Logger(c.opts.Logger).Error("notification handler panicked", "method", req.Method, "panic", p, "stack", stack.Trace())
		}
	}()
	if _, err := c.opts.Handler.Handle(ctx, req); err != nil {
		c.log.Debug("notification handler failed", "method", req.Method, "error", err)
	}
}

// inbound is a request being handled, with the context its handler runs on.
type inbound struct {
	req    *Request
	ctx    context.Context
	cancel context.CancelCauseFunc
}

// AfterResponse has f run once the response to the request that ctx was made for is
// written (or given up: f runs whatever becomes of the response), on the goroutine that
// ran the handler, which the connection no longer counts as handling the request (for
// a request answered on the reading goroutine, [Options.Quick], on a worker). A
// handler that starts work to outlive its request (a task) uses it to run that work
// where the request ran, without waking a goroutine for it and without delaying the
// response. It reports false, and f is not run, when ctx is not a request handler's or
// its Conn cannot run f (one that serves a request on its owner's goroutine,
// [NewServingConn], whose owner waits for the handler): the caller then runs the work
// elsewhere.
func AfterResponse(ctx context.Context, f func()) bool {
	req, ok := RequestFromContext(ctx)
	if !ok || !req.deferrable || req.after != nil || req.IsNotification() {
		return false
	}
	req.after = f
	return true
}

// admit says why req cannot be taken, or "" when it can, having waited, while the
// answers the peer has not taken fill [Options.MaxInFlight], for it to take some: each
// holds a goroutine, and refusing req would be one more answer it does not read. ok is
// false when the connection ended meanwhile.
func (c *Conn) admit(req *Request) (msg string, ok bool) {
	n := c.opts.MaxInFlight
	for {
		c.mu.Lock()
		msg = c.overLimitLocked(req)
		if msg != "" || n <= 0 || len(c.inflight)+c.writing < n {
			c.mu.Unlock()
			return msg, true
		}
		if c.taken == nil {
			c.taken = make(chan struct{})
		}
		taken := c.taken
		c.mu.Unlock()
		select {
		case <-taken:
		case <-c.ctx.Done():
			return "", false
		}
	}
}

// overLimitLocked says why req cannot be taken now, or "" when it can: its id is that of
// a request still handled, or it would pass [Options.MaxInFlight] or MaxInFlightBytes.
func (c *Conn) overLimitLocked(req *Request) string {
	n, b := c.opts.MaxInFlight, c.opts.MaxInFlightBytes
	switch {
	case c.inflight[req.ID] != nil:
		return fmt.Sprintf("a request with id %s is already in progress; an id may be used again once its request is answered", req.ID)
	case n > 0 && len(c.inflight) >= n:
		if len(c.inflight) == 1 {
			return "too many requests: 1 request of yours is waiting for its response; send more once it is answered"
		}
		return fmt.Sprintf("too many requests: %d requests of yours are waiting for their response; send more once some are answered", len(c.inflight))
	case b > 0 && len(c.inflight) > 0 && c.inBytes+len(req.Params) > b:
		return fmt.Sprintf("too many requests: the params of the requests of yours waiting for their response come to %d bytes, and %d more is over the %d allowed; send more once some are answered",
			c.inBytes, len(req.Params), b)
	}
	return ""
}

// refuse answers req with msg without handling it. Written from the reading goroutine, it
// holds the reading of a peer that does not read its answers.
func (c *Conn) refuse(req *Request, msg string) {
	c.refusedLog.Log(c.log, "method", req.Method, "reason", msg)
	if err := c.write(c.ctx, &Response{ID: req.ID, Error: NewError(CodeInvalidRequest, msg)}); err != nil {
		c.log.Debug("writing a refusal failed", "method", req.Method, "error", err)
	}
}

func (c *Conn) startRequest(req *Request) {
	in := c.beginRequest(req)
	c.workers.Go(func() { c.serveRequest(in) })
}

// beginRequest makes req's context and registers it, so that the peer can cancel it.
func (c *Conn) beginRequest(req *Request) inbound {
	req.deferrable = !c.serving
	ctx, cancel := context.WithCancelCause(withRequest(c.ctx, req))
	c.mu.Lock()
	if c.inflight == nil {
		c.inflight = make(map[ID]context.CancelCauseFunc)
	}
	c.inflight[req.ID] = cancel
	c.inCount++
	c.inBytes += len(req.Params)
	ended := c.err
	c.mu.Unlock()
	if ended != nil && c.serving {
		cancel(ended) // a serving Conn's requests end with it (see shutdown)
	}
	return inbound{req, ctx, cancel}
}

// serveQuick answers req with [Options.Quick] on the reading goroutine, and reports
// false, having done nothing, when Quick declines it or the connection cannot tell a
// write that would wait.
func (c *Conn) serveQuick(req *Request) bool {
	now, ok := c.conn.(NowWriter)
	if !ok {
		return false
	}
	req.deferrable = true // on a worker: nothing may run after the answer here
	req.quick = c
	result, err := c.call(withRequest(c.ctx, req), c.opts.Quick, req)
	req.quick = nil
	after := req.after
	req.after, req.deferrable = nil, false
	switch {
	case req.answer != nil:
		if !errors.Is(err, ErrAnswerLater) {
			// It panicked, or forgot what it took up: what it returned answers, as a
			// worker answers a Handler, and the function it was given then writes
			// nothing. Else the request would wait for good, counted as unanswered.
			c.log.Error("a quick handler took a request up to answer later, and returned", "method", req.Method, "error", err)
			answer := req.answer
			c.workers.Go(func() { answer(result, err) })
		}
		return true
	case errors.Is(err, ErrNotQuick):
		return false
	}
	resp := response(req, result, err)
	wrote, werr := now.WriteNow(resp)
	if wrote {
		if c.opts.Tap != nil {
			c.opts.Tap(Outbound, resp)
		}
		if werr != nil {
			c.log.Debug("writing a response failed", "method", req.Method, "error", werr)
		}
		if after != nil {
			c.workers.Go(after)
		}
		return true
	}
	// The pipe is full, or another write is under way: a worker writes the answer,
	// which counts as unanswered (Drain), and against MaxInFlight, until then.
	c.mu.Lock()
	c.inCount++
	c.writing++
	c.mu.Unlock()
	c.workers.Go(func() {
		func() {
			defer c.answered()
			if werr := c.write(c.ctx, resp); werr != nil {
				c.log.Debug("writing a response failed", "method", req.Method, "error", werr)
			}
		}()
		if after != nil {
			after()
		}
	})
	return true
}

// answered counts a request of the peer's as answered, for Drain, and its answer as
// written (or given up), for MaxInFlight.
func (c *Conn) answered() {
	c.mu.Lock()
	c.inCount--
	c.writing--
	if c.taken != nil {
		close(c.taken)
		c.taken = nil
	}
	if c.inCount == 0 {
		for _, ch := range c.idle {
			close(ch)
		}
		c.idle = nil
	}
	c.mu.Unlock()
}

// response is the response to req of a handler that returned result and err.
func response(req *Request, result any, err error) *Response {
	resp := &Response{ID: req.ID}
	if err != nil {
		resp.Error = AsError(err)
	} else if resp.Result, err = jsonwire.Marshal(result); err != nil {
		resp.Error = Errorf(CodeInternalError, "encoding the result: %v", err)
		resp.Result = nil
	}
	return resp
}

// serveRequest runs the handler of a request and writes its response.
func (c *Conn) serveRequest(in inbound) {
	req, ctx := in.req, in.ctx
	defer func() {
		if f := req.after; f != nil {
			req.after = nil
			f()
		}
	}()
	defer func() {
		c.answered()
		in.cancel(nil)
	}()
	result, err := c.call(ctx, c.opts.Handler, req)
	c.respond(in, result, err)
}

// respond writes the response of a request a handler returned result and err for.
func (c *Conn) respond(in inbound, result any, err error) {
	req, ctx := in.req, in.ctx
	// Handled: a cancellation comes too late now, and the request no longer counts against
	// the bounds, so that a peer that sends its next request once it has this answer is
	// never refused for this one. Its answer counts instead until answered has it
	// written, which holds up the reading, not refuses.
	c.mu.Lock()
	delete(c.inflight, req.ID)
	c.inBytes -= len(req.Params)
	c.writing++
	c.mu.Unlock()
	if errors.Is(context.Cause(ctx), errPeerCancelled) {
		return // the peer gave up on this request and expects no response
	}
	resp := response(req, result, err)
	if c.Err() != nil {
		return
	}
	if werr := c.write(ctx, resp); werr != nil {
		c.log.Debug("writing a response failed", "method", req.Method, "error", werr)
	}
}

// call runs h with req, a recovered panic and a missing handler becoming errors.
func (c *Conn) call(ctx context.Context, h Handler, req *Request) (result any, err error) {
	defer func() {
		if p := recover(); p != nil {
			// The client is told nothing of the panic: its value may hold anything.
			stack.Logger(c.opts.Logger).Error("handler panicked", "method", req.Method, "panic", p, "stack", stack.Trace())
			result, err = nil, Errorf(CodeInternalError, "internal error handling %s", req.Method)
		}
	}()
	if h == nil {
		return nil, Errorf(CodeMethodNotFound, "method not found: %s", req.Method)
	}
	result, err = h.Handle(ctx, req)
	if err == nil && result == nil {
		result = json.RawMessage("{}")
	}
	return result, err
}

func (c *Conn) shutdown(cause error) {
	c.closing.Do(func() {
		c.mu.Lock()
		c.err = cause
		c.pending = nil // their callers see c.done and return c.err
		later := c.later
		c.later = nil
		var requests []context.CancelCauseFunc
		if c.serving { // its requests' contexts, one by one
			for _, cancel := range c.inflight {
				requests = append(requests, cancel)
			}
		}
		c.mu.Unlock()
		if !c.serving {
			c.cancel(cause)
		}
		for _, cancel := range requests {
			cancel(cause)
		}
		_ = c.conn.Close()
		for _, k := range later {
			if k.stop != nil {
				k.stop()
			}
			k.done(nil, cause)
		}
		if c.serving { // no reader closes done
			close(c.done)
		}
	})
}

// closedBy returns the error pending calls fail with when the connection ends because of
// err: it matches [ErrClosed] and still carries err (io.EOF, a server's exit status, ...).
func closedBy(err error) error {
	if errors.Is(err, ErrClosed) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrClosed, err)
}

func marshalParams(params any) (json.RawMessage, error) {
	switch p := params.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		return p, nil
	}
	return jsonwire.Marshal(params)
}

type requestKey struct{}
type relatedKey struct{}

func withRequest(ctx context.Context, req *Request) context.Context {
	ctx = context.WithValue(ctx, requestKey{}, req)
	if req.ID.IsValid() {
		ctx = context.WithValue(ctx, relatedKey{}, req.ID)
	}
	return ctx
}

// RequestFromContext returns the inbound request a handler context was made for.
func RequestFromContext(ctx context.Context) (*Request, bool) {
	r, ok := ctx.Value(requestKey{}).(*Request)
	return r, ok
}

type requestIDKey struct{}

// WithRequestID returns a context whose requests, sent with [Conn.Call] or [Conn.Go],
// tell f their id before they are written: a caller can then recognise what the peer
// sends about the request (a subscription's notifications name its request) however
// soon it arrives.
func WithRequestID(ctx context.Context, f func(ID)) context.Context {
	return context.WithValue(ctx, requestIDKey{}, f)
}

func tellID(ctx context.Context, id ID) {
	if f, ok := ctx.Value(requestIDKey{}).(func(ID)); ok {
		f(id)
	}
}

// WithRelatedRequest marks messages written with ctx as belonging to the inbound request
// id, so a routing transport sends them on that request's stream. Handler contexts already
// carry their own request; work that outlives its request sets another one.
func WithRelatedRequest(ctx context.Context, id ID) context.Context {
	return context.WithValue(ctx, relatedKey{}, id)
}

// RelatedRequest returns the inbound request id that messages written with ctx belong to.
func RelatedRequest(ctx context.Context) (ID, bool) {
	id, ok := ctx.Value(relatedKey{}).(ID)
	return id, ok && id.IsValid()
}
