package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/iostreams"
	webcmd "github.com/mcpi-dev/mcpi/internal/cli/web"
)

// An address beyond loopback needs --allow-remote, and then comes with a warning; a
// malformed one is refused in one sentence.
func TestListenAddress(t *testing.T) {
	for _, c := range []struct {
		listen string
		allow  bool
		want   string
	}{
		{"0.0.0.0:0", false, "--listen 0.0.0.0:0 is not a loopback address: anyone who reaches the page with its token can start processes here; add --allow-remote if you mean it"},
		{"192.0.2.1:7000", false, "--listen 192.0.2.1:7000 is not a loopback address"},
		{"7000", false, "--listen 7000: give HOST:PORT, such as 127.0.0.1:7000"},
	} {
		ios, _, _, _ := iostreams.Test()
		err := webcmd.Run(t.Context(), &webcmd.Options{IO: ios, Sel: &connect.Selection{}, Listen: c.listen, AllowRemote: c.allow, NoOpen: true})
		msg, code := cmdutil.Describe(err)
		if !strings.HasPrefix(msg, c.want) || code != 2 {
			t.Errorf("--listen %s: %q (exit %d), want %q (exit 2)", c.listen, msg, code, c.want)
		}
	}

	// Allowed: served, with a warning on stderr, and the URL on stdout.
	ios, _, out, errOut := iostreams.Test()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- webcmd.Run(ctx, &webcmd.Options{IO: ios, Sel: &connect.Selection{}, Listen: "0.0.0.0:0", AllowRemote: true, NoOpen: true,
			Ready: func(u string) { ready <- u }})
	}()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("Run: %v", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "mcpi web: http://") || !strings.Contains(out.String(), "?token=") || strings.Count(out.String(), "\n") != 1 {
		t.Errorf("stdout %q", out)
	}
	if !strings.Contains(errOut.String(), "warning: serving the web inspector on [::]:") && !strings.Contains(errOut.String(), "warning: serving the web inspector on 0.0.0.0:") {
		t.Errorf("stderr %q lacks the warning", errOut)
	}
}
