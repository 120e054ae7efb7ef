package demo_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/mcp"
)

// The requestor tools' arguments and what they ask; package e2e runs them against the
// client's receiver tasks over every transport.

func TestRequestorToolValidation(t *testing.T) {
	ctx, s := connect(t, nil, &client.Options{Receiver: &client.ReceiverOptions{PollInterval: time.Millisecond}})
	for _, tc := range []struct{ tool, args string }{
		{demo.ToolAskUserTask, `{"ttl":0}`},
		{demo.ToolAskUserTask, `{"message":3}`},
		{demo.ToolAskModelTask, `{}`},
		{demo.ToolAskModelTask, `{"prompt":"hi","maxTokens":0}`},
		{demo.ToolAskThenCancel, `{}`},
		{demo.ToolAskThenCancel, `{"seconds":601}`},
	} {
		if res := call(t, ctx, s, tc.tool, tc.args); !res.IsError {
			t.Errorf("%s %s = %q, want a tool error", tc.tool, tc.args, text(t, res))
		}
	}
	res, err := s.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, tool := range res.Tools {
		switch tool.Name {
		case demo.ToolAskUserTask, demo.ToolAskModelTask, demo.ToolAskThenCancel, demo.ToolListClientTasks:
			found++
			if tool.TaskSupport() != mcp.TaskSupportOptional {
				t.Errorf("%s: taskSupport %q, want optional", tool.Name, tool.TaskSupport())
			}
		}
	}
	if found != 4 {
		t.Errorf("%d requestor tools listed, want 4", found)
	}
}

// What ask_user_task and ask_model_task send: ask_user's form, the prompt and maxTokens,
// and the ttl asked for.
func TestRequestorToolsAsk(t *testing.T) {
	ctx, s := connect(t, nil, &client.Options{
		Receiver: &client.ReceiverOptions{PollInterval: time.Millisecond},
		OnRequest: func(ctx context.Context, r *client.Request) {
			if r.Sampling != nil {
				text := r.Sampling.Messages[0].Content[0].Text
				r.Respond(&mcp.CreateMessageResult{Role: mcp.RoleAssistant, Model: "m", Content: []mcp.Content{mcp.TextContent(strings.ToUpper(text))}})
				return
			}
			r.Accept(map[string]any{"name": r.Elicitation.Message})
		},
	})
	rep := report(t, call(t, ctx, s, demo.ToolAskUserTask, `{"message":"Who?","ttl":5000}`))
	var er mcp.ElicitResult
	json.Unmarshal(rep.Result, &er)
	if rep.Mode != demo.ModeTask || er.Content["name"] != "Who?" || er.Content["color"] != "blue" || *rep.Created.TTL != 5000 {
		t.Errorf("ask_user_task: %+v", rep)
	}
	res := call(t, ctx, s, demo.ToolAskModelTask, `{"prompt":"hi","maxTokens":5}`)
	rep = report(t, res)
	var mr mcp.CreateMessageResult
	json.Unmarshal(rep.Result, &mr)
	if res.IsError || mr.Content[0].Text != "HI" || !strings.Contains(text(t, res), `"text":"HI"`) {
		t.Errorf("ask_model_task: %s", text(t, res))
	}
	var list demo.ClientTaskList
	if err := json.Unmarshal([]byte(text(t, call(t, ctx, s, demo.ToolListClientTasks, ""))), &list); err != nil || len(list.Tasks) != 2 || list.Pages != 1 {
		t.Errorf("list_client_tasks: %+v %v", list, err)
	}
}

func report(t *testing.T, res *mcp.CallToolResult) demo.ClientTaskReport {
	t.Helper()
	var rep demo.ClientTaskReport
	if err := json.Unmarshal(res.StructuredContent, &rep); err != nil {
		t.Fatalf("%v: %s", err, res.StructuredContent)
	}
	return rep
}
