package demo_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/tasks"
)

// The task tools' arguments and plain behaviour; package e2e runs them as tasks over every
// transport.

func TestTaskToolValidation(t *testing.T) {
	ctx, s := connect(t, &demo.Options{Sleep: func(ctx context.Context, d time.Duration) error { return nil }}, nil)
	for _, tc := range []struct{ tool, args string }{
		{demo.ToolSleepTask, `{}`},
		{demo.ToolSleepTask, `{"seconds":-1}`},
		{demo.ToolSleepTask, `{"seconds":601}`},
		{demo.ToolSleepTask, `{"seconds":"1"}`},
		{demo.ToolShortTTLTask, `{"seconds":700}`},
		{demo.ToolFailTask, `{"mode":"explode"}`},
	} {
		if res := call(t, ctx, s, tc.tool, tc.args); !res.IsError {
			t.Errorf("%s %s = %q, want a tool error", tc.tool, tc.args, text(t, res))
		}
	}
	if got := text(t, call(t, ctx, s, demo.ToolSleepTask, `{"seconds":1.5}`)); got != "slept 1.5s" {
		t.Errorf("sleep_task 1.5 = %q", got)
	}
	if got := text(t, call(t, ctx, s, demo.ToolInstantTask, "")); got != "done" {
		t.Errorf("instant_task = %q", got)
	}
	if res := call(t, ctx, s, demo.ToolFailTask, ""); !res.IsError || text(t, res) != demo.FailTaskText {
		t.Errorf("fail_task with the default mode = %+v", res)
	}
}

func TestTaskToolsAsTasks(t *testing.T) {
	var mu sync.Mutex
	var waits []time.Duration
	ctx, s := connect(t, &demo.Options{
		Sleep: func(ctx context.Context, d time.Duration) error {
			mu.Lock()
			waits = append(waits, d)
			mu.Unlock()
			return nil
		},
		Tasks: &tasks.Options{PollInterval: 5 * time.Millisecond},
	}, &client.Options{PollFloor: time.Millisecond})
	run := func(name, args string) *mcp.CallToolResult {
		t.Helper()
		p := &mcp.CallToolParams{Name: name}
		if args != "" {
			p.Arguments = []byte(args)
		}
		task, err := s.StartToolTask(ctx, p, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		res, err := task.Wait(ctx)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res
	}
	if got := text(t, run(demo.ToolSlowTask, `{"seconds":2,"steps":4}`)); got != "done: worked 2s in 4 steps" {
		t.Errorf("slow_task = %q", got)
	}
	mu.Lock()
	if len(waits) != 4 || waits[0] != 500*time.Millisecond {
		t.Errorf("slow_task waits %v, want 4 × 500ms", waits)
	}
	mu.Unlock()
	if got := text(t, run(demo.ToolSlowTask, "")); got != "done: worked 5s in 5 steps" {
		t.Errorf("slow_task with defaults = %q", got)
	}
	if res := run(demo.ToolSlowTask, `{"steps":0}`); !res.IsError {
		t.Errorf("slow_task with 0 steps = %+v", res)
	}

	// side_effect_task creates its file and never replaces one.
	path := filepath.Join(t.TempDir(), "effect.txt")
	if got := text(t, run(demo.ToolSideEffectTask, `{"seconds":0,"path":"`+path+`"}`)); got != "wrote "+path {
		t.Errorf("side_effect_task = %q", got)
	}
	b, err := os.ReadFile(path)
	if err != nil || !strings.HasPrefix(string(b), "written by side_effect_task ") {
		t.Errorf("the file holds %q (%v)", b, err)
	}
	res := run(demo.ToolSideEffectTask, `{"seconds":0,"path":"`+path+`"}`)
	if !res.IsError || !strings.Contains(text(t, res), "could not write") {
		t.Errorf("side_effect_task on an existing file = %+v", res)
	}
	if res := run(demo.ToolSideEffectTask, `{"seconds":0}`); !res.IsError {
		t.Errorf("side_effect_task without a path = %+v", res)
	}
}

func TestAskTaskWithoutCapabilities(t *testing.T) {
	ctx, s := connect(t, &demo.Options{Tasks: &tasks.Options{PollInterval: 5 * time.Millisecond}},
		&client.Options{Capabilities: &mcp.ClientCapabilities{}, PollFloor: time.Millisecond})
	task, err := s.StartToolTask(ctx, &mcp.CallToolParams{Name: demo.ToolAskTask}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := task.Wait(ctx)
	if err != nil || !res.IsError || !strings.Contains(text(t, res), "elicitation and sampling") {
		t.Errorf("ask_task without capabilities = %+v, %v", res, err)
	}
}

func TestAskTaskDeclined(t *testing.T) {
	ctx, s := connect(t, &demo.Options{Tasks: &tasks.Options{PollInterval: 5 * time.Millisecond}},
		&client.Options{PollFloor: time.Millisecond, OnRequest: func(ctx context.Context, r *client.Request) { _ = r.Decline() }})
	task, err := s.StartToolTask(ctx, &mcp.CallToolParams{Name: demo.ToolAskTask}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := task.Wait(ctx)
	if err != nil || !res.IsError || !strings.Contains(text(t, res), "did not give a name (decline)") {
		t.Errorf("ask_task declined = %+v, %v", res, err)
	}
}

func TestDemoTaskDefaults(t *testing.T) {
	ctx, s := connect(t, nil, nil)
	if !s.ServerCapabilities().Tasks.SupportsToolCall() {
		t.Fatal("the demo server does not declare tool tasks")
	}
	task, err := s.StartToolTask(ctx, &mcp.CallToolParams{Name: demo.ToolInstantTask}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if pi := task.State().PollInterval; pi == nil || *pi != 1000 {
		t.Errorf("pollInterval %v, want 1000", pi)
	}
	if _, err := task.Wait(ctx); err != nil {
		t.Fatal(err)
	}
}
