// Package transport moves JSON-RPC messages between MCP peers: newline-delimited streams
// (stdio, in-memory pipes), child processes, and Streamable HTTP.
package transport

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/mcpi-dev/mcpi/jsonrpc"
)

// DefaultMaxMessageSize bounds one inbound message. Larger frames are answered with an
// error and skipped, so one huge line cannot exhaust memory.
const DefaultMaxMessageSize = 4 << 20

// Transport opens connections. Clients hold one per server they can reach.
type Transport interface {
	Connect(ctx context.Context) (jsonrpc.Connection, error)
}

// Stream is a [jsonrpc.Connection] over a byte stream carrying one JSON message per line,
// as MCP's stdio transport does.
type Stream struct {
	r       *bufio.Reader
	w       io.Writer
	closers []io.Closer
	max     int

	// wmu is held while a message is written: a channel, so that a writer waiting for
	// it can give up when its context ends (the write before it may be stuck on a peer
	// that does not read).
	wmu       chan struct{}
	closeOnce sync.Once
	closeErr  error
	// room reports whether a write of n bytes to w would return at once (w is a pipe
	// whose room can be read); nil when that cannot be known. See WriteNow.
	room func(n int) bool

	// stray counts the lines read that were no JSON-RPC message, and strayLast is the
	// latest of them, cut (see StrayLines).
	strayMu   sync.Mutex
	stray     int
	strayLast string
	// Before the first message, stray lines past maxStrayLines or their bytes past
	// maxStrayBytes end the reading with ErrStrayFlood (0: no bound); see
	// [Command.MaxStrayLines].
	maxStrayLines int
	maxStrayBytes int
	strayBytes    int
	spoke         bool
}

// DefaultMaxStrayLines and DefaultMaxStrayBytes bound what a server started by
// [Command] may write on its stdout that is no JSON-RPC message before its first
// message: generous for a banner or a log of a few hundred lines at start, and small
// beside the time a handshake waits for a server that floods its stdout instead of
// speaking MCP.
const (
	DefaultMaxStrayLines = 1000
	DefaultMaxStrayBytes = 1 << 20
)

// ErrStrayFlood is the read error of a stream whose peer wrote more lines that are no
// JSON-RPC message, before its first message, than the stream's bound
// ([Command.MaxStrayLines], [Command.MaxStrayBytes]); the connection ends with it.
var ErrStrayFlood = errors.New("the peer wrote too much that is no JSON-RPC message before its first message")

// maxStrayLine is how much of a stray line is kept.
const maxStrayLine = 200

// StrayLines returns how many lines read so far were no JSON-RPC message (invalid JSON,
// JSON of another kind: a server that writes its log or a banner on stdout; or a line
// over the size bound that is no response), and the
// latest of them, cut to 200 bytes. Such a line is answered with an error and skipped as
// any malformed message is; a client whose handshake fails quotes them, as they are
// most likely why.
func (s *Stream) StrayLines() (n int, last string) {
	s.strayMu.Lock()
	defer s.strayMu.Unlock()
	return s.stray, s.strayLast
}

// NewStream returns a connection reading r and writing w. Close closes both if they are
// [io.Closer]s. maxSize ≤ 0 means [DefaultMaxMessageSize].
func NewStream(r io.Reader, w io.Writer, maxSize int) *Stream {
	if maxSize <= 0 {
		maxSize = DefaultMaxMessageSize
	}
	s := &Stream{r: bufio.NewReaderSize(r, 64<<10), w: w, max: maxSize, wmu: make(chan struct{}, 1), room: pipeRoom(w)}
	for _, x := range []any{r, w} {
		if c, ok := x.(io.Closer); ok {
			s.closers = append(s.closers, c)
		}
	}
	return s
}

// Read returns the next message. Blank lines are skipped; an oversized or malformed line
// yields a [*jsonrpc.DecodeError].
func (s *Stream) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		line, err := s.readLine()
		var de *jsonrpc.DecodeError
		if err != nil {
			var big *MessageTooLargeError
			if errors.As(err, &de) && !de.Response && errors.As(de.Cause, &big) {
				// A line over the size bound, skipped, is as much no message as a
				// short one: a peer writing such lines would keep a handshake waiting.
				if ferr := s.strayLine(line, int(big.Size)); ferr != nil {
					return nil, ferr
				}
			}
			return nil, err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		m, err := jsonrpc.DecodeMessage(line)
		if err != nil && errors.As(err, &de) && !de.Response {
			if ferr := s.strayLine(line, len(line)); ferr != nil {
				return nil, ferr
			}
		}
		if err == nil {
			s.spoke = true
		}
		return m, err
	}
}

// strayLine counts a line of size bytes that was no JSON-RPC message, of which head is
// the beginning, and returns ErrStrayFlood when that passes the stream's bound.
func (s *Stream) strayLine(head []byte, size int) error {
	last := string(bytes.ToValidUTF8(head[:min(len(head), maxStrayLine)], nil)) // a copy: head is the reader's
	s.strayMu.Lock()
	s.stray++
	s.strayLast = last
	n := s.stray
	s.strayMu.Unlock()
	if s.spoke {
		return nil
	}
	// Each such line is answered with an error and skipped: a peer that floods them
	// instead of speaking would be waited on until the caller's time bound, each line
	// costing an answer.
	s.strayBytes += size
	if s.maxStrayLines > 0 && n > s.maxStrayLines || s.maxStrayBytes > 0 && s.strayBytes > s.maxStrayBytes {
		return ErrStrayFlood
	}
	return nil
}

// readLine returns one line without its terminator ("\n" or "\r\n"), valid until the next
// read, or a DecodeError after skipping a line longer than the limit, with the line's
// beginning (at least maxStrayLine bytes of it, when it has them), valid until the next
// read too. The limit applies to the line without its terminator, whether or not the
// line has one.
func (s *Stream) readLine() ([]byte, error) {
	var buf []byte
	for {
		frag, err := s.r.ReadSlice('\n')
		if len(buf)+len(frag) > s.max+2 { // cannot fit even with a "\r\n" to strip
			head := buf
			if len(head) < maxStrayLine {
				// (a copy: discardLine reads over frag)
				head = append(head[:len(head):len(head)], frag[:min(len(frag), maxStrayLine)]...)
			}
			head = bytes.TrimSuffix(bytes.TrimSuffix(head, []byte("\n")), []byte("\r"))
			k := &skimmer{}
			k.write(buf)
			k.write(frag)
			if errors.Is(err, bufio.ErrBufferFull) {
				if derr := s.discardLine(k); derr != nil && !errors.Is(derr, io.EOF) {
					return nil, derr
				}
			} else if err != nil && !errors.Is(err, io.EOF) {
				return nil, err
			}
			return head, s.tooLarge(k)
		}
		if buf == nil && err == nil {
			// The whole line is in the reader's buffer, the usual case: decoded from
			// there, as DecodeMessage keeps nothing of its input, so a message costs no
			// copy of its line.
			buf = frag
		} else {
			buf = append(buf, frag...)
		}
		switch {
		case err == nil || errors.Is(err, io.EOF):
			if err != nil && len(bytes.TrimSpace(buf)) == 0 {
				return nil, io.EOF
			}
			// A final message without a newline is still a message.
			line := bytes.TrimSuffix(bytes.TrimSuffix(buf, []byte("\n")), []byte("\r"))
			if len(line) > s.max {
				k := &skimmer{}
				k.write(line)
				return line, s.tooLarge(k)
			}
			return line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return nil, err
		}
	}
}

// tooLarge is the error of a line over the limit, which k has read: a request's id is
// named in the reply, and a response fails the call it answers.
func (s *Stream) tooLarge(k *skimmer) error {
	return k.decodeError(s.max)
}

// discardLine skips the rest of the current line, including its newline, through k.
func (s *Stream) discardLine(k *skimmer) error {
	for {
		frag, err := s.r.ReadSlice('\n')
		k.write(frag)
		if err == nil {
			return nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return err
		}
	}
}

// Write sends m followed by a newline. Safe for concurrent use. A write that waits
// for another one (which a peer that does not read holds up) gives up when ctx ends.
func (s *Stream) Write(ctx context.Context, m jsonrpc.Message) error {
	b, err := jsonrpc.EncodeMessage(m)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	select {
	case s.wmu <- struct{}{}:
	default: // wait; a free stream is written even when ctx has ended, as before
		select {
		case s.wmu <- struct{}{}:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	defer func() { <-s.wmu }()
	if _, err := s.w.Write(b); err != nil {
		return fmt.Errorf("transport: write: %w", err)
	}
	return nil
}

// WriteNow writes m if that cannot wait, for another write or for the peer to read,
// and reports whether it did: over a pipe with room for it, yes; otherwise (a write
// under way, a full pipe, a writer that is no pipe, a message over 4 KiB) it writes
// nothing and reports false, and the caller writes m with [Stream.Write] from a goroutine
// that may wait. A connection's reading goroutine answers with it, so that it never
// stops reading for a peer that does not read (see [jsonrpc.NowWriter]).
func (s *Stream) WriteNow(m jsonrpc.Message) (bool, error) {
	if s.room == nil {
		return false, nil
	}
	select {
	case s.wmu <- struct{}{}:
	default:
		return false, nil
	}
	defer func() { <-s.wmu }()
	b, err := jsonrpc.EncodeMessage(m)
	if err != nil {
		return false, nil // Write meets the same error and reports it
	}
	b = append(b, '\n')
	if !s.room(len(b)) {
		return false, nil
	}
	if _, err := s.w.Write(b); err != nil {
		return true, fmt.Errorf("transport: write: %w", err)
	}
	return true, nil
}

// LocalWrites reports that a Write only hands the message to a local pipe (the server
// process's stdin, an in-memory pipe) rather than making a round trip to the server, as a
// POST of Streamable HTTP does: a client may then send a request from the goroutine that
// reads the connection, without holding up what it reads next.
func (s *Stream) LocalWrites() bool { return true }

// Close closes the underlying reader and writer.
func (s *Stream) Close() error {
	s.closeOnce.Do(func() {
		for _, c := range s.closers {
			if err := c.Close(); err != nil && s.closeErr == nil {
				s.closeErr = err
			}
		}
	})
	return s.closeErr
}

// Pipe returns two connected in-memory connections. Messages are encoded and decoded as on
// a real stream, so tests over a pipe exercise the same wire format as stdio. Like
// [io.Pipe] it holds nothing: a Write waits for the other end to read the message, so
// each end needs a reader (a [jsonrpc.Conn] is one).
func Pipe() (a, b jsonrpc.Connection) {
	ar, bw := io.Pipe()
	br, aw := io.Pipe()
	return NewStream(ar, aw, 0), NewStream(br, bw, 0)
}

// PipeTransport is a [Transport] whose Connect hands out the client half of a fresh [Pipe]
// and passes the server half to Serve, which must start serving it without blocking.
type PipeTransport struct {
	Serve func(ctx context.Context, server jsonrpc.Connection) error
	// MaxMessageSize bounds one message the client half reads, as [Command]'s does a
	// server process's; 0 means [DefaultMaxMessageSize].
	MaxMessageSize int
}

// Connect implements [Transport].
func (p PipeTransport) Connect(ctx context.Context) (jsonrpc.Connection, error) {
	ar, bw := io.Pipe()
	br, aw := io.Pipe()
	client, server := NewStream(ar, aw, p.MaxMessageSize), NewStream(br, bw, 0)
	if err := p.Serve(ctx, server); err != nil {
		client.Close()
		server.Close()
		return nil, err
	}
	return client, nil
}

// StdioTransport serves on the process's own stdin and stdout: the server side of the
// stdio transport.
type StdioTransport struct {
	// MaxMessageSize bounds one inbound message; 0 means [DefaultMaxMessageSize].
	MaxMessageSize int
}

// Connect implements [Transport].
func (t StdioTransport) Connect(context.Context) (jsonrpc.Connection, error) {
	return NewStream(os.Stdin, os.Stdout, t.MaxMessageSize), nil
}
