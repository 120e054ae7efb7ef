package look

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mcpi-dev/mcpi/auth"
	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/plural"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/transport"
)

// Sentence is the one sentence the user sees for an error of the library (client,
// jsonrpc, transport): a refused call says why, a JSON-RPC error gives its code, a lost
// connection says how it was lost, never a Go error chain. An error of a type it does not
// know reads as its message. A URL a transport error quotes has its secrets redacted.
func Sentence(err error) string {
	return redactURLErrors(err, sentence(err))
}

func sentence(err error) string {
	var (
		unknown   *client.UnknownToolError
		arg       *client.ArgumentError
		support   *client.TaskSupportError
		rpc       *jsonrpc.Error
		httpErr   *transport.HTTPError
		end       *client.TaskEndError
		limit     *client.ListLimitError
		large     *transport.MessageTooLargeError
		timeout   *client.TimeoutError
		moved     *transport.RedirectError
		input     *client.InputError
		abandoned *client.AbandonedError
		lost      *client.TaskLostError
		refused   *client.CancelRefusedError
		malformed *jsonrpc.MalformedResponseError
		none      *transport.NoResponseError
		related   *client.RelatedTaskError
		noResult  *client.ResultTimeoutError
		badTask   *client.UnreadableTaskError
	)
	if s, ok := err.(interface{ Sentence() string }); ok {
		return s.Sentence() // worded by the front end that made it (the CLI's connect errors)
	}
	var stray *client.StrayOutputError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &stray):
		return Sentence(stray.Err) + "; " + Stray(stray)
	case errors.As(err, &unknown):
		return unknown.Error()
	case errors.As(err, &arg):
		return arg.Error()
	case errors.As(err, &support):
		return support.Error()
	case authError(err) != nil:
		return AuthSentence(err)
	case errors.As(err, &lost) && lost.Answered():
		return fmt.Sprintf("mcpi stopped following the task %q: the server answered %d polls in a row with an error (%s); it may still be running on the server", lost.TaskID, lost.Polls, PollFailure(lost.Err))
	case errors.As(err, &lost):
		return fmt.Sprintf("mcpi stopped following the task %q: %d polls in a row got no answer (%s); it may still be running on the server", lost.TaskID, lost.Polls, PollFailure(lost.Err))
	case errors.As(err, &moved):
		return fmt.Sprintf("the server redirected to %s, another origin, which mcpi does not follow with your headers and session (name it with --url if you trust it)", RedactURL(moved.Location))
	case errors.As(err, &badTask) && badTask.TaskID != "":
		return fmt.Sprintf("the server created the task %q, but its answer could not be read (%v)", badTask.TaskID, badTask.Err)
	case errors.As(err, &badTask):
		return fmt.Sprintf("the server created a task, but its answer could not be read (%v)", badTask.Err)
	case errors.As(err, &noResult):
		return fmt.Sprintf("the task %q is %s, but the server did not answer its tasks/result within %s (--timeout raises the bound)", noResult.TaskID, noResult.Status, Duration(noResult.Timeout))
	case errors.As(err, &timeout) && timeout.After != "":
		return fmt.Sprintf("the server answered neither %s nor %s within %s (--timeout raises the bound)", timeout.After, timeout.Method, Duration(timeout.Timeout))
	case errors.As(err, &timeout):
		return fmt.Sprintf("the server did not answer %s within %s (--timeout raises the bound)", timeout.Method, Duration(timeout.Timeout))
	case errors.As(err, &large):
		return dropped(err) + tooLarge(large)
	case errors.As(err, &related):
		return fmt.Sprintf("the server answered tasks/result for the task %q with the result of another task (%q), which mcpi did not take", related.TaskID, related.Named)
	case errors.As(err, &malformed):
		return unreadable(err, malformed)
	case errors.As(err, &none):
		var call *jsonrpc.CallError
		if errors.As(err, &call) {
			return fmt.Sprintf("no response to %s: %s", call.Method, none.Reason)
		}
		return none.Reason
	case errors.As(err, &limit):
		if limit.ItemBound {
			return fmt.Sprintf("the server's %s went on past %s; mcpi stopped there (--max-items raises the bound)", limit.Method, plural.Count(limit.MaxItems, "item", "items"))
		}
		return fmt.Sprintf("the server's %s went on past %s; mcpi stopped there (--max-pages raises the bound)", limit.Method, plural.Count(limit.MaxPages, "page", "pages"))
	case errors.Is(err, context.Canceled):
		// What was interrupted, and not the transport's words for it (a Post, a URL).
		var call *jsonrpc.CallError
		if errors.As(err, &call) && call.Method != "" {
			return "interrupted before the server answered " + call.Method
		}
		return "interrupted"
	case errors.As(err, &end) && errors.Is(end.Reason, client.ErrTaskCancelled):
		return fmt.Sprintf("the task %q was cancelled", end.TaskID)
	case errors.As(err, &end):
		return fmt.Sprintf("the server no longer knows the task %q (it expired, or the server restarted)", end.TaskID)
	case errors.Is(err, client.ErrTaskGone):
		return "the server no longer knows the task (it expired, or the server restarted)"
	case errors.Is(err, transport.ErrSessionExpired):
		// Before the JSON-RPC error a server may put in its 404 ("session not found"):
		// what happened is that the session is over.
		return "the connection to the server failed: " + Lost(err)
	case errors.As(err, &input) && !errors.Is(err, context.Canceled):
		// The client's own answer (a refusal by the user or the answers file, a request
		// it cannot serve), not the server's: 2026-07-28 has no way to send it back, so
		// the call ends here.
		why := Sentence(input.Err)
		if errors.As(input.Err, &rpc) && rpc.Message != "" {
			why = strings.TrimSuffix(rpc.Message, ".")
		}
		if errors.As(err, &abandoned) && abandoned.CancelErr != nil {
			return fmt.Sprintf("the server's %s request was not answered, so mcpi gave up on the task %q (%s); %s", input.Method, abandoned.TaskID, why, CancelFailed(abandoned))
		}
		if errors.As(err, &abandoned) {
			return fmt.Sprintf("the server's %s request was not answered, so mcpi cancelled the task %q: %s", input.Method, abandoned.TaskID, why)
		}
		return fmt.Sprintf("the server's %s request was not answered, so the call ended: %s", input.Method, why)
	case errors.As(err, &abandoned) && abandoned.CancelErr != nil:
		return fmt.Sprintf("mcpi gave up on the task %q (%s); %s", abandoned.TaskID, Sentence(abandoned.Err), CancelFailed(abandoned))
	case errors.As(err, &abandoned):
		return fmt.Sprintf("mcpi cancelled the task %q: %s", abandoned.TaskID, Sentence(abandoned.Err))
	case errors.As(err, &refused):
		return fmt.Sprintf("the server refused to cancel the task %q (%s), its answer for a task that has ended and for one it does not know, and tasks/get, asked which, failed (%s)", refused.TaskID, PollFailure(refused.Err), PollFailure(refused.GetErr))
	case errors.As(err, &rpc) && urlElicitationSentence(rpc, err) != "":
		return urlElicitationSentence(rpc, err)
	case errors.As(err, &rpc):
		msg := ServerMessage(rpc)
		if msg == "" {
			return fmt.Sprintf("the server returned an error (JSON-RPC error %d)", rpc.Code)
		}
		return fmt.Sprintf("the server returned an error: %s (JSON-RPC error %d)", msg, rpc.Code)
	}
	if lost := Lost(err); lost != "" {
		return "the connection to the server failed: " + lost
	}
	if errors.As(err, &httpErr) {
		return fmt.Sprintf("the server answered HTTP %d: %s", httpErr.StatusCode, httpErr.Message)
	}
	var call *jsonrpc.CallError
	if errors.As(err, &call) {
		return call.Error() // it names the method: the layers around it add nothing
	}
	return err.Error()
}

// tooLarge words a message dropped for its size, with the flag that raises the limit:
// "message too large (5242913 bytes, limit 4194304; --max-message-size)".
func tooLarge(e *transport.MessageTooLargeError) string {
	if e.Size < 0 {
		return fmt.Sprintf("message too large (over the limit of %d bytes; --max-message-size)", e.Limit)
	}
	return fmt.Sprintf("message too large (%d bytes, limit %d; --max-message-size)", e.Size, e.Limit)
}

// unreadable words a response that could not be decoded: "the server's answer to
// tools/list could not be read: it is not valid JSON (exceeded max depth at offset 20)".
func unreadable(err error, e *jsonrpc.MalformedResponseError) string {
	what := "the server's answer could not be read: "
	var call *jsonrpc.CallError
	if errors.As(err, &call) {
		what = fmt.Sprintf("the server's answer to %s could not be read: ", call.Method)
	}
	if e.Detail != "" {
		return what + "it is not valid JSON (" + e.Detail + ")"
	}
	return what + strings.TrimPrefix(e.Reason, "invalid response: ")
}

// dropped names the call whose answer err says was dropped, as "the server's answer to
// tools/list was dropped: ", or is "" when err names none.
func dropped(err error) string {
	var call *jsonrpc.CallError
	if errors.As(err, &call) && call.Op == jsonrpc.OpReceive {
		return fmt.Sprintf("the server's answer to %s was dropped: ", call.Method)
	}
	return ""
}

// Lost says how the connection of a session was lost, as "the server exited (exit status
// 3)" or "the server closed the connection", or returns "" if err did not end one. It is
// the cause in [Sentence]'s "the connection to the server failed: ...", for a front end
// that has already said that the session ended.
func Lost(err error) string {
	switch {
	case errors.Is(err, transport.ErrServerExited):
		return "the server exited" + ExitDetail(err)
	case errors.Is(err, transport.ErrSessionExpired):
		return "the server ended the session"
	case errors.Is(err, transport.ErrUnreachable):
		return "the server is no longer reachable"
	case errors.Is(err, transport.ErrStrayFlood): // mcpi closed it, not the server
		return fmt.Sprintf("gave up on the server: it wrote more than %d lines or %d MiB on its stdout before its first MCP message", transport.DefaultMaxStrayLines, transport.DefaultMaxStrayBytes>>20)
	case errors.Is(err, jsonrpc.ErrClosed), errors.Is(err, io.EOF):
		return "the server closed the connection"
	}
	return ""
}

// Stray words what a server whose handshake failed wrote on its stdout that is no
// message, and where it belongs: "it wrote a line on its stdout that is no MCP message
// ("listening on :3000"): a stdio server writes only MCP messages there, and its log to
// stderr".
func Stray(e *client.StrayOutputError) string {
	what := fmt.Sprintf("a line on its stdout that is no MCP message (%q)", e.Last)
	if e.Lines > 1 {
		what = fmt.Sprintf("%d lines on its stdout that are no MCP message (the last: %q)", e.Lines, e.Last)
	}
	return "it wrote " + what + ": a stdio server writes only MCP messages there, and its log to stderr"
}

// ServerMessage is the message of a server's JSON-RPC error as a sentence quotes it:
// without the "MCP error -32603: " that some servers' libraries put before it (the
// sentence gives the code itself), nor a final full stop.
func ServerMessage(rpc *jsonrpc.Error) string {
	msg := strings.TrimPrefix(rpc.Message, fmt.Sprintf("MCP error %d: ", rpc.Code))
	return strings.TrimSuffix(strings.TrimSpace(msg), ".")
}

// CancelFailed says that the tasks/cancel of a task mcpi gave up on failed, and why:
// "its tasks/cancel failed (database down, JSON-RPC error -32603): the task may still be
// running on the server".
func CancelFailed(a *client.AbandonedError) string {
	return fmt.Sprintf("its tasks/cancel failed (%s): the task may still be running on the server", PollFailure(a.CancelErr))
}

// PollFailure says in a few words why a poll of a task failed, to go in parentheses: the
// server's own message and code for a JSON-RPC error ("database down, JSON-RPC error
// -32603"), [Lost]'s words for a lost connection, else [Sentence]'s.
func PollFailure(err error) string {
	var rpc *jsonrpc.Error
	// The JSON-RPC error of a server that ended the session (in its 404) answers no poll.
	if errors.As(err, &rpc) && rpc.Code != jsonrpc.CodeConnectionClosed && !errors.Is(err, transport.ErrSessionExpired) {
		if msg := ServerMessage(rpc); msg != "" {
			return fmt.Sprintf("%s, JSON-RPC error %d", msg, rpc.Code)
		}
		return fmt.Sprintf("JSON-RPC error %d", rpc.Code)
	}
	return Why(err)
}

// Why says in a few words why a connection stopped serving: [Lost]'s words when err is
// one of the ends it knows, else [Sentence]'s; "" for nil.
func Why(err error) string {
	if err == nil {
		return ""
	}
	if lost := Lost(err); lost != "" {
		return lost
	}
	return Sentence(err)
}

// ExitDetail says how the server process whose end err reports ended, to follow the
// words "the server exited": " (exit status 3); its last output: boom". It is "" when err
// holds no [*transport.ExitError], or one of a process that closed its output without
// exiting.
func ExitDetail(err error) string {
	var exit *transport.ExitError
	if !errors.As(err, &exit) || exit.Status == "" {
		return ""
	}
	detail := " (" + exit.Status + ")"
	if len(exit.Stderr) > 0 {
		detail += "; its last output: " + strings.Join(exit.Stderr, " | ")
	}
	return detail
}

// authError returns the outermost error of the OAuth flow (package auth) in err's tree,
// or nil: the flow's own errors are sentences that name the URLs and issuers concerned,
// and the layers around them (the request that met the 401, a discovery step) add
// nothing the user needs.
func authError(err error) error {
	switch err.(type) {
	case nil:
		return nil
	case *auth.IssuerError, *auth.InsecureURLError, *auth.ResourceMismatchError, *auth.ResponseError,
		*auth.OAuthError, *auth.MetadataError, *auth.TimeoutError, *auth.StepUpError, *auth.AssumedError:
		return err
	}
	switch err {
	case auth.ErrNoBrowser, auth.ErrStateMismatch, auth.ErrNoPKCE, auth.ErrNoRegistration, auth.ErrTokenRejected:
		return err
	}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		return authError(u.Unwrap())
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			if a := authError(e); a != nil {
				return a
			}
		}
	}
	return nil
}

// AuthSentence words an error of the OAuth flow, or returns "" for another error. A
// login the user did not finish in time says so with the page it was at; a refusal for
// lack of scope, or of a token just issued, stands alone; the rest say that the login
// failed, and why.
func AuthSentence(err error) string {
	a := authError(err)
	var timeout *auth.TimeoutError
	switch {
	case a == nil:
		return ""
	case errors.As(a, &timeout):
		return fmt.Sprintf("the login was not finished within %s (its page was %s); a new one starts at the next try", Duration(timeout.Timeout), timeout.URL)
	case a == auth.ErrTokenRejected:
		return a.Error()
	}
	if _, ok := a.(*auth.StepUpError); ok {
		return a.Error()
	}
	return "the OAuth login failed: " + a.Error()
}
