package auth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/mcpi-dev/mcpi/internal/cut"
	"github.com/mcpi-dev/mcpi/internal/redact"
)

// tokenChecker is the round tripper of token requests. golang.org/x/oauth2 takes any 2xx
// body it cannot parse for an error it words as "cannot parse json", and puts the whole
// body of a failed request (an HTML page, say) into its error; this answers such
// responses with a [*ResponseError] first. It also asks for JSON, which some servers
// (GitHub's) answer with a form-encoded body otherwise.
type tokenChecker struct {
	base http.RoundTripper
}

func (t tokenChecker) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	r.Header.Set("Accept", "application/json")
	resp, err := t.base.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	ct := resp.Header.Get("Content-Type")
	mt, _, _ := mime.ParseMediaType(ct)
	if ct == "" || isJSON(ct) || mt == "application/x-www-form-urlencoded" {
		return resp, nil // golang.org/x/oauth2 reads these (no type: as JSON)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	return nil, &ResponseError{What: "token endpoint", URL: req.URL.String(), StatusCode: resp.StatusCode, ContentType: ct}
}

// tokenContext is ctx with the HTTP client golang.org/x/oauth2 makes its token requests
// with: the flow's, behind a tokenChecker.
func (f *Flow) tokenContext(ctx context.Context) context.Context {
	hc := *f.hc
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	hc.Transport = tokenChecker{base: base}
	return context.WithValue(ctx, oauth2.HTTPClient, &hc)
}

// tokenError turns an error of golang.org/x/oauth2 into the package's: an OAuth error
// response into an [*OAuthError], a [*ResponseError] out of the *url.Error around it.
func tokenError(err error, endpoint string) error {
	var re *ResponseError
	if errors.As(err, &re) {
		return re
	}
	var rerr *oauth2.RetrieveError
	if errors.As(err, &rerr) {
		status := 0
		if rerr.Response != nil {
			status = rerr.Response.StatusCode
		}
		if rerr.ErrorCode == "" {
			return &ResponseError{What: "token endpoint", URL: endpoint, StatusCode: status, ContentType: "application/json"}
		}
		return &OAuthError{What: "token endpoint", Code: rerr.ErrorCode, Description: rerr.ErrorDescription, StatusCode: status, Err: rerr}
	}
	if strings.Contains(err.Error(), "missing access_token") {
		return fmt.Errorf("the token endpoint %s answered no access_token", shownURL(endpoint))
	}
	return fmt.Errorf("requesting a token from %s: %w", shownURL(endpoint), redact.URLErrors(err))
}

// checkToken checks what the token endpoint issued: a bearer token (the only kind this
// client presents) that can be sent in an Authorization header. A token with a line
// break or another control character, which net/http refuses to send, would fail every
// request it went with before any reached the server, whose 401 would replace it: it is
// refused, not stored.
func checkToken(t *oauth2.Token, endpoint string) error {
	if typ := t.TokenType; typ != "" && !strings.EqualFold(typ, "bearer") {
		return fmt.Errorf("the token endpoint %s issued a token of type %q; only bearer tokens are supported", shownURL(endpoint), cut.Bytes(typ, maxCode))
	}
	for i := 0; i < len(t.AccessToken); i++ {
		if c := t.AccessToken[i]; c < ' ' || c == 0x7f {
			return fmt.Errorf("the token endpoint %s issued an access token with a character that cannot be sent in a header (byte %d)", shownURL(endpoint), i)
		}
	}
	return nil
}

// grantedScope is the scope a token response names, or "" (then it is the one asked
// for, RFC 6749 section 5.1).
func grantedScope(t *oauth2.Token) string {
	s, _ := t.Extra("scope").(string)
	return s
}

// clientAuth returns how client authenticates at the token endpoint of d: the auth style
// and secret for golang.org/x/oauth2, and the parameters a private key JWT adds.
func (f *Flow) clientAuth(d *discovery, c *ClientInfo) (style oauth2.AuthStyle, secret string, params url.Values, err error) {
	switch f.tokenAuthMethod(c, d.asm.TokenEndpointAuthMethodsSupported) {
	case AuthMethodBasic:
		return oauth2.AuthStyleInHeader, c.Secret, nil, nil
	case AuthMethodPost:
		return oauth2.AuthStyleInParams, c.Secret, nil, nil
	case AuthMethodPrivateKeyJWT:
		a, err := clientAssertion(f.cfg.PrivateKey, f.cfg.SigningAlg, c.ID, d.issuer, f.now())
		if err != nil {
			return 0, "", nil, err
		}
		return oauth2.AuthStyleInParams, "", url.Values{
			"client_assertion_type": {clientAssertionType},
			"client_assertion":      {a},
		}, nil
	}
	// none: the client_id in the body, and no secret.
	return oauth2.AuthStyleInParams, "", nil, nil
}

// exchange trades an authorization code for a token (with the PKCE verifier and the
// resource indicator).
func (f *Flow) exchange(ctx context.Context, d *discovery, c *ClientInfo, redirect, code, verifier string) (*oauth2.Token, error) {
	style, secret, params, err := f.clientAuth(d, c)
	if err != nil {
		return nil, err
	}
	conf := &oauth2.Config{
		ClientID:     c.ID,
		ClientSecret: secret,
		Endpoint:     oauth2.Endpoint{AuthURL: d.asm.AuthorizationEndpoint, TokenURL: d.asm.TokenEndpoint, AuthStyle: style},
		RedirectURL:  redirect,
	}
	opts := []oauth2.AuthCodeOption{oauth2.VerifierOption(verifier), oauth2.SetAuthURLParam("resource", d.resource)}
	for k := range params {
		opts = append(opts, oauth2.SetAuthURLParam(k, params.Get(k)))
	}
	t, err := conf.Exchange(f.tokenContext(ctx), code, opts...)
	if err != nil {
		return nil, tokenError(err, d.asm.TokenEndpoint)
	}
	return t, checkToken(t, d.asm.TokenEndpoint)
}

// endpointToken requests a token with the form values grant (grant_type and its own
// parameters) and the resource indicator, authenticating as c.
//
// It is built on golang.org/x/oauth2/clientcredentials, the one token request of that
// module that takes extra parameters and lets grant_type be set: golang.org/x/oauth2's
// own refresh sends no resource indicator (RFC 8707 section 2.2), and cannot be told to.
func (f *Flow) endpointToken(ctx context.Context, d *discovery, c *ClientInfo, grant url.Values, scope string) (*oauth2.Token, error) {
	style, secret, params, err := f.clientAuth(d, c)
	if err != nil {
		return nil, err
	}
	v := url.Values{"resource": {d.resource}}
	for k, vs := range grant {
		v[k] = vs
	}
	for k, vs := range params {
		v[k] = vs
	}
	conf := &clientcredentials.Config{
		ClientID:       c.ID,
		ClientSecret:   secret,
		TokenURL:       d.asm.TokenEndpoint,
		Scopes:         strings.Fields(scope),
		EndpointParams: v,
		AuthStyle:      style,
	}
	t, err := conf.Token(f.tokenContext(ctx))
	if err != nil {
		return nil, tokenError(err, d.asm.TokenEndpoint)
	}
	return t, checkToken(t, d.asm.TokenEndpoint)
}

// refresh trades a refresh token for a new token, for the same resource.
func (f *Flow) refresh(ctx context.Context, d *discovery, c *ClientInfo, refreshToken string) (*oauth2.Token, error) {
	t, err := f.endpointToken(ctx, d, c, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refreshToken}}, "")
	if err != nil {
		return nil, err
	}
	if t.RefreshToken == "" {
		t.RefreshToken = refreshToken // a server that does not rotate it keeps the old one valid
	}
	return t, nil
}
