package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/transport"
)

// contentTypes is a round tripper that notes, for each tools/call and tasks/* request a
// client POSTs, the media type of the response: "tools/call application/json".
type contentTypes struct {
	mu   sync.Mutex
	seen []string
}

func (c *contentTypes) RoundTrip(r *http.Request) (*http.Response, error) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if r.Method == http.MethodPost && r.Body != nil {
		b, err := io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil {
			return nil, err
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
		_ = json.Unmarshal(b, &m)
	}
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil && m.ID != nil && (m.Method == mcp.MethodToolsCall || strings.HasPrefix(m.Method, "tasks/")) {
		ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
		c.mu.Lock()
		c.seen = append(c.seen, m.Method+" "+ct)
		c.mu.Unlock()
	}
	return resp, err
}

// take returns the notes since the last take.
func (c *contentTypes) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.seen
	c.seen = nil
	return s
}

// TestTaskAnswersInOneBody: over Streamable HTTP the answers of task requests that are
// ready as soon as they are handled travel as one JSON body: the CreateTaskResult, and
// the result of a task that has ended. A plain call keeps its SSE stream, and so does a
// tasks/result that waits, on which the task's requests for input travel.
func TestTaskAnswersInOneBody(t *testing.T) {
	ctx := testContext(t)
	rec := &contentTypes{}
	var mu sync.Mutex
	var asked []string
	related := func(r *client.Request) string { return r.Method + " " + r.RelatedTask }
	h := harnesses[2]
	if h.name != "http" {
		t.Fatal("harnesses[2] is not http")
	}
	e := h.serve(t, serverConfig{pollInterval: time.Hour})
	s := e.openVia(t, ctx, answeringClient(mcp.LatestProtocolVersion, related, &asked, &mu), func(tr transport.Transport) transport.Transport {
		tr.(*transport.HTTPClient).Client = &http.Client{Transport: rec}
		return tr
	})

	if res := call(t, ctx, s, demo.ToolEcho, map[string]any{"text": "hi"}); onlyText(t, res) != "hi" {
		t.Fatalf("echo: %+v", res)
	}
	if got := rec.take(); !slices.Equal(got, []string{"tools/call text/event-stream"}) {
		t.Errorf("a plain call: %v, want an SSE stream", got)
	}

	task, res, err := s.RunToolTask(ctx, toolParams(t, demo.ToolInstantTask, nil), nil)
	if err != nil || onlyText(t, res) != demo.InstantTaskText {
		t.Fatalf("instant_task: %s, result %+v, error %v", taskID(task), res, err)
	}
	got := rec.take()
	if len(got) == 0 || got[0] != "tools/call application/json" {
		t.Errorf("instant_task as a task: %v, want the CreateTaskResult as a JSON body first", got)
	}
	again, err := s.TaskResult(ctx, task.ID())
	if err != nil || onlyText(t, again) != demo.InstantTaskText {
		t.Fatalf("tasks/result of the ended task: %+v, %v", again, err)
	}
	if got := rec.take(); !slices.Equal(got, []string{"tasks/result application/json"}) {
		t.Errorf("tasks/result of an ended task: %v, want a JSON body", got)
	}

	task, res, err = s.RunToolTask(ctx, toolParams(t, demo.ToolAskTask, nil), nil)
	if err != nil || onlyText(t, res) != "name: Ada; model: Hello Ada!" {
		t.Fatalf("ask_task: %s, result %+v, error %v", taskID(task), res, err)
	}
	got = rec.take()
	if len(got) < 2 || got[0] != "tools/call application/json" || !slices.Contains(got, "tasks/result text/event-stream") {
		t.Errorf("ask_task: %v, want a JSON body for the call and an SSE stream for the tasks/result that waits", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{mcp.MethodElicitationCreate + " " + task.ID(), mcp.MethodSamplingCreateMessage + " " + task.ID()}; !slices.Equal(asked, want) {
		t.Errorf("requests %v, want %v", asked, want)
	}
}
