// Package redact hides the secrets a URL may carry (a password, a key in its query)
// wherever the library or a front end names the URL: in an error, a log, a sentence.
// It is the one copy both use, below the transport.
package redact

import (
	"errors"
	"net/url"
	"strings"
)

// URL returns u with a password in it as "xxxxx" ([url.URL.Redacted]), and so each value
// of its query (?token=xxxxx&api_key=xxxxx), the names kept, as a server's key is often
// passed there; u as it is when it has neither. A u that does not parse is redacted as
// text, since the error that says it is invalid quotes it.
func URL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return rawURL(u)
	}
	changed := false
	if p.User != nil {
		if _, ok := p.User.Password(); ok {
			p.User = url.UserPassword(p.User.Username(), "xxxxx")
			changed = true
		}
	}
	if p.RawQuery != "" {
		if q, ok := query(p.RawQuery); ok {
			p.RawQuery = q
			changed = true
		}
	}
	if !changed {
		return u
	}
	return p.String()
}

// URLErrors redacts ([URL]) the URL of each [*url.Error] in err's chain, in place, and
// returns err: net/http's errors quote the whole URL of the request, hiding only a
// password (as "***", so its length and its query still show), and url.Parse's quote the
// URL as it was given.
func URLErrors(err error) error {
	for e := err; ; {
		var ue *url.Error
		if !errors.As(e, &ue) {
			return err
		}
		ue.URL = URL(ue.URL)
		e = ue.Err
	}
}

// query replaces each value of the raw query q with xxxxx; ok says one was.
func query(q string) (redacted string, ok bool) {
	parts := strings.Split(q, "&")
	for i, part := range parts {
		if k, v, found := strings.Cut(part, "="); found && v != "" {
			parts[i] = k + "=xxxxx"
			ok = true
		}
	}
	return strings.Join(parts, "&"), ok
}

// rawURL is [URL] for a URL that does not parse: the password is what follows the first
// colon of the authority's user information (before its last @), and the query what
// follows the first ?, up to a #.
func rawURL(u string) string {
	rest, scheme := u, ""
	if i := strings.Index(u, "://"); i >= 0 {
		scheme, rest = u[:i+3], u[i+3:]
	}
	authority, path := rest, ""
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		authority, path = rest[:i], rest[i:]
	}
	if at := strings.LastIndex(authority, "@"); at >= 0 {
		if user, _, ok := strings.Cut(authority[:at], ":"); ok {
			authority = user + ":xxxxx" + authority[at:]
		}
	}
	if i := strings.Index(path, "?"); i >= 0 {
		q, fragment := path[i+1:], ""
		if j := strings.Index(q, "#"); j >= 0 {
			q, fragment = q[:j], q[j:]
		}
		q, _ = query(q)
		path = path[:i+1] + q + fragment
	}
	return scheme + authority + path
}
