package auth

import (
	"context"
	"crypto"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"

	"github.com/mcpi-dev/mcpi/internal/redact"
)

// Grant is the OAuth grant a [Flow] obtains tokens with.
type Grant int

const (
	// AuthorizationCode is the authorization code grant with PKCE: a user authorizes the
	// client in a browser ([Config.Browser]).
	AuthorizationCode Grant = iota
	// ClientCredentials is the client credentials grant (the MCP extension
	// io.modelcontextprotocol/oauth-client-credentials): the client acts on its own
	// behalf with [Config.ClientID] and a secret or a private key; no user, no browser.
	ClientCredentials
)

func (g Grant) String() string {
	if g == ClientCredentials {
		return "client_credentials"
	}
	return "authorization_code"
}

// A Browser takes the user through the authorization step of the authorization code
// grant: it shows them the authorization URL and hands back what the authorization
// server sent to the redirect URL. [Loopback] is one, which receives the redirect on a
// loopback address; tests play the user with an HTTP client that follows the redirects.
type Browser interface {
	// RedirectURL returns the redirect URL the authorization response comes back to,
	// the same for every call; it is registered with the authorization server.
	RedirectURL(ctx context.Context) (string, error)
	// Authorize shows the user authURL and returns the query parameters of the
	// redirect back (code, state and iss, or error), without checking them. It returns
	// when they arrive, or with ctx's error when ctx ends first.
	Authorize(ctx context.Context, authURL string) (url.Values, error)
}

// A Reporter is a [Browser] that tells the user how a login ended, where the user
// looks (the page the redirect lands on). The flow calls Report after each Authorize
// that returned a response, once it has checked the response and exchanged its code:
// with nil, or with the reason the login failed.
type Reporter interface {
	Report(err error)
}

// Config configures a [Flow]. The zero value obtains tokens through the authorization
// code grant, registering the client dynamically, and needs a Browser for it.
type Config struct {
	// Grant is how tokens are obtained; the zero value is [AuthorizationCode].
	Grant Grant
	// Browser takes the user through the authorization step of the authorization code
	// grant.
	Browser Browser

	// ClientID and ClientSecret are credentials registered with the authorization server
	// beforehand; they come first, before a Client ID Metadata Document and Dynamic
	// Client Registration. ClientIssuer, if set, is the authorization server they
	// belong to: the flow refuses to present them to another. When it is empty they are
	// bound to the first authorization server they are used with.
	ClientID, ClientSecret string
	ClientIssuer           string
	// PrivateKey, with ClientID, authenticates the client at the token endpoint with a
	// signed JWT (private_key_jwt, RFC 7523) instead of a secret; SigningAlg names the
	// JWS algorithm ("" means the one the key implies: ES256 for a P-256 key, RS256 for
	// RSA). See [ParsePrivateKey].
	PrivateKey crypto.Signer
	SigningAlg string
	// ClientMetadataURL is the HTTPS URL of the client's metadata document, used as its
	// client id where the authorization server takes Client ID Metadata Documents.
	ClientMetadataURL string
	// ClientName is the client_name of Dynamic Client Registration; "" means "mcpi".
	ClientName string

	// Store keeps tokens and client registrations between runs; nil means a
	// [MemoryStore] of the flow's own.
	Store Store
	// HTTPClient sends the discovery, registration and token requests (never the
	// requests to the MCP server); nil means a client with a 30-second timeout. Redirects
	// are followed only to HTTPS (or loopback) URLs, unless it has a CheckRedirect of its
	// own.
	HTTPClient *http.Client
	// AuthorizeTimeout bounds the browser step; 0 means 5 minutes.
	AuthorizeTimeout time.Duration
	// MaxStepUps bounds how many times one request re-authorizes for more scope after a
	// 403 insufficient_scope; 0 means 1, a negative value none.
	MaxStepUps int
	// Logger receives debug records of the flow (URLs, issuers, client ids; never a
	// token or secret, and a URL's password and the values of its query as xxxxx);
	// nil means none.
	Logger *slog.Logger
	// Now tells the time, to decide when a token has expired; nil means time.Now.
	Now func() time.Time
}

// Defaults of [Config].
const (
	DefaultAuthorizeTimeout = 5 * time.Minute
	defaultHTTPTimeout      = 30 * time.Second
	// expiryLeeway refreshes a token this long before it expires, so that it does not
	// expire on its way to the server; a token that lives less than four times as long
	// gets a quarter of its life instead (see [Usable]).
	expiryLeeway = 30 * time.Second
)

// A Flow runs the MCP authorization flow for one MCP server: discovery, client
// registration, the grant, refresh, step-up. [Flow.Wrap] puts it in front of the HTTP
// requests to the server, which then carry its tokens; [Flow.Login] runs it by hand.
// Tokens go only to the server's origin. A Flow is safe for concurrent use; it runs one
// authorization at a time.
type Flow struct {
	cfg    Config
	server *url.URL
	key    string // the server's canonical URL: the store's key, and the default resource
	hc     *http.Client
	log    *slog.Logger
	now    func() time.Time
	sem    chan struct{} // held while an authorization or refresh runs

	mu     sync.Mutex
	rec    *Record // nil until loaded
	gen    uint64  // counts the tokens obtained, so that a request can tell a newer one
	disc   *discovery
	futile map[string]bool // scopes a step-up asked for and the server still refused
}

// New returns the flow for the MCP server at serverURL.
func New(serverURL string, cfg *Config) (*Flow, error) {
	u, err := url.Parse(serverURL)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("invalid server URL %q: want http:// or https:// and a host", redact.URL(serverURL))
	}
	f := &Flow{server: u, key: canonicalResource(u), sem: make(chan struct{}, 1)}
	if cfg != nil {
		f.cfg = *cfg
	}
	if f.cfg.Grant == ClientCredentials && f.cfg.ClientID == "" {
		return nil, errors.New("the client credentials grant needs a client id")
	}
	if m := f.cfg.ClientMetadataURL; m != "" {
		mu, err := url.Parse(m)
		if err != nil || mu.Scheme != "https" || mu.Host == "" || strings.Trim(mu.Path, "/") == "" {
			return nil, fmt.Errorf("the client metadata URL %q must be an https URL with a path", redact.URL(m))
		}
	}
	if f.cfg.PrivateKey != nil {
		if _, err := signingAlg(f.cfg.PrivateKey, f.cfg.SigningAlg); err != nil {
			return nil, err
		}
	}
	if f.cfg.ClientName == "" {
		f.cfg.ClientName = "mcpi"
	}
	if f.cfg.Store == nil {
		f.cfg.Store = &MemoryStore{}
	}
	if f.cfg.AuthorizeTimeout <= 0 {
		f.cfg.AuthorizeTimeout = DefaultAuthorizeTimeout
	}
	switch {
	case f.cfg.MaxStepUps == 0:
		f.cfg.MaxStepUps = 1
	case f.cfg.MaxStepUps < 0:
		f.cfg.MaxStepUps = 0
	}
	f.log = f.cfg.Logger
	if f.log == nil {
		f.log = slog.New(slog.DiscardHandler)
	}
	f.now = f.cfg.Now
	if f.now == nil {
		f.now = time.Now
	}
	if f.cfg.HTTPClient != nil {
		c := *f.cfg.HTTPClient
		f.hc = &c
	} else {
		f.hc = &http.Client{Timeout: defaultHTTPTimeout}
	}
	if f.hc.CheckRedirect == nil {
		f.hc.CheckRedirect = secureRedirects
	}
	return f, nil
}

// Server returns the canonical URL of the MCP server the flow authorizes for, the key
// of its [Store].
func (f *Flow) Server() string { return f.key }

// lock waits for the flow's one authorization slot, or for ctx to end.
func (f *Flow) lock(ctx context.Context) error {
	select {
	case f.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

func (f *Flow) unlock() { <-f.sem }

// record returns the flow's record, loading it from the store the first time.
func (f *Flow) record(ctx context.Context) (*Record, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.rec != nil {
		return f.rec, nil
	}
	r, err := f.cfg.Store.Load(ctx, f.key)
	if err != nil {
		return nil, fmt.Errorf("loading the stored authorization of %s: %w", redact.URL(f.key), err)
	}
	if r == nil {
		r = &Record{}
	}
	f.adoptSecret(r)
	f.rec = r
	return r, nil
}

// adoptSecret puts the secret of [Config.ClientSecret] in a record loaded from the
// store whose pre-registered client is [Config.ClientID] with another secret: the one
// given is used, as the user expects, and stored with the next token. A token of the
// client credentials grant stands for the credentials it was obtained with, so it is
// dropped, and the grant runs again with the given secret; a token of a user's login
// is kept (its refresh, which authenticates the client, uses the given secret).
func (f *Flow) adoptSecret(r *Record) {
	c := r.Client
	if f.cfg.ClientID == "" || f.cfg.ClientSecret == "" || c == nil || c.Kind != ClientPreRegistered ||
		c.ID != f.cfg.ClientID || c.Secret == f.cfg.ClientSecret {
		return
	}
	f.log.Debug("the client secret given differs from the one stored; the one given is used", "client_id", c.ID)
	cl := *c
	cl.Secret = f.cfg.ClientSecret
	r.Client = &cl
	if f.cfg.Grant == ClientCredentials {
		r.Token = nil
	}
}

// save makes r the flow's record and keeps it in the store; a new token gets a new
// generation.
func (f *Flow) save(ctx context.Context, r *Record, newToken bool) error {
	f.mu.Lock()
	f.rec = r
	if newToken {
		f.gen++
	}
	f.mu.Unlock()
	if err := f.cfg.Store.Save(ctx, f.key, r.clone()); err != nil {
		return fmt.Errorf("storing the authorization of %s: %w", redact.URL(f.key), err)
	}
	return nil
}

// usable reports whether t can be sent now (see [Usable]).
func (f *Flow) usable(t *oauth2.Token) bool { return Usable(t, f.now()) }

// Usable reports whether a flow sends t at now rather than refresh it or log in again:
// it has not expired, nor will it within a leeway of 30 seconds, or a quarter of its
// lifetime (the expires_in it was issued with) when that is shorter, so that a token
// that lives only a few seconds is still used when it arrives.
func Usable(t *oauth2.Token, now time.Time) bool {
	if t == nil || t.AccessToken == "" {
		return false
	}
	if t.Expiry.IsZero() {
		return true
	}
	leeway := expiryLeeway
	if t.ExpiresIn > 0 && t.ExpiresIn < int64(4*expiryLeeway/time.Second) {
		leeway = time.Duration(t.ExpiresIn) * time.Second / 4
	}
	return now.Add(leeway).Before(t.Expiry)
}

// token returns the access token to send to the server and its generation, refreshing
// it first when it has expired and can be refreshed; "" when there is none to send (the
// server's 401 will start the flow).
func (f *Flow) token(ctx context.Context) (string, uint64, error) {
	rec, err := f.record(ctx)
	if err != nil {
		return "", 0, err
	}
	f.mu.Lock()
	tok, gen := rec.Token, f.gen
	f.mu.Unlock()
	if tok == nil || f.usable(tok) {
		if tok == nil {
			return "", gen, nil
		}
		return tok.AccessToken, gen, nil
	}
	if tok.RefreshToken == "" {
		return "", gen, nil
	}
	if err := f.lock(ctx); err != nil {
		return "", 0, err
	}
	defer f.unlock()
	f.mu.Lock()
	rec, gen = f.rec, f.gen
	f.mu.Unlock()
	if rec.Token == nil || rec.Token.RefreshToken == "" || f.usable(rec.Token) {
		return f.current()
	}
	if err := f.refreshRecord(ctx, rec); err != nil {
		var oe *OAuthError
		if !errors.As(err, &oe) {
			return "", 0, err
		}
		// The refresh token is spent or revoked: forget it, and let the request go
		// without a token, whose 401 starts the flow again.
		f.log.Debug("refreshing the token failed; it is dropped", "error", err)
		r := rec.clone()
		r.Token = nil
		if err := f.save(ctx, r, false); err != nil {
			return "", 0, err
		}
		return "", gen, nil
	}
	return f.current()
}

// current returns the access token held now and its generation.
func (f *Flow) current() (string, uint64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.rec == nil || f.rec.Token == nil {
		return "", f.gen, nil
	}
	return f.rec.Token.AccessToken, f.gen, nil
}

// refreshRecord refreshes rec's token at the authorization server that issued it. The
// caller holds the lock.
func (f *Flow) refreshRecord(ctx context.Context, rec *Record) error {
	d, err := f.discovered(ctx, "")
	if err != nil {
		return err
	}
	if d.issuer != rec.Issuer || rec.Client == nil || rec.Client.Issuer != d.issuer {
		return &OAuthError{What: "authorization server", Code: "issuer_changed",
			Description: fmt.Sprintf("the token was issued by %s, and the server now names %s", redact.URL(rec.Issuer), redact.URL(d.issuer))}
	}
	t, err := f.refresh(ctx, d, rec.Client, rec.Token.RefreshToken)
	if err != nil {
		return err
	}
	r := rec.clone()
	r.Token, r.Resource = t, d.resource
	if g := grantedScope(t); g != "" {
		r.GrantedScope = g
	}
	f.log.Debug("refreshed the token", "record", r)
	return f.save(ctx, r, true)
}

// discovered returns what discovery found last, or runs it (with the resource metadata
// URL of a challenge, if given and new).
func (f *Flow) discovered(ctx context.Context, resourceMetadata string) (*discovery, error) {
	f.mu.Lock()
	d := f.disc
	f.mu.Unlock()
	if d != nil && (resourceMetadata == "" || resourceMetadata == d.prmURL) {
		return d, nil
	}
	return f.rediscover(ctx, resourceMetadata)
}

// rediscover runs discovery and keeps what it found.
func (f *Flow) rediscover(ctx context.Context, resourceMetadata string) (*discovery, error) {
	d, err := f.discover(ctx, resourceMetadata)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.disc = d
	f.mu.Unlock()
	return d, nil
}

// challenge is what a 401 or 403 told the client.
type challenge struct {
	status int
	params map[string]string // the Bearer challenge's; nil when there was none
}

func (c challenge) insufficientScope() bool {
	return c.status == http.StatusForbidden && c.params["error"] == "insufficient_scope"
}

// authorize answers a 401 or a 403 insufficient_scope to a request that carried the
// token of generation sentGen (sent: whether it carried one): it obtains a new token
// unless another request did since. For a 401 it discovers the authorization again (the
// server may have moved to another authorization server), then refreshes the token if
// it can, else runs the grant; for a 403 it runs the grant for the scopes asked for so
// far and those the challenge names.
func (f *Flow) authorize(ctx context.Context, ch challenge, sentGen uint64, sent bool) error {
	if err := f.lock(ctx); err != nil {
		return err
	}
	defer f.unlock()
	rec, err := f.record(ctx)
	if err != nil {
		return err
	}
	f.mu.Lock()
	newer := f.gen != sentGen
	rec = f.rec
	f.mu.Unlock()
	if newer && rec.Token != nil {
		return nil // another request obtained a token meanwhile: retry with it
	}
	rm := ch.params["resource_metadata"]
	if ch.insufficientScope() {
		d, err := f.discovered(ctx, rm)
		if err != nil {
			return err
		}
		scope := scopeUnion(rec.Scope, rec.GrantedScope, ch.params["scope"])
		f.mu.Lock()
		futile := f.futile[scopeKey(scope)]
		f.mu.Unlock()
		if futile {
			return &StepUpError{Scope: ch.params["scope"], Earlier: true}
		}
		f.log.Debug("the server asks for more scope", "scope", ch.params["scope"], "asking", scope)
		return f.obtain(ctx, d, rec, scope)
	}
	d, err := f.rediscover(ctx, rm)
	if err != nil {
		return err
	}
	if rec.Issuer != "" && rec.Issuer != d.issuer {
		// The server moved to another authorization server: nothing from the old one is
		// presented to the new one (a pre-registered client is refused in client).
		f.log.Debug("the authorization server changed", "was", redact.URL(rec.Issuer), "now", redact.URL(d.issuer))
		r := &Record{}
		if rec.Client != nil && rec.Client.Kind == ClientPreRegistered {
			r.Client = rec.Client
		}
		rec = r
		f.mu.Lock()
		f.futile = nil
		f.mu.Unlock()
	}
	if sent && rec.Token != nil && rec.Token.RefreshToken != "" {
		err := f.refreshRecord(ctx, rec)
		if err == nil {
			return nil
		}
		f.log.Debug("refreshing the rejected token failed; authorizing anew", "error", err)
	}
	scope := ch.params["scope"]
	if scope == "" && d.prm != nil {
		scope = strings.Join(d.prm.ScopesSupported, " ")
	}
	// Authorizing again for the same server keeps what was asked for before (SEP-2350),
	// so that a token for one operation does not lose another's scope.
	return assumed(d, f.obtain(ctx, d, rec, scopeUnion(rec.Scope, scope)))
}

// obtain runs the grant for scope and keeps the token. The caller holds the lock.
func (f *Flow) obtain(ctx context.Context, d *discovery, rec *Record, scope string) error {
	var (
		c   *ClientInfo
		tok *oauth2.Token
		err error
	)
	if f.cfg.Grant == ClientCredentials {
		c, err = f.client(ctx, d, rec, "", scope)
		if err != nil {
			return err
		}
		tok, err = f.endpointToken(ctx, d, c, url.Values{"grant_type": {"client_credentials"}}, scope)
	} else {
		// SEP-2207: offline_access asks for a refresh token, where the authorization
		// server offers it (and only there: asking for a scope it does not know fails).
		if scope != "" && slices.Contains(d.asm.ScopesSupported, "offline_access") {
			scope = scopeUnion(scope, "offline_access")
		}
		c, tok, err = f.authorizationCode(ctx, d, rec, scope)
	}
	if err != nil {
		return err
	}
	r := &Record{Resource: d.resource, Issuer: d.issuer, Client: c, Token: tok, Scope: scope, GrantedScope: grantedScope(tok)}
	f.log.Debug("obtained a token", "record", r)
	return f.save(ctx, r, true)
}

// randomString returns n random bytes, base64url-encoded.
func randomString(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// authorizationCode runs the authorization code grant with PKCE: the user authorizes
// the client in the browser, and the code that comes back (after its state and issuer
// are checked) is exchanged for a token.
func (f *Flow) authorizationCode(ctx context.Context, d *discovery, rec *Record, scope string) (_ *ClientInfo, _ *oauth2.Token, err error) {
	if f.cfg.Browser == nil {
		return nil, nil, ErrNoBrowser
	}
	if !d.legacy && !slices.Contains(d.asm.CodeChallengeMethodsSupported, "S256") {
		return nil, nil, ErrNoPKCE
	}
	if d.asm.AuthorizationEndpoint == "" || d.asm.TokenEndpoint == "" {
		return nil, nil, fmt.Errorf("the authorization server %s names no authorization or token endpoint", shownURL(d.issuer))
	}
	redirect, err := f.cfg.Browser.RedirectURL(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("preparing the redirect: %w", err)
	}
	c, err := f.client(ctx, d, rec, redirect, scope)
	if err != nil {
		return nil, nil, err
	}
	verifier := oauth2.GenerateVerifier()
	state, err := randomString(32)
	if err != nil {
		return nil, nil, err
	}
	conf := &oauth2.Config{
		ClientID:    c.ID,
		Endpoint:    oauth2.Endpoint{AuthURL: d.asm.AuthorizationEndpoint, TokenURL: d.asm.TokenEndpoint},
		RedirectURL: redirect,
		Scopes:      strings.Fields(scope),
	}
	authURL := conf.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", d.resource))
	// The log gets the page without its query: its state is what keeps a forged answer
	// out while the user is in the browser.
	f.log.Debug("authorizing in the browser", "url", redact.URL(authURL))
	actx, cancel := context.WithTimeout(ctx, f.cfg.AuthorizeTimeout)
	resp, err := f.cfg.Browser.Authorize(actx, authURL)
	timedOut := errors.Is(actx.Err(), context.DeadlineExceeded) && ctx.Err() == nil
	cancel()
	if err != nil {
		if timedOut {
			return nil, nil, &TimeoutError{URL: authURL, Timeout: f.cfg.AuthorizeTimeout}
		}
		return nil, nil, err
	}
	if r, ok := f.cfg.Browser.(Reporter); ok {
		defer func() { r.Report(err) }()
	}
	code, err := checkResponse(resp, state, d)
	if err != nil {
		return nil, nil, err
	}
	tok, err := f.exchange(ctx, d, c, redirect, code, verifier)
	if err != nil {
		return nil, nil, err
	}
	return c, tok, nil
}

// checkResponse checks an authorization response and returns its code: the state must
// be the request's, and the issuer the recorded one (RFC 9207 section 2.4, compared as
// strings, before the code goes anywhere, and before an error in it is believed).
func checkResponse(resp url.Values, state string, d *discovery) (string, error) {
	if resp.Get("state") != state {
		return "", ErrStateMismatch
	}
	if !d.legacy {
		iss, present := resp["iss"]
		switch {
		case present && (len(iss) != 1 || iss[0] != d.issuer):
			return "", &IssuerError{Where: "authorization response", Want: d.issuer, Got: strings.Join(iss, ",")}
		case !present && d.asm.AuthorizationResponseIssParameterSupported:
			return "", &IssuerError{Where: "authorization response", Want: d.issuer}
		}
	}
	if e := resp.Get("error"); e != "" {
		return "", &OAuthError{What: "authorization server", Code: e, Description: resp.Get("error_description")}
	}
	code := resp.Get("code")
	if code == "" {
		return "", errors.New("the authorization response carries no code")
	}
	return code, nil
}

// Login obtains a token for the server now, rather than on its first 401: it discovers
// the authorization through the well-known URLs and runs the grant for the scopes the
// server's metadata lists.
func (f *Flow) Login(ctx context.Context) error {
	if err := f.lock(ctx); err != nil {
		return err
	}
	defer f.unlock()
	rec, err := f.record(ctx)
	if err != nil {
		return err
	}
	d, err := f.rediscover(ctx, "")
	if err != nil {
		return err
	}
	if rec.Issuer != "" && rec.Issuer != d.issuer {
		rec = &Record{}
	}
	scope := rec.Scope
	if scope == "" && d.prm != nil {
		scope = strings.Join(d.prm.ScopesSupported, " ")
	}
	return assumed(d, f.obtain(ctx, d, rec, scope))
}

// Logout forgets the server's tokens and client registration, here and in the store.
func (f *Flow) Logout(ctx context.Context) error {
	if err := f.lock(ctx); err != nil {
		return err
	}
	defer f.unlock()
	f.mu.Lock()
	f.rec = &Record{}
	f.gen++
	f.futile = nil
	f.mu.Unlock()
	return f.cfg.Store.Delete(ctx, f.key)
}

// Record returns a copy of what the flow holds for the server (nil if nothing), for a
// status display; it holds secrets.
func (f *Flow) Record(ctx context.Context) (*Record, error) {
	rec, err := f.record(ctx)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if rec.Token == nil && rec.Client == nil {
		return nil, nil
	}
	return rec.clone(), nil
}

// markFutile notes that the server still refused a request for lack of scope after a
// step-up to scope: asking for it again would only show the user the same page.
func (f *Flow) markFutile(scope string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.futile == nil {
		f.futile = map[string]bool{}
	}
	f.futile[scopeKey(scope)] = true
}

// scopeKey is a scope list in a canonical order.
func scopeKey(scope string) string {
	s := strings.Fields(scope)
	slices.Sort(s)
	return strings.Join(s, " ")
}

// scope returns the scope the held token was asked for.
func (f *Flow) scope() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.rec == nil {
		return ""
	}
	return f.rec.Scope
}
