package transport

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/mcpi-dev/mcpi/jsonrpc"
)

// secretURL is the URL of srv (host:port) with a password and a query token, as a
// library user names a server that takes its key there; shown is how the transport's
// errors name it.
func secretURL(host string) (raw, shown string) {
	return "http://user:hunter2@" + host + "/mcp?token=tok123&v=1",
		"http://user:xxxxx@" + host + "/mcp?token=xxxxx&v=xxxxx"
}

// checkNoSecret fails t if err's message holds the password or the token.
func checkNoSecret(t *testing.T, err error) {
	t.Helper()
	if s := err.Error(); strings.Contains(s, "hunter2") || strings.Contains(s, "tok123") {
		t.Errorf("the error %q holds the URL's password or token", s)
	}
}

// TestHTTPClientErrorsRedactURL: every error the HTTP client builds names the server's
// URL with its password and the values of its query as xxxxx, since a library user logs
// err.Error(); the error types and what errors.Is and errors.As find stay as they were.
func TestHTTPClientErrorsRedactURL(t *testing.T) {
	write := func(t *testing.T, raw string) error {
		t.Helper()
		conn, err := (&HTTPClient{URL: raw}).Connect(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		return conn.Write(callCtx(t), &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "initialize"})
	}

	t.Run("refused", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		raw, shown := secretURL(l.Addr().String())
		l.Close()
		err = write(t, raw)
		if !errors.Is(err, ErrUnreachable) {
			t.Fatalf("Write: %v, want ErrUnreachable", err)
		}
		if want := "server unreachable: cannot connect to " + shown + ": dial tcp "; !strings.HasPrefix(err.Error(), want) {
			t.Errorf("error %q, want it to start with %q", err, want)
		}
		checkNoSecret(t, err)
	})

	t.Run("HTTP 500", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "boom", http.StatusInternalServerError)
		}))
		defer srv.Close()
		raw, shown := secretURL(srv.Listener.Addr().String())
		err := write(t, raw)
		var herr *HTTPError
		if !errors.As(err, &herr) || herr.StatusCode != 500 {
			t.Fatalf("Write: %v, want an *HTTPError of status 500", err)
		}
		if want := "HTTP 500 from " + shown + ": boom"; err.Error() != want {
			t.Errorf("error %q, want %q", err, want)
		}
		if herr.URL != shown {
			t.Errorf("HTTPError.URL %q, want %q", herr.URL, shown)
		}
	})

	t.Run("no answer", func(t *testing.T) {
		// The server closes the connection without answering: net/http's *url.Error
		// quotes the request's URL, its password as *** but its query in full.
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			c, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				c.Close()
			}
		}))
		defer srv.Close()
		raw, shown := secretURL(srv.Listener.Addr().String())
		err := write(t, raw)
		var ue *url.Error
		if !errors.As(err, &ue) {
			t.Fatalf("Write: %v, want a *url.Error", err)
		}
		if ue.URL != shown {
			t.Errorf("url.Error.URL %q, want %q", ue.URL, shown)
		}
		if want := "Post \"" + shown + "\": EOF"; err.Error() != want {
			t.Errorf("error %q, want %q", err, want)
		}
	})

	t.Run("wrong Content-Type", func(t *testing.T) {
		// The POST's stream ends before its answer, and the GET that resumes it is
		// answered with text/plain.
		fs := plainTextResumeServer(t)
		raw, shown := secretURL(fs.Listener.Addr().String())
		rs := &recordSleep{}
		c, _ := dial(t, &HTTPClient{URL: raw, MaxReconnects: 1, sleep: rs.sleep}, nil)
		err := c.Call(callCtx(t), "tools/call", nil, nil)
		if err == nil {
			t.Fatal("the call succeeded")
		}
		if want := "the event stream ended before the response and 1 attempt to resume it failed: GET " + shown + " answered Content-Type \"text/plain\", not text/event-stream"; !strings.Contains(err.Error(), want) {
			t.Errorf("error %q, want it to hold %q", err, want)
		}
		checkNoSecret(t, err)
	})

	t.Run("invalid JSON", func(t *testing.T) {
		fs := newFakeServer(t, func(w http.ResponseWriter, req *jsonrpc.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte("[{"))
		}, func(w http.ResponseWriter, r *http.Request, n int) {
			w.WriteHeader(http.StatusMethodNotAllowed)
		})
		raw, shown := secretURL(fs.Listener.Addr().String())
		c, _ := dial(t, &HTTPClient{URL: raw}, nil)
		err := c.Call(callCtx(t), "tools/call", nil, nil)
		if want := "the response from " + shown + " is not valid JSON: "; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want it to hold %q", err, want)
		}
		checkNoSecret(t, err)
	})

	t.Run("invalid URL", func(t *testing.T) {
		_, err := (&HTTPClient{URL: "http://user:hunter2@host/%zz?token=tok123"}).Connect(context.Background())
		if err == nil {
			t.Fatal("Connect succeeded")
		}
		if want := `invalid server URL "http://user:xxxxx@host/%zz?token=xxxxx": `; !strings.HasPrefix(err.Error(), want) {
			t.Errorf("error %q, want it to start with %q", err, want)
		}
		checkNoSecret(t, err)
		_, err = (&HTTPClient{URL: "ftp://user:hunter2@host/?token=tok123"}).Connect(context.Background())
		if want := `invalid server URL "ftp://user:xxxxx@host/?token=xxxxx": want http:// or https:// and a host`; err == nil || err.Error() != want {
			t.Errorf("error %v, want %q", err, want)
		}
	})

	t.Run("redirect", func(t *testing.T) {
		// The Location keeps its query for a caller that chooses to follow it; the
		// message hides both URLs' secrets.
		other := "http://other.example/mcp?token=tok123"
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other, http.StatusTemporaryRedirect)
		}))
		defer srv.Close()
		raw, shown := secretURL(srv.Listener.Addr().String())
		err := write(t, raw)
		var redirect *RedirectError
		if !errors.As(err, &redirect) || redirect.Location != other {
			t.Fatalf("Write: %v, want a *RedirectError to %s", err, other)
		}
		if want := shown + " redirected to http://other.example/mcp?token=xxxxx, another origin, which is not followed"; err.Error() != want {
			t.Errorf("error %q, want %q", err, want)
		}
	})
}

// plainTextResumeServer ends each POST's stream before its answer, offers no standalone
// stream, and answers the GET that resumes a stream with text/plain.
func plainTextResumeServer(t *testing.T) *fakeServer {
	return newFakeServer(t, func(w http.ResponseWriter, req *jsonrpc.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		sseWrite(w, "id: p-1\ndata: \n\n")
	}, func(w http.ResponseWriter, r *http.Request, n int) {
		if r.Header.Get("Last-Event-ID") == "" {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write([]byte("hello"))
	})
}

// TestHTTPClientLogsRedactURL: the HTTP client's log records name the server's URL as
// its errors do, its password and the values of its query as xxxxx: a Debug record of
// the standalone stream the server does not offer, of a resumption that failed, and
// the Warn of the request it failed.
func TestHTTPClientLogsRedactURL(t *testing.T) {
	fs := plainTextResumeServer(t)
	raw, shown := secretURL(fs.Listener.Addr().String())
	var logs cmdLogBuffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	rs := &recordSleep{}
	c, conn := dial(t, &HTTPClient{URL: raw, MaxReconnects: 1, sleep: rs.sleep, Logger: logger}, nil)
	if err := c.Call(callCtx(t), "tools/call", nil, nil); err == nil {
		t.Fatal("the call succeeded")
	}
	conn.Close() // the standalone stream's goroutine has logged by then
	got := logs.String()
	for _, want := range []string{
		`msg="the server offers no standalone event stream" error="HTTP 405 from ` + shown,
		`msg="resuming an event stream failed" error="GET ` + shown + ` answered Content-Type \"text/plain\"`,
		`msg="request failed in transport" id=2 reason="the event stream ended before the response and 1 attempt to resume it failed: GET ` + shown,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the log does not hold %s:\n%s", want, got)
		}
	}
	if strings.Contains(got, "hunter2") || strings.Contains(got, "tok123") {
		t.Errorf("the log holds the URL's password or token:\n%s", got)
	}
}
