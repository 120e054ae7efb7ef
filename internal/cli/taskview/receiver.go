package taskview

import (
	"context"
	"fmt"
	"sync"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/cli/iostreams"
	"github.com/mcpi-dev/mcpi/internal/look"
	"github.com/mcpi-dev/mcpi/mcp"
)

// Receiver tasks: the server may run a sampling or elicitation request as a task on mcpi,
// and then polls it (tasks/get) while the user answers. [WatchReceiver] shows that.

// Polled is a "polled" event line: the server polled a request it runs as a task on mcpi.
type Polled struct {
	// TaskID and Status are mcpi's task, as mcpi answered the poll.
	TaskID string         `json:"taskId"`
	Status mcp.TaskStatus `json:"status"`
	// Polls counts the server's tasks/get of the task so far.
	Polls int `json:"polls"`
	// Method is the request: elicitation/create or sampling/createMessage.
	Method string `json:"method"`
	// RelatedTask is the task of the server the request belongs to, if any.
	RelatedTask string `json:"relatedTask,omitempty"`
}

// ReceiverEventsHelp documents the "polled" event line, for command help.
const ReceiverEventsHelp = `When the server runs one of its requests (elicitation or sampling) as a task on
mcpi and polls it, each poll is an event line too:

  {"event":"polled","time":T,"polled":{"taskId":ID,"status":S,"polls":N,"method":M,"relatedTask":ID}}

where taskId and status are mcpi's task as mcpi reported it to the server, polls
counts the polls so far, and relatedTask (when present) is the server's task the
request belongs to.`

// FromReceiverPoll turns a poll of a receiver task into an event line.
func FromReceiverPoll(e *client.ReceiverPollEvent) Event {
	p := &Polled{TaskID: e.Task.TaskID, Status: e.Task.Status, Polls: e.Polls}
	if e.Request != nil {
		p.Method, p.RelatedTask = e.Request.Method, e.Request.RelatedTask
	}
	return Event{Event: "polled", Time: mcp.FormatTime(e.Time), Polled: p}
}

// PollingLine is the sentence that says the server polls a request it runs as task id:
// "the server is polling this request as task ID (3 polls)"; once done, "the server
// polled this request as task ID (3 polls)".
func PollingLine(id string, polls int, done bool) string {
	verb := "is polling"
	if done {
		verb = "polled"
	}
	return fmt.Sprintf("the server %s this request as task %s (%s)", verb, id, pollCount(polls))
}

// livePollingLine is the short form for the live line of a followed task.
func livePollingLine(id string, polls int) string {
	if short := look.ShortID(id); short != id {
		id = short + "…"
	}
	return fmt.Sprintf("the server polls task %s (%s)", id, pollCount(polls))
}

func pollCount(n int) string {
	if n == 1 {
		return "1 poll"
	}
	return fmt.Sprintf("%d polls", n)
}

// WatchReceiver shows, until stop is called, that the server polls the requests it runs
// as tasks on mcpi (receiver tasks) in sess: as "polled" event lines on out when out is
// not nil; else, when stderr is a terminal, in live (the line of a followed task) when
// it is not nil, or else in a status line of its own, which stop leaves on the screen in
// the past tense. stop shows every poll that happened before it was called; calling it
// again does nothing.
func WatchReceiver(sess *client.Session, ios *iostreams.IOStreams, out *JSONWriter, live *Live) (stop func()) {
	sub := sess.Subscribe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	var last *client.ReceiverPollEvent
	go func() {
		defer close(done)
		// Once ctx ends, Next still returns the events queued before: none is lost.
		for {
			ev, ok := sub.Next(ctx)
			if !ok {
				return
			}
			e, ok := ev.(*client.ReceiverPollEvent)
			if !ok {
				continue
			}
			switch {
			case out != nil:
				_ = out.Write(FromReceiverPoll(e))
			case !ios.IsStderrTTY():
			case live != nil:
				live.Update(func(l *Line) { l.Receiver = livePollingLine(e.Task.TaskID, e.Polls) })
			default:
				ios.SetStatusLine(PollingLine(e.Task.TaskID, e.Polls, false))
				last = e
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			cancel()
			<-done
			sub.Close()
			if last != nil {
				ios.SetStatusLine(PollingLine(last.Task.TaskID, last.Polls, true))
				ios.KeepStatusLine()
			}
		})
	}
}
