// Package demo is mcpi's demo and test server, "mcpi-demo": the server the inspector talks
// to when the user names none, the fixture of the end-to-end tests, and the server side of
// the benchmark workloads (/work/shared/BENCH.md).
//
// It offers these tools:
//
//   - echo {text?}: one text item with the text (the benchmark's round trip).
//   - add {a, b}: the sum as text, and as structured content {"sum": N}.
//   - slow {seconds?, steps?}: waits, reporting progress at each step; cancellable.
//   - ask_user {message?}: asks the user a small form through elicitation.
//   - ask_model {prompt, maxTokens?}: asks the client's model through sampling.
//   - log_levels {message?}: sends one log message at every level.
//   - bench_stats {reset?}: requests received per method and the peak RSS.
//   - list_roots: asks the client for its roots (roots/list) and returns them.
//
// and these task tools (revision 2025-11-25 tool tasks; the server declares
// tasks{list, cancel, requests.tools.call}, suggests a pollInterval of 1 s, and lets a
// new session reach an ended session's task by its id):
//
//   - instant_task (optional): completes at once with "done".
//   - sleep_task {seconds} (optional): completes after seconds.
//   - slow_task {seconds?, steps?} (required): progress and statusMessage at each step.
//   - fail_task {mode} (optional): isError result, or the JSON-RPC error -32050.
//   - side_effect_task {seconds, path} (required): creates a file after seconds, unless
//     cancelled first. path names the file inside the server's own directory
//     ([Options.SideEffectDir]); an absolute path, "..", or a symbolic link out of it is
//     refused.
//   - ask_task (required): input_required; asks the user (elicitation), then the model
//     (sampling), through the tasks/result side channel (in 2026-07-28 through the
//     task's inputRequests, answered with tasks/update).
//   - short_ttl_task {seconds} (optional): its tasks live at most 2 s.
//
// add is marked taskSupport forbidden; the other plain tools declare no execution.
//
// It is also a requestor of client tasks (receiver tasks on the client): these tools
// send task-augmented requests to the client, poll its tasks/get at the pollInterval the
// client suggests (at least 1 ms; 1 s when it suggests none), fetch tasks/result, and
// report the answer with the number of polls ([ClientTaskReport] as structured content).
// All are taskSupport optional; called as a task, a tool tags its request with its own
// task (related-task) and stays input_required until the client's task has ended.
//
//   - ask_user_task {message?, ttl?}: elicitation/create (ask_user's form) as a task; a
//     client that does not accept elicitation as a task gets a plain request, and the
//     result says so.
//   - ask_model_task {prompt, maxTokens?, ttl?}: the same for sampling/createMessage.
//   - ask_then_cancel {seconds, message?, ttl?}: elicitation/create as a task, then after
//     seconds tasks/cancel; reports the cancelled task, or the client's error (-32602 when
//     the task had already ended).
//   - list_client_tasks: tasks/list on the client, every page, as JSON text.
//
// Tasks are bound to the session that created them: another session's tasks/get,
// tasks/result, tasks/cancel and tasks/list never see them. Once a session has ended,
// a session opened with the same credentials (the Authorization header of its
// initialize, or none) that names one of its task ids (128 random bits, known only to
// whoever was told) takes the task over ([server.Options.AdoptOrphanTasks]), which lets
// a CLI fetch a detached task's result from a new process. The demo server checks no
// credentials: whoever sends the same header, or none, is the same client. Limits: 100 running tasks per session, ttl at most 24 hours (1 hour
// when none is asked for), 1,000 tasks kept per session.
//
// and one prompt (greet), one resource (demo://about), one resource template
// (demo://greetings/{name}), and completion for the prompt's and the template's arguments.
package demo

import (
	"context"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/mcpi-dev/mcpi/internal/pause"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/tasks"
)

// Name is the server name the demo server introduces itself with.
const Name = "mcpi-demo"

// Version is the demo server's version.
const Version = "0.1.0"

// Names of the demo server's tools, prompt, resource and template.
const (
	ToolEcho       = "echo"
	ToolAdd        = "add"
	ToolSlow       = "slow"
	ToolAskUser    = "ask_user"
	ToolAskModel   = "ask_model"
	ToolLogLevels  = "log_levels"
	ToolBenchStats = "bench_stats"
	ToolListRoots  = "list_roots"

	PromptGreet      = "greet"
	ResourceAbout    = "demo://about"
	TemplateGreeting = "demo://greetings/{name}"
)

// Options configures the demo server. The zero value (or nil) is a working server.
type Options struct {
	// PageSize bounds every list result; 0 means the server default (100). Small values
	// exercise pagination.
	PageSize int
	// Sleep waits for d or until ctx ends, returning ctx's error in that case. The slow
	// tool waits through it, so tests can replace time. Nil means a real timer.
	Sleep func(ctx context.Context, d time.Duration) error
	// OnSlowExit, when set, is called each time a slow call stops: with err nil when it
	// completed, or with the context's error when it was cancelled. steps is the number of
	// steps it finished.
	OnSlowExit func(steps int, err error)
	// Tap, when set, sees every message of every session, after the demo server's own
	// request counting.
	Tap func(s *server.Session, dir jsonrpc.Direction, m jsonrpc.Message)
	// Tasks tunes the task engine behind the task tools (a copy is used); nil, or a zero
	// field, takes the engine's defaults, except PollInterval, which defaults to
	// [DefaultTaskPollInterval], and RatePerSecond, which defaults to [DefaultTaskRate].
	// Tests shorten PollInterval and PageSize here.
	Tasks *tasks.Options
	// OnSideEffectExit, when set, is called each time side_effect_task stops: with err
	// nil when it wrote path, or why it did not (the context's error when cancelled).
	// path is the file's path in SideEffectDir.
	OnSideEffectExit func(path string, err error)
	// SideEffectDir is the directory side_effect_task creates its files in; the tool's
	// path argument names a file inside it, and the tool cannot reach outside it. Empty
	// means a fresh temporary directory, made at the first call and left in place (the
	// files are what the tool is for).
	SideEffectDir string
	// Legacy makes the demo server speak only revision 2025-11-25. By default it speaks
	// 2026-07-28 too (see [server.Options.Modern]): its tools ask for input through MRTR
	// there, and its task tools follow the Tasks extension, the server deciding. The
	// required ones (slow_task, side_effect_task, ask_task) are always tasks (-32021 for a
	// request that did not declare the extension); the optional ones answer inline when
	// quick and become tasks when slow (server.TaskWhenSlow). ask_task asks through the
	// task's inputRequests and takes the answers from tasks/update. The requestor tools
	// (ask_user_task and the others) need 2025-11-25: 2026-07-28 has no tasks on the
	// client.
	Legacy bool
	Logger *slog.Logger
}

// DefaultTaskRate is the demo server's limit on task operations per session and second.
const DefaultTaskRate = 2000

// New returns the demo server.
func New(opts *Options) *server.Server {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Sleep == nil {
		o.Sleep = pause.For
	}
	d := &demo{opts: o, stats: newStats()}
	var to tasks.Options
	if o.Tasks != nil {
		to = *o.Tasks
	}
	if to.PollInterval <= 0 {
		to.PollInterval = DefaultTaskPollInterval
	}
	d.taskPoll = to.PollInterval
	if to.RatePerSecond == 0 {
		// Generous enough for the 1,000-task bursts of the benchmarks, tight enough to
		// stop a runaway poller; a negative value turns the limit off.
		to.RatePerSecond, to.RateBurst = DefaultTaskRate, 2*DefaultTaskRate
	}
	srv := server.New(mcp.Implementation{
		Name:        Name,
		Title:       "mcpi demo server",
		Version:     Version,
		Description: "A small server that exercises tools, progress, cancellation, elicitation, sampling, logging, prompts, resources and completion.",
	}, &server.Options{
		Instructions: "mcpi's demo server. Try echo and add, watch progress with slow (and cancel it), " +
			"answer ask_user and ask_model from the inspector, and read demo://about. Call slow_task, ask_task " +
			"and the other *_task tools as tasks.",
		Logger:   o.Logger,
		Modern:   !o.Legacy,
		PageSize: o.PageSize,
		Complete: d.complete,
		Tasks:    &to,
		// A client that lost its session (a CLI that exited, a dropped HTTP
		// connection) fetches its task again by id from a new one.
		AdoptOrphanTasks: true,
		Tap: func(s *server.Session, dir jsonrpc.Direction, m jsonrpc.Message) {
			d.stats.observe(dir, m)
			if o.Tap != nil {
				o.Tap(s, dir, m)
			}
		},
	})
	d.addTools(srv)
	d.addTaskTools(srv)
	d.addRequestorTools(srv)
	d.addPromptsAndResources(srv)
	return srv
}

type demo struct {
	opts  Options
	stats *stats
	// taskPoll is the pollInterval the server suggests for its tool tasks.
	taskPoll time.Duration
	// files is side_effect_task's directory, opened at its first call.
	files struct {
		once sync.Once
		root *os.Root
		err  error
	}
}
