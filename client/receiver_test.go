package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/transport"
)

// receiverPair connects a client with receiver tasks to a bare server over an in-memory
// pipe and returns both sessions. Unless opts answer the server's requests (OnRequest) or
// declare their own capabilities, the client has a subscriber that reads nothing: a front
// end that is there but has not answered yet, without which the client would refuse the
// server's requests at once.
func receiverPair(t *testing.T, opts *client.Options) (*client.Session, *server.Session) {
	t.Helper()
	srv := server.New(mcp.Implementation{Name: "requestor", Version: "1"}, nil)
	var ss *server.Session
	tr := transport.PipeTransport{Serve: func(ctx context.Context, conn jsonrpc.Connection) error {
		ss = srv.Connect(ctx, conn)
		return nil
	}}
	if opts == nil {
		opts = &client.Options{}
	}
	cs, err := client.New(mcp.Implementation{Name: "mcpi-test", Version: "1"}, opts).Connect(context.Background(), tr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	if opts.OnRequest == nil && opts.Capabilities == nil {
		sub := cs.Subscribe()
		t.Cleanup(sub.Close)
	}
	return cs, ss
}

var form = &mcp.ElicitParams{
	Message:         "Your name?",
	RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"},"lang":{"type":"string","default":"go"}},"required":["name"]}`),
}

func nextRequest(t *testing.T, sub *client.Subscription) *client.Request {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for e := range sub.All(ctx) {
		if re, ok := e.(*client.RequestEvent); ok && !re.Settled {
			return re.Request
		}
	}
	t.Fatal("no request was queued")
	return nil
}

func TestReceiverCapabilityDeclared(t *testing.T) {
	_, ss := receiverPair(t, &client.Options{Receiver: &client.ReceiverOptions{}})
	caps := ss.ClientCapabilities().Tasks
	if !caps.SupportsList() || !caps.SupportsCancel() || !caps.SupportsSamplingCreateMessage() || !caps.SupportsElicitationCreate() {
		t.Errorf("declared tasks capability = %+v", caps)
	}
	_, ss = receiverPair(t, nil)
	if ss.ClientCapabilities().Tasks.SupportsElicitationCreate() {
		t.Error("receiver tasks declared although they are off")
	}
}

func TestReceiverElicitationAcceptDeclineReject(t *testing.T) {
	cs, ss := receiverPair(t, &client.Options{Receiver: &client.ReceiverOptions{PollInterval: time.Millisecond}})
	ctx := context.Background()
	sub := cs.Subscribe()
	defer sub.Close()

	for _, tc := range []struct {
		name   string
		answer func(*client.Request) error
		check  func(t *testing.T, res *mcp.ElicitResult, err error)
	}{
		{"accept", func(r *client.Request) error { return r.Accept(map[string]any{"name": "Ada"}) },
			func(t *testing.T, res *mcp.ElicitResult, err error) {
				if err != nil || res.Action != "accept" || res.Content["name"] != "Ada" || res.Content["lang"] != "go" {
					t.Errorf("accept: %+v %v (want name Ada and the schema default lang=go)", res, err)
				}
			}},
		{"decline", (*client.Request).Decline, func(t *testing.T, res *mcp.ElicitResult, err error) {
			if err != nil || res.Action != "decline" {
				t.Errorf("decline: %+v %v", res, err)
			}
		}},
		{"reject", func(r *client.Request) error { return r.Reject(jsonrpc.NewError(-1, "the user refused")) },
			func(t *testing.T, res *mcp.ElicitResult, err error) {
				var rpc *jsonrpc.Error
				if !errors.As(err, &rpc) || rpc.Code != -1 || rpc.Message != "the user refused" {
					t.Errorf("reject: %v, want the exact error code -1", err)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ct, err := ss.ElicitTask(ctx, form, time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			if ct.Immediate != nil || ct.Created.Status != mcp.TaskStatusWorking || ct.Created.TaskID == "" {
				t.Fatalf("not answered with a working CreateTaskResult: %+v", ct)
			}
			r := nextRequest(t, sub)
			if r.Task != ct.Created.TaskID {
				t.Errorf("queued request has task %q, want %q", r.Task, ct.Created.TaskID)
			}
			if st, err := ct.Get(ctx); err != nil || st.Status != mcp.TaskStatusWorking {
				t.Errorf("tasks/get while the prompt is open: %+v %v", st, err)
			}
			if err := tc.answer(r); err != nil {
				t.Fatal(err)
			}
			var res mcp.ElicitResult
			err = ct.Result(ctx, &res)
			var resp *mcp.ElicitResult
			if err == nil {
				resp = &res
				if id, _ := res.Meta.RelatedTask(); id != ct.Created.TaskID {
					t.Errorf("tasks/result meta related-task = %q, want %q", id, ct.Created.TaskID)
				}
			}
			tc.check(t, resp, err)
		})
	}
}

func TestReceiverSampling(t *testing.T) {
	_, ss := receiverPair(t, &client.Options{
		Receiver: &client.ReceiverOptions{PollInterval: time.Millisecond},
		OnRequest: func(ctx context.Context, r *client.Request) {
			r.Respond(&mcp.CreateMessageResult{Role: "assistant", Model: "m1", Content: []mcp.Content{mcp.TextContent("hi " + r.Task)}})
		},
	})

	ct, err := ss.CreateMessageTask(context.Background(), &mcp.CreateMessageParams{
		Messages:  []mcp.SamplingMessage{{Role: "user", Content: []mcp.Content{mcp.TextContent("hello")}}},
		MaxTokens: 10,
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var res mcp.CreateMessageResult
	if err := ct.Result(context.Background(), &res); err != nil {
		t.Fatal(err)
	}
	if res.Model != "m1" || len(res.Content) != 1 || res.Content[0].Text != "hi "+ct.Created.TaskID {
		t.Errorf("sampling result = %+v", res)
	}
}

func TestReceiverServerCancelWithdrawsPrompt(t *testing.T) {
	cs, ss := receiverPair(t, &client.Options{Receiver: &client.ReceiverOptions{}})
	ctx := context.Background()
	sub := cs.Subscribe()
	defer sub.Close()
	ct, err := ss.ElicitTask(ctx, form, 0)
	if err != nil {
		t.Fatal(err)
	}
	r := nextRequest(t, sub)
	st, err := ct.Cancel(ctx)
	if err != nil || st.Status != mcp.TaskStatusCancelled {
		t.Fatalf("cancel: %+v %v", st, err)
	}
	<-r.Done()
	if !r.Withdrawn() {
		t.Error("the prompt was not withdrawn")
	}
	wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	settled := false
	for e := range sub.All(wctx) {
		if re, ok := e.(*client.RequestEvent); ok && re.Settled && re.Request == r {
			settled = true
			break
		}
	}
	if !settled {
		t.Error("no settled RequestEvent told the front ends to stop asking")
	}
	if len(cs.PendingRequests()) != 0 {
		t.Errorf("%d requests still pending", len(cs.PendingRequests()))
	}
	if err := r.Accept(map[string]any{"name": "late"}); !errors.Is(err, client.ErrAnswered) {
		t.Errorf("answering a withdrawn prompt: %v", err)
	}
	if _, err := ct.Cancel(ctx); !errors.Is(err, jsonrpc.ErrInvalidParams) {
		t.Errorf("cancelling a terminal task: %v, want -32602", err)
	}
	if st, _ := ct.Get(ctx); st.Status != mcp.TaskStatusCancelled {
		t.Errorf("status after cancel = %s", st.Status)
	}
}

func TestReceiverUnknownTaskAndBadCursor(t *testing.T) {
	_, ss := receiverPair(t, &client.Options{Receiver: &client.ReceiverOptions{}})
	ctx := context.Background()
	for _, m := range []string{mcp.MethodTasksGet, mcp.MethodTasksResult, mcp.MethodTasksCancel} {
		err := ss.Call(ctx, m, &mcp.GetTaskParams{TaskID: "nope"}, nil)
		if !errors.Is(err, jsonrpc.ErrInvalidParams) {
			t.Errorf("%s of an unknown id: %v, want -32602", m, err)
		}
	}
	err := ss.Call(ctx, mcp.MethodTasksList, &mcp.ListTasksParams{Cursor: "bogus!"}, nil)
	if !errors.Is(err, jsonrpc.ErrInvalidParams) {
		t.Errorf("bad cursor: %v, want -32602", err)
	}
}

func TestReceiverListPaginates(t *testing.T) {
	_, ss := receiverPair(t, &client.Options{Receiver: &client.ReceiverOptions{PageSize: 3}})
	ctx := context.Background()
	want := map[string]bool{}
	for range 7 {
		ct, err := ss.ElicitTask(ctx, form, 0)
		if err != nil {
			t.Fatal(err)
		}
		want[ct.Created.TaskID] = true
	}
	got := map[string]bool{}
	cursor, pages := "", 0
	for {
		page, err := ss.ListClientTasks(ctx, cursor)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, task := range page.Tasks {
			got[task.TaskID] = true
		}
		if page.NextCursor == "" {
			break
		}
		cursor = page.NextCursor
	}
	if pages != 3 || len(got) != 7 {
		t.Errorf("%d pages, %d tasks; want 3 pages and all 7", pages, len(got))
	}
	for id := range want {
		if !got[id] {
			t.Errorf("task %s missing from the list", id)
		}
	}
}

func TestReceiverOffIgnoresTask(t *testing.T) {
	_, ss := receiverPair(t, &client.Options{OnRequest: func(ctx context.Context, r *client.Request) {
		r.Accept(map[string]any{"name": "Bo"})
	}})
	// A server that asks anyway (bypassing its own capability check) must get a plain
	// answer, not an error: the spec's rule for undeclared augmentation.
	p := *form
	p.Task = &mcp.TaskMetadata{}
	var raw json.RawMessage
	if err := ss.Call(context.Background(), mcp.MethodElicitationCreate, &p, &raw); err != nil {
		t.Fatal(err)
	}
	if mcp.IsCreateTaskResult(raw) {
		t.Fatalf("a client without receiver tasks created one: %s", raw)
	}
	var res mcp.ElicitResult
	json.Unmarshal(raw, &res)
	if res.Action != "accept" || res.Content["name"] != "Bo" {
		t.Errorf("plain answer = %s", raw)
	}
}

func TestReceiverTTLExpiry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cs, ss := receiverPair(t, &client.Options{Receiver: &client.ReceiverOptions{DefaultTTL: 30 * time.Second}})
		ctx := context.Background()
		ct, err := ss.ElicitTask(ctx, form, 0)
		if err != nil {
			t.Fatal(err)
		}
		if ct.Created.TTL == nil || *ct.Created.TTL != 30000 {
			t.Fatalf("ttl = %v, want the default 30000", ct.Created.TTL)
		}
		synctest.Wait()
		if n := len(cs.PendingRequests()); n != 1 {
			t.Fatalf("%d pending, want 1", n)
		}
		time.Sleep(31 * time.Second)
		synctest.Wait()
		if n := len(cs.PendingRequests()); n != 0 {
			t.Errorf("%d prompts still pending after the ttl", n)
		}
		if _, err := ct.Get(ctx); !errors.Is(err, jsonrpc.ErrInvalidParams) {
			t.Errorf("tasks/get after expiry: %v, want -32602", err)
		}
		cs.Close()
	})
}

func TestReceiverThousandTasksCleanUp(t *testing.T) {
	cs, ss := receiverPair(t, &client.Options{
		Receiver:  &client.ReceiverOptions{MaxActive: 2000, PollInterval: time.Millisecond},
		OnRequest: func(ctx context.Context, r *client.Request) { r.Accept(map[string]any{"name": r.Task}) },
	})
	ctx := context.Background()
	runtime.GC()
	base := runtime.NumGoroutine()
	const n = 1000
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ct, err := ss.ElicitTask(ctx, form, time.Minute)
			if err != nil {
				errs <- err
				return
			}
			var res mcp.ElicitResult
			if err := ct.Result(ctx, &res); err != nil {
				errs <- err
				return
			}
			if res.Content["name"] != ct.Created.TaskID {
				errs <- fmt.Errorf("task %s got the answer of %v", ct.Created.TaskID, res.Content["name"])
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if p := len(cs.PendingRequests()); p != 0 {
		t.Errorf("%d requests pending after all were answered", p)
	}
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > base+5 && time.Now().Before(deadline) {
		runtime.Gosched()
		time.Sleep(10 * time.Millisecond)
	}
	if g := runtime.NumGoroutine(); g > base+5 {
		t.Errorf("%d goroutines after 1,000 tasks, %d before", g, base)
	}
	if k := len(cs.ReceiverTasks()); k != n {
		t.Errorf("%d receiver tasks kept, want all %d until their ttl", k, n)
	}
	// Closing the session frees them: they are bound to it.
	cs.Close()
	if k := len(cs.ReceiverTasks()); k != 0 {
		t.Errorf("%d receiver tasks left after the session closed", k)
	}
}

func TestReceiverRateLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cs, ss := receiverPair(t, &client.Options{Receiver: &client.ReceiverOptions{RatePerSecond: 1}})
		defer cs.Close()
		ctx := context.Background()
		ct, err := ss.ElicitTask(ctx, form, 0) // one token of the burst of 2
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ct.Get(ctx); err != nil {
			t.Fatalf("second operation within the burst: %v", err)
		}
		if _, err := ct.Get(ctx); !errors.Is(err, jsonrpc.ErrInvalidRequest) {
			t.Fatalf("third operation at once: %v, want -32600 (rate limited)", err)
		}
		time.Sleep(time.Second)
		if _, err := ct.Get(ctx); err != nil {
			t.Errorf("after a second: %v", err)
		}
	})
}
