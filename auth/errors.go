package auth

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpi-dev/mcpi/internal/cut"
	"github.com/mcpi-dev/mcpi/internal/redact"
)

// ErrNoBrowser is returned when the user must authorize the client and [Config.Browser]
// is nil.
var ErrNoBrowser = errors.New("the server needs an authorization in a browser, and none is configured")

// ErrStateMismatch is returned when the authorization response carries a state that is
// not the one the request sent: a forged or stale redirect, whose code is not used.
var ErrStateMismatch = errors.New("the authorization response does not carry the state of the request (a forged or stale redirect)")

// ErrNoPKCE is returned when the authorization server's metadata does not list S256 in
// code_challenge_methods_supported: MCP requires PKCE, and a client must not go on
// without it.
var ErrNoPKCE = errors.New("the authorization server does not support PKCE with S256, which MCP requires")

// ErrNoRegistration is returned when the client has no way to get a client id: none was
// given, the authorization server does not take a Client ID Metadata Document (or none
// was given either), and it offers no registration endpoint.
var ErrNoRegistration = errors.New("the authorization server offers no way to register this client: no client id was given, it takes no client ID metadata document, and it has no registration endpoint")

// ErrTokenRejected is returned when the server answers 401 to a request that carried an
// access token the authorization server had just issued.
var ErrTokenRejected = errors.New("the server refused the access token the authorization server had just issued")

// IssuerError is an issuer that is not the expected one: authorization server metadata
// whose issuer is not the one its well-known URL was built from (RFC 8414 section 3.3),
// an authorization response whose iss is not the recorded issuer or that lacks an iss
// the server promised (RFC 9207), or an authorization server other than the one a
// pre-registered client belongs to.
type IssuerError struct {
	// Where is what named the issuer: "metadata", "authorization response" or "client".
	Where string
	// URL is where the metadata came from (Where "metadata").
	URL string
	// Want is the issuer expected; Got the one found ("" when it was missing).
	Want, Got string
}

func (e *IssuerError) Error() string {
	got, want, url := shownURL(e.Got), shownURL(e.Want), shownURL(e.URL)
	switch {
	case e.Where == "metadata":
		return fmt.Sprintf("the authorization server metadata at %s names issuer %q, not %q, and is not used", url, got, want)
	case e.Where == "client":
		return fmt.Sprintf("the pre-registered client belongs to the authorization server %q, but the server now names %q", want, got)
	case e.Got == "":
		return fmt.Sprintf("the authorization response carries no iss, though the authorization server %q promises one (RFC 9207)", want)
	default:
		return fmt.Sprintf("the authorization response comes from issuer %q, not %q (RFC 9207)", got, want)
	}
}

// InsecureURLError is an authorization server URL (from metadata, or a redirect while
// fetching it) that is not HTTPS: only loopback addresses may use plain HTTP.
type InsecureURLError struct {
	// What names the URL: "authorization server", "token endpoint", ...
	What string
	URL  string
	// From is the URL that redirected to URL, if a redirect led there.
	From string
}

func (e *InsecureURLError) Error() string {
	if e.From != "" {
		return fmt.Sprintf("%s redirects to %s, which does not use HTTPS (only loopback addresses may use plain HTTP)", shownURL(e.From), shownURL(e.URL))
	}
	return fmt.Sprintf("the %s %s does not use HTTPS (only loopback addresses may use plain HTTP)", e.What, shownURL(e.URL))
}

// ResourceMismatchError is protected resource metadata about another resource than the
// MCP server the client talks to (RFC 9728 section 3.3): its authorization servers are
// not the server's own, and no authorization is attempted.
type ResourceMismatchError struct {
	Resource string // what the metadata names
	Server   string // the MCP server's URL
}

func (e *ResourceMismatchError) Error() string {
	return fmt.Sprintf("the protected resource metadata is for %s, not for the server %s", shownURL(e.Resource), shownURL(e.Server))
}

// ResponseError is an answer from the authorization server that is not what its
// endpoint must answer: an HTML page where JSON was due, a status it has no business
// sending, a document that does not parse.
type ResponseError struct {
	// What names the endpoint: "token endpoint", "registration endpoint", ...
	What        string
	URL         string
	StatusCode  int
	ContentType string
	// Err is what did not parse, if anything.
	Err error
}

func (e *ResponseError) Error() string {
	what := "a " + strings.TrimSpace(e.ContentType) + " document"
	if e.ContentType == "" {
		what = "a document with no Content-Type"
	}
	if e.Err != nil {
		return fmt.Sprintf("the %s %s answered HTTP %d with %s that is not valid JSON: %v", e.What, shownURL(e.URL), e.StatusCode, what, e.Err)
	}
	return fmt.Sprintf("the %s %s answered HTTP %d with %s, not JSON", e.What, shownURL(e.URL), e.StatusCode, what)
}

func (e *ResponseError) Unwrap() error { return e.Err }

// OAuthError is an OAuth error response (RFC 6749 section 5.2, RFC 7591 section 3.2.2)
// or an authorization response carrying an error (section 4.1.2.1).
type OAuthError struct {
	// What names who refused: "token endpoint", "registration endpoint",
	// "authorization server".
	What        string
	Code        string // e.g. invalid_grant, access_denied
	Description string
	StatusCode  int // 0 for an authorization response
	// Err is the underlying error (an *oauth2.RetrieveError from the token endpoint).
	Err error
}

// Error quotes the server's code and description cut short: they are its text, of any
// length (a token endpoint's answer may be a megabyte), and may repeat what it was sent.
func (e *OAuthError) Error() string {
	s := fmt.Sprintf("the %s refused: %s", e.What, cut.Bytes(e.Code, maxCode))
	if e.Description != "" {
		s += " (" + cut.Bytes(e.Description, maxQuoted) + ")"
	}
	return s
}

// How much of a server's text an error's sentence quotes: an OAuth error's code and
// description, and a URL, an issuer or a resource from its metadata (up to 1 MiB).
const (
	maxCode   = 64
	maxQuoted = 300
)

// shownURL is u as an error's sentence names it: its password and the values of its
// query as xxxxx ([redact.URL]), as the transport's errors name theirs, since a library
// user logs err.Error() and a metadata URL, an endpoint or the server's own URL may
// carry a key there; cut short, as it may come from a server's metadata.
func shownURL(u string) string { return cut.Bytes(redact.URL(u), maxQuoted) }

// shownURLs is [shownURL] of each of urls, joined by sep.
func shownURLs(urls []string, sep string) string {
	s := make([]string, len(urls))
	for i, u := range urls {
		s[i] = shownURL(u)
	}
	return strings.Join(s, sep)
}

func (e *OAuthError) Unwrap() error { return e.Err }

// MetadataError is a discovery that found no metadata to use.
type MetadataError struct {
	// What names the metadata: "protected resource metadata" or "authorization server
	// metadata".
	What  string
	Tried []string // the URLs asked, in order
	Err   error    // the last error, if one was more than a 404
}

func (e *MetadataError) Error() string {
	s := fmt.Sprintf("no %s found at %s", e.What, shownURLs(e.Tried, ", "))
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *MetadataError) Unwrap() error { return e.Err }

// TimeoutError is a browser step that nobody completed in time. URL is the
// authorization URL the user was shown (a front end shows it again, for a user who
// never saw the browser open); the flow starts again, with a new URL, with the next
// request that needs it, or with [Flow.Login].
type TimeoutError struct {
	URL     string
	Timeout time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("the authorization at %s was not completed within %s; retrying starts it again", e.URL, e.Timeout)
}

// StepUpError is a server that still answers 403 insufficient_scope after the client
// re-authorized for the scopes it asked for as many times as [Config.MaxStepUps] allows.
type StepUpError struct {
	Scope    string // the scope the server asks for
	Attempts int    // re-authorizations for this request
	// Earlier is set when no re-authorization was tried because one for the same scope
	// did not obtain it before.
	Earlier bool
}

func (e *StepUpError) Error() string {
	switch {
	case e.Earlier:
		return fmt.Sprintf("the server still refuses the request for lack of scope %q, which an earlier re-authorization did not obtain", e.Scope)
	case e.Attempts == 0:
		return fmt.Sprintf("the server refuses the request for lack of scope %q (re-authorizing for more scope is turned off)", e.Scope)
	case e.Attempts == 1:
		return fmt.Sprintf("the server still refuses the request for lack of scope %q after a re-authorization for it", e.Scope)
	}
	return fmt.Sprintf("the server still refuses the request for lack of scope %q after %d re-authorizations for it", e.Scope, e.Attempts)
}

// AssumedError is a login that failed at a server that publishes no protected resource
// metadata: its origin was taken for its authorization server, as in revision
// 2025-03-26, and, when that publishes no metadata either, the default endpoints
// /authorize, /token and /register. A server that simply omits its metadata is most
// often why such a login fails, so the sentence says so.
type AssumedError struct {
	// Tried are the URLs the protected resource metadata was looked for at; Issuer is
	// the origin taken for the authorization server.
	Tried  []string
	Issuer string
	// Endpoints is set when the default endpoints were assumed too.
	Endpoints bool
	Err       error
}

func (e *AssumedError) Error() string {
	s := fmt.Sprintf("%v (the server publishes no protected resource metadata at %s, so its origin %s was assumed to be its authorization server, as in revision 2025-03-26",
		e.Err, shownURLs(e.Tried, " or "), shownURL(e.Issuer))
	if e.Endpoints {
		s += ", and, as that publishes no metadata either, its default endpoints /authorize, /token and /register"
	}
	return s + ")"
}

func (e *AssumedError) Unwrap() error { return e.Err }

// assumed wraps err, the failure of a grant, in an [*AssumedError] when d was not found
// but assumed, and err is a refusal the assumption may explain.
func assumed(d *discovery, err error) error {
	if err == nil || d.prm != nil {
		return err
	}
	var re *ResponseError
	var oe *OAuthError
	if !errors.As(err, &re) && !errors.As(err, &oe) && !errors.Is(err, ErrNoRegistration) {
		return err
	}
	return &AssumedError{Tried: d.prmTried, Issuer: d.issuer, Endpoints: d.legacy, Err: err}
}
