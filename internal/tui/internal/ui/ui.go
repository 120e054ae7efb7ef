// Package ui holds what the views of mcpi's terminal UI share: the messages they pass
// through the root model, the event pump that turns a client subscription into
// messages, styles and colours, text fitting and the JSON highlighter. It holds no state:
// views never share mutable state. How a status, a duration or an error reads in words
// comes from package look, which the CLI shares.
package ui

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/look"
)

// EventsMsg is a batch of client events, in the order they happened, from the
// subscription of session generation Gen. Closed is set on the last batch of a
// subscription.
type EventsMsg struct {
	Gen    int
	Events []client.Event
	Closed bool
}

// TickMsg is the one-second clock that moves elapsed times and TTL countdowns.
type TickMsg time.Time

// SessionMsg hands the views a new session (after a reconnect). Gen is its generation;
// messages of older generations are stale.
type SessionMsg struct {
	Session *client.Session
	Gen     int
}

// FocusRequestMsg asks the root to show the Requests view with r open, ready to answer.
type FocusRequestMsg struct{ Request *client.Request }

// TaskStartedMsg says the Tools view started a task; the root shows it in the Tasks view.
type TaskStartedMsg struct{ Task *client.Task }

// FlashMsg is a one-line message for the status bar.
type FlashMsg struct {
	Text string
	Err  bool
	// Form marks a form's notice that nothing was sent: [FormDoneMsg] takes it away.
	Form bool
}

// Flash returns a command that shows text in the status bar.
func Flash(text string) tea.Cmd {
	return func() tea.Msg { return FlashMsg{Text: text} }
}

// FormNotice returns a command that shows a form's refusal to send in the status bar,
// until the form is sent or put away ([FormDone]) or its time is up.
func FormNotice(text string) tea.Cmd {
	return func() tea.Msg { return FlashMsg{Text: text, Form: true} }
}

// FormDoneMsg says a form was sent or put away: a notice of [FormNotice] is stale.
type FormDoneMsg struct{}

// FormDone returns the command that delivers [FormDoneMsg].
func FormDone() tea.Cmd { return Emit(FormDoneMsg{}) }

// FlashError returns a command that shows err as one sentence in the status bar.
func FlashError(prefix string, err error) tea.Cmd {
	return func() tea.Msg { return FlashMsg{Text: prefix + look.Sentence(err), Err: true} }
}

// Emit returns a command that delivers msg.
func Emit(msg tea.Msg) tea.Cmd { return func() tea.Msg { return msg } }

// Coalesce is how long the pump keeps collecting events after the first of a burst
// before it hands them over as one message: a burst of notifications costs one update
// and one render.
const Coalesce = 25 * time.Millisecond

// maxBatch hands a batch over early when it grows this large.
const maxBatch = 512

// Listen returns a command that waits for the next event of sub and returns it, with
// every event that follows within [Coalesce], as one [EventsMsg]. Issue it again after
// each batch that is not Closed.
func Listen(sub *client.Subscription, gen int) tea.Cmd {
	return func() tea.Msg {
		e, ok := sub.Next(context.Background())
		if !ok {
			return EventsMsg{Gen: gen, Closed: true}
		}
		batch := []client.Event{e}
		ctx, cancel := context.WithTimeout(context.Background(), Coalesce)
		defer cancel()
		for len(batch) < maxBatch {
			e, ok := sub.Next(ctx)
			if !ok {
				if ctx.Err() == nil { // the subscription ended
					return EventsMsg{Gen: gen, Events: batch, Closed: true}
				}
				break
			}
			batch = append(batch, e)
		}
		return EventsMsg{Gen: gen, Events: batch}
	}
}

// Tick returns the command that delivers the next [TickMsg] in d.
func Tick(d time.Duration) tea.Cmd {
	return tea.Tick(d, func(t time.Time) tea.Msg { return TickMsg(t) })
}
