package server

import (
	"fmt"
	"testing"

	"github.com/mcpi-dev/mcpi/mcp"
)

// The capabilities of 2026-07-28 requests are decoded once per JSON, within bounds.
func TestClientCapabilitiesCached(t *testing.T) {
	s := New(mcp.Implementation{Name: "t", Version: "1"}, nil)
	raw := []byte(`{"sampling":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}`)
	a := s.clientCapabilities(raw)
	if a.Sampling == nil || a.Extensions[mcp.ExtensionTasks] == nil {
		t.Fatalf("decoded %+v", a)
	}
	if b := s.clientCapabilities([]byte(string(raw))); b != a {
		t.Error("the same capabilities decoded again")
	}
	if e := s.clientCapabilities([]byte(`{}`)); e.Sampling != nil || e.Extensions != nil {
		t.Errorf("{} declares %+v", e)
	}
	for i := range 2 * maxCachedCaps {
		s.clientCapabilities(fmt.Appendf(nil, `{"experimental":{"n%d":{}}}`, i))
	}
	big := fmt.Appendf(nil, `{"experimental":{"x":"%0*d"}}`, maxCachedCapsSize, 0)
	s.clientCapabilities(big)
	s.capsMu.RLock()
	n, kept := len(s.caps), s.caps[string(big)] != nil
	s.capsMu.RUnlock()
	if n > maxCachedCaps || kept {
		t.Errorf("%d capabilities kept (big one: %v)", n, kept)
	}
}
