package cmdutil

import (
	"context"
	"errors"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// ConnectFunc opens a session with the server the user selected, whose requests
// (elicitation and sampling) are answered as requests says. It fails with a
// [*UsageError] before connecting when the answers file cannot be used.
type ConnectFunc func(ctx context.Context, requests RequestPolicy) (*Session, error)

// RequestPolicy says how a command's session answers the server's requests: from the
// answers file when it has an answer, else at a prompt on a terminal, else they are
// refused with a [*NeedTerminalError]. The zero value uses no answers file.
type RequestPolicy struct {
	// Answers is the --answers file; empty means none.
	Answers string
	// Tool is the tool the requests belong to when they name no task the session started
	// (a plain call, or a task fetched by id): the key looked up in the answers file.
	Tool string
	// TaskTool returns the tool of task id, when known (ok), for a request that names a
	// task the session did not start (one of a session taken up again, which holds the
	// tasks recorded with it): such a request is not Tool's, and is looked up by the
	// tool of its own task. Nil knows none.
	TaskTool func(id string) (tool string, ok bool)
	// Kind is what Tool names: "tool" (or empty), "prompt" (prompts get) or "resource"
	// (resources read, whose Tool is the URI), for the sentences.
	Kind string
	// Hold leaves the requests unanswered (--detach): the session ends at once,
	// withdrawing them, and the task's input is given by whoever fetches its result.
	Hold bool
	// Leave leaves a request that cannot be answered (no terminal, and no answer in the
	// answers file, or one that does not fit) unanswered instead of refusing it, and
	// ends the context of [Session.Answerable]: the command stops waiting, and its
	// session ends, withdrawing the request. The task it belongs to keeps waiting for
	// its input, which a later command gives; a refusal would have the server fail the
	// task (2025-11-25), and in 2026-07-28 the client cancels a task whose input it
	// cannot send. For commands on a task that outlives the session.
	Leave bool
}

// RequestHandler answers the server's requests of one session. Package factory provides
// it; a [Session] asks it what became of the requests, and waits for it when it closes.
type RequestHandler interface {
	// Refused returns why the first request refused for want of a good answer was
	// refused (a [*NeedTerminalError]: no terminal and no answer; a [*UsageError]: the
	// answers file's answer does not fit), or left unanswered ([RequestPolicy.Leave]),
	// or nil.
	Refused() error
	// Left is closed once a request is left unanswered for want of a good answer
	// ([RequestPolicy.Leave]); Refused then says why.
	Left() <-chan struct{}
	// Choose asks the user a question on the terminal whose answer is one of letters,
	// never at the same time as a request's prompt.
	Choose(ctx context.Context, question, letters string) (byte, error)
	// Wait returns once no request is being answered, and answers none from then on. It
	// is called when the session has ended, which withdraws the requests in progress, so
	// it does not wait for the user.
	Wait()
}

// Session is a session with the server, opened for one command by a [ConnectFunc].
type Session struct {
	*client.Session
	requests RequestHandler
	// Resumed is set for a session that an earlier command left open on the server and
	// this one took up (see [client.Client.Resume]): Close leaves it open again, as the
	// task recorded with it may be reached only through it. SessionEnded is set when
	// the server had ended the session to take up, and this one is new.
	Resumed, SessionEnded bool
	// end is set by EndOnClose.
	end bool
}

// NewSession returns s with its requests answered by h.
func NewSession(s *client.Session, h RequestHandler) *Session {
	return &Session{Session: s, requests: h}
}

// EndOnClose makes Close end a session taken up ([Session.Resumed]) on the server, as it
// ends one of its own, unless [client.Session.Keep] keeps it: for a session no record
// names any more, which no later command would take up, and the server would hold until
// its idle timeout.
func (s *Session) EndOnClose() { s.end = true }

// Close ends the session, then waits for the requests being answered: a prompt gives the
// terminal back (and draws the status line it held back, see
// [iostreams.IOStreams.KeepStatusLine]) before the command returns.
func (s *Session) Close() error {
	if s.Resumed && !s.end {
		s.Session.Keep()
	}
	err := s.Session.Close()
	s.requests.Wait()
	return err
}

// Refusal returns why the session refused a request for want of a good answer (a
// [*NeedTerminalError], which says how to give the answer, or the answers file's answer
// that does not fit) once the server has given the call's outcome, with err a JSON-RPC
// error, res a result (with isError or not), or the task's end: the refusal is a mistake
// in how mcpi was used, which the command reports (exit status 2) whatever the server
// made of it, since a server may well go on without the answer. It returns nil when
// nothing was refused, and when the call has no outcome from the server (interrupted, or
// the connection lost), whose own error says what happened.
func (s *Session) Refusal(res *mcp.CallToolResult, err error) error {
	return s.refusal(err == nil && res != nil, err)
}

// RefusalAfter is [Session.Refusal] for a request whose result is not a tool's
// (prompts/get, resources/read): err is its error, nil once the server answered.
func (s *Session) RefusalAfter(err error) error {
	return s.refusal(err == nil, err)
}

func (s *Session) refusal(answered bool, err error) error {
	refused := s.requests.Refused()
	if refused == nil {
		return nil
	}
	var (
		rpc       *jsonrpc.Error
		end       *client.TaskEndError
		abandoned *client.AbandonedError
	)
	switch {
	case errors.Is(err, context.Canceled):
		return nil
	case errors.As(err, &abandoned):
		// A 2026-07-28 task cannot be told that its input was refused: mcpi cancelled it,
		// which the user must hear of too.
		return &CancelledForInputError{TaskID: abandoned.TaskID, Refused: refused, Abandoned: abandoned}
	case errors.As(err, &end), errors.As(err, &rpc), answered:
		return refused
	}
	return nil
}

// Answerable returns a context that ends once a request is left unanswered
// ([RequestPolicy.Leave]), with the reason as its cause, or when ctx ends: a command
// waits for its task with it, as the task cannot move on without the input.
func (s *Session) Answerable(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	go func() {
		select {
		case <-s.requests.Left():
			cancel(s.requests.Refused())
		case <-ctx.Done():
		}
	}()
	return ctx, func() { cancel(context.Canceled) }
}

// Left returns why a request was left unanswered ([RequestPolicy.Leave]), or nil when
// none was: the error that ends the command, saying how to give the input.
func (s *Session) Left() error {
	select {
	case <-s.requests.Left():
		return s.requests.Refused()
	default:
		return nil
	}
}

// Choose asks the user a question on the terminal whose answer is one of letters (the
// first letter of the typed line counts), waiting for a request's prompt to finish
// first. It fails when input ends or ctx is done.
func (s *Session) Choose(ctx context.Context, question, letters string) (byte, error) {
	return s.requests.Choose(ctx, question, letters)
}

// NeedPrompts refuses, before anything is sent, a prompts request to a server that
// declares no prompts capability (in either era: initialize's capabilities, or those of
// server/discover), which would only answer "method not found".
func NeedPrompts(sess *client.Session) error {
	if sess.ServerCapabilities().Prompts == nil {
		return UsageErrorf("the server offers no prompts (it declares no prompts capability)")
	}
	return nil
}

// NeedResources is [NeedPrompts] for resources.
func NeedResources(sess *client.Session) error {
	if sess.ServerCapabilities().Resources == nil {
		return UsageErrorf("the server offers no resources (it declares no resources capability)")
	}
	return nil
}
