package call

import (
	"path/filepath"
	"testing"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/cli/state"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// A task whose every poll the server answers with an error is lost, not failed: with
// --json its last line is a "lost" event with the last poll's error and the command that
// fetches the result, which names a task the state file recorded. (The follower gives up
// after its retries, some seven seconds.)
func TestLostTaskJSON(t *testing.T) {
	f, env := modernServer(t)
	polledTask(f, 0, func() (any, error) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "database down"}
	})
	store := &state.Store{Path: filepath.Join(t.TempDir(), state.FileName)}
	err := runIn(t, env, &Options{Name: "greet", Task: true, JSON: true, State: store})
	checkErr(t, err, `mcpi: the server at `+env.Selection.URL+` answered the latest polls of the task "t1" with an error (database down, JSON-RPC error -32603): it may still be running there; get its result with "mcpi tasks result t1" later`, 1)
	evs := events(t, env.Out.String())
	last := evs[len(evs)-1]
	if last.Event != "lost" || last.Lost == nil || last.Lost.Reason != "errorAnswers" || last.Lost.Polls != client.MaxFailedPolls ||
		last.Lost.Fetch != "mcpi tasks result t1" || last.Error == nil || last.Error.Code == nil || *last.Error.Code != jsonrpc.CodeInternalError ||
		last.Error.Message != "database down" || last.Task == nil || last.Task.Status != mcp.TaskStatusWorking {
		t.Errorf("last line: %s", env.Out)
	}
	if _, ok, err := store.Find("t1"); !ok || err != nil {
		t.Errorf("the lost task was not recorded: %v", err)
	}
}
