package root

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zalando/go-keyring"

	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/internal/cli/auth/status"
	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/internal/clitest"
	"github.com/mcpi-dev/mcpi/internal/cli/iostreams"
	"github.com/mcpi-dev/mcpi/internal/cli/state"
	"github.com/mcpi-dev/mcpi/internal/oauthtest"
	"github.com/mcpi-dev/mcpi/mcp"
)

// protectedDemo is the demo server (of one era, or both) behind OAuth: every request
// needs a token with scope mcp:read, issued for it by its own authorization server.
func protectedDemo(t *testing.T, legacy bool) *oauthtest.Protected {
	t.Helper()
	srv := demo.New(&demo.Options{SideEffectDir: t.TempDir(), Legacy: legacy})
	t.Cleanup(srv.Close)
	return oauthtest.Protect(t, srv.HTTPHandler(nil), func(p *oauthtest.Protected) {
		p.AS.ScopesSupported = []string{"mcp:read", "offline_access"}
		p.Guard.ScopesSupported = []string{"mcp:read"}
		p.Guard.Required = func(string) []string { return []string{"mcp:read"} }
	})
}

// follow plays the user in the browser: it opens the authorization URL, whose
// authorization server approves at once and redirects to mcpi's loopback listener.
func follow(u string) error {
	resp, err := http.Get(u)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %d at %s", resp.StatusCode, resp.Request.URL)
	}
	return nil
}

// cli runs mcpi in-process with browser in place of the system browser, on a terminal
// (stdin and stderr) when tty is set.
func cli(t *testing.T, tty bool, browser func(string) error, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	ios.SetStdinTTY(tty)
	ios.SetStderrTTY(tty)
	code = mainWith(clitest.Context(t), ios, args, "test", func(f *cmdutil.Factory, _ *connect.Selection) { f.Browser = browser })
	return out.String(), errOut.String(), code
}

// The CLI against an OAuth-protected demo server, in both eras: the first command
// logs in through the browser and the loopback redirect, the next one uses the stored
// token without the user, status shows the login (never the token), logout forgets it,
// and the tokens rest in a file of mode 0600.
func TestAuthCLI(t *testing.T) {
	for _, era := range []struct {
		name    string
		legacy  bool
		version string
	}{
		{"2025-11-25", true, mcp.LatestProtocolVersion},
		{"2026-07-28", false, mcp.ProtocolVersion20260728},
	} {
		t.Run(era.name, func(t *testing.T) {
			dir := clitest.StateDir(t)
			p := protectedDemo(t, era.legacy)
			var opened atomic.Int32
			browser := func(u string) error {
				opened.Add(1)
				return follow(u)
			}

			out, errOut, code := cli(t, true, browser, "--url", p.URL, "ping", "--json")
			if code != 0 || opened.Load() != 1 {
				t.Fatalf("first command: exit %d, browser opened %d times\n%s%s", code, opened.Load(), out, errOut)
			}
			var pong struct{ ProtocolVersion string }
			if err := json.Unmarshal([]byte(out), &pong); err != nil || pong.ProtocolVersion != era.version {
				t.Errorf("protocol %q, want %s (%v)", pong.ProtocolVersion, era.version, err)
			}
			if !strings.HasPrefix(errOut, "mcpi: "+p.URL+" wants you to log in: opening the browser; waiting for the login (if no browser opens, open "+p.AS.URL+"/authorize?") ||
				strings.Count(errOut, "\n") != 1 {
				t.Errorf("stderr of the login:\n%s", errOut)
			}

			// The token is stored: the next command needs no login.
			out, errOut, code = cli(t, true, browser, "--url", p.URL, "tools", "list")
			if code != 0 || opened.Load() != 1 || errOut != "" || !strings.Contains(out, "add") {
				t.Fatalf("second command: exit %d, browser opened %d times in all\n%s%s", code, opened.Load(), out, errOut)
			}
			files, _ := filepath.Glob(filepath.Join(dir, state.TokensDirName, "*.json"))
			if len(files) != 1 {
				t.Fatalf("token files: %v", files)
			}
			if fi, err := os.Stat(files[0]); err != nil || fi.Mode().Perm() != 0o600 {
				t.Errorf("the token file's mode: %v, %v", fi, err)
			}

			// Status: one server, logged in, with its issuer and scopes; no token.
			out, _, code = cli(t, false, nil, "auth", "status", "--url", p.URL, "--json")
			var st status.Result
			if err := json.Unmarshal([]byte(out), &st); err != nil || code != 0 || len(st.Servers) != 1 {
				t.Fatalf("status --json: exit %d, %v\n%s", code, err, out)
			}
			e := st.Servers[0]
			if !e.LoggedIn || e.State != "logged in" || e.Server != p.URL || e.Issuer != p.AS.Issuer || strings.Join(e.Scopes, " ") != "mcp:read offline_access" ||
				e.Expiry == nil || !e.Refreshable || e.Client == nil || e.Client.Kind != "dynamic" {
				t.Errorf("status: %+v", e)
			}
			table, _, _ := cli(t, false, nil, "auth", "status")
			if !strings.Contains(table, p.URL) || !strings.Contains(table, "logged in") || !strings.Contains(table, "(refreshable)") {
				t.Errorf("status of every server:\n%s", table)
			}
			tokens, _ := os.ReadFile(files[0])
			for _, h := range p.Guard.Seen() {
				if tok, ok := strings.CutPrefix(h, "Bearer "); ok && (strings.Contains(out, tok) || strings.Contains(table, tok)) {
					t.Fatal("status shows the token")
				}
				if tok, ok := strings.CutPrefix(h, "Bearer "); ok && !strings.Contains(string(tokens), tok) {
					t.Error("the token file does not hold the token the server saw")
				}
			}

			// Logout forgets the login; the next command logs in again.
			out, _, code = cli(t, false, nil, "auth", "logout", "--url", p.URL)
			if code != 0 || out != "logged out of "+p.URL+"\n" {
				t.Errorf("logout: exit %d, %q", code, out)
			}
			if _, err := os.Stat(files[0]); !os.IsNotExist(err) {
				t.Errorf("the token file is still there: %v", err)
			}
			out, _, _ = cli(t, false, nil, "auth", "status", "--url", p.URL)
			if !strings.Contains(out, "not logged in") {
				t.Errorf("status after logout:\n%s", out)
			}
			if _, _, code := cli(t, true, browser, "--url", p.URL, "tools", "list"); code != 0 || opened.Load() != 2 {
				t.Errorf("after logout: exit %d, browser opened %d times in all, want 2", code, opened.Load())
			}
			// auth login logs in again, even with a token stored.
			out, _, code = cli(t, true, browser, "auth", "login", "--url", p.URL)
			if code != 0 || opened.Load() != 3 || !strings.HasPrefix(out, "logged in to "+p.URL+" (issuer "+p.AS.Issuer+"; scopes mcp:read offline_access; expires in ") {
				t.Errorf("auth login: exit %d, browser opened %d times in all\n%s", code, opened.Load(), out)
			}
		})
	}
}

// Without a terminal, a server that wants a login fails at once with the command that
// logs in, before a client is registered; --no-browser prints the URL on one line of
// stderr and waits for the user; a login nobody finishes ends with the URL to retry.
func TestAuthCLINoTerminal(t *testing.T) {
	clitest.StateDir(t)
	p := protectedDemo(t, false)
	never := func(string) error { t.Error("the browser was opened"); return nil }

	_, errOut, code := cli(t, false, never, "--url", p.URL, "tools", "list")
	want := `mcpi: the server at ` + p.URL + ` wants you to log in (OAuth), and mcpi is not on a terminal to open a browser: run "mcpi auth login --url ` + p.URL + `" on a terminal first, or add --no-browser`
	if code != 2 || !strings.HasPrefix(errOut, want) {
		t.Errorf("no terminal: exit %d\n%s", code, errOut)
	}
	if regs, _, _ := p.AS.Snapshot(); len(regs) != 0 {
		t.Errorf("%d clients registered for a login that could not happen", len(regs))
	}

	// --no-browser: the URL on one line of stderr; the user (the test) opens it.
	ios, _, out, _ := iostreams.Test()
	pr, pw := io.Pipe()
	ios.ErrOut = pw
	lines := make(chan string, 4)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	done := make(chan int, 1)
	go func() {
		done <- mainWith(clitest.Context(t), ios, []string{"--url", p.URL, "--no-browser", "tools", "list"}, "test", func(f *cmdutil.Factory, _ *connect.Selection) { f.Browser = never })
	}()
	line := <-lines
	m := regexp.MustCompile(`^mcpi: to log in to (\S+), open (\S+)$`).FindStringSubmatch(line)
	if m == nil || m[1] != p.URL {
		t.Fatalf("--no-browser printed %q", line)
	}
	if err := follow(m[2]); err != nil {
		t.Fatal(err)
	}
	if code := <-done; code != 0 || !strings.Contains(out.String(), "add") {
		t.Fatalf("--no-browser: exit %d\n%s", code, out)
	}
	pw.Close()
	if rest, ok := <-lines; ok {
		t.Errorf("more on stderr: %q", rest)
	}

	// Scripts: a token of their own with --header (no flow runs), or the client
	// credentials grant of a pre-registered client.
	var token string
	for _, h := range p.Guard.Seen() {
		token = strings.TrimPrefix(h, "Bearer ")
	}
	if out, errOut, code := cli(t, false, never, "--url", p.URL, "--header", "Authorization=Bearer "+token, "--token-store", "keyring", "tools", "list"); code != 0 || !strings.Contains(out, "add") {
		t.Errorf("--header with a token: exit %d\n%s%s", code, out, errOut)
	}
	p.AS.Set(func(s *oauthtest.Server) { s.Clients = map[string]string{"ci-bot": "s3cret"} })
	_, _, _ = cli(t, false, nil, "auth", "logout", "--url", p.URL)
	if out, errOut, code := cli(t, false, never, "--url", p.URL, "--client-id", "ci-bot", "--client-secret", "s3cret", "--client-credentials", "tools", "list"); code != 0 || !strings.Contains(out, "add") {
		t.Errorf("--client-credentials: exit %d\n%s%s", code, out, errOut)
	}
	if _, _, tokens := p.AS.Snapshot(); tokens[len(tokens)-1].Get("grant_type") != "client_credentials" {
		t.Errorf("the last token request: %v", tokens[len(tokens)-1])
	}
	if _, errOut, code := cli(t, false, never, "--url", p.URL, "--client-secret", "s3cret", "tools", "list"); code != 2 || errOut != "mcpi: --client-secret needs --client-id\n" {
		t.Errorf("--client-secret alone: exit %d, %q", code, errOut)
	}

	// A login nobody finishes: the sentence with the page to retry, exit 2.
	_, _, _ = cli(t, false, nil, "auth", "logout", "--url", p.URL) // the client credentials' token
	ios, _, _, errBuf := iostreams.Test()
	ios.SetStdinTTY(true)
	ios.SetStderrTTY(true)
	code = mainWith(clitest.Context(t), ios, []string{"--url", p.URL, "tools", "list"}, "test", func(f *cmdutil.Factory, sel *connect.Selection) {
		f.Browser = func(string) error { return nil } // the user never comes back
		sel.Auth.AuthorizeTimeout = 300 * time.Millisecond
	})
	last := errBuf.String()[strings.LastIndex(strings.TrimSuffix(errBuf.String(), "\n"), "\n")+1:]
	if code != 2 || !regexp.MustCompile(`^mcpi: the login to \S+ was not finished within 300ms \(its page was http://\S+/authorize\?\S+\); run the command again to start a new one \(--no-browser prints its URL\)\n$`).MatchString(last) {
		t.Errorf("timeout: exit %d\n%s", code, errBuf)
	}
}

// "auth login" to a server with no OAuth (it answers without a token and publishes no
// protected resource metadata) says in one sentence that it needs no login, and succeeds:
// there is nothing to do. A failure to log in through metadata that is not there read
// as if the login were needed and broken, and without a terminal as if it were wanted.
func TestLoginToServerWithoutOAuth(t *testing.T) {
	url := serveDemoHTTP(t)
	want := "the server at " + url + " answers without a token and publishes no OAuth metadata: it needs no login, so there is nothing to do\n"
	for _, flags := range [][]string{nil, {"--no-browser"}} {
		stdout, stderr, code := run(t, t.TempDir(), append([]string{"auth", "login", "--url", url}, flags...)...)
		if code != 0 || stdout != want || stderr != "" {
			t.Errorf("auth login %v: exit %d, stdout %q, stderr %q\nwant exit 0, stdout %q", flags, code, stdout, stderr, want)
		}
	}
}

// A failure of "auth login" before the browser, and an interrupted one, are worded as
// the login's, not as a session's that could not start.
func TestLoginFailuresSpeakOfTheLogin(t *testing.T) {
	p := protectedDemo(t, false)
	p.Mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"resource": %q}`, p.URL)
	})
	_, stderr, code := run(t, t.TempDir(), "auth", "login", "--url", p.URL, "--no-browser")
	if want := "mcpi: cannot log in to " + p.URL + ": "; code == 0 || !strings.HasPrefix(stderr, want) {
		t.Errorf("exit %d, stderr %q; want it to start with %q", code, stderr, want)
	}

	q := protectedDemo(t, false)
	ios, _, _, errOut := iostreams.Test()
	ios.SetStdinTTY(true)
	ios.SetStderrTTY(true)
	ctx, cancel := context.WithCancelCause(clitest.Context(t))
	defer cancel(nil)
	code = mainWith(ctx, ios, []string{"auth", "login", "--url", q.URL}, "test", func(f *cmdutil.Factory, _ *connect.Selection) {
		f.Browser = func(string) error { cancel(errors.New("interrupt signal received")); return nil }
	})
	if want := "\nmcpi: the login to " + q.URL + " was interrupted"; code == 0 || !strings.Contains(errOut.String(), want) {
		t.Errorf("exit %d, stderr %q; want it to start with %q", code, errOut.String(), want)
	}
}

// A keyring that cannot be reached (no D-Bus session) matters only when a login or a
// stored token is needed: a server that wants no token is talked to as with any store,
// and one that wants a login fails on the keyring before the browser opens or a client
// is registered.
func TestUnreachableKeyringOnlyForALogin(t *testing.T) {
	clitest.StateDir(t)
	keyring.MockInitWithError(errors.New(`exec: "dbus-launch": executable file not found in $PATH`))
	t.Cleanup(func() { keyring.MockInit() })
	never := func(string) error { t.Error("the browser was opened"); return nil }

	open := serveDemoHTTP(t)
	if out, errOut, code := cli(t, true, never, "--url", open, "--token-store", "keyring", "ping"); code != 0 || errOut != "" {
		t.Errorf("a server that wants no token: exit %d\n%s%s", code, out, errOut)
	}

	p := protectedDemo(t, false)
	_, errOut, code := cli(t, true, never, "--url", p.URL, "--token-store", "keyring", "tools", "list")
	want := "mcpi: the OS keyring cannot be used (exec: \"dbus-launch\": executable file not found in $PATH); use --token-store file, the default\n"
	if code != 2 || errOut != want {
		t.Errorf("a server that wants a login: exit %d, stderr\n %q\nwant\n %q", code, errOut, want)
	}
	if regs, _, _ := p.AS.Snapshot(); len(regs) != 0 {
		t.Errorf("%d clients registered for a login whose tokens could not be kept", len(regs))
	}
}

// A mistyped token store is refused wherever the store is used, naming where the name
// came from: --token-store, or $MCPI_TOKEN_STORE (with --url too, where the flag was
// never given); "auth status" no longer says that no logins are kept.
func TestMistypedTokenStore(t *testing.T) {
	dir := t.TempDir()
	url := serveDemoHTTP(t)
	for _, c := range []struct {
		env  string
		args []string
		want string
	}{
		{"", []string{"auth", "status", "--token-store", "keyrng"}, `mcpi: --token-store "keyrng": give file or keyring` + "\n"},
		{"", []string{"--url", url, "--token-store", "bogus", "ping"}, `mcpi: --token-store "bogus": give file or keyring` + "\n"},
		{"keyrng", []string{"auth", "status"}, `mcpi: $MCPI_TOKEN_STORE is "keyrng": give file or keyring, or unset it` + "\n"},
		{"keyrng", []string{"--url", url, "ping"}, `mcpi: $MCPI_TOKEN_STORE is "keyrng": give file or keyring, or unset it` + "\n"},
		{"keyrng", []string{"--url", url, "--token-store", "file", "ping"}, ""},
	} {
		_, stderr, code := runEnv(t, dir, []string{"MCPI_TOKEN_STORE=" + c.env}, c.args...)
		if wantCode := map[bool]int{true: 0, false: 2}[c.want == ""]; code != wantCode || stderr != c.want {
			t.Errorf("MCPI_TOKEN_STORE=%s mcpi %s: exit %d, stderr %q; want %d, %q", c.env, strings.Join(c.args, " "), code, stderr, wantCode, c.want)
		}
	}
}

// "auth login" to a server that answers without a token but publishes OAuth metadata
// through which the login fails says both, without contradiction: commands work without
// a login, and the login it was asked for failed, and why. ("it needs no login; logging
// in anyway ... failed" read as if mcpi had tried something it should not have.)
func TestLoginToOpenServerWithMetadataFails(t *testing.T) {
	srv := demo.New(&demo.Options{SideEffectDir: t.TempDir()})
	t.Cleanup(srv.Close)
	mux := http.NewServeMux()
	mux.Handle("/mcp", srv.HTTPHandler(nil))
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	url := hs.URL + "/mcp"
	mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"resource": %q, "authorization_servers": [%q]}`, url, hs.URL+"/as")
	})
	_, stderr, code := run(t, t.TempDir(), "auth", "login", "--url", url, "--no-browser")
	want := "mcpi: the server at " + url + " answers without a token, so mcpi's commands work without a login; it publishes OAuth metadata, but the login through it failed: "
	if code != 2 || !strings.HasPrefix(stderr, want) || strings.Contains(stderr, "anyway") {
		t.Errorf("exit %d, stderr %q\nwant exit 2, a sentence that starts with %q", code, stderr, want)
	}
}

// The auth commands name a server whose URL carries a key in its query (or a password)
// with its values as xxxxx, as every sentence of mcpi does: login's line, status's table
// and --json, logout's line (they printed the URL whole, the key in it).
func TestAuthCommandsRedactURL(t *testing.T) {
	clitest.StateDir(t)
	p := protectedDemo(t, false)
	raw, shown := p.URL+"?key=sekrit", p.URL+"?key=xxxxx"
	noKey := func(what, s string) {
		t.Helper()
		if strings.Contains(s, "sekrit") {
			t.Errorf("%s names the key:\n%s", what, s)
		}
	}
	out, errOut, code := cli(t, true, follow, "auth", "login", "--url", raw)
	if code != 0 || !strings.HasPrefix(out, "logged in to "+shown+" (issuer "+p.AS.Issuer+"; ") {
		t.Errorf("auth login: exit %d\n%s%s", code, out, errOut)
	}
	noKey("auth login", out+errOut)

	out, _, code = cli(t, false, nil, "auth", "status", "--url", raw, "--json")
	var st status.Result
	if err := json.Unmarshal([]byte(out), &st); err != nil || code != 0 || len(st.Servers) != 1 || st.Servers[0].Server != shown || st.Servers[0].State != "logged in" {
		t.Errorf("status --url --json: exit %d, %v\n%s", code, err, out)
	}
	noKey("status --url --json", out)
	for _, args := range [][]string{{"auth", "status", "--url", raw}, {"auth", "status"}, {"auth", "status", "--json"}} {
		out, _, code = cli(t, false, nil, args...)
		if code != 0 || !strings.Contains(out, shown) {
			t.Errorf("%v: exit %d, want %s named\n%s", args, code, shown, out)
		}
		noKey(fmt.Sprint(args), out)
	}

	out, _, code = cli(t, false, nil, "auth", "logout", "--url", raw)
	if code != 0 || out != "logged out of "+shown+"\n" {
		t.Errorf("logout: exit %d, %q", code, out)
	}
	out, _, code = cli(t, false, nil, "auth", "logout", "--url", raw)
	if code != 0 || out != "not logged in to "+shown+"; nothing to forget\n" {
		t.Errorf("logout again: exit %d, %q", code, out)
	}
}
