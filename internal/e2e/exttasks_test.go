package e2e

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// The Tasks extension of 2026-07-28 end to end: mcpi's client, speaking 2026-07-28,
// follows the demo server's task tools over every kind of connection. The server
// decides: required tools are always tasks, optional ones answer inline when quick and
// become tasks when slow (in these tests a wait shorter than a minute passes at once, a
// longer one lasts until cancelled).

func modernClient(answers *[]string, mu *sync.Mutex) *client.Options {
	return answeringClient(mcp.ProtocolVersion20260728, func(r *client.Request) string { return r.Method + " " + r.InputKey }, answers, mu)
}

// answeringClient is the options of a task test client at protocol version version
// that answers ask_task's questions itself (the name Ada; the model's "Hello Ada!"),
// recording note(r) of each request in answers.
func answeringClient(version string, note func(*client.Request) string, answers *[]string, mu *sync.Mutex) *client.Options {
	return taskClient(&client.Options{
		ProtocolVersion: version,
		OnRequest: func(ctx context.Context, r *client.Request) {
			mu.Lock()
			*answers = append(*answers, note(r))
			mu.Unlock()
			switch {
			case r.Elicitation != nil:
				_ = r.Accept(map[string]any{"name": "Ada"})
			case r.Sampling != nil:
				_ = r.Respond(&mcp.CreateMessageResult{Role: mcp.RoleAssistant, Model: "m", Content: []mcp.Content{mcp.TextContent("Hello Ada!")}})
			}
		},
	})
}

func TestExtensionTasksOnDemo(t *testing.T) {
	forEachTransport(t, func(t *testing.T, h harness) {
		ctx := testContext(t)
		dir := t.TempDir()
		cfg := taskServer()
		cfg.modern, cfg.files = true, dir
		var mu sync.Mutex
		var asked []string
		s := h.open(t, ctx, cfg, modernClient(&asked, &mu))
		if got := s.ProtocolVersion(); got != mcp.ProtocolVersion20260728 {
			t.Fatalf("connected at %s, want 2026-07-28", got)
		}

		// run starts a call that may become a task and waits for its outcome.
		run := func(name string, args any) (*client.Task, *mcp.CallToolResult, error) {
			t.Helper()
			task, err := s.StartToolTask(ctx, toolParams(t, name, args), nil)
			if err != nil {
				return nil, nil, err
			}
			res, err := task.Wait(ctx)
			return task, res, err
		}
		isTask := func(task *client.Task) bool { return task.ID() != "" && task.Dialect() == client.DialectExtension }

		// Required tools: always a task.
		task, res, err := run(demo.ToolSlowTask, map[string]any{"seconds": 1, "steps": 2})
		if err != nil || !isTask(task) || onlyText(t, res) != "done: worked 1s in 2 steps" {
			t.Errorf("slow_task: task %v, result %+v, error %v", task.ID(), res, err)
		}
		task, res, err = run(demo.ToolAskTask, struct{}{})
		if err != nil || !isTask(task) || !strings.Contains(onlyText(t, res), "name: Ada; model: Hello Ada!") {
			t.Errorf("ask_task: task %v, result %+v, error %v", task.ID(), res, err)
		}
		mu.Lock()
		t.Logf("input asked: %q", asked)
		if len(asked) != 2 || !strings.HasPrefix(asked[0], mcp.MethodElicitationCreate+" ") || !strings.HasPrefix(asked[1], mcp.MethodSamplingCreateMessage+" ") ||
			strings.HasSuffix(asked[0], " ") || strings.HasSuffix(asked[1], " ") {
			t.Errorf("ask_task asked %q, want an elicitation then a sampling, each under its inputRequests key", asked)
		}
		mu.Unlock()
		task, res, err = run(demo.ToolSideEffectTask, map[string]any{"seconds": 1, "path": "made.txt"})
		if err != nil || !isTask(task) || res.IsError {
			t.Errorf("side_effect_task: task %v, result %+v, error %v", task.ID(), res, err)
		}
		if _, err := os.Stat(filepath.Join(dir, "made.txt")); err != nil {
			t.Errorf("side_effect_task wrote nothing: %v", err)
		}

		// Optional tools: inline when quick.
		task, res, err = run(demo.ToolInstantTask, struct{}{})
		if err != nil || task.ID() != "" || onlyText(t, res) != demo.InstantTaskText {
			t.Errorf("instant_task: task %q, result %+v, error %v (want an inline result)", task.ID(), res, err)
		}
		_, res, err = run(demo.ToolFailTask, map[string]any{"mode": "isError"})
		if err != nil || !res.IsError {
			t.Errorf("fail_task isError: result %+v, error %v", res, err)
		}
		if _, _, err = run(demo.ToolFailTask, map[string]any{"mode": "error"}); rpcCode(err) != demo.FailTaskCode {
			t.Errorf("fail_task error: %v, want the JSON-RPC error %d", err, demo.FailTaskCode)
		}

		// ... and a task when slow; cancelling it ends it cancelled.
		task, err = s.StartToolTask(ctx, toolParams(t, demo.ToolSleepTask, map[string]any{"seconds": 600}), nil)
		if err != nil || !isTask(task) {
			t.Fatalf("sleep_task 600 s: %v, %v (want a task)", task, err)
		}
		if _, err := task.Cancel(ctx); err != nil {
			t.Errorf("cancel: %v", err)
		}
		if _, err := task.Wait(ctx); !errors.Is(err, client.ErrTaskCancelled) {
			t.Errorf("cancelled sleep_task ended with %v, want cancelled", err)
		}
		task, err = s.StartToolTask(ctx, toolParams(t, demo.ToolShortTTLTask, map[string]any{"seconds": 600}), nil)
		if err != nil || !isTask(task) {
			t.Fatalf("short_ttl_task 600 s: %v, %v (want a task)", task, err)
		}
		if ttl := task.State().TTL; ttl == nil || *ttl != demo.ShortTaskTTL.Milliseconds() {
			t.Errorf("short_ttl_task ttlMs = %v, want %d", ttl, demo.ShortTaskTTL.Milliseconds())
		}
		if _, err := task.Wait(ctx); !errors.Is(err, client.ErrTaskGone) {
			t.Errorf("short_ttl_task outlived its ttl: %v", err)
		}

		// A plain call (which does not declare the extension) of a tool that must be a
		// task is refused with -32021.
		if _, err := s.CallTool(ctx, toolParams(t, demo.ToolSlowTask, map[string]any{"seconds": 1}), &client.CallOptions{SendAnyway: true}); rpcCode(err) != mcp.CodeMissingRequiredClientCapability {
			t.Errorf("slow_task without the extension: %v, want -32021", err)
		}
	})
}

// A task made in one era cannot be reached from the other, and the error says so.
func TestExtensionTasksStayInTheirEra(t *testing.T) {
	for _, h := range harnesses {
		if !h.inProcess {
			continue // a stdio server serves one client
		}
		t.Run(h.name, func(t *testing.T) {
			ctx := testContext(t)
			cfg := taskServer()
			cfg.modern = true
			e := h.serve(t, cfg)
			var mu sync.Mutex
			var asked []string
			modern := e.open(t, ctx, modernClient(&asked, &mu))
			legacy := e.open(t, ctx, taskClient(&client.Options{ProtocolVersion: mcp.LatestProtocolVersion}))
			if legacy.ProtocolVersion() != mcp.LatestProtocolVersion {
				t.Fatalf("legacy session at %s", legacy.ProtocolVersion())
			}
			newer, err := modern.StartToolTask(ctx, toolParams(t, demo.ToolSlowTask, map[string]any{"seconds": 600}), nil)
			if err != nil {
				t.Fatal(err)
			}
			older, err := legacy.StartToolTask(ctx, toolParams(t, demo.ToolSlowTask, map[string]any{"seconds": 600}), nil)
			if err != nil {
				t.Fatal(err)
			}
			if newer.Dialect() != client.DialectExtension || older.Dialect() != client.DialectCore {
				t.Fatalf("dialects %s and %s", newer.Dialect(), older.Dialect())
			}
			check := func(what string, err error, era string) {
				t.Helper()
				var rpc *jsonrpc.Error
				if !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeInvalidParams || !strings.Contains(rpc.Message, era) {
					t.Errorf("%s: %v, want -32602 naming %s", what, err, era)
				}
			}
			_, err = legacy.GetTask(ctx, newer.ID())
			check("tasks/get of a 2026-07-28 task from 2025-11-25", err, "2026-07-28")
			_, err = legacy.CancelTask(ctx, newer.ID())
			check("tasks/cancel of a 2026-07-28 task from 2025-11-25", err, "2026-07-28")
			// A 2025-11-25 task is its session's: from 2026-07-28, which has none, it is
			// what an unknown id is.
			_, err = modern.TaskDetail(ctx, older.ID())
			check("tasks/get of a 2025-11-25 task from 2026-07-28", err, "unknown task "+older.ID())
			for _, task := range []*client.Task{newer, older} {
				if _, err := task.Cancel(ctx); err != nil {
					t.Errorf("cancel %s: %v", task.ID(), err)
				}
			}
		})
	}
}
