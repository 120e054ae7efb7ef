package look

import (
	"cmp"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/auth"
	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/transport"
)

func TestStatus(t *testing.T) {
	for _, tt := range []struct {
		status mcp.TaskStatus
		symbol string
		text   string
	}{
		{mcp.TaskStatusWorking, "◐", "◐ working"},
		{mcp.TaskStatusInputRequired, "?", "? input_required"},
		{mcp.TaskStatusCompleted, "✓", "✓ completed"},
		{mcp.TaskStatusFailed, "✗", "✗ failed"},
		{mcp.TaskStatusCancelled, "⊘", "⊘ cancelled"},
		{"", "…", "… starting"},
		{"paused", "·", "· paused"},
	} {
		if got := Symbol(tt.status); got != tt.symbol {
			t.Errorf("Symbol(%q) = %q, want %q", tt.status, got, tt.symbol)
		}
		if got := Status(tt.status); got != tt.text {
			t.Errorf("Status(%q) = %q, want %q", tt.status, got, tt.text)
		}
	}
	if want := "◐ working  ? input_required  ✓ completed  ✗ failed  ⊘ cancelled  ∅ expired"; Legend() != want {
		t.Errorf("Legend() = %q, want %q", Legend(), want)
	}
}

func TestDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		-time.Second:                         "0ms",
		0:                                    "0ms",
		2 * time.Millisecond:                 "2ms",
		850 * time.Millisecond:               "850ms",
		999 * time.Millisecond:               "999ms",
		time.Second:                          "1.0s",
		4200 * time.Millisecond:              "4.2s",
		10 * time.Second:                     "10s",
		42 * time.Second:                     "42s",
		time.Minute:                          "1m00s",
		65 * time.Second:                     "1m05s",
		59*time.Minute + 59*time.Second:      "59m59s",
		time.Hour:                            "1h00m",
		2*time.Hour + 3*time.Minute:          "2h03m",
		100*time.Hour + 30*time.Minute + 1e9: "100h30m",
	} {
		if got := Duration(d); got != want {
			t.Errorf("Duration(%s) = %q, want %q", d, got, want)
		}
	}
}

func TestTTL(t *testing.T) {
	ms := func(n int64) *int64 { return &n }
	for _, tt := range []struct {
		ttl  *int64
		want string
	}{
		{nil, "unlimited"},
		{ms(500), "500ms"},
		{ms(30_000), "30s"},
		{ms(600_000), "10m00s"},
		{ms(3_600_000), "1h00m"},
		{ms(1e13), "2562047h47m"}, // the longest duration, not a wrapped negative one
	} {
		if got := TTL(tt.ttl); got != tt.want {
			t.Errorf("TTL(%v) = %q, want %q", tt.ttl, got, tt.want)
		}
	}
}

func TestShortID(t *testing.T) {
	for id, want := range map[string]string{
		"":                      "",
		"abc":                   "abc",
		"46efee70":              "46efee70",
		"46efee70-1c2d-4e5f":    "46efee70",
		"tâche-numéro-12345678": "tâche-nu",
	} {
		if got := ShortID(id); got != want {
			t.Errorf("ShortID(%q) = %q, want %q", id, got, want)
		}
	}
}

// wording is what a function of an error says of it.
type wording struct {
	err  error
	want string
}

func checkWording(t *testing.T, name string, f func(error) string, tests []wording) {
	t.Helper()
	for _, tt := range tests {
		if got := f(tt.err); got != tt.want {
			t.Errorf("%s(%v):\n got %q\nwant %q", name, tt.err, got, tt.want)
		}
	}
}

func TestSentence(t *testing.T) {
	exited := &transport.ExitError{Status: "exit status 3", Stderr: []string{"starting", "boom"}}
	checkWording(t, "Sentence", Sentence, []wording{
		{nil, ""},
		{fmt.Errorf("tools/call: %w", &client.UnknownToolError{Name: "x"}), `the server has no tool named "x"`},
		{&client.ArgumentError{Field: "b", Problem: "is required"}, `argument "b" is required`},
		{&client.TaskSupportError{Tool: "slow_task", Support: mcp.TaskSupportRequired},
			`the tool "slow_task" must be called as a task (its taskSupport is required)`},
		{fmt.Errorf("x: %w", &client.TaskSupportError{Tool: "add", Support: mcp.TaskSupportForbidden, AsTask: true}),
			`the tool "add" cannot run as a task (its taskSupport is forbidden)`},
		{fmt.Errorf("tools/list: %w", context.Canceled), "interrupted"},
		{fmt.Errorf("task x: %w", client.ErrTaskGone), "the server no longer knows the task (it expired, or the server restarted)"},
		{&client.TaskEndError{TaskID: "t1", Reason: client.ErrTaskGone, Err: jsonrpc.NewError(-32602, "task not found")},
			`the server no longer knows the task "t1" (it expired, or the server restarted)`},
		{&client.TaskEndError{TaskID: "t1", Reason: client.ErrTaskCancelled, Err: jsonrpc.NewError(-32603, "cancelled")},
			`the task "t1" was cancelled`},
		{fmt.Errorf("tools/call: %w", jsonrpc.NewError(-32602, "unknown tool: x.")), "the server returned an error: unknown tool: x (JSON-RPC error -32602)"},
		{jsonrpc.NewError(-32050, ""), "the server returned an error (JSON-RPC error -32050)"},
		// 2026-07-28 input the client could not or would not give is the client's doing.
		{fmt.Errorf("tools/call: %w", &client.InputError{Key: "k", Method: "sampling/createMessage",
			Err: jsonrpc.NewError(-1, "the user rejected the sampling request.")}),
			"the server's sampling/createMessage request was not answered, so the call ended: the user rejected the sampling request"},
		{&client.InputError{Key: "k", Method: "roots/list", Err: errors.New("no roots")},
			"the server's roots/list request was not answered, so the call ended: no roots"},
		{&client.InputError{Key: "k", Method: "elicitation/create", Err: context.Canceled}, "interrupted"},
		{&client.AbandonedError{TaskID: "t1", Err: &client.InputError{Key: "k", Method: "sampling/createMessage",
			Err: jsonrpc.NewError(-1, "the user rejected the sampling request")}},
			`the server's sampling/createMessage request was not answered, so mcpi cancelled the task "t1": the user rejected the sampling request`},
		{&client.AbandonedError{TaskID: "t1", Err: errors.New("it asked for input 1001 times; mcpi stopped answering")},
			`mcpi cancelled the task "t1": it asked for input 1001 times; mcpi stopped answering`},
		{fmt.Errorf("tools/list: %w", fmt.Errorf("%w: %w", jsonrpc.ErrClosed, exited)),
			"the connection to the server failed: the server exited (exit status 3); its last output: starting | boom"},
		{&transport.ExitError{Status: "exit status 0"}, "the connection to the server failed: the server exited (exit status 0)"},
		{&transport.ExitError{Err: io.EOF, Stderr: []string{"x"}}, "the connection to the server failed: the server exited"},
		{fmt.Errorf("%w: %w", transport.ErrSessionExpired, &transport.HTTPError{StatusCode: http.StatusNotFound}),
			"the connection to the server failed: the server ended the session"},
		{fmt.Errorf("tools/call: %w", fmt.Errorf("%w: %w", transport.ErrSessionExpired,
			&transport.HTTPError{StatusCode: http.StatusNotFound, RPC: jsonrpc.NewError(-32001, "session not found")})),
			"the connection to the server failed: the server ended the session"},
		{fmt.Errorf("%w: cannot connect", transport.ErrUnreachable), "the connection to the server failed: the server is no longer reachable"},
		{fmt.Errorf("tools/list: %w", jsonrpc.ErrClosed), "the connection to the server failed: the server closed the connection"},
		{fmt.Errorf("tools/list: %w", io.EOF), "the connection to the server failed: the server closed the connection"},
		{fmt.Errorf("tools/list: %w", &transport.HTTPError{StatusCode: http.StatusInternalServerError, Message: "overloaded"}),
			"the server answered HTTP 500: overloaded"},
		{fmt.Errorf("tools/list: %w", &jsonrpc.CallError{Method: "tools/list", Op: jsonrpc.OpDecode, Err: errors.New("json: cannot unmarshal string into Go value of type []mcp.Tool")}),
			"decoding tools/list result: json: cannot unmarshal string into Go value of type []mcp.Tool"},
		{&client.ListLimitError{Method: "tools/list", Pages: 1000, Items: 1000, MaxPages: 1000, MaxItems: 100000},
			"the server's tools/list went on past 1000 pages; mcpi stopped there (--max-pages raises the bound)"},
		{fmt.Errorf("x: %w", &client.ListLimitError{Method: "tasks/list", Pages: 3, Items: 10, MaxPages: 1000, MaxItems: 10, ItemBound: true}),
			"the server's tasks/list went on past 10 items; mcpi stopped there (--max-items raises the bound)"},
		{&client.ListLimitError{Method: "tools/list", Pages: 1, Items: 5, MaxPages: 1, MaxItems: 100000},
			"the server's tools/list went on past 1 page; mcpi stopped there (--max-pages raises the bound)"},
		{&client.ListLimitError{Method: "tools/list", Pages: 1, Items: 1, MaxPages: 1000, MaxItems: 1, ItemBound: true},
			"the server's tools/list went on past 1 item; mcpi stopped there (--max-items raises the bound)"},
		{fmt.Errorf("tools/list: %w", &jsonrpc.CallError{Method: "tools/list", Op: jsonrpc.OpReceive, Err: &transport.MessageTooLargeError{Size: 5242913, Limit: 4194304}}),
			"the server's answer to tools/list was dropped: message too large (5242913 bytes, limit 4194304; --max-message-size)"},
		{&transport.MessageTooLargeError{Size: -1, Limit: 1024},
			"message too large (over the limit of 1024 bytes; --max-message-size)"},
		{fmt.Errorf("tools/list: %w", &jsonrpc.CallError{Method: "tools/list", Op: jsonrpc.OpReceive, Err: &jsonrpc.MalformedResponseError{
			Reason: "parse error: invalid JSON", Detail: "invalid character 'N' looking for beginning of value at offset 97"}}),
			"the server's answer to tools/list could not be read: it is not valid JSON (invalid character 'N' looking for beginning of value at offset 97)"},
		{fmt.Errorf("tools/list: %w", &jsonrpc.CallError{Method: "tools/list", Op: jsonrpc.OpReceive, Err: &transport.NoResponseError{
			Reason: `the server answered HTTP 200 with Content-Type "text/html", which holds no JSON-RPC message (application/json or text/event-stream)`}}),
			`no response to tools/list: the server answered HTTP 200 with Content-Type "text/html", which holds no JSON-RPC message (application/json or text/event-stream)`},
		{&jsonrpc.CallError{Method: "ping", Op: jsonrpc.OpReceive, Err: &jsonrpc.MalformedResponseError{Reason: "invalid response: error code must be an integer"}},
			"the server's answer to ping could not be read: error code must be an integer"},
		{fmt.Errorf("tools/list: %w", &client.TimeoutError{Method: "tools/list", Timeout: 5 * time.Minute}),
			"the server did not answer tools/list within 5m00s (--timeout raises the bound)"},
		{&jsonrpc.CallError{Method: "initialize", Op: jsonrpc.OpSend, Err: &transport.RedirectError{URL: "http://a/mcp", Location: "https://b/mcp"}},
			"the server redirected to https://b/mcp, another origin, which mcpi does not follow with your headers and session (name it with --url if you trust it)"},
		{&jsonrpc.CallError{Method: "initialize", Op: jsonrpc.OpSend, Err: &transport.RedirectError{URL: "http://a/mcp?token=xxxxx", Location: "https://u:pw@b/mcp?token=tok123"}},
			"the server redirected to https://u:xxxxx@b/mcp?token=xxxxx, another origin, which mcpi does not follow with your headers and session (name it with --url if you trust it)"},
		{errors.New("something else"), "something else"},
		// The OAuth flow's errors, without the layers around them.
		{&jsonrpc.CallError{Method: "server/discover", Op: jsonrpc.OpSend, Err: fmt.Errorf("preparing the redirect: %w", &auth.TimeoutError{URL: "https://as/authorize?x=1", Timeout: 5 * time.Minute})},
			"the login was not finished within 5m00s (its page was https://as/authorize?x=1); a new one starts at the next try"},
		{fmt.Errorf("tools/list: %w", &auth.OAuthError{What: "token endpoint", Code: "invalid_client", Description: "unknown client"}),
			"the OAuth login failed: the token endpoint refused: invalid_client (unknown client)"},
		{fmt.Errorf("x: %w", &auth.MetadataError{What: "authorization server metadata", Tried: []string{"https://as/.well-known/oauth-authorization-server"},
			Err: &auth.ResponseError{What: "authorization server metadata", URL: "https://as/x", StatusCode: 500, ContentType: "text/html"}}),
			"the OAuth login failed: no authorization server metadata found at https://as/.well-known/oauth-authorization-server: the authorization server metadata https://as/x answered HTTP 500 with a text/html document, not JSON"},
		{fmt.Errorf("tools/call: %w", &auth.StepUpError{Scope: "admin", Attempts: 1}),
			`the server still refuses the request for lack of scope "admin" after a re-authorization for it`},
		{fmt.Errorf("x: %w", auth.ErrStateMismatch), "the OAuth login failed: " + auth.ErrStateMismatch.Error()},
	})
}

func TestExitDetail(t *testing.T) {
	checkWording(t, "ExitDetail", ExitDetail, []wording{
		{&transport.ExitError{Status: "signal: killed"}, " (signal: killed)"},
		{fmt.Errorf("x: %w", &transport.ExitError{Status: "exit status 1", Stderr: []string{"a"}}), " (exit status 1); its last output: a"},
		{&transport.ExitError{Err: io.EOF}, ""},
		{transport.ErrServerExited, ""},
		{io.EOF, ""},
	})
}

func TestLost(t *testing.T) {
	checkWording(t, "Lost", Lost, []wording{
		{nil, ""},
		{errors.New("x"), ""},
		{jsonrpc.NewError(-32603, "boom"), ""},
		{fmt.Errorf("%w: %w", jsonrpc.ErrClosed, io.EOF), "the server closed the connection"},
		{&transport.ExitError{Status: "exit status 2"}, "the server exited (exit status 2)"},
		{transport.ErrSessionExpired, "the server ended the session"},
		{transport.ErrUnreachable, "the server is no longer reachable"},
	})
}

// A URL-elicitation-required error (-32042) names the pages of its data, in a short
// sentence that says nothing twice: the error's code and message once, a page's message
// in place of mcpi's "then try again"; only http and https URLs with a host are offered
// as web pages, and a long list is cut.
func TestURLElicitationSentence(t *testing.T) {
	page := func(u, msg string) mcp.ElicitParams {
		return mcp.ElicitParams{Mode: mcp.ElicitModeURL, URL: u, Message: msg, ElicitationID: "e"}
	}
	many := make([]mcp.ElicitParams, 10)
	for i := range many {
		many[i] = page(fmt.Sprintf("https://a.example/%d", i), "")
	}
	for _, tt := range []struct {
		msg   string // the error's; "Needs a login." when empty
		pages []mcp.ElicitParams
		want  string
	}{
		{"", []mcp.ElicitParams{page("https://a.example/x", "Log in.")},
			"the server needs you to open https://a.example/x (Log in) first (JSON-RPC error -32042: Needs a login)"},
		{"", []mcp.ElicitParams{page("https://a.example/x", "")},
			"the server needs you to open https://a.example/x first, then try again (JSON-RPC error -32042: Needs a login)"},
		// What server-everything sends: its SDK's prefix of the message, and a page's
		// message that says to try again.
		{"MCP error -32042: This request requires browser-based authorization",
			[]mcp.ElicitParams{page("https://modelcontextprotocol.io", "Open this link to satisfy the prerequisite, then retry the request")},
			"the server needs you to open https://modelcontextprotocol.io (Open this link to satisfy the prerequisite, then retry the request) first (JSON-RPC error -32042: This request requires browser-based authorization)"},
		{"", []mcp.ElicitParams{page("https://a.example/x", "Log in"), page("https://b.example/y", "")},
			"the server needs you to open https://a.example/x (Log in); https://b.example/y first, then try again (JSON-RPC error -32042: Needs a login)"},
		{"", []mcp.ElicitParams{page("file:///etc/passwd", "")},
			`the server needs you to open a page first, but names no web address: "file:///etc/passwd", not to be opened (JSON-RPC error -32042: Needs a login)`},
		{"", []mcp.ElicitParams{page("https://a.example/x", "Log in"), page("javascript:alert(1)", "Run this")},
			`the server needs you to open https://a.example/x (Log in) first (JSON-RPC error -32042: Needs a login); it also names "javascript:alert(1)" (Run this), no web address and not to be opened`},
		{"", []mcp.ElicitParams{{Mode: mcp.ElicitModeForm, Message: "a form"}},
			"the server returned an error: Needs a login (JSON-RPC error -32042)"},
		{"", many, "the server needs you to open https://a.example/0; https://a.example/1; https://a.example/2; https://a.example/3; https://a.example/4; https://a.example/5; https://a.example/6; https://a.example/7; 2 more first, then try again (JSON-RPC error -32042: Needs a login)"},
	} {
		msg := cmp.Or(tt.msg, "Needs a login.")
		err := fmt.Errorf("calling: %w", jsonrpc.NewError(mcp.CodeURLElicitationRequired, msg).
			WithData(mcp.URLElicitationRequiredData{Elicitations: tt.pages}))
		if got := Sentence(err); got != tt.want {
			t.Errorf("got  %q\nwant %q", got, tt.want)
		}
	}
	for u, ok := range map[string]bool{"https://a.example/x?y=1": true, "http://127.0.0.1:9/": true,
		"javascript:alert(1)": false, "data:text/html,x": false, "/relative": false, "https:///nohost": false} {
		if _, got := WebURL(u); got != ok {
			t.Errorf("WebURL(%q) ok = %v, want %v", u, got, ok)
		}
	}
}

// A handshake that failed while the server wrote stray lines says so after its cause.
func TestStraySentence(t *testing.T) {
	err := &client.StrayOutputError{Lines: 3, Last: "ready", Err: fmt.Errorf("initialize: %w", context.DeadlineExceeded)}
	want := `initialize: context deadline exceeded; it wrote 3 lines on its stdout that are no MCP message (the last: "ready"): a stdio server writes only MCP messages there, and its log to stderr`
	if got := Sentence(err); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// A server library's "MCP error CODE: " before its message is not quoted: the sentence
// gives the code once.
func TestServerMessageWithoutItsCode(t *testing.T) {
	err := fmt.Errorf("tools/call: %w", jsonrpc.NewError(-32603, "MCP error -32603: database down."))
	if got, want := Sentence(err), "the server returned an error: database down (JSON-RPC error -32603)"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// A content block's header says what it is, with the exact size its base64 decodes to.
func TestContentHeader(t *testing.T) {
	b55 := base64.StdEncoding.EncodeToString(make([]byte, 55))
	for _, tt := range []struct {
		c    mcp.Content
		want string
	}{
		{mcp.Content{Type: mcp.ContentTypeText, Text: "hi"}, ""},
		{mcp.Content{Type: mcp.ContentTypeAudio, MimeType: "audio/wav", Data: base64.StdEncoding.EncodeToString(make([]byte, 1536))}, "[audio audio/wav, 1.5 KiB]"},
		{mcp.Content{Type: mcp.ContentTypeImage, MimeType: "image/png", Data: b55}, "[image image/png, 55 bytes]"},
		{mcp.Content{Type: mcp.ContentTypeResourceLink, URI: "file:///x", Name: "x"}, `[resource link file:///x "x"]`},
		{mcp.Content{Type: mcp.ContentTypeResource}, "[empty embedded resource]"},
		{mcp.Content{Type: "hologram\x1b[2J"}, `[hologram␛[2J content] {"type":"hologram\u001b[2J"}`},
	} {
		if got := ContentHeader(tt.c); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.c, got, tt.want)
		}
	}
}
