package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// Keys the views share, so that the same key means the same thing everywhere.
var (
	Up      = key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up"))
	Down    = key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down"))
	Home    = key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g", "first"))
	End     = key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G", "last"))
	PgUp    = key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up"))
	PgDown  = key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "page down"))
	Enter   = key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open"))
	Back    = key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back"))
	Refresh = key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "refresh"))
	Submit  = key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "send"))
)

// Help is what a view shows in the help bar for its current mode.
type Help interface {
	ShortHelp() []key.Binding
	FullHelp() [][]key.Binding
}

// ListNav moves a cursor over n rows on the shared navigation keys, page keys moving
// page rows; it reports whether msg was one of them.
func ListNav(msg tea.KeyPressMsg, cur *int, n, page int) bool {
	page = max(page, 1)
	switch {
	case key.Matches(msg, Up):
		*cur--
	case key.Matches(msg, Down):
		*cur++
	case key.Matches(msg, Home):
		*cur = 0
	case key.Matches(msg, End):
		*cur = n - 1
	case key.Matches(msg, PgUp):
		*cur -= page
	case key.Matches(msg, PgDown):
		*cur += page
	default:
		return false
	}
	*cur = max(min(*cur, n-1), 0)
	return true
}

// Wheel moves a cursor on the mouse wheel; it reports whether msg was a wheel turn.
func Wheel(msg tea.MouseWheelMsg, cur *int, n int) bool {
	switch msg.Button {
	case tea.MouseWheelUp:
		*cur--
	case tea.MouseWheelDown:
		*cur++
	default:
		return false
	}
	*cur = max(min(*cur, n-1), 0)
	return true
}

// DropOldest takes out of list the oldest items that done reports, past limit of them, but
// not keep, calling gone for each; it returns the list and the cursor moved to stay on its
// item, or on the next one if its item went. Views use it to hold a bounded history.
func DropOldest[T comparable](list []T, cursor, limit int, done func(T) bool, keep T, gone func(T)) ([]T, int) {
	n := 0
	for _, x := range list {
		if done(x) {
			n++
		}
	}
	drop, before := n-limit, 0
	if drop <= 0 {
		return list, cursor
	}
	kept := list[:0]
	for i, x := range list {
		if drop > 0 && x != keep && done(x) {
			drop--
			if i < cursor {
				before++
			}
			if gone != nil {
				gone(x)
			}
			continue
		}
		kept = append(kept, x)
	}
	clear(list[len(kept):])
	return kept, max(cursor-before, 0)
}
