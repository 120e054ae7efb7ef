package look

import (
	"strings"
	"unicode/utf16"
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
//   - a character a terminal draws as nothing (Unicode's Default_Ignorable_Code_Point:
//     U+200B zero-width space, U+00AD soft hyphen, U+2060-U+2064, U+FEFF, U+3164,
//     the tag characters U+E0000-U+E007F, ...), which would let "add\u200b" pass for
//     "add" or hide a sentence in a description, as its Go escape too (\u200b,
//     \U000e0041), with three exceptions that text needs and that hide nothing: a
//     zero-width joiner or non-joiner (U+200D, U+200C) between two visible characters
//     that are not ASCII (an emoji sequence 👩‍👧, a Persian or Indic word), one variation
//     selector after such a character (❤️, an ideograph's variant) or in a keycap (#️⃣),
//     and the tags of a subdivision flag (🏴 and up to 7 tag letters or digits, then
//     U+E007F);
//   - a byte that is not UTF-8 as U+FFFD, as a decoder would.
//
// A picture takes one cell, like the characters around it, so tables stay aligned, and
// a sequence reads as what it is: ␛]0;title␇, ␛[2J. Tab stays (a terminal shows it as
// space). A line feed is shown too, so that a server's text cannot start a line that
// passes for one of mcpi's own. Text with none of these is returned as it is, and
// Safe(Safe(s)) is Safe(s). Look-alike characters (a Cyrillic а for a Latin a) are
// shown as they are.
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
		n, keep := next(s, i, lines)
		if keep {
			b.WriteString(s[i : i+n])
			i += n
			continue
		}
		r := rune(s[i])
		if r >= utf8.RuneSelf {
			r, _ = utf8.DecodeRuneInString(s[i:])
		}
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteRune(utf8.RuneError)
		case lines && r == '\r' && strings.HasPrefix(s[i+1:], "\n"):
			// CRLF: the line feed that follows ends the line.
		case r < 0x20:
			b.WriteRune(0x2400 + r)
		case r == 0x7f:
			b.WriteRune('␡')
		default:
			writeEscape(&b, r)
		}
		i += n
	}
	return b.String()
}

// writeEscape writes r as its Go escape: \u009b, or \U000e0041 beyond U+FFFF.
func writeEscape(b *strings.Builder, r rune) {
	const hex = "0123456789abcdef"
	digits := 4
	if r > 0xffff {
		b.WriteString(`\U`)
		digits = 8
	} else {
		b.WriteString(`\u`)
	}
	for shift := 4 * (digits - 1); shift >= 0; shift -= 4 {
		b.WriteByte(hex[r>>shift&0xf])
	}
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
		n, keep := next(s, i, lines)
		if !keep {
			return i
		}
		i += n
	}
	return len(s)
}

// next returns the length of the character at s[i] (of the flag with its tags, for a
// subdivision flag) and whether [safe] keeps it as it is. Whether an invisible character
// is kept depends only on characters next to it that are kept as they are, so that what
// safe keeps it keeps again: Safe(Safe(s)) is Safe(s).
func next(s string, i int, lines bool) (n int, keep bool) {
	if c := s[i]; c < utf8.RuneSelf {
		return 1, !unsafe(rune(c), lines)
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	switch {
	case r == utf8.RuneError && n == 1:
		return 1, false
	case r == 0x1f3f4: // 🏴, which tag characters make the flag of a subdivision
		return n + flagTags(s[i+n:]), true
	case r == 0x200c || r == 0x200d:
		p, m := utf8.DecodeLastRuneInString(s[:i])
		if variationSelector(p) {
			if _, kept := next(s, i-m, lines); !kept {
				return n, false
			}
		} else if !visible(p) {
			return n, false
		}
		q, _ := utf8.DecodeRuneInString(s[i+n:])
		return n, visible(q)
	case variationSelector(r):
		p, _ := utf8.DecodeLastRuneInString(s[:i])
		if visible(p) {
			return n, true
		}
		// A keycap: 0-9, # or * and U+20E3 around a selector.
		q, _ := utf8.DecodeRuneInString(s[i+n:])
		return n, q == 0x20e3 && (p == '#' || p == '*' || (p >= '0' && p <= '9'))
	}
	return n, !unsafe(r, lines) && !invisible(r)
}

// visible reports whether r is a character other than ASCII that [safe] keeps wherever
// it stands: what a joiner may join, or a variation selector vary.
func visible(r rune) bool {
	return r >= utf8.RuneSelf && r != utf8.RuneError && !unsafe(r, false) && !invisible(r)
}

func variationSelector(r rune) bool {
	return (r >= 0xfe00 && r <= 0xfe0f) || (r >= 0xe0100 && r <= 0xe01ef) || (r >= 0x180b && r <= 0x180d) || r == 0x180f
}

// flagTags is the length of the tags of a subdivision flag at the start of s (the flag
// of England is 🏴 and the tags g b e n g, then CANCEL TAG U+E007F), or 0.
func flagTags(s string) int {
	n := 0
	for n < 7*4 && len(s) >= n+4 {
		r, m := utf8.DecodeRuneInString(s[n:])
		if m != 4 || !((r >= 0xe0030 && r <= 0xe0039) || (r >= 0xe0061 && r <= 0xe007a)) {
			break
		}
		n += 4
	}
	if n == 0 || !strings.HasPrefix(s[n:], "\U000E007F") {
		return 0
	}
	return n + 4
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

// invisible reports whether r is a Default_Ignorable_Code_Point of Unicode (UAX #44):
// a character a terminal draws as nothing, when it knows it at all.
func invisible(r rune) bool {
	switch {
	case r < 0xad:
		return false
	case r <= 0x2069:
		return r == 0xad || r == 0x34f || r == 0x61c || r == 0x115f || r == 0x1160 || r == 0x17b4 || r == 0x17b5 ||
			(r >= 0x180b && r <= 0x180f) || (r >= 0x200b && r <= 0x200f) || (r >= 0x202a && r <= 0x202e) || r >= 0x2060
	case r <= 0x206f:
		return true
	case r < 0x3164:
		return false
	}
	return r == 0x3164 || (r >= 0xfe00 && r <= 0xfe0f) || r == 0xfeff || r == 0xffa0 || (r >= 0xfff0 && r <= 0xfff8) ||
		(r >= 0x1bca0 && r <= 0x1bca3) || (r >= 0x1d173 && r <= 0x1d17a) || (r >= 0xe0000 && r <= 0xe0fff)
}

// SafeJSON returns b, the JSON of an encoder, with every character that [Safe] would
// change written as a JSON escape (\u009b, \u202e, \u200b, \udb40\udc41) and bytes that
// are not UTF-8 as \ufffd: the same JSON, which a terminal can show. encoding/json
// escapes C0 controls but writes C1 and bidi controls as they are, and a raw message
// (a result's structuredContent) goes out as the server sent it. Outside strings JSON
// holds only ASCII, so every character changed is within one. b is returned as it is
// when nothing needs an escape.
func SafeJSON(b []byte) []byte {
	s := string(b)
	i := firstUnsafeJSON(s)
	if i == len(s) {
		return b
	}
	const hex = "0123456789abcdef"
	escape := func(out []byte, r rune) []byte {
		return append(out, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
	}
	out := make([]byte, 0, len(b)+len(b)/8)
	out = append(out, s[:i]...)
	for i < len(s) {
		if c := s[i]; c < utf8.RuneSelf {
			if c == 0x7f {
				out = escape(out, 0x7f)
			} else {
				out = append(out, c)
			}
			i++
			continue
		}
		n, keep := next(s, i, true)
		if keep {
			out = append(out, s[i:i+n]...)
			i += n
			continue
		}
		r, _ := utf8.DecodeRuneInString(s[i:])
		if r > 0xffff {
			r1, r2 := utf16.EncodeRune(r)
			out = escape(escape(out, r1), r2)
		} else {
			out = escape(out, r) // U+FFFD for a byte that is not UTF-8
		}
		i += n
	}
	return out
}

// firstUnsafeJSON is the index of the first byte that [SafeJSON] changes, or len(s). It
// leaves the ASCII of JSON as it is, controls included: an encoder escapes those within
// strings, and between them they are white space.
func firstUnsafeJSON(s string) int {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c == 0x7f {
				return i
			}
			i++
			continue
		}
		n, keep := next(s, i, true)
		if !keep {
			return i
		}
		i += n
	}
	return len(s)
}
