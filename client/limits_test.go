package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/tasktest"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/transport"
)

// rawServer connects a client with opts to a bare JSON-RPC peer over an in-memory pipe:
// the peer answers initialize, and every other request with handle, so that a test can
// play a server that misbehaves in ways mcpi's own server never does.
func rawServer(t *testing.T, opts *client.Options, handle jsonrpc.HandlerFunc) *client.Session {
	t.Helper()
	s, _ := rawServerConn(t, opts, handle)
	return s
}

// rawServerConn is rawServer that also gives the peer's connection, to send the client
// requests and notifications of its own.
func rawServerConn(t *testing.T, opts *client.Options, handle jsonrpc.HandlerFunc) (*client.Session, *jsonrpc.Conn) {
	t.Helper()
	var srv *jsonrpc.Conn
	tr := transport.PipeTransport{Serve: func(_ context.Context, conn jsonrpc.Connection) error {
		srv = serveRaw(t, conn, handle)
		return nil
	}}
	s, err := client.New(mcp.Implementation{Name: "mcpi-test", Version: "1"}, opts).Connect(context.Background(), tr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, srv
}

// endless answers every list with one item and a new cursor, forever.
func endless(_ context.Context, req *jsonrpc.Request) (any, error) {
	n := 0
	var p mcp.PaginatedParams
	if err := json.Unmarshal(req.Params, &p); err == nil && p.Cursor != "" {
		fmt.Sscanf(p.Cursor, "c%d", &n)
	}
	next := fmt.Sprintf("c%d", n+1)
	switch req.Method {
	case mcp.MethodToolsList:
		return &mcp.ListToolsResult{Tools: []mcp.Tool{{Name: fmt.Sprintf("t%d", n), InputSchema: []byte(`{"type":"object"}`)}}, NextCursor: next}, nil
	case mcp.MethodTasksList:
		return &mcp.ListTasksResult{Tasks: []mcp.Task{{TaskID: fmt.Sprintf("t%d", n), Status: mcp.TaskStatusWorking}}, NextCursor: next}, nil
	}
	return nil, jsonrpc.ErrMethodNotFound
}

// TestPaginationBounded: a server that hands out a new cursor forever ends a listing at
// the page bound with a *ListLimitError, after yielding what it fetched.
func TestPaginationBounded(t *testing.T) {
	s := rawServer(t, &client.Options{MaxPages: 50}, endless)
	ctx := context.Background()
	n := 0
	var err error
	for _, e := range s.Tools(ctx, nil) {
		if e != nil {
			err = e
			break
		}
		n++
	}
	var limit *client.ListLimitError
	if !errors.As(err, &limit) {
		t.Fatalf("after %d tools: %v, want a *error", n, err)
	}
	if n != 50 || limit.Pages != 50 || limit.MaxPages != 50 || limit.Method != mcp.MethodToolsList {
		t.Errorf("%d tools, error %+v; want 50 tools and the page bound of tools/list", n, limit)
	}

	// The same for tasks/list, and for the item bound.
	s = rawServer(t, &client.Options{MaxItems: 30}, endless)
	n, err = 0, nil
	for _, e := range s.ServerTasks(ctx, nil) {
		if e != nil {
			err = e
			break
		}
		n++
	}
	if !errors.As(err, &limit) || n != 30 || limit.Items != 30 || limit.MaxItems != 30 {
		t.Fatalf("after %d tasks: %v, want the item bound of 30", n, err)
	}
}

// TestPaginationDefaultBound: the bounds are on by default.
func TestPaginationDefaultBound(t *testing.T) {
	s := rawServer(t, nil, endless)
	var err error
	n := 0
	for _, e := range s.Tools(context.Background(), nil) {
		if e != nil {
			err = e
			break
		}
		n++
	}
	var limit *client.ListLimitError
	if !errors.As(err, &limit) || n != client.DefaultMaxPages {
		t.Fatalf("after %d tools: %v, want the default bound of %d pages", n, err, client.DefaultMaxPages)
	}
}

// TestHugePollInterval: a pollInterval too large for a time.Duration (9e12 ms) once wrapped
// negative and had the client poll nonstop, and 1e12 ms waited 31 years; the follower
// clamps it to MaxPollInterval, and to the task's ttl.
func TestHugePollInterval(t *testing.T) {
	for _, c := range tasktest.HugeIntervals {
		t.Run(c.Name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				peer := tasktest.NewStuck(mcp.MethodToolsCall, c)
				s := rawServer(t, nil, peer.Handle)
				if _, err := s.StartToolTask(context.Background(), &mcp.CallToolParams{Name: "x"}, &client.CallOptions{SendAnyway: true}); err != nil {
					t.Fatal(err)
				}
				peer.ExpectPolls(t, c, func() { s.Close() })
				s.Close()
			})
		})
	}
}

// TestRequestTimeout: a request the server never answers fails after RequestTimeout with
// a *TimeoutError, and the server is told it was withdrawn; a task is followed past it,
// its tasks/result waiting as long as the task runs.
func TestRequestTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		withdrawn := make(chan struct{})
		const taskTime = 10 * time.Minute
		var ends time.Time
		s := rawServer(t, &client.Options{RequestTimeout: 2 * time.Second}, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			now := time.Now()
			switch req.Method {
			case mcp.MethodToolsList:
				<-ctx.Done() // never answered; the client withdraws it
				close(withdrawn)
				return nil, ctx.Err()
			case mcp.MethodToolsCall:
				ends = now.Add(taskTime)
				return &mcp.CreateTaskResult{Task: mcp.Task{TaskID: "t1", Status: mcp.TaskStatusWorking,
					CreatedAt: mcp.FormatTime(now), LastUpdatedAt: mcp.FormatTime(now), PollInterval: new(int64(1000))}}, nil
			case mcp.MethodTasksGet:
				return &mcp.GetTaskResult{Task: mcp.Task{TaskID: "t1", Status: mcp.TaskStatusInputRequired,
					CreatedAt: mcp.FormatTime(now), LastUpdatedAt: mcp.FormatTime(now), PollInterval: new(int64(1000))}}, nil
			case mcp.MethodTasksResult:
				time.Sleep(time.Until(ends))
				return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("done")}}, nil
			}
			return nil, jsonrpc.ErrMethodNotFound
		})
		ctx := context.Background()
		start := time.Now()
		_, err := s.ListTools(ctx, nil)
		var timeout *client.TimeoutError
		if !errors.As(err, &timeout) || timeout.Method != mcp.MethodToolsList || timeout.Timeout != 2*time.Second ||
			!errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("tools/list: %v, want a *client.TimeoutError", err)
		}
		if took := time.Since(start); took != 2*time.Second {
			t.Errorf("the request failed after %s", took)
		}
		select {
		case <-withdrawn:
		case <-time.After(time.Second):
			t.Error("the server was not told that the request was withdrawn")
		}

		// The task's tasks/result is answered only when it ends, long after the timeout.
		task, err := s.StartToolTask(ctx, &mcp.CallToolParams{Name: "x"}, &client.CallOptions{SendAnyway: true})
		if err != nil {
			t.Fatal(err)
		}
		// Its first poll finds it input_required: the follower waits on tasks/result.
		res, err := task.Wait(ctx)
		if err != nil || len(res.Content) != 1 || res.Content[0].Text != "done" {
			t.Fatalf("the task's outcome: %+v, %v", res, err)
		}
		if took := time.Since(start); took < taskTime {
			t.Errorf("the task ended after %s, before its time", took)
		}
	})
}

// elicit has the raw server of TestServerRequestsBounded ask the client n questions at
// once, each with params of about size bytes, and returns their errors as they end.
func elicit(ctx context.Context, srv *jsonrpc.Conn, n, size int) <-chan error {
	errs := make(chan error, n)
	params := &mcp.ElicitParams{Message: strings.Repeat("q", size), RequestedSchema: json.RawMessage(`{"type":"object","properties":{}}`)}
	for range n {
		go func() {
			var res mcp.ElicitResult
			errs <- srv.Call(ctx, mcp.MethodElicitationCreate, params, &res)
		}()
	}
	return errs
}

// TestServerRequestsBounded: a server that asks faster than the user answers gets "too
// many requests" past MaxServerRequests, or past MaxServerRequestBytes of params; the
// pending queue holds the bound, and takes requests again once answered.
func TestServerRequestsBounded(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	refusedIn := func(t *testing.T, errs <-chan error, n int) {
		t.Helper()
		for range n {
			var err error
			select {
			case err = <-errs:
			case <-ctx.Done():
				t.Fatalf("the requests past the bound were not refused")
			}
			var rpcErr *jsonrpc.Error
			if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidRequest || !strings.Contains(rpcErr.Message, "too many requests") {
				t.Fatalf("a request past the bound ended with %v", err)
			}
		}
	}
	// The admitted requests reach the queue on their own goroutines.
	pendingNow := func(t *testing.T, s *client.Session, want int) {
		t.Helper()
		for got := len(s.PendingRequests()); got != want; got = len(s.PendingRequests()) {
			if got > want || ctx.Err() != nil {
				t.Fatalf("%d requests pending, want %d", got, want)
			}
			time.Sleep(time.Millisecond)
		}
	}
	declineAll := func(t *testing.T, s *client.Session, errs <-chan error, n int) {
		t.Helper()
		for _, r := range s.PendingRequests() {
			r.Decline()
		}
		for range n {
			if err := <-errs; err != nil {
				t.Fatalf("a declined request ended with %v", err)
			}
		}
	}

	t.Run("count", func(t *testing.T) {
		s, srv := rawServerConn(t, nil, endless)
		defer s.Subscribe().Close() // a front end that has not answered yet
		const extra = 100
		errs := elicit(ctx, srv, client.DefaultMaxServerRequests+extra, 10)
		refusedIn(t, errs, extra) // the refusals come first: the others wait for the user
		pendingNow(t, s, client.DefaultMaxServerRequests)
		declineAll(t, s, errs, client.DefaultMaxServerRequests)
		again := elicit(ctx, srv, 1, 10)
		for len(s.PendingRequests()) == 0 {
			select {
			case err := <-again:
				t.Fatalf("a request after the others were answered ended with %v", err)
			case <-time.After(time.Millisecond):
			}
		}
		declineAll(t, s, again, 1)
	})
	t.Run("bytes", func(t *testing.T) {
		s, srv := rawServerConn(t, &client.Options{MaxServerRequests: -1, MaxServerRequestBytes: 1 << 20}, endless)
		defer s.Subscribe().Close() // a front end that has not answered yet
		errs := elicit(ctx, srv, 10, 300<<10)
		refusedIn(t, errs, 7) // three of about 300 KiB fit in 1 MiB
		pendingNow(t, s, 3)
		declineAll(t, s, errs, 3)
	})
}

// serveRaw serves conn as a raw 2025-11-25 server: it answers initialize (tools and task
// capabilities) and passes every other message to handle.
func serveRaw(t *testing.T, conn jsonrpc.Connection, handle jsonrpc.HandlerFunc) *jsonrpc.Conn {
	srv := jsonrpc.NewConn(conn, jsonrpc.Options{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		switch req.Method {
		case mcp.MethodInitialize:
			return &mcp.InitializeResult{
				ProtocolVersion: mcp.LatestProtocolVersion,
				ServerInfo:      mcp.Implementation{Name: "raw", Version: "1"},
				Capabilities: mcp.ServerCapabilities{
					Tools: &mcp.ToolsCapability{},
					Tasks: &mcp.ServerTasksCapability{List: &struct{}{}, Cancel: &struct{}{}, Requests: &mcp.ServerTaskRequests{Tools: &mcp.TaskToolRequests{Call: &struct{}{}}}},
				},
			}, nil
		case mcp.NotificationInitialized:
			return nil, nil
		}
		return handle(ctx, req)
	})})
	t.Cleanup(func() { srv.Close() })
	return srv
}

// progressTask returns the task of the first progress event sub reads.
func progressTask(ctx context.Context, t *testing.T, sub *client.Subscription) *client.Task {
	t.Helper()
	for {
		e, ok := sub.Next(ctx)
		if !ok {
			t.Fatal("no progress event with the task")
		}
		if te, ok := e.(*client.TaskEvent); ok && te.Kind == client.TaskProgress {
			return te.Task
		}
	}
}

// TestCountsAgree: the errors that count pages, items or lines say "1 page", not "1 pages".
func TestCountsAgree(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{&client.ListLimitError{Method: "tools/list", Pages: 1, MaxPages: 1}, "tools/list: stopped at the bound of 1 page, with more to come"},
		{&client.ListLimitError{Method: "tools/list", Pages: 2, MaxPages: 2}, "tools/list: stopped at the bound of 2 pages, with more to come"},
		{&client.ListLimitError{Method: "tools/list", Items: 1, MaxItems: 1, ItemBound: true}, "tools/list: stopped at the bound of 1 item, with more to come"},
		{&client.StrayOutputError{Lines: 1, Last: "hi", Err: errors.New("EOF")}, `EOF (the server wrote 1 line on its stdout that is no JSON-RPC message: "hi")`},
		{&client.StrayOutputError{Lines: 2, Last: "hi", Err: errors.New("EOF")}, `EOF (the server wrote 2 lines on its stdout that are no JSON-RPC message; the last: "hi")`},
	} {
		if got := c.err.Error(); got != c.want {
			t.Errorf("%T:\n got %s\nwant %s", c.err, got, c.want)
		}
	}
}
