package e2e

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/demo"
)

// TestTaskEventOrderConcurrent: CallToolTask yields its events from creation to the
// outcome, whatever overtakes the CreateTaskResult on the wire. Hundreds of concurrent
// slow_task calls that ask for progress make the server's progress and status
// notifications race their CreateTaskResult; every call must still see TaskCreated first,
// the outcome last, and nothing after it.
func TestTaskEventOrderConcurrent(t *testing.T) {
	for _, h := range harnesses {
		if h.name == "stdio" {
			continue // one process per session: the pipe and HTTP carry the same race
		}
		t.Run(h.name, func(t *testing.T) {
			ctx := testContext(t)
			e := h.serve(t, serverConfig{maxActive: 1000})
			s := e.open(t, ctx, nil)
			const calls = 300
			var wg sync.WaitGroup
			violations := make(chan string, calls)
			for i := range calls {
				wg.Go(func() {
					p := toolParams(t, demo.ToolSlowTask, map[string]any{"seconds": 0.001, "steps": 3})
					var kinds []string
					created, ended := false, false
					for ev := range s.CallToolTask(ctx, p, &client.CallOptions{Progress: true}) {
						kinds = append(kinds, string(ev.Kind))
						switch {
						case ended:
							violations <- fmt.Sprintf("call %d: %s after the outcome: %s", i, ev.Kind, strings.Join(kinds, " "))
							return
						case ev.Kind == client.TaskCreated:
							if created {
								violations <- fmt.Sprintf("call %d: created twice: %s", i, strings.Join(kinds, " "))
								return
							}
							created = true
						case ev.Kind == client.TaskResult || ev.Kind == client.TaskError || ev.Kind == client.TaskGone:
							ended = true
							if ev.Kind != client.TaskResult {
								violations <- fmt.Sprintf("call %d: ended with %s: %v", i, ev.Kind, ev.Err)
								return
							}
							if !created {
								violations <- fmt.Sprintf("call %d: an outcome with no created event: %s", i, strings.Join(kinds, " "))
								return
							}
						case !created:
							violations <- fmt.Sprintf("call %d: %s before created: %s", i, ev.Kind, strings.Join(kinds, " "))
							return
						case ev.State.TaskID == "":
							violations <- fmt.Sprintf("call %d: a %s event with no task id", i, ev.Kind)
							return
						}
					}
					if !ended {
						violations <- fmt.Sprintf("call %d: no outcome: %s", i, strings.Join(kinds, " "))
					}
				})
			}
			wg.Wait()
			close(violations)
			n := 0
			for v := range violations {
				if n < 10 {
					t.Error(v)
				}
				n++
			}
			if n > 0 {
				t.Errorf("%d of %d calls saw their events out of order", n, calls)
			}
		})
	}
}
