// Package cut shortens a peer's text for keeping or showing: a server's strings can be
// megabytes where a line or a sentence quotes them.
package cut

import "unicode/utf8"

// Bytes is s cut to at most n bytes at a character's start, marked with an ellipsis.
func Bytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
