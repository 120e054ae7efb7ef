// Package oauthtest is a small OAuth 2.1 authorization server and a bearer-token guard
// for an MCP server, for tests of the authorization flow (package auth, and the
// end-to-end tests): metadata (RFC 8414), Dynamic Client Registration (RFC 7591), the
// authorization code grant with PKCE S256 (the user approves at once), refresh with
// rotation, the client credentials grant, client_secret_basic / client_secret_post /
// none, the resource indicator (RFC 8707) bound into every token, and iss in the
// authorization response (RFC 9207). Every request it gets is recorded, so that tests
// can check what the client sent.
package oauthtest

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// Server is the authorization server. Set its knobs before the client first reaches
// it; they are read under its lock.
type Server struct {
	*httptest.Server
	// Issuer is the server's issuer identifier, its URL.
	Issuer string

	mu sync.Mutex
	// Knobs.
	ScopesSupported []string // nil: not in the metadata
	AuthMethods     []string // token_endpoint_auth_methods_supported; nil: none, basic, post
	NoRegistration  bool     // no registration_endpoint
	MetadataIssuer  string   // the issuer the metadata names; "" means Issuer
	IssSupported    bool     // authorization_response_iss_parameter_supported
	// Iss is the iss the authorization response carries: "" the issuer, "-" none,
	// anything else that value.
	Iss string
	// StateOverride, if set, replaces the state of the authorization response.
	StateOverride string
	ExpiresIn     time.Duration // the access tokens' lifetime; 0 means an hour
	NoRefresh     bool          // issue no refresh tokens
	// TokenHTML makes the token endpoint answer an HTML page with 200.
	TokenHTML bool
	// Withhold lists scopes the user never grants: tokens lack them whatever was asked.
	Withhold []string
	// Clients pre-registered: client id to secret ("" for a public client).
	Clients map[string]string
	// Now tells the time, for token expiry; nil means time.Now.
	Now func() time.Time

	// Records.
	Registrations []map[string]any
	AuthRequests  []url.Values
	TokenRequests []url.Values // the form, plus "auth" with "basic:ID" when Basic was used

	registered map[string]client
	codes      map[string]grant
	tokens     map[string]Token
	refreshes  map[string]grant
}

type client struct {
	secret    string
	redirects []string
}

type grant struct {
	client, redirect, challenge, scope, resource string
}

// Token is what the server knows of an access token it issued.
type Token struct {
	Client   string
	Scope    []string
	Resource string
	Expiry   time.Time
	Issuer   string
}

// NewServer starts an authorization server; it stops when the test ends.
func NewServer(t interface{ Cleanup(func()) }) *Server {
	s := &Server{
		registered: map[string]client{},
		codes:      map[string]grant{},
		tokens:     map[string]Token{},
		refreshes:  map[string]grant{},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", s.metadata)
	mux.HandleFunc("GET /authorize", s.authorize)
	mux.HandleFunc("POST /token", s.token)
	mux.HandleFunc("POST /register", s.register)
	s.Server = httptest.NewServer(mux)
	s.Issuer = s.URL
	t.Cleanup(s.Close)
	return s
}

func (s *Server) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func random() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func oauthError(w http.ResponseWriter, status int, code, desc string) {
	writeJSON(w, status, map[string]string{"error": code, "error_description": desc})
}

func (s *Server) metadata(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	iss := s.Issuer
	if s.MetadataIssuer != "" {
		iss = s.MetadataIssuer
	}
	methods := s.AuthMethods
	if methods == nil {
		methods = []string{"none", "client_secret_basic", "client_secret_post"}
	}
	m := map[string]any{
		"issuer":                                iss,
		"authorization_endpoint":                s.URL + "/authorize",
		"token_endpoint":                        s.URL + "/token",
		"response_types_supported":              []string{"code"},
		"grant_types_supported":                 []string{"authorization_code", "refresh_token", "client_credentials"},
		"code_challenge_methods_supported":      []string{"S256"},
		"token_endpoint_auth_methods_supported": methods,
	}
	if !s.NoRegistration {
		m["registration_endpoint"] = s.URL + "/register"
	}
	if s.ScopesSupported != nil {
		m["scopes_supported"] = s.ScopesSupported
	}
	if s.IssSupported {
		m["authorization_response_iss_parameter_supported"] = true
	}
	writeJSON(w, http.StatusOK, m)
}

func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_client_metadata", err.Error())
		return
	}
	var redirects []string
	if rs, ok := body["redirect_uris"].([]any); ok {
		for _, r := range rs {
			if s, ok := r.(string); ok {
				redirects = append(redirects, s)
			}
		}
	}
	if len(redirects) == 0 {
		oauthError(w, http.StatusBadRequest, "invalid_redirect_uri", "no redirect_uris")
		return
	}
	method, _ := body["token_endpoint_auth_method"].(string)
	if method == "" {
		method = "client_secret_basic"
	}
	c := client{redirects: redirects}
	if method != "none" {
		c.secret = random()
	}
	id := "client-" + random()
	s.mu.Lock()
	s.Registrations = append(s.Registrations, body)
	s.registered[id] = c
	s.mu.Unlock()
	resp := map[string]any{"client_id": id, "redirect_uris": redirects, "token_endpoint_auth_method": method}
	if c.secret != "" {
		resp["client_secret"] = c.secret
	}
	writeJSON(w, http.StatusCreated, resp)
}

// lookup returns the client id's registration, pre-registered or dynamic. The caller
// holds the lock.
func (s *Server) lookup(id string) (client, bool) {
	if c, ok := s.registered[id]; ok {
		return c, true
	}
	if secret, ok := s.Clients[id]; ok {
		return client{secret: secret}, true
	}
	return client{}, false
}

func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.AuthRequests = append(s.AuthRequests, q)
	c, ok := s.lookup(q.Get("client_id"))
	redirect := q.Get("redirect_uri")
	switch {
	case !ok:
		http.Error(w, "unknown client", http.StatusBadRequest)
		return
	case c.redirects != nil && !slices.Contains(c.redirects, redirect):
		http.Error(w, "unregistered redirect_uri", http.StatusBadRequest)
		return
	case q.Get("code_challenge") == "" || q.Get("code_challenge_method") != "S256":
		http.Error(w, "PKCE S256 required", http.StatusBadRequest)
		return
	}
	code := random()
	s.codes[code] = grant{client: q.Get("client_id"), redirect: redirect, challenge: q.Get("code_challenge"),
		scope: q.Get("scope"), resource: q.Get("resource")}
	u, err := url.Parse(redirect)
	if err != nil {
		http.Error(w, "bad redirect_uri", http.StatusBadRequest)
		return
	}
	back := u.Query()
	back.Set("code", code)
	back.Set("state", q.Get("state"))
	if s.StateOverride != "" {
		back.Set("state", s.StateOverride)
	}
	switch s.Iss {
	case "":
		back.Set("iss", s.Issuer)
	case "-":
	default:
		back.Set("iss", s.Iss)
	}
	u.RawQuery = back.Encode()
	http.Redirect(w, r, u.String(), http.StatusFound)
}

// authenticate checks the client authentication of a token request and returns the
// client id. The caller holds the lock.
func (s *Server) authenticate(r *http.Request, form url.Values) (string, bool) {
	if a := form.Get("client_assertion"); a != "" {
		// private_key_jwt: the client is the assertion's issuer. Its signature is the
		// business of package auth's own tests.
		var claims struct {
			Iss string `json:"iss"`
		}
		parts := strings.Split(a, ".")
		if len(parts) != 3 || form.Get("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" {
			return "", false
		}
		b, err := base64.RawURLEncoding.DecodeString(parts[1])
		if err != nil || json.Unmarshal(b, &claims) != nil {
			return "", false
		}
		_, ok := s.lookup(claims.Iss)
		return claims.Iss, ok
	}
	id, secret, basic := r.BasicAuth()
	if basic {
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
		form.Set("auth", "basic:"+id)
	} else {
		id, secret = form.Get("client_id"), form.Get("client_secret")
	}
	c, ok := s.lookup(id)
	if !ok || c.secret != secret {
		return "", false
	}
	return id, true
}

func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request", err.Error())
		return
	}
	form := r.PostForm
	s.mu.Lock()
	defer s.mu.Unlock()
	id, ok := s.authenticate(r, form)
	s.TokenRequests = append(s.TokenRequests, form)
	if s.TokenHTML {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><body>Sign in to continue</body></html>")
		return
	}
	if !ok {
		oauthError(w, http.StatusUnauthorized, "invalid_client", "unknown client or wrong secret")
		return
	}
	var g grant
	switch form.Get("grant_type") {
	case "authorization_code":
		c, found := s.codes[form.Get("code")]
		delete(s.codes, form.Get("code"))
		sum := sha256.Sum256([]byte(form.Get("code_verifier")))
		switch {
		case !found || c.client != id:
			oauthError(w, http.StatusBadRequest, "invalid_grant", "unknown code")
			return
		case base64.RawURLEncoding.EncodeToString(sum[:]) != c.challenge:
			oauthError(w, http.StatusBadRequest, "invalid_grant", "PKCE verification failed")
			return
		case form.Get("redirect_uri") != c.redirect || form.Get("resource") != c.resource:
			oauthError(w, http.StatusBadRequest, "invalid_grant", "redirect_uri or resource differs from the authorization request's")
			return
		}
		g = c
	case "refresh_token":
		c, found := s.refreshes[form.Get("refresh_token")]
		delete(s.refreshes, form.Get("refresh_token")) // rotated
		if !found || c.client != id {
			oauthError(w, http.StatusBadRequest, "invalid_grant", "unknown refresh token")
			return
		}
		if res := form.Get("resource"); res != c.resource {
			oauthError(w, http.StatusBadRequest, "invalid_target", "the resource differs from the grant's")
			return
		}
		g = c
	case "client_credentials":
		g = grant{client: id, scope: form.Get("scope"), resource: form.Get("resource")}
	default:
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type", form.Get("grant_type"))
		return
	}
	life := s.ExpiresIn
	if life == 0 {
		life = time.Hour
	}
	access := "at-" + random()
	scope := slices.DeleteFunc(strings.Fields(g.scope), func(sc string) bool { return slices.Contains(s.Withhold, sc) })
	s.tokens[access] = Token{Client: id, Scope: scope, Resource: g.resource, Expiry: s.now().Add(life), Issuer: s.Issuer}
	resp := map[string]any{"access_token": access, "token_type": "Bearer", "expires_in": int(life / time.Second)}
	if len(scope) > 0 {
		resp["scope"] = strings.Join(scope, " ")
	}
	if !s.NoRefresh && form.Get("grant_type") != "client_credentials" {
		rt := "rt-" + random()
		s.refreshes[rt] = g
		resp["refresh_token"] = rt
	}
	writeJSON(w, http.StatusOK, resp)
}

// Lookup returns what the server knows of an access token it issued.
func (s *Server) Lookup(access string) (Token, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tokens[access]
	return t, ok
}

// Set runs f with the server's lock held, to change its knobs safely.
func (s *Server) Set(f func(s *Server)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(s)
}

// Snapshot returns copies of the records.
func (s *Server) Snapshot() (regs []map[string]any, auths, tokens []url.Values) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.Registrations), slices.Clone(s.AuthRequests), slices.Clone(s.TokenRequests)
}

// Set runs f with the guard's lock held, to change its fields once it serves.
func (g *Guard) Set(f func(g *Guard)) {
	g.mu.Lock()
	defer g.mu.Unlock()
	f(g)
}

// Guard puts bearer-token checking in front of an MCP server's handler, as a resource
// server must: it serves the protected resource metadata, and lets a request through
// only with a token that one of its authorization servers issued for Resource, has not
// expired, and holds the scopes Required names for it.
type Guard struct {
	// Resource is the MCP server's canonical URL, which tokens must be issued for.
	Resource string
	// AS is the authorization server the metadata names; a function, so that a test
	// can move the server to another.
	AS func() *Server
	// ScopesSupported goes into the protected resource metadata.
	ScopesSupported []string
	// Required returns the scopes the request needs (its JSON-RPC method is given); nil
	// means none.
	Required func(method string) []string
	// Now tells the time, for token expiry; nil means time.Now.
	Now func() time.Time

	mu sync.Mutex
	// Authorizations records the Authorization header of every request to the MCP
	// endpoint.
	Authorizations []string
}

// Handler returns next behind the guard, with the protected resource metadata at its
// well-known URLs (path-aware, for the Resource's path).
func (g *Guard) Handler(next http.Handler) http.Handler {
	u, _ := url.Parse(g.Resource)
	prmPath := "/.well-known/oauth-protected-resource" + strings.TrimSuffix(u.Path, "/")
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+prmPath, func(w http.ResponseWriter, _ *http.Request) {
		g.mu.Lock()
		m := map[string]any{"resource": g.Resource, "authorization_servers": []string{g.AS().Issuer}}
		if g.ScopesSupported != nil {
			m["scopes_supported"] = g.ScopesSupported
		}
		g.mu.Unlock()
		writeJSON(w, http.StatusOK, m)
	})
	mux.Handle("/", g.check(next, u.Scheme+"://"+u.Host+prmPath))
	return mux
}

func (g *Guard) now() time.Time {
	if g.Now != nil {
		return g.Now()
	}
	return time.Now()
}

func (g *Guard) check(next http.Handler, prmURL string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := r.Header.Get("Authorization")
		g.mu.Lock()
		g.Authorizations = append(g.Authorizations, h)
		requiredFor, resource, as, now := g.Required, g.Resource, g.AS(), g.now()
		g.mu.Unlock()
		var required []string
		if requiredFor != nil && r.Method == http.MethodPost {
			var m struct {
				Method string `json:"method"`
			}
			body, _ := readBody(r)
			_ = json.Unmarshal(body, &m)
			required = requiredFor(m.Method)
		}
		challenge := func(status int, params string) {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata="%s"%s`, prmURL, params))
			w.WriteHeader(status)
		}
		access, ok := strings.CutPrefix(h, "Bearer ")
		if !ok {
			challenge(http.StatusUnauthorized, scopeParam(required))
			return
		}
		t, known := as.Lookup(access)
		if !known || t.Resource != resource || !now.Before(t.Expiry) {
			challenge(http.StatusUnauthorized, `, error="invalid_token"`+scopeParam(required))
			return
		}
		var missing []string
		for _, s := range required {
			if !slices.Contains(t.Scope, s) {
				missing = append(missing, s)
			}
		}
		if len(missing) > 0 {
			challenge(http.StatusForbidden, `, error="insufficient_scope"`+scopeParam(missing))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Seen returns the Authorization headers of the requests to the MCP endpoint.
func (g *Guard) Seen() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.Authorizations)
}

func scopeParam(scopes []string) string {
	if len(scopes) == 0 {
		return ""
	}
	return fmt.Sprintf(`, scope="%s"`, strings.Join(scopes, " "))
}

// readBody reads r's body and puts it back, for the handler after the guard.
func readBody(r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	r.Body = io.NopCloser(bytes.NewReader(b))
	return b, err
}

// Revoke forgets an access token, as a server that revoked it would.
func (s *Server) Revoke(access string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.tokens, access)
}

// RevokeAll forgets every access and refresh token issued, as an authorization server
// that revoked a user's grants would: the next request with a token is refused, and so
// is its refresh.
func (s *Server) RevokeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.tokens)
	clear(s.refreshes)
}

// Protected is an MCP server's handler behind a [Guard], with an authorization server
// of its own, served on a loopback port until the test ends.
type Protected struct {
	AS    *Server
	Guard *Guard
	// Mux routes the server's paths: the guarded handler at "/", and whatever a test
	// adds beside it.
	Mux *http.ServeMux
	// URL is the MCP endpoint, http://127.0.0.1:PORT/mcp.
	URL string
}

// Protect serves next at /mcp behind a guard whose tokens must be issued for that URL
// by a new authorization server. configure, if given, sets the knobs of both before
// the first request.
func Protect(t interface{ Cleanup(func()) }, next http.Handler, configure func(p *Protected)) *Protected {
	srv := httptest.NewUnstartedServer(nil)
	p := &Protected{AS: NewServer(t), Mux: http.NewServeMux(), URL: "http://" + srv.Listener.Addr().String() + "/mcp"}
	as := p.AS
	p.Guard = &Guard{Resource: p.URL, AS: func() *Server { return as }}
	if configure != nil {
		configure(p)
	}
	p.Mux.Handle("/", p.Guard.Handler(next))
	srv.Config.Handler = p.Mux
	srv.Start()
	t.Cleanup(srv.Close)
	return p
}
