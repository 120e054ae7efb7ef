package auth

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpi-dev/mcpi/internal/redact"
)

// How a client got its client id.
const (
	ClientPreRegistered    = "pre-registered"    // given in Config.ClientID
	ClientMetadataDocument = "metadata-document" // Config.ClientMetadataURL, used as the id
	ClientDynamic          = "dynamic"           // Dynamic Client Registration (RFC 7591)
)

// Token endpoint authentication methods (RFC 8414, RFC 7523).
const (
	AuthMethodBasic         = "client_secret_basic"
	AuthMethodPost          = "client_secret_post"
	AuthMethodNone          = "none"
	AuthMethodPrivateKeyJWT = "private_key_jwt"
)

// ClientInfo is a client registration with one authorization server.
type ClientInfo struct {
	ID     string `json:"client_id"`
	Secret string `json:"client_secret,omitempty"`
	// AuthMethod is the token endpoint authentication method the registration names, if
	// it names one.
	AuthMethod   string   `json:"token_endpoint_auth_method,omitempty"`
	RedirectURIs []string `json:"redirect_uris,omitempty"`
	// Kind tells how the id was got: [ClientPreRegistered], [ClientMetadataDocument] or
	// [ClientDynamic].
	Kind string `json:"kind"`
	// Issuer is the authorization server the registration belongs to: a client id is
	// unique to the server that issued it, and never presented to another.
	Issuer string `json:"issuer"`
}

// client returns the client to use with the authorization server of d for the
// redirect URL (empty for the client credentials grant): rec's, if it still fits,
// else one registered in the order the MCP specification gives: pre-registered
// credentials, a Client ID Metadata Document (when the server takes one), Dynamic
// Client Registration.
func (f *Flow) client(ctx context.Context, d *discovery, rec *Record, redirect, scope string) (*ClientInfo, error) {
	if f.cfg.ClientID != "" {
		want := f.cfg.ClientIssuer
		if want == "" && rec.Client != nil && rec.Client.Kind == ClientPreRegistered {
			want = rec.Client.Issuer // the server it was first used with
		}
		if want != "" && want != d.issuer {
			return nil, &IssuerError{Where: "client", Want: want, Got: d.issuer}
		}
		return &ClientInfo{ID: f.cfg.ClientID, Secret: f.cfg.ClientSecret, Kind: ClientPreRegistered, Issuer: d.issuer}, nil
	}
	if c := rec.Client; c != nil && c.Issuer == d.issuer && (c.Kind != ClientDynamic || slices.Contains(c.RedirectURIs, redirect)) {
		return c, nil
	}
	if d.asm.ClientIDMetadataDocumentSupported && f.cfg.ClientMetadataURL != "" {
		f.log.Debug("using the client ID metadata document as client id", "client_id", redact.URL(f.cfg.ClientMetadataURL))
		return &ClientInfo{ID: f.cfg.ClientMetadataURL, AuthMethod: AuthMethodNone, Kind: ClientMetadataDocument, Issuer: d.issuer}, nil
	}
	if d.asm.RegistrationEndpoint == "" {
		return nil, ErrNoRegistration
	}
	return f.registerClient(ctx, d, redirect, scope)
}

// registerClient registers the client with Dynamic Client Registration (RFC 7591).
func (f *Flow) registerClient(ctx context.Context, d *discovery, redirect, scope string) (*ClientInfo, error) {
	const what = "registration endpoint"
	endpoint := d.asm.RegistrationEndpoint
	body := map[string]any{
		"client_name":    f.cfg.ClientName,
		"redirect_uris":  []string{redirect},
		"grant_types":    []string{"authorization_code", "refresh_token"},
		"response_types": []string{"code"},
		// SEP-837: the kind of client, which the redirect URI gives away.
		"application_type": applicationType(redirect),
	}
	if m := registrationAuthMethod(d.asm.TokenEndpointAuthMethodsSupported); m != "" {
		body["token_endpoint_auth_method"] = m
	}
	if scope != "" {
		body["scope"] = scope
	}
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := f.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("registering the client at %s: %w", shownURL(endpoint), redact.URLErrors(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, oauthErrorResponse(resp, what, endpoint)
	}
	var reg struct {
		ClientID     string   `json:"client_id"`
		ClientSecret string   `json:"client_secret"`
		AuthMethod   string   `json:"token_endpoint_auth_method"`
		RedirectURIs []string `json:"redirect_uris"`
	}
	if err := decodeJSON(resp, what, endpoint, &reg); err != nil {
		return nil, err
	}
	if reg.ClientID == "" {
		return nil, fmt.Errorf("the registration endpoint %s answered no client_id", shownURL(endpoint))
	}
	if len(reg.RedirectURIs) == 0 {
		reg.RedirectURIs = []string{redirect}
	}
	f.log.Debug("registered the client", "issuer", redact.URL(d.issuer), "client_id", reg.ClientID, "auth_method", reg.AuthMethod)
	return &ClientInfo{
		ID: reg.ClientID, Secret: reg.ClientSecret, AuthMethod: reg.AuthMethod,
		RedirectURIs: reg.RedirectURIs, Kind: ClientDynamic, Issuer: d.issuer,
	}, nil
}

// oauthErrorResponse reads a non-2xx answer: an OAuth error body becomes an
// [*OAuthError], anything else a [*ResponseError].
func oauthErrorResponse(resp *http.Response, what, endpoint string) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var e struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	if isJSON(resp.Header.Get("Content-Type")) && json.Unmarshal(b, &e) == nil && e.Error != "" {
		return &OAuthError{What: what, Code: e.Error, Description: e.Description, StatusCode: resp.StatusCode}
	}
	return &ResponseError{What: what, URL: endpoint, StatusCode: resp.StatusCode, ContentType: resp.Header.Get("Content-Type")}
}

// applicationType is the OpenID application_type for a client receiving the
// authorization response at redirect: "native" for a loopback address or a private URI
// scheme (RFC 8252), else "web".
func applicationType(redirect string) string {
	u, err := url.Parse(redirect)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || isLoopback(u.Hostname()) {
		return "native"
	}
	return "web"
}

// registrationAuthMethod is the token endpoint authentication method to register
// with: none (a public client, which this client is wherever it runs on the user's
// machine) where the server takes it, or says nothing; else a secret, in the header
// before the body.
func registrationAuthMethod(supported []string) string {
	switch {
	case len(supported) == 0 || slices.Contains(supported, AuthMethodNone):
		return AuthMethodNone
	case slices.Contains(supported, AuthMethodBasic):
		return AuthMethodBasic
	case slices.Contains(supported, AuthMethodPost):
		return AuthMethodPost
	}
	return ""
}

// tokenAuthMethod is how client authenticates at the token endpoint: with a private key
// if one was given; else as its registration says, where the server supports that; else
// the first the server supports of a secret in the header, in the body, or none
// (RFC 8414's default, when it lists none, is client_secret_basic).
func (f *Flow) tokenAuthMethod(c *ClientInfo, supported []string) string {
	if f.cfg.PrivateKey != nil && c.Kind == ClientPreRegistered {
		return AuthMethodPrivateKeyJWT
	}
	if c.AuthMethod != "" && (len(supported) == 0 || slices.Contains(supported, c.AuthMethod)) && c.AuthMethod != AuthMethodPrivateKeyJWT {
		if c.AuthMethod == AuthMethodNone || c.Secret != "" {
			return c.AuthMethod
		}
	}
	hasSecret := c.Secret != ""
	switch {
	case len(supported) == 0:
		if hasSecret {
			return AuthMethodBasic
		}
		return AuthMethodNone
	case hasSecret && slices.Contains(supported, AuthMethodBasic):
		return AuthMethodBasic
	case hasSecret && slices.Contains(supported, AuthMethodPost):
		return AuthMethodPost
	case slices.Contains(supported, AuthMethodNone):
		return AuthMethodNone
	case hasSecret:
		return AuthMethodPost
	}
	return AuthMethodNone
}

// scopeUnion joins the distinct scopes of each space-separated list, in first-seen
// order, in time linear in them: a server's challenge may name hundreds of thousands.
func scopeUnion(lists ...string) string {
	var out []string
	seen := map[string]bool{}
	for _, l := range lists {
		for _, s := range strings.Fields(l) {
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	return strings.Join(out, " ")
}
