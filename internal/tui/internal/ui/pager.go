package ui

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// Pager scrolls a list of lines: the result, error and message views. Lines longer than
// the width are cut (JSON is indented, so its structure stays readable).
type Pager struct {
	lines  []string
	offset int
	height int
}

// SetLines replaces the content, keeping the scroll position where it still fits.
func (p *Pager) SetLines(lines []string) {
	p.lines = lines
	p.clamp()
}

// Lines is the content.
func (p *Pager) Lines() []string { return p.lines }

// Scrollable reports whether the content was taller than the last [Pager.View].
func (p *Pager) Scrollable() bool { return p.height > 0 && len(p.lines) > p.height }

// Top scrolls to the first line.
func (p *Pager) Top() { p.offset = 0 }

func (p *Pager) clamp() {
	p.offset = max(min(p.offset, len(p.lines)-p.height), 0)
}

// Pager keys.
var (
	PagerUp       = key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "scroll"))
	PagerDown     = key.NewBinding(key.WithKeys("down", "j"))
	PagerPageUp   = key.NewBinding(key.WithKeys("pgup", "b"), key.WithHelp("pgup/pgdn", "page"))
	PagerPageDown = key.NewBinding(key.WithKeys("pgdown", "f", "space"))
	PagerHome     = key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g/G", "top/bottom"))
	PagerEnd      = key.NewBinding(key.WithKeys("end", "G"))
)

// Update scrolls on keys and the mouse wheel; it reports whether msg was used.
func (p *Pager) Update(msg tea.Msg) bool {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, PagerUp):
			p.offset--
		case key.Matches(msg, PagerDown):
			p.offset++
		case key.Matches(msg, PagerPageUp):
			p.offset -= max(p.height-1, 1)
		case key.Matches(msg, PagerPageDown):
			p.offset += max(p.height-1, 1)
		case key.Matches(msg, PagerHome):
			p.offset = 0
		case key.Matches(msg, PagerEnd):
			p.offset = len(p.lines)
		default:
			return false
		}
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			p.offset -= 3
		case tea.MouseWheelDown:
			p.offset += 3
		default:
			return false
		}
	default:
		return false
	}
	p.clamp()
	return true
}

// View renders h lines of w cells from the scroll position; when the content does not
// fit, the last line says where the view is.
func (p *Pager) View(w, h int) string {
	if h <= 0 {
		return ""
	}
	if len(p.lines) <= h {
		p.height = h
		p.clamp()
		return Block(p.lines, w, h)
	}
	// The last line is the footer: the offset is clamped to the lines above it, or the
	// content's last line could never be scrolled into view.
	body := h - 1
	p.height = body
	p.clamp()
	end := min(p.offset+body, len(p.lines))
	out := append([]string(nil), p.lines[p.offset:end]...)
	for len(out) < body {
		out = append(out, "")
	}
	out = append(out, Dim.Render(fmt.Sprintf("── lines %d-%d of %d (↑↓ pgup pgdn g G) ──", p.offset+1, end, len(p.lines))))
	return Block(out, w, h)
}
