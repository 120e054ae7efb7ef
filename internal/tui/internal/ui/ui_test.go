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

// A line wider than the view wraps onto the rows below it, so that all of it can be read
// (a tool's long text was cut with "…" and could not be seen); w cuts long lines
// instead, and again wraps them. At the bottom the last row of a wrapped last line shows.
func TestPagerWrapsLongLines(t *testing.T) {
	long := "start " + strings.Repeat("0123456789", 10) + " end"
	var p Pager
	p.SetLines([]string{"first", long})
	got := ansi.Strip(p.View(40, 10))
	squeeze := strings.NewReplacer(" ", "", "\n", "")
	if !strings.Contains(squeeze.Replace(got), squeeze.Replace(long)) {
		t.Errorf("the long line is not whole over its rows:\n%s", got)
	}
	// Wrapped at spaces where it can be ("start", 100 digits cut at 40, "end").
	if rows := strings.Count(strings.TrimRight(got, " \n"), "\n") + 1; rows != 5 {
		t.Errorf("%d rows, want first and four of the long line:\n%s", rows, got)
	}
	p.Update(tea.KeyPressMsg{Code: 'w', Text: "w"})
	got = ansi.Strip(p.View(40, 10))
	if strings.Contains(got, " end") || strings.Count(strings.TrimRight(got, " \n"), "\n") != 1 {
		t.Errorf("w does not cut long lines:\n%s", got)
	}
	p.Update(tea.KeyPressMsg{Code: 'w', Text: "w"})
	// Taller than the view: G shows the end of the long line above the footer, and the
	// footer says how to cut.
	lines := []string{}
	for i := range 20 {
		lines = append(lines, "line "+strconv.Itoa(i+1))
	}
	p.SetLines(append(lines, long))
	p.View(40, 10)
	p.Update(tea.KeyPressMsg{Code: 'G', Text: "G"})
	rows := strings.Split(ansi.Strip(p.View(40, 10)), "\n")
	if above := strings.TrimSpace(rows[len(rows)-2]); !strings.HasSuffix(above, "end") {
		t.Errorf("at the bottom the row above the footer is %q, want the long line's end", above)
	}
	if foot := rows[len(rows)-1]; !strings.Contains(foot, "of 21") || !strings.Contains(foot, "w cuts") {
		t.Errorf("footer %q", foot)
	}
	// j from the top walks the long line row by row, then stops at the end.
	p.Top()
	for range 100 {
		p.Update(tea.KeyPressMsg{Code: 'j', Text: "j"})
	}
	if again := strings.Split(ansi.Strip(p.View(40, 10)), "\n"); strings.Join(again, "\n") != strings.Join(rows, "\n") {
		t.Errorf("j to the end shows\n%s\nnot, as G did,\n%s", strings.Join(again, "\n"), strings.Join(rows, "\n"))
	}
}

// A server's result of megabytes in one line is wrapped once: scrolling through it and
// drawing it again costs the rows on screen, not the line.
func TestPagerLongLineWrappedOnce(t *testing.T) {
	huge := strings.Repeat("x", 4<<20)
	var p Pager
	p.SetLines([]string{"head", huge, "tail"})
	p.View(120, 30)
	allocs := testing.AllocsPerRun(20, func() {
		p.Update(tea.KeyPressMsg{Code: tea.KeyPgDown})
		p.SetLines([]string{"head", huge, "tail"}) // a view builds its lines again at each tick
		p.View(120, 30)
	})
	if allocs > 500 {
		t.Errorf("a page down and a draw of a 4 MiB line cost %.0f allocations, want those of the rows shown", allocs)
	}
	p.Update(tea.KeyPressMsg{Code: 'G', Text: "G"})
	rows := strings.Split(ansi.Strip(p.View(120, 30)), "\n")
	if strings.TrimSpace(rows[len(rows)-2]) != "tail" {
		t.Errorf("the end is not reached: %q", rows[len(rows)-2])
	}
}

// A name cut in the middle keeps its start and its end, in the cells it is given, wide
// characters too.
func TestCutMiddle(t *testing.T) {
	for _, c := range []struct {
		s    string
		w    int
		want string
	}{
		{"trigger-sampling-request", 21, "trigger-sa…ng-request"},
		{"trigger-sampling-request-async", 21, "trigger-sa…uest-async"},
		{"short", 21, "short"},
		{"日本語のツール名前", 9, "日本…名前"},
		{"abcdef", 2, "a…"},
	} {
		got := CutMiddle(c.s, c.w)
		if got != c.want || ansi.StringWidth(got) > c.w {
			t.Errorf("CutMiddle(%q, %d) = %q, want %q", c.s, c.w, got, c.want)
		}
	}
}
