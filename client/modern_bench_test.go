package client

import (
	"encoding/json"
	"testing"

	"github.com/mcpi-dev/mcpi/internal/jsonwire"
	"github.com/mcpi-dev/mcpi/mcp"
)

// The cost a request of 2026-07-28 adds on the client before it is written: its params
// with the per-request _meta, against the same params of 2025-11-25 as they are.
func BenchmarkRequestParams(b *testing.B) {
	caps := &mcp.ClientCapabilities{
		Roots:       &mcp.RootsCapability{ListChanged: true},
		Sampling:    &mcp.SamplingCapability{},
		Elicitation: &mcp.ElicitationCapability{Form: &struct{}{}, URL: &struct{}{}},
	}
	w, err := newModernWire(mcp.ProtocolVersion20260728, caps, mcp.Implementation{Name: "mcpi", Version: "dev"}, nil)
	if err != nil {
		b.Fatal(err)
	}
	p := &mcp.CallToolParams{Name: "instant_task", Arguments: json.RawMessage(`{"steps":1}`)}
	b.Run("2025-11-25", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := jsonwire.Marshal(p); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("2026-07-28", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := w.params(p, true); err != nil {
				b.Fatal(err)
			}
		}
	})
	withToken := *p
	withToken.Meta = mcp.Meta{}
	withToken.Meta.SetProgressToken("mcpi-1")
	b.Run("2026-07-28 with progress token", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := w.params(&withToken, true); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// The per-request _meta merged into the params' own, whatever shape they have.
func TestModernParamsMeta(t *testing.T) {
	w, err := newModernWire(mcp.ProtocolVersion20260728, &mcp.ClientCapabilities{}, mcp.Implementation{Name: "c", Version: "1"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		params  string
		version string // what _meta's protocolVersion must be
		keep    map[string]string
	}{
		{`{}`, "2026-07-28", nil},
		{`null`, "2026-07-28", nil},
		{`{"name":"x"}`, "2026-07-28", map[string]string{"name": `"x"`}},
		{`{"name":"x","_meta":{}}`, "2026-07-28", nil},
		{`{"name":"x","_meta":{"progressToken":"p"}}`, "2026-07-28", map[string]string{"progressToken": `"p"`}},
		{` { "_meta" : { "progressToken" : 7 } , "arguments" : {"_meta":{"deep":1}} } `, "2026-07-28", map[string]string{"progressToken": `7`}},
		// The caller's own protocol key wins (a test of servers may send any version).
		{`{"_meta":{"io.modelcontextprotocol/protocolVersion":"1999-01-01","a":1}}`, "1999-01-01", map[string]string{"a": `1`}},
		{`{"arguments":{"_meta":{"x":1}}}`, "2026-07-28", nil},
	} {
		out, err := w.params(json.RawMessage(c.params), false)
		if err != nil {
			t.Errorf("%s: %v", c.params, err)
			continue
		}
		var obj struct {
			Name      json.RawMessage            `json:"name"`
			Arguments json.RawMessage            `json:"arguments"`
			Meta      map[string]json.RawMessage `json:"_meta"`
		}
		if err := json.Unmarshal(out, &obj); err != nil || !json.Valid(out) {
			t.Errorf("%s: gave %s (%v)", c.params, out, err)
			continue
		}
		var v string
		_ = json.Unmarshal(obj.Meta[mcp.MetaProtocolVersion], &v)
		if v != c.version || obj.Meta[mcp.MetaClientCapabilities] == nil || obj.Meta[mcp.MetaClientInfo] == nil {
			t.Errorf("%s: gave %s", c.params, out)
		}
		for k, want := range c.keep {
			got := obj.Meta[k]
			if k == "name" {
				got = obj.Name
			}
			if string(got) != want {
				t.Errorf("%s: %s = %s, want %s (gave %s)", c.params, k, got, want, out)
			}
		}
		if c.params == `{"arguments":{"_meta":{"x":1}}}` && string(obj.Arguments) != `{"_meta":{"x":1}}` {
			t.Errorf("the arguments' own _meta changed: %s", out)
		}
	}
}
