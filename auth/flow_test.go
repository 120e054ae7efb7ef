package auth_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/auth"
	"github.com/mcpi-dev/mcpi/internal/look"
	"github.com/mcpi-dev/mcpi/internal/oauthtest"
)

// fixture is an MCP endpoint (answering "ok") behind bearer-token checking, its
// authorization server, and a flow for it whose browser follows the redirects.
type fixture struct {
	as     *oauthtest.Server
	guard  *oauthtest.Guard
	rs     *httptest.Server
	mux    *http.ServeMux // the resource server's, for extra routes
	url    string         // the MCP endpoint
	flow   *auth.Flow
	client *http.Client
	opened atomic.Int32 // authorization URLs opened
}

// setup starts the servers. Change the knobs of f.as and f.guard, then call f.start.
func setup(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{as: oauthtest.NewServer(t)}
	f.rs = httptest.NewUnstartedServer(nil)
	f.url = "http://" + f.rs.Listener.Addr().String() + "/mcp"
	as := f.as
	f.guard = &oauthtest.Guard{Resource: f.url, AS: func() *oauthtest.Server { return as }}
	f.mux = http.NewServeMux()
	return f
}

// start starts the resource server and makes the flow, with cfg changed by edit.
func (f *fixture) start(t *testing.T, edit func(*auth.Config)) {
	t.Helper()
	f.mux.Handle("/", f.guard.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		fmt.Fprint(w, "ok")
	})))
	f.rs.Config.Handler = f.mux
	f.rs.Start()
	t.Cleanup(f.rs.Close)
	browser := &auth.Loopback{Open: func(ctx context.Context, u string) error {
		f.opened.Add(1)
		return follow(ctx, u)
	}}
	t.Cleanup(func() { browser.Close() })
	cfg := &auth.Config{Browser: browser, ClientName: "auth-test", AuthorizeTimeout: 5 * time.Second}
	if edit != nil {
		edit(cfg)
		if l, ok := cfg.Browser.(*auth.Loopback); ok && l != browser {
			t.Cleanup(func() { l.Close() })
		}
	}
	var err error
	if f.flow, err = auth.New(f.url, cfg); err != nil {
		t.Fatal(err)
	}
	f.client = &http.Client{Transport: f.flow.Wrap(nil)}
}

// follow plays the user: it opens u and follows the redirects to the loopback.
func follow(ctx context.Context, u string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %d at %s", resp.StatusCode, resp.Request.URL)
	}
	return nil
}

// call POSTs a JSON-RPC-looking request of method to the MCP endpoint (path appended)
// and returns the body of the answer.
func (f *fixture) call(t *testing.T, method string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	return f.callCtx(t, ctx, method)
}

func (f *fixture) callCtx(t *testing.T, ctx context.Context, method string) (string, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, f.url, strings.NewReader(`{"method":"`+method+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := f.client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	return string(b), nil
}

func (f *fixture) mustCall(t *testing.T, method string) {
	t.Helper()
	if body, err := f.call(t, method); err != nil || body != "ok" {
		t.Fatalf("%s: %q, %v", method, body, err)
	}
}

// TestFlowAuthorizes: the first request's 401 runs discovery, Dynamic Client
// Registration and the authorization code grant with PKCE and the resource indicator;
// the request is sent again with the token, and the next ones carry it.
func TestFlowAuthorizes(t *testing.T) {
	f := setup(t)
	f.guard.ScopesSupported = []string{"mcp:read", "mcp:tools"}
	f.as.ScopesSupported = []string{"mcp:read", "mcp:tools", "offline_access"}
	f.start(t, nil)
	f.mustCall(t, "tools/list")
	f.mustCall(t, "tools/call")

	regs, auths, tokens := f.as.Snapshot()
	if len(regs) != 1 || len(auths) != 1 || len(tokens) != 1 {
		t.Fatalf("%d registrations, %d authorizations, %d token requests; want 1 each", len(regs), len(auths), len(tokens))
	}
	if regs[0]["application_type"] != "native" || regs[0]["client_name"] != "auth-test" || regs[0]["token_endpoint_auth_method"] != "none" {
		t.Errorf("registration %v", regs[0])
	}
	a := auths[0]
	if a.Get("resource") != f.url || a.Get("code_challenge_method") != "S256" || a.Get("state") == "" ||
		!strings.HasPrefix(a.Get("redirect_uri"), "http://127.0.0.1:") {
		t.Errorf("authorization request %v", a)
	}
	// The scopes of the protected resource metadata, and offline_access, which the
	// authorization server offers.
	if got := a.Get("scope"); got != "mcp:read mcp:tools offline_access" {
		t.Errorf("scope %q", got)
	}
	tr := tokens[0]
	if tr.Get("grant_type") != "authorization_code" || tr.Get("resource") != f.url || tr.Get("code_verifier") == "" || tr.Get("client_id") == "" {
		t.Errorf("token request %v", tr)
	}
	seen := f.guard.Seen()
	if len(seen) != 3 || seen[0] != "" || !strings.HasPrefix(seen[1], "Bearer at-") || seen[2] != seen[1] {
		t.Errorf("the server saw Authorization %q", seen)
	}
	rec, err := f.flow.Record(t.Context())
	if err != nil || rec == nil || rec.Issuer != f.as.Issuer || rec.Resource != f.url || rec.Client.Kind != auth.ClientDynamic {
		t.Errorf("Record = %+v, %v", rec, err)
	}
}

// TestFlowScopeFromChallenge: the scope of the 401's challenge goes first; with neither
// it nor scopes_supported, no scope is asked for.
func TestFlowScopeFromChallenge(t *testing.T) {
	f := setup(t)
	f.guard.ScopesSupported = []string{"mcp:everything"}
	f.guard.Required = func(string) []string { return []string{"files:read"} }
	f.start(t, nil)
	f.mustCall(t, "tools/list")
	if _, auths, _ := f.as.Snapshot(); auths[0].Get("scope") != "files:read" {
		t.Errorf("scope %q, want the challenge's", auths[0].Get("scope"))
	}

	g := setup(t)
	g.start(t, nil)
	g.mustCall(t, "tools/list")
	if _, auths, _ := g.as.Snapshot(); auths[0].Has("scope") {
		t.Errorf("scope %q asked for with none known", auths[0].Get("scope"))
	}
}

// Bad input: each gets one clear error, at once.

func TestFlowMetadataOfAnotherIssuer(t *testing.T) {
	f := setup(t)
	f.as.MetadataIssuer = "https://other.example"
	f.start(t, nil)
	_, err := f.call(t, "tools/list")
	var ie *auth.IssuerError
	if !errors.As(err, &ie) || ie.Where != "metadata" || ie.Got != "https://other.example" || ie.Want != f.as.Issuer {
		t.Fatalf("err = %v, want an *auth.IssuerError about the metadata", err)
	}
	if _, auths, _ := f.as.Snapshot(); len(auths) != 0 {
		t.Error("the metadata was used")
	}
	t.Log(err)
}

func TestFlowIssMismatch(t *testing.T) {
	f := setup(t)
	f.as.Iss = "https://evil.example"
	f.start(t, nil)
	_, err := f.call(t, "tools/list")
	var ie *auth.IssuerError
	if !errors.As(err, &ie) || ie.Where != "authorization response" || ie.Got != "https://evil.example" {
		t.Fatalf("err = %v, want an *auth.IssuerError about the response", err)
	}
	if _, _, tokens := f.as.Snapshot(); len(tokens) != 0 {
		t.Error("the code went to the token endpoint")
	}
	t.Log(err)

	g := setup(t)
	g.as.IssSupported, g.as.Iss = true, "-"
	g.start(t, nil)
	if _, err := g.call(t, "tools/list"); !errors.As(err, &ie) || ie.Got != "" {
		t.Fatalf("err = %v, want an *auth.IssuerError for the missing iss", err)
	}
}

func TestFlowInsecureAuthorizationServer(t *testing.T) {
	f := setup(t)
	f.as.Issuer = "http://auth.example" // what the protected resource metadata names
	f.start(t, nil)
	_, err := f.call(t, "tools/list")
	var ie *auth.InsecureURLError
	if !errors.As(err, &ie) || ie.URL != "http://auth.example" {
		t.Fatalf("err = %v, want an *auth.InsecureURLError", err)
	}
	t.Log(err)
}

func TestFlowRedirectToInsecureURL(t *testing.T) {
	f := setup(t)
	f.mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://metadata.example/prm", http.StatusFound)
	})
	f.start(t, nil)
	_, err := f.call(t, "tools/list")
	var ie *auth.InsecureURLError
	if !errors.As(err, &ie) || ie.URL != "http://metadata.example/prm" || !strings.HasSuffix(ie.From, "/.well-known/oauth-protected-resource/mcp") {
		t.Fatalf("err = %v, want an *auth.InsecureURLError about the redirect", err)
	}
	t.Log(err)
}

func TestFlowTokenEndpointHTML(t *testing.T) {
	f := setup(t)
	f.as.TokenHTML = true
	f.start(t, nil)
	_, err := f.call(t, "tools/list")
	var re *auth.ResponseError
	if !errors.As(err, &re) || re.What != "token endpoint" || re.ContentType != "text/html" || re.StatusCode != 200 {
		t.Fatalf("err = %v, want an *auth.ResponseError", err)
	}
	if strings.Contains(err.Error(), "Sign in") {
		t.Errorf("the error shows the page: %v", err)
	}
	t.Log(err)
}

func TestFlowBrowserTimeout(t *testing.T) {
	f := setup(t)
	f.start(t, func(c *auth.Config) {
		c.Browser = &auth.Loopback{Open: func(context.Context, string) error { return nil }} // the user never comes back
		c.AuthorizeTimeout = 100 * time.Millisecond
	})
	start := time.Now()
	_, err := f.call(t, "tools/list")
	var te *auth.TimeoutError
	if !errors.As(err, &te) || !strings.HasPrefix(te.URL, f.as.URL+"/authorize?") || !strings.Contains(err.Error(), te.URL) {
		t.Fatalf("err = %v, want an *auth.TimeoutError with the URL", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %s", d)
	}
	t.Log(err)
}

// handBrowser hands the flow whatever the authorization server redirects to, without
// the loopback's own check of the state: the flow checks it again.
type handBrowser struct{ redirect string }

func (b handBrowser) RedirectURL(context.Context) (string, error) { return b.redirect, nil }

func (b handBrowser) Authorize(ctx context.Context, authURL string) (url.Values, error) {
	c := &http.Client{CheckRedirect: func(req *http.Request, _ []*http.Request) error {
		if strings.HasPrefix(req.URL.String(), b.redirect) {
			return http.ErrUseLastResponse
		}
		return nil
	}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	u, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		return nil, err
	}
	return u.Query(), nil
}

func TestFlowStateMismatch(t *testing.T) {
	f := setup(t)
	f.as.StateOverride = "forged"
	f.start(t, func(c *auth.Config) { c.Browser = handBrowser{redirect: "http://127.0.0.1:9/callback"} })
	if _, err := f.call(t, "tools/list"); !errors.Is(err, auth.ErrStateMismatch) {
		t.Fatalf("err = %v, want ErrStateMismatch", err)
	}
	if _, _, tokens := f.as.Snapshot(); len(tokens) != 0 {
		t.Error("the code went to the token endpoint")
	}
}

func TestFlowResourceMismatch(t *testing.T) {
	f := setup(t)
	f.start(t, nil)
	f.guard.Set(func(g *oauthtest.Guard) { g.Resource = "https://evil.example/mcp" })
	_, err := f.call(t, "tools/list")
	var rm *auth.ResourceMismatchError
	if !errors.As(err, &rm) || rm.Resource != "https://evil.example/mcp" {
		t.Fatalf("err = %v, want an *auth.ResourceMismatchError", err)
	}
	if _, auths, _ := f.as.Snapshot(); len(auths) != 0 {
		t.Error("authorized anyway")
	}
}

func TestFlowNoBrowser(t *testing.T) {
	f := setup(t)
	f.start(t, func(c *auth.Config) { c.Browser = nil })
	if _, err := f.call(t, "tools/list"); !errors.Is(err, auth.ErrNoBrowser) {
		t.Fatalf("err = %v, want ErrNoBrowser", err)
	}
}

// TestFlowDeleteNeedsNoLogin: a DELETE (a session's end) that gets a 401 gets it back,
// and the user is not sent to the browser for it.
func TestFlowDeleteNeedsNoLogin(t *testing.T) {
	f := setup(t)
	f.start(t, nil)
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodDelete, f.url, nil)
	resp, err := f.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || f.opened.Load() != 0 {
		t.Errorf("HTTP %d, browser opened %d times", resp.StatusCode, f.opened.Load())
	}
}

// TestFlowRefresh: a token about to expire is refreshed before the request, with the
// resource indicator, and the rotated refresh token is kept.
func TestFlowRefresh(t *testing.T) {
	var now atomic.Int64
	now.Store(time.Now().UnixNano())
	clock := func() time.Time { return time.Unix(0, now.Load()) }
	f := setup(t)
	f.as.Now, f.guard.Now, f.as.ExpiresIn = clock, clock, time.Minute
	f.start(t, func(c *auth.Config) { c.Now = clock })
	f.mustCall(t, "tools/list")
	first := f.guard.Seen()[1]
	for range 2 {
		now.Add(int64(2 * time.Minute))
		f.mustCall(t, "tools/list")
	}
	_, auths, tokens := f.as.Snapshot()
	if len(auths) != 1 || len(tokens) != 3 {
		t.Fatalf("%d authorizations, %d token requests; want 1 and 3", len(auths), len(tokens))
	}
	for _, tr := range tokens[1:] {
		if tr.Get("grant_type") != "refresh_token" || tr.Get("resource") != f.url {
			t.Errorf("refresh request %v", tr)
		}
	}
	seen := f.guard.Seen()
	if len(seen) != 4 || seen[2] == first || seen[3] == seen[2] {
		t.Errorf("the server saw %q", seen)
	}
}

// TestFlowRefreshOn401: a token the server refuses before it expires is refreshed, and
// the request sent again with the new one; no user is needed.
func TestFlowRefreshOn401(t *testing.T) {
	f := setup(t)
	f.start(t, nil)
	f.mustCall(t, "tools/list")
	f.as.Revoke(strings.TrimPrefix(f.guard.Seen()[1], "Bearer "))
	f.mustCall(t, "tools/list")
	_, auths, tokens := f.as.Snapshot()
	if len(auths) != 1 || len(tokens) != 2 || tokens[1].Get("grant_type") != "refresh_token" {
		t.Errorf("%d authorizations, token requests %v", len(auths), tokens)
	}
	// A server that refuses the token it just got ends the request.
	f.guard.Set(func(g *oauthtest.Guard) { g.Now = func() time.Time { return time.Now().Add(24 * time.Hour) } })
	if _, err := f.call(t, "tools/list"); !errors.Is(err, auth.ErrTokenRejected) {
		t.Fatalf("err = %v, want ErrTokenRejected", err)
	}
}

// TestFlowStepUp: a 403 insufficient_scope runs the grant for the union of the scopes
// asked for and the challenge's; a server that still refuses gets a StepUpError, and
// the next request for the same scope does not send the user to the browser again.
func TestFlowStepUp(t *testing.T) {
	f := setup(t)
	f.guard.Required = func(method string) []string {
		switch method {
		case "write":
			return []string{"mcp:write"}
		case "admin":
			return []string{"mcp:admin"}
		}
		return []string{"mcp:read"}
	}
	f.as.Withhold = []string{"mcp:admin"}
	f.start(t, nil)
	f.mustCall(t, "read")
	f.mustCall(t, "write")
	f.mustCall(t, "read")
	_, auths, _ := f.as.Snapshot()
	if len(auths) != 2 || auths[0].Get("scope") != "mcp:read" || auths[1].Get("scope") != "mcp:read mcp:write" {
		t.Fatalf("authorization requests %v", auths)
	}

	_, err := f.call(t, "admin")
	var se *auth.StepUpError
	if !errors.As(err, &se) || se.Scope != "mcp:admin" || se.Attempts != 1 {
		t.Fatalf("err = %v, want an *auth.StepUpError after 1 attempt", err)
	}
	opened := f.opened.Load()
	if _, err := f.call(t, "admin"); !errors.As(err, &se) || !se.Earlier {
		t.Fatalf("err = %v, want an *auth.StepUpError that names the earlier attempt", err)
	}
	if f.opened.Load() != opened {
		t.Error("the user was sent to the browser again for a scope the server never grants")
	}
	f.mustCall(t, "write") // what was granted still works
	t.Log(err)
}

// TestFlowChallengeOfManyScopes: a server whose 401 asks for 200,000 scopes (800 KB of
// challenge, within what net/http reads of headers) is authorized like any other: the
// scope lists are joined in time linear in them (they were compared pairwise, which
// took minutes, with the flow's lock held and the request waiting).
func TestFlowChallengeOfManyScopes(t *testing.T) {
	const alnum = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	scopes := make([]string, 0, 200_000)
	for i := 0; len(scopes) < cap(scopes); i++ {
		scopes = append(scopes, string([]byte{alnum[i%62], alnum[i/62%62], alnum[i/62/62%62]}))
	}
	var asked atomic.Bool
	f := setup(t)
	f.guard.Required = func(string) []string {
		if asked.Swap(true) {
			return nil // once authorized, the request passes
		}
		return scopes
	}
	f.start(t, nil)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if body, err := f.callCtx(t, ctx, "tools/list"); err != nil || body != "ok" {
		t.Fatalf("tools/list: %q, %v", body, err)
	}
	if _, auths, _ := f.as.Snapshot(); len(auths) != 1 || len(strings.Fields(auths[0].Get("scope"))) != len(scopes) {
		t.Fatalf("%d authorization requests, want 1 for the %d scopes", len(auths), len(scopes))
	}
}

// TestFlowNeverToAnotherOrigin: a redirect to another origin (another port here) gets
// no token, nor does any request to it.
func TestFlowNeverToAnotherOrigin(t *testing.T) {
	var other []string
	var mu sync.Mutex
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		other = append(other, r.Header.Get("Authorization"))
		mu.Unlock()
		fmt.Fprint(w, "ok")
	}))
	defer elsewhere.Close()
	f := setup(t)
	f.start(t, nil)
	f.mustCall(t, "tools/list")
	f.mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+"/mcp", http.StatusTemporaryRedirect)
	})
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, strings.TrimSuffix(f.url, "/mcp")+"/moved", bytes.NewReader([]byte(`{}`)))
	resp, err := f.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	resp, err = f.client.Get(elsewhere.URL + "/direct")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	mu.Lock()
	defer mu.Unlock()
	if len(other) != 2 || other[0] != "" || other[1] != "" {
		t.Errorf("the other origin saw Authorization %q", other)
	}
}

// TestFlowMigration: when the protected resource metadata names another authorization
// server, the client registers with it anew and presents nothing of the old one's.
func TestFlowMigration(t *testing.T) {
	f := setup(t)
	as2 := oauthtest.NewServer(t)
	var moved atomic.Bool
	as1 := f.as
	f.guard.AS = func() *oauthtest.Server {
		if moved.Load() {
			return as2
		}
		return as1
	}
	f.start(t, nil)
	f.mustCall(t, "tools/list")
	moved.Store(true)
	f.mustCall(t, "tools/list")
	regs2, auths2, tokens2 := as2.Snapshot()
	if len(regs2) != 1 || len(auths2) != 1 || len(tokens2) != 1 {
		t.Fatalf("at the new server: %d registrations, %d authorizations, %d token requests", len(regs2), len(auths2), len(tokens2))
	}
	if _, _, tokens1 := as1.Snapshot(); len(tokens1) != 1 {
		t.Errorf("the old server got %d token requests (a refresh?)", len(tokens1))
	}
	rec, _ := f.flow.Record(t.Context())
	if rec.Issuer != as2.Issuer || rec.Client.Issuer != as2.Issuer {
		t.Errorf("record %+v", rec)
	}
}

// TestFlowPreRegistered: pre-registered credentials come first (no registration), with
// the method the metadata supports; they are not presented to another server.
func TestFlowPreRegistered(t *testing.T) {
	f := setup(t)
	f.as.Clients = map[string]string{"pre-1": "s3cret"}
	f.as.AuthMethods = []string{"client_secret_post"}
	f.start(t, func(c *auth.Config) { c.ClientID, c.ClientSecret = "pre-1", "s3cret" })
	f.mustCall(t, "tools/list")
	regs, _, tokens := f.as.Snapshot()
	if len(regs) != 0 || tokens[0].Get("client_secret") != "s3cret" || tokens[0].Get("client_id") != "pre-1" {
		t.Errorf("registrations %v, token request %v", regs, tokens)
	}

	g := setup(t)
	g.start(t, func(c *auth.Config) { c.ClientID, c.ClientIssuer = "pre-1", "https://auth.elsewhere.example" })
	_, err := g.call(t, "tools/list")
	var ie *auth.IssuerError
	if !errors.As(err, &ie) || ie.Where != "client" {
		t.Fatalf("err = %v, want an *auth.IssuerError about the client", err)
	}
}

// TestFlowClientMetadataDocument: a server that takes Client ID Metadata Documents gets
// the document's URL as client id, and no registration.
func TestFlowClientMetadataDocument(t *testing.T) {
	f := setup(t)
	f.as.Clients = map[string]string{"https://client.example/mcpi.json": ""}
	f.start(t, func(c *auth.Config) { c.ClientMetadataURL = "https://client.example/mcpi.json" })
	// oauthtest does not advertise the support: registration is used.
	f.mustCall(t, "tools/list")
	if regs, _, _ := f.as.Snapshot(); len(regs) != 1 {
		t.Errorf("%d registrations without metadata document support", len(regs))
	}
	if _, err := auth.New(f.url, &auth.Config{ClientMetadataURL: "http://client.example/x"}); err == nil {
		t.Error("an http client metadata URL was accepted")
	}
}

func TestFlowClientCredentials(t *testing.T) {
	f := setup(t)
	f.as.Clients = map[string]string{"svc": "svc-secret"}
	f.guard.Required = func(string) []string { return []string{"jobs"} }
	f.start(t, func(c *auth.Config) {
		c.Grant, c.Browser, c.ClientID, c.ClientSecret = auth.ClientCredentials, nil, "svc", "svc-secret"
	})
	f.mustCall(t, "tools/list")
	_, auths, tokens := f.as.Snapshot()
	if len(auths) != 0 || len(tokens) != 1 {
		t.Fatalf("%d authorizations, %d token requests", len(auths), len(tokens))
	}
	if tr := tokens[0]; tr.Get("grant_type") != "client_credentials" || tr.Get("auth") != "basic:svc" || tr.Get("scope") != "jobs" || tr.Get("resource") != f.url {
		t.Errorf("token request %v", tr)
	}

	g := setup(t)
	g.as.Clients = map[string]string{"svc": ""}
	g.as.AuthMethods = []string{"private_key_jwt"}
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	g.start(t, func(c *auth.Config) {
		c.Grant, c.Browser, c.ClientID, c.PrivateKey = auth.ClientCredentials, nil, "svc", key
	})
	g.mustCall(t, "tools/list")
	_, _, tokens = g.as.Snapshot()
	if tr := tokens[0]; tr.Get("client_assertion") == "" || tr.Has("client_secret") || tr.Get("auth") != "" {
		t.Errorf("token request %v", tr)
	}
}

// TestFlowOutlivesRequest: a request whose deadline ends while the user is in the
// browser fails, but the authorization goes on; the next request waits for it and takes
// its token, without sending the user to the browser again.
func TestFlowOutlivesRequest(t *testing.T) {
	f := setup(t)
	f.start(t, func(c *auth.Config) {
		c.Browser = &auth.Loopback{Open: func(ctx context.Context, u string) error {
			f.opened.Add(1)
			time.Sleep(300 * time.Millisecond) // the user reads the page
			return follow(ctx, u)
		}}
	})
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if _, err := f.callCtx(t, ctx, "tools/list"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the request's deadline", err)
	}
	f.mustCall(t, "tools/list")
	if _, auths, _ := f.as.Snapshot(); len(auths) != 1 || f.opened.Load() != 1 {
		t.Errorf("%d authorizations, browser opened %d times; want 1 each", len(auths), f.opened.Load())
	}
}

// TestFlowConcurrent: requests that meet the 401 together share one authorization.
func TestFlowConcurrent(t *testing.T) {
	f := setup(t)
	f.start(t, nil)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			if _, err := f.call(t, "tools/list"); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if _, auths, _ := f.as.Snapshot(); len(auths) != 1 {
		t.Errorf("%d authorizations, want 1", len(auths))
	}
}

// TestFlowLogout: logging out forgets the tokens here and in the store; the next
// request authorizes anew.
func TestFlowLogout(t *testing.T) {
	store := &auth.MemoryStore{}
	f := setup(t)
	f.start(t, func(c *auth.Config) { c.Store = store })
	f.mustCall(t, "tools/list")
	if r, _ := store.Load(t.Context(), f.flow.Server()); r == nil || r.Token == nil {
		t.Fatal("nothing stored")
	}
	if err := f.flow.Logout(t.Context()); err != nil {
		t.Fatal(err)
	}
	if r, _ := store.Load(t.Context(), f.flow.Server()); r != nil {
		t.Error("still stored after Logout")
	}
	if r, _ := f.flow.Record(t.Context()); r != nil {
		t.Error("still held after Logout")
	}
	f.mustCall(t, "tools/list")
	if _, auths, _ := f.as.Snapshot(); len(auths) != 2 {
		t.Errorf("%d authorizations, want 2", len(auths))
	}
}

// TestFlowLogin: Login authorizes before any request; a stored record is used by a
// flow of the next run without any authorization.
func TestFlowLogin(t *testing.T) {
	store := &auth.MemoryStore{}
	f := setup(t)
	f.guard.ScopesSupported = []string{"mcp"}
	f.start(t, func(c *auth.Config) { c.Store = store })
	if err := f.flow.Login(t.Context()); err != nil {
		t.Fatal(err)
	}
	next, err := auth.New(f.url, &auth.Config{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	f.client = &http.Client{Transport: next.Wrap(nil)}
	f.mustCall(t, "tools/list")
	if seen := f.guard.Seen(); len(seen) != 1 || !strings.HasPrefix(seen[0], "Bearer ") {
		t.Errorf("the server saw %q", seen)
	}
	if _, auths, _ := f.as.Snapshot(); len(auths) != 1 || auths[0].Get("scope") != "mcp" {
		t.Errorf("authorizations %v", auths)
	}
}

// TestLoopback: the redirect listener refuses an answer nobody waits for, and hands
// the one awaited to Authorize.
func TestLoopback(t *testing.T) {
	l := &auth.Loopback{}
	defer l.Close()
	redirect, err := l.RedirectURL(t.Context())
	if err != nil || !strings.HasPrefix(redirect, "http://127.0.0.1:") || !strings.HasSuffix(redirect, "/callback") {
		t.Fatalf("RedirectURL = %q, %v", redirect, err)
	}
	resp, err := http.Get(redirect + "?code=x&state=y")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("an unexpected answer got HTTP %d", resp.StatusCode)
	}
	l.Open = func(ctx context.Context, _ string) error { return follow(ctx, redirect+"?code=c1&state=s1&iss=i") }
	v, err := l.Authorize(t.Context(), "https://auth.example/authorize")
	if err != nil || v.Get("code") != "c1" || v.Get("state") != "s1" || v.Get("iss") != "i" {
		t.Errorf("Authorize = %v, %v", v, err)
	}
	l.Open = func(context.Context, string) error { return errors.New("no browser here") }
	if _, err := l.Authorize(t.Context(), "https://auth.example/authorize"); err == nil || !strings.Contains(err.Error(), "no browser here") {
		t.Errorf("Authorize with a failing Open = %v", err)
	}
}

// hostileAS is an MCP server at /mcp that answers 401 to any request without the
// access token "good", and is its own authorization server, with the token endpoint
// token; the flow for it uses the client credentials grant of client "c".
func hostileAS(t *testing.T, token http.HandlerFunc) (*auth.Flow, string) {
	t.Helper()
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer good" {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+srv.URL+`/.well-known/oauth-protected-resource/mcp"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		fmt.Fprint(w, "ok")
	})
	mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"resource":%q,"authorization_servers":[%q]}`, srv.URL+"/mcp", srv.URL)
	})
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"issuer":%q,"token_endpoint":%q}`, srv.URL, srv.URL+"/token")
	})
	mux.HandleFunc("POST /token", token)
	f, err := auth.New(srv.URL+"/mcp", &auth.Config{Grant: auth.ClientCredentials, ClientID: "c", ClientSecret: "s"})
	if err != nil {
		t.Fatal(err)
	}
	return f, srv.URL + "/mcp"
}

// TestFlowErrorQuotesServerBriefly: an OAuth error response of a megabyte (its
// error_description, or its error) is quoted in the error's sentence cut to a few
// hundred bytes: that text is the server's, and may carry what it was sent.
func TestFlowErrorQuotesServerBriefly(t *testing.T) {
	for _, field := range []string{"error_description", "error"} {
		f, u := hostileAS(t, func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			body := map[string]string{"error": "invalid_client", field: strings.Repeat("\x1b]52;c;", 1<<16)}
			_ = json.NewEncoder(w).Encode(body)
		})
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		_, err := (&http.Client{Transport: f.Wrap(nil)}).Do(req)
		var oe *auth.OAuthError
		if !errors.As(err, &oe) {
			t.Fatalf("%s: err = %v, want an *auth.OAuthError", field, err)
		}
		if n := len(oe.Error()); n > 1024 {
			t.Errorf("%s: an error of %d bytes: %.80q...", field, n, oe.Error())
		}
	}
}

// TestFlowTokenNotAHeaderValue: an access token that cannot be sent in a header (a line
// break in it) is refused when issued, not stored: kept, it failed every later request
// with net/http's "invalid header field value", and no 401 ever came to replace it.
func TestFlowTokenNotAHeaderValue(t *testing.T) {
	var issued atomic.Int32
	f, u := hostileAS(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		tok := "good"
		if issued.Add(1) == 1 {
			tok = "x\r\nX-Injected: 1"
		}
		fmt.Fprintf(w, `{"access_token":%q,"token_type":"Bearer"}`, tok)
	})
	c := &http.Client{Transport: f.Wrap(nil)}
	get := func() (*http.Response, error) {
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		resp, err := c.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		return resp, err
	}
	_, err := get()
	if err == nil || !strings.Contains(err.Error(), "token endpoint") {
		t.Errorf("first request: %v, want an error about the token endpoint's token", err)
	}
	if resp, err := get(); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("second request: %v, want it authorized with a new token", err)
	}
}

// TestFlowTokenRequestNotRedirectedAway: a token endpoint that answers 307 to another
// origin would have the client send its form there again (the client secret, a code or
// a refresh token): the redirect is not followed, and the other origin gets nothing.
func TestFlowTokenRequestNotRedirectedAway(t *testing.T) {
	var got atomic.Int32
	away := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Add(1)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"access_token":"good","token_type":"Bearer"}`)
	}))
	defer away.Close()
	f, u := hostileAS(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, away.URL+"/token", http.StatusTemporaryRedirect)
	})
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	resp, err := (&http.Client{Transport: f.Wrap(nil)}).Do(req)
	if err == nil {
		resp.Body.Close()
	}
	if err == nil || !strings.Contains(err.Error(), "another origin") {
		t.Errorf("err = %v, want the redirect to another origin refused", err)
	}
	if n := got.Load(); n != 0 {
		t.Errorf("the other origin got %d token requests", n)
	}
}

// The errors that quote a server's metadata (an issuer, a resource, a URL, each up to
// the 1 MiB a document is read to) quote a few hundred bytes of it.
func TestErrorsQuoteMetadataBriefly(t *testing.T) {
	long := "https://as.example/" + strings.Repeat("x", 1<<20)
	for _, err := range []error{
		&auth.IssuerError{Where: "metadata", URL: long, Got: long, Want: long},
		&auth.IssuerError{Got: long, Want: long},
		&auth.ResourceMismatchError{Resource: long, Server: long},
		&auth.InsecureURLError{What: "redirect", URL: long, From: long},
	} {
		if n := len(err.Error()); n > 2048 {
			t.Errorf("%T: a sentence of %d bytes", err, n)
		}
	}
}

// TestFlowShortLivedToken: a token that lives less than the usual leeway of 30 seconds
// is sent while a quarter of its life is left, not taken for expired when it arrives.
func TestFlowShortLivedToken(t *testing.T) {
	var now atomic.Int64
	now.Store(time.Now().UnixNano())
	clock := func() time.Time { return time.Unix(0, now.Load()) }
	t.Run("no refresh token", func(t *testing.T) {
		f := setup(t)
		f.as.Now, f.guard.Now, f.as.ExpiresIn, f.as.NoRefresh = clock, clock, 20*time.Second, true
		f.start(t, func(c *auth.Config) { c.Now = clock })
		for range 3 {
			f.mustCall(t, "tools/list")
		}
		if n := f.opened.Load(); n != 1 {
			t.Fatalf("%d logins for three requests with a token of 20 s; want 1", n)
		}
		rec, err := f.flow.Record(t.Context())
		if err != nil || !auth.Usable(rec.Token, clock()) || auth.Usable(rec.Token, clock().Add(16*time.Second)) {
			t.Fatalf("record %v, %v: want a token usable now, and not 4 s before it expires", rec, err)
		}
	})
	t.Run("refresh token", func(t *testing.T) {
		f := setup(t)
		f.as.Now, f.guard.Now, f.as.ExpiresIn = clock, clock, 3*time.Second
		f.start(t, func(c *auth.Config) { c.Now = clock })
		for range 4 {
			f.mustCall(t, "tools/list")
		}
		if _, _, tokens := f.as.Snapshot(); len(tokens) != 1 || f.opened.Load() != 1 {
			t.Fatalf("%d token requests and %d logins for four requests with a token of 3 s; want 1 and 1", len(tokens), f.opened.Load())
		}
	})
}

// TestFlowPageSaysHowTheLoginEnded: the page the redirect lands on says whether the
// login succeeded, after the flow checked the response: an answer of a wrong issuer is
// a failure there too, not "received".
func TestFlowPageSaysHowTheLoginEnded(t *testing.T) {
	for _, c := range []struct {
		iss, want string
	}{{"", "You are logged in"}, {"https://evil.example", "The login failed"}} {
		f := setup(t)
		f.as.Iss = c.iss
		pages := make(chan string, 1)
		f.start(t, func(cfg *auth.Config) {
			cfg.Browser = &auth.Loopback{Open: func(ctx context.Context, u string) error {
				resp, err := http.Get(u)
				if err != nil {
					return err
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				pages <- string(b)
				return nil
			}}
		})
		_, _ = f.call(t, "tools/list")
		if p := <-pages; !strings.Contains(p, c.want) {
			t.Errorf("iss %q: the page says %q; want %q", c.iss, p, c.want)
		}
	}
}

// TestFlowSaysMetadataWasAssumed: a login at a server that publishes no protected
// resource metadata, which the default endpoints of its origin then refuse, says that
// the metadata is missing and what was assumed in its place.
func TestFlowSaysMetadataWasAssumed(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("WWW-Authenticate", "Bearer")
		w.WriteHeader(http.StatusUnauthorized)
	})
	mux.HandleFunc("/register", func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
	})
	rs := httptest.NewServer(mux)
	t.Cleanup(rs.Close)
	flow, err := auth.New(rs.URL+"/mcp", &auth.Config{Browser: handBrowser{redirect: "http://127.0.0.1:9/callback"}})
	if err != nil {
		t.Fatal(err)
	}
	err = flow.Login(t.Context())
	var ae *auth.AssumedError
	if !errors.As(err, &ae) || !ae.Endpoints || len(ae.Tried) != 2 {
		t.Fatalf("err = %v; want an *auth.AssumedError naming the metadata URLs tried and the default endpoints", err)
	}
	t.Log(look.AuthSentence(err))
	if s := look.AuthSentence(err); !strings.Contains(s, "publishes no protected resource metadata") || !strings.Contains(s, "registration endpoint") {
		t.Errorf("the sentence: %s", s)
	}
}

// TestFlowClientSecretGivenAgain: a client secret given that differs from the stored
// one is used, not ignored for the stored token: a wrong one fails, a right one (the
// authorization server's new secret) obtains a token and is stored.
func TestFlowClientSecretGivenAgain(t *testing.T) {
	f := setup(t)
	f.as.Clients = map[string]string{"svc": "old"}
	store := &auth.MemoryStore{}
	cfg := func(secret string) *auth.Config {
		return &auth.Config{Grant: auth.ClientCredentials, ClientID: "svc", ClientSecret: secret, Store: store}
	}
	f.start(t, func(c *auth.Config) { *c = *cfg("old") })
	f.mustCall(t, "tools/list")
	f.as.Set(func(s *oauthtest.Server) { s.Clients = map[string]string{"svc": "new"} })
	for _, c := range []struct {
		secret string
		ok     bool
	}{{"wrong", false}, {"new", true}} {
		flow, err := auth.New(f.url, cfg(c.secret))
		if err != nil {
			t.Fatal(err)
		}
		f.client = &http.Client{Transport: flow.Wrap(nil)}
		if _, err := f.call(t, "tools/list"); (err == nil) != c.ok {
			t.Errorf("secret %q: err = %v; want success %v", c.secret, err, c.ok)
		}
	}
	flow, _ := auth.New(f.url, nil)
	rec, err := store.Load(t.Context(), flow.Server())
	if err != nil || rec == nil || rec.Client == nil || rec.Client.Secret != "new" {
		t.Fatalf("stored %+v, %v; want the new secret", rec, err)
	}
}
