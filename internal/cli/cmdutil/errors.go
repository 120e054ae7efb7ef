package cmdutil

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os/exec"
	"reflect"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/mcpi-dev/mcpi/auth"
	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/look"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/transport"
)

// Exit codes of mcpi.
const (
	// ExitOK: the command did what was asked.
	ExitOK = 0
	// ExitMCPError: the server answered with an error: a tool result with isError, or a
	// JSON-RPC error for the call itself.
	ExitMCPError = 1
	// ExitUsage: the command was used wrongly, its input was refused before anything was
	// sent, or no session with the server could be had.
	ExitUsage = 2
)

// UsageError is a mistake in how mcpi was invoked. Msg is one sentence.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// UsageErrorf returns a [*UsageError].
func UsageErrorf(format string, args ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, args...)}
}

// StoreUnreachableError is a token store that cannot be used at all (the OS keyring
// with no D-Bus session), as opposed to one that holds a damaged record. Connecting
// reads such a store as empty: it matters only once a login or a stored token is
// needed. It is a [*UsageError] too: the way out is another --token-store.
type StoreUnreachableError struct{ Msg string }

func (e *StoreUnreachableError) Error() string { return e.Msg }
func (e *StoreUnreachableError) Unwrap() error { return &UsageError{Msg: e.Msg} }

// ConfigError is a config file (the mcpServers format) that cannot be used.
type ConfigError struct {
	File string
	Err  error
}

func (e *ConfigError) Error() string { return fmt.Sprintf("config file %s: %v", e.File, e.Err) }
func (e *ConfigError) Unwrap() error { return e.Err }

// UnknownServerError is a --server name the config file does not have.
type UnknownServerError struct {
	File  string
	Name  string
	Known []string
}

func (e *UnknownServerError) Error() string {
	return fmt.Sprintf("config file %s has no server %q", e.File, e.Name)
}

// ConnectError is a failure to open a session: the server could not be started or
// reached, or did not complete initialization. Target says which server, as the user
// named it: a command line, a URL, or "the embedded demo server".
type ConnectError struct {
	Target string
	// Stdio is set when Target is a command that was started.
	Stdio bool
	// Timeout is how long initialization was given, if that is what ran out.
	Timeout time.Duration
	// Login is set for the failure of "mcpi auth login", which starts no session: its
	// sentence speaks of the login.
	Login bool
	Err   error
}

func (e *ConnectError) Error() string { return fmt.Sprintf("connecting to %s: %v", e.Target, e.Err) }
func (e *ConnectError) Unwrap() error { return e.Err }

// who names the server in a sentence.
func (e *ConnectError) who() string {
	switch {
	case e.Stdio:
		return "the server " + e.Target
	case strings.HasPrefix(e.Target, "http://"), strings.HasPrefix(e.Target, "https://"):
		return "the server at " + e.Target
	}
	return e.Target
}

// ToolError is a tool result with isError set. The result itself was already printed.
type ToolError struct {
	Tool string
	// Task is the task whose result it is, when the tool is not known (a task fetched by
	// id from a server the local state file does not know).
	Task string
}

func (e *ToolError) Error() string {
	if e.Tool == "" && e.Task != "" {
		return fmt.Sprintf("the task %q ended with a tool error", e.Task)
	}
	return fmt.Sprintf("the tool %q reported an error", e.Tool)
}

// OutputSchemaError is a tool result that does not fit the tool's output schema (Err, a
// [*client.OutputError]): the server broke a rule of the protocol, so the exit code is 1.
// The result itself was already printed.
type OutputSchemaError struct {
	Tool string
	Err  *client.OutputError
}

func (e *OutputSchemaError) Error() string {
	if e.Err.Missing {
		return fmt.Sprintf("the tool %q returned no structuredContent, which its output schema calls for", e.Tool)
	}
	what := "it " + e.Err.Problem
	if e.Err.Field != "" {
		what = fmt.Sprintf("field %q %s", e.Err.Field, e.Err.Problem)
	}
	return fmt.Sprintf("the tool %q returned a structured result that does not fit its output schema: %s", e.Tool, what)
}

func (e *OutputSchemaError) Unwrap() error { return e.Err }

// NeedTerminalError says that the server asked for the user's input while mcpi could
// not ask: it was not running on a terminal, and no answers file answered it.
type NeedTerminalError struct {
	// Needs are the requests left without an answer: one, or those of a round of the
	// 2026-07-28 era that asked for several inputs at once, so that the sentence names
	// every answer missing.
	Needs []Need
	// Tool is what the requests belong to, if known: a tool, or the prompt or resource
	// that Kind names.
	Tool string
	// Kind is "tool" (or empty), "prompt" or "resource".
	Kind string
	// Answers is the --answers file that had no answer for the request, if one was given.
	Answers string
	// Task is the task the requests belong to, when they name one (the related-task of
	// their _meta in 2025-11-25; in 2026-07-28, the task whose inputRequests they are):
	// a command that follows several tasks tells the one that waits from the others.
	Task string
}

// Need is one request of the server's that had no answer.
type Need struct {
	// What the server asked for: "elicitation" or "sampling".
	What string
	// Key is the answers file's key for the answer, such as the tool or "TOOL#KEY";
	// empty means the tool, or "*" when there is none.
	Key string
	// Answer is an example answer, as JSON: the fields of an elicitation's form (such as
	// `{"name": "...", "subscribe": false}`), "accept" for a URL elicitation, the
	// model's reply; empty means a placeholder.
	Answer string
}

// Subject names what the requests of a command belong to, for a sentence: `the tool
// "ask_user"`, `the prompt "greet"`, `the resource "demo://x"`; "" when name is unknown.
func Subject(kind, name string) string {
	if name == "" {
		return ""
	}
	if kind == "" {
		kind = "tool"
	}
	return fmt.Sprintf("the %s %q", kind, name)
}

func (e *NeedTerminalError) Error() string {
	what, example := e.parts()
	if e.Answers != "" {
		if len(e.Needs) > 1 {
			return fmt.Sprintf("the server asked for the user's input (%s), and the answers file %s has no answer for %d of its requests; add them, such as %s, or run mcpi on a terminal", what, e.Answers, len(e.Needs), example)
		}
		return fmt.Sprintf("the server asked for the user's input (%s), and the answers file %s has no answer for it; add one, such as %s, or run mcpi on a terminal", what, e.Answers, example)
	}
	return fmt.Sprintf("the server asked for the user's input (%s), which mcpi can only give on a terminal or from an answers file; run it on a terminal, or pass --answers FILE with %s", what, example)
}

// parts returns what the server asked for (the kinds of request, and what for) and an
// example of the answers file that answers it.
func (e *NeedTerminalError) parts() (what, example string) {
	var kinds []string
	byKind := map[string][]string{}
	for _, n := range e.Needs {
		key := n.Key
		if key == "" {
			key = e.Tool
		}
		if key == "" {
			key = "*"
		}
		answer := n.Answer
		if answer == "" {
			answer = `{"field": "value"}`
			if n.What == "sampling" {
				answer = `"the model's reply"`
			}
		}
		if !slices.Contains(kinds, n.What) {
			kinds = append(kinds, n.What)
		}
		byKind[n.What] = append(byKind[n.What], fmt.Sprintf("%q: %s", key, answer))
	}
	var parts []string
	for _, k := range kinds {
		parts = append(parts, fmt.Sprintf("%q: {%s}", k, strings.Join(byKind[k], ", ")))
	}
	example = "{" + strings.Join(parts, ", ") + "}"
	what = strings.Join(kinds, " and ")
	if s := Subject(e.Kind, e.Tool); s != "" {
		what += " for " + s
	}
	return what, example
}

// TaskReason says why a command on a task by id failed. (A followed task that was
// cancelled or went away ends with the client's [client.TaskEndError].)
type TaskReason int

const (
	// TaskUnknown: the server answered -32602 for the id: no such task, or it expired.
	TaskUnknown TaskReason = iota
	// TaskEnded: the task had already ended, so it could not be cancelled.
	TaskEnded
	// TaskFailed: the task ended in failed (for "tasks watch").
	TaskFailed
	// TaskOtherEra: the server has the task, but it was created in the other protocol
	// era (Era), from which it cannot be reached.
	TaskOtherEra
)

// TaskError is a task that gave no result: unknown to the server, already ended, or
// failed. It is the server's answer, so the exit code is 1.
type TaskError struct {
	ID     string
	Reason TaskReason
	// Status is the task's status (TaskEnded).
	Status string
	// Message is the task's status message (TaskFailed).
	Message string
	// Era is the protocol version the task was created in, and Asked the one mcpi spoke
	// (TaskOtherEra).
	Era, Asked string
	// Embedded is set when the server asked was the embedded demo server.
	Embedded bool
	// Recorded is set for an unknown task that the local state file recorded on that
	// server, and Forgotten once its entry is removed.
	Recorded, Forgotten bool
	// Session says what became of the session a recorded task was created in.
	Session TaskSession
}

// TaskSession is what became of the session of the 2025-11-25 era that created a task
// the server no longer knows (TaskUnknown): some servers bind a task to its session.
type TaskSession int

const (
	// SessionAlive: the session was taken up, or plays no part (another era, transport
	// or server).
	SessionAlive TaskSession = iota
	// SessionEnded: the server had ended the session that created the task.
	SessionEnded
	// SessionUnknown: the task was recorded without its session (by an older mcpi), which
	// may have held it and has ended since.
	SessionUnknown
)

func (e *TaskError) Error() string {
	switch e.Reason {
	case TaskEnded:
		return fmt.Sprintf("the task %q has already ended (%s), so it cannot be cancelled", e.ID, e.Status)
	case TaskFailed:
		if e.Message != "" {
			return fmt.Sprintf("the task %q failed: %s", e.ID, strings.TrimSuffix(e.Message, "."))
		}
		return fmt.Sprintf("the task %q failed", e.ID)
	case TaskOtherEra:
		return fmt.Sprintf("the task %q was created in protocol %s and cannot be reached in %s; ask again with --protocol %s (or --protocol auto)", e.ID, e.Era, e.Asked, e.Era)
	}
	if e.Recorded {
		msg := fmt.Sprintf("the server no longer knows the task %q (it expired, or the server restarted)", e.ID)
		switch e.Session {
		case SessionEnded:
			msg = fmt.Sprintf("the server no longer knows the task %q: it kept the task in the session that created it, which has ended (the server ended it, or restarted), and it may bind tasks to their session", e.ID)
		case SessionUnknown:
			msg = fmt.Sprintf("the server no longer knows the task %q (it expired, the server restarted, or it kept the task in the session that created it, which has ended)", e.ID)
		}
		if e.Forgotten {
			msg += "; mcpi has removed it from its local list of tasks"
		}
		return msg
	}
	if e.Embedded {
		return fmt.Sprintf("the task %q is not in mcpi's local list of tasks, and the embedded demo server (used when no server is named) has no such task: name the server it runs on with --url, --stdio or --config", e.ID)
	}
	return fmt.Sprintf("the server has no task %q (it may have expired)", e.ID)
}

// InterruptedTaskError is a followed task that mcpi stopped following on Ctrl-C: left
// running on the server, or cancelled there; or, with no ID, a task call that Ctrl-C
// withdrew before the server had answered it with a task.
type InterruptedTaskError struct {
	ID string
	// Cancelled is set when the task was cancelled on the server; CancelErr when that
	// failed.
	Cancelled bool
	CancelErr error
	// Embedded is set for a task of the embedded demo server, which ends with mcpi.
	Embedded bool
	// Stdio is the command line of the stdio server of the task, which mcpi stops as it
	// exits, ending the task.
	Stdio string
	// Fetch is the command that fetches the result of a task left running.
	Fetch string
	// NoCancel says why the task could not be cancelled (the server declares no
	// tasks.cancel), when that is why it was left running without asking.
	NoCancel string
	// PollErr is the error of the task's latest poll when it failed (see
	// [client.Task.PollError]): whether the task still runs is not known.
	PollErr error
}

func (e *InterruptedTaskError) Error() string {
	switch {
	case e.ID == "":
		// The server may have created the task and only its answer be late; and in
		// 2025-11-25 notifications/cancelled must not be used for tasks, so a server may
		// ignore the withdrawal.
		return "interrupted before the server answered with the task's id; the call was withdrawn, but the server may have started the task already (and may ignore the withdrawal), and with no id mcpi cannot cancel it or fetch its result"
	case e.CancelErr != nil:
		msg, _ := Describe(e.CancelErr)
		return fmt.Sprintf("interrupted; cancelling the task %q failed: %s", e.ID, msg)
	case e.Cancelled:
		return fmt.Sprintf("interrupted; the task %q was cancelled on the server", e.ID)
	case e.Embedded:
		return fmt.Sprintf("interrupted; the task %q ends with the embedded demo server", e.ID)
	case e.Stdio != "":
		return fmt.Sprintf("interrupted; the task %q ends with the stdio server %s, which mcpi stops as it exits", e.ID, e.Stdio)
	case e.PollErr != nil && client.ServerAnswered(e.PollErr):
		return fmt.Sprintf("interrupted; the server answered the latest poll of the task %q with an error (%s): it may still be running there; get its result with \"%s\" later", e.ID, lostCause(e.PollErr), e.Fetch)
	case e.PollErr != nil:
		return fmt.Sprintf("interrupted; the server did not answer the latest poll of the task %q (%s): it may still be running there; get its result with \"%s\" once the server is back", e.ID, lostCause(e.PollErr), e.Fetch)
	}
	if e.NoCancel != "" {
		return fmt.Sprintf("interrupted; the task %q is still running on the server, which cannot be asked to cancel it (%s): get its result with \"%s\"", e.ID, e.NoCancel, e.Fetch)
	}
	return fmt.Sprintf("interrupted; the task %q is still running on the server: get its result with \"%s\"", e.ID, e.Fetch)
}

// LeftInputError is a command on a task that stopped on a server request it could not
// answer (Err, a [*NeedTerminalError]) and left the task waiting for the input: recorded
// in the local state file, with the session that reached it left open on the server
// when Kept (a server may bind the task to it). ID is "" for "tasks watch" without an
// id, which leaves every task it followed so; NoTask is set when it had followed none
// yet.
type LeftInputError struct {
	ID string
	// Fetch is the command that fetches the task's result, and gives its input.
	Fetch  string
	Kept   bool
	NoTask bool
	Err    error
	// Followed is the task a command on one task followed, when the request named
	// another (ID, of the same session): it runs on, and FollowedFetch gets its result.
	Followed, FollowedFetch string
}

func (e *LeftInputError) Error() string {
	where := "on the server"
	if e.Kept {
		where = "on the server, in the session mcpi left open there"
	}
	if e.ID == "" && e.NoTask {
		return fmt.Sprintf("%s; mcpi stopped before it followed any task", strings.TrimSuffix(e.Err.Error(), "."))
	}
	if e.ID == "" {
		return fmt.Sprintf("%s; the tasks mcpi followed wait %s (\"mcpi tasks list --local\" lists them, and \"mcpi tasks result ID\" gives a task its input)", strings.TrimSuffix(e.Err.Error(), "."), where)
	}
	msg := fmt.Sprintf("%s; the task %q waits for it %s: \"%s\" gives it", strings.TrimSuffix(e.Err.Error(), "."), e.ID, where, e.Fetch)
	if e.Followed != "" {
		msg += fmt.Sprintf("; the task %q is still running on the server: get its result with \"%s\"", e.Followed, e.FollowedFetch)
	}
	return msg
}

func (e *LeftInputError) Unwrap() error { return e.Err }

// StoppedForInputError is a command on a task of a server that stops as mcpi exits (the
// embedded demo server when Embedded, else the stdio server Stdio) that stopped on a
// request of the server it could not answer (Err, a [*NeedTerminalError], or the answers
// file's answer that does not fit): the task ends with the server, so no later command
// can give it its input, and only the call that started it, run again, can be answered.
// ID is the task, or "" when the request names none ("tasks watch" without an id).
type StoppedForInputError struct {
	ID       string
	Embedded bool
	Stdio    string
	// Call is the command that makes the call again, but for its arguments ("" when the
	// tool is not known).
	Call string
	Err  error
}

func (e *StoppedForInputError) Error() string {
	ends := "the task it is for ends"
	if e.ID != "" {
		ends = fmt.Sprintf("the task %q ends", e.ID)
	}
	if e.Embedded {
		ends += " with the embedded demo server, which mcpi stops as it exits"
	} else {
		ends += fmt.Sprintf(" with the stdio server %s, which mcpi stops as it exits", e.Stdio)
	}
	again := func(file string) string {
		if e.Call == "" {
			return ""
		}
		return fmt.Sprintf(" (\"%s --answers %s\", with its arguments)", e.Call, file)
	}
	var need *NeedTerminalError
	switch {
	case !errors.As(e.Err, &need):
		return fmt.Sprintf("%s; %s: run the call that started it again%s", strings.TrimSuffix(e.Err.Error(), "."), ends, again("FILE"))
	case need.Answers != "":
		what, example := need.parts()
		no, add := "no answer for it", "add one"
		if len(need.Needs) > 1 {
			no, add = fmt.Sprintf("no answer for %d of its requests", len(need.Needs)), "add them"
		}
		return fmt.Sprintf("the server asked for the user's input (%s), and the answers file %s has %s, and %s: %s, such as %s, and run the call that started it again%s, or run that on a terminal",
			what, need.Answers, no, ends, add, example, again(need.Answers))
	}
	what, example := need.parts()
	return fmt.Sprintf("the server asked for the user's input (%s), which mcpi can only give on a terminal or from an answers file, and %s: run the call that started it again on a terminal, or with --answers FILE holding %s%s",
		what, ends, example, again("FILE"))
}

func (e *StoppedForInputError) Unwrap() error { return e.Err }

// UnrecordedTaskError is a task that the server created and runs, left running by mcpi
// (--detach), which the local state file could not record (Err says why): later
// commands need the server named again, as Fetch does.
type UnrecordedTaskError struct {
	ID    string
	Fetch string
	Err   error
}

func (e *UnrecordedTaskError) Error() string {
	return fmt.Sprintf("the task %q was created and runs on the server, but mcpi could not record it: %v", e.ID, e.Err)
}

func (e *UnrecordedTaskError) Unwrap() error { return e.Err }

// CancelledForInputError is a task of 2026-07-28 that mcpi cancelled because it could
// not give the input the task asked for (Refused says why: no terminal, or an answers
// file without a fitting answer): the Tasks extension has no way to refuse input. It is
// a mistake in how mcpi was used, as Refused is.
type CancelledForInputError struct {
	TaskID  string
	Refused error
	// Abandoned is the client's end of the task, whose CancelErr says whether the
	// cancel went through.
	Abandoned *client.AbandonedError
}

func (e *CancelledForInputError) Error() string {
	if e.Abandoned != nil && e.Abandoned.CancelErr != nil {
		return fmt.Sprintf("%v; so mcpi gave up on the task %q, and %s", e.Refused, e.TaskID, look.CancelFailed(e.Abandoned))
	}
	return fmt.Sprintf("%v; so mcpi cancelled the task %q", e.Refused, e.TaskID)
}

func (e *CancelledForInputError) Unwrap() error { return e.Refused }

// LostTaskError is a followed task that mcpi stopped following because its polls got no
// answer from the server (a [*client.TaskLostError]): the server is gone, or no longer
// answers; or because the server ended the session the task was followed in (Err matches
// [transport.ErrSessionExpired]). Whether the task still runs there is not known.
type LostTaskError struct {
	ID string
	// Server names the server as the user did (its URL), or is "".
	Server string
	// Fetch is the command that fetches the task's result.
	Fetch string
	Err   error
}

func (e *LostTaskError) Error() string {
	who := "the server"
	if e.Server != "" {
		who += " at " + RedactURL(e.Server)
	}
	var noResult *client.ResultTimeoutError
	if errors.As(e.Err, &noResult) {
		return fmt.Sprintf("%s; get its result with \"%s\" later", look.Sentence(noResult), e.Fetch)
	}
	if errors.Is(e.Err, transport.ErrSessionExpired) {
		// A server of 2025-11-25 may keep the task running for a later session to take
		// over, or may have ended it with the session: only asking tells.
		return fmt.Sprintf("%s ended the session while mcpi followed the task %q; a server that lets a new session take a task over (as mcpi serve demo does) may still run it: get its result with \"%s\"", who, e.ID, e.Fetch)
	}
	if client.ServerAnswered(e.Err) {
		return fmt.Sprintf("%s answered the latest polls of the task %q with an error (%s): it may still be running there; get its result with \"%s\" later", who, e.ID, lostCause(e.Err), e.Fetch)
	}
	what := who + " stopped answering"
	if errors.Is(e.Err, transport.ErrUnreachable) {
		what = who + " is no longer reachable"
	}
	return fmt.Sprintf("%s (%s): the task %q may still be running there; get its result with \"%s\" once it is back", what, lostCause(e.Err), e.ID, e.Fetch)
}

func (e *LostTaskError) Unwrap() error { return e.Err }

// lostCause says in a few words why the polls of a lost task failed: the system's reason
// for a refused or broken connection ("connection refused"), else the sentence of the
// last poll's error.
func lostCause(err error) string {
	var lost *client.TaskLostError
	if errors.As(err, &lost) {
		err = lost.Err
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno.Error()
	}
	return look.PollFailure(err)
}

// Redacted stands for a value mcpi does not show: of --header or --env, in a command
// it prints (see state.Server.Redacted).
const Redacted = "[redacted]"

// Describe is the one place where errors become what the user of the CLI sees: a single
// sentence (without the "mcpi: " prefix) and the exit code. The errors of the CLI itself
// (usage, config files, connecting, tasks, answers) are worded here; those of the library
// as [look.Sentence] words them for every front end. The sentence quotes what servers
// say (messages, names, ids, a server process's output), so it is made [look.Safe]: one
// line (a line break within it shown as ␊), with no character that a terminal obeys.
func Describe(err error) (sentence string, code int) {
	sentence, code = describe(err)
	if strings.Contains(sentence, "="+Redacted) {
		// A command to fetch a task later, with the server's flags but not their values.
		sentence += " (mcpi does not show the values of --header and --env: give yours again in place of " + Redacted + ")"
	}
	return look.Safe(strings.TrimSpace(sentence)), code
}

func describe(err error) (sentence string, code int) {
	var (
		cancelIn  *CancelledForInputError
		unrec     *UnrecordedTaskError
		usage     *UsageError
		cfg       *ConfigError
		unknownS  *UnknownServerError
		connect   *ConnectError
		tool      *ToolError
		output    *OutputSchemaError
		terminal  *NeedTerminalError
		leftIn    *LeftInputError
		stoppedIn *StoppedForInputError
		rpc       *jsonrpc.Error
		support   *client.TaskSupportError
		task      *TaskError
		end       *client.TaskEndError
		intr      *InterruptedTaskError
		login     *LoginNeededError
		lostCLI   *LostTaskError
		lost      *client.TaskLostError
	)
	switch {
	case err == nil:
		return "", ExitOK
	case errors.As(err, &unrec):
		why, _ := describe(unrec.Err)
		return fmt.Sprintf("the task %q was created and runs on the server, but mcpi could not record it (%s): get its result with \"%s\"", unrec.ID, strings.TrimSuffix(why, "."), unrec.Fetch), ExitUsage
	case errors.As(err, &cancelIn):
		// The reason first, as the same refusal reads in 2025-11-25, where it goes to
		// the server: what the user has to change is the same.
		why, code := describe(cancelIn.Refused)
		if a := cancelIn.Abandoned; a != nil && a.CancelErr != nil {
			return fmt.Sprintf("%s; so mcpi gave up on the task %q (in protocol 2026-07-28 a task's input cannot be refused), and %s", strings.TrimSuffix(why, "."), cancelIn.TaskID, look.CancelFailed(a)), code
		}
		return fmt.Sprintf("%s; so mcpi cancelled the task %q (in protocol 2026-07-28 a task's input cannot be refused)", strings.TrimSuffix(why, "."), cancelIn.TaskID), code
	case errors.As(err, &leftIn):
		// Before its cause (a [*UsageError] when the answers file's answer does not
		// fit), which the sentence words with what became of the task.
		return leftIn.Error(), ExitUsage
	case errors.As(err, &stoppedIn):
		return stoppedIn.Error(), ExitUsage
	case errors.As(err, &login):
		return login.Error(), ExitUsage
	case errors.As(err, &usage):
		return usage.Msg, ExitUsage
	case errors.As(err, &cfg):
		return describeConfig(cfg), ExitUsage
	case errors.As(err, &unknownS):
		known := append([]string(nil), unknownS.Known...)
		sort.Strings(known)
		if len(known) == 0 {
			return fmt.Sprintf("the config file %s has no server named %q; it names no servers at all", unknownS.File, unknownS.Name), ExitUsage
		}
		return fmt.Sprintf("the config file %s has no server named %q; it has %s", unknownS.File, unknownS.Name, quoteList(known)), ExitUsage
	case errors.As(err, &connect):
		return describeConnect(connect), ExitUsage
	case errors.As(err, &terminal):
		return terminal.Error(), ExitUsage
	case errors.As(err, &task):
		return task.Error(), ExitMCPError
	case errors.As(err, &end):
		// The server's answer: the task was cancelled, or it no longer knows it.
		return look.Sentence(err), ExitMCPError
	case errors.As(err, &intr):
		return intr.Error(), ExitUsage
	case errors.As(err, &lostCLI) && client.ServerAnswered(err):
		return lostCLI.Error(), ExitMCPError
	case errors.As(err, &lostCLI):
		// No answer from the server: the connection failed, as a stdio server's exit does.
		return lostCLI.Error(), ExitUsage
	case errors.As(err, &lost) && lost.Answered():
		return look.Sentence(err), ExitMCPError
	case errors.As(err, &lost):
		return look.Sentence(err), ExitUsage
	case errors.As(err, &tool):
		return tool.Error(), ExitMCPError
	case errors.As(err, &output):
		return output.Error(), ExitMCPError
	case errors.As(err, &support) && support.Err == nil:
		// The flag that gets past the refusal is the CLI's to name. The server's own
		// refusal (2026-07-28) is worded below, with its code.
		if support.Version != "" {
			return look.Sentence(err) + "; call it without --task, or give --protocol " + mcp.LatestProtocolVersion, ExitUsage
		}
		if support.AsTask {
			return look.Sentence(err) + "; call it without --task", ExitUsage
		}
		return look.Sentence(err) + "; use --task", ExitUsage
	}
	if rounds := (*client.InputRoundsError)(nil); errors.As(err, &rounds) {
		// mcpi stopped on its own bound, as a listing does at --max-pages: no server error.
		return rounds.Error(), ExitUsage
	}
	if msg, ok := describeEra(err); ok {
		if taskOnly(err) {
			// The user's mistake, which the server refused: exit 2, as in 2025-11-25,
			// where mcpi refuses it itself.
			return msg, ExitUsage
		}
		return msg, ExitMCPError
	}
	if look.Lost(err) != "" {
		// The connection failed (the server exited, ended the session, or cannot be
		// reached), whatever JSON-RPC error came with the end: a server that ended the
		// session puts one in its HTTP 404, which answers no request.
		return look.Sentence(err), ExitUsage
	}
	if errors.As(err, &rpc) && !errors.Is(err, context.Canceled) {
		// The server answered, with an error.
		return look.Sentence(err), ExitMCPError
	}
	return look.Sentence(err), ExitUsage
}

// describeEra says in one sentence what the errors of protocol 2026-07-28 about the
// request itself mean: -32022 (a protocol version the server does not speak), -32021 (a
// client capability the request had to declare) and -32020 (headers that do not match
// the body).
// taskOnly reports whether err is a server's -32021 that asks for the Tasks extension:
// a tool it runs only as a task, called without --task.
func taskOnly(err error) bool {
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) || rpc.Code != mcp.CodeMissingRequiredClientCapability {
		return false
	}
	var d mcp.MissingCapabilityData
	_ = json.Unmarshal(rpc.Data, &d)
	_, ok := d.RequiredCapabilities.Extensions[mcp.ExtensionTasks]
	return ok
}

func describeEra(err error) (string, bool) {
	var rpc *jsonrpc.Error
	var unsupported *client.UnsupportedVersionError
	var resultType *client.ResultTypeError
	switch {
	case errors.As(err, &resultType): // they name the method themselves
		return resultType.Error(), true
	case errors.As(err, &unsupported) && len(unsupported.Supported) == 0 && look.Lost(err) != "":
		// A server that exits or hangs up at server/discover may be of the older era, or
		// may not start at all: say what happened, not only what it may mean.
		what, output := look.Lost(err), ""
		var exit *transport.ExitError
		if errors.As(err, &exit) && exit.Status != "" {
			what = "the server exited (" + exit.Status + ")"
			if len(exit.Stderr) > 0 {
				output = "; its last output: " + strings.Join(exit.Stderr, " | ")
			}
		}
		return fmt.Sprintf("%s when asked for protocol version %s: it may not speak that version, or not start at all (drop --protocol to let mcpi choose)%s",
			what, unsupported.Requested, output), true
	case errors.As(err, &unsupported):
		return versionSentence(unsupported.Requested, unsupported.Supported), true
	case !errors.As(err, &rpc):
		return "", false
	}
	switch rpc.Code {
	case mcp.CodeUnsupportedProtocolVersion:
		var d mcp.UnsupportedProtocolVersionData
		_ = json.Unmarshal(rpc.Data, &d)
		return versionSentence(d.Requested, d.Supported), true
	case mcp.CodeMissingRequiredClientCapability:
		var d mcp.MissingCapabilityData
		_ = json.Unmarshal(rpc.Data, &d)
		if _, ok := d.RequiredCapabilities.Extensions[mcp.ExtensionTasks]; ok {
			return "the server runs this tool only as a task: call it with --task (JSON-RPC error -32021)", true
		}
		need := "a client capability this request did not declare"
		if b, err := json.Marshal(d.RequiredCapabilities); err == nil && string(b) != "{}" {
			need = "the client capabilities " + string(b)
		}
		return fmt.Sprintf("the server needs %s: %s (JSON-RPC error -32021)", need, strings.TrimSuffix(rpc.Message, ".")), true
	case mcp.CodeHeaderMismatch:
		return fmt.Sprintf("the server says the request's HTTP headers do not match its body: %s (JSON-RPC error -32020; a proxy that rewrites headers, or a bug in mcpi)", strings.TrimSuffix(rpc.Message, ".")), true
	}
	return "", false
}

func versionSentence(requested string, supported []string) string {
	what := "protocol version " + requested
	if requested == "" {
		what = "the protocol version mcpi asked for"
	}
	if len(supported) == 0 {
		return fmt.Sprintf("the server does not speak %s (drop --protocol to let mcpi choose)", what)
	}
	return fmt.Sprintf("the server does not speak %s; it speaks %s (give --protocol %s, or auto)", what, strings.Join(supported, ", "), supported[0])
}

func describeConfig(e *ConfigError) string {
	var syn *syntaxError
	var pathErr *fs.PathError
	var large *FileTooLargeError
	switch {
	case errors.As(e.Err, &large):
		return fmt.Sprintf("the config file %s is too large (over %s)", e.File, Size(large.Limit))
	case errors.As(e.Err, &syn) && syn.Shape:
		return fmt.Sprintf("the config file %s is not in the mcpServers format: %s", e.File, syn.Msg)
	case errors.As(e.Err, &syn):
		return fmt.Sprintf("the config file %s is not valid JSON: %s", e.File, syn.Msg)
	case errors.As(e.Err, &pathErr):
		if errors.Is(pathErr, fs.ErrNotExist) {
			return fmt.Sprintf("the config file %s does not exist", e.File)
		}
		return fmt.Sprintf("cannot read the config file %s: %v", e.File, pathErr.Err)
	}
	return fmt.Sprintf("the config file %s cannot be used: %v", e.File, e.Err)
}

// syntaxError is a JSON syntax error with its position; see [JSONSyntaxError].
type syntaxError struct {
	Msg string
	// Shape is set when the file is JSON of the wrong shape rather than not JSON.
	Shape bool
}

func (e *syntaxError) Error() string { return e.Msg }

// JSONSyntaxError describes a JSON decoding error of data, with the line and column of a
// syntax error, for a [ConfigError].
func JSONSyntaxError(data []byte, err error) error {
	var js *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF), errors.As(err, &js) && endsEarly(data):
		return &syntaxError{Msg: "it ends too early"}
	case errors.As(err, &js):
		line, col := position(data, js.Offset)
		return &syntaxError{Msg: fmt.Sprintf("%s at line %d, column %d", js.Error(), line, col)}
	case errors.As(err, &te):
		line, col := position(data, te.Offset)
		what := "the top level"
		if te.Field != "" {
			what = te.Field
		}
		want := "something else"
		switch te.Type.Kind() {
		case reflect.Map, reflect.Struct:
			want = "an object"
		case reflect.Slice, reflect.Array:
			want = "an array"
		case reflect.String:
			want = "a string"
		case reflect.Bool:
			want = "true or false"
		case reflect.Int, reflect.Int64, reflect.Float64:
			want = "a number"
		}
		return &syntaxError{Shape: true, Msg: fmt.Sprintf("%s must be %s, not %s (line %d, column %d)", what, want, article(te.Value), line, col)}
	}
	return &syntaxError{Msg: err.Error()}
}

// endsEarly reports whether data is JSON cut short. json.Unmarshal says so with a
// *json.SyntaxError like any other, but a json.Decoder with io.ErrUnexpectedEOF (or
// io.EOF when there is nothing at all), so a Decoder is asked.
func endsEarly(data []byte) bool {
	err := json.NewDecoder(bytes.NewReader(data)).Decode(new(json.RawMessage))
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
}

func article(jsonType string) string {
	switch jsonType {
	case "array", "object":
		return "an " + jsonType
	case "bool":
		return "a boolean"
	}
	return "a " + jsonType
}

// position turns a byte offset into a 1-based line and column (of the byte before the
// offset, which is where encoding/json points).
func position(data []byte, off int64) (line, col int) {
	line, col = 1, 0
	for _, b := range data[:min(max(int(off), 0), len(data))] {
		if b == '\n' {
			line++
			col = 0
		} else {
			col++
		}
	}
	return line, max(col, 1)
}

func describeConnect(e *ConnectError) string {
	msg := describeConnectCause(e)
	var stray *client.StrayOutputError
	if errors.As(e.Err, &stray) {
		msg += "; " + look.Stray(stray)
	}
	return msg
}

// describeConnectCause is describeConnect without what the server wrote that is no
// message.
func describeConnectCause(e *ConnectError) string {
	var (
		execErr *exec.Error
		dnsErr  *net.DNSError
		httpErr *transport.HTTPError
		rpc     *jsonrpc.Error
		timeout *client.TimeoutError
		pathErr *fs.PathError
	)
	if msg, ok := describeEra(e.Err); ok {
		return msg
	}
	if msg := describeLogin(e); msg != "" {
		return msg
	}
	if e.Login && errors.Is(e.Err, context.Canceled) {
		return fmt.Sprintf("the login to %s was interrupted; the stored token, if any, is unchanged", e.Target)
	}
	switch {
	case errors.As(e.Err, &execErr):
		switch {
		case errors.Is(execErr.Err, fs.ErrPermission):
			return fmt.Sprintf("the server command %q cannot be run: permission denied", execErr.Name)
		case errors.Is(execErr.Err, syscall.EISDIR):
			return fmt.Sprintf("the server command %q is a directory", execErr.Name)
		default:
			return fmt.Sprintf("the server command %q was not found", execErr.Name)
		}
	case errors.As(e.Err, &pathErr) && pathErr.Op == "chdir":
		why := look.Sentence(pathErr.Err)
		switch {
		case errors.Is(pathErr.Err, fs.ErrNotExist):
			why = "it does not exist"
		case errors.Is(pathErr.Err, syscall.ENOTDIR):
			why = "it is not a directory"
		case errors.Is(pathErr.Err, fs.ErrPermission):
			why = "permission denied"
		}
		return fmt.Sprintf("%s cannot be started in the directory %q: %s", e.who(), pathErr.Path, why)
	case errors.Is(e.Err, transport.ErrServerExited):
		return e.who() + " exited before it finished starting" + look.ExitDetail(e.Err)
	case errors.As(e.Err, &dnsErr):
		return fmt.Sprintf("cannot find the host %q of %s", dnsErr.Name, e.Target)
	case errors.Is(e.Err, transport.ErrUnreachable):
		return "nothing is listening at " + e.Target
	case errors.As(e.Err, &httpErr):
		switch httpErr.StatusCode {
		case http.StatusUnauthorized, http.StatusForbidden:
			return fmt.Sprintf("%s refused access (HTTP %d: %s); pass credentials with --header", e.who(), httpErr.StatusCode, httpErr.Message)
		case http.StatusNotFound:
			return fmt.Sprintf("there is no MCP endpoint at %s (HTTP 404)", e.Target)
		}
		return fmt.Sprintf("%s answered HTTP %d: %s", e.who(), httpErr.StatusCode, httpErr.Message)
	case errors.As(e.Err, &rpc):
		return fmt.Sprintf("%s refused to start a session: %s (JSON-RPC error %d)", e.who(), strings.TrimSuffix(rpc.Message, "."), rpc.Code)
	case errors.As(e.Err, &timeout) && timeout.After != "":
		return fmt.Sprintf("%s answered neither %s nor %s within %s (--timeout raises the bound)", e.who(), timeout.After, timeout.Method, look.Duration(timeout.Timeout))
	case errors.As(e.Err, &timeout):
		return fmt.Sprintf("%s did not answer %s within %s (--timeout raises the bound)", e.who(), timeout.Method, look.Duration(timeout.Timeout))
	case errors.Is(e.Err, context.DeadlineExceeded):
		return fmt.Sprintf("%s did not finish initializing within %s", e.who(), e.Timeout)
	case errors.Is(e.Err, context.Canceled):
		if e.Login {
			return "interrupted while logging in to " + e.Target
		}
		if e.Stdio {
			return "interrupted while starting a session with " + e.who()
		}
		return "interrupted while starting a session with " + e.Target
	case errors.Is(e.Err, transport.ErrStrayFlood):
		// mcpi closed the connection, not the server: before the case of ErrClosed.
		return fmt.Sprintf("gave up on %s: it wrote more than %d lines or %d MiB on its stdout before its first MCP message", e.who(), transport.DefaultMaxStrayLines, transport.DefaultMaxStrayBytes>>20)
	case errors.Is(e.Err, jsonrpc.ErrClosed), errors.Is(e.Err, io.EOF):
		return fmt.Sprintf("%s closed the connection before it finished initializing", e.who())
	}
	with := e.Target
	if e.Stdio {
		with = e.who()
	}
	if e.Login {
		return fmt.Sprintf("cannot log in to %s: %s", with, look.Sentence(e.Err))
	}
	return fmt.Sprintf("cannot start a session with %s: %s", with, look.Sentence(e.Err))
}

// describeLogin words a failed OAuth login of the server e names, with the way out
// the CLI offers; "" when e is not about a login.
func describeLogin(e *ConnectError) string {
	msg := look.AuthSentence(e.Err)
	var timeout *auth.TimeoutError
	switch {
	case msg == "":
		return ""
	case errors.As(e.Err, &timeout):
		return fmt.Sprintf("the login to %s was not finished within %s (its page was %s); run the command again to start a new one (--no-browser prints its URL)", e.Target, look.Duration(timeout.Timeout), timeout.URL)
	case errors.As(e.Err, new(*auth.MetadataError)), errors.Is(e.Err, auth.ErrNoRegistration):
		// A server that answers 401 for credentials of another kind (an API key) has
		// no OAuth metadata to find.
		return msg + " (if the server wants credentials of another kind, pass them with --header)"
	}
	return msg
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	switch len(q) {
	case 1:
		return q[0]
	case 2:
		return q[0] + " and " + q[1]
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}
