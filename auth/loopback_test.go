package auth

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Closing the listener as soon as Authorize returns still answers the browser's
// request with its page: the callback is not cut off mid-answer.
func TestLoopbackCloseAnswersTheCallback(t *testing.T) {
	for range 20 {
		pages := make(chan string, 1)
		l := &Loopback{Open: func(ctx context.Context, authURL string) error {
			go func() {
				resp, err := http.Get(authURL)
				if err != nil {
					pages <- "error: " + err.Error()
					return
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				pages <- string(b)
			}()
			return nil
		}}
		u, err := l.RedirectURL(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		got, err := l.Authorize(t.Context(), u+"?code=c&state=s")
		if err != nil || got.Get("code") != "c" {
			t.Fatalf("Authorize = %v, %v", got, err)
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		if p := <-pages; !strings.Contains(p, "You may close this window") {
			t.Fatalf("the browser got %q", p)
		}
	}
}

// get GETs u and returns the status and the page.
func get(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Error(err)
		return 0, ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// A request to the redirect URL with another state than the login's, or none, is
// answered with an error page and ignored: the login goes on waiting for its own.
// The page of its own says how the login ended, with the reason escaped.
func TestLoopbackIgnoresOtherStates(t *testing.T) {
	pages := make(chan string, 1)
	l := &Loopback{}
	u, err := l.RedirectURL(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	l.Open = func(ctx context.Context, authURL string) error {
		go func() {
			for _, q := range []string{"?code=x&state=forged", "?code=x", "?error=access_denied"} {
				if st, p := get(t, u+q); st != http.StatusBadRequest || !strings.Contains(p, "ignored") {
					t.Errorf("%s: HTTP %d %q; want 400 and an error page", q, st, p)
				}
			}
			_, p := get(t, u+"?code=c&state=s")
			pages <- p
		}()
		return nil
	}
	got, err := l.Authorize(t.Context(), "http://as.example/authorize?state=s")
	if err != nil || got.Get("code") != "c" {
		t.Fatalf("Authorize = %v, %v", got, err)
	}
	l.Report(errors.New(`the authorization server answered <script>alert(1)</script>`))
	if p := <-pages; !strings.Contains(p, "The login failed") || strings.Contains(p, "<script>") || !strings.Contains(p, "&lt;script&gt;") {
		t.Fatalf("the page of a failed login: %q", p)
	}
}

// A login whose redirect URL gets many requests with another state ends, rather than
// waits its whole time.
func TestLoopbackBoundsStrayRequests(t *testing.T) {
	l := &Loopback{}
	u, err := l.RedirectURL(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	l.Open = func(ctx context.Context, authURL string) error {
		go func() {
			for range maxStrayResponses {
				get(t, u+"?code=x&state=forged")
			}
		}()
		return nil
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if _, err := l.Authorize(ctx, "http://as.example/authorize?state=s"); !errors.Is(err, ErrStateMismatch) {
		t.Fatalf("Authorize: %v; want ErrStateMismatch", err)
	}
}

// The page of a login that succeeded says so.
func TestLoopbackPageOfSuccess(t *testing.T) {
	pages := make(chan string, 1)
	l := &Loopback{}
	u, err := l.RedirectURL(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	l.Open = func(ctx context.Context, authURL string) error {
		go func() { _, p := get(t, u+"?code=c&state=s"); pages <- p }()
		return nil
	}
	if _, err := l.Authorize(t.Context(), "http://as.example/authorize?state=s"); err != nil {
		t.Fatal(err)
	}
	l.Report(nil)
	if p := <-pages; !strings.Contains(p, "You are logged in") {
		t.Fatalf("the page of a login that succeeded: %q", p)
	}
}
