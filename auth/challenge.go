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
// WWW-Authenticate headers, or nil if there is none.
func BearerChallenge(h http.Header) map[string]string {
	for _, c := range ParseChallenges(h.Values("WWW-Authenticate")) {
		if c.Scheme == "bearer" {
			return c.Params
		}
	}
	return nil
}

// ParseChallenges parses WWW-Authenticate header values, each of which may hold several
// comma-separated challenges. It is lenient where servers are sloppy: an unquoted
// parameter value runs to the next comma or space (URLs are often sent that way), and
// what cannot be parsed ends that header's challenges rather than failing them all.
// A token68 credential (Basic's) is skipped.
func ParseChallenges(values []string) []Challenge {
	var out []Challenge
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
			c := Challenge{Scheme: strings.ToLower(scheme), Params: map[string]string{}}
			l.params(c.Params)
			out = append(out, c)
		}
	}
	return out
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

// params reads the auth-params of one challenge into p, and stops before the scheme of
// the next challenge.
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
			p[strings.ToLower(name)] = val
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
