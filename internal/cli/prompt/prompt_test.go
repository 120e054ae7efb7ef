package prompt

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/cli/iostreams"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/transport"
)

// connect returns a session with a server whose tool "ask" sends req (elicitation or
// sampling) and returns the answer as JSON text.
func connect(t *testing.T, a *Answerer, elicit *mcp.ElicitParams, sample *mcp.CreateMessageParams) *client.Session {
	t.Helper()
	srv := server.New(mcp.Implementation{Name: "t", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "ask"}, func(ctx context.Context, r *server.ToolRequest) (*mcp.CallToolResult, error) {
		var res any
		var err error
		if elicit != nil {
			res, err = r.Session.Elicit(ctx, elicit)
		} else {
			res, err = r.Session.CreateMessage(ctx, sample)
		}
		if err != nil {
			return nil, err
		}
		b, _ := json.Marshal(res)
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(string(b))}}, nil
	})
	tr := transport.PipeTransport{Serve: func(_ context.Context, c jsonrpc.Connection) error {
		srv.Connect(context.Background(), c)
		return nil
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	sess, err := client.New(mcp.Implementation{Name: "test", Version: "1"}, &client.Options{OnRequest: a.Ask}).Connect(ctx, tr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	return sess
}

func call(t *testing.T, sess *client.Session) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "ask"}, nil)
	if err != nil {
		return "", err
	}
	return res.Content[0].Text, nil
}

func terminal(input string) (*iostreams.IOStreams, *bytes.Buffer) {
	ios, in, _, errOut := iostreams.Test()
	in.WriteString(input)
	ios.SetStdinTTY(true)
	ios.SetStderrTTY(true)
	return ios, errOut
}

var form = &mcp.ElicitParams{
	Message: "Who are you?",
	RequestedSchema: json.RawMessage(`{"type":"object","properties":{
		"name": {"type":"string","title":"Name"},
		"age": {"type":"integer"},
		"colour": {"type":"string","enum":["red","green"]},
		"subscribe": {"type":"boolean","default":true}
	},"required":["name","age"]}`),
}

func TestElicitOnTerminal(t *testing.T) {
	// Accept; name; age (a bad value first); colour by number; subscribe left at default.
	ios, prompts := terminal("\nAda\nold\n36\n2\n\n")
	a := New(ios)
	got, err := call(t, connect(t, a, form, nil))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"action":"accept","content":{"age":36,"colour":"green","name":"Ada","subscribe":true}}`
	if got != want {
		t.Errorf("answer = %s, want %s", got, want)
	}
	for _, s := range []string{"Who are you?", "Name (string): ", "Enter a whole number.", "1) red"} {
		if !strings.Contains(prompts.String(), s) {
			t.Errorf("prompts lack %q:\n%s", s, prompts)
		}
	}
}

func TestElicitDecline(t *testing.T) {
	ios, _ := terminal("d\n")
	got, err := call(t, connect(t, New(ios), form, nil))
	if err != nil {
		t.Fatal(err)
	}
	if got != `{"action":"decline"}` {
		t.Errorf("answer = %s", got)
	}
}

func TestSampleOnTerminal(t *testing.T) {
	ios, prompts := terminal("Paris\n")
	p := &mcp.CreateMessageParams{MaxTokens: 10, Messages: []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: []mcp.Content{mcp.TextContent("Capital of France?")}}}}
	got, err := call(t, connect(t, New(ios), nil, p))
	if err != nil {
		t.Fatal(err)
	}
	var res mcp.CreateMessageResult
	if err := json.Unmarshal([]byte(got), &res); err != nil {
		t.Fatal(err)
	}
	if res.Role != mcp.RoleAssistant || len(res.Content) != 1 || res.Content[0].Text != "Paris" {
		t.Errorf("answer = %s", got)
	}
	if !strings.Contains(prompts.String(), "[user] Capital of France?") {
		t.Errorf("prompts:\n%s", prompts)
	}
}

// A URL elicitation offers only a web page (an absolute http: or https: URL) to open, as
// the -32042 sentence does; another URL (javascript:, file:) is quoted and said not to
// be opened, and the answer can only decline or cancel.
func TestURLElicitOffersOnlyWebPages(t *testing.T) {
	ios, prompts := terminal("a\n")
	got, err := call(t, connect(t, New(ios), &mcp.ElicitParams{Mode: mcp.ElicitModeURL, Message: "Log in", URL: "https://example.com/login?x=1", ElicitationID: "e1"}, nil))
	if err != nil {
		t.Fatal(err)
	}
	if got != `{"action":"accept"}` {
		t.Errorf("answer = %s", got)
	}
	if want := "It wants you to open https://example.com/login?x=1\nDid you (a)ccept there, (d)ecline, or (c)ancel? [a/d/c] "; !strings.Contains(prompts.String(), want) {
		t.Errorf("prompts lack %q:\n%s", want, prompts)
	}

	ios, prompts = terminal("a\nd\n")
	got, err = call(t, connect(t, New(ios), &mcp.ElicitParams{Mode: mcp.ElicitModeURL, Message: "Log in", URL: "javascript:alert(1)//\u202e", ElicitationID: "e2"}, nil))
	if err != nil {
		t.Fatal(err)
	}
	if got != `{"action":"decline"}` {
		t.Errorf("answer = %s", got)
	}
	want := "It wants you to open a page, but names no web address: \"javascript:alert(1)//\\u202e\", not to be opened.\n" +
		"Decline (d) or cancel (c)? [d/C] Please answer one of d, c.\nDecline (d) or cancel (c)? [d/C] "
	if !strings.Contains(prompts.String(), want) {
		t.Errorf("prompts lack %q:\n%s", want, prompts)
	}
}
