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
//
// and one prompt (greet), one resource (demo://about), one resource template
// (demo://greetings/{name}), and completion for the prompt's and the template's arguments.
package demo

import (
	"context"
	"log/slog"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
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
	Tap    func(s *server.Session, dir jsonrpc.Direction, m jsonrpc.Message)
	Logger *slog.Logger
}

// New returns the demo server.
func New(opts *Options) *server.Server {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Sleep == nil {
		o.Sleep = sleep
	}
	d := &demo{opts: o, stats: newStats()}
	srv := server.New(mcp.Implementation{
		Name:        Name,
		Title:       "mcpi demo server",
		Version:     Version,
		Description: "A small server that exercises tools, progress, cancellation, elicitation, sampling, logging, prompts, resources and completion.",
	}, &server.Options{
		Instructions: "mcpi's demo server. Try echo and add, watch progress with slow (and cancel it), " +
			"answer ask_user and ask_model from the inspector, and read demo://about.",
		Logger:   o.Logger,
		PageSize: o.PageSize,
		Complete: d.complete,
		Tap: func(s *server.Session, dir jsonrpc.Direction, m jsonrpc.Message) {
			d.stats.observe(dir, m)
			if o.Tap != nil {
				o.Tap(s, dir, m)
			}
		},
	})
	d.addTools(srv)
	d.addPromptsAndResources(srv)
	return srv
}

type demo struct {
	opts  Options
	stats *stats
}

// sleep waits for d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
