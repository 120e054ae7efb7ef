package client_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/look"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// legacyTaskServer is a scripted server of 2025-11-25 that runs tool calls as tasks and
// keeps them working; it declares tasks.cancel only when cancels is set.
func legacyTaskServer(t *testing.T, cancels bool) *fakeServer {
	f := newLegacy(t, nil)
	caps := `{"tools":{},"tasks":{"list":{},"requests":{"tools":{"call":{}}}}}`
	if cancels {
		caps = `{"tools":{},"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}}`
	}
	f.On(mcp.MethodInitialize, func(context.Context, *jsonrpc.Request) (any, error) {
		return raw(`{"protocolVersion":"2025-11-25","serverInfo":{"name":"nocancel","version":"1"},"capabilities":` + caps + `}`), nil
	})
	f.Answer(mcp.MethodToolsList, `{"tools":[{"name":"slow","inputSchema":{"type":"object"},"execution":{"taskSupport":"optional"}}]}`)
	task := `{"taskId":"t1","status":"working","createdAt":"2000-01-01T00:00:00Z","lastUpdatedAt":"2000-01-01T00:00:00Z","ttl":600000,"pollInterval":60000}`
	f.Answer(mcp.MethodToolsCall, `{"task":`+task+`}`)
	f.Answer(mcp.MethodTasksGet, task)
	f.Answer(mcp.MethodTasksCancel, `{"taskId":"t1","status":"cancelled","createdAt":"2000-01-01T00:00:00Z","lastUpdatedAt":"2000-01-01T00:00:00Z","ttl":600000}`)
	return f
}

// A server of 2025-11-25 that declares no tasks.cancel is sent no tasks/cancel (the spec
// allows it only to a receiver that declared it): Task.Cancel and Session.CancelTask
// refuse with ErrNoTaskCancel, which reads as one sentence. One that declares it is sent
// the cancel.
func TestNoCancelWithoutTasksCancel(t *testing.T) {
	for _, cancels := range []bool{false, true} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		f := legacyTaskServer(t, cancels)
		sess := f.MustConnect(ctx, nil)
		if got := sess.CancelsTasks(); got != cancels {
			t.Errorf("cancels=%v: CancelsTasks() = %v", cancels, got)
		}
		task, err := sess.StartToolTask(ctx, &mcp.CallToolParams{Name: "slow"}, nil)
		if err != nil {
			t.Fatalf("cancels=%v: StartToolTask: %v", cancels, err)
		}
		_, terr := task.Cancel(ctx)
		_, serr := sess.CancelTask(ctx, "t1")
		sent := len(f.Requests(mcp.MethodTasksCancel))
		if cancels {
			if terr != nil || serr != nil || sent != 2 {
				t.Errorf("with tasks.cancel: Task.Cancel: %v, CancelTask: %v, %d tasks/cancel sent; want no errors and 2", terr, serr, sent)
			}
			sess.Close()
			continue
		}
		for name, err := range map[string]error{"Task.Cancel": terr, "Session.CancelTask": serr} {
			if !errors.Is(err, client.ErrNoTaskCancel) {
				t.Errorf("without tasks.cancel: %s: %v, want ErrNoTaskCancel", name, err)
			}
			if got, want := look.Sentence(err), "the server does not cancel tasks (it declares no tasks.cancel capability)"; got != want {
				t.Errorf("%s: the sentence is %q, want %q", name, got, want)
			}
		}
		if sent != 0 {
			t.Errorf("without tasks.cancel: %d tasks/cancel went to the server, want none", sent)
		}
		if st := task.State().Status; st != mcp.TaskStatusWorking {
			t.Errorf("without tasks.cancel: the task is %s after the refused cancel, want working", st)
		}
		sess.Close()
	}
}
