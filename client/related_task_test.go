package client_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/look"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// relatedServer is a scripted server of 2025-11-25 whose tool task t1 is completed, and
// whose tasks/result answers with result.
func relatedServer(t *testing.T, result string) *fakeServer {
	f := newLegacy(t, nil)
	f.On(mcp.MethodInitialize, func(context.Context, *jsonrpc.Request) (any, error) {
		return raw(`{"protocolVersion":"2025-11-25","serverInfo":{"name":"related","version":"1"},"capabilities":{"tools":{},"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}}}`), nil
	})
	f.Answer(mcp.MethodToolsList, `{"tools":[{"name":"slow","inputSchema":{"type":"object"},"execution":{"taskSupport":"optional"}}]}`)
	task := `{"taskId":"t1","status":"%s","createdAt":"2000-01-01T00:00:00Z","lastUpdatedAt":"2000-01-01T00:00:00Z","ttl":600000,"pollInterval":10}`
	f.Answer(mcp.MethodToolsCall, `{"task":`+fmt.Sprintf(task, "working")+`}`)
	f.Answer(mcp.MethodTasksGet, fmt.Sprintf(task, "completed"))
	f.Answer(mcp.MethodTasksResult, result)
	return f
}

// A tasks/result whose related-task names another task is not taken as this task's
// result: the task ends with a *RelatedTaskError naming both ids, whoever fetches it
// (the follower, Session.TaskResult). A result without the key is taken, as the
// conformance scenarios and servers that omit it expect.
func TestTaskResultOfAnotherTask(t *testing.T) {
	ctx := bounded(t)
	f := relatedServer(t, `{"content":[{"type":"text","text":"result of OTHER"}],"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"other"}}}`)
	sess := f.MustConnect(ctx, nil)
	task, err := sess.StartToolTask(ctx, &mcp.CallToolParams{Name: "slow"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, werr := task.Wait(ctx)
	_, rerr := sess.TaskResult(ctx, "t1")
	for name, err := range map[string]error{"Task.Wait": werr, "Session.TaskResult": rerr} {
		var rel *client.RelatedTaskError
		if !errors.As(err, &rel) || rel.TaskID != "t1" || rel.Named != "other" {
			t.Errorf("%s: %v (%T), want a *RelatedTaskError of t1 naming other", name, err, err)
			continue
		}
		const want = `the server answered tasks/result for the task "t1" with the result of another task ("other"), which mcpi did not take`
		if got := look.Sentence(err); got != want {
			t.Errorf("%s: sentence\n got %s\nwant %s", name, got, want)
		}
	}
	if res != nil {
		t.Errorf("Task.Wait gave the other task's result %+v", res)
	}

	f = relatedServer(t, `{"content":[{"type":"text","text":"mine"}]}`)
	sess = f.MustConnect(ctx, nil)
	task, err = sess.StartToolTask(ctx, &mcp.CallToolParams{Name: "slow"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := task.Wait(ctx); err != nil || len(res.Content) != 1 || res.Content[0].Text != "mine" {
		t.Errorf("a result without related-task: %+v, %v; want it taken", res, err)
	}
}
