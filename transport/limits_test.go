package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
)

// TestSSEHugeRetry: a retry field of any size is read without overflow and bounded by
// maxReconnectDelay, so that a dropped stream is resumed within it rather than after the
// 24 days that "retry: 2147483647" asked for (larger values were ignored).
func TestSSEHugeRetry(t *testing.T) {
	for _, retry := range []string{"2147483647", "9000000000000", "99999999999999999999999"} {
		t.Run(retry, func(t *testing.T) {
			r := newSSEReader(strings.NewReader("retry: 500\n\nretry: "+retry+"\n\n"), 0)
			if _, err := r.Next(); err == nil {
				t.Fatal("an event without data or id was dispatched")
			}
			if r.Retry != maxReconnectDelay {
				t.Errorf("retry %s read as %v, want the bound %v", retry, r.Retry, maxReconnectDelay)
			}

			fs := newFakeServer(t, func(w http.ResponseWriter, req *jsonrpc.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				sseWrite(w, "id: p-1\nretry: "+retry+"\ndata: \n\n")
			}, func(w http.ResponseWriter, r *http.Request, n int) {
				switch r.Header.Get("Last-Event-ID") {
				case "": // the standalone stream: offer none
					w.WriteHeader(http.StatusMethodNotAllowed)
				default:
					w.Header().Set("Content-Type", "text/event-stream")
					sseWrite(w, "id: p-2\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n\n")
				}
			})
			rs := &recordSleep{}
			c, _ := dial(t, &HTTPClient{URL: fs.URL, sleep: rs.sleep}, nil)
			if err := c.Call(callCtx(t), "tools/call", nil, nil); err != nil {
				t.Fatal(err)
			}
			if d := rs.get(); len(d) != 1 || d[0] <= 0 || d[0] > maxReconnectDelay {
				t.Fatalf("reconnection delays %v, want one within %v", d, maxReconnectDelay)
			}
		})
	}
}

// answerWith serves a bare JSON-RPC peer on the far end of a stream limited to max bytes
// per message, answering every request with result, and returns the near end's Conn.
func answerWith(t *testing.T, max int, result any) *jsonrpc.Conn {
	t.Helper()
	ar, bw := io.Pipe()
	br, aw := io.Pipe()
	peer := jsonrpc.NewConn(NewStream(br, bw, 0), jsonrpc.Options{Handler: jsonrpc.HandlerFunc(
		func(context.Context, *jsonrpc.Request) (any, error) { return result, nil })})
	c := jsonrpc.NewConn(NewStream(ar, aw, max), jsonrpc.Options{})
	t.Cleanup(func() { c.Close(); peer.Close() })
	return c
}

// TestOversizedResponseFailsTheCall: a response over the size limit is dropped, and the
// call waiting for it fails with a *MessageTooLargeError that gives both sizes, instead
// of waiting forever; the connection goes on.
func TestOversizedResponseFailsTheCall(t *testing.T) {
	for _, tt := range []struct {
		name   string
		result any
	}{
		// The id comes first, or last (as the TypeScript SDK writes it), after a result
		// holding "id" members of its own.
		{"string", strings.Repeat("x", 5000)},
		{"nested ids", map[string]any{"items": []map[string]any{{"id": 7, "x": strings.Repeat("y", 5000)}}, "id": "inner"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := answerWith(t, 1024, tt.result)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			err := c.Call(ctx, "tools/list", nil, nil)
			var tooLarge *MessageTooLargeError
			if !errors.As(err, &tooLarge) {
				t.Fatalf("call: %v, want a *MessageTooLargeError", err)
			}
			if tooLarge.Limit != 1024 || tooLarge.Size < 5000 || tooLarge.Size > 5200 {
				t.Errorf("error %+v, want a size of about 5000 and the limit 1024", tooLarge)
			}
			var call *jsonrpc.CallError
			if !errors.As(err, &call) || call.Method != "tools/list" {
				t.Errorf("error %v does not name the call", err)
			}
			// The connection goes on.
			if err := c.Call(ctx, "ping", nil, nil); !errors.As(err, &tooLarge) {
				t.Errorf("second call: %v", err)
			}
			if c.Err() != nil {
				t.Errorf("the connection ended: %v", c.Err())
			}
		})
	}
}

// TestSkimmer: what a dropped frame tells of itself, whatever the order of its members
// and whatever "id" members its params or result hold.
func TestSkimmer(t *testing.T) {
	big := strings.Repeat("x", 300)
	for _, tt := range []struct {
		frame    string
		id       string // "" for none
		response bool
	}{
		{`{"jsonrpc":"2.0","id":7,"result":{"id":1,"s":"` + big + `"}}`, "7", true},
		{`{"result":{"items":[{"id":1},{"id":"x"}],"s":"` + big + `"},"jsonrpc":"2.0","id":"ab\"c"}`, `ab"c`, true},
		{` { "error" : {"code":-1,"message":"m"} , "id" : 12 , "jsonrpc":"2.0"} `, "12", true},
		{`{"jsonrpc":"2.0","id":"r1","method":"tools/call","params":{"id":"no","s":"` + big + `"}}`, "r1", false},
		{`{"jsonrpc":"2.0","method":"notifications/progress","params":{"s":"` + big + `"}}`, "", false},
		{`{"jsonrpc":"2.0","id":"` + big + `","result":{}}`, "", true},           // an id too long to keep
		{`{"jsonrpc":"2.0","id":7,"result":{}}{"id":8}`, "", false},              // two objects
		{`[{"jsonrpc":"2.0","id":7,"result":{}}]`, "", false},                    // a batch
		{`{"jsonrpc":"2.0","id":7,"result":{"s":"` + big + `"`, "", false},       // cut short
		{`{"jsonrpc":"2.0","id":7,"method":"m","result":{}}`, "", false},         // both
		{`{"jsonrpc":"2.0","id":7,"result":"a \" } , \"id\": 9 \\"}`, "7", true}, // braces in a string
		{`{"jsonrpc":"2.0","result":{},"id":null}`, "", true},                    // a null id
		{`{"jsonrpc":"2.0","result":{},"idx":3,"i":4}`, "", true},                // names like id
		{`{"jsonrpc":"2.0","averyveryverylongnameindeed":1,"id":5,"result":1}`, "5", true},
	} {
		k := &skimmer{}
		// In pieces, as a stream gives it.
		for i := 0; i < len(tt.frame); i += 7 {
			k.write([]byte(tt.frame[i:min(i+7, len(tt.frame))]))
		}
		k.write([]byte("\r\n"))
		de := k.decodeError(100)
		id := ""
		if de.ID.IsValid() {
			id = fmt.Sprint(de.ID.Raw())
		}
		if id != tt.id || (tt.id != "" && de.Response != tt.response) {
			t.Errorf("%.60s…: id %q, response %v; want %q, %v", tt.frame, id, de.Response, tt.id, tt.response)
		}
		var tooLarge *MessageTooLargeError
		if !errors.As(de, &tooLarge) || tooLarge.Size != int64(len(tt.frame)) || tooLarge.Limit != 100 {
			t.Errorf("%.60s…: cause %v, want the size %d", tt.frame, de.Cause, len(tt.frame))
		}
	}
}

// TestHTTPOversizedResponseFailsTheCall: over Streamable HTTP too, a response over the
// size limit fails its call with a *MessageTooLargeError, as a JSON body or as an SSE
// event (then whatever the order of its members).
func TestHTTPOversizedResponseFailsTheCall(t *testing.T) {
	big := strings.Repeat("x", 5000)
	for _, tt := range []struct {
		name string
		post func(w http.ResponseWriter, req *jsonrpc.Request)
		size int64
	}{
		{"json", func(w http.ResponseWriter, req *jsonrpc.Request) {
			body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"s":"%s"}}`, req.ID, big)
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", fmt.Sprint(len(body)))
			io.WriteString(w, body)
		}, 5042},
		{"sse", func(w http.ResponseWriter, req *jsonrpc.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			sseWrite(w, fmt.Sprintf("id: e1\nevent: message\ndata: {\"result\":{\"id\":1,\"s\":\"%s\"},\"jsonrpc\":\"2.0\",\"id\":%s}\n\n", big, req.ID))
			// The stream stays open: the call must not wait for its end.
			time.Sleep(time.Second)
		}, 5049},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fs := newFakeServer(t, tt.post, func(w http.ResponseWriter, r *http.Request, n int) {
				w.WriteHeader(http.StatusMethodNotAllowed)
			})
			c, _ := dial(t, &HTTPClient{URL: fs.URL, MaxMessageSize: 1024}, nil)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			start := time.Now()
			err := c.Call(ctx, "tools/list", nil, nil)
			if took := time.Since(start); took > 900*time.Millisecond {
				t.Errorf("the call took %s to fail", took)
			}
			var tooLarge *MessageTooLargeError
			if !errors.As(err, &tooLarge) || tooLarge.Size != tt.size || tooLarge.Limit != 1024 {
				t.Fatalf("call: %v (%+v), want a *MessageTooLargeError of %d bytes", err, tooLarge, tt.size)
			}
		})
	}
}

// TestCommandLongStderrLine: a stderr line of any length is read (a line over 1 MiB once
// stopped the reading, and the server then blocked on its next write), and kept cut
// short, with its length, in the log and in the tail an *ExitError quotes.
func TestCommandLongStderrLine(t *testing.T) {
	var logs cmdLogBuffer
	c := cmdHelper(t, "long-stderr")
	c.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	conn := jsonrpc.NewConn(cmdConnect(t, c), jsonrpc.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), cmdFailsafe)
	defer cancel()
	if err := conn.Call(ctx, "ping", nil, nil); err != nil {
		t.Fatalf("a server that wrote long stderr lines: %v", err)
	}
	conn.Close()
	if l := logs.String(); !strings.Contains(l, "line 999 ") || len(l) > 2<<20 {
		t.Errorf("the log (%d bytes) lacks the lines after the long one, or holds it whole", len(l))
	}

	conn = jsonrpc.NewConn(cmdConnect(t, cmdHelper(t, "long-stderr-exit3")), jsonrpc.Options{})
	err := conn.Call(ctx, "ping", nil, nil)
	var exit *ExitError
	if !errors.As(err, &exit) || len(exit.Stderr) != 3 {
		t.Fatalf("call: %v, want an *ExitError quoting three lines", err)
	}
	if want := "line 999 " + strings.Repeat("x", 1000); exit.Stderr[0] != want {
		t.Errorf("first line quoted: %.40q…, want %.40q…", exit.Stderr[0], want)
	}
	if exit.Stderr[1] != "short" {
		t.Errorf("second line quoted: %q", exit.Stderr[1])
	}
	long := exit.Stderr[2]
	if !strings.HasPrefix(long, "bbbb") || !strings.HasSuffix(long, "… (2097152 bytes)") || len(long) > 1100 {
		t.Errorf("the long line is quoted as %d bytes: %.20q…%q", len(long), long, long[max(len(long)-30, 0):])
	}
}

func TestReadLines(t *testing.T) {
	for in, want := range map[string][]string{
		"":                                  nil,
		"a\nb\r\n\nc":                       {"a", "b", "", "c"},
		"12345678\n123456789\r\n1234567890": {"12345678", "12345678… (9 bytes)", "12345678… (10 bytes)"},
		"12345678\r\n":                      {"12345678"},
		"ééééé\n":                           {"éééé… (10 bytes)"},
		"aéééé\n":                           {"aééé… (9 bytes)"}, // cut inside a rune: its half is dropped
		strings.Repeat("z", 10000) + "\nok": {"zzzzzzzz… (10000 bytes)", "ok"},
	} {
		var got []string
		readLines(iotest.OneByteReader(strings.NewReader(in)), 8, func(s string) { got = append(got, s) })
		if !slices.Equal(got, want) {
			t.Errorf("%.20q: %q, want %q", in, got, want)
		}
	}
}
