package taskview

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/cli/iostreams"
	"github.com/mcpi-dev/mcpi/internal/scripted"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/transport"
)

func ptr[T any](v T) *T { return &v }

func TestLine(t *testing.T) {
	tests := []struct {
		line Line
		want string
	}{
		{Line{}, "… starting  0ms  0 polls"},
		{Line{Status: mcp.TaskStatusWorking, Message: "step 2 of 4", Progress: ptr(2.0), Total: ptr(4.0), Elapsed: 1200 * time.Millisecond, Polls: 1},
			"◐ working  step 2 of 4  [██████████░░░░░░░░░░] 50%  1.2s  1 poll"},
		{Line{Status: mcp.TaskStatusWorking, ProgressMessage: "loading", Progress: ptr(7.0), Elapsed: 75 * time.Second, Polls: 3},
			"◐ working  loading  progress 7  1m15s  3 polls"},
		{Line{Status: mcp.TaskStatusInputRequired, Message: "waiting\nfor input", Elapsed: 12 * time.Second},
			"? input_required  waiting for input  12s  0 polls"},
		{Line{Status: mcp.TaskStatusCompleted, Progress: ptr(9.0), Total: ptr(4.0), Elapsed: 2 * time.Hour},
			"✓ completed  [████████████████████] 100%  2h00m  0 polls"},
		{Line{Status: mcp.TaskStatusFailed}, "✗ failed  0ms  0 polls"},
		{Line{Status: mcp.TaskStatusCancelled}, "⊘ cancelled  0ms  0 polls"},
	}
	for _, tt := range tests {
		if got := tt.line.String(); got != tt.want {
			t.Errorf("got  %q\nwant %q", got, tt.want)
		}
	}
}

// A status is the server's text, like the message: one it made up (a client keeps
// following a task whose status it does not know) is shown, not obeyed, wherever the
// line is printed (the final line of "tasks watch" goes to stdout as it is).
func TestLineOfHostileStatus(t *testing.T) {
	got := Line{Status: "\x1b]0;pwned\x07\x1b[2J", Message: "\x1b[31m"}.String()
	if strings.ContainsAny(got, "\x1b\x07") {
		t.Errorf("the line carries control characters: %q", got)
	}
	if want := "· ␛]0;pwned␇␛[2J  ␛[31m  0ms  0 polls"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// The --json field names are a promise to scripts.
func TestEventJSON(t *testing.T) {
	at := time.Date(2026, 8, 1, 10, 0, 0, 0, time.UTC)
	st := mcp.Task{TaskID: "t1", Status: mcp.TaskStatusWorking, CreatedAt: "2026-08-01T10:00:00Z", LastUpdatedAt: "2026-08-01T10:00:00Z", TTL: ptr[int64](1000), PollInterval: ptr[int64](500)}
	tests := []struct {
		e    client.TaskEvent
		want string
	}{
		{client.TaskEvent{At: client.At{Time: at}, Kind: client.TaskCreated, State: st},
			`{"event":"created","time":"2026-08-01T10:00:00Z","task":{"taskId":"t1","status":"working","createdAt":"2026-08-01T10:00:00Z","lastUpdatedAt":"2026-08-01T10:00:00Z","ttl":1000,"pollInterval":500}}`},
		{client.TaskEvent{At: client.At{Time: at}, Kind: client.TaskStatus, State: st, Dropped: 42},
			`{"event":"status","time":"2026-08-01T10:00:00Z","task":{"taskId":"t1","status":"working","createdAt":"2026-08-01T10:00:00Z","lastUpdatedAt":"2026-08-01T10:00:00Z","ttl":1000,"pollInterval":500},"dropped":42}`},
		{client.TaskEvent{At: client.At{Time: at}, Kind: client.TaskProgress, Progress: &mcp.ProgressNotificationParams{Progress: 1, Total: ptr(2.0), Message: "half"}},
			`{"event":"progress","time":"2026-08-01T10:00:00Z","progress":{"progress":1,"total":2,"message":"half"}}`},
		{client.TaskEvent{At: client.At{Time: at}, Kind: client.TaskResult, Result: &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("ok")}}},
			`{"event":"result","time":"2026-08-01T10:00:00Z","result":{"content":[{"type":"text","text":"ok"}]}}`},
		{client.TaskEvent{At: client.At{Time: at}, Kind: client.TaskError, Err: &jsonrpc.Error{Code: -32050, Message: "boom", Data: json.RawMessage(`{"x":1}`)}},
			`{"event":"error","time":"2026-08-01T10:00:00Z","error":{"code":-32050,"message":"boom","data":{"x":1}}}`},
		{client.TaskEvent{At: client.At{Time: at}, Kind: client.TaskError, Err: errors.New("task t1 was cancelled")},
			`{"event":"error","time":"2026-08-01T10:00:00Z","error":{"message":"task t1 was cancelled"}}`},
		{client.TaskEvent{At: client.At{Time: at}, Kind: client.TaskGone, Err: client.ErrTaskGone},
			`{"event":"gone","time":"2026-08-01T10:00:00Z","error":{"message":"the task expired or is unknown to the server"}}`},
		// A task mcpi lost track of is not the task's failure: a "lost" line, with the
		// last poll's error.
		{client.TaskEvent{At: client.At{Time: at}, Kind: client.TaskError, State: st, Err: &client.TaskLostError{TaskID: "t1", Polls: 4,
			Err: fmt.Errorf("tasks/get: %w", &jsonrpc.Error{Code: -32603, Message: "database down"})}},
			`{"event":"lost","time":"2026-08-01T10:00:00Z","task":{"taskId":"t1","status":"working","createdAt":"2026-08-01T10:00:00Z","lastUpdatedAt":"2026-08-01T10:00:00Z","ttl":1000,"pollInterval":500},"error":{"code":-32603,"message":"database down"},"lost":{"reason":"errorAnswers","polls":4}}`},
		{client.TaskEvent{At: client.At{Time: at}, Kind: client.TaskError, Err: &client.TaskLostError{TaskID: "t1", Polls: 4,
			Err: fmt.Errorf("tasks/get: %w: dial tcp: connection refused", transport.ErrUnreachable)}},
			`{"event":"lost","time":"2026-08-01T10:00:00Z","error":{"message":"the server is no longer reachable"},"lost":{"reason":"noAnswer","polls":4}}`},
		{client.TaskEvent{At: client.At{Time: at}, Kind: client.TaskError, Err: fmt.Errorf("following task t1: %w", fmt.Errorf("%w: %w",
			transport.ErrSessionExpired, &jsonrpc.Error{Code: -32001, Message: "session not found"}))},
			`{"event":"lost","time":"2026-08-01T10:00:00Z","error":{"message":"the server ended the session"},"lost":{"reason":"sessionEnded"}}`},
	}
	for _, tt := range tests {
		ev, ok := FromTaskEvent(tt.e)
		b, _ := json.Marshal(ev)
		if !ok || string(b) != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.e.Kind, b, tt.want)
		}
	}
	if _, ok := FromTaskEvent(client.TaskEvent{Kind: "closed"}); ok {
		t.Error("the end of the stream has a line")
	}
}

func TestLive(t *testing.T) {
	ios, _, _, errOut := iostreams.Test()
	ios.SetStderrTTY(true)
	start := time.Date(2026, 8, 1, 10, 0, 0, 0, time.UTC)
	now := start
	l := NewLive(ios, start, func() time.Time { return now }, -1)
	now = now.Add(1500 * time.Millisecond)
	l.Observe(client.TaskEvent{Kind: client.TaskStatus, State: mcp.Task{TaskID: "t", Status: mcp.TaskStatusWorking, StatusMessage: "step 1 of 2"}})
	l.Observe(client.TaskEvent{Kind: client.TaskProgress, State: mcp.Task{TaskID: "t", Status: mcp.TaskStatusWorking, StatusMessage: "step 1 of 2"},
		Progress: &mcp.ProgressNotificationParams{Progress: 1, Total: ptr(2.0)}})
	resume := ios.SuspendStatusLine()
	l.Observe(client.TaskEvent{Kind: client.TaskStatus, State: mcp.Task{TaskID: "t", Status: mcp.TaskStatusInputRequired}})
	before := errOut.Len()
	if l.Text() == "" || errOut.Len() != before {
		t.Error("drawn while suspended")
	}
	resume()
	l.Observe(client.TaskEvent{Kind: client.TaskStatus, State: mcp.Task{TaskID: "t", Status: mcp.TaskStatusCompleted}, Progress: nil})
	l.Stop(true)
	out := errOut.String()
	for _, want := range []string{
		"\r\033[K◐ working  step 1 of 2  1.5s  0 polls",
		"\r\033[K◐ working  step 1 of 2  [██████████░░░░░░░░░░] 50%  1.5s  0 polls",
		"\r\033[K? input_required",
		"\r\033[K✓ completed  [██████████░░░░░░░░░░] 50%  1.5s  0 polls\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stderr lacks %q:\n%q", want, out)
		}
	}
	// Not a terminal: nothing is drawn.
	ios2, _, _, errOut2 := iostreams.Test()
	l2 := NewLive(ios2, start, nil, -1)
	l2.Update(func(l *Line) { l.Status = mcp.TaskStatusWorking })
	l2.Stop(true)
	if errOut2.Len() != 0 {
		t.Errorf("drew on a non-terminal: %q", errOut2)
	}
}

// An error event carries a code only when the server gave the error: 2026-07-28 input
// the client refused is the client's, though a JSON-RPC error (-1) says so inside.
func TestErrorOfWhoseError(t *testing.T) {
	for _, tt := range []struct {
		err  error
		code *int64
		msg  string
	}{
		{jsonrpc.NewError(-32050, "boom"), ptr(int64(-32050)), "boom"},
		{&client.InputError{Key: "k", Method: "sampling/createMessage", Err: jsonrpc.NewError(-1, "the user rejected it")}, nil,
			"the server's sampling/createMessage request was not answered, so the call ended: the user rejected it"},
		{errors.New("lost"), nil, "lost"},
	} {
		got := ErrorOf(tt.err)
		if (got.Code == nil) != (tt.code == nil) || got.Code != nil && *got.Code != *tt.code || got.Message != tt.msg {
			t.Errorf("ErrorOf(%v) = %+v (code %v), want code %v, %q", tt.err, got, got.Code, tt.code, tt.msg)
		}
	}
}

// The count of polls moves on at each redraw, not only when the task changes: a task
// that stays working for a while is polled all along, and no event says so.
func TestLivePollsBetweenEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := scripted.New(t)
		f.Answer(mcp.MethodToolsCall, string(scripted.TaskJSON("task", "t1", mcp.TaskStatusWorking, 1000, "")))
		f.On(mcp.MethodTasksGet, func(context.Context, *jsonrpc.Request) (any, error) {
			return scripted.TaskJSON("complete", "t1", mcp.TaskStatusWorking, 1000, ""), nil
		})
		ctx := context.Background()
		sess := f.MustConnect(ctx, nil)
		task, err := sess.StartToolTask(ctx, &mcp.CallToolParams{Name: "slow"}, &client.CallOptions{SendAnyway: true})
		if err != nil {
			t.Fatal(err)
		}
		ios, _, _, errOut := iostreams.Test()
		ios.SetStderrTTY(true)
		l := NewLive(ios, time.Now(), nil, 100*time.Millisecond)
		l.Observe(client.TaskEvent{Kind: client.TaskCreated, Task: task, State: task.State()})
		time.Sleep(3500 * time.Millisecond)
		synctest.Wait()
		polls := task.Polls()
		if polls < 3 {
			t.Fatalf("the task was polled %d times in 3.5s, want 3 or more", polls)
		}
		want := fmt.Sprintf("%d polls", polls)
		if got := l.Text(); !strings.Contains(got, want) {
			t.Errorf("the line reads %q, want %q", got, want)
		}
		l.Stop(false)
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("no redraw showed %q:\n%q", want, errOut)
		}
		sess.Close()
	})
}

// The lines of a stream are in the order written, and their times never go back: a
// progress notification that arrived before the answer that created its task is told
// after "created", at its time or later.
func TestJSONWriterTimesDoNotGoBack(t *testing.T) {
	created := time.Date(2026, 8, 1, 10, 0, 0, 500_000_000, time.UTC)
	var out bytes.Buffer
	w := NewJSONWriter(&out)
	for _, e := range []client.TaskEvent{
		{At: client.At{Time: created}, Kind: client.TaskCreated},
		{At: client.At{Time: created.Add(-time.Millisecond)}, Kind: client.TaskProgress, Progress: &mcp.ProgressNotificationParams{Progress: 1}},
		{At: client.At{Time: created.Add(-time.Second)}, Kind: client.TaskStatus},
		{At: client.At{Time: created.Add(time.Second)}, Kind: client.TaskStatus},
	} {
		ev, _ := FromTaskEvent(e)
		if err := w.Write(ev); err != nil {
			t.Fatal(err)
		}
	}
	var last time.Time
	for line := range strings.Lines(out.String()) {
		var ev Event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatal(err)
		}
		at, err := time.Parse(time.RFC3339Nano, ev.Time)
		if err != nil {
			t.Fatal(err)
		}
		if at.Before(last) {
			t.Errorf("the %s event's time goes back, before the line above it:\n%s", ev.Event, out.String())
		}
		last = at
	}
}
