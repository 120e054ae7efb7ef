package auth

import (
	"fmt"
	"net"
	"net/url"
	"strings"
)

// isLoopback reports whether host (a URL's Hostname) is a loopback address or
// localhost, which may use plain HTTP (RFC 8252 section 8.3).
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// checkSecure returns an [*InsecureURLError] unless raw is an absolute https URL, or an
// http URL of a loopback address.
func checkSecure(what, raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return nil, fmt.Errorf("the %s %q is not an absolute http(s) URL", what, shownURL(raw))
	}
	if u.Scheme == "http" && !isLoopback(u.Hostname()) {
		return nil, &InsecureURLError{What: what, URL: raw}
	}
	return u, nil
}

// origin is u's scheme, host and port, the port spelled out when it is the scheme's.
func origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Hostname()) + ":" + port
}

// canonicalResource is the canonical URI of an MCP server (RFC 8707 section 2, as the
// MCP authorization spec reads it): lower-case scheme and host, no fragment, no
// trailing slash unless the path is only that.
func canonicalResource(u *url.URL) string {
	c := *u
	c.Scheme = strings.ToLower(c.Scheme)
	c.Host = strings.ToLower(c.Host)
	c.Fragment, c.RawFragment = "", ""
	c.User = nil
	c.ForceQuery = false
	if strings.HasSuffix(c.Path, "/") && c.Path != "/" {
		c.Path = strings.TrimRight(c.Path, "/")
		c.RawPath = ""
	}
	if c.Path == "/" {
		c.Path, c.RawPath = "", ""
	}
	return c.String()
}

// resourceAllowed reports whether the protected resource metadata naming resource may
// speak for the MCP server at server: same origin, and resource's path is the server's
// or one of its ancestors at a segment boundary (metadata at the root covers the whole
// origin).
func resourceAllowed(resource string, server *url.URL) bool {
	r, err := url.Parse(resource)
	if err != nil || r.Host == "" || r.Fragment != "" {
		return false
	}
	if origin(r) != origin(server) {
		return false
	}
	rp := strings.TrimSuffix(r.Path, "/")
	sp := strings.TrimSuffix(server.Path, "/")
	return rp == "" || rp == sp || strings.HasPrefix(sp, rp+"/")
}

// prmURLs returns the well-known protected resource metadata URLs for the server at u,
// in the order the MCP specification gives: the path-aware one, then the root one
// (only the root one when the server is at the root).
func prmURLs(u *url.URL) []string {
	base := &url.URL{Scheme: u.Scheme, Host: u.Host}
	var urls []string
	if p := strings.TrimSuffix(u.EscapedPath(), "/"); p != "" {
		urls = append(urls, base.String()+"/.well-known/oauth-protected-resource"+p)
	}
	return append(urls, base.String()+"/.well-known/oauth-protected-resource")
}

// asMetadataURLs returns the authorization server metadata URLs for issuer, in the order
// the MCP specification gives: RFC 8414 with path insertion, OpenID Connect Discovery
// with path insertion, then with path appending; for an issuer at the root, RFC 8414
// then OpenID Connect.
func asMetadataURLs(issuer *url.URL) []string {
	base := (&url.URL{Scheme: issuer.Scheme, Host: issuer.Host}).String()
	p := strings.TrimSuffix(issuer.EscapedPath(), "/")
	if p == "" {
		return []string{
			base + "/.well-known/oauth-authorization-server",
			base + "/.well-known/openid-configuration",
		}
	}
	return []string{
		base + "/.well-known/oauth-authorization-server" + p,
		base + "/.well-known/openid-configuration" + p,
		base + p + "/.well-known/openid-configuration",
	}
}
