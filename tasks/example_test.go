package tasks_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/tasks"
)

// The engine on its own, as a server's tasks/* handlers drive it: create a task whose
// work runs on a context of its own, wait for its outcome as tasks/result does, and see
// that another owner (another session, another caller) cannot reach it.
func ExampleManager() {
	m := tasks.New(tasks.Options{})
	defer m.Close()

	created, err := m.Create("session-1", &mcp.TaskMetadata{}, func(ctx context.Context, h *tasks.Handle) tasks.Outcome {
		h.SetStatus(mcp.TaskStatusWorking, "adding") // tasks/get shows it meanwhile
		return tasks.Outcome{Result: json.RawMessage(`{"content":[{"type":"text","text":"5"}]}`)}
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(created.Status)

	out, err := m.Result(context.Background(), "session-1", created.TaskID, jsonrpc.ID{})
	if err != nil {
		log.Fatal(err)
	}
	st, _ := m.Get("session-1", created.TaskID)
	fmt.Println(st.Status, string(out.Result))

	// To another owner the task is an unknown id (ErrNotFound is both), so ids cannot be probed.
	_, err = m.Get("session-2", created.TaskID)
	fmt.Println(errors.Is(err, tasks.ErrNotFound))
	// Output:
	// working
	// completed {"content":[{"type":"text","text":"5"}]}
	// true
}
