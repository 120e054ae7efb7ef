package client

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/mcp"
)

// TestExtTaskBurstOverPipe: 200 tasks of 2026-07-28 at once, each ended when created, so
// that the client's reading goroutine sends the tasks/get of each, over an in-memory
// pipe, which holds nothing: a write waits for the other end to read it. A server that
// answered tasks/get on its own reading goroutine deadlocked here within the first
// rounds (both readers writing, each waiting for the other to read).
func TestExtTaskBurstOverPipe(t *testing.T) {
	p := newParkServer(t)
	s := p.connect(t, mcp.ProtocolVersion20260728)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a bound, not a measure
	defer cancel()
	for round := range 5 {
		var wg sync.WaitGroup
		errs := make(chan error, 200)
		for range 200 {
			wg.Go(func() {
				_, _, err := s.RunToolTask(ctx, &mcp.CallToolParams{Name: "instant_ext"}, nil)
				if err != nil {
					errs <- err
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
