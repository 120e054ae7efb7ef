package transport

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
)

// This file holds the Server-Sent Events framing shared by the Streamable HTTP client and
// server: https://html.spec.whatwg.org/multipage/server-sent-events.html

// sseEvent is one dispatched event.
type sseEvent struct {
	// ID is the stream's last event ID after this event (the SSE "last event ID buffer"),
	// and HasID reports whether this event carried an id field itself.
	ID    string
	HasID bool
	// Type is the event field; "" means "message".
	Type string
	Data []byte
	// TooLarge reports an event whose data exceeded the limit; Data is then empty, and
	// Skim has read what the data says of itself.
	TooLarge bool
	Skim     *skimmer
}

// sseReader parses an event stream. It is not safe for concurrent use.
type sseReader struct {
	r   *bufio.Reader
	max int

	// LastID is the last event ID seen so far; it survives across events, as in the SSE
	// specification. Retry is the latest reconnection delay the server asked for, zero if
	// none.
	LastID string
	Retry  time.Duration
}

func newSSEReader(r io.Reader, maxData int) *sseReader {
	if maxData <= 0 {
		maxData = DefaultMaxMessageSize
	}
	br := sseBuffers.Get().(*bufio.Reader)
	br.Reset(r)
	return &sseReader{r: br, max: maxData}
}

// sseBuffers keeps the readers of ended event streams for the next ones: over Streamable
// HTTP every request is answered on a stream of its own.
var sseBuffers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 16<<10) }}

// release gives the buffer back once the stream is done with (read to its end, or closed
// after the event that was awaited); LastID and Retry stay. Next must not be called after.
func (s *sseReader) release() {
	if s.r != nil {
		s.r.Reset(nil)
		sseBuffers.Put(s.r)
		s.r = nil
	}
}

var newline = []byte("\n")

// errLineTooLong ends a stream whose single line exceeds any sane bound.
var errLineTooLong = errors.New("sse: line too long")

// Next returns the next event. Events with an empty data buffer are returned too (with
// Data empty), because a priming event (an id and no data) matters to resumption. A clean
// end of the stream returns io.EOF; an event still being assembled at that point is
// discarded, as the specification requires.
func (s *sseReader) Next() (sseEvent, error) {
	var (
		ev       sseEvent
		data     []byte
		hasData  bool
		sawField bool
		skim     *skimmer // once the data is too large
	)
	for {
		line, long, err := s.readLine()
		if err != nil {
			return sseEvent{}, err
		}
		if len(line) == 0 { // dispatch
			if !sawField {
				continue
			}
			ev.ID = s.LastID
			ev.TooLarge, ev.Skim = skim != nil, skim
			if hasData && skim == nil {
				ev.Data = bytes.TrimSuffix(data, []byte("\n"))
			}
			return ev, nil
		}
		name, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			name, value = line[:i], line[i+1:]
			value = bytes.TrimPrefix(value, []byte(" "))
		}
		if long && string(name) != "data" {
			// Only data can be that long: a comment or a field nobody reads is passed
			// over, an id, event or retry that long ends the stream.
			switch string(name) {
			case "id", "event", "retry":
				return sseEvent{}, errLineTooLong
			}
			if err := s.restOfLine(func([]byte) {}); err != nil {
				return sseEvent{}, err
			}
			continue
		}
		if len(name) == 0 { // a comment, e.g. a keep-alive
			continue
		}
		switch string(name) {
		case "data":
			sawField = true
			hasData = true
			if skim == nil && len(data)+len(value)+1 > s.max {
				skim = &skimmer{}
				skim.write(data)
				data = nil
			}
			if skim != nil {
				skim.write(value)
				if long {
					// The rest of the line goes through the skimmer as it is read: a
					// message far over the limit is dropped like one just over it.
					if err := s.restOfLine(skim.write); err != nil {
						return sseEvent{}, err
					}
				}
				skim.write(newline)
				continue
			}
			data = append(data, value...)
			data = append(data, '\n')
		case "id":
			sawField = true
			if bytes.IndexByte(value, 0) < 0 {
				s.LastID = string(value)
				ev.HasID = true
			}
		case "event":
			sawField = true
			ev.Type = string(value)
		case "retry":
			if d, ok := parseRetry(value); ok {
				s.Retry = d
			}
		}
	}
}

// parseRetry reads a retry field: ASCII digits, a count of milliseconds. Any count is
// taken, bounded by maxReconnectDelay before it becomes a duration (a server may ask for
// years, or for more than an int64 holds); ok is false when value is not digits.
func parseRetry(value []byte) (d time.Duration, ok bool) {
	if len(value) == 0 {
		return 0, false
	}
	const bound = int64(maxReconnectDelay / time.Millisecond)
	var ms int64
	for _, c := range value {
		if c < '0' || c > '9' {
			return 0, false
		}
		if ms <= bound {
			ms = ms*10 + int64(c-'0')
		}
	}
	return time.Duration(min(ms, bound)) * time.Millisecond, true
}

// readLine returns one line without its terminator (LF or CRLF), valid until the next
// read. A line longer than the data limit plus some slack is returned cut there, with
// long set: the rest is still to be read, with restOfLine.
func (s *sseReader) readLine() (line []byte, long bool, err error) {
	var buf []byte
	for {
		frag, err := s.r.ReadSlice('\n')
		switch {
		case errors.Is(err, bufio.ErrBufferFull) && len(buf)+len(frag) > s.max+4096:
			return append(buf, frag...), true, nil
		case err == nil:
			if buf == nil {
				buf = frag
			} else {
				buf = append(buf, frag...)
			}
			buf = buf[:len(buf)-1]
			// Not a copy: Next is done with a line before it reads the next one.
			return bytes.TrimSuffix(buf, []byte("\r")), false, nil
		case errors.Is(err, bufio.ErrBufferFull):
			buf = append(buf, frag...)
		case errors.Is(err, io.EOF):
			return nil, false, io.EOF // an unterminated last line is not an event
		default:
			return nil, false, err
		}
	}
}

// restOfLine reads the rest of a long line (see readLine), giving it to f a buffer at a
// time, without its terminator's LF.
func (s *sseReader) restOfLine(f func([]byte)) error {
	for {
		frag, err := s.r.ReadSlice('\n')
		switch {
		case err == nil:
			f(frag[:len(frag)-1])
			return nil
		case errors.Is(err, bufio.ErrBufferFull):
			f(frag)
		case errors.Is(err, io.EOF):
			return io.EOF
		default:
			return err
		}
	}
}

// writeSSEEvent writes one event. id may be empty (no id field); retry ≤ 0 writes no
// retry field; data must not contain newlines (JSON-RPC encodings never do). An empty data
// still writes a data field, so that parsers dispatch the event (a priming event).
func writeSSEEvent(w io.Writer, id string, retry time.Duration, data []byte) error {
	var b strings.Builder
	if len(data) > 0 {
		b.WriteString("event: message\n")
	}
	if id != "" {
		b.WriteString("id: ")
		b.WriteString(id)
		b.WriteByte('\n')
	}
	if retry > 0 {
		b.WriteString("retry: ")
		b.WriteString(strconv.FormatInt(retry.Milliseconds(), 10))
		b.WriteByte('\n')
	}
	b.WriteString("data: ")
	b.Write(data)
	b.WriteString("\n\n")
	_, err := io.WriteString(w, b.String())
	return err
}
