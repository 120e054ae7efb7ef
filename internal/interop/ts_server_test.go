package interop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/transport"
)

// mcpi's client against the TypeScript SDK server ts/server.mjs, over stdio:
//
//   - TestTSServerRequestsClientTasks: mcpi's client as the RECEIVER of tasks. The server
//     sends task-augmented sampling and elicitation, polls the client with tasks/get,
//     fetches tasks/result, lists and cancels the client's tasks.
//   - TestTSServerRunsToolTasks: mcpi's client as the REQUESTOR of tool tasks that the SDK
//     runs as receiver (its low-level Server with InMemoryTaskStore).

// What the test user answers. The OnRequest handler below picks the answer from the
// request: a prompt starting with "reject" is refused, an elicitation message "decline"
// is declined, "hold" is left open (the server cancels it), anything else is answered.
const (
	samplingModel = "mcpi-interop-model"
	holdMessage   = "hold"
)

// receiverPollInterval is the pollInterval mcpi's client suggests to the server; short,
// so that the SDK's polling (which sleeps pollInterval between tasks/get) keeps the test
// fast.
const receiverPollInterval = 25 * time.Millisecond

// receiverPageSize makes the client's tasks/list paginate after a handful of tasks.
const receiverPageSize = 2

func samplingAnswer(prompt string) *mcp.CreateMessageResult {
	return &mcp.CreateMessageResult{
		Role:       mcp.RoleAssistant,
		Content:    []mcp.Content{mcp.TextContent("echo: " + prompt)},
		Model:      samplingModel,
		StopReason: "endTurn",
	}
}

// rejectError is the error a refused sampling request is answered with (the MCP spec
// suggests code -1 for a user's refusal); data checks that it travels intact.
var rejectError = &jsonrpc.Error{Code: -1, Message: "User rejected the sampling request", Data: json.RawMessage(`{"reason":"interop test"}`)}

// acceptContent is the elicitation answer; it fits the form ts/server.mjs sends.
var acceptContent = map[string]any{"name": "Ada Lovelace", "age": 36}

// answerer answers the server's requests as a test user would, each once the server
// has polled its task at least once, so that the SDK's stream shows the task working
// before it ends.
type answerer struct {
	t   *testing.T
	rec atomic.Pointer[recorder]
}

func (a *answerer) answer(ctx context.Context, r *client.Request) {
	if r.RelatedTask != "" {
		// Side-channel input of a tool task the server runs (ts_task {mode: ask}).
		if r.Elicitation == nil {
			a.t.Errorf("unexpected side-channel %s", r.Method)
			return
		}
		_ = r.Accept(acceptContent)
		return
	}
	if r.Task == "" {
		a.t.Errorf("%s arrived without a task; the server asked for one", r.Method)
	} else if r.Elicitation == nil || r.Elicitation.Message != holdMessage {
		if err := a.rec.Load().waitPolled(ctx, r.Task); err != nil {
			return // withdrawn or the session ended: the test fails where it waits
		}
	}
	switch {
	case r.Sampling != nil:
		prompt := ""
		if n := len(r.Sampling.Messages); n > 0 && len(r.Sampling.Messages[n-1].Content) > 0 {
			prompt = r.Sampling.Messages[n-1].Content[0].Text
		}
		if strings.HasPrefix(prompt, "reject") {
			_ = r.Reject(rejectError)
			return
		}
		_ = r.Respond(samplingAnswer(prompt))
	case r.Elicitation != nil:
		switch r.Elicitation.Message {
		case "decline":
			_ = r.Decline()
		case holdMessage:
			// Left open: the server cancels the task.
		default:
			_ = r.Accept(acceptContent)
		}
	}
}

// connectTSServer starts ts/server.mjs and connects mcpi's client to it, receiver tasks on.
func connectTSServer(t *testing.T, ctx context.Context) (*client.Session, *recorder) {
	t.Helper()
	node := needNode(t)
	a := &answerer{t: t}
	c := client.New(mcp.Implementation{Name: "mcpi-interop", Version: "0.0.1"}, &client.Options{
		Logger:    testLogger(t),
		OnRequest: a.answer,
		Receiver:  &client.ReceiverOptions{PollInterval: receiverPollInterval, PageSize: receiverPageSize},
	})
	s, err := c.Connect(ctx, &transport.Command{
		Path:   node,
		Args:   []string{filepath.Join(tsDir, "server.mjs")},
		Dir:    tsDir,
		Logger: testLogger(t),
	})
	if err != nil {
		t.Fatalf("connecting to the TypeScript SDK server: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	rec := record(s)
	a.rec.Store(rec)
	return s, rec
}

// streamDoc is what the sample and elicit tools return: every message the SDK's
// createMessageStream / elicitInputStream yielded, and the outcome fetched with
// tasks/result when the stream ended in an error.
type streamDoc struct {
	Messages []struct {
		Type   string          `json:"type"`
		Task   *mcp.Task       `json:"task"`
		Result json.RawMessage `json:"result"`
		Error  *jsonrpc.Error  `json:"error"`
	} `json:"messages"`
	Fetched *outcome `json:"fetched"`
}

// outcome is {"ok": ...} or {"error": {...}} from ts/server.mjs.
type outcome struct {
	OK    json.RawMessage `json:"ok"`
	Error *jsonrpc.Error  `json:"error"`
}

func callStream(t *testing.T, ctx context.Context, s *client.Session, tool string, args any) *streamDoc {
	t.Helper()
	var doc streamDoc
	if err := json.Unmarshal([]byte(callText(t, ctx, s, tool, args)), &doc); err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if len(doc.Messages) < 2 {
		t.Fatalf("%s: want taskCreated ... result|error, got %d messages", tool, len(doc.Messages))
	}
	return &doc
}

func callOutcome(t *testing.T, ctx context.Context, s *client.Session, tool string, args any) *outcome {
	t.Helper()
	var o outcome
	if err := json.Unmarshal([]byte(callText(t, ctx, s, tool, args)), &o); err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return &o
}

// checkStream checks the part every task stream shares: a taskCreated in working with
// the asked ttl and the client's pollInterval, then taskStatus messages of that task only,
// in a legal order, the last one with status final, then one last result or error.
// It returns the task id.
func checkStream(t *testing.T, doc *streamDoc, ttl int64, final mcp.TaskStatus) string {
	t.Helper()
	first := doc.Messages[0]
	if first.Type != "taskCreated" || first.Task == nil {
		t.Fatalf("first message: want taskCreated, got %+v", first)
	}
	created := *first.Task
	if created.Status != mcp.TaskStatusWorking {
		t.Errorf("CreateTaskResult status %q, want working", created.Status)
	}
	if created.TTL == nil || *created.TTL != ttl {
		t.Errorf("CreateTaskResult ttl %v, want %d", created.TTL, ttl)
	}
	if created.PollInterval == nil || *created.PollInterval != receiverPollInterval.Milliseconds() {
		t.Errorf("CreateTaskResult pollInterval %v, want %d", created.PollInterval, receiverPollInterval.Milliseconds())
	}
	if len(created.TaskID) < 22 || created.CreatedAt == "" || created.LastUpdatedAt == "" {
		t.Errorf("CreateTaskResult task incomplete: %+v", created)
	}
	prev := mcp.TaskStatusWorking
	statuses := doc.Messages[1 : len(doc.Messages)-1]
	if len(statuses) < 2 || statuses[0].Task == nil || statuses[0].Task.Status != mcp.TaskStatusWorking {
		// The test user answers only after the first tasks/get has been answered.
		t.Fatalf("want a polled working status, then the final one; got %+v", statuses)
	}
	for _, m := range statuses {
		if m.Type != "taskStatus" || m.Task == nil {
			t.Fatalf("want taskStatus, got %+v", m)
		}
		if m.Task.TaskID != created.TaskID || m.Task.CreatedAt != created.CreatedAt {
			t.Errorf("tasks/get returned another task: %+v", m.Task)
		}
		if m.Task.Status != prev && !mcp.ValidTransition(prev, m.Task.Status) {
			t.Errorf("illegal transition %s -> %s", prev, m.Task.Status)
		}
		prev = m.Task.Status
	}
	if prev != final {
		t.Errorf("last polled status %q, want %q", prev, final)
	}
	return created.TaskID
}

// withRelatedTask returns v's JSON with _meta carrying the related-task key, as mcpi's
// tasks/result adds it.
func withRelatedTask(t *testing.T, v any, taskID string) string {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	m["_meta"] = map[string]any{mcp.MetaRelatedTask: map[string]any{"taskId": taskID}}
	return canon(t, m)
}

// requestOf waits for the pending request of a receiver task.
func requestOf(t *testing.T, ctx context.Context, rec *recorder, taskID string, settled bool) *client.Request {
	t.Helper()
	e, err := rec.waitFor(ctx, "the request of task "+taskID, func(e client.Event) bool {
		re, ok := e.(*client.RequestEvent)
		return ok && re.Request.Task == taskID && re.Settled == settled
	})
	if err != nil {
		t.Fatal(err)
	}
	return e.(*client.RequestEvent).Request
}

func TestTSServerRequestsClientTasks(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	s, rec := connectTSServer(t, ctx)
	t.Cleanup(func() { rec.logWire(t) })
	if info := s.InitializeResult().ServerInfo; info.Name != "ts-sdk-interop-server" {
		t.Fatalf("connected to %q", info.Name)
	}
	var taskIDs []string // every task the server made the client create, in order

	t.Run("sampling", func(t *testing.T) {
		const prompt = "What is 2+2?"
		doc := callStream(t, ctx, s, "sample", map[string]any{"prompt": prompt, "ttl": 60000})
		id := checkStream(t, doc, 60000, mcp.TaskStatusCompleted)
		taskIDs = append(taskIDs, id)
		last := doc.Messages[len(doc.Messages)-1]
		if last.Type != "result" {
			t.Fatalf("last message: want result, got %+v", last)
		}
		if got, want := canon(t, last.Result), withRelatedTask(t, samplingAnswer(prompt), id); got != want {
			t.Errorf("the server got\n  %s\nwant exactly what the user answered\n  %s", got, want)
		}
		r := requestOf(t, ctx, rec, id, true)
		if r.Sampling == nil || r.Sampling.Task == nil || r.Sampling.Task.TTL == nil || *r.Sampling.Task.TTL != 60000 {
			t.Errorf("the queued request does not show the task asked for: %+v", r.Sampling)
		}
	})

	t.Run("sampling rejected", func(t *testing.T) {
		doc := callStream(t, ctx, s, "sample", map[string]any{"prompt": "reject this one", "ttl": 30000})
		id := checkStream(t, doc, 30000, mcp.TaskStatusFailed)
		taskIDs = append(taskIDs, id)
		last := doc.Messages[len(doc.Messages)-1]
		// The SDK's stream does not fetch the outcome of a failed task: it makes up a
		// -32603 of its own (docs/ts-sdk-interop.md).
		if last.Type != "error" || last.Error == nil || last.Error.Code != jsonrpc.CodeInternalError ||
			last.Error.Message != "MCP error -32603: Task "+id+" failed" {
			t.Errorf("last message: want the SDK's local -32603 \"Task %s failed\", got %+v", id, last)
		}
		// tasks/result returns the user's refusal exactly: code, message and data on the
		// wire; the SDK's McpError then prefixes the message with "MCP error CODE: ".
		if doc.Fetched == nil || doc.Fetched.Error == nil {
			t.Fatalf("tasks/result: want the refusal, got %+v", doc.Fetched)
		}
		want := *rejectError
		want.Message = "MCP error -1: " + rejectError.Message
		if got, want := canon(t, doc.Fetched.Error), canon(t, &want); got != want {
			t.Errorf("tasks/result error as the SDK reports it\n  %s\nwant\n  %s", got, want)
		}
		var wire *jsonrpc.Response
		for _, r := range rec.requests(jsonrpc.Inbound, mcp.MethodTasksResult) {
			if paramsOf(t, r)["taskId"] == id {
				wire = rec.responseTo(jsonrpc.Outbound, r.ID)
			}
		}
		if wire == nil || wire.Error == nil || canon(t, wire.Error) != canon(t, rejectError) {
			t.Errorf("tasks/result on the wire: %+v, want exactly %+v", wire, rejectError)
		}
		// The failed status carries the refusal as its message.
		if st := doc.Messages[len(doc.Messages)-2].Task; st.StatusMessage != rejectError.Message {
			t.Errorf("failed task statusMessage %q, want %q", st.StatusMessage, rejectError.Message)
		}
	})

	t.Run("elicitation accepted", func(t *testing.T) {
		doc := callStream(t, ctx, s, "elicit", map[string]any{"message": "Who are you?", "ttl": 45000})
		id := checkStream(t, doc, 45000, mcp.TaskStatusCompleted)
		taskIDs = append(taskIDs, id)
		last := doc.Messages[len(doc.Messages)-1]
		want := withRelatedTask(t, &mcp.ElicitResult{Action: mcp.ElicitActionAccept, Content: acceptContent}, id)
		if last.Type != "result" || canon(t, last.Result) != want {
			t.Errorf("the server got %+v (%s)\nwant exactly %s", last, last.Result, want)
		}
		r := requestOf(t, ctx, rec, id, true)
		if r.Elicitation == nil || r.Elicitation.EffectiveMode() != mcp.ElicitModeForm || !strings.Contains(string(r.Elicitation.RequestedSchema), `"age"`) {
			t.Errorf("the queued elicitation lost its form: %+v", r.Elicitation)
		}
	})

	t.Run("elicitation declined", func(t *testing.T) {
		doc := callStream(t, ctx, s, "elicit", map[string]any{"message": "decline"})
		// No ttl asked: the client's default (1 hour) is reported.
		id := checkStream(t, doc, time.Hour.Milliseconds(), mcp.TaskStatusCompleted)
		taskIDs = append(taskIDs, id)
		last := doc.Messages[len(doc.Messages)-1]
		want := withRelatedTask(t, &mcp.ElicitResult{Action: mcp.ElicitActionDecline}, id)
		if last.Type != "result" || canon(t, last.Result) != want {
			t.Errorf("the server got %+v (%s)\nwant exactly %s", last, last.Result, want)
		}
	})

	t.Run("server cancels an open prompt", func(t *testing.T) {
		o := callOutcome(t, ctx, s, "start_elicit", map[string]any{"message": holdMessage, "ttl": 60000})
		var created mcp.CreateTaskResult
		if o.Error != nil || json.Unmarshal(o.OK, &created) != nil || created.Task.TaskID == "" {
			t.Fatalf("start_elicit: %+v (%s)", o.Error, o.OK)
		}
		id := created.Task.TaskID
		taskIDs = append(taskIDs, id)
		// The prompt is open in the client's queue, marked as a task.
		r := requestOf(t, ctx, rec, id, false)
		if !slices.Contains(s.PendingRequests(), r) {
			t.Fatalf("the request of task %s is not pending", id)
		}

		o = callOutcome(t, ctx, s, "get_client_task", map[string]any{"taskId": id})
		var st mcp.Task
		if o.Error != nil || json.Unmarshal(o.OK, &st) != nil || st.Status != mcp.TaskStatusWorking {
			t.Fatalf("tasks/get while the prompt is open: %+v (%s)", o.Error, o.OK)
		}

		o = callOutcome(t, ctx, s, "cancel_client_task", map[string]any{"taskId": id})
		if o.Error != nil || json.Unmarshal(o.OK, &st) != nil || st.TaskID != id || st.Status != mcp.TaskStatusCancelled {
			t.Fatalf("tasks/cancel: %+v (%s)", o.Error, o.OK)
		}
		// The prompt leaves the queue with an event, so no front end keeps asking.
		if settled := requestOf(t, ctx, rec, id, true); settled != r {
			t.Fatalf("settled event for another request")
		}
		if !r.Withdrawn() {
			t.Errorf("the cancelled request does not report Withdrawn")
		}
		if slices.Contains(s.PendingRequests(), r) {
			t.Errorf("the cancelled request is still pending")
		}
		if err := r.Accept(acceptContent); err == nil {
			t.Errorf("answering a withdrawn request succeeded")
		}

		o = callOutcome(t, ctx, s, "get_client_task", map[string]any{"taskId": id})
		if o.Error != nil || json.Unmarshal(o.OK, &st) != nil || st.Status != mcp.TaskStatusCancelled {
			t.Errorf("tasks/get after cancel: %+v (%s)", o.Error, o.OK)
		}
		// A cancelled task has no result: mcpi answers tasks/result with -32603.
		o = callOutcome(t, ctx, s, "client_task_result", map[string]any{"taskId": id})
		if o.Error == nil || o.Error.Code != jsonrpc.CodeInternalError {
			t.Errorf("tasks/result of a cancelled task: want -32603, got %+v (%s)", o.Error, o.OK)
		}
		// Cancelling a terminal task is -32602.
		o = callOutcome(t, ctx, s, "cancel_client_task", map[string]any{"taskId": id})
		if o.Error == nil || o.Error.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("tasks/cancel of a cancelled task: want -32602, got %+v (%s)", o.Error, o.OK)
		}
	})

	t.Run("unknown task", func(t *testing.T) {
		for _, tool := range []string{"get_client_task", "client_task_result", "cancel_client_task"} {
			o := callOutcome(t, ctx, s, tool, map[string]any{"taskId": "no-such-task"})
			if o.Error == nil || o.Error.Code != jsonrpc.CodeInvalidParams {
				t.Errorf("%s of an unknown id: want -32602, got %+v (%s)", tool, o.Error, o.OK)
			}
		}
	})

	t.Run("list", func(t *testing.T) {
		o := callOutcome(t, ctx, s, "list_client_tasks", nil)
		var pages []mcp.ListTasksResult
		if o.Error != nil || json.Unmarshal(o.OK, &pages) != nil {
			t.Fatalf("tasks/list: %+v (%s)", o.Error, o.OK)
		}
		var listed []string
		for i, p := range pages {
			if len(p.Tasks) > receiverPageSize {
				t.Errorf("page %d holds %d tasks, more than the page size %d", i, len(p.Tasks), receiverPageSize)
			}
			if (p.NextCursor == "") != (i == len(pages)-1) {
				t.Errorf("page %d of %d: nextCursor %q", i+1, len(pages), p.NextCursor)
			}
			for _, task := range p.Tasks {
				listed = append(listed, task.TaskID)
			}
		}
		if !slices.Equal(listed, taskIDs) {
			t.Errorf("tasks/list over %d pages returned\n  %v\nwant every task, oldest first\n  %v", len(pages), listed, taskIDs)
		}
	})

	t.Run("status notifications", func(t *testing.T) {
		if len(taskIDs) < 5 {
			t.Skip("earlier subtests failed")
		}
		// Waits (in the server) for the last task's cancelled notification.
		var obs struct {
			StatusNotifications []map[string]any `json:"statusNotifications"`
			Errors              []string         `json:"errors"`
		}
		text := callText(t, ctx, s, "observed", map[string]any{"taskId": taskIDs[4], "status": "cancelled"})
		if err := json.Unmarshal([]byte(text), &obs); err != nil {
			t.Fatal(err)
		}
		final := map[string]string{}
		for _, n := range obs.StatusNotifications {
			if _, ok := n["_meta"]; ok {
				t.Errorf("a status notification carries _meta: %v", n)
			}
			final[n["taskId"].(string)] = n["status"].(string)
		}
		want := []string{"completed", "failed", "completed", "completed", "cancelled"}
		for i, id := range taskIDs {
			if final[id] != want[i] {
				t.Errorf("task %d (%s): last status notification the SDK accepted %q, want %q", i, id, final[id], want[i])
			}
		}
		if len(obs.Errors) > 0 {
			t.Errorf("the SDK reported errors:\n%s", strings.Join(obs.Errors, "\n"))
		}
	})

	// What the SDK put on the wire, as mcpi received it.
	t.Run("wire", func(t *testing.T) {
		gets := rec.requests(jsonrpc.Inbound, mcp.MethodTasksGet)
		if len(gets) == 0 {
			t.Fatal("the server never polled with tasks/get")
		}
		leaked := 0
		for _, g := range gets {
			if _, ok := paramsOf(t, g)["task"]; ok {
				leaked++
			}
		}
		// The SDK's *Stream helpers copy params.task into their tasks/get and
		// tasks/result; mcpi ignores unknown params (docs/ts-sdk-interop.md).
		if leaked == 0 {
			t.Errorf("no tasks/get carried params.task: the SDK changed; update docs/ts-sdk-interop.md")
		}
		for _, r := range rec.requests(jsonrpc.Inbound, mcp.MethodTasksResult) {
			resp := rec.responseTo(jsonrpc.Outbound, r.ID)
			if resp == nil || resp.Error != nil {
				continue
			}
			var res struct {
				Meta mcp.Meta `json:"_meta"`
			}
			if err := json.Unmarshal(resp.Result, &res); err != nil {
				t.Fatal(err)
			}
			if id, _ := res.Meta.RelatedTask(); id != paramsOf(t, r)["taskId"] {
				t.Errorf("tasks/result response without the related-task meta: %s", resp.Result)
			}
		}
		for _, n := range rec.requests(jsonrpc.Outbound, mcp.NotificationTasksStatus) {
			if strings.Contains(string(n.Params), mcp.MetaRelatedTask) {
				t.Errorf("status notification with related-task meta: %s", n.Params)
			}
		}
		t.Logf("%d tasks/get (%d with params.task), %d tasks/result, %d status notifications",
			len(gets), leaked, len(rec.requests(jsonrpc.Inbound, mcp.MethodTasksResult)),
			len(rec.requests(jsonrpc.Outbound, mcp.NotificationTasksStatus)))
	})
}

// mcpi's client as the REQUESTOR of tool tasks, with the TypeScript SDK server as the
// receiver (ts_task in ts/server.mjs, written on the SDK's low-level Server and its
// InMemoryTaskStore): the client must cope with what the SDK does.
func TestTSServerRunsToolTasks(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	s, rec := connectTSServer(t, ctx)
	t.Cleanup(func() { rec.logWire(t) })

	// askTimeout is the request timeout of ts_task's side-channel elicitation.
	const askTimeout = time.Second
	call := func(mode string) *mcp.CallToolParams {
		args := fmt.Sprintf(`{"mode":%q}`, mode)
		if mode == "ask" {
			args = fmt.Sprintf(`{"mode":"ask","timeoutMs":%d}`, askTimeout.Milliseconds())
		}
		return &mcp.CallToolParams{Name: "ts_task", Arguments: json.RawMessage(args)}
	}
	// run calls ts_task as a task and returns its events, from creation to the outcome.
	run := func(t *testing.T, mode string) []client.TaskEvent {
		t.Helper()
		var events []client.TaskEvent
		for e := range s.CallToolTask(ctx, call(mode), nil) {
			// CallToolTask ends with an undocumented event of kind "closed" and an empty
			// state after the outcome; skip it.
			if e.Kind == "closed" {
				continue
			}
			events = append(events, e)
		}
		if len(events) == 0 || events[0].Kind != client.TaskCreated {
			t.Fatalf("events %+v, want created first", events)
		}
		return events
	}
	last := func(events []client.TaskEvent) client.TaskEvent { return events[len(events)-1] }
	text := func(t *testing.T, r *mcp.CallToolResult) string {
		t.Helper()
		if r == nil || len(r.Content) != 1 {
			t.Fatalf("result %+v, want one text item", r)
		}
		return r.Content[0].Text
	}

	t.Run("completed before the CreateTaskResult left", func(t *testing.T) {
		events := run(t, "complete")
		created := events[0].State
		// No ttl asked: the SDK's store keeps the task forever (ttl null).
		if created.TTL != nil {
			t.Errorf("ttl %d, want null", *created.TTL)
		}
		if created.PollInterval == nil || *created.PollInterval != 50 {
			t.Errorf("pollInterval %v, want the 50 the tool asked of the store", created.PollInterval)
		}
		// 16 random bytes in hex.
		if !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(created.TaskID) {
			t.Errorf("task id %q", created.TaskID)
		}
		e := last(events)
		if e.Kind != client.TaskResult || text(t, e.Result) != "ts_task done" || e.State.Status != mcp.TaskStatusCompleted {
			t.Fatalf("outcome %+v", e)
		}
		if id, _ := e.Result.Meta.RelatedTask(); id != created.TaskID {
			t.Errorf("tasks/result without the related-task meta: %+v", e.Result.Meta)
		}
		// On the wire, the completed notification came before the CreateTaskResult.
		var noteAt, respAt int = -1, -1
		var callID jsonrpc.ID
		for i, ev := range rec.snapshot() {
			m, ok := ev.(*client.MessageEvent)
			if !ok {
				continue
			}
			switch msg := m.Message.(type) {
			case *jsonrpc.Request:
				if m.Dir == jsonrpc.Outbound && msg.Method == mcp.MethodToolsCall && strings.Contains(string(msg.Params), `"complete"`) {
					callID = msg.ID
				}
				if m.Dir == jsonrpc.Inbound && msg.Method == mcp.NotificationTasksStatus && strings.Contains(string(msg.Params), created.TaskID) && noteAt < 0 {
					noteAt = i
				}
			case *jsonrpc.Response:
				if m.Dir == jsonrpc.Inbound && callID.IsValid() && msg.ID == callID {
					respAt = i
				}
			}
		}
		if noteAt < 0 || respAt < 0 || noteAt > respAt {
			t.Errorf("status notification at %d, CreateTaskResult at %d: want the notification first (the SDK changed?)", noteAt, respAt)
		}
	})

	t.Run("isError", func(t *testing.T) {
		e := last(run(t, "isError"))
		// failed in tasks/get, and tasks/result returns the isError result as a success.
		if e.Kind != client.TaskResult || !e.Result.IsError || text(t, e.Result) != "ts_task failed on purpose" || e.State.Status != mcp.TaskStatusFailed {
			t.Fatalf("outcome %+v", e)
		}
	})

	t.Run("input_required side channel", func(t *testing.T) {
		events := run(t, "ask")
		id := events[0].State.TaskID
		var input *client.Request
		sawInputRequired := false
		for _, e := range events {
			if e.Kind == client.TaskInput {
				input = e.Request
			}
			if e.State.Status == mcp.TaskStatusInputRequired {
				sawInputRequired = true
			}
		}
		if input == nil || input.RelatedTask != id || input.Elicitation == nil {
			t.Fatalf("no side-channel elicitation linked to task %s: %+v", id, input)
		}
		if !sawInputRequired {
			t.Errorf("the task never showed input_required")
		}
		// The SDK's handler got mcpi's answer exactly, related-task meta included.
		e := last(events)
		if e.Kind != client.TaskResult {
			t.Fatalf("outcome %+v", e)
		}
		got, ok := strings.CutPrefix(text(t, e.Result), "ts_task got ")
		want := withRelatedTask(t, &mcp.ElicitResult{Action: mcp.ElicitActionAccept, Content: acceptContent}, id)
		if !ok || canon(t, []byte(got)) != want {
			t.Errorf("the SDK's handler got %s, want %s", got, want)
		}
		// The CreateTaskResult already showed input_required: the SDK's sendRequest set
		// it before the handler returned (docs/ts-sdk-interop.md).
		t.Logf("CreateTaskResult status: %s", events[0].State.Status)
		// The SDK held the side-channel request until mcpi called tasks/result, and mcpi's
		// answer carried the related-task meta.
		resultAt, requestAt := -1, -1
		for i, ev := range rec.snapshot() {
			m, ok := ev.(*client.MessageEvent)
			if !ok {
				continue
			}
			if r, ok := m.Message.(*jsonrpc.Request); ok {
				switch {
				case m.Dir == jsonrpc.Outbound && r.Method == mcp.MethodTasksResult && strings.Contains(string(r.Params), id) && resultAt < 0:
					resultAt = i
				case m.Dir == jsonrpc.Inbound && r.Method == mcp.MethodElicitationCreate && r.ID == input.ID:
					requestAt = i
				}
			}
		}
		if resultAt < 0 || requestAt < resultAt {
			t.Errorf("tasks/result sent at %d, side-channel request received at %d: want the request after", resultAt, requestAt)
		}
		for _, r := range rec.requests(jsonrpc.Inbound, mcp.MethodElicitationCreate) {
			if r.ID != input.ID {
				continue
			}
			if id2, _ := mcp.Meta(paramsOf(t, r)["_meta"].(map[string]any)).RelatedTask(); id2 != id {
				t.Errorf("side-channel request without the related-task meta: %s", r.Params)
			}
			resp := rec.responseTo(jsonrpc.Outbound, r.ID)
			if resp == nil || !strings.Contains(string(resp.Result), `"`+mcp.MetaRelatedTask+`":{"taskId":"`+id+`"}`) {
				t.Errorf("mcpi's answer without the related-task meta: %+v", resp)
			}
		}
		// The SDK never clears the timeout of a side-channel request: once it runs out,
		// long after the answer, it sends notifications/cancelled for the answered
		// request. mcpi ignores it and the session goes on.
		wctx, cancel := context.WithTimeout(ctx, askTimeout+5*time.Second)
		defer cancel()
		_, err := rec.waitFor(wctx, "notifications/cancelled for the answered elicitation", func(ev client.Event) bool {
			m, ok := ev.(*client.MessageEvent)
			if !ok || m.Dir != jsonrpc.Inbound {
				return false
			}
			n, ok := m.Message.(*jsonrpc.Request)
			if !ok || n.Method != "notifications/cancelled" {
				return false
			}
			var p struct {
				RequestID json.RawMessage `json:"requestId"`
			}
			return json.Unmarshal(n.Params, &p) == nil && canon(t, p.RequestID) == canon(t, input.ID)
		})
		if err != nil {
			t.Errorf("%v (the SDK changed? update docs/ts-sdk-interop.md)", err)
		}
		if err := s.Ping(ctx); err != nil {
			t.Errorf("ping after the late notifications/cancelled: %v", err)
		}
	})

	t.Run("cancel", func(t *testing.T) {
		task, err := s.StartToolTask(ctx, call("hold"), nil)
		if err != nil {
			t.Fatal(err)
		}
		id := task.ID()
		st, err := task.Cancel(ctx)
		if err != nil || st.Status != mcp.TaskStatusCancelled {
			t.Fatalf("cancel: %+v, %v", st, err)
		}
		if st.StatusMessage != "Client cancelled task execution." {
			t.Errorf("cancelled statusMessage %q", st.StatusMessage)
		}
		if _, err := task.Wait(ctx); err == nil || !strings.Contains(err.Error(), "cancelled") {
			t.Errorf("outcome of the cancelled task: %v", err)
		}
		// A cancelled task has no result in the SDK: -32603.
		if _, err := s.TaskResult(ctx, id); !errors.Is(err, jsonrpc.ErrInternal) {
			t.Errorf("tasks/result of the cancelled task: %v, want -32603", err)
		}
		// Cancelling did not stop the work: when it ends, storing its result throws.
		var o outcome
		if err := json.Unmarshal([]byte(callText(t, ctx, s, "release", map[string]any{"taskId": id})), &o); err != nil {
			t.Fatal(err)
		}
		if o.Error == nil || !strings.Contains(o.Error.Message, "terminal status 'cancelled'") {
			t.Errorf("the released work stored its result: %+v (%s)", o.Error, o.OK)
		}
		// The SDK sent no status notification for the cancel.
		for _, n := range rec.requests(jsonrpc.Inbound, mcp.NotificationTasksStatus) {
			if strings.Contains(string(n.Params), id) {
				t.Errorf("status notification for the cancelled task: %s", n.Params)
			}
		}
		// The task is still listed, cancelled.
		found := false
		for lt, err := range s.ServerTasks(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			if lt.TaskID == id {
				found = lt.Status == mcp.TaskStatusCancelled
			}
		}
		if !found {
			t.Errorf("tasks/list does not show task %s cancelled", id)
		}
	})

	t.Run("errors", func(t *testing.T) {
		if _, err := s.GetTask(ctx, "no-such-task"); !errors.Is(err, jsonrpc.ErrInvalidParams) {
			t.Errorf("tasks/get of an unknown id: %v, want -32602", err)
		}
		if _, err := s.TaskResult(ctx, "no-such-task"); !errors.Is(err, jsonrpc.ErrInvalidParams) {
			t.Errorf("tasks/result of an unknown id: %v, want -32602", err)
		}
		done := last(run(t, "complete")).State.TaskID
		if _, err := s.CancelTask(ctx, done); !errors.Is(err, jsonrpc.ErrInvalidParams) {
			t.Errorf("tasks/cancel of a completed task: %v, want -32602", err)
		}
		if _, err := s.ListTasks(ctx, &mcp.ListTasksParams{Cursor: "not-a-cursor"}); !errors.Is(err, jsonrpc.ErrInvalidParams) {
			t.Errorf("tasks/list with a bad cursor: %v, want -32602", err)
		}
	})

	t.Run("list pages", func(t *testing.T) {
		// The SDK's store pages by 10; make sure there are more.
		for range 11 {
			if _, err := s.StartToolTask(ctx, call("complete"), nil); err != nil {
				t.Fatal(err)
			}
		}
		first, err := s.ListTasks(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(first.Tasks) != 10 || first.NextCursor == "" {
			t.Errorf("first page: %d tasks, nextCursor %q; want 10 and a cursor", len(first.Tasks), first.NextCursor)
		}
		n := 0
		for _, err := range s.ServerTasks(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		if n < 11+5 {
			t.Errorf("tasks/list over all pages: %d tasks, want every task of the session", n)
		}
	})

	t.Run("wire", func(t *testing.T) {
		for _, n := range rec.requests(jsonrpc.Inbound, mcp.NotificationTasksStatus) {
			if strings.Contains(string(n.Params), mcp.MetaRelatedTask) {
				t.Errorf("status notification with related-task meta: %s", n.Params)
			}
		}
		// tasks/list and tasks/cancel results carry an empty _meta.
		for _, method := range []string{mcp.MethodTasksList, mcp.MethodTasksCancel} {
			for _, r := range rec.requests(jsonrpc.Outbound, method) {
				if resp := rec.responseTo(jsonrpc.Inbound, r.ID); resp != nil && resp.Error == nil &&
					!strings.Contains(string(resp.Result), `"_meta":{}`) {
					t.Errorf("%s result without the SDK's empty _meta (the SDK changed?): %s", method, resp.Result)
				}
			}
		}
	})
}
