package e2e

import (
	"context"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/transport"
)

// TestExtTaskStreamsKeepTheirConnection: over Streamable HTTP each task of the extension
// is listened to on a stream of its own (a request held open), which the demo server ends
// with its final result once the task has ended. The client leaves it to do so rather than
// withdraw it, which over HTTP/1.1 means closing the connection: tasks run one after
// another reuse the session's connections instead of dialling one each.
func TestExtTaskStreamsKeepTheirConnection(t *testing.T) {
	ctx := testContext(t)
	h := harnesses[2]
	if h.name != "http" {
		t.Fatal("harnesses[2] is not http")
	}
	cfg := taskServer()
	cfg.modern = true
	var dials atomic.Int32
	base := http.DefaultTransport.(*http.Transport).Clone()
	dialer := &net.Dialer{}
	base.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		return dialer.DialContext(ctx, network, addr)
	}
	t.Cleanup(base.CloseIdleConnections)
	var mu sync.Mutex
	var asked []string
	s := h.serve(t, cfg).openVia(t, ctx, modernClient(&asked, &mu), func(tr transport.Transport) transport.Transport {
		tr.(*transport.HTTPClient).Client = &http.Client{Transport: base}
		return tr
	})
	before := dials.Load()
	const tasks = 12
	for i := range tasks {
		task, res, err := s.RunToolTask(ctx, toolParams(t, demo.ToolSlowTask, map[string]any{"seconds": 1, "steps": 1}), nil)
		if err != nil || task == nil || task.Dialect() != client.DialectExtension || onlyText(t, res) != "done: worked 1s in 1 step" {
			t.Fatalf("task %d: %s, result %+v, error %v; want a task of the extension and its result", i+1, taskID(task), res, err)
		}
	}
	// A stream may still be open when the next call goes out: two connections take turns.
	if n := dials.Load() - before; n > 2 {
		t.Errorf("%d connections dialled for %d tasks in a row, want at most 2", n, tasks)
	}
}
