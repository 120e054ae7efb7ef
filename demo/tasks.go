package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
)

// Names of the demo server's task tools. The CLI and the benchmarks call them by these
// names (instant_task and sleep_task are the benchmark workloads of BENCH.md).
const (
	ToolInstantTask    = "instant_task"
	ToolSleepTask      = "sleep_task"
	ToolSlowTask       = "slow_task"
	ToolFailTask       = "fail_task"
	ToolSideEffectTask = "side_effect_task"
	ToolAskTask        = "ask_task"
	ToolShortTTLTask   = "short_ttl_task"
)

// Task tool constants.
const (
	// MaxTaskSeconds bounds the seconds argument of the task tools.
	MaxTaskSeconds = 600
	// DefaultSlowTaskSeconds and DefaultSlowTaskSteps are slow_task's defaults.
	DefaultSlowTaskSeconds = 5
	DefaultSlowTaskSteps   = 5
	// ShortTaskTTL is the most a short_ttl_task task may live, whatever the client asks.
	ShortTaskTTL = 2 * time.Second
	// DefaultTaskPollInterval is the pollInterval the demo server suggests.
	DefaultTaskPollInterval = time.Second

	// FailTaskCode, FailTaskMessage and FailTaskData make up the JSON-RPC error of
	// fail_task {mode: "error"}, which tasks/result must return exactly.
	FailTaskCode    = -32050
	FailTaskMessage = "fail_task failed on purpose"
	FailTaskData    = `{"reason":"demo"}`
	// FailTaskText is the text of fail_task {mode: "isError"}.
	FailTaskText = "fail_task reports a tool error on purpose"
	// InstantTaskText is what instant_task returns.
	InstantTaskText = "done"
)

// Execution values of the task tools.
var (
	taskOptional  = &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}
	taskRequired  = &mcp.ToolExecution{TaskSupport: mcp.TaskSupportRequired}
	taskForbidden = &mcp.ToolExecution{TaskSupport: mcp.TaskSupportForbidden}
)

const secondsProperty = `"seconds":{"type":"number","title":"Seconds","description":"How long the work takes.","minimum":0,"maximum":600}`

func (d *demo) addTaskTools(srv *server.Server) {
	srv.AddTool(&mcp.Tool{
		Name:        ToolInstantTask,
		Title:       "Instant task",
		Description: `Completes at once with the text "done". Call it as a task (taskSupport optional) to measure a task round trip.`,
		InputSchema: json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: ptr(true), OpenWorldHint: ptr(false)},
		Execution:   taskOptional,
	}, d.instantTask)

	srv.AddTool(&mcp.Tool{
		Name:        ToolSleepTask,
		Title:       "Sleeping task",
		Description: "Completes after the given number of seconds (0 to 600). taskSupport optional.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{` + secondsProperty + `},` +
			`"required":["seconds"],"additionalProperties":false}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: ptr(true), OpenWorldHint: ptr(false)},
		Execution:   taskOptional,
	}, d.sleepTask)

	srv.AddTool(&mcp.Tool{
		Name:  ToolSlowTask,
		Title: "Slow task with progress",
		Description: "Must run as a task (taskSupport required). Works for the given seconds in steps; at each " +
			`step it sends a progress notification and sets the task's statusMessage to "step k of n".`,
		InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"seconds":{"type":"number","title":"Seconds","description":"How long to take in total.","minimum":0,"maximum":600,"default":5},` +
			`"steps":{"type":"integer","title":"Steps","description":"How many steps.","minimum":1,"maximum":1000,"default":5}},` +
			`"additionalProperties":false}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: ptr(true), OpenWorldHint: ptr(false)},
		Execution:   taskRequired,
	}, d.slowTask)

	srv.AddTool(&mcp.Tool{
		Name:  ToolFailTask,
		Title: "Failing task",
		Description: `Fails on purpose (taskSupport optional). mode "isError" returns a tool result with isError set; ` +
			`mode "error" fails with the JSON-RPC error -32050 "fail_task failed on purpose", data {"reason":"demo"}.`,
		InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"mode":{"type":"string","title":"Mode","description":"How to fail.","enum":["isError","error"],"default":"isError"}},` +
			`"additionalProperties":false}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: ptr(true), OpenWorldHint: ptr(false)},
		Execution:   taskOptional,
	}, d.failTask)

	srv.AddTool(&mcp.Tool{
		Name:  ToolSideEffectTask,
		Title: "Task with a side effect",
		Description: "Must run as a task (taskSupport required). After the given seconds it creates the file at path " +
			"in the server's own directory (never overwriting one); cancel the task before then and the file is never written.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{` + secondsProperty + `,` +
			`"path":{"type":"string","title":"Path","description":"The file to create, a relative name inside the server's directory; it must not exist yet.","minLength":1}},` +
			`"required":["seconds","path"],"additionalProperties":false}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: ptr(false), DestructiveHint: ptr(false), OpenWorldHint: ptr(false)},
		Execution:   taskRequired,
	}, d.sideEffectTask)

	srv.AddTool(&mcp.Tool{
		Name:  ToolAskTask,
		Title: "Task that asks the user and the model",
		Description: "Must run as a task (taskSupport required). Goes input_required to ask the user's name " +
			"(elicitation), then asks the model to greet them (sampling), both through the tasks/result side channel, " +
			"and returns both answers.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: ptr(true), OpenWorldHint: ptr(true)},
		Execution:   taskRequired,
	}, d.askTask)

	srv.AddToolWith(&mcp.Tool{
		Name:  ToolShortTTLTask,
		Title: "Short-lived task",
		Description: "Like sleep_task, but its tasks live at most 2 seconds from creation (taskSupport optional): " +
			"sleep longer and the task expires, so that the client sees it vanish.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{` + secondsProperty + `},` +
			`"required":["seconds"],"additionalProperties":false}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: ptr(true), OpenWorldHint: ptr(false)},
		Execution:   taskOptional,
	}, d.sleepTask, &server.ToolOptions{MaxTaskTTL: ShortTaskTTL})
}

// seconds reads a seconds argument, checking its range.
func seconds(v *float64, def float64) (time.Duration, *mcp.CallToolResult) {
	s := def
	if v != nil {
		s = *v
	}
	if s < 0 || s > MaxTaskSeconds || math.IsNaN(s) {
		return 0, toolError("seconds must be between 0 and %d, got %s", MaxTaskSeconds, formatNumber(s))
	}
	return time.Duration(s * float64(time.Second)), nil
}

func (d *demo) instantTask(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
	return textResult(InstantTaskText), nil
}

func (d *demo) sleepTask(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		Seconds *float64 `json:"seconds"`
	}
	if r := arguments(req, &args); r != nil {
		return r, nil
	}
	if args.Seconds == nil {
		return toolError("%s needs seconds", req.Params.Name), nil
	}
	dur, r := seconds(args.Seconds, 0)
	if r != nil {
		return r, nil
	}
	if err := d.opts.Sleep(ctx, dur); err != nil {
		return nil, err
	}
	return textResult(fmt.Sprintf("slept %s", dur)), nil
}

func (d *demo) slowTask(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		Seconds *float64 `json:"seconds"`
		Steps   *int     `json:"steps"`
	}
	if r := arguments(req, &args); r != nil {
		return r, nil
	}
	total, r := seconds(args.Seconds, DefaultSlowTaskSeconds)
	if r != nil {
		return r, nil
	}
	steps := DefaultSlowTaskSteps
	if args.Steps != nil {
		steps = *args.Steps
	}
	if steps < 1 || steps > MaxSlowSteps {
		return toolError("steps must be between 1 and %d, got %d", MaxSlowSteps, steps), nil
	}
	status := func(msg string) error {
		// Asked each time: in 2026-07-28 a call becomes a task only when it is slow.
		h, _ := server.TaskFromContext(ctx)
		if h == nil {
			return nil
		}
		// The task's statusMessage follows the steps; an error means the task has
		// ended (cancelled), so the work stops.
		return h.SetStatus(mcp.TaskStatusWorking, msg)
	}
	step := total / time.Duration(steps)
	n := float64(steps)
	_ = req.Progress(ctx, 0, &n, fmt.Sprintf("started: %s of %s", plural(steps, "step"), step))
	if err := status("started: " + plural(steps, "step")); err != nil {
		return nil, err
	}
	for k := 1; k <= steps; k++ {
		if err := d.opts.Sleep(ctx, step); err != nil {
			return nil, err
		}
		msg := fmt.Sprintf("step %d of %d", k, steps)
		_ = req.Progress(ctx, float64(k), &n, msg)
		if err := status(msg); err != nil {
			return nil, err
		}
	}
	return textResult(fmt.Sprintf("done: worked %s in %s", total, plural(steps, "step"))), nil
}

func (d *demo) failTask(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		Mode string `json:"mode"`
	}
	if r := arguments(req, &args); r != nil {
		return r, nil
	}
	switch args.Mode {
	case "", "isError":
		return toolError(FailTaskText), nil
	case "error":
		return nil, &jsonrpc.Error{Code: FailTaskCode, Message: FailTaskMessage, Data: json.RawMessage(FailTaskData)}
	}
	return toolError(`mode must be "isError" or "error", got %q`, args.Mode), nil
}

func (d *demo) sideEffectTask(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		Seconds *float64 `json:"seconds"`
		Path    string   `json:"path"`
	}
	if r := arguments(req, &args); r != nil {
		return r, nil
	}
	if args.Seconds == nil || args.Path == "" {
		return toolError("side_effect_task needs seconds and path"), nil
	}
	dur, r := seconds(args.Seconds, 0)
	if r != nil {
		return r, nil
	}
	if !inside(args.Path) {
		return toolError(`side_effect_task writes only inside its own directory: path must be a relative name without "..", not %q`, args.Path), nil
	}
	root, err := d.sideEffectRoot()
	if err != nil {
		return toolError("side_effect_task has no directory to write in: %v", err), nil
	}
	full := filepath.Join(root.Name(), args.Path)
	var werr error
	stopped := func(err error) (*mcp.CallToolResult, error) {
		// Stopped before the side effect: say so, as the only trace a server in another
		// process can leave (the task is cancelled, so there is no result).
		_ = req.Session.Log(context.WithoutCancel(ctx), mcp.LoggingLevelNotice, Name,
			fmt.Sprintf("side_effect_task stopped without writing %s: %v", args.Path, err))
		if d.opts.OnSideEffectExit != nil {
			d.opts.OnSideEffectExit(full, err)
		}
		return nil, err
	}
	if err := d.opts.Sleep(ctx, dur); err != nil {
		return stopped(err)
	}
	write := func(id string) {
		// O_EXCL: the tool creates a file, it never replaces one (nor follows a symbolic
		// link in its place). The root keeps the rest of the path inside the directory.
		f, err := root.OpenFile(args.Path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			_, err = fmt.Fprintf(f, "written by side_effect_task %s\n", id)
			err = errors.Join(err, f.Close())
		}
		werr = err
	}
	// The description promises no file to a task cancelled in time: the write and the
	// task's fate are settled together, so that a cancel that comes as the wait ends
	// either stops the write or is answered as for a task that ended (checking ctx
	// and then writing let a cancel in between: 1 run in 40 was cancelled with its file
	// written).
	if h, ok := server.TaskFromContext(ctx); ok {
		if !h.Commit(func() { write(h.ID()) }) {
			return stopped(context.Canceled)
		}
	} else if ctx.Err() != nil {
		return stopped(ctx.Err())
	} else {
		write("")
	}
	err = werr
	if d.opts.OnSideEffectExit != nil {
		d.opts.OnSideEffectExit(full, err)
	}
	if err != nil {
		return toolError("side_effect_task could not write %s: %v", args.Path, err), nil
	}
	return textResult("wrote " + args.Path + " in " + root.Name()), nil
}

// inside reports whether path names a file below a directory, whatever the directory:
// relative, and without a ".." element even where it would stay inside.
func inside(path string) bool {
	return filepath.IsLocal(path) && !slices.Contains(strings.Split(filepath.ToSlash(path), "/"), "..")
}

// sideEffectRoot opens side_effect_task's directory, making a temporary one when the
// options name none.
func (d *demo) sideEffectRoot() (*os.Root, error) {
	f := &d.files
	f.once.Do(func() {
		dir := d.opts.SideEffectDir
		if dir == "" {
			if dir, f.err = os.MkdirTemp("", "mcpi-demo-files-"); f.err != nil {
				return
			}
		}
		f.root, f.err = os.OpenRoot(dir)
	})
	return f.root, f.err
}

// The form ask_task sends.
var askTaskSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"name":{"type":"string","title":"Name","description":"What should we call you?","minLength":1}},` +
	`"required":["name"]}`)

// AskTaskAnswer is ask_task's structured content. The related-task fields are the task ids
// the client's two answers carried in _meta (io.modelcontextprotocol/related-task), as the
// server received them.
type AskTaskAnswer struct {
	Name                   string `json:"name"`
	Model                  string `json:"model"`
	ElicitationRelatedTask string `json:"elicitationRelatedTask"`
	SamplingRelatedTask    string `json:"samplingRelatedTask"`
}

func (d *demo) askTask(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
	if r := arguments(req, &struct{}{}); r != nil {
		return r, nil
	}
	caps := req.ClientCapabilities()
	if !caps.Elicitation.SupportsForm() || caps.Sampling == nil {
		return toolError("ask_task needs a client that supports form elicitation and sampling"), nil
	}
	// Inside a task, Elicit and CreateMessage set input_required, tag the requests with
	// the task and send them on the requestor's tasks/result stream.
	er, err := req.Session.Elicit(ctx, &mcp.ElicitParams{
		Mode:            mcp.ElicitModeForm,
		Message:         "What is your name?",
		RequestedSchema: askTaskSchema,
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return toolError("asking the user failed: %v", err), nil
	}
	if er.Action != mcp.ElicitActionAccept {
		return toolError("the user did not give a name (%s)", er.Action), nil
	}
	name, _ := er.Content["name"].(string)
	if strings.TrimSpace(name) == "" {
		return toolError("the user's answer lacks the required name"), nil
	}
	mr, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{
		Messages: []mcp.SamplingMessage{{
			Role:    mcp.RoleUser,
			Content: []mcp.Content{mcp.TextContent("Please greet " + name + " in one short sentence.")},
		}},
		MaxTokens: 100,
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return toolError("asking the model failed: %v", err), nil
	}
	var parts []string
	for _, c := range mr.Content {
		if c.Type == mcp.ContentTypeText {
			parts = append(parts, c.Text)
		}
	}
	a := AskTaskAnswer{Name: name, Model: strings.Join(parts, "\n")}
	a.ElicitationRelatedTask, _ = er.Meta.RelatedTask()
	a.SamplingRelatedTask, _ = mr.Meta.RelatedTask()
	structured, err := json.Marshal(a)
	if err != nil {
		return nil, err
	}
	r := textResult(fmt.Sprintf("name: %s; model: %s", a.Name, a.Model))
	r.StructuredContent = structured
	return r, nil
}
