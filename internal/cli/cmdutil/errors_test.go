package cmdutil

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/transport"
)

func TestDescribe(t *testing.T) {
	exited := &transport.ExitError{Status: "exit status 3", Stderr: []string{"boom"}}
	tests := []struct {
		err  error
		want string
		code int
	}{
		{&UsageError{Msg: "bad flag"}, "bad flag", 2},
		{fmt.Errorf("tools/call: %w", &client.UnknownToolError{Name: "x"}), `the server has no tool named "x"`, 2},
		{&client.ArgumentError{Field: "b", Problem: "is required"}, `argument "b" is required`, 2},
		{&ToolError{Tool: "t"}, `the tool "t" reported an error`, 1},
		{fmt.Errorf("tools/call: %w", jsonrpc.NewError(-32602, "unknown tool: x")), "the server returned an error: unknown tool: x (JSON-RPC error -32602)", 1},
		{&NeedTerminalError{Needs: []Need{{What: "sampling"}}}, `the server asked for the user's input (sampling), which mcpi can only give on a terminal or from an answers file; run it on a terminal, or pass --answers FILE with {"sampling": {"*": "the model's reply"}}`, 2},
		{&NeedTerminalError{Needs: []Need{{What: "elicitation", Answer: `{"name": "..."}`}}, Tool: "ask_task"},
			`the server asked for the user's input (elicitation for the tool "ask_task"), which mcpi can only give on a terminal or from an answers file; run it on a terminal, or pass --answers FILE with {"elicitation": {"ask_task": {"name": "..."}}}`, 2},
		{&NeedTerminalError{Needs: []Need{{What: "sampling"}}, Tool: "ask_task", Answers: "a.json"},
			`the server asked for the user's input (sampling for the tool "ask_task"), and the answers file a.json has no answer for it; add one, such as {"sampling": {"ask_task": "the model's reply"}}, or run mcpi on a terminal`, 2},
		{&NeedTerminalError{Needs: []Need{{What: "elicitation", Answer: `"accept"`}}, Tool: "ask_url"},
			`the server asked for the user's input (elicitation for the tool "ask_url"), which mcpi can only give on a terminal or from an answers file; run it on a terminal, or pass --answers FILE with {"elicitation": {"ask_url": "accept"}}`, 2},
		{&NeedTerminalError{Needs: []Need{{What: "elicitation", Key: "t#a", Answer: `{"a": 0}`}, {What: "sampling"}, {What: "elicitation", Key: "t#b"}}, Tool: "t"},
			`the server asked for the user's input (elicitation and sampling for the tool "t"), which mcpi can only give on a terminal or from an answers file; run it on a terminal, or pass --answers FILE with {"elicitation": {"t#a": {"a": 0}, "t#b": {"field": "value"}}, "sampling": {"t": "the model's reply"}}`, 2},
		{&NeedTerminalError{Needs: []Need{{What: "elicitation"}, {What: "sampling"}}, Tool: "greet", Kind: "prompt", Answers: "a.json"},
			`the server asked for the user's input (elicitation and sampling for the prompt "greet"), and the answers file a.json has no answer for 2 of its requests; add them, such as {"elicitation": {"greet": {"field": "value"}}, "sampling": {"greet": "the model's reply"}}, or run mcpi on a terminal`, 2},
		{&client.TaskSupportError{Tool: "slow_task", Support: mcp.TaskSupportRequired},
			`the tool "slow_task" must be called as a task (its taskSupport is required); use --task`, 2},
		{fmt.Errorf("x: %w", &client.TaskSupportError{Tool: "add", Support: mcp.TaskSupportForbidden, AsTask: true}),
			`the tool "add" cannot run as a task (its taskSupport is forbidden); call it without --task`, 2},
		{&client.TaskSupportError{Tool: "t", AsTask: true, ServerDeclines: true},
			`the server does not accept tool calls as tasks, so "t" cannot run as one; call it without --task`, 2},
		{&TaskError{ID: "x"}, `the server has no task "x" (it may have expired)`, 1},
		{&TaskError{ID: "x", Recorded: true}, `the server no longer knows the task "x" (it expired, or the server restarted)`, 1},
		{&TaskError{ID: "x", Recorded: true, Forgotten: true}, `the server no longer knows the task "x" (it expired, or the server restarted); mcpi has removed it from its local list of tasks`, 1},
		{&TaskError{ID: "x", Recorded: true, Forgotten: true, Session: SessionEnded}, `the server no longer knows the task "x": it kept the task in the session that created it, which has ended (the server ended it, or restarted), and it may bind tasks to their session; mcpi has removed it from its local list of tasks`, 1},
		{&TaskError{ID: "x", Recorded: true, Session: SessionUnknown}, `the server no longer knows the task "x" (it expired, the server restarted, or it kept the task in the session that created it, which has ended)`, 1},
		{&TaskError{ID: "x", Embedded: true}, `the task "x" is not in mcpi's local list of tasks, and the embedded demo server (used when no server is named) has no such task: name the server it runs on with --url, --stdio or --config`, 1},
		{&client.TaskEndError{TaskID: "x", Reason: client.ErrTaskGone}, `the server no longer knows the task "x" (it expired, or the server restarted)`, 1},
		{&client.TaskEndError{TaskID: "x", Reason: client.ErrTaskCancelled, Err: jsonrpc.NewError(-32603, "task cancelled")}, `the task "x" was cancelled`, 1},
		{&TaskError{ID: "x", Reason: TaskEnded, Status: "completed"}, `the task "x" has already ended (completed), so it cannot be cancelled`, 1},
		{&TaskError{ID: "x", Reason: TaskFailed, Message: "boom."}, `the task "x" failed: boom`, 1},
		{&ToolError{Task: "x"}, `the task "x" ended with a tool error`, 1},
		{&InterruptedTaskError{ID: "x", Fetch: "mcpi tasks result x"}, `interrupted; the task "x" is still running on the server: get its result with "mcpi tasks result x"`, 2},
		{&InterruptedTaskError{ID: "x", Cancelled: true}, `interrupted; the task "x" was cancelled on the server`, 2},
		{&InterruptedTaskError{ID: "x", Embedded: true}, `interrupted; the task "x" ends with the embedded demo server`, 2},
		// A question of a task that ends with its server is answered only by the call
		// made again.
		{&StoppedForInputError{ID: "x", Stdio: "srv --stdio", Call: "mcpi --stdio 'srv --stdio' tools call ask_task --task", Err: &NeedTerminalError{Needs: []Need{{What: "sampling"}}, Tool: "ask_task", Answers: "a.json"}},
			`the server asked for the user's input (sampling for the tool "ask_task"), and the answers file a.json has no answer for it, and the task "x" ends with the stdio server srv --stdio, which mcpi stops as it exits: add one, such as {"sampling": {"ask_task": "the model's reply"}}, and run the call that started it again ("mcpi --stdio 'srv --stdio' tools call ask_task --task --answers a.json", with its arguments), or run that on a terminal`, 2},
		{&StoppedForInputError{ID: "x", Embedded: true, Err: &NeedTerminalError{Needs: []Need{{What: "elicitation"}}}},
			`the server asked for the user's input (elicitation), which mcpi can only give on a terminal or from an answers file, and the task "x" ends with the embedded demo server, which mcpi stops as it exits: run the call that started it again on a terminal, or with --answers FILE holding {"elicitation": {"*": {"field": "value"}}}`, 2},
		{&LeftInputError{ID: "x", Fetch: "mcpi tasks result x", Err: &UsageError{Msg: "the answers file a.json has a wrong answer."}},
			`the answers file a.json has a wrong answer; the task "x" waits for it on the server: "mcpi tasks result x" gives it`, 2},
		{&StoppedForInputError{Embedded: true, Err: &UsageError{Msg: "the answers file a.json has a wrong answer."}},
			`the answers file a.json has a wrong answer; the task it is for ends with the embedded demo server, which mcpi stops as it exits: run the call that started it again`, 2},
		{&InterruptedTaskError{}, "interrupted before the server answered with the task's id; the call was withdrawn, but the server may have started the task already (and may ignore the withdrawal), and with no id mcpi cannot cancel it or fetch its result", 2},
		{&ConnectError{Target: "http://h/mcp", Err: fmt.Errorf("server/discover: %w", &StopError{Signal: syscall.SIGTERM})}, "interrupted while starting a session with http://h/mcp", 2},
		{fmt.Errorf("tools/list: %w", &jsonrpc.CallError{Method: "tools/list", Op: jsonrpc.OpSend, Err: fmt.Errorf("Post \"http://h/mcp\": %w", &StopError{Signal: os.Interrupt})}), "interrupted before the server answered tools/list", 2},
		{fmt.Errorf("reading: %w", &StopError{Signal: syscall.SIGHUP}), "interrupted", 2},
		{&InterruptedTaskError{ID: "x", CancelErr: fmt.Errorf("tasks/cancel: %w", io.EOF)}, `interrupted; cancelling the task "x" failed: the connection to the server failed: the server closed the connection`, 2},
		{&UnknownServerError{File: "f.json", Name: "x", Known: []string{"b", "a", "c"}}, `the config file f.json has no server named "x"; it has "a", "b" and "c"`, 2},
		{&ConnectError{Target: `"srv"`, Stdio: true, Err: &exec.Error{Name: "srv", Err: exec.ErrNotFound}}, `the server command "srv" was not found`, 2},
		{&ConnectError{Target: `"srv"`, Stdio: true, Err: fmt.Errorf("initialize: %w", fmt.Errorf("%w: %w", jsonrpc.ErrClosed, exited))},
			`the server "srv" exited before it finished starting (exit status 3); its last output: boom`, 2},
		{&ConnectError{Target: "http://127.0.0.1:9/mcp", Err: fmt.Errorf("initialize: %w", &jsonrpc.CallError{Method: "initialize", Op: jsonrpc.OpSend, Err: fmt.Errorf("%w: cannot connect", transport.ErrUnreachable)})},
			"nothing is listening at http://127.0.0.1:9/mcp", 2},
		{&ConnectError{Target: "http://h/mcp", Err: &transport.HTTPError{StatusCode: http.StatusUnauthorized, Message: "no token"}},
			"the server at http://h/mcp refused access (HTTP 401: no token); pass credentials with --header", 2},
		{&ConnectError{Target: "http://h/mcp", Err: fmt.Errorf("initialize: %w", jsonrpc.NewError(-32602, "unsupported version"))},
			"the server at http://h/mcp refused to start a session: unsupported version (JSON-RPC error -32602)", 2},
		{&ConnectError{Target: `"srv"`, Stdio: true, Timeout: 30 * time.Second, Err: fmt.Errorf("initialize: %w", context.DeadlineExceeded)},
			`the server "srv" did not finish initializing within 30s`, 2},
		{&ConnectError{Target: `"srv"`, Stdio: true, Err: &client.VersionError{Version: "1999"}},
			`cannot start a session with the server "srv": the server chose protocol version "1999", which mcpi does not speak`, 2},
		{fmt.Errorf("tools/list: %w", fmt.Errorf("%w: %w", jsonrpc.ErrClosed, exited)), "the connection to the server failed: the server exited (exit status 3); its last output: boom", 2},
		{fmt.Errorf("tools/list: %w", io.EOF), "the connection to the server failed: the server closed the connection", 2},
		{fmt.Errorf("tools/list: %w", context.Canceled), "interrupted", 2},
		{fmt.Errorf("tools/list: %w", &jsonrpc.CallError{Method: "tools/list", Op: jsonrpc.OpDecode, Err: errors.New("cannot unmarshal")}), "decoding tools/list result: cannot unmarshal", 2},
		// The errors of 2026-07-28 about the request itself, one sentence each.
		{&ConnectError{Target: "http://h/mcp", Err: fmt.Errorf("initialize: %w", jsonrpc.NewError(mcp.CodeUnsupportedProtocolVersion, "Unsupported protocol version: 2025-11-25").
			WithData(mcp.UnsupportedProtocolVersionData{Supported: []string{"2026-07-28"}, Requested: "2025-11-25"}))},
			"the server does not speak protocol version 2025-11-25; it speaks 2026-07-28 (give --protocol 2026-07-28, or auto)", 2},
		{&ConnectError{Target: `"srv"`, Stdio: true, Err: fmt.Errorf("server/discover: %w", &client.UnsupportedVersionError{Requested: "2026-07-28"})},
			"the server does not speak protocol version 2026-07-28 (drop --protocol to let mcpi choose)", 2},
		// A server that exits at server/discover: say so, with its output.
		{&ConnectError{Target: `"srv"`, Stdio: true, Err: fmt.Errorf("%w (server/discover: %w)", &client.UnsupportedVersionError{Requested: "2026-07-28"},
			fmt.Errorf("%w: %w", jsonrpc.ErrClosed, exited))},
			"the server exited (exit status 3) when asked for protocol version 2026-07-28: it may not speak that version, or not start at all (drop --protocol to let mcpi choose); its last output: boom", 2},
		{&ConnectError{Target: `"srv"`, Stdio: true, Err: fmt.Errorf("%w (server/discover: %w)", &client.UnsupportedVersionError{Requested: "2026-07-28"}, io.EOF)},
			"the server closed the connection when asked for protocol version 2026-07-28: it may not speak that version, or not start at all (drop --protocol to let mcpi choose)", 2},
		{fmt.Errorf("tools/call: %w", jsonrpc.NewError(mcp.CodeMissingRequiredClientCapability, "this tool runs as a task").
			WithData(map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{mcp.ExtensionTasks: map[string]any{}}}})),
			"the server runs this tool only as a task: call it with --task (JSON-RPC error -32021)", 2}, // as the refusal of 2025-11-25, made locally
		{fmt.Errorf("tools/call: %w", jsonrpc.NewError(mcp.CodeMissingRequiredClientCapability, "Server requires the elicitation capability.").
			WithData(map[string]any{"requiredCapabilities": map[string]any{"elicitation": map[string]any{}}})),
			`the server needs the client capabilities {"elicitation":{}}: Server requires the elicitation capability (JSON-RPC error -32021)`, 1},
		{fmt.Errorf("tools/call: %w", jsonrpc.NewError(mcp.CodeHeaderMismatch, "Mcp-Name does not match")),
			"the server says the request's HTTP headers do not match its body: Mcp-Name does not match (JSON-RPC error -32020; a proxy that rewrites headers, or a bug in mcpi)", 1},
		{&client.InputRoundsError{Method: "tools/call", Rounds: 16},
			"the server asked for input again after 16 rounds of it in answer to one tools/call; mcpi stopped there (--max-input-rounds raises the bound)", 2},
		{&client.InputRoundsError{Method: "tools/call", Rounds: 1},
			"the server asked for input again after 1 round of it in answer to one tools/call; mcpi stopped there (--max-input-rounds raises the bound)", 2},
		{fmt.Errorf("tools/call: %w", &client.ResultTypeError{Method: "tools/call", ResultType: "surprise"}),
			`the server answered tools/call with resultType "surprise", which this client does not know`, 1},
	}
	for _, tt := range tests {
		got, code := Describe(tt.err)
		if got != tt.want || code != tt.code {
			t.Errorf("Describe(%v):\n got %q (%d)\nwant %q (%d)", tt.err, got, code, tt.want, tt.code)
		}
	}
}

func TestJSONSyntaxError(t *testing.T) {
	for _, tt := range []struct {
		data string
		want string
	}{
		{`{"mcpServers": {"a": 1`, "it ends too early"},
		{``, "it ends too early"},
		{"  \n", "it ends too early"},
		{`{"a": }`, "invalid character '}' looking for beginning of value at line 1, column 7"},
		{"{\n  \"a\": 1,\n}", "invalid character '}' looking for beginning of object key string at line 3, column 1"},
		{`[1]`, "the top level must be an object, not an array (line 1, column 1)"},
	} {
		var v map[string]any
		err := json.Unmarshal([]byte(tt.data), &v)
		if err == nil {
			t.Fatalf("%q decoded", tt.data)
		}
		if got := JSONSyntaxError([]byte(tt.data), err).Error(); got != tt.want {
			t.Errorf("JSONSyntaxError(%q) = %q, want %q", tt.data, got, tt.want)
		}
	}
	// A json.Decoder says the same with io.ErrUnexpectedEOF.
	if got := JSONSyntaxError(nil, fmt.Errorf("decoding: %w", io.ErrUnexpectedEOF)).Error(); got != "it ends too early" {
		t.Errorf("io.ErrUnexpectedEOF: %q", got)
	}
}
