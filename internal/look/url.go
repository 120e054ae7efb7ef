package look

import (
	"errors"
	"net/url"
	"strings"
)

// RedactURL returns u as a listing or a sentence shows it: a password in it as "xxxxx"
// ([url.URL.Redacted]), and so each value of its query (?token=xxxxx&api_key=xxxxx),
// the names kept, as a server's key is often passed there; u as it is when it has
// neither. A u that does not parse is redacted as text, since it is quoted in the
// sentence that says it is invalid.
func RedactURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return redactRawURL(u)
	}
	changed := false
	if p.User != nil {
		if _, ok := p.User.Password(); ok {
			p.User = url.UserPassword(p.User.Username(), "xxxxx")
			changed = true
		}
	}
	if p.RawQuery != "" {
		if q, ok := redactQuery(p.RawQuery); ok {
			p.RawQuery = q
			changed = true
		}
	}
	if !changed {
		return u
	}
	return p.String()
}

// redactQuery replaces each value of the raw query q with xxxxx; ok says one was.
func redactQuery(q string) (redacted string, ok bool) {
	parts := strings.Split(q, "&")
	for i, part := range parts {
		if k, v, found := strings.Cut(part, "="); found && v != "" {
			parts[i] = k + "=xxxxx"
			ok = true
		}
	}
	return strings.Join(parts, "&"), ok
}

// redactRawURL is [RedactURL] for a URL that does not parse: the password is what
// follows the first colon of the authority's user information (before its last @), and
// the query what follows the first ?, up to a #.
func redactRawURL(u string) string {
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
		query, fragment := path[i+1:], ""
		if j := strings.Index(query, "#"); j >= 0 {
			query, fragment = query[:j], query[j:]
		}
		query, _ = redactQuery(query)
		path = path[:i+1] + query + fragment
	}
	return scheme + authority + path
}

// redactURLErrors returns s, a sentence for err, with the URL of each [*url.Error] in
// err redacted ([RedactURL]): net/http's errors quote the whole URL of the request
// ("Post \"https://host/mcp?token=...\": ..."), hiding only a password, as "***".
func redactURLErrors(err error, s string) string {
	var ue *url.Error
	for errors.As(err, &ue) {
		if r := RedactURL(ue.URL); r != ue.URL {
			s = strings.ReplaceAll(s, ue.URL, r)
		}
		err = ue.Err
	}
	return s
}
