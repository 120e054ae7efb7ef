package client

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/transport"
)

// TestExtTaskBurstOverPipe: 200 tasks of 2026-07-28 at once, each ended when created, so
// that the client's reading goroutine sends the tasks/get of each, over an in-memory
// pipe, which holds nothing: a write waits for the other end to read it. A server that
// answered tasks/get on its own reading goroutine with a write that may wait
// deadlocked here within the first rounds (both readers writing, each waiting for the
// other to read).
func TestExtTaskBurstOverPipe(t *testing.T) {
	p := newParkServer(t)
	burst(t, p.connect(t, mcp.ProtocolVersion20260728), "instant_ext")
}

// burst runs 200 tasks of tool at once on s, five times, each to its result.
func burst(t *testing.T, s *Session, tool string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a bound, not a measure
	defer cancel()
	for round := range 5 {
		var wg sync.WaitGroup
		errs := make(chan error, 200)
		for range 200 {
			wg.Go(func() {
				task, res, err := s.RunToolTask(ctx, &mcp.CallToolParams{Name: tool}, nil)
				switch {
				case err != nil:
					errs <- err
				case task.ID() == "":
					errs <- fmt.Errorf("%s answered without a task", tool)
				case len(res.Content) != 1 || res.Content[0].Text != "done":
					errs <- fmt.Errorf("result %+v, want the text done", res)
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("round %d: %v", round, err)
		}
	}
}

// osPipes is a transport of two OS pipes to a server in this process: the server's end
// is a pipe it can judge the room of, as `mcpi serve` over stdio does, so that it
// answers tasks/get and tasks/result on its reading goroutine (jsonrpc.Options.Quick).
type osPipes struct{ srv *server.Server }

func (p osPipes) Connect(ctx context.Context) (jsonrpc.Connection, error) {
	sr, cw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cr, sw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	p.srv.Connect(ctx, transport.NewStream(sr, sw, 0))
	return transport.NewStream(cr, cw, 0), nil
}

// TestTaskBurstOverOSPipes is TestExtTaskBurstOverPipe over OS pipes, in both eras,
// where the server answers tasks/get (2026-07-28) and tasks/result (2025-11-25) on its
// reading goroutine while mcpi's client sends them from its own: 200 requests at once
// fill a pipe, and neither reader may wait on a write.
func TestTaskBurstOverOSPipes(t *testing.T) {
	for _, c := range []struct{ version, tool string }{
		{mcp.ProtocolVersion20260728, "instant_ext"},
		{mcp.LatestProtocolVersion, "instant"},
	} {
		t.Run(c.version, func(t *testing.T) {
			p := newParkServer(t)
			s, err := New(mcp.Implementation{Name: "c", Version: "1"}, &Options{ProtocolVersion: c.version}).Connect(t.Context(), osPipes{p.srv})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			burst(t, s, c.tool)
		})
	}
}
