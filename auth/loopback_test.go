package auth

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
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
