package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

func ms(d time.Duration) *mcp.TaskMetadata {
	v := d.Milliseconds()
	return &mcp.TaskMetadata{TTL: &v}
}

// block returns a RunFunc that waits for release (or its context) and then returns out.
func block(release <-chan struct{}, out Outcome) RunFunc {
	return func(ctx context.Context, h *Handle) Outcome {
		select {
		case <-release:
			return out
		case <-ctx.Done():
			return Outcome{Error: jsonrpc.NewError(jsonrpc.CodeInternalError, "stopped")}
		}
	}
}

func TestCreateStartsWorkingWithActualTTL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := New(Options{MaxTTL: time.Minute, PollInterval: 250 * time.Millisecond})
		defer m.Close()
		release := make(chan struct{})
		defer close(release)
		task, err := m.Create("a", ms(time.Hour), block(release, Outcome{}))
		if err != nil {
			t.Fatal(err)
		}
		if task.Status != mcp.TaskStatusWorking {
			t.Errorf("status = %s, want working", task.Status)
		}
		if !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(task.TaskID) {
			t.Errorf("id %q is not 128 random bits in hex", task.TaskID)
		}
		if task.TTL == nil || *task.TTL != 60000 {
			t.Errorf("ttl = %v, want the cap 60000", task.TTL)
		}
		if task.PollInterval == nil || *task.PollInterval != 250 {
			t.Errorf("pollInterval = %v, want 250", task.PollInterval)
		}
		if task.CreatedAt == "" || task.CreatedAt != task.LastUpdatedAt {
			t.Errorf("createdAt %q / lastUpdatedAt %q", task.CreatedAt, task.LastUpdatedAt)
		}
		m2 := New(Options{DefaultTTL: -1})
		defer m2.Close()
		unlimited, err := m2.Create("a", nil, block(release, Outcome{}))
		if err != nil || unlimited.TTL != nil {
			t.Errorf("DefaultTTL -1: ttl = %v, err %v; want null", unlimited.TTL, err)
		}
	})
}

// TestHugeTTLIsCapped: a requested ttl too long for a time.Duration is capped like any
// long one; multiplied as it came, it wrapped negative, which means unlimited.
func TestHugeTTLIsCapped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := New(Options{MaxTTL: time.Minute})
		defer m.Close()
		release := make(chan struct{})
		defer close(release)
		for _, huge := range []int64{9_300_000_000_000, math.MaxInt64} {
			task, err := m.Create("a", &mcp.TaskMetadata{TTL: &huge}, block(release, Outcome{}))
			if err != nil {
				t.Fatal(err)
			}
			if task.TTL == nil || *task.TTL != 60000 {
				t.Errorf("ttl %d asked: ttl = %v, want the cap 60000", huge, task.TTL)
			}
		}
	})
}

func TestResultBlocksUntilTerminalAndReturnsExactOutcome(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var changes []mcp.TaskStatus
		var mu sync.Mutex
		m := New(Options{OnChange: func(owner string, task mcp.Task) {
			mu.Lock()
			changes = append(changes, task.Status)
			mu.Unlock()
		}})
		defer m.Close()
		release := make(chan struct{})
		want := json.RawMessage(`{"content":[{"type":"text","text":"done"}],"isError":true}`)
		task, _ := m.Create("a", nil, func(ctx context.Context, h *Handle) Outcome {
			if err := h.SetStatus(mcp.TaskStatusInputRequired, "need a name"); err != nil {
				t.Error(err)
			}
			<-release
			if err := h.SetStatus(mcp.TaskStatusWorking, ""); err != nil {
				t.Error(err)
			}
			return Outcome{Result: want, Failed: true, StatusMessage: "the tool reported an error"}
		})
		got := make(chan Outcome, 1)
		go func() {
			out, err := m.Result(context.Background(), "a", task.TaskID, jsonrpc.Int64ID(7))
			if err != nil {
				t.Error(err)
			}
			got <- out
		}()
		synctest.Wait()
		select {
		case <-got:
			t.Fatal("tasks/result returned before the task ended")
		default:
		}
		h := &Handle{m: m, t: m.tasks[task.TaskID]}
		if id, ok := h.RelatedRequest(); !ok || id != jsonrpc.Int64ID(7) {
			t.Errorf("RelatedRequest = %v %v, want the waiting tasks/result id 7", id, ok)
		}
		if s, _ := m.Get("a", task.TaskID); s.Status != mcp.TaskStatusInputRequired || s.StatusMessage != "need a name" {
			t.Errorf("status = %s %q", s.Status, s.StatusMessage)
		}
		close(release)
		out := <-got
		if string(out.Result) != string(want) || !out.Failed {
			t.Errorf("outcome = %s failed=%v", out.Result, out.Failed)
		}
		s, _ := m.Get("a", task.TaskID)
		if s.Status != mcp.TaskStatusFailed || s.StatusMessage != "the tool reported an error" {
			t.Errorf("final = %s %q, want failed with message", s.Status, s.StatusMessage)
		}
		mu.Lock()
		defer mu.Unlock()
		wantChanges := []mcp.TaskStatus{mcp.TaskStatusInputRequired, mcp.TaskStatusWorking, mcp.TaskStatusFailed}
		if len(changes) != len(wantChanges) {
			t.Fatalf("changes = %v, want %v", changes, wantChanges)
		}
		for i := range changes {
			if changes[i] != wantChanges[i] {
				t.Fatalf("changes = %v, want %v", changes, wantChanges)
			}
		}
	})
}

func TestErrorOutcomeIsKeptExactly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := New(Options{})
		defer m.Close()
		orig := &jsonrpc.Error{Code: -32042, Message: "needs a URL", Data: json.RawMessage(`{"url":"x"}`)}
		task, _ := m.Create("a", nil, func(context.Context, *Handle) Outcome { return Outcome{Error: orig} })
		out, err := m.Result(context.Background(), "a", task.TaskID, jsonrpc.ID{})
		if err != nil {
			t.Fatal(err)
		}
		if out.Error == nil || out.Error.Code != -32042 || string(out.Error.Data) != `{"url":"x"}` {
			t.Errorf("error = %+v", out.Error)
		}
		s, _ := m.Get("a", task.TaskID)
		if s.Status != mcp.TaskStatusFailed || s.StatusMessage != "needs a URL" {
			t.Errorf("status = %s %q", s.Status, s.StatusMessage)
		}
	})
}

// TestCancelAfterCommit: a cancel that comes once the work committed its side effect
// waits for the work's end and is refused as for an ended task; the task keeps its
// outcome. A task cancelled before runs no commit.
func TestCancelAfterCommit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := New(Options{})
		defer m.Close()
		h, err := m.Defer("a", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !h.Commit(func() {}) {
			t.Fatal("Commit on a working task did not run")
		}
		cancelled := make(chan error, 1)
		go func() {
			_, err := m.Cancel("a", h.ID(), "")
			cancelled <- err
		}()
		synctest.Wait()
		select {
		case err := <-cancelled:
			t.Fatalf("the cancel was answered (%v) before the committed work ended", err)
		default:
		}
		h.Finish(Outcome{Result: json.RawMessage(`{"content":[]}`)})
		if err := <-cancelled; !errors.Is(err, ErrTerminal) {
			t.Errorf("cancel after commit: %v, want ErrTerminal", err)
		}
		if s, _ := m.Get("a", h.ID()); s.Status != mcp.TaskStatusCompleted {
			t.Errorf("status %s, want completed", s.Status)
		}

		h2, _ := m.Defer("a", nil, nil)
		if _, err := m.Cancel("a", h2.ID(), ""); err != nil {
			t.Fatal(err)
		}
		if h2.Commit(func() { t.Error("Commit ran on a cancelled task") }) {
			t.Error("Commit on a cancelled task reported true")
		}
		h2.Finish(Outcome{})
	})
}

func TestCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := New(Options{})
		defer m.Close()
		stopped := make(chan struct{})
		task, _ := m.Create("a", nil, func(ctx context.Context, h *Handle) Outcome {
			<-ctx.Done()
			close(stopped)
			// Work that finishes anyway must not overwrite cancelled.
			return Outcome{Result: json.RawMessage(`{"content":[]}`)}
		})
		waiting := make(chan error, 1)
		go func() {
			_, err := m.Result(context.Background(), "a", task.TaskID, jsonrpc.ID{})
			waiting <- err
		}()
		synctest.Wait()
		c, err := m.Cancel("a", task.TaskID, "")
		if err != nil {
			t.Fatal(err)
		}
		if c.Status != mcp.TaskStatusCancelled {
			t.Errorf("cancel returned %s, want cancelled", c.Status)
		}
		<-stopped
		synctest.Wait()
		if s, _ := m.Get("a", task.TaskID); s.Status != mcp.TaskStatusCancelled {
			t.Errorf("after the work returned: %s, want still cancelled", s.Status)
		}
		if err := <-waiting; err == nil || !errors.Is(err, &jsonrpc.Error{Code: jsonrpc.CodeInternalError}) {
			t.Errorf("result of a cancelled task: %v, want an internal error", err)
		}
		if _, err := m.Cancel("a", task.TaskID, ""); !errors.Is(err, jsonrpc.ErrInvalidParams) {
			t.Errorf("cancelling a terminal task: %v, want -32602", err)
		}
		h := &Handle{m: m, t: m.tasks[task.TaskID]}
		if err := h.SetStatus(mcp.TaskStatusWorking, ""); err == nil {
			t.Error("SetStatus after cancel succeeded; nothing may write working after cancelled")
		}
	})
}

func TestOwnersCannotSeeEachOther(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := New(Options{})
		defer m.Close()
		release := make(chan struct{})
		defer close(release)
		task, _ := m.Create("a", nil, block(release, Outcome{}))
		if _, err := m.Get("b", task.TaskID); !errors.Is(err, jsonrpc.ErrInvalidParams) {
			t.Errorf("get from another owner: %v, want -32602", err)
		}
		if _, err := m.Cancel("b", task.TaskID, ""); !errors.Is(err, ErrNotFound) {
			t.Errorf("cancel from another owner: %v", err)
		}
		if _, err := m.Result(context.Background(), "b", task.TaskID, jsonrpc.ID{}); !errors.Is(err, ErrNotFound) {
			t.Errorf("result from another owner: %v", err)
		}
		if l, _, _ := m.List("b", ""); len(l) != 0 {
			t.Errorf("owner b lists %d tasks", len(l))
		}
		if l, _, _ := m.List("a", ""); len(l) != 1 {
			t.Errorf("owner a lists %d tasks, want 1", len(l))
		}
		if _, err := m.Get("a", "nope"); !errors.Is(err, ErrNotFound) {
			t.Errorf("unknown id: %v", err)
		}
	})
}

func TestListPages(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := New(Options{PageSize: 50, MaxActive: 500})
		defer m.Close()
		release := make(chan struct{})
		defer close(release)
		var ids []string
		for range 120 {
			task, err := m.Create("a", nil, block(release, Outcome{}))
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, task.TaskID)
		}
		var got []string
		cursor := ""
		pages := 0
		for {
			page, next, err := m.List("a", cursor)
			if err != nil {
				t.Fatal(err)
			}
			pages++
			for _, p := range page {
				got = append(got, p.TaskID)
			}
			if next == "" {
				break
			}
			cursor = next
		}
		if pages != 3 || len(got) != 120 {
			t.Fatalf("pages %d, tasks %d; want 3 pages of 120 tasks", pages, len(got))
		}
		for i := range ids {
			if ids[i] != got[i] {
				t.Fatalf("task %d out of order", i)
			}
		}
		for _, bad := range []string{"???", "eDEy", "dGFiYw", "dDk5OTk"} { // the last: "t9999", never issued
			if _, _, err := m.List("a", bad); !errors.Is(err, jsonrpc.ErrInvalidParams) {
				t.Errorf("cursor %q: %v, want -32602", bad, err)
			}
		}
	})
}

func TestTTLExpiryDeletesAndStopsWork(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := New(Options{})
		defer m.Close()
		stopped := make(chan struct{})
		task, _ := m.Create("a", ms(30*time.Second), func(ctx context.Context, h *Handle) Outcome {
			<-ctx.Done()
			close(stopped)
			return Outcome{}
		})
		done, _ := m.Create("a", ms(90*time.Second), func(context.Context, *Handle) Outcome {
			return Outcome{Result: json.RawMessage(`{}`)}
		})
		waiting := make(chan error, 1)
		go func() {
			_, err := m.Result(context.Background(), "a", task.TaskID, jsonrpc.ID{})
			waiting <- err
		}()
		time.Sleep(29 * time.Second)
		synctest.Wait()
		if _, err := m.Get("a", task.TaskID); err != nil {
			t.Fatalf("task gone before its ttl: %v", err)
		}
		time.Sleep(2 * time.Second)
		<-stopped
		if err := <-waiting; !errors.Is(err, ErrNotFound) {
			t.Errorf("waiter of an expired task: %v, want not found", err)
		}
		if _, err := m.Get("a", task.TaskID); !errors.Is(err, ErrNotFound) {
			t.Errorf("expired task still there: %v", err)
		}
		if _, err := m.Get("a", done.TaskID); err != nil {
			t.Errorf("completed task with a longer ttl removed early: %v", err)
		}
		time.Sleep(time.Minute)
		if n := m.Len(); n != 0 {
			t.Errorf("%d tasks left after every ttl passed", n)
		}
	})
}

// TestOnDeleted: a task deleted before it ended (expired while working, or its owner
// dropped) is told to OnDeleted once, after the changes announced of it; one that ended
// is not, when it expires or is dropped.
func TestOnDeleted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var log []string
		note := func(s string) {
			mu.Lock()
			log = append(log, s)
			mu.Unlock()
		}
		m := New(Options{
			OnChange: func(owner string, task mcp.Task) {
				note("change " + owner + " " + task.TaskID + " " + string(task.Status))
			},
			OnDeleted: func(owner, id string) { note("deleted " + owner + " " + id) },
		})
		defer m.Close()
		working, _ := m.Defer("a", ms(30*time.Second), nil)
		waiting, _ := m.Defer("a", ms(30*time.Second), nil)
		if err := waiting.SetStatus(mcp.TaskStatusInputRequired, "?"); err != nil {
			t.Fatal(err)
		}
		ended, _ := m.Defer("a", ms(30*time.Second), nil)
		ended.Finish(Outcome{Result: json.RawMessage(`{}`)})
		dropped, _ := m.Defer("b", nil, nil)
		endedB, _ := m.Defer("b", nil, nil)
		endedB.Finish(Outcome{Result: json.RawMessage(`{}`)})
		mu.Lock()
		log = nil
		mu.Unlock()

		time.Sleep(31 * time.Second)
		synctest.Wait()
		m.DropOwner("b")
		for _, h := range []*Handle{working, waiting, dropped} {
			h.Finish(Outcome{Result: json.RawMessage(`{}`)}) // too late: nothing announced
		}
		want := []string{
			"deleted a " + working.Created().TaskID, "deleted a " + waiting.Created().TaskID,
			"deleted b " + dropped.Created().TaskID,
		}
		mu.Lock()
		defer mu.Unlock()
		if !slices.Equal(log, want) && !slices.Equal(log, []string{want[1], want[0], want[2]}) {
			t.Errorf("announced %q, want %q", log, want)
		}
	})
}

func TestMaxActive(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := New(Options{MaxActive: 2})
		defer m.Close()
		release := make(chan struct{})
		defer close(release)
		for range 2 {
			if _, err := m.Create("a", nil, block(release, Outcome{})); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := m.Create("a", nil, block(release, Outcome{})); !errors.Is(err, ErrTooMany) {
			t.Errorf("third task: %v, want ErrTooMany", err)
		}
		if _, err := m.Create("b", nil, block(release, Outcome{})); err != nil {
			t.Errorf("another owner is limited by a's tasks: %v", err)
		}
	})
}

func TestDropOwnerAndClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := New(Options{})
		release := make(chan struct{})
		defer close(release)
		for range 3 {
			m.Create("a", nil, block(release, Outcome{}))
		}
		keep, _ := m.Create("b", nil, block(release, Outcome{}))
		m.DropOwner("a")
		if m.Len() != 1 {
			t.Errorf("after dropping a: %d tasks, want 1", m.Len())
		}
		if _, err := m.Get("b", keep.TaskID); err != nil {
			t.Error(err)
		}
		m.Close()
		if m.Len() != 0 {
			t.Errorf("after close: %d tasks", m.Len())
		}
		if _, err := m.Create("a", nil, block(release, Outcome{})); !errors.Is(err, ErrClosed) {
			t.Errorf("create after close: %v", err)
		}
	})
}

func TestAdoptMovesOnlyPermittedTasks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := New(Options{MaxActive: 1})
		defer m.Close()
		release := make(chan struct{})
		defer close(release)
		task, _ := m.Create("old", nil, block(release, Outcome{}))
		if m.Adopt(task.TaskID, "new", func(string) bool { return false }) {
			t.Fatal("adopted although the owner may not give it up")
		}
		if _, err := m.Get("new", task.TaskID); !errors.Is(err, ErrNotFound) {
			t.Fatalf("visible to another owner before adoption: %v", err)
		}
		if !m.Adopt(task.TaskID, "new", func(owner string) bool { return owner == "old" }) {
			t.Fatal("adoption refused")
		}
		if _, err := m.Get("new", task.TaskID); err != nil {
			t.Errorf("after adoption: %v", err)
		}
		if _, err := m.Get("old", task.TaskID); !errors.Is(err, ErrNotFound) {
			t.Errorf("the old owner still sees it: %v", err)
		}
		// The running task now counts against the new owner's limit, not the old one's.
		if _, err := m.Create("old", nil, block(release, Outcome{})); err != nil {
			t.Errorf("old owner still limited: %v", err)
		}
		if _, err := m.Create("new", nil, block(release, Outcome{})); !errors.Is(err, ErrTooMany) {
			t.Errorf("new owner not limited: %v", err)
		}
		if m.Adopt("nope", "new", func(string) bool { return true }) {
			t.Error("adopted an unknown id")
		}
	})
}

func TestRateLimitPerOwner(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := New(Options{RatePerSecond: 10, RateBurst: 5})
		defer m.Close()
		release := make(chan struct{})
		defer close(release)
		task, err := m.Create("a", nil, block(release, Outcome{}))
		if err != nil {
			t.Fatal(err)
		}
		for i := range 4 { // the burst of 5, less the create
			if _, err := m.Get("a", task.TaskID); err != nil {
				t.Fatalf("get %d within the burst: %v", i, err)
			}
		}
		_, err = m.Get("a", task.TaskID)
		var rpc *jsonrpc.Error
		if !errors.Is(err, ErrRateLimited) || !errors.As(err, &rpc) || len(rpc.Data) == 0 {
			t.Fatalf("get beyond the burst: %v, want ErrRateLimited with retryAfterMs", err)
		}
		if _, _, err := m.List("a", ""); !errors.Is(err, ErrRateLimited) {
			t.Errorf("list beyond the burst: %v", err)
		}
		if _, err := m.Get("b", "nope"); !errors.Is(err, ErrNotFound) {
			t.Errorf("another owner is limited by a's requests: %v", err)
		}
		time.Sleep(100 * time.Millisecond) // one token at 10/s
		if _, err := m.Get("a", task.TaskID); err != nil {
			t.Errorf("after the refill: %v", err)
		}
		if _, err := m.Get("a", task.TaskID); !errors.Is(err, ErrRateLimited) {
			t.Errorf("second get after one refill: %v", err)
		}
	})
}

// TestOnChangeMayReadOutcome: OnChange may read a finished task's outcome (the server
// puts it in notifications/tasks) while other tasks change: every change reaches it, and
// none waits on another. The manager once held its lock while waiting for the change
// before to be announced, and that announcement waited for the lock: tasks ending
// together hung the server. It runs on real goroutines, as the hang needs two changes
// truly at once; the deadline only detects the hang.
func TestOnChangeMayReadOutcome(t *testing.T) {
	var m *Manager
	var mu sync.Mutex
	read := map[string]string{}
	all := make(chan struct{})
	const n = 2000
	m = New(Options{MaxActive: n, RatePerSecond: -1, OnChange: func(owner string, task mcp.Task) {
		if !task.Status.IsTerminal() {
			return
		}
		time.Sleep(50 * time.Microsecond) // widens the window in which another change takes mu
		out, ok, err := m.Outcome(owner, task.TaskID)
		mu.Lock()
		defer mu.Unlock()
		if err != nil || !ok {
			t.Errorf("Outcome of %s in OnChange: %v %v", task.TaskID, ok, err)
		}
		read[task.TaskID] = string(out.Result)
		if len(read) == n {
			close(all)
		}
	}})
	defer m.Close()
	ids := make([]string, 0, n)
	for i := range n {
		want := fmt.Sprintf(`{"n":%d}`, i)
		task, err := m.Create("a", nil, func(context.Context, *Handle) Outcome {
			return Outcome{Result: json.RawMessage(want)}
		})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, task.TaskID)
	}
	select {
	case <-all:
	case <-time.After(20 * time.Second):
		t.Fatal("the tasks' changes were not all announced: the manager hangs")
	}
	mu.Lock()
	defer mu.Unlock()
	for i, id := range ids {
		if got := read[id]; got != fmt.Sprintf(`{"n":%d}`, i) {
			t.Errorf("task %d: OnChange read %q", i, got)
		}
	}
}

// TestEnded: Ended is true for the owner's task of 2025-11-25 once its end is
// announced, and for nothing else; asking it counts against no rate limit.
func TestEnded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		announced := make(chan mcp.TaskStatus, 4)
		m := New(Options{RatePerSecond: 1, RateBurst: 1, OnChange: func(owner string, task mcp.Task) {
			announced <- task.Status
		}})
		defer m.Close()
		release := make(chan struct{})
		task, err := m.Create("a", nil, block(release, Outcome{Result: json.RawMessage(`{"content":[]}`)}))
		if err != nil {
			t.Fatal(err)
		}
		if m.Ended("a", task.TaskID) {
			t.Error("a working task is said to have ended")
		}
		close(release)
		synctest.Wait()
		if st := <-announced; st != mcp.TaskStatusCompleted {
			t.Fatalf("announced %s, want completed", st)
		}
		for range 3 { // more than the burst: Ended is not a lookup
			if !m.Ended("a", task.TaskID) {
				t.Fatal("the completed task is not said to have ended")
			}
		}
		if m.Ended("b", task.TaskID) || m.Ended("a", "nope") {
			t.Error("Ended answers for another owner or an unknown id")
		}
		time.Sleep(2 * time.Second) // the rate limit lets one more task in
		ext, err := m.DeferIn(DialectExtension, "a", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		m.Run(ext, func(ctx context.Context, h *Handle) Outcome { return Outcome{Result: json.RawMessage(`{}`)} })
		if m.Ended("a", ext.ID()) {
			t.Error("a task of the extension is said to have ended in 2025-11-25's sense")
		}
	})
}

// Owners made up faster than their buckets refill (a forged credential a request) each
// add a bucket that no prune can forget: the prune then waits for the map to double,
// instead of scanning every bucket at every new owner. Those that refilled are
// forgotten at the next prune.
func TestRateBucketsPrunedRarely(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := New(Options{RatePerSecond: 1})
		defer m.Close()
		const owners = 3 * minPruneAt
		prunes, last := 0, 0
		for i := range owners {
			if _, err := m.Get(fmt.Sprint("forged ", i), "nope"); !errors.Is(err, ErrNotFound) {
				t.Fatal(err)
			}
			if m.pruneAt != last {
				prunes++
				last = m.pruneAt
			}
		}
		if len(m.buckets) != owners || prunes > 2 {
			t.Errorf("%d buckets after %d owners, %d prunes; want every bucket (none refilled) and at most 2 prunes", len(m.buckets), owners, prunes)
		}
		time.Sleep(3 * time.Second) // every bucket refills (burst 2 at 1/s)
		for i := range m.pruneAt - len(m.buckets) + 1 {
			_, _ = m.Get(fmt.Sprint("later ", i), "nope")
		}
		if n := len(m.buckets); n > owners/2 {
			t.Errorf("%d buckets after the idle ones refilled and a prune ran, want the later owners alone", n)
		}
	})
}

// A task id is logged (a lookup that failed) cut to a few dozen bytes, whatever its
// length on the wire.
func TestLookupLogsIDCut(t *testing.T) {
	var buf strings.Builder
	m := New(Options{Logger: slog.New(slog.NewTextHandler(&buf, nil))})
	defer m.Close()
	if _, err := m.Get("a", strings.Repeat("x", 1<<20)); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
	if n := buf.Len(); n == 0 || n > 300 || !strings.Contains(buf.String(), "1048576 bytes") {
		t.Errorf("logged %d bytes: %.300s", n, buf.String())
	}
}

// TestShutdownCountsStuckWork: Shutdown's error counts the work that did not return in a
// sentence whose noun agrees with the count ("1 task's work", not "1 tasks' work").
func TestShutdownCountsStuckWork(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{
		{1, "tasks: shutting down: 1 task's work still running: context deadline exceeded"},
		{2, "tasks: shutting down: 2 tasks' work still running: context deadline exceeded"},
	} {
		synctest.Test(t, func(t *testing.T) {
			m := New(Options{})
			release := make(chan struct{})
			deaf := func(context.Context, *Handle) Outcome { <-release; return Outcome{} } // ignores its context
			for range c.n {
				if _, err := m.Create("a", nil, deaf); err != nil {
					t.Fatal(err)
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			if err := m.Shutdown(ctx); err == nil || err.Error() != c.want {
				t.Errorf("Shutdown with %d stuck: %v, want %q", c.n, err, c.want)
			}
			close(release)
		})
	}
}
