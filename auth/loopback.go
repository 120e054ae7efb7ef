package auth

import (
	"context"
	"errors"
	"fmt"
	"html"
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
	waiting *authorization // set while Authorize waits for the response
	handed  *authorization // the one whose response went to the flow, until Report
	closing chan struct{}  // closed by Close
	closed  bool
}

// authorization is one Authorize's wait for its response.
type authorization struct {
	state   string          // the request's, which the response must carry; "" means any
	answer  chan url.Values // the response with the request's state
	stray   chan struct{}   // closed once too many responses carried another state
	verdict chan error      // the flow's outcome, for the page (see Report)
	strays  int             // responses with another state, or none
}

// maxStrayResponses bounds how many requests with another state (or none) a login
// answers with an error page and ignores: a page in the browser that keeps sending
// them must not hold the login for the whole of its time.
const maxStrayResponses = 10

// verdictWait bounds how long the page of the callback waits for the flow's outcome
// (the code exchanged for a token) before it sends the user to the terminal.
const verdictWait = 30 * time.Second

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
	l.closing = make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+path, l.callback)
	l.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = l.srv.Serve(ln) }()
	return l.url, nil
}

// callback receives the authorization response and hands it to the waiting Authorize,
// when it carries the request's state; one with another state (or none) is not the
// login's, and is answered with an error page and ignored. The page of the response
// handed over says how the login ended, once the flow has checked the response and
// exchanged its code (see Report).
func (l *Loopback) callback(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	l.mu.Lock()
	a := l.waiting
	stray := a != nil && a.state != "" && q.Get("state") != a.state
	if stray {
		a.strays++
		if a.strays == maxStrayResponses {
			close(a.stray)
		}
	}
	closing := l.closing
	l.mu.Unlock()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	switch {
	case a == nil:
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, page("No login is waiting for this answer; start it again from mcpi."))
		return
	case stray:
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, page("This answer does not belong to the login mcpi is waiting for (its state differs), so it is ignored."))
		return
	}
	select {
	case a.answer <- q:
	default:
		w.WriteHeader(http.StatusConflict)
		fmt.Fprint(w, page("mcpi has an answer already; this one is ignored."))
		return
	}
	t := time.NewTimer(verdictWait)
	defer t.Stop()
	select {
	case err := <-a.verdict:
		verdictPage(w, err)
	case <-closing:
		select {
		case err := <-a.verdict: // reported just before the close
			verdictPage(w, err)
		default:
			fmt.Fprint(w, page(noVerdict))
		}
	case <-t.C:
		fmt.Fprint(w, page(noVerdict))
	case <-r.Context().Done():
	}
}

// noVerdict is the page of a response whose outcome did not come in time.
const noVerdict = "mcpi received the answer of the authorization server; the terminal where it runs says whether the login succeeded. You may close this window."

// verdictPage writes the page that says how the login ended; err's text, which may
// quote the authorization server, is escaped.
func verdictPage(w http.ResponseWriter, err error) {
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, page("The login failed: "+html.EscapeString(err.Error())+". The terminal where mcpi runs says more. You may close this window."))
		return
	}
	fmt.Fprint(w, page("You are logged in: mcpi received its token. You may close this window."))
}

func page(msg string) string {
	return "<!doctype html><meta charset=utf-8><title>mcpi</title><p>" + msg + "</p>\n"
}

// Authorize opens authURL with Open and waits for the authorization response: the
// first that carries the state of authURL.
func (l *Loopback) Authorize(ctx context.Context, authURL string) (url.Values, error) {
	if l.Open == nil {
		return nil, errors.New("the loopback browser has no Open")
	}
	a := &authorization{answer: make(chan url.Values, 1), stray: make(chan struct{}), verdict: make(chan error, 1)}
	if u, err := url.Parse(authURL); err == nil {
		a.state = u.Query().Get("state")
	}
	l.mu.Lock()
	if l.srv == nil || l.closed {
		l.mu.Unlock()
		return nil, errors.New("the loopback redirect listener is not listening (call RedirectURL first)")
	}
	l.waiting = a
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
		case v := <-a.answer:
			l.mu.Lock()
			l.handed = a
			l.mu.Unlock()
			return v, nil
		case <-a.stray:
			return nil, fmt.Errorf("%w: %d requests to the redirect URL carried another state, or none", ErrStateMismatch, maxStrayResponses)
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

// Report implements [Reporter]: the page of the response Authorize returned last says
// how the login ended.
func (l *Loopback) Report(err error) {
	l.mu.Lock()
	a := l.handed
	l.handed = nil
	l.mu.Unlock()
	if a != nil {
		select {
		case a.verdict <- err:
		default:
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
	if !l.closed && l.closing != nil {
		close(l.closing)
	}
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
