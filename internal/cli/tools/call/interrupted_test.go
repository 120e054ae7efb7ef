package call

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/mcpi-dev/mcpi/internal/cli/state"
	"github.com/mcpi-dev/mcpi/mcp"
)

// An interruption while following a task with --json ends the stream with an
// "interrupted" line that says what became of the task and how to fetch its result,
// as stderr does: the stream ended on a "status" line, which a script could not tell
// from a stream cut off.
func TestInterruptedJSON(t *testing.T) {
	f, env := modernServer(t)
	polledTask(f, math.MaxInt32, nil)
	store := &state.Store{Path: filepath.Join(t.TempDir(), state.FileName)}
	ctx, connectFn := env.InterruptOnCreate(t)
	opts := &Options{Name: "greet", Task: true, JSON: true, State: store, IO: env.IO, Connect: connectFn, Selection: env.Selection, Tick: -1}
	err := Run(ctx, opts)
	want := `mcpi: interrupted; the task "t1" is still running on the server: get its result with "mcpi tasks result t1"`
	checkErr(t, err, want, 2)
	evs := events(t, env.Out.String())
	last := evs[len(evs)-1]
	if last.Event != "interrupted" || last.Interrupted == nil || last.Interrupted.State != "running" ||
		last.Interrupted.Fetch != "mcpi tasks result t1" || last.Error == nil || last.Error.Code != nil ||
		"mcpi: "+last.Error.Message != want || last.Task == nil || last.Task.TaskID != "t1" || last.Task.Status != mcp.TaskStatusWorking {
		t.Errorf("last line: %s", env.Out)
	}
}
