package transport

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/mcpi-dev/mcpi/jsonrpc"
)

// Lines over the message-size bound, which the stream skips, count towards the bound on
// what is no JSON-RPC message before the first message, lines and bytes, and are
// quoted as the other stray lines are; they did not count, so that a server writing
// such lines kept the handshake waiting. After the first message they are skipped
// without a bound, and a response over the size bound (it fails its call) is no stray
// line, as a short one is not.
func TestOversizedLinesCountAsStray(t *testing.T) {
	long := strings.Repeat("x", 150)
	response := `{"jsonrpc":"2.0","id":1,"result":"` + strings.Repeat("r", 150) + `"}`
	message := `{"jsonrpc":"2.0","method":"ping","id":1}`
	for _, tt := range []struct {
		name     string
		lines    []string
		maxLines int
		maxBytes int
		reads    string // what each Read gave: m a message, d a DecodeError, F ErrStrayFlood, E EOF
		strays   int
		last     string
	}{
		{name: "lines", lines: []string{long, long, long, long}, maxLines: 3, reads: "dddF", strays: 4, last: long},
		{name: "bytes", lines: []string{long, long, long}, maxBytes: 400, reads: "ddF", strays: 3, last: long},
		{name: "mixed with short ones", lines: []string{"starting", long, "ready", long}, maxLines: 3, reads: "dddF", strays: 4, last: long},
		{name: "after a message", lines: []string{message, long, long, long, long, long}, maxLines: 3, reads: "mdddddE", strays: 5, last: long},
		{name: "responses", lines: []string{response, response, response}, maxLines: 1, reads: "dddE"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := NewStream(strings.NewReader(strings.Join(tt.lines, "\n")+"\n"), io.Discard, 100)
			s.maxStrayLines, s.maxStrayBytes = tt.maxLines, tt.maxBytes
			var reads strings.Builder
			for reads.Len() < len(tt.reads) {
				_, err := s.Read(context.Background())
				var de *jsonrpc.DecodeError
				switch {
				case err == nil:
					reads.WriteByte('m')
				case errors.As(err, &de):
					reads.WriteByte('d')
				case errors.Is(err, ErrStrayFlood):
					reads.WriteByte('F')
				case errors.Is(err, io.EOF):
					reads.WriteByte('E')
				default:
					t.Fatalf("Read: %v", err)
				}
				if err != nil && !errors.As(err, &de) {
					break
				}
			}
			n, last := s.StrayLines()
			if reads.String() != tt.reads || n != tt.strays || last != tt.last {
				t.Errorf("reads %s, %d stray lines, the last %q; want reads %s, %d, %q", reads.String(), n, last, tt.reads, tt.strays, tt.last)
			}
		})
	}
}
