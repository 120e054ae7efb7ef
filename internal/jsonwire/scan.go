package jsonwire

import (
	"encoding/binary"
	"math/bits"
	"strconv"
)

// maxDepth is encoding/json's limit on nested arrays and objects. Input nested deeper is
// invalid JSON to encoding/json, so it must be here too, or the two would disagree about
// which frames are parse errors.
const maxDepth = 10000

// scanner validates JSON with exactly the grammar of encoding/json.Valid (including
// invalid UTF-8 inside strings, which Valid accepts) in one pass without reflection or
// allocation, and reports where each value ends, so that a message's members can be
// picked out of the frame while it is validated.
type scanner struct {
	data []byte
	// spaced records that whitespace was skipped: a raw member without any is already
	// compact and is copied as it is.
	spaced bool
}

// syntaxError is invalid JSON at an offset of the scanned data.
type syntaxError struct {
	msg string
	off int
}

func (e *syntaxError) Error() string {
	return e.msg + " at offset " + strconv.Itoa(e.off)
}

// fail describes the byte at i, which is not what the grammar allows there.
func (s *scanner) fail(i int, context string) error {
	if i >= len(s.data) {
		return &syntaxError{"unexpected end of JSON input", i}
	}
	return &syntaxError{"invalid character " + strconv.QuoteRune(rune(s.data[i])) + " " + context, i}
}

// at returns the byte at i, or 0 past the end; 0 is invalid wherever at is used, so the
// end of the input needs no case of its own.
func (s *scanner) at(i int) byte {
	if i < len(s.data) {
		return s.data[i]
	}
	return 0
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// skipSpace returns the offset of the first byte at or after i that is not whitespace.
func (s *scanner) skipSpace(i int) int {
	j := i
	for j < len(s.data) && isSpace(s.data[j]) {
		j++
	}
	if j != i {
		s.spaced = true
	}
	return j
}

// value validates the value that starts at i (after any whitespace) and returns the offset
// just past it. depth counts the arrays and objects that enclose it.
func (s *scanner) value(i, depth int) (int, error) {
	var small [32]byte
	open := small[:0] // the '[' or '{' of each container not yet closed, innermost last
	var err error
	for {
		// A value starts at i.
		switch c := s.at(i); c {
		case '{', '[':
			if depth+len(open) >= maxDepth {
				return i, &syntaxError{"exceeded max depth", i}
			}
			open = append(open, c)
			i = s.skipSpace(i + 1)
			if s.at(i) != c+2 { // '{'+2 is '}' and '['+2 is ']'
				if c == '{' {
					if _, i, err = s.key(i); err != nil {
						return i, err
					}
				}
				continue
			}
			open = open[:len(open)-1]
			i++
		case '"':
			i, err = s.str(i)
		case 't':
			i, err = s.literal(i, "true")
		case 'f':
			i, err = s.literal(i, "false")
		case 'n':
			i, err = s.literal(i, "null")
		default:
			i, err = s.number(i)
		}
		if err != nil {
			return i, err
		}
		// A value ends at i: close the containers that end with it, up to the next element.
		for len(open) > 0 {
			i = s.skipSpace(i)
			c, top := s.at(i), open[len(open)-1]
			if c == top+2 {
				open = open[:len(open)-1]
				i++
				continue
			}
			if c != ',' {
				if top == '{' {
					return i, s.fail(i, "after object key:value pair")
				}
				return i, s.fail(i, "after array element")
			}
			i = s.skipSpace(i + 1)
			if top == '{' {
				if _, i, err = s.key(i); err != nil {
					return i, err
				}
			}
			break
		}
		if len(open) == 0 {
			return i, nil
		}
	}
}

// key validates an object's member name at i and the colon after it, and returns the
// offsets past the name and of the member's value.
func (s *scanner) key(i int) (nameEnd, value int, err error) {
	if s.at(i) != '"' {
		return i, i, s.fail(i, "looking for beginning of object key string")
	}
	if nameEnd, err = s.str(i); err != nil {
		return nameEnd, nameEnd, err
	}
	if i = s.skipSpace(nameEnd); s.at(i) != ':' {
		return nameEnd, i, s.fail(i, "after object key")
	}
	return nameEnd, s.skipSpace(i + 1), nil
}

// str validates the string whose opening quote is at i and returns the offset past its
// closing quote.
func (s *scanner) str(i int) (int, error) {
	b := s.data
	i++
	for {
		// Most of a frame is string content: look at eight bytes at a time.
		for i+8 <= len(b) {
			if m := special(binary.LittleEndian.Uint64(b[i:])); m != 0 {
				i += bits.TrailingZeros64(m) / 8
				break
			}
			i += 8
		}
		for i < len(b) && plain[b[i]] {
			i++
		}
		switch c := s.at(i); {
		case i >= len(b):
			return i, s.fail(i, "in string literal")
		case c == '"':
			return i + 1, nil
		case c == '\\':
			i++
			switch s.at(i) {
			case 'b', 'f', 'n', 'r', 't', '\\', '/', '"':
				i++
			case 'u':
				for range 4 {
					i++
					if !isHex(s.at(i)) {
						return i, s.fail(i, `in \u hexadecimal character escape`)
					}
				}
				i++
			default:
				return i, s.fail(i, "in string escape code")
			}
		default: // a control character
			return i, s.fail(i, "in string literal")
		}
	}
}

// plain reports the bytes that stand for themselves inside a string: all but the quote,
// the backslash and the control characters. Bytes of invalid UTF-8 are plain, as they
// are to encoding/json.Valid.
var plain = func() (t [256]bool) {
	for c := range t {
		t[c] = c >= 0x20 && c != '"' && c != '\\'
	}
	return t
}()

// special marks the bytes of w (eight bytes read little-endian) that are not plain with
// their high bit. Each term is the classic "has a zero byte" test, which can mark a byte
// above a real match, but never below one, so the lowest mark is exact.
func special(w uint64) uint64 {
	const ones = 0x0101010101010101
	quote := w ^ (ones * '"')
	backslash := w ^ (ones * '\\')
	return ((quote-ones)&^quote | (backslash-ones)&^backslash | (w-ones*0x20)&^w) & highs
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// number validates the number at i: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) number(i int) (int, error) {
	start := i
	if s.at(i) == '-' {
		i++
	}
	switch c := s.at(i); {
	case c == '0':
		i++
	case '1' <= c && c <= '9':
		for i++; isDigit(s.at(i)); i++ {
		}
	case i == start:
		return i, s.fail(i, "looking for beginning of value")
	default:
		return i, s.fail(i, "in numeric literal")
	}
	if s.at(i) == '.' {
		if i++; !isDigit(s.at(i)) {
			return i, s.fail(i, "after decimal point in numeric literal")
		}
		for i++; isDigit(s.at(i)); i++ {
		}
	}
	if c := s.at(i); c == 'e' || c == 'E' {
		if i++; s.at(i) == '+' || s.at(i) == '-' {
			i++
		}
		if !isDigit(s.at(i)) {
			return i, s.fail(i, "in exponent of numeric literal")
		}
		for i++; isDigit(s.at(i)); i++ {
		}
	}
	return i, nil
}

// literal validates true, false or null at i.
func (s *scanner) literal(i int, lit string) (int, error) {
	for j := range len(lit) {
		if s.at(i+j) != lit[j] {
			return i + j, s.fail(i+j, "in literal "+lit)
		}
	}
	return i + len(lit), nil
}

// whole validates data as one JSON value with optional whitespace around it, as
// encoding/json.Valid does.
func (s *scanner) whole() error {
	i, err := s.value(s.skipSpace(0), 0)
	if err != nil {
		return err
	}
	if i = s.skipSpace(i); i != len(s.data) {
		return s.fail(i, "after top-level value")
	}
	return nil
}

// AppendRaw appends the JSON value raw to dst, compacted as encoding/json compacts a
// json.RawMessage it embeds: whitespace between tokens removed and nothing else changed.
// Invalid JSON is an error, and dst is returned unchanged.
func AppendRaw(dst, raw []byte) ([]byte, error) {
	s := scanner{data: raw}
	if err := s.whole(); err != nil {
		return dst, err
	}
	if !s.spaced {
		return append(dst, raw...), nil
	}
	// Rare (pretty-printed input): copy the runs between whitespace outside strings.
	// raw is valid, so a quote outside a string opens one, and inside one only an
	// unescaped quote closes it.
	start := 0
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case c == '"':
			for i++; raw[i] != '"'; i++ {
				if raw[i] == '\\' {
					i++
				}
			}
		case isSpace(c):
			dst = append(dst, raw[start:i]...)
			start = i + 1
		}
	}
	return append(dst, raw[start:]...), nil
}

// Valid is encoding/json.Valid, without its allocation and its state machine per byte.
func Valid(data []byte) bool {
	s := scanner{data: data}
	return s.whole() == nil
}

// Check is [Valid] that says what is wrong: the first place where data stops being one
// JSON value, as "invalid character 'N' looking for beginning of value at offset 9".
func Check(data []byte) error {
	s := scanner{data: data}
	return s.whole()
}

// Members validates data as one JSON object, with optional whitespace around it, and
// calls member for each of its members in order, with the name as its string literal
// (quotes included, escapes left as they are) and the value's bytes: a message's members
// are picked out of the frame while it is validated. Invalid JSON is an error, after
// member has been called for the members before it.
func Members(data []byte, member func(name, value []byte)) error {
	return MembersWithin(data, "", member, nil)
}

// Member returns the value of data's member whose name literal (quotes included, escapes
// as written) is name, the last one when the name repeats, as encoding/json reads it; nil
// when there is none. data must be one valid JSON object, as for [Members].
func Member(data []byte, name string) ([]byte, error) {
	var found []byte
	err := Members(data, func(n, value []byte) {
		if string(n) == name {
			found = value
		}
	})
	return found, err
}

// MembersWithin is [Members] that also calls innerMember for each member of the value of
// each member whose name literal is inner (quotes included), when that value is an
// object, as it validates them, before member gets the object whole: an object and the
// members of one of its members in one pass.
func MembersWithin(data []byte, inner string, member, innerMember func(name, value []byte)) error {
	s := scanner{data: data}
	i := s.skipSpace(0)
	if s.at(i) != '{' {
		return s.fail(i, "looking for beginning of object")
	}
	i, err := s.object(i, 0, inner, member, innerMember)
	if err != nil {
		return err
	}
	if i = s.skipSpace(i); i != len(data) {
		return s.fail(i, "after top-level value")
	}
	return nil
}

// object validates the object whose opening brace is at i, nested in depth arrays and
// objects, calls member for each of its members (and innerMember for the members of the
// one named inner, as MembersWithin says), and returns the offset past its closing brace.
func (s *scanner) object(i, depth int, inner string, member, innerMember func(name, value []byte)) (int, error) {
	if i = s.skipSpace(i + 1); s.at(i) == '}' {
		return i + 1, nil
	}
	for {
		nameEnd, v, err := s.key(i)
		if err != nil {
			return nameEnd, err
		}
		name := s.data[i:nameEnd]
		var end int
		if innerMember != nil && s.at(v) == '{' && string(name) == inner {
			end, err = s.object(v, depth+1, "", innerMember, nil)
		} else {
			end, err = s.value(v, depth+1)
		}
		if err != nil {
			return end, err
		}
		member(name, s.data[v:end])
		i = s.skipSpace(end)
		if c := s.at(i); c != ',' {
			if c != '}' {
				return i, s.fail(i, "after object key:value pair")
			}
			return i + 1, nil
		}
		i = s.skipSpace(i + 1)
	}
}

// span returns where the one JSON value of data starts and ends, without the whitespace
// around it, or an error if data is not valid JSON.
func span(data []byte) (start, end int, err error) {
	s := scanner{data: data}
	start = s.skipSpace(0)
	if end, err = s.value(start, 0); err != nil {
		return 0, 0, err
	}
	if i := s.skipSpace(end); i != len(data) {
		return 0, 0, s.fail(i, "after top-level value")
	}
	return start, end, nil
}

// EachMember calls member for each member of obj, in order, as [Members] does (the name
// as its literal, the value's bytes), without checking obj: it is for an object checked
// already, such as a member's value that Members has passed on. Input that is not valid
// JSON makes it stop early, never fail.
func EachMember(obj []byte, member func(name, value []byte)) {
	i := skipSpaces(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return
	}
	i++
	for {
		start := skipSpaces(obj, i)
		if start >= len(obj) || obj[start] != '"' {
			return // '}', or not an object
		}
		nameEnd := skipString(obj, start)
		i = skipSpaces(obj, nameEnd)
		if i >= len(obj) || obj[i] != ':' {
			return
		}
		v := skipSpaces(obj, i+1)
		end := skipValue(obj, v)
		if end <= v || end > len(obj) {
			return
		}
		member(obj[start:nameEnd], obj[v:end])
		i = skipSpaces(obj, end)
		if i >= len(obj) || obj[i] != ',' {
			return
		}
		i++
	}
}

func skipSpaces(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// skipString returns the offset past the string whose opening quote is at i, or len(b)
// when it does not end.
func skipString(b []byte, i int) int {
	for i++; i < len(b); {
		for i+8 <= len(b) {
			if m := special(binary.LittleEndian.Uint64(b[i:])); m != 0 {
				i += bits.TrailingZeros64(m) / 8
				break
			}
			i += 8
		}
		if i >= len(b) {
			break
		}
		switch b[i] {
		case '"':
			return i + 1
		case '\\':
			i += 2
		default: // a control character, or the end of the bytes read eight at a time
			i++
		}
	}
	return len(b)
}

// skipValue returns the offset past the value at i, which is valid JSON.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return len(b)
	}
	for i < len(b) { // a number or a literal
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}
