package tasks_test

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/tasks"
)

func elicit(msg string) mcp.InputRequest {
	return mcp.InputRequest{Method: mcp.MethodElicitationCreate, Params: json.RawMessage(`{"message":"` + msg + `"}`)}
}

// One engine, one record: a task records its dialect, and the other dialect's methods
// refuse it with -32602 naming the era it was made in.
func TestDialectsStayApart(t *testing.T) {
	m := tasks.New(tasks.Options{})
	defer m.Close()
	ext, err := m.DeferIn(tasks.DialectExtension, "x", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	core, err := m.Defer("x", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer core.Finish(tasks.Outcome{}) // before Close, which waits for it
	defer ext.Finish(tasks.Outcome{})
	wantEra := func(what string, err error, era string) {
		t.Helper()
		var rpc *jsonrpc.Error
		if !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeInvalidParams || !strings.Contains(rpc.Message, "created by a "+era) {
			t.Errorf("%s: %v, want -32602 saying the task was made in %s", what, err, era)
		}
	}
	_, err = m.Get("x", ext.ID())
	wantEra("Get of an extension task", err, "2026-07-28")
	_, err = m.Cancel("x", ext.ID(), "")
	wantEra("Cancel of an extension task", err, "2026-07-28")
	_, err = m.Result(context.Background(), "x", ext.ID(), jsonrpc.ID{})
	wantEra("Result of an extension task", err, "2026-07-28")
	_, err = m.Detailed("x", core.ID())
	wantEra("Detailed of a core task", err, "2025-11-25")
	wantEra("Update of a core task", m.Update("x", core.ID(), nil, nil), "2025-11-25")
	wantEra("CancelExtension of a core task", m.CancelExtension("x", core.ID()), "2025-11-25")
	if list, _, _ := m.List("x", ""); len(list) != 1 || list[0].TaskID != core.ID() {
		t.Errorf("tasks/list = %v, want the core task alone", list)
	}
	if m.Adopt(ext.ID(), "y", func(string) bool { return true }) {
		t.Error("an extension task was adopted by a session")
	}
	if !m.IsExtension(ext.ID()) || m.IsExtension(core.ID()) {
		t.Error("IsExtension is wrong")
	}
	if _, err := m.Detailed("x", "nope"); !errors.Is(err, tasks.ErrNotFound) {
		t.Errorf("unknown id: %v", err)
	}
}

// Input through the task: all outstanding requests in inputRequests, partial answers
// with read-your-writes, unknown and answered keys ignored, keys never asked twice.
func TestExtensionInput(t *testing.T) {
	var mu sync.Mutex
	var seen []mcp.DetailedTask
	m := tasks.New(tasks.Options{OnDetail: func(d mcp.DetailedTask) {
		mu.Lock()
		seen = append(seen, d)
		mu.Unlock()
	}})
	defer m.Close()
	h, err := m.DeferIn(tasks.DialectExtension, "x", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	id := h.ID()
	type answer struct {
		out map[string]json.RawMessage
		err error
	}
	got := make(chan answer, 1)
	go func() {
		out, err := h.AskInput(context.Background(), map[string]mcp.InputRequest{"a": elicit("A?"), "b": elicit("B?")})
		got <- answer{out, err}
	}()
	var d mcp.DetailedTask
	for d.Status != mcp.TaskStatusInputRequired {
		time.Sleep(time.Millisecond)
		if d, err = m.Detailed("x", id); err != nil {
			t.Fatal(err)
		}
	}
	if keys := slices.Sorted(maps.Keys(d.InputRequests)); !slices.Equal(keys, []string{"a", "b"}) {
		t.Fatalf("inputRequests %v, want a and b", keys)
	}
	check := func(key string, q mcp.InputRequest, a json.RawMessage) error {
		if string(a) == `"bad"` {
			return jsonrpc.NewError(jsonrpc.CodeInvalidParams, "bad answer")
		}
		return nil
	}
	if err := m.Update("x", id, map[string]json.RawMessage{"a": json.RawMessage(`"bad"`)}, check); err == nil {
		t.Error("a refused answer was acknowledged")
	}
	if err := m.Update("x", id, map[string]json.RawMessage{"a": json.RawMessage(`{"action":"accept"}`), "zzz": json.RawMessage(`{}`)}, check); err != nil {
		t.Fatal(err)
	}
	d, _ = m.Detailed("x", id)
	if d.Status != mcp.TaskStatusInputRequired || len(d.InputRequests) != 1 || d.InputRequests["b"].Method == "" {
		t.Fatalf("after a partial answer: %+v, want input_required with b alone", d)
	}
	if err := m.Update("x", id, map[string]json.RawMessage{"b": json.RawMessage(`{"action":"decline"}`)}, check); err != nil {
		t.Fatal(err)
	}
	if d, _ = m.Detailed("x", id); d.Status != mcp.TaskStatusWorking || d.InputRequests != nil {
		t.Fatalf("after all answers: %+v, want working", d)
	}
	a := <-got
	if a.err != nil || string(a.out["a"]) != `{"action":"accept"}` || string(a.out["b"]) != `{"action":"decline"}` {
		t.Fatalf("AskInput = %v, %v", a.out, a.err)
	}
	// An answered key is not asked again: its answer stands.
	out, err := h.AskInput(context.Background(), map[string]mcp.InputRequest{"a": elicit("A again?")})
	if err != nil || string(out["a"]) != `{"action":"accept"}` {
		t.Fatalf("asking a again: %v, %v", out, err)
	}
	if d, _ = m.Detailed("x", id); d.Status != mcp.TaskStatusWorking {
		t.Errorf("asking an answered key made the task %s", d.Status)
	}
	h.Finish(tasks.Outcome{Error: &jsonrpc.Error{Code: -32050, Message: "boom", Data: json.RawMessage(`{"k":1}`)}})
	d, _ = m.Detailed("x", id)
	if d.Status != mcp.TaskStatusFailed || d.Error == nil || d.Error.Code != -32050 || d.Error.Message != "boom" || string(d.Error.Data) != `{"k":1}` || d.Result != nil {
		t.Errorf("failed task: %+v", d)
	}
	// Updates and cancels of an ended task are acknowledged.
	if err := m.Update("x", id, map[string]json.RawMessage{"c": nil}, nil); err != nil {
		t.Errorf("update of an ended task: %v", err)
	}
	if err := m.CancelExtension("x", id); err != nil {
		t.Errorf("cancel of an ended task: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	var statuses []mcp.TaskStatus
	for _, d := range seen {
		statuses = append(statuses, d.Status)
	}
	want := []mcp.TaskStatus{mcp.TaskStatusInputRequired, mcp.TaskStatusInputRequired, mcp.TaskStatusWorking, mcp.TaskStatusFailed}
	if !slices.Equal(statuses, want) {
		t.Errorf("OnDetail saw %v, want %v", statuses, want)
	}
	if last := seen[len(seen)-1]; last.Error == nil {
		t.Errorf("the last notification has no error: %+v", last)
	}
}

// A task cancelled while its work waits for input stops the wait.
func TestExtensionCancelWhileAsking(t *testing.T) {
	m := tasks.New(tasks.Options{})
	defer m.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h, err := m.DeferIn(tasks.DialectExtension, "x", nil, cancel)
	if err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() {
		_, err := h.AskInput(ctx, map[string]mcp.InputRequest{"a": elicit("A?")})
		errc <- err
	}()
	for {
		d, _ := m.Detailed("x", h.ID())
		if d.Status == mcp.TaskStatusInputRequired {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if err := m.CancelExtension("x", h.ID()); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err == nil {
		t.Error("AskInput went on after the cancel")
	}
	h.Finish(tasks.Outcome{})
	if d, _ := m.Detailed("x", h.ID()); d.Status != mcp.TaskStatusCancelled {
		t.Errorf("status %s, want cancelled", d.Status)
	}
}

// An answer is checked without the engine's lock held: the check decodes what the
// client sent (megabytes, as many times as the client cares to send it again, since a
// refused answer leaves its key outstanding), and meanwhile every other client's task
// requests go on.
func TestUpdateChecksWithoutTheLock(t *testing.T) {
	m := tasks.New(tasks.Options{})
	defer m.Close()
	h, err := m.DeferIn(tasks.DialectExtension, "x", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Finish(tasks.Outcome{})
	other, err := m.DeferIn(tasks.DialectExtension, "y", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Finish(tasks.Outcome{})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	go func() { _, _ = h.AskInput(ctx, map[string]mcp.InputRequest{"a": elicit("A?")}) }()
	for {
		d, err := m.Detailed("x", h.ID())
		if err != nil {
			t.Fatal(err)
		}
		if d.Status == mcp.TaskStatusInputRequired {
			break
		}
		time.Sleep(time.Millisecond)
	}
	checking, release := make(chan struct{}), make(chan struct{})
	updated := make(chan error, 1)
	go func() {
		updated <- m.Update("x", h.ID(), map[string]json.RawMessage{"a": json.RawMessage(`{"action":"bogus"}`)},
			func(string, mcp.InputRequest, json.RawMessage) error {
				close(checking)
				<-release
				return jsonrpc.NewError(jsonrpc.CodeInvalidParams, "bad answer")
			})
	}()
	<-checking
	got := make(chan error, 1)
	go func() {
		_, err := m.Detailed("y", other.ID())
		got <- err
	}()
	select {
	case err := <-got:
		if err != nil {
			t.Errorf("tasks/get of another task: %v", err)
		}
	case <-ctx.Done():
		t.Error("tasks/get of another owner's task waits while an answer is being checked")
	}
	close(release)
	if err := <-updated; err == nil {
		t.Error("a refused answer was acknowledged")
	}
	if d, _ := m.Detailed("x", h.ID()); d.Status != mcp.TaskStatusInputRequired || d.InputRequests["a"].Method == "" {
		t.Errorf("after a refused answer: %+v, want a still outstanding", d)
	}
}

// An extension task is input_required exactly while it asks for input: SetStatus may
// not make it input_required (tasks/get would show the status without the inputRequests
// the extension requires with it), nor working while requests are outstanding (tasks/get
// would hide them and the work wait for ever). A core task is set input_required by its
// server when it sends a side-channel request, through SetStatus.
func TestSetStatusLeavesInputRequiredToAskInput(t *testing.T) {
	m := tasks.New(tasks.Options{})
	defer m.Close()
	h, err := m.DeferIn(tasks.DialectExtension, "x", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Finish(tasks.Outcome{})
	if err := h.SetStatus(mcp.TaskStatusInputRequired, "waiting"); err == nil {
		t.Error("SetStatus(input_required) of an extension task succeeded")
	}
	if d, _ := m.Detailed("x", h.ID()); d.Status != mcp.TaskStatusWorking {
		t.Errorf("status %s, want working", d.Status)
	}
	asked := make(chan error, 1)
	go func() {
		_, err := h.AskInput(context.Background(), map[string]mcp.InputRequest{"k": elicit("?")})
		asked <- err
	}()
	deadline := time.Now().Add(5 * time.Second)
	for d, _ := m.Detailed("x", h.ID()); d.Status != mcp.TaskStatusInputRequired; d, _ = m.Detailed("x", h.ID()) {
		if time.Now().After(deadline) {
			t.Fatal("the task never asked")
		}
		time.Sleep(time.Millisecond)
	}
	if err := h.SetStatus(mcp.TaskStatusWorking, "done asking?"); err == nil {
		t.Error("SetStatus(working) with a request outstanding succeeded")
	}
	if d, _ := m.Detailed("x", h.ID()); d.Status != mcp.TaskStatusInputRequired || len(d.InputRequests) != 1 {
		t.Errorf("after SetStatus: %s with %d requests, want input_required with 1", d.Status, len(d.InputRequests))
	}
	if err := m.Update("x", h.ID(), map[string]json.RawMessage{"k": json.RawMessage(`{}`)}, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-asked:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("AskInput still waits after its answer")
	}
	if err := h.SetStatus(mcp.TaskStatusWorking, "step 2"); err != nil {
		t.Errorf("SetStatus(working) with a message, once answered: %v", err)
	}

	core, err := m.Defer("x", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer core.Finish(tasks.Outcome{})
	if err := core.SetStatus(mcp.TaskStatusInputRequired, "asking"); err != nil {
		t.Errorf("SetStatus(input_required) of a core task: %v", err)
	}
}
