package web_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/scripted"
	"github.com/mcpi-dev/mcpi/internal/web"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// A server of 2025-11-25 that declares no tasks.cancel: the page is told why its tasks
// have no cancel (the connection's noCancel), and a cancel it asks all the same is
// refused with that sentence (400), with nothing sent to the server.
func TestNoCancelWithoutTasksCancel(t *testing.T) {
	f := scripted.NewLegacy(t, nil)
	f.On(mcp.MethodInitialize, func(context.Context, *jsonrpc.Request) (any, error) {
		return scripted.Raw(`{"protocolVersion":"2025-11-25","serverInfo":{"name":"nocancel","version":"1"},
			"capabilities":{"tools":{},"tasks":{"list":{},"requests":{"tools":{"call":{}}}}}}`), nil
	})
	f.Answer(mcp.MethodToolsList, `{"tools":[{"name":"slow","inputSchema":{"type":"object"},"execution":{"taskSupport":"optional"}}]}`)
	task := `{"taskId":"t1","status":"working","createdAt":"2000-01-01T00:00:00Z","lastUpdatedAt":"2000-01-01T00:00:00Z","ttl":600000,"pollInterval":60000}`
	f.Answer(mcp.MethodToolsCall, `{"task":`+task+`}`)
	f.Answer(mcp.MethodTasksGet, task)
	f.Answer(mcp.MethodTasksCancel, `{}`)
	dial := func(ctx context.Context, tg web.Target, co *client.Options, _ web.LoginFunc) (*client.Session, web.Dialed, error) {
		s, err := client.New(mcp.Implementation{Name: "mcpi-web-test", Version: "0"}, co).Connect(ctx, f.Pipe())
		return s, web.Dialed{Name: "nocancel", Transport: "in-memory pipe"}, err
	}
	srv := web.New(web.Options{Dial: dial})
	p := open(t, srv)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if _, err := srv.Open(ctx, web.Target{}); err != nil {
		t.Fatal(err)
	}
	const why = "the server does not cancel tasks (it declares no tasks.cancel capability)"
	var ev struct {
		Data struct {
			Conns []struct{ Info struct{ NoCancel string } }
		}
	}
	if err := json.Unmarshal([]byte(p.snapshot(ctx)), &ev); err != nil || len(ev.Data.Conns) != 1 {
		t.Fatalf("snapshot: %v", err)
	}
	if got := ev.Data.Conns[0].Info.NoCancel; got != why {
		t.Errorf("the connection's noCancel is %q, want %q", got, why)
	}

	code, out := p.post("c1/call", `{"name":"slow","arguments":{},"task":true}`)
	var res struct{ Task string }
	if code != 200 || json.Unmarshal(out["task"], &res.Task) != nil || res.Task == "" {
		t.Fatalf("call: %d %s", code, out)
	}
	code, out = p.post("c1/cancel", `{"key":"`+res.Task+`"}`)
	if code != 400 || !strings.Contains(string(out["error"]), why) {
		t.Errorf("cancel: %d %s, want 400 saying %q", code, out["error"], why)
	}
	if n := len(f.Requests(mcp.MethodTasksCancel)); n != 0 {
		t.Errorf("%d tasks/cancel went to the server", n)
	}
}
