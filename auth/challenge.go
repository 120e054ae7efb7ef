package auth

import (
	"net/http"
	"strings"
)

// Challenge is one challenge of a WWW-Authenticate header (RFC 9110 section 11.6.1),
// such as Bearer resource_metadata="...", scope="files:read".
type Challenge struct {
	Scheme string            // lower case, e.g. "bearer"
	Params map[string]string // by lower-case name; values unquoted
}

// BearerChallenge returns the parameters of the first Bearer challenge in h's
// WWW-Authenticate headers, or nil if there is none. The challenges before it are read
// past without keeping their parameters: a server's header may be megabytes of them.
func BearerChallenge(h http.Header) map[string]string {
	var p map[string]string
	parseChallenges(h.Values("WWW-Authenticate"), func(scheme string) bool { return scheme == "bearer" },
		func(c Challenge) bool { p = c.Params; return false })
	return p
}

// maxChallengeParams bounds the parameters kept of one challenge (a Bearer challenge
// has a handful): past it, a parameter of a new name is read past, not kept.
const maxChallengeParams = 64

// ParseChallenges parses WWW-Authenticate header values, each of which may hold several
// comma-separated challenges. It is lenient where servers are sloppy: an unquoted
// parameter value runs to the next comma or space (URLs are often sent that way), and
// what cannot be parsed ends that header's challenges rather than failing them all.
// A token68 credential (Basic's) is skipped. A challenge keeps at most 64 parameters.
func ParseChallenges(values []string) []Challenge {
	var out []Challenge
	parseChallenges(values, func(string) bool { return true },
		func(c Challenge) bool { out = append(out, c); return true })
	return out
}

// parseChallenges reads the challenges of values in order and hands yield each whose
// scheme (in lower case) keep accepts, with its parameters; the others are read past.
// It stops when yield returns false.
func parseChallenges(values []string, keep func(scheme string) bool, yield func(Challenge) bool) {
	for _, v := range values {
		l := &lexer{s: v}
		for {
			l.skip(" \t,")
			if l.done() {
				break
			}
			scheme := l.token()
			if scheme == "" {
				break // not a challenge: give up on the rest of this header
			}
			scheme = strings.ToLower(scheme)
			if !keep(scheme) {
				l.params(nil)
				continue
			}
			c := Challenge{Scheme: scheme, Params: map[string]string{}}
			l.params(c.Params)
			if !yield(c) {
				return
			}
		}
	}
}

type lexer struct {
	s string
	i int
}

func (l *lexer) done() bool { return l.i >= len(l.s) }

func (l *lexer) peek() byte {
	if l.done() {
		return 0
	}
	return l.s[l.i]
}

func (l *lexer) skip(set string) {
	for !l.done() && strings.IndexByte(set, l.s[l.i]) >= 0 {
		l.i++
	}
}

// token reads an RFC 9110 token.
func (l *lexer) token() string {
	start := l.i
	for !l.done() && isTChar(l.s[l.i]) {
		l.i++
	}
	return l.s[start:l.i]
}

// params reads the auth-params of one challenge into p (nil: reads past them), at most
// maxChallengeParams of them, and stops before the scheme of the next challenge.
func (l *lexer) params(p map[string]string) {
	for {
		l.skip(" \t")
		save := l.i
		name := l.token()
		if name == "" {
			return
		}
		l.skip(" \t")
		if l.peek() != '=' {
			// A bare token after a comma is the next challenge's scheme.
			l.i = save
			return
		}
		l.i++
		if l.peek() == '=' || l.done() || l.peek() == ',' {
			// A token68 ("dXNlcjpwYXNz=="): not an auth-param; skip its padding.
			l.skip("=")
		} else {
			l.skip(" \t")
			var val string
			if l.peek() == '"' {
				val = l.quoted()
			} else {
				start := l.i
				for !l.done() && l.s[l.i] != ',' && l.s[l.i] != ' ' && l.s[l.i] != '\t' {
					l.i++
				}
				val = l.s[start:l.i]
			}
			if p != nil {
				k := strings.ToLower(name)
				if _, ok := p[k]; ok || len(p) < maxChallengeParams {
					p[k] = val
				}
			}
		}
		l.skip(" \t")
		if l.peek() != ',' {
			return
		}
		l.i++
	}
}

// quoted reads a quoted-string, the opening quote at l.i, undoing backslash escapes.
func (l *lexer) quoted() string {
	l.i++ // the opening quote
	var b strings.Builder
	for !l.done() {
		c := l.s[l.i]
		l.i++
		switch c {
		case '"':
			return b.String()
		case '\\':
			if !l.done() {
				b.WriteByte(l.s[l.i])
				l.i++
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String() // unterminated: take what there is
}

func isTChar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}
