package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	count "github.com/mcpi-dev/mcpi/internal/plural"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
)

// The demo server as requestor (revision 2025-11-25 receiver tasks on the client): tools
// that send task-augmented elicitation/create and sampling/createMessage to the client,
// poll the client's tasks/get at the pollInterval the client suggests, and fetch the
// outcome with tasks/result; one that cancels the client's task; one that lists the
// client's tasks.

// Names of the requestor tools.
const (
	ToolAskUserTask     = "ask_user_task"
	ToolAskModelTask    = "ask_model_task"
	ToolAskThenCancel   = "ask_then_cancel"
	ToolListClientTasks = "list_client_tasks"
)

// Modes of a [ClientTaskReport].
const (
	// ModeTask: the client ran the request as a task, and the server polled it.
	ModeTask = "task"
	// ModePlain: the client declared no receiver tasks for the method, so the server
	// sent a plain request.
	ModePlain = "plain"
	// ModeImmediate: the client declared receiver tasks but answered at once with the
	// plain result (what a receiver that ignores params.task does).
	ModeImmediate = "immediate"
)

// ClientTaskReport is the structured content of ask_user_task, ask_model_task and
// ask_then_cancel: what the server sent, what the client answered, and how often the
// server polled.
type ClientTaskReport struct {
	// Method is the request sent: elicitation/create or sampling/createMessage.
	Method string `json:"method"`
	// Mode is [ModeTask], [ModePlain] or [ModeImmediate].
	Mode string `json:"mode"`
	// Created is the task as the client's CreateTaskResult gave it.
	Created *mcp.Task `json:"created,omitempty"`
	// TaskID is the client's task id.
	TaskID string `json:"taskId,omitempty"`
	// Status and StatusMessage are the task's last known state.
	Status        mcp.TaskStatus `json:"status,omitempty"`
	StatusMessage string         `json:"statusMessage,omitempty"`
	// PollIntervalMs is the interval the server waited between polls: the client's
	// pollInterval.
	PollIntervalMs int64 `json:"pollIntervalMs,omitempty"`
	// Polls counts the tasks/get the server sent.
	Polls int `json:"polls"`
	// Result is the client's answer exactly as it came (the tasks/result payload, or
	// the plain result): an ElicitResult or a CreateMessageResult.
	Result json.RawMessage `json:"result,omitempty"`
	// Error is the JSON-RPC error the client answered, exactly, and ErrorFrom the method
	// that got it (tasks/result, tasks/get, tasks/cancel or the request itself).
	Error     *jsonrpc.Error `json:"error,omitempty"`
	ErrorFrom string         `json:"errorFrom,omitempty"`
	// Cancelled is the tasks/cancel result of ask_then_cancel.
	Cancelled *mcp.Task `json:"cancelled,omitempty"`
	// ToolTask is the id of the tool's own task, when the tool was called as a task.
	ToolTask string `json:"toolTask,omitempty"`
}

// ClientTaskList is list_client_tasks' result (as JSON text and structured content).
type ClientTaskList struct {
	Tasks []mcp.Task `json:"tasks"`
	// Pages counts the tasks/list requests it took.
	Pages int `json:"pages"`
}

// maxListPages bounds list_client_tasks against a client whose cursors never end.
const maxListPages = 1000

const ttlProperty = `"ttl":{"type":"integer","title":"TTL (ms)","description":"The lifetime to ask the client for; the client's default when absent.","minimum":1}`

func (d *demo) addRequestorTools(srv *server.Server) {
	srv.AddTool(&mcp.Tool{
		Name:  ToolAskUserTask,
		Title: "Ask the user, as a client task",
		Description: "Sends elicitation/create to the client as a task (params.task), polls the client's tasks/get at " +
			"the client's pollInterval, fetches the answer with tasks/result and returns it, with the number of polls. " +
			"A client that does not accept elicitation as a task is asked with a plain request, and the result says so. " +
			"taskSupport optional.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"message":{"type":"string","title":"Message","description":"What to tell the user; a default when absent."},` +
			ttlProperty + `},"additionalProperties":false}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: ptr(true), OpenWorldHint: ptr(false)},
		Execution:   taskOptional,
	}, d.askUserTask)

	srv.AddTool(&mcp.Tool{
		Name:  ToolAskModelTask,
		Title: "Ask the model, as a client task",
		Description: "Sends sampling/createMessage to the client as a task, polls the client's tasks/get at its " +
			"pollInterval, fetches the reply with tasks/result and returns it, with the number of polls. A client " +
			"that does not accept sampling as a task is asked with a plain request, and the result says so. " +
			"taskSupport optional.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"prompt":{"type":"string","title":"Prompt","description":"The user message to send to the model.","minLength":1},` +
			`"maxTokens":{"type":"integer","title":"Max tokens","description":"The most tokens the model may produce.","minimum":1,"default":200},` +
			ttlProperty + `},"required":["prompt"],"additionalProperties":false}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: ptr(true), OpenWorldHint: ptr(true)},
		Execution:   taskOptional,
	}, d.askModelTask)

	srv.AddTool(&mcp.Tool{
		Name:  ToolAskThenCancel,
		Title: "Ask the user, then cancel",
		Description: "Sends elicitation/create to the client as a task, waits the given seconds, then cancels the " +
			"client's task with tasks/cancel and reports the cancelled task (or the client's error when the task had " +
			"already ended). The client should withdraw the question. taskSupport optional.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{` + secondsProperty + `,` +
			`"message":{"type":"string","title":"Message","description":"What to tell the user; a default when absent."},` +
			ttlProperty + `},"required":["seconds"],"additionalProperties":false}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: ptr(true), OpenWorldHint: ptr(false)},
		Execution:   taskOptional,
	}, d.askThenCancel)

	srv.AddTool(&mcp.Tool{
		Name:  ToolListClientTasks,
		Title: "List the client's tasks",
		Description: `Lists the tasks the client runs for this server (tasks/list, every page) and returns ` +
			`{"tasks": [...], "pages": N} as JSON text. taskSupport optional.`,
		InputSchema: json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: ptr(true), OpenWorldHint: ptr(false)},
		Execution:   taskOptional,
	}, d.listClientTasks)
}

// The form ask_user_task and ask_then_cancel send: ask_user's.
const askUserTaskMessage = "Hello! Please tell me a little about yourself."

func ttlArgument(ms *int64) (time.Duration, *mcp.CallToolResult) {
	if ms == nil {
		return 0, nil
	}
	if *ms < 1 {
		return 0, toolError("ttl must be at least 1 ms, got %d", *ms)
	}
	return mcp.Milliseconds(*ms), nil
}

func (d *demo) askUserTask(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		Message string `json:"message"`
		TTL     *int64 `json:"ttl"`
	}
	if r := arguments(req, &args); r != nil {
		return r, nil
	}
	ttl, r := ttlArgument(args.TTL)
	if r != nil {
		return r, nil
	}
	if args.Message == "" {
		args.Message = askUserTaskMessage
	}
	if !req.ClientCapabilities().Elicitation.SupportsForm() {
		return toolError("the client does not support form elicitation, so %s cannot ask", ToolAskUserTask), nil
	}
	p := &mcp.ElicitParams{Mode: mcp.ElicitModeForm, Message: args.Message, RequestedSchema: askUserSchema}
	return d.askClient(ctx, req, mcp.MethodElicitationCreate, &p.Meta,
		func(ctx context.Context) (*server.ClientTask, error) { return req.Session.ElicitTask(ctx, p, ttl) },
		func(ctx context.Context) (any, error) { return req.Session.Elicit(ctx, p) })
}

func (d *demo) askModelTask(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		Prompt    string `json:"prompt"`
		MaxTokens *int64 `json:"maxTokens"`
		TTL       *int64 `json:"ttl"`
	}
	if r := arguments(req, &args); r != nil {
		return r, nil
	}
	if args.Prompt == "" {
		return toolError("%s needs a prompt", ToolAskModelTask), nil
	}
	maxTokens := int64(200)
	if args.MaxTokens != nil {
		if *args.MaxTokens < 1 {
			return toolError("maxTokens must be at least 1, got %d", *args.MaxTokens), nil
		}
		maxTokens = *args.MaxTokens
	}
	ttl, r := ttlArgument(args.TTL)
	if r != nil {
		return r, nil
	}
	if req.ClientCapabilities().Sampling == nil {
		return toolError("the client does not support sampling, so %s cannot ask", ToolAskModelTask), nil
	}
	p := &mcp.CreateMessageParams{
		Messages:  []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: []mcp.Content{mcp.TextContent(args.Prompt)}}},
		MaxTokens: maxTokens,
	}
	return d.askClient(ctx, req, mcp.MethodSamplingCreateMessage, &p.Meta,
		func(ctx context.Context) (*server.ClientTask, error) {
			return req.Session.CreateMessageTask(ctx, p, ttl)
		},
		func(ctx context.Context) (any, error) { return req.Session.CreateMessage(ctx, p) })
}

// askClient sends a request to the client as a task (start) and follows it to its
// outcome, or, when the client does not accept the method as a task, as a plain request
// (plain).
func (d *demo) askClient(ctx context.Context, req *server.ToolRequest, method string, meta *mcp.Meta,
	start func(context.Context) (*server.ClientTask, error), plain func(context.Context) (any, error)) (*mcp.CallToolResult, error) {
	rep := &ClientTaskReport{Method: method}
	if h, ok := server.TaskFromContext(ctx); ok {
		rep.ToolTask = h.ID()
	}
	if !req.ClientCapabilities().Tasks.SupportsRequest(method) {
		// Inside a tool task the plain request goes through the task's side channel.
		rep.Mode = ModePlain
		res, err := plain(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			rep.fail(method, err)
		} else {
			rep.Result, _ = json.Marshal(res)
		}
		return rep.toolResult()
	}

	ctx, done := d.waitForClient(ctx, meta)
	defer done()
	ct, err := start(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		rep.Mode = ModeTask
		rep.fail(method, err)
		return rep.toolResult()
	}
	if rep.immediate(ct) {
		return rep.toolResult()
	}
	d.waitingFor(ctx, ct)
	if err := d.follow(ctx, ct, rep); err != nil {
		return nil, err
	}
	return rep.toolResult()
}

// waitForClient prepares a request the tool sends to the client while it runs as a task
// itself: the request carries the tool task's id (related-task meta), the tool task is
// input_required until done is called, and the request, with the polls that follow it,
// travels on the stream of the requestor's tasks/result when one shows up within the
// server's pollInterval (the input_required flow asks the requestor for one).
func (d *demo) waitForClient(ctx context.Context, meta *mcp.Meta) (context.Context, func()) {
	h, ok := server.TaskFromContext(ctx)
	if !ok {
		return ctx, func() {}
	}
	meta.SetRelatedTask(h.ID())
	_ = h.SetStatus(mcp.TaskStatusInputRequired, "waiting for the client")
	wait, cancel := context.WithTimeout(ctx, d.taskPoll)
	id, found := h.AwaitRequestor(wait)
	cancel()
	if found {
		ctx = jsonrpc.WithRelatedRequest(ctx, id)
	}
	return ctx, func() { _ = h.SetStatus(mcp.TaskStatusWorking, "") }
}

// waitingFor names the client's task in the tool task's status message.
func (d *demo) waitingFor(ctx context.Context, ct *server.ClientTask) {
	if h, ok := server.TaskFromContext(ctx); ok {
		_ = h.SetStatus(mcp.TaskStatusInputRequired, fmt.Sprintf("waiting for the client's task %s (%s)", ct.Created.TaskID, ct.Method))
	}
}

// follow follows the client's task to its outcome with the server's follower. It returns
// an error only when ctx ends, after cancelling the client's task; the client's own
// errors go into rep.
func (d *demo) follow(ctx context.Context, ct *server.ClientTask, rep *ClientTaskReport) error {
	var raw json.RawMessage
	err := ct.Result(ctx, &raw)
	if polls := ct.Polls(); polls > 0 {
		rep.Polls, rep.PollIntervalMs = polls, ct.PollInterval().Milliseconds()
	}
	st := ct.State()
	rep.Status, rep.StatusMessage = st.Status, st.StatusMessage
	switch {
	case ctx.Err() != nil:
		cancelClientTask(ctx, ct)
		return ctx.Err()
	case err != nil:
		rep.fail(mcp.MethodTasksResult, err)
	default:
		rep.Result = raw
	}
	return nil
}

// cancelClientTask cancels the client's task when the tool stops waiting for it, so the
// client withdraws its question; best effort.
func cancelClientTask(ctx context.Context, ct *server.ClientTask) {
	c, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	_, _ = ct.Cancel(c)
}

func (d *demo) askThenCancel(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		Seconds *float64 `json:"seconds"`
		Message string   `json:"message"`
		TTL     *int64   `json:"ttl"`
	}
	if r := arguments(req, &args); r != nil {
		return r, nil
	}
	if args.Seconds == nil {
		return toolError("%s needs seconds", ToolAskThenCancel), nil
	}
	delay, r := seconds(args.Seconds, 0)
	if r != nil {
		return r, nil
	}
	ttl, r := ttlArgument(args.TTL)
	if r != nil {
		return r, nil
	}
	if args.Message == "" {
		args.Message = askUserTaskMessage
	}
	caps := req.ClientCapabilities()
	if !caps.Elicitation.SupportsForm() || !caps.Tasks.SupportsElicitationCreate() || !caps.Tasks.SupportsCancel() {
		return toolError("%s needs a client that runs form elicitation as a task and accepts tasks/cancel", ToolAskThenCancel), nil
	}
	rep := &ClientTaskReport{Method: mcp.MethodElicitationCreate, Mode: ModeTask}
	if h, ok := server.TaskFromContext(ctx); ok {
		rep.ToolTask = h.ID()
	}
	p := &mcp.ElicitParams{Mode: mcp.ElicitModeForm, Message: args.Message, RequestedSchema: askUserSchema}
	ctx, done := d.waitForClient(ctx, &p.Meta)
	defer done()
	ct, err := req.Session.ElicitTask(ctx, p, ttl)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		rep.fail(mcp.MethodElicitationCreate, err)
		return rep.toolResult()
	}
	if rep.immediate(ct) {
		rep.Error = jsonrpc.NewError(jsonrpc.CodeInternalError, "the client answered at once, so there is no task to cancel")
		return rep.toolResult()
	}
	d.waitingFor(ctx, ct)
	if err := d.opts.Sleep(ctx, delay); err != nil {
		cancelClientTask(ctx, ct)
		return nil, err
	}
	cancelled, err := ct.Cancel(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		rep.fail(mcp.MethodTasksCancel, err)
	} else {
		rep.Cancelled = &cancelled
		rep.Status, rep.StatusMessage = cancelled.Status, cancelled.StatusMessage
	}
	// The task as the client keeps it now: still cancelled, or how it ended before. (A
	// client may also forget a cancelled task at once; then the cancel result stands.)
	if st, err := ct.Get(ctx); err == nil {
		rep.Status, rep.StatusMessage = st.Status, st.StatusMessage
	}
	rep.Polls = ct.Polls()
	return rep.toolResult()
}

func (d *demo) listClientTasks(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
	if r := arguments(req, &struct{}{}); r != nil {
		return r, nil
	}
	if !req.ClientCapabilities().Tasks.SupportsList() {
		return toolError("the client does not offer tasks/list"), nil
	}
	list := ClientTaskList{Tasks: []mcp.Task{}}
	cursor := ""
	seen := map[string]bool{}
	for {
		page, err := req.Session.ListClientTasks(ctx, cursor)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return toolError("tasks/list failed after %s: %v", plural(list.Pages, "page"), err), nil
		}
		list.Pages++
		list.Tasks = append(list.Tasks, page.Tasks...)
		if page.NextCursor == "" {
			break
		}
		if seen[page.NextCursor] || list.Pages >= maxListPages {
			return toolError("the client's tasks/list does not end (cursor %q after %s)", page.NextCursor, plural(list.Pages, "page")), nil
		}
		seen[page.NextCursor] = true
		cursor = page.NextCursor
	}
	b, err := json.Marshal(list)
	if err != nil {
		return nil, err
	}
	r := textResult(string(b))
	r.StructuredContent = b
	return r, nil
}

// immediate records the plain answer of a client that ignored params.task, and reports
// whether there was one.
func (rep *ClientTaskReport) immediate(ct *server.ClientTask) bool {
	if ct.Immediate != nil {
		rep.Mode, rep.Result = ModeImmediate, ct.Immediate
		return true
	}
	rep.Mode = ModeTask
	created := ct.Created
	rep.Created, rep.TaskID = &created, created.TaskID
	rep.Status, rep.StatusMessage = created.Status, created.StatusMessage
	return false
}

// fail records the client's error for the request method, or for the request a
// [*server.ClientTaskError] names.
func (rep *ClientTaskReport) fail(method string, err error) {
	var rpc *jsonrpc.Error
	if errors.As(err, &rpc) {
		rep.Error = rpc
	} else {
		rep.Error = jsonrpc.AsError(err)
	}
	var cte *server.ClientTaskError
	if errors.As(err, &cte) {
		method = cte.Method
	}
	rep.ErrorFrom = method
}

// toolResult turns the report into the tool's result: a sentence and the report as
// structured content. A client error, or a task that ended without an answer, is a
// tool error.
func (rep *ClientTaskReport) toolResult() (*mcp.CallToolResult, error) {
	structured, err := json.Marshal(rep)
	if err != nil {
		return nil, err
	}
	r := textResult(rep.String())
	r.StructuredContent = structured
	r.IsError = rep.Error != nil || (rep.Mode == ModeTask && rep.Cancelled == nil && rep.Status != mcp.TaskStatusCompleted)
	return r, nil
}

// String is the report as one paragraph.
func (rep *ClientTaskReport) String() string {
	var b strings.Builder
	switch rep.Mode {
	case ModePlain:
		fmt.Fprintf(&b, "The client does not accept %s as a task, so the server sent it as a plain request.", rep.Method)
	case ModeImmediate:
		fmt.Fprintf(&b, "The client answered %s at once instead of running it as a task.", rep.Method)
	default:
		if rep.TaskID == "" {
			fmt.Fprintf(&b, "The server asked the client to run %s as a task.", rep.Method)
			break
		}
		fmt.Fprintf(&b, "The client ran %s as task %s. The server polled it %s", rep.Method, rep.TaskID, plural(rep.Polls, "time"))
		if rep.PollIntervalMs > 0 {
			fmt.Fprintf(&b, " (every %s, the client's pollInterval)", mcp.Milliseconds(rep.PollIntervalMs))
		}
		fmt.Fprintf(&b, "; its status is %s", rep.Status)
		if rep.StatusMessage != "" {
			fmt.Fprintf(&b, " (%s)", rep.StatusMessage)
		}
		b.WriteString(".")
	}
	if rep.Cancelled != nil {
		fmt.Fprintf(&b, " tasks/cancel answered: %s.", rep.Cancelled.Status)
	}
	if rep.Error != nil {
		fmt.Fprintf(&b, " %s returned the error %d: %s.", rep.ErrorFrom, rep.Error.Code, rep.Error.Message)
	}
	if len(rep.Result) > 0 {
		fmt.Fprintf(&b, " Answer: %s", compactJSON(rep.Result))
	}
	return b.String()
}

// plural says n of what, a noun whose plural takes an s: "1 page", "2 pages".
func plural(n int, what string) string { return count.Count(n, what, what+"s") }

// compactJSON is raw without insignificant space, and without _meta.
func compactJSON(raw json.RawMessage) string {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) == nil && obj != nil {
		delete(obj, "_meta")
		if b, err := json.Marshal(obj); err == nil {
			return string(b)
		}
	}
	return string(raw)
}
