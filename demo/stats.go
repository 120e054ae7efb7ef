package demo

import (
	"maps"
	"sync"

	"github.com/mcpi-dev/mcpi/jsonrpc"
)

// stats counts the requests the server received, per method, across sessions.
type stats struct {
	mu     sync.Mutex
	counts map[string]int64
}

func newStats() *stats { return &stats{counts: map[string]int64{}} }

// observe counts inbound requests; notifications and responses are not requests.
func (s *stats) observe(dir jsonrpc.Direction, m jsonrpc.Message) {
	if dir != jsonrpc.Inbound {
		return
	}
	req, ok := m.(*jsonrpc.Request)
	if !ok || req.IsNotification() {
		return
	}
	s.mu.Lock()
	s.counts[req.Method]++
	s.mu.Unlock()
}

// snapshot returns a copy of the counts, zeroing them afterwards when reset is set.
func (s *stats) snapshot(reset bool) map[string]int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := maps.Clone(s.counts)
	if reset {
		clear(s.counts)
	}
	return out
}
