package ui

import (
	"strconv"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
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

// The views' styles reach the terminal; every other escape sequence and control
// character is shown, and widths count what is shown.
func TestSafe(t *testing.T) {
	styled := Bold.Render("bold") + " " + StatusStyle("working").Render("◐") + " \x1b[38;2;1;2;3mrgb\x1b[m"
	if got := Safe(styled); got != styled {
		t.Errorf("Safe changed styled text:\n%q\n%q", got, styled)
	}
	for _, tt := range []struct{ in, want string }{
		{"a\x1b]0;pwned\x07b", "a␛]0;pwned␇b"},
		{"a\x1b]52;c;Zm9v\x1b\\b", `a␛]52;c;Zm9v␛\b`},
		{"\x1b[1mx\x1b[2Jy\x1b[m", "\x1b[1mx␛[2Jy\x1b[m"},
		{"\x1b[?1049h", "␛[?1049h"},
		{"\x1b[>4;2m", "␛[>4;2m"},
		{"\x1b[31", "␛[31"},
		{"done\rfailed\nnext", "done␍failed␊next"},
		{"\u009b2J \x9b2J", `\u009b2J ` + "\uFFFD2J"},
		{"abc\u202edef", `abc\u202edef`},
		{"end\x1b", "end␛"},
	} {
		if got := Safe(tt.in); got != tt.want {
			t.Errorf("Safe(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	hostile := "x\x1b]0;pwned\x07y\x1b[2J\u202e"
	if got := Fit(Accent.Render(hostile), 12); Width(got) != 12 || ansi.Strip(got) != "x␛]0;pwned␇…" {
		t.Errorf("Fit = %q", got)
	}
	if w := Width(hostile); w != len([]rune(Safe(hostile))) {
		t.Errorf("Width = %d, want the width shown, %d", w, len([]rune(Safe(hostile))))
	}
	if got := OneLine("a\x1b[8mhidden\n b"); got != "a␛[8mhidden b" {
		t.Errorf("OneLine = %q", got)
	}
	// A style a server's text began ends with its line.
	b := strings.Split(Block([]string{"\x1b[8mhidden", "plain"}, 8, 2), "\n")
	if !strings.HasSuffix(b[0], "\x1b[m") || b[1] != "plain   " {
		t.Errorf("Block = %q", b)
	}
}

// The end of the content can be reached: at the bottom the last line shows above the
// footer, whatever key took the view there.
func TestPagerReachesLastLine(t *testing.T) {
	lines := make([]string, 34)
	for i := range lines {
		lines[i] = "line " + strconv.Itoa(i+1)
	}
	for _, k := range []tea.KeyPressMsg{{Code: 'G', Text: "G"}, {Code: 'j', Text: "j"}, {Code: tea.KeyPgDown}} {
		var p Pager
		p.SetLines(lines)
		p.View(40, 28)
		for range 40 {
			p.Update(k)
			p.View(40, 28)
		}
		got := strings.Split(ansi.Strip(p.View(40, 28)), "\n")
		if last := strings.TrimSpace(got[len(got)-2]); last != "line 34" {
			t.Errorf("after %q the line above the footer is %q, want line 34", k.String(), last)
		}
		if foot := got[len(got)-1]; !strings.Contains(foot, "lines 8-34 of 34") {
			t.Errorf("after %q the footer reads %q", k.String(), foot)
		}
	}
	// Short content shows whole, without a footer.
	var p Pager
	p.SetLines(lines[:5])
	p.Update(tea.KeyPressMsg{Code: 'G', Text: "G"})
	if got := ansi.Strip(p.View(10, 6)); !strings.HasPrefix(got, "line 1") || strings.Contains(got, "──") {
		t.Errorf("short content reads %q", got)
	}
}
