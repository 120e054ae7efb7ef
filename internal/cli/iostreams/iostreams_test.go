package iostreams

import (
	"strings"
	"testing"
)

// The status line is cut to the terminal's width by what the terminal shows (a wide
// character takes two columns, an escaped control character its escape), so that it
// never wraps: a wrapped line cannot be redrawn in place.
func TestStatusLineFitsTheTerminal(t *testing.T) {
	for _, c := range []struct{ name, text, want string }{
		{"short", "progress 1/5", "progress 1/5"},
		{"long", strings.Repeat("abcdefghij", 3), "abcdefghijabcdefgh…"},
		{"wide", strings.Repeat("日本", 10), "日本日本日本日本日…"},
		{"escapes", "a\x1b[31mred" + strings.Repeat("x", 30), "a␛[31mredxxxxxxxxx…"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ios, _, _, errOut := Test()
			ios.SetStderrTTY(true)
			ios.SetTerminalWidth(20)
			ios.SetStatusLine(c.text)
			got, ok := strings.CutPrefix(errOut.String(), "\r\x1b[K")
			if !ok || got != c.want {
				t.Fatalf("drew %q, want %q", errOut.String(), c.want)
			}
		})
	}
}
