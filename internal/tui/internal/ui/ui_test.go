package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestFitAndBlock(t *testing.T) {
	if got := Fit("abcdef", 4); got != "abc…" {
		t.Errorf("Fit cut = %q", got)
	}
	if got := Fit(Bold.Render("ab"), 4); ansi.Strip(got) != "ab  " || Width(got) != 4 {
		t.Errorf("Fit pad = %q", got)
	}
	b := Block([]string{"one", "two", "three"}, 5, 2)
	if ansi.Strip(b) != "one  \ntwo  " {
		t.Errorf("Block = %q", b)
	}
}

func TestWindow(t *testing.T) {
	for _, c := range []struct{ off, cur, n, h, want int }{
		{0, 0, 10, 5, 0}, {0, 7, 10, 5, 3}, {3, 2, 10, 5, 2}, {8, 9, 10, 5, 5}, {0, 3, 3, 5, 0},
	} {
		if got := Window(c.off, c.cur, c.n, c.h); got != c.want {
			t.Errorf("Window(%d,%d,%d,%d) = %d, want %d", c.off, c.cur, c.n, c.h, got, c.want)
		}
	}
}

func TestHighlightJSON(t *testing.T) {
	lines := HighlightJSON([]byte(`{"a":"x:y","b":[1,true,null]}`))
	plain := ansi.Strip(strings.Join(lines, "\n"))
	want := "{\n  \"a\": \"x:y\",\n  \"b\": [\n    1,\n    true,\n    null\n  ]\n}"
	if plain != want {
		t.Errorf("highlighted JSON reads\n%s\nwant\n%s", plain, want)
	}
}
