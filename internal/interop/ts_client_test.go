package interop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/tasks"
	"github.com/mcpi-dev/mcpi/transport"
)

// mcpi's demo server as the RECEIVER of tool tasks, with the TypeScript SDK client
// (ts/client.mjs) as the requestor: callToolStream on the demo's task tools, over stdio
// (the mcpi binary, `mcpi serve demo`) and over Streamable HTTP (a demo server in this
// process). Each outcome is compared with what mcpi's own client gets from the same server.

// Arguments of the cases of ts/client.mjs, for mcpi's own client to make the same calls.
var tsClientCases = []struct {
	name, tool, args string
}{
	{"instant", demo.ToolInstantTask, `{}`},
	{"slow", demo.ToolSlowTask, `{"seconds":0.2,"steps":2}`},
	{"fail_isError", demo.ToolFailTask, `{"mode":"isError"}`},
	{"fail_error", demo.ToolFailTask, `{"mode":"error"}`},
	{"cancel", demo.ToolSlowTask, `{"seconds":600,"steps":2}`},
	{"ask", demo.ToolAskTask, `{}`},
}

// What ts/client.mjs answers to ask_task's side-channel requests.
const (
	tsElicitName  = "Grace Hopper"
	tsSamplingOut = "Hello, Grace Hopper!"
)

// tsLine is one line ts/client.mjs prints.
type tsLine struct {
	Case     string          `json:"case"`
	TaskID   string          `json:"taskId"`
	Type     string          `json:"type"`
	Task     *mcp.Task       `json:"task"`
	Result   json.RawMessage `json:"result"`
	Error    *jsonrpc.Error  `json:"error"`
	Outcome  *outcome        `json:"outcome"`
	Progress json.RawMessage `json:"progress"`
	Params   json.RawMessage `json:"params"`
	Dir      string          `json:"dir"`
	Message  json.RawMessage `json:"message"`
	Detail   string          `json:"detail"`
}

// runTSClient runs ts/client.mjs with args and returns its lines, once it has exited.
func runTSClient(t *testing.T, ctx context.Context, args ...string) []tsLine {
	t.Helper()
	node := needNode(t)
	cmd := exec.CommandContext(ctx, node, append([]string{filepath.Join(tsDir, "client.mjs")}, args...)...)
	cmd.Dir = tsDir
	cmd.Stderr = t.Output() // the client's and (over stdio) the server's stderr
	cmd.WaitDelay = 5 * time.Second
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var lines []tsLine
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		var l tsLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Errorf("ts/client.mjs printed a line that is not JSON: %q", sc.Text())
			continue
		}
		lines = append(lines, l)
	}
	if err := sc.Err(); err != nil {
		t.Errorf("reading ts/client.mjs: %v", err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("ts/client.mjs: %v (context: %v)", err, ctx.Err())
	}
	if len(lines) == 0 || lines[len(lines)-1].Type != "done" {
		t.Fatalf("ts/client.mjs did not finish (%d lines)", len(lines))
	}
	for _, l := range lines {
		switch l.Type {
		case "sdkError", "crash":
			t.Errorf("ts/client.mjs %s (case %q): %s", l.Type, l.Case, l.Detail)
		}
	}
	return lines
}

// reference is what mcpi's own client got for one case.
type reference struct {
	result *mcp.CallToolResult
	err    error
	final  mcp.Task
}

// mcpiReference makes the calls of tsClientCases with mcpi's client on a session of the
// same server, answering ask_task's requests as ts/client.mjs does.
func mcpiReference(t *testing.T, ctx context.Context, connect func(c *client.Client) (*client.Session, error)) map[string]reference {
	t.Helper()
	c := client.New(mcp.Implementation{Name: "mcpi-interop", Version: "0.0.1"}, &client.Options{
		Logger: testLogger(t),
		// The TypeScript SDK 1.x client speaks 2025-11-25; the reference is made in that era.
		ProtocolVersion: mcp.LatestProtocolVersion,
		OnRequest: func(_ context.Context, r *client.Request) {
			switch {
			case r.Elicitation != nil:
				_ = r.Accept(map[string]any{"name": tsElicitName})
			case r.Sampling != nil:
				_ = r.Respond(&mcp.CreateMessageResult{Role: mcp.RoleAssistant,
					Content: []mcp.Content{mcp.TextContent(tsSamplingOut)}, Model: "mcpi-reference", StopReason: "endTurn"})
			}
		},
	})
	s, err := connect(c)
	if err != nil {
		t.Fatalf("mcpi's client: %v", err)
	}
	defer s.Close()
	refs := map[string]reference{}
	for _, tc := range tsClientCases {
		task, err := s.StartToolTask(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: json.RawMessage(tc.args)}, nil)
		if err != nil {
			t.Fatalf("mcpi's client, %s: %v", tc.name, err)
		}
		if tc.name == "cancel" {
			if _, err := task.Cancel(ctx); err != nil {
				t.Fatalf("mcpi's client, cancelling: %v", err)
			}
		}
		res, err := task.Wait(ctx)
		if ctx.Err() != nil {
			t.Fatalf("mcpi's client, %s: %v", tc.name, ctx.Err())
		}
		refs[tc.name] = reference{result: res, err: err, final: task.State()}
	}
	return refs
}

func TestTSClientCallsDemoTaskTools(t *testing.T) {
	t.Parallel()
	t.Run("stdio", func(t *testing.T) {
		t.Parallel()
		needNode(t)
		ctx := testContext(t)
		bin := mcpiBinary(t)
		lines := runTSClient(t, ctx, "--stdio", bin, "serve", "demo")
		refs := mcpiReference(t, ctx, func(c *client.Client) (*client.Session, error) {
			return c.Connect(ctx, &transport.Command{Path: bin, Args: []string{"serve", "demo"}, Logger: testLogger(t)})
		})
		checkTSClient(t, lines, refs, demo.DefaultTaskPollInterval)
	})

	t.Run("http", func(t *testing.T) {
		t.Parallel()
		needNode(t)
		ctx := testContext(t)
		const poll = 50 * time.Millisecond
		srv := demo.New(&demo.Options{Tasks: &tasks.Options{PollInterval: poll}, Logger: testLogger(t)})
		h := srv.HTTPHandler(nil)
		hs := httptest.NewServer(h) // on 127.0.0.1
		t.Cleanup(func() {
			h.Close()
			hs.Close()
		})
		url := hs.URL + "/mcp"
		lines := runTSClient(t, ctx, "--http", url)
		refs := mcpiReference(t, ctx, func(c *client.Client) (*client.Session, error) {
			return c.Connect(ctx, &transport.HTTPClient{URL: url})
		})
		checkTSClient(t, lines, refs, poll)
	})
}

// withoutRelatedTask returns a result's JSON without the related-task meta, after checking
// that the meta names taskID.
func withoutRelatedTask(t *testing.T, raw json.RawMessage, taskID string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("result %s: %v", raw, err)
	}
	meta, _ := m["_meta"].(map[string]any)
	rt, _ := meta[mcp.MetaRelatedTask].(map[string]any)
	if rt == nil || rt["taskId"] != taskID {
		t.Errorf("result without the related-task meta of %s: %s", taskID, raw)
	}
	delete(meta, mcp.MetaRelatedTask)
	if len(meta) == 0 {
		delete(m, "_meta")
	}
	return canon(t, m)
}

func resultJSON(t *testing.T, r *mcp.CallToolResult) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkTSClient checks what ts/client.mjs received, case by case, against the spec and
// against mcpi's own client on the same server.
func checkTSClient(t *testing.T, lines []tsLine, refs map[string]reference, poll time.Duration) {
	t.Helper()
	byCase := map[string][]tsLine{}
	caseOf := map[string]string{} // task id -> case
	var wire []tsLine
	for _, l := range lines {
		if l.Type == "taskCreated" && l.Task != nil {
			caseOf[l.Task.TaskID] = l.Case
		}
	}
	for _, l := range lines {
		switch {
		case l.Type == "wire":
			wire = append(wire, l)
			continue
		case l.Case == "" && l.TaskID != "":
			// A side-channel request that overtook its task's taskCreated.
			l.Case = caseOf[l.TaskID]
		}
		byCase[l.Case] = append(byCase[l.Case], l)
	}
	for _, l := range byCase[""] {
		if l.Type != "done" {
			t.Errorf("a line of no case: %+v", l)
		}
	}

	for _, tc := range tsClientCases {
		t.Run(tc.name, func(t *testing.T) {
			ls := byCase[tc.name]
			ref := refs[tc.name]
			var stream, progress []tsLine
			var cancel, fetched *tsLine
			for i, l := range ls {
				switch l.Type {
				case "taskCreated", "taskStatus", "result", "error":
					stream = append(stream, l)
				case "progress":
					progress = append(progress, l)
				case "cancel":
					cancel = &ls[i]
				case "fetched":
					fetched = &ls[i]
				}
			}
			id := checkTSStream(t, stream, poll)
			if id == "" {
				return
			}
			last := stream[len(stream)-1]
			final := stream[len(stream)-2].Task
			switch {
			case tc.name == "ask":
				// The SDK's stream stops polling at input_required and waits in
				// tasks/result (docs/ts-sdk-interop.md); mcpi's server answers it once the
				// task is done.
				if final.Status != mcp.TaskStatusInputRequired && final.Status != mcp.TaskStatusCompleted {
					t.Errorf("last polled status %q, want input_required (or completed)", final.Status)
				}
			case ref.final.Status != final.Status:
				t.Errorf("final status %q; mcpi's client saw %q", final.Status, ref.final.Status)
			}

			switch tc.name {
			case "instant", "slow", "ask":
				if last.Type != "result" {
					t.Fatalf("stream ended with %+v, want a result", last)
				}
				if ref.err != nil {
					t.Fatalf("mcpi's client: %v", ref.err)
				}
				got := withoutRelatedTask(t, last.Result, id)
				want := withoutRelatedTask(t, resultJSON(t, ref.result), ref.final.TaskID)
				if tc.name == "ask" {
					checkAsk(t, ls, last.Result, ref.result, id)
					// Once it has called tasks/result, the stream polls no more.
					if n := pollsAfterResult(t, wire, id); n != 0 {
						t.Errorf("%d tasks/get after tasks/result: the SDK changed; update docs/ts-sdk-interop.md", n)
					}
				} else if got != want {
					t.Errorf("the TS client got\n  %s\nmcpi's client got\n  %s", got, want)
				}
			case "fail_isError", "fail_error", "cancel":
				// The SDK's stream ends a failed or cancelled task with a -32603 of its
				// own, without asking tasks/result (docs/ts-sdk-interop.md).
				word := map[bool]string{true: "was cancelled", false: "failed"}[tc.name == "cancel"]
				if last.Type != "error" || last.Error == nil || last.Error.Code != jsonrpc.CodeInternalError ||
					last.Error.Message != fmt.Sprintf("MCP error -32603: Task %s %s", id, word) {
					t.Errorf("stream ended with %+v, want the SDK's local -32603 \"Task %s %s\"", last, id, word)
				}
				if fetched == nil || fetched.Outcome == nil {
					t.Fatalf("no tasks/result after the stream ended")
				}
			}

			switch tc.name {
			case "slow":
				checkProgress(t, progress, id)
				// The statusMessage follows the steps; the SDK's stream polls too seldom
				// to see every step, the status notifications carry each.
				var steps []string
				for _, n := range wireNotifications(t, wire, mcp.NotificationTasksStatus) {
					var st mcp.Task
					if err := json.Unmarshal(n, &st); err != nil {
						t.Fatal(err)
					}
					if st.TaskID == id && st.Status == mcp.TaskStatusWorking {
						steps = append(steps, st.StatusMessage)
					}
				}
				if want := []string{"started: 2 steps", "step 1 of 2", "step 2 of 2"}; !slices.Equal(steps, want) {
					t.Errorf("working status notifications with messages %q, want %q", steps, want)
				}
			case "fail_isError":
				// tasks/result returns the isError result as a success, exactly as mcpi's
				// client got it; the status is failed with the tool's text as message.
				if fetched.Outcome.Error != nil {
					t.Fatalf("tasks/result: %+v", fetched.Outcome.Error)
				}
				if ref.err != nil {
					t.Fatalf("mcpi's client: %v", ref.err)
				}
				got := withoutRelatedTask(t, fetched.Outcome.OK, id)
				want := withoutRelatedTask(t, resultJSON(t, ref.result), ref.final.TaskID)
				if got != want || !ref.result.IsError {
					t.Errorf("tasks/result\n  %s\nmcpi's client got\n  %s", got, want)
				}
				if final.StatusMessage != demo.FailTaskText {
					t.Errorf("failed statusMessage %q, want %q", final.StatusMessage, demo.FailTaskText)
				}
			case "fail_error":
				// The JSON-RPC error, exactly, on the wire and in mcpi's client; the SDK's
				// McpError prefixes its message.
				want := &jsonrpc.Error{Code: demo.FailTaskCode, Message: demo.FailTaskMessage, Data: json.RawMessage(demo.FailTaskData)}
				var refErr *jsonrpc.Error
				if !errors.As(ref.err, &refErr) || canon(t, refErr) != canon(t, want) {
					t.Errorf("mcpi's client got %v, want %+v", ref.err, want)
				}
				e := fetched.Outcome.Error
				if e == nil || e.Code != want.Code || e.Message != "MCP error -32050: "+want.Message || canon(t, e.Data) != canon(t, want.Data) {
					t.Errorf("tasks/result as the SDK reports it: %+v (%s)", e, fetched.Outcome.OK)
				}
				if resp := wireResponse(t, wire, "tasks/result", id); resp == nil || resp.Error == nil || canon(t, resp.Error) != canon(t, want) {
					t.Errorf("tasks/result on the wire: %+v, want exactly %+v", resp, want)
				}
			case "cancel":
				if cancel == nil || cancel.Outcome == nil || cancel.Outcome.Error != nil {
					t.Fatalf("tasks/cancel: %+v", cancel)
				}
				var st mcp.Task
				if err := json.Unmarshal(cancel.Outcome.OK, &st); err != nil || st.TaskID != id || st.Status != mcp.TaskStatusCancelled {
					t.Errorf("tasks/cancel answered %s, want the task in cancelled", cancel.Outcome.OK)
				}
				// A cancelled task has no result: -32603 from mcpi.
				if e := fetched.Outcome.Error; e == nil || e.Code != jsonrpc.CodeInternalError {
					t.Errorf("tasks/result of the cancelled task: %+v (%s), want -32603", e, fetched.Outcome.OK)
				}
			}
		})
	}

	t.Run("wire", func(t *testing.T) { checkTSClientWire(t, wire) })
}

// checkTSStream checks a callToolStream sequence: taskCreated (working, the server's
// pollInterval, a ttl), taskStatus of that task only in legal order ending terminal or
// input_required, then one result or error. It returns the task id ("" after a failure).
func checkTSStream(t *testing.T, stream []tsLine, poll time.Duration) string {
	t.Helper()
	if len(stream) < 3 || stream[0].Type != "taskCreated" || stream[0].Task == nil {
		t.Errorf("want taskCreated, taskStatus..., result|error; got %+v", stream)
		return ""
	}
	created := *stream[0].Task
	if created.Status != mcp.TaskStatusWorking || created.TTL == nil || created.PollInterval == nil ||
		*created.PollInterval != poll.Milliseconds() || len(created.TaskID) < 22 {
		t.Errorf("CreateTaskResult task %+v", created)
	}
	prev := mcp.TaskStatusWorking
	for _, l := range stream[1 : len(stream)-1] {
		if l.Type != "taskStatus" || l.Task == nil || l.Task.TaskID != created.TaskID {
			t.Errorf("want taskStatus of %s, got %+v", created.TaskID, l)
			return ""
		}
		if l.Task.Status != prev && !mcp.ValidTransition(prev, l.Task.Status) {
			t.Errorf("illegal transition %s -> %s", prev, l.Task.Status)
		}
		prev = l.Task.Status
	}
	if !prev.IsTerminal() && prev != mcp.TaskStatusInputRequired {
		t.Errorf("the stream stopped polling at %q", prev)
	}
	if last := stream[len(stream)-1]; last.Type != "result" && last.Type != "error" {
		t.Errorf("last stream message %+v", last)
		return ""
	}
	return created.TaskID
}

// checkProgress checks slow_task's progress as the SDK's onprogress got it: every step,
// in order, with the total, tied to the task by the related-task meta.
func checkProgress(t *testing.T, progress []tsLine, taskID string) {
	t.Helper()
	var got []float64
	for _, l := range progress {
		var p mcp.ProgressNotificationParams
		if err := json.Unmarshal(l.Progress, &p); err != nil {
			t.Fatal(err)
		}
		got = append(got, p.Progress)
		if p.Total == nil || *p.Total != 2 || p.Message == "" {
			t.Errorf("progress %s: want total 2 and a message", l.Progress)
		}
		if id, _ := p.Meta.RelatedTask(); id != taskID {
			t.Errorf("progress %s: related-task %q, want %q", l.Progress, id, taskID)
		}
	}
	if fmt.Sprint(got) != "[0 1 2]" {
		t.Errorf("progress values %v, want [0 1 2]", got)
	}
}

// checkAsk checks ask_task: the side-channel elicitation and sampling reached the TS
// client tagged with the task, its answers made the round trip, and (an SDK departure)
// its answers carried no related-task meta.
func checkAsk(t *testing.T, ls []tsLine, raw json.RawMessage, ref *mcp.CallToolResult, taskID string) {
	t.Helper()
	kinds := map[string]bool{}
	for _, l := range ls {
		if l.Type != "elicitation" && l.Type != "sampling" {
			continue
		}
		kinds[l.Type] = true
		var p struct {
			Meta mcp.Meta `json:"_meta"`
		}
		if err := json.Unmarshal(l.Params, &p); err != nil {
			t.Fatal(err)
		}
		if id, _ := p.Meta.RelatedTask(); id != taskID {
			t.Errorf("side-channel %s without the related-task meta of %s: %s", l.Type, taskID, l.Params)
		}
	}
	if !kinds["elicitation"] || !kinds["sampling"] {
		t.Errorf("side-channel requests seen: %v, want elicitation and sampling", kinds)
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	var got, want demo.AskTaskAnswer
	if err := json.Unmarshal(res.StructuredContent, &got); err != nil {
		t.Fatalf("ask_task structured content %s: %v", res.StructuredContent, err)
	}
	if err := json.Unmarshal(ref.StructuredContent, &want); err != nil {
		t.Fatalf("mcpi's ask_task structured content %s: %v", ref.StructuredContent, err)
	}
	if got.Name != tsElicitName || got.Model != tsSamplingOut || want.Name != tsElicitName || want.Model != tsSamplingOut {
		t.Errorf("ask_task answers: TS client %+v, mcpi's client %+v", got, want)
	}
	// mcpi's client tags its side-channel answers with the task; the SDK's client does not.
	if want.ElicitationRelatedTask == "" || want.SamplingRelatedTask == "" {
		t.Errorf("mcpi's client answered without the related-task meta: %+v", want)
	}
	if got.ElicitationRelatedTask != "" || got.SamplingRelatedTask != "" {
		t.Errorf("the SDK's answers now carry the related-task meta (%+v): the SDK changed; update docs/ts-sdk-interop.md", got)
	}
}

// wireResponse finds the response the TS client received to its method request about
// taskID.
func wireResponse(t *testing.T, wire []tsLine, method, taskID string) *jsonrpc.Response {
	t.Helper()
	var ids []string
	for _, l := range wire {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				TaskID string `json:"taskId"`
			} `json:"params"`
			Result json.RawMessage `json:"result"`
			Error  *jsonrpc.Error  `json:"error"`
		}
		if err := json.Unmarshal(l.Message, &m); err != nil {
			t.Fatal(err)
		}
		switch {
		case l.Dir == "out" && m.Method == method && m.Params.TaskID == taskID:
			ids = append(ids, string(m.ID))
		case l.Dir == "in" && m.Method == "" && len(ids) > 0 && string(m.ID) == ids[len(ids)-1]:
			return &jsonrpc.Response{Result: m.Result, Error: m.Error}
		}
	}
	return nil
}

// pollsAfterResult counts the tasks/get of taskID the TS client sent after its first
// tasks/result of it.
func pollsAfterResult(t *testing.T, wire []tsLine, taskID string) int {
	t.Helper()
	resulting, n := false, 0
	for _, l := range wire {
		var m struct {
			Method string `json:"method"`
			Params struct {
				TaskID string `json:"taskId"`
			} `json:"params"`
		}
		if err := json.Unmarshal(l.Message, &m); err != nil {
			t.Fatal(err)
		}
		if l.Dir != "out" || m.Params.TaskID != taskID {
			continue
		}
		switch m.Method {
		case mcp.MethodTasksResult:
			resulting = true
		case mcp.MethodTasksGet:
			if resulting {
				n++
			}
		}
	}
	if !resulting {
		t.Errorf("no tasks/result of task %s", taskID)
	}
	return n
}

// wireNotifications returns the params of the notifications of one method the TS client
// received, in order.
func wireNotifications(t *testing.T, wire []tsLine, method string) []json.RawMessage {
	t.Helper()
	var out []json.RawMessage
	for _, l := range wire {
		var m struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal(l.Message, &m); err != nil {
			t.Fatal(err)
		}
		if l.Dir == "in" && m.Method == method {
			out = append(out, m.Params)
		}
	}
	return out
}

// checkTSClientWire checks the raw traffic of the TS client: what the spec asks of mcpi's
// server, and the SDK departures the docs describe.
func checkTSClientWire(t *testing.T, wire []tsLine) {
	t.Helper()
	leaks, tokens, gets, notes := 0, 0, 0, 0
	for _, l := range wire {
		var m struct {
			Method string         `json:"method"`
			Params map[string]any `json:"params"`
		}
		if err := json.Unmarshal(l.Message, &m); err != nil {
			t.Fatal(err)
		}
		switch {
		case l.Dir == "out" && (m.Method == mcp.MethodTasksGet || m.Method == mcp.MethodTasksResult):
			gets++
			if _, ok := m.Params["task"]; ok {
				leaks++
			}
			if meta, ok := m.Params["_meta"].(map[string]any); ok && meta["progressToken"] != nil {
				tokens++
			}
		case l.Dir == "in" && m.Method == mcp.NotificationTasksStatus:
			notes++
			if _, ok := m.Params["_meta"]; ok {
				t.Errorf("status notification with _meta: %s", l.Message)
			}
		case l.Dir == "in" && m.Method == "" && bytes.Contains(l.Message, []byte(`"result":{"taskId"`)):
			// A tasks/get or tasks/cancel result: no related-task meta (SHOULD NOT).
			if bytes.Contains(l.Message, []byte(mcp.MetaRelatedTask)) {
				t.Errorf("tasks/get or tasks/cancel result with related-task meta: %s", l.Message)
			}
		}
	}
	if leaks == 0 {
		t.Errorf("no tasks/get or tasks/result carried params.task: the SDK changed; update docs/ts-sdk-interop.md")
	}
	// With onprogress (the slow case), each poll of the stream carries a progress token of
	// its own.
	if tokens == 0 {
		t.Errorf("no tasks/get or tasks/result carried _meta.progressToken: the SDK changed; update docs/ts-sdk-interop.md")
	}
	if notes == 0 {
		t.Errorf("the server sent no notifications/tasks/status")
	}
	t.Logf("%d tasks/get+tasks/result (%d with params.task, %d with a progress token), %d status notifications received", gets, leaks, tokens, notes)
	if os.Getenv(envWire) == "1" {
		for _, l := range wire {
			t.Logf("%s %s", l.Dir, l.Message)
		}
	}
}
