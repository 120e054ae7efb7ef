package factory

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/iostreams"
	"github.com/mcpi-dev/mcpi/mcp"
)

// A task can end right after the user answered its question, before the prompt has given
// the terminal back: the command then keeps its last status line, which the prompt draws
// when it is done. Closing the session waits for that, so the line is on stderr when the
// command returns. The prompt here gives the terminal back only once the session is
// closing, and slowly.
func TestCloseWaitsForPrompt(t *testing.T) {
	ios, _, _, errOut := iostreams.Test()
	ios.SetStdinTTY(true)
	ios.SetStderrTTY(true)
	w := newWiring(ios, &connect.Selection{})
	closing := make(chan struct{})
	w.ask = func(ctx context.Context, r *client.Request) {
		resume := ios.SuspendStatusLine()
		defer resume()
		if err := r.Respond(&mcp.CreateMessageResult{Role: mcp.RoleAssistant, Content: []mcp.Content{mcp.TextContent("Hi")}, Model: "test"}); err != nil {
			t.Error(err)
		}
		<-closing
		time.Sleep(50 * time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sess, err := w.connect(ctx, cmdutil.RequestPolicy{})
	if err != nil {
		t.Fatal(err)
	}
	ios.SetStatusLine("◐ working")
	if _, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: demo.ToolAskModel, Arguments: json.RawMessage(`{"prompt": "Hello"}`)}, nil); err != nil {
		t.Fatal(err)
	}
	ios.SetStatusLine("✓ completed")
	ios.KeepStatusLine()
	close(closing)
	sess.Close()
	if got := errOut.String(); !strings.HasSuffix(got, "\r\033[K✓ completed\n") {
		t.Errorf("stderr = %q, want it to end with the kept status line", got)
	}
}

// Without a terminal or an answer, a request is refused with the sentence that says how
// to answer it, and the session says so to the command.
func TestRefuseWithoutTerminal(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	w := newWiring(ios, &connect.Selection{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sess, err := w.connect(ctx, cmdutil.RequestPolicy{Tool: demo.ToolAskUser})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: demo.ToolAskUser, Arguments: json.RawMessage(`{}`)}, nil)
	refused := sess.Refusal(res, err)
	var nt *cmdutil.NeedTerminalError
	if !errors.As(refused, &nt) || len(nt.Needs) != 1 || nt.Needs[0].What != "elicitation" || nt.Tool != demo.ToolAskUser {
		t.Fatalf("Refusal(%+v, %v) = %v, want the elicitation refused for %s", res, err, refused, demo.ToolAskUser)
	}
	if !strings.Contains(nt.Error(), "run it on a terminal") {
		t.Errorf("the refusal does not say how to answer: %s", nt)
	}
}
