package connect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/mcpi-dev/mcpi/auth"
	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/look"
	"github.com/mcpi-dev/mcpi/transport"
)

// Auth is how mcpi authorizes itself with HTTP servers that ask for OAuth (see package
// auth): the flags --no-browser, --client-id, --client-secret, --client-credentials and
// --token-store, where the tokens are kept, and how a login is shown to the user. A
// server given an Authorization header with --header gets no flow: the header is the
// credential.
type Auth struct {
	// NoBrowser prints the authorization URL instead of opening the browser.
	NoBrowser bool
	// ClientID and ClientSecret are credentials registered with the authorization
	// server beforehand; without ClientCredentials they are the client of the browser
	// login.
	ClientID, ClientSecret string
	// ClientCredentials obtains tokens with the client credentials grant of ClientID and
	// ClientSecret: no user, no browser.
	ClientCredentials bool
	// TokenStore names where tokens are kept: "file" (or "") or "keyring".
	TokenStore string
	// Store, when set, keeps the tokens (tests); else OpenStore opens the store
	// TokenStore names; with neither, each flow keeps its tokens in memory.
	Store     auth.Store
	OpenStore func(kind string) (auth.Store, error)
	// tokenStoreEnv is $MCPI_TOKEN_STORE, and tokenStoreSet whether --token-store was
	// given: which of them a wrong name came from.
	tokenStoreEnv string
	tokenStoreSet bool
	// Show shows the user the authorization URL of a login (opens the browser, prints
	// it, puts it on a page) and returns; the flow then waits for the redirect. nil means
	// no one can log in: a server that wants a login fails with a
	// [*cmdutil.LoginNeededError] before anything is sent to its authorization server.
	Show func(ctx context.Context, server, authURL string) error
	// AuthorizeTimeout bounds a login; 0 means [auth.DefaultAuthorizeTimeout].
	AuthorizeTimeout time.Duration
	// Logger receives the flow's debug records (never a token).
	Logger *slog.Logger
}

// clientSecretEnv gives --client-secret without putting it on the command line, where
// other users of the machine can read it.
const clientSecretEnv = "MCPI_CLIENT_SECRET"

// tokenStoreEnv sets the default of --token-store.
const tokenStoreEnv = "MCPI_TOKEN_STORE"

// addFlags registers the authorization flags on fs.
func (a *Auth) addFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&a.NoBrowser, "no-browser", false, "print the URL of an OAuth login on stderr instead of opening the browser")
	fs.StringVar(&a.ClientID, "client-id", "", "log in to an OAuth server as the pre-registered client `ID`")
	fs.StringVar(&a.ClientSecret, "client-secret", "", "the `SECRET` of --client-id (or $"+clientSecretEnv+")")
	fs.BoolVar(&a.ClientCredentials, "client-credentials", false, "obtain OAuth tokens with the client credentials grant of --client-id and --client-secret, with no user and no browser (for scripts)")
	a.tokenStoreEnv = os.Getenv(tokenStoreEnv)
	a.TokenStore = a.tokenStoreEnv
	if a.TokenStore == "" {
		a.TokenStore = "file"
	}
	fs.Var(storeFlag{a}, "token-store", "keep OAuth tokens in `STORE`: file (a file per server in the state directory) or keyring (the OS keyring); $"+tokenStoreEnv+" sets the default")
}

// storeFlag is --token-store, which notes that it was given: a wrong name is then the
// flag's, else $MCPI_TOKEN_STORE's.
type storeFlag struct{ a *Auth }

func (f storeFlag) Set(s string) error {
	f.a.TokenStore, f.a.tokenStoreSet = s, true
	return nil
}
func (f storeFlag) String() string {
	if f.a == nil {
		return ""
	}
	return f.a.TokenStore
}
func (storeFlag) Type() string { return "string" }

// CheckTokenStore refuses a token store that is neither "file" nor "keyring", naming
// where its name came from. Each command that uses the store checks it (one that does
// not, such as "serve", leaves a mistyped $MCPI_TOKEN_STORE alone).
func (a *Auth) CheckTokenStore() error {
	switch a.TokenStore {
	case "", "file", "keyring":
		return nil
	}
	if !a.tokenStoreSet && a.TokenStore == a.tokenStoreEnv {
		return cmdutil.UsageErrorf("$%s is %q: give file or keyring, or unset it", tokenStoreEnv, a.TokenStore)
	}
	return cmdutil.UsageErrorf("--token-store %q: give file or keyring", a.TokenStore)
}

// check refuses flags that do not go together; hasAuthHeader is whether --header (or
// the config entry) sets Authorization.
func (a *Auth) check(hasAuthHeader bool) error {
	switch {
	case a.ClientSecret != "" && a.ClientID == "":
		return cmdutil.UsageErrorf("--client-secret needs --client-id")
	case a.ClientCredentials && a.ClientID == "":
		return cmdutil.UsageErrorf("--client-credentials needs --client-id (and --client-secret)")
	case hasAuthHeader && (a.ClientID != "" || a.ClientCredentials):
		return cmdutil.UsageErrorf("give either an Authorization header or --client-id, not both")
	}
	return nil
}

// flow returns the OAuth flow for the server at rawURL, which flags names for the
// login command. With hideToken, the flow does not see the token stored (it keeps the
// client registration), and replaces it once it has a new one. With lenient, a store
// that cannot be reached at all reads as empty, and fails only the login that would
// need it (see [lenientStore]); the auth commands, which are about the store, are not
// lenient.
func (a *Auth) flow(rawURL, flags string, hideToken, lenient bool) (*auth.Flow, error) {
	if err := a.CheckTokenStore(); err != nil {
		return nil, err
	}
	store := a.Store
	if store == nil && a.OpenStore != nil {
		var err error
		if store, err = a.OpenStore(a.TokenStore); err != nil {
			if _, ok := errors.AsType[*cmdutil.StoreUnreachableError](err); !ok || !lenient {
				return nil, err
			}
			store = unreachableStore{err}
		}
	}
	if store == nil {
		store = &auth.MemoryStore{}
	}
	if hideToken {
		store = tokenless{store}
	}
	var ls *lenientStore
	if lenient {
		ls = &lenientStore{Store: store}
		store = ls
	}
	cfg := &auth.Config{
		ClientID:         a.ClientID,
		ClientSecret:     a.ClientSecret,
		Store:            store,
		AuthorizeTimeout: a.AuthorizeTimeout,
		Logger:           a.Logger,
	}
	if cfg.ClientID != "" && cfg.ClientSecret == "" {
		cfg.ClientSecret = os.Getenv(clientSecretEnv)
	}
	if a.ClientCredentials {
		cfg.Grant = auth.ClientCredentials
	} else {
		cfg.Browser = &loginBrowser{show: a.Show, server: shownURL(rawURL), flags: flags, store: ls}
	}
	f, err := auth.New(rawURL, cfg)
	if err != nil {
		return nil, cmdutil.UsageErrorf("%s", err.Error())
	}
	return f, nil
}

// loginBrowser is the [auth.Browser] of the CLI and the inspectors: the redirect comes
// back to a loopback listener ([auth.Loopback]), and show puts the authorization URL
// before the user. The listener lives only while a login waits for its redirect; the
// next login listens again on the same address, as the redirect URL registered with
// the authorization server must stay the same.
type loginBrowser struct {
	show          func(ctx context.Context, server, authURL string) error
	server, flags string
	store         *lenientStore // nil: the store's errors are the flow's

	mu   sync.Mutex
	addr string // the listener's address, once it has listened
	lb   *auth.Loopback
}

// RedirectURL implements [auth.Browser]. With no one to log in, it fails before the
// flow registers a client for a login that cannot happen.
func (b *loginBrowser) RedirectURL(ctx context.Context) (string, error) {
	if err := b.store.unreachable(); err != nil {
		// The login's tokens could not be kept: the user would log in for nothing.
		return "", err
	}
	if b.show == nil {
		return "", &cmdutil.LoginNeededError{Server: b.server, Flags: b.flags}
	}
	if ctx.Value(deferLoginKey{}) != nil {
		return "", errLoginDeferred
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.lb == nil {
		show, server := b.show, b.server
		b.lb = &auth.Loopback{Addr: b.addr, Open: func(ctx context.Context, authURL string) error {
			return show(ctx, server, authURL)
		}}
	}
	u, err := b.lb.RedirectURL(ctx)
	if err != nil {
		b.lb = nil
		return "", err
	}
	if b.addr == "" {
		if pu, err := url.Parse(u); err == nil {
			b.addr = pu.Host
		}
	}
	return u, nil
}

// Authorize implements [auth.Browser]. A login that got no response is over: the
// listener stops. One that got a response stops it once reported (see Report), so that
// the page the browser waits for says how the login ended.
func (b *loginBrowser) Authorize(ctx context.Context, authURL string) (url.Values, error) {
	b.mu.Lock()
	lb := b.lb
	b.mu.Unlock()
	if lb == nil {
		return nil, errors.New("the login's redirect listener is not listening")
	}
	v, err := lb.Authorize(ctx, authURL)
	if err != nil {
		b.stop(lb)
	}
	return v, err
}

// Report implements [auth.Reporter]: the page of the redirect says how the login
// ended, and the listener stops.
func (b *loginBrowser) Report(err error) {
	b.mu.Lock()
	lb := b.lb
	b.mu.Unlock()
	if lb != nil {
		lb.Report(err)
		b.stop(lb)
	}
}

// stop stops lb listening; the next login listens again.
func (b *loginBrowser) stop(lb *auth.Loopback) {
	b.mu.Lock()
	if b.lb == lb {
		b.lb = nil
	}
	b.mu.Unlock()
	_ = lb.Close()
}

// errLoginDeferred is the failure of a login that a handshake ran into: see
// [Selection.ConnectResuming], which runs it after the handshake, outside its bounds.
// It is never shown: the connection logs in and starts again.
var errLoginDeferred = errors.New("the login is left until after the handshake")

// deferLoginKey marks the context of a handshake, whose requests do not run a login
// themselves but fail with errLoginDeferred.
type deferLoginKey struct{}

// deferLogin returns ctx with the mark of deferLoginKey; the HTTP transport gives its
// requests the values of the context they are sent with, and the flow hands the
// request's context to [loginBrowser.RedirectURL].
func deferLogin(ctx context.Context) context.Context {
	return context.WithValue(ctx, deferLoginKey{}, true)
}

// loginProbeTimeout bounds each attempt of the request that asks the server whether it
// wants a token (see [Selection.loginFirst]): as long as client.Connect waits for
// server/discover. A shorter --timeout bounds it instead ([Selection.loginProbeBound]).
const loginProbeTimeout = 5 * time.Second

// loginProbeBound is the bound of each attempt of the login probe: --timeout, which
// promises to bound each request, when it is shorter than loginProbeTimeout.
func (s *Selection) loginProbeBound() time.Duration {
	if t := s.Limits.Timeout; t > 0 && t < loginProbeTimeout {
		return t
	}
	return loginProbeTimeout
}

// needsToken reports whether the flow holds no token it can send or refresh, so that
// the server's first 401 would take the user to the browser. It fails when the store
// cannot be read (a damaged token file, a keyring that cannot be reached).
func needsToken(ctx context.Context, f *auth.Flow) (bool, error) {
	rec, err := f.Record(ctx)
	if err != nil {
		return false, err
	}
	if rec == nil || rec.Token == nil || rec.Token.AccessToken == "" {
		return true, nil
	}
	return rec.Token.RefreshToken == "" && !auth.Usable(rec.Token, time.Now()), nil
}

// loginFirst runs the login a server wants before the session with it starts, when the
// flow has no token to send: client.Connect gives server/discover only its probe
// timeout (5 s) before it takes the server for one of 2025-11-25, and the whole
// connection [DefaultInitTimeout]; a user in the browser takes longer than either. Were
// the login left to the first request's 401, the probe would be given up while the user
// logs in, and the server initialized in the older era, or not at all. So one request
// without a token asks first: a GET of the endpoint, sent through the flow, whose 401 runs the login
// right here, bounded only by the login's own timeout (and ctx), with the challenge's
// resource metadata and scope, exactly as a session's request would; the session then
// starts with the token. Each attempt to reach the server is bounded by
// [Selection.loginProbeBound], so a server that does not answer costs no more than the probe it
// would get anyway. A server that wants no token answers the probe (a GET, no JSON-RPC
// message): one round trip more, paid once, as the era memory then knows the server
// is open.
//
// With a token stored nothing is asked. A token the server no longer takes, with no
// refresh the authorization server accepts, is found out by the handshake, which
// leaves the login to be run as this one is (see [Selection.ConnectResuming]).
//
// A server that answered the probe without wanting a token is remembered as open (in
// the era memory, when there is one), so that the probe is paid once, not by every
// command; a login the server asks for later, in a session, clears that.
func (s *Selection) loginFirst(ctx context.Context, f *auth.Flow, rawURL string, headers http.Header, mem OpenMemory, key string) error {
	need, err := needsToken(ctx, f)
	if err != nil || !need {
		return err
	}
	if mem != nil && key != "" && mem.Open(key) {
		return nil
	}
	err = s.probe(ctx, f, rawURL, headers)
	if _, unreached := errors.AsType[*attemptError](err); unreached && ctx.Err() == nil {
		return nil // connecting says why
	}
	if err == nil && mem != nil && key != "" {
		// No login ran and no token came: the server answered without one.
		if still, serr := needsToken(ctx, f); serr == nil && still {
			_ = mem.RememberOpen(key, true) // a cache: failing costs a probe
		}
	}
	return err
}

// OpenMemory remembers the servers that answered without a token (see Selection.loginFirst);
// [state.Eras] is one.
type OpenMemory interface {
	Open(server string) bool
	RememberOpen(server string, open bool) error
}

// probe sends a GET of the endpoint through f, so that a 401 runs f's login. A failure
// to reach the server, or to hear from it within [Selection.loginProbeBound], is an
// *attemptError.
func (s *Selection) probe(ctx context.Context, f *auth.Flow, rawURL string, headers http.Header) error {
	base := http.DefaultTransport.(*http.Transport).Clone()
	defer base.CloseIdleConnections()
	hc := &http.Client{
		Transport:     f.Wrap(attemptBound{rt: base, timeout: s.loginProbeBound()}),
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	// A GET of the endpoint, which sends no JSON-RPC message: a server that wants a
	// token refuses it with 401 like any other request (and the flow logs in), one that
	// does not answers it (405, 400, or a stream, closed at once).
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return err
	}
	for k, v := range headers {
		req.Header[k] = v
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := hc.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the flow's own error, without the URL that its sentence names
		}
		return err
	}
	resp.Body.Close()
	return nil
}

// attemptBound bounds each round trip to the server by timeout, leaving the time the
// flow takes between them (the user's login) unbounded; its errors are attemptErrors,
// told apart from the flow's.
type attemptBound struct {
	rt      http.RoundTripper
	timeout time.Duration
}

// attemptError is a failure to reach the server, or to hear from it within timeout.
type attemptError struct {
	err     error
	timeout time.Duration
}

func (e *attemptError) Error() string {
	if errors.Is(e.err, context.DeadlineExceeded) {
		return fmt.Sprintf("the server did not answer within %s", e.timeout)
	}
	return e.err.Error()
}

// Unwrap gives the cause, as transport.ErrUnreachable when nothing listens, so that
// the sentence of a failed connection words it.
func (e *attemptError) Unwrap() []error {
	if op, ok := errors.AsType[*net.OpError](e.err); ok && op.Op == "dial" {
		return []error{transport.ErrUnreachable, e.err}
	}
	return []error{e.err}
}

func (a attemptBound) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(req.Context(), a.timeout)
	resp, err := a.rt.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
		return nil, &attemptError{err: err, timeout: a.timeout}
	}
	resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

// cancelBody ends an attempt's context once its body is closed.
type cancelBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// Login logs in to the HTTP server the selection names, now, whether or not a token is
// stored: it asks the server with no token (see [Selection.loginFirst]) so that the login follows
// the server's own challenge; a server that answers without asking for one is logged in
// to through the metadata at its well-known URLs ([auth.Flow.Login]). The new token
// replaces the stored one only once obtained.
func (s *Selection) Login(ctx context.Context) (*Target, error) {
	t, err := s.FlowTarget()
	if err != nil {
		return nil, err
	}
	if s.Auth.ClientCredentials {
		return t, t.Flow.Login(ctx)
	}
	fresh, err := s.Auth.flow(t.URL, s.flags(t), true, false)
	if err != nil {
		return nil, err
	}
	if err := s.probe(ctx, fresh, t.URL, t.Header); err != nil {
		return t, err
	}
	if rec, err := fresh.Record(ctx); err != nil || rec != nil && rec.Token != nil {
		return t, err // the server asked for a token, and the login got one
	}
	if !publishesResourceMetadata(ctx, t.URL, t.Header) {
		// No OAuth at all: a login through metadata assumed in its place can only fail,
		// in words (a 404 of /register, no terminal to open a browser on) that read
		// as if a login were wanted.
		return t, ErrNoLoginNeeded
	}
	if err := fresh.Login(ctx); err != nil {
		// Most often a server with no OAuth at all: say first that the commands need no
		// login (the sentence of the failure alone read as if they did), then that the
		// login asked for failed, as two facts ("needs no login; logging in anyway
		// failed" read as a contradiction).
		why := look.AuthSentence(err)
		if why == "" {
			why = look.Sentence(err)
		}
		return t, cmdutil.UsageErrorf("the server at %s answers without a token, so mcpi's commands work without a login; it publishes OAuth metadata, but the login through it failed: %s",
			t.Name, strings.TrimPrefix(why, "the OAuth login failed: "))
	}
	return t, nil
}

// ErrNoLoginNeeded is the outcome of [Selection.Login] with a server that answers
// without a token and publishes no protected resource metadata: it has no OAuth, and
// there is nothing to log in to.
var ErrNoLoginNeeded = errors.New("the server needs no login")

// publishesResourceMetadata reports whether the server at rawURL publishes OAuth
// protected resource metadata (RFC 9728) at either well-known URL the flow looks at: a
// JSON object answered with 200. A server that cannot be asked is taken to publish it,
// so that the login goes on and its own failure says what went wrong.
func publishesResourceMetadata(ctx context.Context, rawURL string, headers http.Header) bool {
	u, err := url.Parse(rawURL)
	if err != nil {
		return true
	}
	base := http.DefaultTransport.(*http.Transport).Clone()
	defer base.CloseIdleConnections()
	hc := &http.Client{Transport: attemptBound{rt: base, timeout: loginProbeTimeout}}
	const wellKnown = "/.well-known/oauth-protected-resource"
	paths := []string{wellKnown}
	if p := strings.TrimSuffix(u.EscapedPath(), "/"); p != "" {
		paths = []string{wellKnown + p, wellKnown}
	}
	for _, p := range paths {
		m := url.URL{Scheme: u.Scheme, Host: u.Host, Path: p}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, m.String(), nil)
		if err != nil {
			return true
		}
		for k, v := range headers {
			req.Header[k] = v
		}
		req.Header.Set("Accept", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			return true
		}
		var doc map[string]any
		ok := resp.StatusCode == http.StatusOK && json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&doc) == nil
		resp.Body.Close()
		if ok {
			return true
		}
	}
	return false
}

// FlowTarget resolves the selection to a server mcpi logs in to: an HTTP server given
// no Authorization header, whose Target has a Flow.
func (s *Selection) FlowTarget() (*Target, error) {
	t, err := s.resolve(false)
	switch {
	case err != nil:
		return nil, err
	case t.Flow == nil && t.URL != "":
		return nil, cmdutil.UsageErrorf("an Authorization header is given for %s, so mcpi does not log in to it", t.Name)
	case t.Flow == nil:
		return nil, cmdutil.UsageErrorf("OAuth is for HTTP servers: name one with --url (or --config and --server)")
	}
	return t, nil
}

// flags returns the mcpi flags that name t's server, for messages: a password in its URL
// reads xxxxx, and the user puts it back.
func (s *Selection) flags(t *Target) string {
	if s.Config != "" && s.URL == "" {
		f := "--config " + cmdutil.ShellQuote(s.Config)
		if s.Server != "" {
			f += " --server " + cmdutil.ShellQuote(s.Server)
		}
		return f
	}
	return "--url " + cmdutil.ShellQuote(t.Name)
}

// tokenless is a store whose records come back without their token, for a login that
// must not use the one stored.
type tokenless struct{ auth.Store }

func (s tokenless) Load(ctx context.Context, server string) (*auth.Record, error) {
	r, err := s.Store.Load(ctx, server)
	if r != nil {
		r.Token = nil
	}
	return r, err
}

// unreachableStore is a token store that could not be opened at all: every use fails
// with err, a [*cmdutil.StoreUnreachableError], which [lenientStore] reads as empty.
type unreachableStore struct{ err error }

func (s unreachableStore) Load(context.Context, string) (*auth.Record, error) { return nil, s.err }
func (s unreachableStore) Save(context.Context, string, *auth.Record) error   { return s.err }
func (s unreachableStore) Delete(context.Context, string) error               { return s.err }

// lenientStore is a store that cannot be reached at all (a
// [*cmdutil.StoreUnreachableError], such as the OS keyring with no D-Bus session) read
// as empty, so that a server that wants no token is talked to whatever --token-store
// says. The error is kept, and a login, whose tokens the store could not keep, fails
// with it (see [loginBrowser.RedirectURL]); saving fails with it as well.
type lenientStore struct {
	auth.Store
	mu  sync.Mutex
	err error
}

func (s *lenientStore) Load(ctx context.Context, server string) (*auth.Record, error) {
	r, err := s.Store.Load(ctx, server)
	if _, ok := errors.AsType[*cmdutil.StoreUnreachableError](err); ok {
		s.mu.Lock()
		s.err = err
		s.mu.Unlock()
		return nil, nil
	}
	return r, err
}

// unreachable returns the error of a Load that could not reach the store; nil for a
// nil s.
func (s *lenientStore) unreachable() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}
