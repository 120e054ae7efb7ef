package look

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestSafeShowsEveryControl(t *testing.T) {
	for c := rune(0); c < 0x20; c++ {
		want := string(0x2400 + c)
		if c == '\t' {
			want = "\t"
		}
		if got := Safe("a" + string(c) + "b"); got != "a"+want+"b" {
			t.Errorf("Safe(%U) = %q, want %q", c, got, "a"+want+"b")
		}
		if c == '\n' {
			want = "\n"
		}
		if got := SafeLines("a" + string(c) + "b"); got != "a"+want+"b" {
			t.Errorf("SafeLines(%U) = %q, want %q", c, got, "a"+want+"b")
		}
	}
	if got := Safe("a\x7fb"); got != "a␡b" {
		t.Errorf("Safe(DEL) = %q", got)
	}
	for c := rune(0x80); c <= 0x9f; c++ {
		want := fmt.Sprintf(`a\u%04xb`, c)
		if got := Safe("a" + string(c) + "b"); got != want {
			t.Errorf("Safe(%U) = %q, want %q", c, got, want)
		}
		if got := SafeLines("a" + string(c) + "b"); got != want {
			t.Errorf("SafeLines(%U) = %q, want %q", c, got, want)
		}
	}
	for _, c := range []rune{0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x2028, 0x2029} {
		want := fmt.Sprintf(`a\u%04xb`, c)
		if got := Safe("a" + string(c) + "b"); got != want {
			t.Errorf("Safe(%U) = %q, want %q", c, got, want)
		}
	}
}

// TestSafeShowsInvisibles: a character a terminal draws as nothing would let a server's
// name pass for another ("add\u200b" for "add") or hide a sentence in a description (tag
// characters), so it is shown; a joiner or variation selector within an emoji or a word of
// a script that needs it stays, so that the text reads as its writer meant.
func TestSafeShowsInvisibles(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"add\u200b", `add\u200b`},
		{"a\u200bdd", `a\u200bdd`},
		{"soft\u00adhyphen", `soft\u00adhyphen`},
		{"\ufeffbom", `\ufeffbom`},
		{"w\u2060j\u2061\u2062\u2063\u2064", `w\u2060j\u2061\u2062\u2063\u2064`},
		{"hangul\u3164filler", `hangul\u3164filler`},
		{"mongolian\u180e", `mongolian\u180e`},
		{"cgj\u034f", `cgj\u034f`},
		// ASCII smuggling: "Hi" in tag characters after a visible text.
		{"ok\U000E0001\U000E0048\U000E0069\U000E007F", `ok\U000e0001\U000e0048\U000e0069\U000e007f`},
		// Joiners stay between two characters that are no ASCII (an emoji sequence, a
		// Persian word), and are shown elsewhere: at an end, beside ASCII, two together.
		{"👩\u200d👩\u200d👧", "👩\u200d👩\u200d👧"},
		{"👩🏽\u200d🚀", "👩🏽\u200d🚀"},
		{"می\u200cخواهم", "می\u200cخواهم"},
		{"add\u200d", `add\u200d`},
		{"a\u200cd", `a\u200cd`},
		{"\u200d👧", `\u200d👧`},
		{"👩\u200d\u200d👧", `👩\u200d\u200d👧`},
		{"\xff\u200d👧", "\uFFFD\\u200d👧"},
		// A variation selector stays after a character that is no ASCII, once, and in a
		// keycap; more of them (data hidden in selectors after an emoji) are shown.
		{"❤\ufe0f", "❤\ufe0f"},
		{"🏳\ufe0f\u200d🌈", "🏳\ufe0f\u200d🌈"},
		{"❤\ufe0f\u200d🔥", "❤\ufe0f\u200d🔥"},
		{"#\ufe0f\u20e3 1\ufe0f\u20e3", "#\ufe0f\u20e3 1\ufe0f\u20e3"},
		{"葛\U000E0100", "葛\U000E0100"},
		{"add\ufe0f", `add\ufe0f`},
		{"1\ufe0f", `1\ufe0f`},
		{"😀\ufe01\ufe02\U000E0110", `😀` + "\ufe01" + `\ufe02\U000e0110`},
		// A subdivision flag is its tag characters; others are shown.
		{"🏴\U000E0067\U000E0062\U000E0065\U000E006E\U000E0067\U000E007F", "🏴\U000E0067\U000E0062\U000E0065\U000E006E\U000E0067\U000E007F"},
		{"🏴\U000E0067\U000E0062", `🏴\U000e0067\U000e0062`},
		{"🏴\U000E0041\U000E007F", `🏴\U000e0041\U000e007f`},
		{"🏴\U000E0061\U000E0061\U000E0061\U000E0061\U000E0061\U000E0061\U000E0061\U000E0061\U000E007F", `🏴\U000e0061\U000e0061\U000e0061\U000e0061\U000e0061\U000e0061\U000e0061\U000e0061\U000e007f`},
	} {
		if got := Safe(tt.in); got != tt.want {
			t.Errorf("Safe(%+q) = %+q, want %+q", tt.in, got, tt.want)
		}
		if got := SafeLines(tt.in); got != tt.want {
			t.Errorf("SafeLines(%+q) = %+q, want %+q", tt.in, got, tt.want)
		}
		if again := Safe(tt.want); again != tt.want {
			t.Errorf("Safe(%+q) = %+q, not what it was given", tt.want, again)
		}
	}
}

// TestInvisibleIsDefaultIgnorable: the characters shown as invisible are Unicode's
// Default_Ignorable_Code_Point, derived here from Go's tables as UAX #44 derives it.
func TestInvisibleIsDefaultIgnorable(t *testing.T) {
	// Planes 2 to 13 hold no such character; leaving them out keeps the test quick
	// under the race detector.
	for r := rune(0x80); r <= unicode.MaxRune; r++ {
		if r == 0x20000 {
			r = 0xe0000
		}
		di := (unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) || unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Variation_Selector, r)) &&
			!unicode.Is(unicode.White_Space, r) && !(r >= 0xfff9 && r <= 0xfffb) && !(r >= 0x13430 && r <= 0x1343f) &&
			!unicode.Is(unicode.Prepended_Concatenation_Mark, r)
		if got := invisible(r); got != di {
			t.Errorf("invisible(%U) = %v, but Default_Ignorable_Code_Point is %v", r, got, di)
		}
	}
}

func TestSafe(t *testing.T) {
	for _, tt := range []struct{ in, one, lines string }{
		{"", "", ""},
		{"plain text, ✓ é 日本 👩‍👩‍👧", "plain text, ✓ é 日本 👩‍👩‍👧", "plain text, ✓ é 日本 👩‍👩‍👧"},
		{"tab\tstays", "tab\tstays", "tab\tstays"},
		{"\x1b]0;pwned\x07", "␛]0;pwned␇", "␛]0;pwned␇"},
		{"\x1b]52;c;Zm9v\x1b\\", `␛]52;c;Zm9v␛\`, `␛]52;c;Zm9v␛\`},
		{"\x1b[2J\x1b[H", "␛[2J␛[H", "␛[2J␛[H"},
		{"\x1b[31mred\x1b[0m", "␛[31mred␛[0m", "␛[31mred␛[0m"},
		{"\u009b2J", `\u009b2J`, `\u009b2J`},
		{"abc\u202efed", `abc\u202efed`, `abc\u202efed`},
		{"done\rfailed", "done␍failed", "done␍failed"},
		{"one\ntwo\r\nthree\n", "one␊two␍␊three␊", "one\ntwo\nthree\n"},
		{"\r\n\r\r\n", "␍␊␍␍␊", "\n␍\n"},
		{"trailing\r", "trailing␍", "trailing␍"},
		{"bell\a back\b", "bell␇ back␈", "bell␇ back␈"},
		{"nul\x00", "nul␀", "nul␀"},
		// Bytes that are not UTF-8 read as a decoder reads them: U+FFFD each.
		{"raw \x9b2J", "raw \uFFFD2J", "raw \uFFFD2J"},
		{"\xff\xfe", "\uFFFD\uFFFD", "\uFFFD\uFFFD"},
		{"cut \xe2\x90", "cut \uFFFD\uFFFD", "cut \uFFFD\uFFFD"},
		{"surrogate \xed\xa0\x80", "surrogate \uFFFD\uFFFD\uFFFD", "surrogate \uFFFD\uFFFD\uFFFD"},
		{"replacement \uFFFD stays", "replacement \uFFFD stays", "replacement \uFFFD stays"},
		// What Safe shows is left as it is: Safe(Safe(s)) is Safe(s).
		{`␛]0;x␇ \u009b`, `␛]0;x␇ \u009b`, `␛]0;x␇ \u009b`},
	} {
		if got := Safe(tt.in); got != tt.one {
			t.Errorf("Safe(%q) = %q, want %q", tt.in, got, tt.one)
		}
		if got := SafeLines(tt.in); got != tt.lines {
			t.Errorf("SafeLines(%q) = %q, want %q", tt.in, got, tt.lines)
		}
	}
}

// unsafeIn returns the first character of s that Safe (lines false) or SafeLines would
// have changed, or "".
func unsafeIn(s string, lines bool) string {
	if !utf8.ValidString(s) {
		return "bytes that are not UTF-8"
	}
	if i := firstUnsafe(s, lines); i < len(s) {
		r, _ := utf8.DecodeRuneInString(s[i:])
		return fmt.Sprintf("%U at %d", r, i)
	}
	return ""
}

func TestSafeLong(t *testing.T) {
	clean := strings.Repeat("a tool's description, ✓ 日本. ", 40_000) // about 1.3 MB
	if got := Safe(clean); got != clean {
		t.Errorf("Safe changed a long clean text")
	}
	if n := testing.AllocsPerRun(10, func() { Safe(clean) }); n != 0 {
		t.Errorf("Safe of a clean text allocates %v times", n)
	}
	var b strings.Builder
	for i := range 300_000 {
		b.WriteString("x")
		b.WriteRune(rune(i % 0xa0))
		b.WriteString("\u202e\xff")
		if i%8 == 0 {
			b.WriteString("👩\u200d\u200b\ufe0f\U000E0041")
		}
	}
	hostile := b.String()
	for _, lines := range []bool{false, true} {
		got := safe(hostile, lines)
		if bad := unsafeIn(got, lines); bad != "" {
			t.Errorf("safe(lines=%v) left %s", lines, bad)
		}
		if again := safe(got, lines); again != got {
			t.Errorf("safe(lines=%v) is not idempotent on a long text", lines)
		}
	}
}

func FuzzSafe(f *testing.F) {
	for _, s := range []string{"", "plain", "\x1b]0;pwned\x07", "\u009b2J\u202e", "👩\u200d👧\ufe0f\ufe0f", "🏴\U000E0067\U000E0062\U000E007F", "#\ufe0f\u20e3", "a\r\nb\rc\n", "\xff\xe2\x90", "\t\x7f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, lines := range []bool{false, true} {
			got := safe(s, lines)
			if bad := unsafeIn(got, lines); bad != "" {
				t.Fatalf("safe(%q, %v) = %q, which has %s", s, lines, got, bad)
			}
			if again := safe(got, lines); again != got {
				t.Fatalf("safe(%q, %v) = %q, but safe of that is %q", s, lines, got, again)
			}
			if unsafeIn(s, lines) == "" && got != s {
				t.Fatalf("safe(%q, %v) changed a safe text to %q", s, lines, got)
			}
		}
		if one := Safe(s); strings.ContainsAny(one, "\n\r") {
			t.Fatalf("Safe(%q) = %q is not one line", s, one)
		}
	})
}

func TestSafeJSON(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"a":"plain ✓ 日本 👩‍👧"}`, `{"a":"plain ✓ 日本 👩‍👧"}`},
		{"{\"a\": \"x\u009b2J\u202eevil\x7f\"}\n", `{"a": "x\u009b2J\u202eevil\u007f"}` + "\n"},
		{"[\"add\u200b\", \"ok\U000E0041\", \"\xff\"]", `["add\u200b", "ok\udb40\udc41", "\ufffd"]`},
		{"[\n  \"tab\\t\\u001b\"\n]", "[\n  \"tab\\t\\u001b\"\n]"},
		{`["🏴` + "\U000E0067\U000E0062\U000E0065\U000E006E\U000E0067\U000E007F" + `"]`, `["🏴` + "\U000E0067\U000E0062\U000E0065\U000E006E\U000E0067\U000E007F" + `"]`},
	} {
		got := SafeJSON([]byte(tt.in))
		if string(got) != tt.want {
			t.Errorf("SafeJSON(%+q) = %+q, want %+q", tt.in, got, tt.want)
		}
		var a, b any
		if json.Unmarshal([]byte(tt.in), &a) == nil {
			if err := json.Unmarshal(got, &b); err != nil || !reflect.DeepEqual(a, b) {
				t.Errorf("SafeJSON(%+q) reads as %v (%v), not %v", tt.in, b, err, a)
			}
		}
	}
}
