package auth

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// Loopback is a [Browser] that receives the authorization response on a loopback
// address (RFC 8252 section 7.3): it listens on 127.0.0.1, on a port the system picks,
// from the first call of RedirectURL until Close. Open shows the user the authorization
// URL: a command line opens the system browser, or prints the URL; a test follows the
// redirects with an HTTP client.
type Loopback struct {
	// Open shows the user authURL. It may return at once (a browser opened) or when the
	// user is done (an HTTP client followed the redirects); an error ends the
	// authorization.
	Open func(ctx context.Context, authURL string) error
	// Addr is the address to listen on; "" means 127.0.0.1:0.
	Addr string
	// Path is the redirect URL's path; "" means /callback.
	Path string

	mu      sync.Mutex
	srv     *http.Server
	url     string
	waiting chan url.Values // set while Authorize waits for the response
	closed  bool
}

// RedirectURL starts listening, the first time, and returns the redirect URL.
func (l *Loopback) RedirectURL(context.Context) (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return "", errors.New("the loopback redirect listener is closed")
	}
	if l.srv != nil {
		return l.url, nil
	}
	addr := l.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("listening for the authorization response: %w", err)
	}
	path := l.Path
	if path == "" {
		path = "/callback"
	}
	l.url = "http://" + ln.Addr().String() + path
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+path, l.callback)
	l.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = l.srv.Serve(ln) }()
	return l.url, nil
}

// callback receives the authorization response and hands it to the waiting Authorize.
// The page it answers shows nothing of the response: its error is not to be believed
// until the flow has checked its issuer.
func (l *Loopback) callback(w http.ResponseWriter, r *http.Request) {
	l.mu.Lock()
	ch := l.waiting
	l.mu.Unlock()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if ch == nil {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, page("No authorization is waiting for this answer; start it again from mcpi."))
		return
	}
	select {
	case ch <- r.URL.Query():
		fmt.Fprint(w, page("mcpi received the answer of the authorization server. You may close this window."))
	default:
		w.WriteHeader(http.StatusConflict)
		fmt.Fprint(w, page("mcpi has an answer already; this one is ignored."))
	}
}

func page(msg string) string {
	return "<!doctype html><meta charset=utf-8><title>mcpi</title><p>" + msg + "</p>\n"
}

// Authorize opens authURL with Open and waits for the authorization response.
func (l *Loopback) Authorize(ctx context.Context, authURL string) (url.Values, error) {
	if l.Open == nil {
		return nil, errors.New("the loopback browser has no Open")
	}
	ch := make(chan url.Values, 1)
	l.mu.Lock()
	if l.srv == nil || l.closed {
		l.mu.Unlock()
		return nil, errors.New("the loopback redirect listener is not listening (call RedirectURL first)")
	}
	l.waiting = ch
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		l.waiting = nil
		l.mu.Unlock()
	}()
	opened := make(chan error, 1)
	go func() { opened <- l.Open(ctx, authURL) }()
	for {
		select {
		case v := <-ch:
			return v, nil
		case err := <-opened:
			if err != nil {
				return nil, fmt.Errorf("opening the authorization URL: %w", err)
			}
			opened = nil // opened; the answer is still to come
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	}
}

// closeGrace bounds how long Close waits for the page of a callback being answered.
const closeGrace = 2 * time.Second

// Close stops listening. A callback being answered gets its page (for up to two
// seconds): a caller that closes as soon as Authorize returns must not leave the user's
// browser with a broken connection.
func (l *Loopback) Close() error {
	l.mu.Lock()
	l.closed = true
	srv := l.srv
	l.mu.Unlock()
	if srv == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), closeGrace)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		return srv.Close()
	}
	return nil
}
