package look

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Safe returns s as it may be shown within one line of a terminal. Text from a server
// reaches the user's terminal, and a terminal obeys some characters instead of showing
// them: ESC starts a sequence that can retitle the window (OSC 0), write the clipboard
// (OSC 52) or erase the screen (CSI 2J); CR goes back over the line, so that what
// follows overwrites it; BEL rings; backspace rubs out; the C1 controls U+0080-U+009F
// act as ESC sequences (U+009B is CSI); and bidi controls such as U+202E make text
// read other than it is stored. An inspector talks to servers it does not trust, so
// every text of a server goes through Safe (or [SafeLines]) on its way to a terminal,
// which shows those characters instead:
//
//   - a C0 control (U+0000-U+001F) as its Unicode control picture, U+2400 plus its
//     code: ESC as ␛, CR as ␍, LF as ␊, BEL as ␇, backspace as ␈;
//   - DEL (U+007F) as ␡;
//   - a C1 control, a bidi control (U+061C, U+200E, U+200F, U+202A-U+202E,
//     U+2066-U+2069) or the line or paragraph separator (U+2028, U+2029), which have
//     no picture, as its Go escape, such as \u009b or \u202e;
//   - a byte that is not UTF-8 as U+FFFD, as a decoder would.
//
// A picture takes one cell, like the characters around it, so tables stay aligned, and
// a sequence reads as what it is: ␛]0;title␇, ␛[2J. Tab stays (a terminal shows it as
// space). A line feed is shown too, so that a server's text cannot start a line that
// passes for one of mcpi's own. Text with none of these is returned as it is, and
// Safe(Safe(s)) is Safe(s).
func Safe(s string) string { return safe(s, false) }

// SafeLines is [Safe] for text shown as lines of its own, such as a tool's text result:
// line feeds stay, and a CR that ends a line before one (CRLF) is dropped.
func SafeLines(s string) string { return safe(s, true) }

func safe(s string, lines bool) string {
	i := firstUnsafe(s, lines)
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteRune(utf8.RuneError)
		case lines && r == '\r' && strings.HasPrefix(s[i+1:], "\n"):
			// CRLF: the line feed that follows ends the line.
		case !unsafe(r, lines):
			b.WriteString(s[i : i+n])
		case r < 0x20:
			b.WriteRune(0x2400 + r)
		case r == 0x7f:
			b.WriteRune('␡')
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += n
	}
	return b.String()
}

// firstUnsafe is the index of the first byte of s that [safe] changes, or len(s).
func firstUnsafe(s string, lines bool) int {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if unsafe(rune(c), lines) {
				return i
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || unsafe(r, lines) {
			return i
		}
		i += n
	}
	return len(s)
}

// unsafe reports whether a terminal obeys r rather than shows it, or r disguises the
// text around it.
func unsafe(r rune, lines bool) bool {
	switch {
	case r == '\t', r == '\n' && lines:
		return false
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	}
	switch r {
	case 0x061c, 0x200e, 0x200f, 0x2028, 0x2029:
		return true
	}
	return (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}
