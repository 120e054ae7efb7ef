package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpi-dev/mcpi/internal/cut"
	"github.com/mcpi-dev/mcpi/internal/redact"
)

// ProtectedResourceMetadata is an MCP server's OAuth 2.0 Protected Resource Metadata
// (RFC 9728), the fields the flow uses.
type ProtectedResourceMetadata struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers,omitempty"`
	ScopesSupported      []string `json:"scopes_supported,omitempty"`
	ResourceName         string   `json:"resource_name,omitempty"`
}

// ServerMetadata is an authorization server's metadata (RFC 8414, or OpenID Connect
// Discovery), the fields the flow uses.
type ServerMetadata struct {
	Issuer                                     string   `json:"issuer"`
	AuthorizationEndpoint                      string   `json:"authorization_endpoint,omitempty"`
	TokenEndpoint                              string   `json:"token_endpoint,omitempty"`
	RegistrationEndpoint                       string   `json:"registration_endpoint,omitempty"`
	ScopesSupported                            []string `json:"scopes_supported,omitempty"`
	ResponseTypesSupported                     []string `json:"response_types_supported,omitempty"`
	GrantTypesSupported                        []string `json:"grant_types_supported,omitempty"`
	TokenEndpointAuthMethodsSupported          []string `json:"token_endpoint_auth_methods_supported,omitempty"`
	TokenEndpointAuthSigningAlgValuesSupported []string `json:"token_endpoint_auth_signing_alg_values_supported,omitempty"`
	CodeChallengeMethodsSupported              []string `json:"code_challenge_methods_supported,omitempty"`
	ClientIDMetadataDocumentSupported          bool     `json:"client_id_metadata_document_supported,omitempty"`
	AuthorizationResponseIssParameterSupported bool     `json:"authorization_response_iss_parameter_supported,omitempty"`
}

// discovery is what the flow learned about a server's authorization.
type discovery struct {
	prm    *ProtectedResourceMetadata // nil: the server publishes none (2025-03-26)
	prmURL string
	// prmTried are the URLs the protected resource metadata was looked for at, when
	// none was found.
	prmTried []string
	// issuer is the authorization server's identifier: its validated metadata's issuer,
	// or, with no metadata, the URL it was looked up at.
	issuer string
	asm    *ServerMetadata
	// legacy is set when the authorization server publishes no metadata and the
	// 2025-03-26 default endpoints (/authorize, /token, /register) stand in for it.
	legacy bool
	// resource is the resource indicator (RFC 8707) to send.
	resource string
}

// maxMetadataSize bounds a metadata document, a registration or a token response.
const maxMetadataSize = 1 << 20

// isJSON reports whether the media type ct is JSON (application/json or a +json type).
func isJSON(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

// getJSON GETs u and decodes its JSON body into v. It reports found false, and no error,
// for an answer that says the document is not there (4xx, and 502 from proxies that
// stand in front of a missing one); anything else that is not a JSON document is a
// [*ResponseError].
func (f *Flow) getJSON(ctx context.Context, what, u string, v any) (found bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return false, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := f.hc.Do(req)
	if err != nil {
		var ie *InsecureURLError
		if errors.As(err, &ie) {
			return false, ie // not the *url.Error around it, which repeats the URL
		}
		return false, fmt.Errorf("fetching the %s: %w", what, redact.URLErrors(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 && resp.StatusCode < 500 || resp.StatusCode == http.StatusBadGateway {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		f.log.Debug("no metadata here", "what", what, "url", redact.URL(u), "status", resp.StatusCode)
		return false, nil
	}
	return true, decodeJSON(resp, what, u, v)
}

// decodeJSON decodes the body of a 2xx JSON answer into v, or returns a
// [*ResponseError].
func decodeJSON(resp *http.Response, what, u string, v any) error {
	ct := resp.Header.Get("Content-Type")
	rerr := &ResponseError{What: what, URL: u, StatusCode: resp.StatusCode, ContentType: ct}
	if resp.StatusCode < 200 || resp.StatusCode > 299 || (ct != "" && !isJSON(ct)) {
		return rerr
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadataSize))
	if err != nil {
		return fmt.Errorf("reading the %s from %s: %w", what, shownURL(u), err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		rerr.Err = err
		return rerr
	}
	return nil
}

// discover finds the server's authorization: its protected resource metadata (from
// resourceMetadata, the URL of the 401's challenge, if given; else from the well-known
// URLs), the authorization server it names, and that server's metadata. A server with no
// protected resource metadata is taken for one of revision 2025-03-26, whose
// authorization server is its own origin.
func (f *Flow) discover(ctx context.Context, resourceMetadata string) (*discovery, error) {
	d := &discovery{resource: f.key}
	urls := prmURLs(f.server)
	if resourceMetadata != "" {
		if _, err := checkSecure("protected resource metadata URL", resourceMetadata); err != nil {
			return nil, err
		}
		urls = append([]string{resourceMetadata}, slices.DeleteFunc(urls, func(u string) bool { return u == resourceMetadata })...)
	}
	for _, u := range urls {
		var prm ProtectedResourceMetadata
		found, err := f.getJSON(ctx, "protected resource metadata", u, &prm)
		if err != nil {
			return nil, err
		}
		if found {
			d.prm, d.prmURL = &prm, u
			break
		}
	}
	var asURL string
	if d.prm == nil {
		// Revision 2025-03-26: the authorization server is the MCP server's origin.
		asURL = (&url.URL{Scheme: f.server.Scheme, Host: f.server.Host}).String()
		d.prmTried = urls
		shown := make([]string, len(urls))
		for i, u := range urls {
			shown[i] = redact.URL(u) // the 401 names the first, and it may carry a key
		}
		f.log.Debug("no protected resource metadata; the server's origin is its authorization server", "tried", shown, "issuer", redact.URL(asURL))
	} else {
		if d.prm.Resource == "" || !resourceAllowed(d.prm.Resource, f.server) {
			return nil, &ResourceMismatchError{Resource: d.prm.Resource, Server: f.server.String()}
		}
		d.resource = d.prm.Resource
		if len(d.prm.AuthorizationServers) == 0 {
			return nil, fmt.Errorf("the protected resource metadata at %s names no authorization server", shownURL(d.prmURL))
		}
		asURL = d.prm.AuthorizationServers[0]
	}
	asu, err := checkSecure("authorization server", asURL)
	if err != nil {
		return nil, err
	}
	d.issuer = asURL
	tried := asMetadataURLs(asu)
	for _, u := range tried {
		var m ServerMetadata
		found, err := f.getJSON(ctx, "authorization server metadata", u, &m)
		if err != nil {
			return nil, err
		}
		if !found {
			continue
		}
		// RFC 8414 section 3.3: the issuer must be the one the URL was built from. A
		// trailing slash on the name the protected resource metadata gave is forgiven:
		// it names the same server, and the metadata's own issuer is what is recorded.
		if m.Issuer != asURL && m.Issuer+"/" != asURL {
			return nil, &IssuerError{Where: "metadata", URL: u, Want: asURL, Got: m.Issuer}
		}
		if err := m.checkEndpoints(); err != nil {
			return nil, err
		}
		d.asm, d.issuer = &m, m.Issuer
		f.log.Debug("authorization server found", "issuer", redact.URL(m.Issuer), "metadata", redact.URL(u))
		return d, nil
	}
	if d.prm != nil {
		return nil, &MetadataError{What: "authorization server metadata", Tried: tried}
	}
	// Revision 2025-03-26 with no metadata either: the default endpoints.
	d.legacy = true
	d.asm = &ServerMetadata{
		Issuer:                asURL,
		AuthorizationEndpoint: asURL + "/authorize",
		TokenEndpoint:         asURL + "/token",
		RegistrationEndpoint:  asURL + "/register",
	}
	f.log.Debug("no authorization server metadata; using the default endpoints", "issuer", redact.URL(asURL))
	return d, nil
}

// checkEndpoints checks that every endpoint the metadata names is HTTPS (or loopback).
func (m *ServerMetadata) checkEndpoints() error {
	for _, e := range []struct{ what, url string }{
		{"authorization endpoint", m.AuthorizationEndpoint},
		{"token endpoint", m.TokenEndpoint},
		{"registration endpoint", m.RegistrationEndpoint},
	} {
		if e.url == "" {
			continue
		}
		if _, err := checkSecure(e.what, e.url); err != nil {
			return err
		}
	}
	return nil
}

// secureRedirects is the CheckRedirect of the flow's HTTP client: metadata, registration
// and token requests follow redirects only to HTTPS (or loopback) URLs, and a request
// that carries a form or a document (a token request: its code, refresh token or client
// secret; a registration) only within its origin, as a 307 or 308 sends the body again.
func secureRedirects(req *http.Request, via []*http.Request) error {
	if req.URL.Scheme != "https" && !isLoopback(req.URL.Hostname()) {
		return &InsecureURLError{What: "redirect", URL: req.URL.String(), From: via[len(via)-1].URL.String()}
	}
	if req.Method != http.MethodGet && req.Method != http.MethodHead && origin(req.URL) != origin(via[0].URL) {
		return fmt.Errorf("%s %s redirects to another origin (%s), where its body would go: not followed",
			via[0].Method, cut.Bytes(redact.URL(via[0].URL.String()), 200), cut.Bytes(origin(req.URL), 200))
	}
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	return nil
}
