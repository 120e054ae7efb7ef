package transport

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/mcpi-dev/mcpi/jsonrpc"
)

// headerAuth is an Authorizer that adds a fixed Authorization header, or fails every
// request with err, or wraps a base that fails.
type headerAuth struct {
	value   string
	err     error
	wrapped atomic.Int32
}

func (a *headerAuth) Wrap(base http.RoundTripper) http.RoundTripper {
	a.wrapped.Add(1)
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if a.err != nil {
			// What a flow does that cannot reach its authorization server: an error
			// that holds a dial error, which is not the MCP server's unreachability.
			return nil, a.err
		}
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", a.value)
		return base.RoundTrip(r)
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestHTTPClientAuth: the Authorizer wraps the connection's round tripper, whether the
// connection made its client or was given one; an error of its own comes out of Write
// as it is (not as ErrUnreachable, though it holds a dial error), and the base's errors
// as they would without it.
func TestHTTPClientAuth(t *testing.T) {
	var got atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Store(r.Header.Get("Authorization"))
		w.WriteHeader(http.StatusAccepted)
	}))
	defer srv.Close()
	note := &jsonrpc.Request{Method: "notifications/initialized"}
	for _, client := range []*http.Client{nil, {}} {
		a := &headerAuth{value: "Bearer t1"}
		conn, err := (&HTTPClient{URL: srv.URL, Auth: a, Client: client}).Connect(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if err := conn.Write(callCtx(t), note); err != nil {
			t.Fatal(err)
		}
		if got.Load() != "Bearer t1" || a.wrapped.Load() != 1 {
			t.Errorf("the server saw %q (wrapped %d times)", got.Load(), a.wrapped.Load())
		}
		conn.Close()
	}

	flowErr := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("no route to the authorization server")}
	wrapped := errors.Join(errors.New("fetching the authorization server metadata"), flowErr)
	conn, _ := (&HTTPClient{URL: srv.URL, Auth: &headerAuth{err: wrapped}}).Connect(context.Background())
	defer conn.Close()
	err := conn.Write(callCtx(t), &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "initialize"})
	if errors.Is(err, ErrUnreachable) || err == nil || err.Error() != wrapped.Error() {
		t.Fatalf("Write: %v, want the Authorizer's error as it is", err)
	}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String() + "/mcp"
	l.Close()
	conn, _ = (&HTTPClient{URL: url, Auth: &headerAuth{value: "Bearer t1"}}).Connect(context.Background())
	defer conn.Close()
	if err := conn.Write(callCtx(t), &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "initialize"}); !errors.Is(err, ErrUnreachable) {
		t.Fatalf("Write to nothing through the Authorizer: %v, want ErrUnreachable", err)
	}
}
