package jsonwire

import (
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"unicode/utf8"
)

// AppendString appends s as a JSON string exactly as encoding/json writes it with HTML
// escaping off: the short escapes for \b \f \n \r \t, \u00XX for the other control
// characters, '"' and '\\' escaped, U+2028 and U+2029 escaped, and each byte of invalid
// UTF-8 as \ufffd.
func AppendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		// Most of a string needs no escape: look at eight bytes at a time.
		for i+8 <= len(s) {
			w := load64(s, i)
			if m := special(w) | w&highs; m != 0 {
				i += bits.TrailingZeros64(m) / 8
				break
			}
			i += 8
		}
		if i == len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if plain[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// highs has the high bit of each byte of a word set: a byte of w&highs is marked when it
// is not ASCII.
const highs = 0x8080808080808080

// load64 reads the eight bytes of s at i as a little-endian word; the compiler makes it
// one load.
func load64(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// String returns the string that raw, one JSON value without whitespace around it,
// stands for, as encoding/json decodes it into a string (escapes resolved, invalid UTF-8
// replaced by U+FFFD); ok is false when raw is not a valid string literal. A literal
// without escapes, the usual case, costs one copy.
func String(raw []byte) (s string, ok bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	if body := raw[1 : len(raw)-1]; !hasSpecial(body) && utf8.Valid(body) {
		return string(body), true
	}
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// hasSpecial reports whether b holds a byte that cannot stand for itself inside a
// string literal: a quote, a backslash or a control character.
func hasSpecial(b []byte) bool {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if special(binary.LittleEndian.Uint64(b[i:])) != 0 {
			return true
		}
	}
	for ; i < len(b); i++ {
		if !plain[b[i]] {
			return true
		}
	}
	return false
}
