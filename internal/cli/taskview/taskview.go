// Package taskview shows tasks that mcpi follows: as JSON lines for scripts (one
// [Event] per line), or for people as one status line redrawn in place on the terminal
// (status with its symbol, status message, a progress bar when the total is known,
// elapsed time and polls), and as short descriptions of a task's fields.
package taskview

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/cli/iostreams"
	"github.com/mcpi-dev/mcpi/internal/look"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/transport"
)

// EventsHelp documents the --json event lines, for command help.
const EventsHelp = `With --json, every event is one JSON object on its own line of stdout:

  {"event":"created","time":T,"task":TASK}
  {"event":"status","time":T,"task":TASK}
  {"event":"status","time":T,"task":TASK,"dropped":N}
  {"event":"progress","time":T,"task":TASK,"progress":{"progress":N,"total":N,"message":S}}
  {"event":"input","time":T,"task":TASK,"input":{"method":M,"message":S}}
  {"event":"result","time":T,"task":TASK,"result":CALLTOOLRESULT,"outputProblem":S}
  {"event":"error","time":T,"task":TASK,"error":{"code":N,"message":S,"data":ANY}}
  {"event":"gone","time":T,"task":TASK,"error":{"code":N,"message":S},"forgotten":true}
  {"event":"lost","time":T,"task":TASK,"lost":{"reason":R,"polls":N,"fetch":CMD},"error":{"code":N,"message":S,"data":ANY}}
  {"event":"interrupted","time":T,"task":TASK,"interrupted":{"state":S,"fetch":CMD},"error":{"message":S}}

TASK is the task as last known, with the fields of the MCP Task (taskId, status,
statusMessage, createdAt, lastUpdatedAt, ttl, pollInterval). T is when mcpi saw the
event (RFC 3339), or the T of the line above when that is later: the times of the
lines never go back. "total" and "message" of progress are left out when the server
sends none; "input" is a request of the server (method elicitation/create or
sampling/createMessage) waiting for an answer. The last line is "result" (the exact
CallToolResult of tasks/result; with "tools call", and "tasks watch ID" of a task
whose tool is recorded, "outputProblem" says how its structuredContent does not
fit the tool's output schema, when it does not),
"error" (the exact JSON-RPC error of tasks/result; "code" is left out when the
error did not come from the server, such as a cancelled task or input mcpi did
not give) or "gone" (the server no longer knows the task: "error" is how mcpi
learnt it, with the server's "code" when the server said so; "forgotten", with
"tasks watch", when mcpi removed the task from its local state file) or "lost" (mcpi
stopped following a task whose fate it does not know, which may still run on the
server: "reason" is "noAnswer" when N polls in a row got no answer, "errorAnswers"
when the server answered N polls in a row with an error, "sessionEnded" when the
server ended the session (2025-11-25) while mcpi followed the task, "noResult"
when the server said the task ended but did not answer its tasks/result within
--timeout; "error" is
the last poll's error, with the server's "code" when it answered one; "fetch" is
the command that gets the task's result later) or "interrupted" (mcpi was
interrupted, by a signal such as Ctrl-C or SIGTERM, before the task ended:
"state" is "running" when the task was left running on the server, with
"fetch" the command that gets its result later, "cancelled" when mcpi cancelled
it, "stopped" when it ends with the server mcpi stops as it exits (the embedded
demo server, a stdio server), "unknown" when mcpi cannot tell (the call was
withdrawn before the server gave the task's id, or cancelling it failed);
"error" is mcpi's sentence, as on stderr). When the reader of stdout closed it,
nothing more is written there, and stderr alone says what became of the task.
A status line with
"dropped" stands for N events left out because the lines were not read as fast as
the server sent them (stdout blocked); the task is as known then, and the last line
is never left out.`

// Event is one line of --json output.
type Event struct {
	Event    string              `json:"event"`
	Time     string              `json:"time"`
	Task     *mcp.Task           `json:"task,omitempty"`
	Progress *Progress           `json:"progress,omitempty"`
	Input    *Input              `json:"input,omitempty"`
	Result   *mcp.CallToolResult `json:"result,omitempty"`
	// OutputProblem, on a "result" event, says how the result does not fit the tool's
	// output schema.
	OutputProblem string `json:"outputProblem,omitempty"`
	Error         *Error `json:"error,omitempty"`
	// Dropped counts the events left out before a "status" event (client.TaskEvent.Dropped).
	Dropped int `json:"dropped,omitempty"`
	// Polled is set on "polled" events (see [ReceiverEventsHelp]).
	Polled *Polled `json:"polled,omitempty"`
	// Lost says why mcpi stopped following the task, on a "lost" event.
	Lost *Lost `json:"lost,omitempty"`
	// Interrupted says what became of the task, on an "interrupted" event.
	Interrupted *Interrupted `json:"interrupted,omitempty"`
	// Waiting says where the task waits for input, on a "waiting" event.
	Waiting *Waiting `json:"waiting,omitempty"`
	// Forgotten is set on a "gone" event when mcpi removed the task from its state
	// file: no command will reach it again.
	Forgotten bool `json:"forgotten,omitempty"`
}

// What became of a task mcpi was interrupted while following, in [Interrupted.State].
const (
	// LeftRunning: the task was left running on the server, and can be fetched later.
	LeftRunning = "running"
	// LeftCancelled: mcpi cancelled the task on the server.
	LeftCancelled = "cancelled"
	// LeftStopped: the task ends with its server, which mcpi stops as it exits.
	LeftStopped = "stopped"
	// LeftUnknown: mcpi cannot tell (no id yet, or cancelling it failed).
	LeftUnknown = "unknown"
)

// Interrupted is what an "interrupted" event, the last line of a stream that a signal
// ended before the task did, says of the task: a script that reads only stdout learns
// whether it still runs and how to fetch its result.
type Interrupted struct {
	State string `json:"state"`
	// Fetch is the command that gets the result of a task left running.
	Fetch string `json:"fetch,omitempty"`
}

// InterruptedEvent is the last line of a stream that an interruption ended: task is the
// task as last known (nil: none yet), state and fetch are what became of it, and msg is
// the sentence that says so on stderr.
func InterruptedEvent(at time.Time, task *mcp.Task, state, fetch, msg string) Event {
	ev := Event{Event: "interrupted", Time: mcp.FormatTime(at), Interrupted: &Interrupted{State: state, Fetch: fetch},
		Error: &Error{Message: msg}}
	if task != nil && task.TaskID != "" {
		st := *task
		ev.Task = &st
	}
	return ev
}

// Waiting is what a "waiting" event, the last line of a stream that a question mcpi
// could not ask ended (no terminal, and no answer in the answers file), says of the
// task: it waits for the input on the server, and Fetch is the command that gives it.
type Waiting struct {
	Fetch string `json:"fetch,omitempty"`
}

// WaitingEvent is the last line of a stream that stopped on a question mcpi could not
// ask: task is the task as last known, fetch the command that gives its input, and msg
// the sentence that says so on stderr.
func WaitingEvent(at time.Time, task *mcp.Task, fetch, msg string) Event {
	ev := Event{Event: "waiting", Time: mcp.FormatTime(at), Waiting: &Waiting{Fetch: fetch}, Error: &Error{Message: msg}}
	if task != nil && task.TaskID != "" {
		st := *task
		ev.Task = &st
	}
	return ev
}

// Why mcpi lost track of a task, in [Lost.Reason].
const (
	// LostNoAnswer: the polls got no answer (the server could not be reached, or did
	// not answer in time).
	LostNoAnswer = "noAnswer"
	// LostErrorAnswers: the server answered the polls with errors.
	LostErrorAnswers = "errorAnswers"
	// LostSessionEnded: the server ended the session (2025-11-25) the task was
	// followed in.
	LostSessionEnded = "sessionEnded"
	// LostNoResult: the server said the task ended (2025-11-25), but did not answer its
	// tasks/result within --timeout.
	LostNoResult = "noResult"
)

// Lost is what a "lost" event says of a task mcpi stopped following without learning
// its outcome.
type Lost struct {
	Reason string `json:"reason"`
	// Polls is how many polls in a row failed (0 when the session ended).
	Polls int `json:"polls,omitempty"`
	// Fetch is the command that gets the task's result later, when the command that
	// wrote the event knows it.
	Fetch string `json:"fetch,omitempty"`
}

// LostOf says why err, the error a followed task ended with, left its outcome unknown:
// its polls failed ([*client.TaskLostError]) or the server ended the session. It is nil
// for any other error, which is the task's own outcome.
func LostOf(err error) *Lost {
	var lost *client.TaskLostError
	switch {
	case errors.As(err, new(*client.ResultTimeoutError)):
		return &Lost{Reason: LostNoResult}
	case errors.As(err, &lost) && lost.Answered():
		return &Lost{Reason: LostErrorAnswers, Polls: lost.Polls}
	case errors.As(err, &lost):
		return &Lost{Reason: LostNoAnswer, Polls: lost.Polls}
	case errors.Is(err, transport.ErrSessionExpired):
		return &Lost{Reason: LostSessionEnded}
	}
	return nil
}

// Progress is a progress notification of the task.
type Progress struct {
	Progress float64  `json:"progress"`
	Total    *float64 `json:"total,omitempty"`
	Message  string   `json:"message,omitempty"`
}

// Input is a server request linked to the task.
type Input struct {
	Method  string `json:"method"`
	Message string `json:"message,omitempty"`
}

// Error is a JSON-RPC error, or (without Code) an error that did not come from the
// server.
type Error struct {
	Code    *int64          `json:"code,omitempty"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// ErrorOf describes err for an event.
func ErrorOf(err error) *Error {
	var rpc *jsonrpc.Error
	var input *client.InputError
	if errors.As(err, &input) {
		// 2026-07-28 input the client did not give: its error (a refusal) never went
		// to the server.
		return &Error{Message: look.Sentence(err)}
	}
	if errors.As(err, &rpc) && rpc.Code != jsonrpc.CodeConnectionClosed && rpc.Code != jsonrpc.CodeRequestCancelled {
		code := rpc.Code
		e := &Error{Code: &code, Message: rpc.Message}
		if len(rpc.Data) > 0 {
			e.Data = json.RawMessage(rpc.Data)
		}
		return e
	}
	return &Error{Message: err.Error()}
}

// FromTaskEvent turns a client event into an event line. ok is false for events that
// have no line (the end of the event stream).
func FromTaskEvent(e client.TaskEvent) (ev Event, ok bool) {
	ev = Event{Event: string(e.Kind), Time: mcp.FormatTime(e.Time)}
	if e.State.TaskID != "" {
		st := e.State
		ev.Task = &st
	}
	switch e.Kind {
	case client.TaskCreated:
	case client.TaskStatus:
		ev.Dropped = e.Dropped
	case client.TaskProgress:
		if e.Progress == nil {
			return ev, false
		}
		ev.Progress = &Progress{Progress: e.Progress.Progress, Total: e.Progress.Total, Message: e.Progress.Message}
	case client.TaskInput:
		ev.Input = &Input{}
		if e.Request != nil {
			ev.Input.Method = e.Request.Method
			if e.Request.Elicitation != nil {
				ev.Input.Message = e.Request.Elicitation.Message
			}
		}
	case client.TaskResult:
		ev.Result = e.Result
	case client.TaskError, client.TaskGone:
		if lost := LostOf(e.Err); lost != nil && e.Kind == client.TaskError {
			// Not the task's failure: mcpi stopped following it. The error is the last
			// poll's, the server's own when it answered with one.
			ev.Event, ev.Lost = "lost", lost
			cause := e.Err
			if tl := (*client.TaskLostError)(nil); errors.As(cause, &tl) {
				cause = tl.Err
			}
			if client.ServerAnswered(cause) {
				ev.Error = ErrorOf(cause)
			} else {
				ev.Error = &Error{Message: look.PollFailure(cause)}
			}
		} else if e.Err != nil {
			ev.Error = ErrorOf(e.Err)
		} else {
			ev.Error = &Error{Message: "unknown error"}
		}
	default:
		return ev, false
	}
	return ev, true
}

// JSONWriter writes events as JSON lines; it is safe for concurrent use.
type JSONWriter struct {
	mu sync.Mutex
	w  io.Writer
	// last is the latest time written.
	last time.Time
}

// NewJSONWriter returns a writer of event lines to w.
func NewJSONWriter(w io.Writer) *JSONWriter { return &JSONWriter{w: w} }

// Write writes one event line, escaped as [look.SafeJSON] escapes it. An event that
// mcpi saw before the last one written (a progress notification that arrived before the
// answer that created its task, told after it) takes that one's time, so that the times
// of a stream never go back: a script may take them for the order of events.
func (j *JSONWriter) Write(ev Event) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if at, err := time.Parse(time.RFC3339Nano, ev.Time); err == nil {
		if at.Before(j.last) {
			ev.Time = mcp.FormatTime(j.last)
		} else {
			j.last = at
		}
	}
	b, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(j.w, "%s\n", look.SafeJSON(b))
	return err
}

// Line is what the status line shows.
type Line struct {
	ID      string
	Status  mcp.TaskStatus
	Message string
	// Progress and Total come from the last progress notification; Total is nil when
	// unknown, and Progress nil before the first notification.
	Progress *float64
	Total    *float64
	// ProgressMessage is the last progress notification's message.
	ProgressMessage string
	Elapsed         time.Duration
	Polls           int
	// Receiver, when set, says that the server polls a request it runs as a task on
	// mcpi; it stands in for the message until the task's status changes.
	Receiver string
}

// barWidth is the width of the progress bar between its brackets.
const barWidth = 20

// String renders the line: "◐ working  Step 2 of 4  [██████████░░░░░░░░░░] 50%  1.2s  1 poll".
// The message is the server's, shown as [look.Safe] shows it.
func (l Line) String() string {
	parts := []string{look.Status(l.Status)}
	msg := l.Message
	if msg == "" {
		msg = l.ProgressMessage
	}
	if l.Receiver != "" {
		msg = l.Receiver
	}
	if msg != "" {
		parts = append(parts, look.Safe(oneLine(msg)))
	}
	switch {
	case l.Progress != nil && l.Total != nil && *l.Total > 0 && !math.IsInf(*l.Total, 1):
		frac := math.Max(0, math.Min(1, *l.Progress / *l.Total))
		if math.IsNaN(frac) {
			frac = 0
		}
		full := int(math.Round(frac * barWidth))
		parts = append(parts, fmt.Sprintf("[%s%s] %d%%", strings.Repeat("█", full), strings.Repeat("░", barWidth-full), int(math.Round(frac*100))))
	case l.Progress != nil:
		parts = append(parts, "progress "+look.Progress(*l.Progress, nil, 24))
	}
	parts = append(parts, look.Duration(l.Elapsed))
	if l.Polls == 1 {
		parts = append(parts, "1 poll")
	} else {
		parts = append(parts, fmt.Sprintf("%d polls", l.Polls))
	}
	return strings.Join(parts, "  ")
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// Live is the status line of one followed task on the terminal: it is redrawn on every
// change and every tick (for the elapsed time and the count of polls). Its methods are safe for concurrent use.
type Live struct {
	io    *iostreams.IOStreams
	now   func() time.Time
	start time.Time

	mu   sync.Mutex
	line Line
	// task is the followed task, whose polls are counted at each redraw: the follower
	// polls between the task's events, and no event says so.
	task *client.Task
	stop chan struct{}
	done chan struct{}
}

// NewLive starts a status line on ios's stderr, which must be a terminal; tick is how
// often it is redrawn without a change (0: only on changes). now is the clock (nil:
// time.Now).
func NewLive(ios *iostreams.IOStreams, start time.Time, now func() time.Time, tick time.Duration) *Live {
	if now == nil {
		now = time.Now
	}
	l := &Live{io: ios, now: now, start: start, stop: make(chan struct{}), done: make(chan struct{})}
	if tick <= 0 {
		close(l.done)
		return l
	}
	go func() {
		defer close(l.done)
		t := time.NewTicker(tick)
		defer t.Stop()
		for {
			select {
			case <-l.stop:
				return
			case <-t.C:
				l.draw()
			}
		}
	}()
	return l
}

// Update changes the line and redraws it.
func (l *Live) Update(change func(*Line)) {
	l.mu.Lock()
	change(&l.line)
	l.mu.Unlock()
	l.draw()
}

// Observe updates the line from a task event.
func (l *Live) Observe(e client.TaskEvent) {
	l.Update(func(line *Line) {
		if e.State.TaskID != "" {
			if e.State.Status != line.Status {
				line.Receiver = ""
			}
			line.ID = e.State.TaskID
			line.Status = e.State.Status
			line.Message = e.State.StatusMessage
		}
		if e.Task != nil {
			l.task = e.Task
		}
		if e.Kind == client.TaskProgress && e.Progress != nil {
			p := e.Progress.Progress
			line.Progress = &p
			line.Total = e.Progress.Total
			line.ProgressMessage = e.Progress.Message
		}
	})
}

// Text is the line as it is drawn now.
func (l *Live) Text() string {
	l.mu.Lock()
	line, task := l.line, l.task
	l.mu.Unlock()
	if task != nil {
		line.Polls = task.Polls()
	}
	line.Elapsed = l.now().Sub(l.start)
	return line.String()
}

func (l *Live) draw() { l.io.SetStatusLine(l.Text()) }

// Stop stops redrawing; with keep the last line stays on the screen, else it is erased.
func (l *Live) Stop(keep bool) {
	select {
	case <-l.stop:
	default:
		close(l.stop)
	}
	<-l.done
	if keep {
		l.draw()
		l.io.KeepStatusLine()
		return
	}
	l.io.ClearStatusLine()
}
