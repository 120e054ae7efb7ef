package client_test

import (
	"errors"
	"testing"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/look"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// An answer that creates a task (a "task" object; in 2026-07-28 resultType "task") but
// cannot be read is never taken for a plain result with no content: the call fails with
// an *UnreadableTaskError that names the task, in either era.
func TestUnreadableCreatedTask(t *testing.T) {
	const task = `{"taskId":"t1","status":"working","createdAt":"2000-01-01T00:00:00Z","lastUpdatedAt":"2000-01-01T00:00:00Z","ttl":60000,"pollInterval":"100"}`
	ctx := bounded(t)
	legacy := relatedServer(t, `{}`)
	legacy.Answer(mcp.MethodToolsCall, `{"task":`+task+`}`)
	modern := newFake(t)
	modern.Answer(mcp.MethodToolsCall, `{"resultType":"task","taskId":"t1","status":"working","createdAt":"2000-01-01T00:00:00Z","lastUpdatedAt":"2000-01-01T00:00:00Z","ttlMs":60000,"pollIntervalMs":"100"}`)
	for name, f := range map[string]*fakeServer{"2025-11-25": legacy, "2026-07-28": modern} {
		sess := f.MustConnect(ctx, nil)
		var res *mcp.CallToolResult
		task, err := sess.StartToolTask(ctx, &mcp.CallToolParams{Name: "slow"}, nil)
		if err == nil {
			res, err = task.Wait(ctx)
		}
		var bad *client.UnreadableTaskError
		if !errors.As(err, &bad) || bad.TaskID != "t1" || res != nil {
			t.Errorf("%s: %+v, %v (%T); want an *UnreadableTaskError naming t1", name, res, err, err)
			continue
		}
		var call *jsonrpc.CallError
		if !errors.As(err, &call) || call.Op != jsonrpc.OpDecode {
			t.Errorf("%s: %v is not the server's answer (a *CallError of OpDecode)", name, err)
		}
		const want = `the server created the task "t1", but its answer could not be read (json: cannot unmarshal string into Go struct field Task.task.pollInterval of type int64)`
		if got := look.Sentence(err); got != want && name == "2025-11-25" {
			t.Errorf("%s: sentence\n got %s\nwant %s", name, got, want)
		}
	}
}
