package transport_test

import (
	"bufio"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/transport"
)

// WriteNow writes to a pipe only when the write cannot wait: with the pipe's reader
// behind by more than a page, or a message over a page, it writes nothing; and what it
// writes arrives whole, in order with Write's.
func TestStreamWriteNowOverAPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	s := transport.NewStream(strings.NewReader(""), w, 0)
	small := &jsonrpc.Response{ID: jsonrpc.Int64ID(1), Result: []byte(`{"resultType":"complete"}`)}

	if ok, err := s.WriteNow(small); !ok || err != nil {
		t.Fatalf("an empty pipe: WriteNow = %v, %v; want true, nil", ok, err)
	}
	big := &jsonrpc.Response{ID: jsonrpc.Int64ID(2), Result: []byte(`"` + strings.Repeat("x", 5000) + `"`)}
	if ok, err := s.WriteNow(big); ok || err != nil {
		t.Fatalf("a message over a page: WriteNow = %v, %v; want false, nil", ok, err)
	}
	// Two pages unread: no room to judge.
	if err := s.Write(context.Background(), &jsonrpc.Request{Method: "pad", Params: []byte(`{"p":"` + strings.Repeat("a", 8000) + `"}`)}); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.WriteNow(small); ok || err != nil {
		t.Fatalf("a pipe two pages behind: WriteNow = %v, %v; want false, nil", ok, err)
	}
	br := bufio.NewReader(r)
	var lines []string
	for range 2 {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, line)
	}
	if want := `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}` + "\n"; lines[0] != want {
		t.Errorf("first line %q, want %q", lines[0], want)
	}
	if !strings.HasPrefix(lines[1], `{"jsonrpc":"2.0","method":"pad"`) {
		t.Errorf("second line %.60q…, want the notification", lines[1])
	}
	// Read up: room again.
	if ok, err := s.WriteNow(small); !ok || err != nil {
		t.Fatalf("a pipe read up: WriteNow = %v, %v; want true, nil", ok, err)
	}
}

// A stream whose writer is no pipe (a file, an in-memory pipe) never writes from
// WriteNow: whether its writes wait cannot be known.
func TestStreamWriteNowNotAPipe(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, s := range []*transport.Stream{
		transport.NewStream(strings.NewReader(""), f, 0),
		transport.NewStream(strings.NewReader(""), &strings.Builder{}, 0),
	} {
		if ok, err := s.WriteNow(&jsonrpc.Response{ID: jsonrpc.Int64ID(1), Result: []byte(`{}`)}); ok || err != nil {
			t.Errorf("WriteNow = %v, %v; want false, nil", ok, err)
		}
	}
}
