package ui

import (
	"fmt"
	"strings"
	"unsafe"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// Pager scrolls a list of lines: the result, error and message views. A line wider than
// the view is wrapped onto the rows below it, so that all of a long text can be read
// (w cuts lines at the width instead, which keeps indented JSON to one row a line). Only
// the lines on screen are wrapped: a server's result of megabytes in one line costs its
// wrapping once, and a scroll what shows.
type Pager struct {
	lines []string
	top   int // the first line shown
	sub   int // the first of its rows shown, when it wraps
	// rows and width are the rows of content and the width of the last View: scrolling
	// moves by them.
	rows, width int
	cut         bool
	// fits: the last View showed every line whole.
	fits bool
	// wrapped keeps the rows of the lines wrapped lately, at width, for a line whose
	// text is the same (the views build their lines again at each tick; a result's lines
	// are the same strings).
	wrapped map[int]wrappedLine
}

type wrappedLine struct {
	text *byte
	n    int
	rows []string
}

// maxWrapped bounds the lines whose rows the pager keeps.
const maxWrapped = 4096

// SetLines replaces the content, keeping the scroll position where it still fits.
func (p *Pager) SetLines(lines []string) {
	p.lines = lines
	p.top = max(min(p.top, len(lines)-1), 0)
	p.sub = max(min(p.sub, p.rowsOf(p.top)-1), 0)
	p.clampEnd()
}

// Lines is the content.
func (p *Pager) Lines() []string { return p.lines }

// Scrollable reports whether the content did not fit the last [Pager.View].
func (p *Pager) Scrollable() bool { return p.rows > 0 && !p.fits }

// Top scrolls to the first line.
func (p *Pager) Top() { p.top, p.sub = 0, 0 }

// Pager keys.
var (
	PagerUp       = key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "scroll"))
	PagerDown     = key.NewBinding(key.WithKeys("down", "j"))
	PagerPageUp   = key.NewBinding(key.WithKeys("pgup", "b"), key.WithHelp("pgup/pgdn", "page"))
	PagerPageDown = key.NewBinding(key.WithKeys("pgdown", "f", "space"))
	PagerHome     = key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g/G", "top/bottom"))
	PagerEnd      = key.NewBinding(key.WithKeys("end", "G"))
	PagerWrap     = key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "wrap/cut long lines"))
)

// Update scrolls on keys and the mouse wheel, and w switches between wrapping and
// cutting long lines; it reports whether msg was used.
func (p *Pager) Update(msg tea.Msg) bool {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, PagerUp):
			p.up(1)
		case key.Matches(msg, PagerDown):
			p.down(1)
		case key.Matches(msg, PagerPageUp):
			p.up(max(p.rows-1, 1))
		case key.Matches(msg, PagerPageDown):
			p.down(max(p.rows-1, 1))
		case key.Matches(msg, PagerHome):
			p.Top()
		case key.Matches(msg, PagerEnd):
			p.top = max(len(p.lines)-1, 0)
			p.sub = max(p.rowsOf(p.top)-1, 0)
		case key.Matches(msg, PagerWrap):
			p.cut = !p.cut
			p.sub = 0
		default:
			return false
		}
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			p.up(3)
		case tea.MouseWheelDown:
			p.down(3)
		default:
			return false
		}
	default:
		return false
	}
	p.clampEnd()
	return true
}

// rowsOf is the number of rows line i takes.
func (p *Pager) rowsOf(i int) int {
	if p.cut || i < 0 || i >= len(p.lines) {
		return 1
	}
	return len(p.wrap(i))
}

// wrap returns the rows of line i at the view's width.
func (p *Pager) wrap(i int) []string {
	line := p.lines[i]
	w := max(p.width, 1)
	if len(line) <= w { // a byte a cell at most: it fits (the common case costs nothing)
		return []string{line}
	}
	text := unsafe.StringData(line)
	if c, ok := p.wrapped[i]; ok && c.text == text && c.n == len(line) {
		return c.rows
	}
	rows := []string{line}
	if ansi.StringWidth(line) > w {
		rows = strings.Split(ansi.Wrap(line, w, ""), "\n")
	}
	if p.wrapped == nil || len(p.wrapped) >= maxWrapped {
		p.wrapped = map[int]wrappedLine{}
	}
	p.wrapped[i] = wrappedLine{text: text, n: len(line), rows: rows}
	return rows
}

func (p *Pager) down(n int) {
	for ; n > 0; n-- {
		switch {
		case p.sub+1 < p.rowsOf(p.top):
			p.sub++
		case p.top+1 < len(p.lines):
			p.top, p.sub = p.top+1, 0
		default:
			return
		}
	}
}

func (p *Pager) up(n int) {
	for ; n > 0; n-- {
		switch {
		case p.sub > 0:
			p.sub--
		case p.top > 0:
			p.top--
			p.sub = p.rowsOf(p.top) - 1
		default:
			return
		}
	}
}

// clampEnd scrolls up while the rows from the position to the end do not fill the view:
// the last row stays at the bottom. It counts the rows of the lines on screen only.
func (p *Pager) clampEnd() {
	if p.rows <= 0 {
		return
	}
	have := p.rowsOf(p.top) - p.sub
	for i := p.top + 1; i < len(p.lines) && have < p.rows; i++ {
		have += p.rowsOf(i)
	}
	if have < p.rows {
		p.up(p.rows - have)
	}
}

// fitsIn reports whether the content takes at most h rows.
func (p *Pager) fitsIn(h int) bool {
	n := 0
	for i := range p.lines {
		if n += p.rowsOf(i); n > h {
			return false
		}
	}
	return true
}

// visible returns up to n rows from the position, and the last line they show.
func (p *Pager) visible(n int) (rows []string, last int) {
	last = p.top
	for i := p.top; i < len(p.lines) && len(rows) < n; i++ {
		var r []string
		if p.cut {
			r = []string{p.lines[i]}
		} else {
			r = p.wrap(i)
		}
		if i == p.top {
			r = r[min(p.sub, len(r)-1):]
		}
		rows = append(rows, r[:min(len(r), n-len(rows))]...)
		last = i
	}
	return rows, last
}

// View renders h rows of w cells from the scroll position; when the content does not
// fit, the last row says where the view is.
func (p *Pager) View(w, h int) string {
	if h <= 0 {
		return ""
	}
	if w != p.width {
		p.width, p.wrapped = w, nil
		p.sub = max(min(p.sub, p.rowsOf(p.top)-1), 0)
	}
	// Does it all fit? The rows of the first lines, up to h+1, tell; then the view is at
	// the top, wherever it was scrolled to before.
	if p.fitsIn(h) {
		p.rows, p.fits, p.top, p.sub = h, true, 0, 0
		rows, _ := p.visible(h)
		return Block(rows, w, h)
	}
	p.fits = false
	// The last row is the footer: the position is clamped to the rows above it, or the
	// content's last row could never be scrolled into view.
	p.rows = h - 1
	p.clampEnd()
	rows, last := p.visible(p.rows)
	for len(rows) < p.rows {
		rows = append(rows, "")
	}
	how := "w cuts"
	if p.cut {
		how = "w wraps"
	}
	rows = append(rows, Dim.Render(fmt.Sprintf("── lines %d-%d of %d · %s · ↑↓ pgup pgdn g G ──", p.top+1, last+1, len(p.lines), how)))
	return Block(rows, w, h)
}
