package client_test

import (
	"context"
	"slices"
	"testing"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/tasks"
	"github.com/mcpi-dev/mcpi/transport"
)

// TestFloodLeavesOutEventsNotTheOutcome: a task whose server sends far more progress
// notifications than a subscription holds, while the session's and the task's readers
// read nothing (the task's through Task.Events and through CallToolTask). Each
// subscription holds its bound, leaving out the oldest and counting them where they were;
// the newest arrive (the last progress notification), and so do the task's outcome and
// the session's end; a reader that keeps up misses nothing.
func TestFloodLeavesOutEventsNotTheOutcome(t *testing.T) {
	readers := map[string]func(ctx context.Context, sess *client.Session, gate chan struct{}) []client.TaskEvent{
		"Task.Events": func(ctx context.Context, sess *client.Session, gate chan struct{}) []client.TaskEvent {
			task, err := sess.StartToolTask(ctx, &mcp.CallToolParams{Name: "flood"}, &client.CallOptions{Progress: true})
			if err != nil {
				t.Fatal(err)
			}
			events := task.Events(ctx) // subscribes now, read only after the task has ended
			close(gate)
			<-task.Done()
			return slices.Collect(events)
		},
		"CallToolTask": func(ctx context.Context, sess *client.Session, gate chan struct{}) []client.TaskEvent {
			var evs []client.TaskEvent
			for e := range sess.CallToolTask(ctx, &mcp.CallToolParams{Name: "flood"}, &client.CallOptions{Progress: true}) {
				if len(evs) == 0 {
					close(gate)
					<-e.Task.Done()
				}
				evs = append(evs, e)
			}
			return evs
		},
	}
	for name, read := range readers {
		t.Run(name, func(t *testing.T) { flood(t, read) })
	}
}

func flood(t *testing.T, read func(ctx context.Context, sess *client.Session, gate chan struct{}) []client.TaskEvent) {
	const notes = client.MaxQueuedEvents + 5000
	gate := make(chan struct{})
	srv := server.New(mcp.Implementation{Name: "flood", Version: "1"}, &server.Options{Tasks: &tasks.Options{}})
	defer srv.Close()
	srv.AddTool(&mcp.Tool{Name: "flood", Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			<-gate
			total := float64(notes)
			for i := range notes {
				if err := req.Progress(ctx, float64(i+1), &total, ""); err != nil {
					return nil, err
				}
			}
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("flooded")}}, nil
		})
	tr := transport.PipeTransport{Serve: func(ctx context.Context, conn jsonrpc.Connection) error {
		srv.Connect(ctx, conn)
		return nil
	}}
	ctx := context.Background()
	sess, err := client.New(mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, tr)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()

	// A reader that keeps up, to know what happened.
	fast := sess.Subscribe()
	seen := make(chan []client.Event)
	go func() {
		var all []client.Event
		for e := range fast.All(ctx) {
			all = append(all, e)
		}
		seen <- all
	}()
	stalled := sess.Subscribe()

	var progress, dropped int
	var lastProgress float64
	var last client.TaskEvent
	for _, e := range read(ctx, sess, gate) {
		switch {
		case e.Kind == client.TaskProgress:
			if e.Dropped != 0 || progress > 0 && e.Progress.Progress <= last.Progress.Progress {
				t.Fatalf("progress %v after %v", e.Progress.Progress, last.Progress.Progress)
			}
			progress++
			last = e
			lastProgress = e.Progress.Progress
		case e.Dropped > 0:
			if e.Kind != client.TaskStatus || e.State.TaskID == "" || e.State.TaskID != e.Task.ID() {
				t.Fatalf("a gap as %s of %q", e.Kind, e.State.TaskID)
			}
			dropped += e.Dropped
		}
		if e.Kind.IsOutcome() {
			last = e
		}
	}
	if last.Kind != client.TaskResult || last.Result == nil || last.Result.Content[0].Text != "flooded" {
		t.Fatalf("the task's events end with %s %v", last.Kind, last.Result)
	}
	if progress > client.MaxQueuedEvents || dropped < notes-client.MaxQueuedEvents {
		t.Fatalf("the task's reader got %d progress events and %d left out, of %d", progress, dropped, notes)
	}
	if lastProgress != notes {
		t.Fatalf("the task's reader's last progress is %v, want the last sent, %d", lastProgress, notes)
	}

	sess.Close()
	all := <-seen
	var got []client.Event
	for e := range stalled.All(ctx) {
		got = append(got, e)
	}
	count := func(evs []client.Event) (real, left int) {
		for _, e := range evs {
			if d, ok := e.(*client.DroppedEvent); ok {
				left += d.Count
			} else {
				real++
			}
		}
		return real, left
	}
	fastReal, fastLeft := count(all)
	real, left := count(got)
	if fastReal+fastLeft != real+left || real+left < 3*notes {
		t.Fatalf("the keeping-up reader saw %d events (%d left out), the stalled one %d (%d left out); %d notifications",
			fastReal+fastLeft, fastLeft, real+left, left, notes)
	}
	// The stalled reader: one gap, the task's creation, then the newest events as the
	// keeping-up reader saw them, the outcome and the session's end among them.
	if len(got) > client.MaxQueuedEvents {
		t.Fatalf("the stalled reader got %d events, over the bound", len(got))
	}
	if _, ok := got[0].(*client.DroppedEvent); !ok {
		t.Fatalf("the stalled reader's first event is %T, want the gap", got[0])
	}
	// The task's creation, kept from among those left out.
	rest := got[1:]
	if te, ok := rest[0].(*client.TaskEvent); !ok || te.Kind != client.TaskCreated {
		t.Fatalf("past the gap %#v, want the task's creation", rest[0])
	}
	rest = rest[1:]
	newest := all[len(all)-len(rest):]
	for i, e := range rest {
		if e != newest[i] {
			t.Fatalf("past the gap, event %d is %T, the keeping-up reader's %T", i, e, newest[i])
		}
	}
	if _, ok := got[len(got)-1].(*client.ClosedEvent); !ok {
		t.Fatalf("the stalled reader's last event is %T", got[len(got)-1])
	}
	outcome := slices.IndexFunc(got, func(e client.Event) bool {
		te, ok := e.(*client.TaskEvent)
		return ok && te.Kind == client.TaskResult
	})
	if outcome < 0 {
		t.Fatal("the stalled reader has no outcome")
	}
}
