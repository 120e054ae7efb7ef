package look

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/transport"
)

// Sentence is the one sentence the user sees for an error of the library (client,
// jsonrpc, transport): a refused call says why, a JSON-RPC error gives its code, a lost
// connection says how it was lost, never a Go error chain. An error of a type it does not
// know reads as its message.
func Sentence(err error) string {
	var (
		unknown *client.UnknownToolError
		arg     *client.ArgumentError
		support *client.TaskSupportError
		rpc     *jsonrpc.Error
		httpErr *transport.HTTPError
		end     *client.TaskEndError
		limit   *client.ListLimitError
	)
	switch {
	case err == nil:
		return ""
	case errors.As(err, &unknown):
		return unknown.Error()
	case errors.As(err, &arg):
		return arg.Error()
	case errors.As(err, &support):
		return support.Error()
	case errors.As(err, &limit):
		if limit.ItemBound {
			return fmt.Sprintf("the server's %s went on past %d items; mcpi stopped there (--max-items raises the bound)", limit.Method, limit.MaxItems)
		}
		return fmt.Sprintf("the server's %s went on past %d pages; mcpi stopped there (--max-pages raises the bound)", limit.Method, limit.MaxPages)
	case errors.Is(err, context.Canceled):
		return "interrupted"
	case errors.As(err, &end) && errors.Is(end.Reason, client.ErrTaskCancelled):
		return fmt.Sprintf("the task %q was cancelled", end.TaskID)
	case errors.As(err, &end):
		return fmt.Sprintf("the server no longer knows the task %q (it expired, or the server restarted)", end.TaskID)
	case errors.Is(err, client.ErrTaskGone):
		return "the server no longer knows the task (it expired, or the server restarted)"
	case errors.As(err, &rpc):
		if rpc.Message == "" {
			return fmt.Sprintf("the server returned an error (JSON-RPC error %d)", rpc.Code)
		}
		return fmt.Sprintf("the server returned an error: %s (JSON-RPC error %d)", strings.TrimSuffix(rpc.Message, "."), rpc.Code)
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
	case errors.Is(err, jsonrpc.ErrClosed), errors.Is(err, io.EOF):
		return "the server closed the connection"
	}
	return ""
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
