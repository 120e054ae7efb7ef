package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/scripted"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/transport"
)

// The 2026-07-28 client against the scripted server of internal/scripted: era
// negotiation, the per-request _meta and its HTTP headers, resultType, and
// multi-round-trip requests (MRTR). The Tasks extension is in exttasks_test.go.

// The scripted server, by the names these tests use.
type (
	fakeServer = scripted.Server
	seen       = scripted.Message
)

const v2026 = scripted.Version

var (
	newFake   = scripted.New
	newLegacy = scripted.NewLegacy
	raw       = scripted.Raw
)

// bounded returns a context that ends the test's waits (in a synctest bubble, in fake
// time) long after anything should have happened.
func bounded(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// metaString decodes a string member of a _meta.
func metaString(t *testing.T, meta map[string]json.RawMessage, key string) string {
	t.Helper()
	var s string
	if err := json.Unmarshal(meta[key], &s); err != nil {
		t.Fatalf("_meta[%q] = %s: %v", key, meta[key], err)
	}
	return s
}

// clientCaps decodes the clientCapabilities of a _meta.
func clientCaps(t *testing.T, meta map[string]json.RawMessage) map[string]json.RawMessage {
	t.Helper()
	var caps map[string]json.RawMessage
	if err := json.Unmarshal(meta[mcp.MetaClientCapabilities], &caps); err != nil || caps == nil {
		t.Fatalf("_meta clientCapabilities = %s: %v", meta[mcp.MetaClientCapabilities], err)
	}
	return caps
}

// declaresTasks reports whether capabilities declare the Tasks extension.
func declaresTasks(t *testing.T, caps map[string]json.RawMessage) bool {
	t.Helper()
	var ext map[string]json.RawMessage
	if r, ok := caps["extensions"]; ok {
		if err := json.Unmarshal(r, &ext); err != nil {
			t.Fatalf("clientCapabilities.extensions = %s: %v", r, err)
		}
	}
	_, ok := ext[mcp.ExtensionTasks]
	return ok
}

// checkModernMeta checks the per-request _meta of a request of the 2026-07-28 era.
func checkModernMeta(t *testing.T, m seen) map[string]json.RawMessage {
	t.Helper()
	meta := m.Meta(t)
	if meta == nil {
		t.Fatalf("%s (id %v) has no params._meta: %s", m.Method, m.ID, m.Params)
	}
	if v := metaString(t, meta, mcp.MetaProtocolVersion); v != v2026 {
		t.Errorf("%s: _meta protocolVersion = %q", m.Method, v)
	}
	caps := clientCaps(t, meta)
	if _, ok := caps["tasks"]; ok {
		t.Errorf("%s: clientCapabilities declares the tasks of 2025-11-25: %s", m.Method, meta[mcp.MetaClientCapabilities])
	}
	var info mcp.Implementation
	if err := json.Unmarshal(meta[mcp.MetaClientInfo], &info); err != nil || info.Name != "mcpi-test" || info.Version != "1.2.3" {
		t.Errorf("%s: _meta clientInfo = %s (%v)", m.Method, meta[mcp.MetaClientInfo], err)
	}
	return meta
}

// ---- 1. Era negotiation ----

// TestEraAutoModern: in auto mode a server of 2026-07-28 is spoken to in its era, with
// server/discover alone, and what it said is the session's.
func TestEraAutoModern(t *testing.T) {
	ctx := bounded(t)
	f := newFake(t)
	s := f.MustConnect(ctx, nil)
	if !s.Modern() || s.ProtocolVersion() != v2026 {
		t.Fatalf("Modern() = %v, ProtocolVersion() = %q; want the 2026-07-28 era", s.Modern(), s.ProtocolVersion())
	}
	if m := f.RequestMethods(); !slices.Equal(m, []string{mcp.MethodServerDiscover}) {
		t.Errorf("the server received %v, want server/discover alone", m)
	}
	d := s.Discover()
	if d == nil || !slices.Equal(d.SupportedVersions, []string{v2026}) || d.Instructions != "be nice" {
		t.Errorf("Discover() = %+v", d)
	}
	ir := s.InitializeResult()
	if ir.ServerInfo.Name != "fake2026" || ir.ServerInfo.Version != "9" || ir.Instructions != "be nice" {
		t.Errorf("InitializeResult() = %+v; want the serverInfo of the discover result's _meta", ir)
	}
	if s.ServerCapabilities().Tools == nil || s.ServerCapabilities().Extensions[mcp.ExtensionTasks] == nil {
		t.Errorf("ServerCapabilities() = %+v", s.ServerCapabilities())
	}
	meta := checkModernMeta(t, f.Last(mcp.MethodServerDiscover))
	caps := clientCaps(t, meta)
	for _, c := range []string{"roots", "sampling", "elicitation"} {
		if _, ok := caps[c]; !ok {
			t.Errorf("clientCapabilities lack %s: %s", c, meta[mcp.MetaClientCapabilities])
		}
	}
	if declaresTasks(t, caps) {
		t.Errorf("server/discover declares the Tasks extension: %s", meta[mcp.MetaClientCapabilities])
	}
}

// TestEraAutoLegacyMethodNotFound: a server of 2025-11-25 that answers server/discover
// with -32601 is initialized, on the same connection, and its requests carry no
// 2026-07-28 _meta.
func TestEraAutoLegacyMethodNotFound(t *testing.T) {
	ctx := bounded(t)
	f := newLegacy(t, nil)
	f.Answer(mcp.MethodToolsList, `{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}`)
	s := f.MustConnect(ctx, nil)
	if s.Modern() || s.ProtocolVersion() != mcp.LatestProtocolVersion || s.Discover() != nil {
		t.Fatalf("Modern() = %v, ProtocolVersion() = %q; want 2025-11-25", s.Modern(), s.ProtocolVersion())
	}
	if s.ProbeTimedOut() {
		t.Error("ProbeTimedOut() is true for a server that refused server/discover")
	}
	// (notifications/initialized may still be on its way.)
	want := []string{mcp.MethodServerDiscover, mcp.MethodInitialize}
	if m := f.RequestMethods(); !slices.Equal(m, want) {
		t.Errorf("the server received %v, want %v", m, want)
	}
	if f.Conns() != 1 {
		t.Errorf("%d connections; the probe's answer left the first one usable", f.Conns())
	}
	if _, err := s.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if m := f.Last(mcp.MethodToolsList); strings.Contains(string(m.Params), mcp.MetaProtocolVersion) {
		t.Errorf("a 2025-11-25 request carries the 2026-07-28 _meta: %s", m.Params)
	}
}

// TestEraAutoSilentProbe: a server that never answers server/discover is taken for one
// of 2025-11-25 after ProbeTimeout, and initialized; the probe is withdrawn.
func TestEraAutoSilentProbe(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := bounded(t)
		f := newLegacy(t, func(ctx context.Context, _ *jsonrpc.Request) (any, error) {
			<-ctx.Done() // withdrawn by the client
			return nil, ctx.Err()
		})
		start := time.Now()
		s := f.MustConnect(ctx, &client.Options{ProbeTimeout: 3 * time.Second})
		if took := time.Since(start); took < 3*time.Second {
			t.Errorf("fell back after %s, before the probe timeout", took)
		}
		if s.Modern() || s.ProtocolVersion() != mcp.LatestProtocolVersion {
			t.Fatalf("Modern() = %v, ProtocolVersion() = %q", s.Modern(), s.ProtocolVersion())
		}
		if !s.ProbeTimedOut() {
			t.Error("ProbeTimedOut() is false for an era chosen for want of an answer")
		}
		if m := f.Methods(); !slices.Contains(m, jsonrpc.CancelledMethod) || !slices.Contains(m, mcp.MethodInitialize) {
			t.Errorf("the server received %v; want the probe withdrawn, then initialize", m)
		}
	})
}

// TestEraAutoUnsupportedVersionRetries: a server that refuses the probe with -32022
// naming 2026-07-28 among what it supports is a server of 2026-07-28: the client asks
// again with that version instead of falling back to initialize.
func TestEraAutoUnsupportedVersionRetries(t *testing.T) {
	ctx := bounded(t)
	f := newFake(t)
	var probes atomic.Int32
	discover := f.Handler(mcp.MethodServerDiscover)
	f.On(mcp.MethodServerDiscover, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		if probes.Add(1) == 1 {
			return nil, jsonrpc.NewError(mcp.CodeUnsupportedProtocolVersion, "Unsupported protocol version").
				WithData(mcp.UnsupportedProtocolVersionData{Supported: []string{v2026}, Requested: "whatever"})
		}
		return discover(ctx, req)
	})
	s, err := f.Connect(ctx, nil)
	if err != nil {
		t.Fatalf("Connect: %v (the server received %v)", err, f.Methods())
	}
	if !s.Modern() {
		t.Fatal("not in the 2026-07-28 era")
	}
	if m := f.RequestMethods(); !slices.Equal(m, []string{mcp.MethodServerDiscover, mcp.MethodServerDiscover}) {
		t.Errorf("the server received %v, want server/discover twice", m)
	}
	if rs := f.Requests(); len(rs) == 2 && rs[0].ID == rs[1].ID {
		t.Errorf("the retry reused id %v", rs[0].ID)
	}
}

// TestEraAutoUnsupportedVersionOnly: -32022 that names only versions of 2025-11-25 sends
// the client to initialize; one that names no version it speaks is an
// *UnsupportedVersionError.
func TestEraAutoUnsupportedVersionOnly(t *testing.T) {
	refuse := func(supported ...string) jsonrpc.HandlerFunc {
		return func(context.Context, *jsonrpc.Request) (any, error) {
			return nil, jsonrpc.NewError(mcp.CodeUnsupportedProtocolVersion, "Unsupported protocol version").
				WithData(mcp.UnsupportedProtocolVersionData{Supported: supported, Requested: v2026})
		}
	}
	ctx := bounded(t)
	f := newLegacy(t, refuse(mcp.LatestProtocolVersion))
	s := f.MustConnect(ctx, nil)
	if s.Modern() || s.ProtocolVersion() != mcp.LatestProtocolVersion {
		t.Errorf("Modern() = %v, ProtocolVersion() = %q; want 2025-11-25", s.Modern(), s.ProtocolVersion())
	}

	f = newLegacy(t, refuse("2099-01-01"))
	_, err := f.Connect(ctx, nil)
	var unsupported *client.UnsupportedVersionError
	if !errors.As(err, &unsupported) || !slices.Equal(unsupported.Supported, []string{"2099-01-01"}) {
		t.Fatalf("Connect: %v, want an *UnsupportedVersionError naming 2099-01-01", err)
	}
	if slices.Contains(f.Methods(), mcp.MethodInitialize) {
		t.Errorf("initialize was sent to a server that named only a newer version: %v", f.Methods())
	}
}

// TestEraAutoEmptyAnswers: a server that answers anything with {} has no
// supportedVersions: it is of 2025-11-25.
func TestEraAutoEmptyAnswers(t *testing.T) {
	ctx := bounded(t)
	f := newLegacy(t, nil)
	f.SetFallback(func(context.Context, *jsonrpc.Request) (any, error) { return raw(`{}`), nil })
	s := f.MustConnect(ctx, nil)
	if s.Modern() || s.ProtocolVersion() != mcp.LatestProtocolVersion {
		t.Fatalf("Modern() = %v, ProtocolVersion() = %q; want 2025-11-25", s.Modern(), s.ProtocolVersion())
	}
	if m := f.Methods(); len(m) < 2 || m[0] != mcp.MethodServerDiscover || m[1] != mcp.MethodInitialize {
		t.Errorf("the server received %v", m)
	}
}

// TestEraTryFirstLegacy: TryFirst naming 2025-11-25 sends initialize first, and no probe
// when it is answered; a server of 2026-07-28 that refuses it with -32022 is then spoken
// to in its era.
func TestEraTryFirstLegacy(t *testing.T) {
	ctx := bounded(t)
	opts := &client.Options{TryFirst: mcp.LatestProtocolVersion}

	dual := newLegacy(t, newFake(t).Handler(mcp.MethodServerDiscover))
	s := dual.MustConnect(ctx, opts)
	if s.Modern() {
		t.Error("a server of both eras, tried with 2025-11-25 first, was spoken to in 2026-07-28")
	}
	if m := dual.Methods(); slices.Contains(m, mcp.MethodServerDiscover) || len(m) == 0 || m[0] != mcp.MethodInitialize {
		t.Errorf("the server received %v, want initialize and no probe", m)
	}

	modern := newFake(t)
	s = modern.MustConnect(ctx, opts)
	if !s.Modern() || s.ProtocolVersion() != v2026 {
		t.Fatalf("Modern() = %v, ProtocolVersion() = %q; want 2026-07-28 after -32022 on initialize", s.Modern(), s.ProtocolVersion())
	}
	if m := modern.RequestMethods(); !slices.Equal(m, []string{mcp.MethodInitialize, mcp.MethodServerDiscover}) {
		t.Errorf("the server received %v, want initialize then server/discover", m)
	}
}

// TestEraForcedModernAgainstLegacy: ProtocolVersion 2026-07-28 against a server of
// 2025-11-25 fails Connect with an error that says so, and sends no initialize.
func TestEraForcedModernAgainstLegacy(t *testing.T) {
	ctx := bounded(t)
	opts := &client.Options{ProtocolVersion: v2026}

	f := newLegacy(t, nil)
	_, err := f.Connect(ctx, opts)
	if err == nil || !errors.Is(err, jsonrpc.ErrMethodNotFound) || !strings.Contains(err.Error(), mcp.MethodServerDiscover) {
		t.Errorf("Connect: %v; want server/discover's -32601", err)
	}
	if slices.Contains(f.Methods(), mcp.MethodInitialize) {
		t.Errorf("initialize sent in forced 2026-07-28 mode: %v", f.Methods())
	}

	// A server that answers {}: no supportedVersions.
	f = newLegacy(t, func(context.Context, *jsonrpc.Request) (any, error) { return raw(`{}`), nil })
	_, err = f.Connect(ctx, opts)
	var unsupported *client.UnsupportedVersionError
	if !errors.As(err, &unsupported) || unsupported.Requested != v2026 || !strings.Contains(err.Error(), v2026) {
		t.Errorf("Connect: %v; want an *UnsupportedVersionError for 2026-07-28", err)
	}

	// And forced 2025-11-25 against a server of 2026-07-28 only.
	f = newFake(t)
	_, err = f.Connect(ctx, &client.Options{ProtocolVersion: mcp.LatestProtocolVersion})
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) || rpc.Code != mcp.CodeUnsupportedProtocolVersion {
		t.Errorf("Connect: %v; want initialize's -32022", err)
	}
	if slices.Contains(f.Methods(), mcp.MethodServerDiscover) {
		t.Errorf("server/discover sent in forced 2025-11-25 mode: %v", f.Methods())
	}
}

// TestEraForcedModernSilent: forced 2026-07-28 against a server that never answers
// server/discover fails after ProbeTimeout rather than waiting for ever.
func TestEraForcedModernSilent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := bounded(t)
		f := newLegacy(t, func(ctx context.Context, _ *jsonrpc.Request) (any, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})
		start := time.Now()
		_, err := f.Connect(ctx, &client.Options{ProtocolVersion: v2026, ProbeTimeout: 2 * time.Second})
		var timeout *client.TimeoutError
		if !errors.As(err, &timeout) || timeout.Method != mcp.MethodServerDiscover || ctx.Err() != nil {
			t.Fatalf("Connect: %v; want a *client.TimeoutError for server/discover", err)
		}
		if took := time.Since(start); took != 2*time.Second {
			t.Errorf("Connect failed after %s, want the probe timeout", took)
		}
	})
}

// TestEraAutoOverHTTP: over Streamable HTTP, -32601 with 404 is a server of 2025-11-25,
// and -32022 with 400 one of 2026-07-28.
func TestEraAutoOverHTTP(t *testing.T) {
	ctx := bounded(t)
	legacy := newLegacy(t, nil)
	s := legacy.ConnectHTTP(ctx, nil)
	if s.Modern() {
		t.Error("a server that answers server/discover with 404 is spoken to in 2026-07-28")
	}
	if m := legacy.Methods(); len(m) < 2 || m[0] != mcp.MethodServerDiscover || m[1] != mcp.MethodInitialize {
		t.Errorf("the server received %v", m)
	}

	modern := newFake(t)
	s = modern.ConnectHTTP(ctx, &client.Options{TryFirst: mcp.LatestProtocolVersion})
	if !s.Modern() {
		t.Error("a server that answers initialize with HTTP 400 and -32022 is not spoken to in 2026-07-28")
	}
}

// ---- 2. _meta on every request, and its HTTP headers ----

// serveCatalog has f answer the listing and reading methods with small complete results.
func serveCatalog(f *fakeServer, tools string) {
	f.Answer(mcp.MethodToolsList, `{"resultType":"complete","tools":`+tools+`,"ttlMs":0,"cacheScope":"public"}`)
	f.Answer(mcp.MethodToolsCall, `{"resultType":"complete","content":[{"type":"text","text":"ok"}]}`)
	f.Answer(mcp.MethodPromptsList, `{"resultType":"complete","prompts":[{"name":"p"}]}`)
	f.Answer(mcp.MethodPromptsGet, `{"resultType":"complete","messages":[{"role":"user","content":{"type":"text","text":"hi"}}]}`)
	f.Answer(mcp.MethodResourcesList, `{"resultType":"complete","resources":[{"uri":"file:///x","name":"x"}]}`)
	f.Answer(mcp.MethodResourcesTemplatesList, `{"resultType":"complete","resourceTemplates":[]}`)
	f.Answer(mcp.MethodResourcesRead, `{"resultType":"complete","contents":[{"uri":"file:///x","text":"x"}]}`)
	f.Answer(mcp.MethodCompletionComplete, `{"resultType":"complete","completion":{"values":["a"]}}`)
	f.Answer(mcp.MethodTasksGet, `{"resultType":"complete","taskId":"task-1","status":"working","createdAt":"2026-08-01T10:00:00Z","lastUpdatedAt":"2026-08-01T10:00:00Z","ttlMs":null}`)
}

const catalogTools = `[
	{"name":"plain","inputSchema":{"type":"object"}},
	{"name":"héllo","inputSchema":{"type":"object","properties":{
		"region":{"type":"string","x-mcp-header":"Region"},
		"count":{"type":"integer","x-mcp-header":"Count"},
		"flag":{"type":"boolean","x-mcp-header":"Flag"},
		"note":{"type":"string","x-mcp-header":"Note"},
		"absent":{"type":"string","x-mcp-header":"Absent"}}}},
	{"name":"bad","inputSchema":{"type":"object","properties":{"ratio":{"type":"number","x-mcp-header":"Ratio"}}}},
	{"name":"spaced","inputSchema":{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Two Words"}}}}
]`

// exercise sends one of each request the session's API has, in the 2026-07-28 era.
func exercise(t *testing.T, ctx context.Context, s *client.Session) {
	t.Helper()
	steps := []struct {
		name string
		run  func() error
	}{
		{"ListTools", func() error { _, err := s.ListTools(ctx, nil); return err }},
		{"CallTool", func() error {
			_, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "héllo", Arguments: json.RawMessage(
				`{"region":"us-west1","count":42,"flag":true,"note":"Grüße"}`)}, &client.CallOptions{Progress: true})
			return err
		}},
		{"ListPrompts", func() error { _, err := s.ListPrompts(ctx, nil); return err }},
		{"GetPrompt", func() error { _, err := s.GetPrompt(ctx, &mcp.GetPromptParams{Name: "p"}); return err }},
		{"ListResources", func() error { _, err := s.ListResources(ctx, nil); return err }},
		{"ListResourceTemplates", func() error { _, err := s.ListResourceTemplates(ctx, nil); return err }},
		{"ReadResource", func() error { _, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///x"}); return err }},
		{"Complete", func() error {
			_, err := s.Complete(ctx, &mcp.CompleteParams{Ref: mcp.CompleteReference{Type: "ref/prompt", Name: "p"}, Argument: mcp.CompleteArgument{Name: "a", Value: "b"}})
			return err
		}},
		{"GetTask", func() error { _, err := s.GetTask(ctx, "task-1"); return err }},
		{"Ping", func() error { return s.Ping(ctx) }},
	}
	for _, st := range steps {
		if err := st.run(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
	}
}

// TestModernMetaOnEveryRequest: every request of the 2026-07-28 era carries the version,
// the capabilities and the client's name in _meta, with what the caller put there kept;
// the Tasks extension is declared on tasks/* alone (and on task calls, exttasks_test.go);
// SetLogLevel adds the level to every later request.
func TestModernMetaOnEveryRequest(t *testing.T) {
	ctx := bounded(t)
	f := newFake(t)
	serveCatalog(f, catalogTools)
	s := f.MustConnect(ctx, nil)
	exercise(t, ctx, s)
	for _, m := range f.Requests() {
		meta := checkModernMeta(t, m)
		if got := declaresTasks(t, clientCaps(t, meta)); got != strings.HasPrefix(m.Method, "tasks/") {
			t.Errorf("%s: declares the Tasks extension: %v", m.Method, got)
		}
		if _, ok := meta[mcp.MetaLogLevel]; ok {
			t.Errorf("%s carries a log level before SetLogLevel", m.Method)
		}
	}
	call := f.Last(mcp.MethodToolsCall)
	if tok, ok := call.Meta(t)[mcp.MetaProgressToken]; !ok || len(tok) < 3 {
		t.Errorf("tools/call with Progress lost its progress token: %s", call.Params)
	}
	var args map[string]any
	if !call.Param(t, "arguments", &args) || args["region"] != "us-west1" || call.Param(t, "task", nil) {
		t.Errorf("tools/call params = %s", call.Params)
	}
	if n := len(f.Requests(mcp.MethodServerDiscover)); n != 2 {
		t.Errorf("%d server/discover; Ping in 2026-07-28 sends one", n)
	}

	// The caller's own _meta members stay, beside the client's.
	p := &mcp.CallToolParams{Name: "plain"}
	p.Meta = mcp.Meta{"example.com/trace": "abc"}
	if _, err := s.CallTool(ctx, p, nil); err != nil {
		t.Fatal(err)
	}
	meta := checkModernMeta(t, f.Last(mcp.MethodToolsCall))
	if metaString(t, meta, "example.com/trace") != "abc" {
		t.Errorf("the caller's _meta member was lost: %s", f.Last(mcp.MethodToolsCall).Params)
	}

	if err := s.SetLogLevel(ctx, "warning"); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(f.Methods(), mcp.MethodLoggingSetLevel) {
		t.Error("logging/setLevel sent in 2026-07-28")
	}
	if _, err := s.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if lvl := metaString(t, checkModernMeta(t, f.Last(mcp.MethodToolsList)), mcp.MetaLogLevel); lvl != "warning" {
		t.Errorf("_meta logLevel = %q after SetLogLevel", lvl)
	}
	// No server checks the level before requests carry it: the client refuses one the
	// protocol does not have, and keeps the one it had.
	if err := s.SetLogLevel(ctx, "loud"); !errors.Is(err, jsonrpc.ErrInvalidParams) {
		t.Errorf("an unknown level: %v, want -32602", err)
	}
	if _, err := s.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if lvl := metaString(t, checkModernMeta(t, f.Last(mcp.MethodToolsList)), mcp.MetaLogLevel); lvl != "warning" {
		t.Errorf("_meta logLevel = %q after an unknown level", lvl)
	}
}

// TestModernHTTPHeaders: over Streamable HTTP every request carries MCP-Protocol-Version
// and Mcp-Method, and those that address something Mcp-Name (base64 when it is not
// header-safe); tool arguments marked x-mcp-header travel as Mcp-Param-* too.
func TestModernHTTPHeaders(t *testing.T) {
	ctx := bounded(t)
	f := newFake(t)
	serveCatalog(f, catalogTools)
	s := f.ConnectHTTP(ctx, nil)
	if !s.Modern() {
		t.Fatal("not in the 2026-07-28 era")
	}
	exercise(t, ctx, s)
	reqs := f.Requests()
	if len(reqs) == 0 {
		t.Fatal("no requests")
	}
	for _, m := range reqs {
		checkModernMeta(t, m)
		if v := m.Header.Get("MCP-Protocol-Version"); v != v2026 {
			t.Errorf("%s: MCP-Protocol-Version = %q", m.Method, v)
		}
		if v := m.Header.Get("Mcp-Method"); v != m.Method {
			t.Errorf("%s: Mcp-Method = %q", m.Method, v)
		}
		if m.Header.Get("Mcp-Session-Id") != "" {
			t.Errorf("%s: a session id in 2026-07-28", m.Method)
		}
		want := map[string]string{
			mcp.MethodToolsCall:     "=?base64?aMOpbGxv?=", // héllo
			mcp.MethodPromptsGet:    "p",
			mcp.MethodResourcesRead: "file:///x",
			mcp.MethodTasksGet:      "task-1",
		}[m.Method]
		if got := m.Header.Values("Mcp-Name"); want == "" && len(got) > 0 || want != "" && (len(got) != 1 || got[0] != want) {
			t.Errorf("%s: Mcp-Name = %q, want %q", m.Method, got, want)
		}
	}
	h := f.Last(mcp.MethodToolsCall).Header
	for name, want := range map[string]string{
		"Mcp-Param-Region": "us-west1",
		"Mcp-Param-Count":  "42",
		"Mcp-Param-Flag":   "true",
		"Mcp-Param-Note":   "=?base64?R3LDvMOfZQ==?=", // Grüße
	} {
		if got := h.Get(name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if v, ok := h["Mcp-Param-Absent"]; ok {
		t.Errorf("Mcp-Param-Absent = %q for an argument not given", v)
	}
	for k := range h {
		if strings.HasPrefix(http.CanonicalHeaderKey(k), "Mcp-Param-") && !slices.Contains([]string{"Mcp-Param-Region", "Mcp-Param-Count", "Mcp-Param-Flag", "Mcp-Param-Note"}, k) {
			t.Errorf("unexpected header %s", k)
		}
	}
}

// TestModernInvalidHeaderToolsLeftOut: over HTTP a tool whose x-mcp-header declaration
// is invalid is left out of the listing (its calls could not carry the header); over the
// pipe, which has no headers, it is kept.
func TestModernInvalidHeaderToolsLeftOut(t *testing.T) {
	ctx := bounded(t)
	names := func(s *client.Session) []string {
		t.Helper()
		var out []string
		for tool, err := range s.Tools(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, tool.Name)
		}
		r, err := s.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var page []string
		for _, tool := range r.Tools {
			page = append(page, tool.Name)
		}
		if !slices.Equal(out, page) {
			t.Errorf("Tools gave %v, ListTools %v", out, page)
		}
		return out
	}
	f := newFake(t)
	serveCatalog(f, catalogTools)
	if got, want := names(f.ConnectHTTP(ctx, nil)), []string{"plain", "héllo"}; !slices.Equal(got, want) {
		t.Errorf("over HTTP: tools %v, want %v", got, want)
	}
	f = newFake(t)
	serveCatalog(f, catalogTools)
	if got, want := names(f.MustConnect(ctx, nil)), []string{"plain", "héllo", "bad", "spaced"}; !slices.Equal(got, want) {
		t.Errorf("over the pipe: tools %v, want %v", got, want)
	}
}

// ---- 3. resultType ----

// TestModernResultType: an absent resultType is complete; one the client does not know,
// input_required where no input can be asked for, and a task where none was allowed are
// each a *ResultTypeError; tasks/get marked "task" (as the extension's examples have it)
// is taken.
func TestModernResultType(t *testing.T) {
	ctx := bounded(t)
	f := newFake(t)
	s := f.MustConnect(ctx, nil)

	f.Answer(mcp.MethodToolsList, `{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}`)
	if r, err := s.ListTools(ctx, nil); err != nil || len(r.Tools) != 1 {
		t.Errorf("a result with no resultType: %+v, %v", r, err)
	}

	cases := []struct {
		name, method, result string
		call                 func() error
		want                 mcp.ResultType
	}{
		{"unknown", mcp.MethodToolsCall, `{"resultType":"partial","content":[]}`,
			func() error { _, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "a"}, nil); return err }, "partial"},
		{"input_required on tools/list", mcp.MethodToolsList, `{"resultType":"input_required","inputRequests":{"k":{"method":"roots/list"}}}`,
			func() error { _, err := s.ListTools(ctx, nil); return err }, mcp.ResultTypeInputRequired},
		{"task to a plain call", mcp.MethodToolsCall, `{"resultType":"task","taskId":"t1","status":"working","createdAt":"2026-08-01T10:00:00Z","lastUpdatedAt":"2026-08-01T10:00:00Z","ttlMs":null}`,
			func() error { _, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "a"}, nil); return err }, mcp.ResultTypeTask},
		{"task to prompts/get", mcp.MethodPromptsGet, `{"resultType":"task","taskId":"t1","status":"working"}`,
			func() error { _, err := s.GetPrompt(ctx, &mcp.GetPromptParams{Name: "p"}); return err }, mcp.ResultTypeTask},
		{"unknown on tasks/update's kin tasks/cancel", mcp.MethodTasksCancel, `{"resultType":"later"}`,
			func() error { _, err := s.CancelTask(ctx, "t1"); return err }, "later"},
	}
	for _, c := range cases {
		f.Answer(c.method, c.result)
		err := c.call()
		var rt *client.ResultTypeError
		if !errors.As(err, &rt) || rt.Method != c.method || rt.ResultType != c.want {
			t.Errorf("%s: %v, want a *ResultTypeError for %s %q", c.name, err, c.method, c.want)
		}
	}
	// The plain call declared no extension, so a server could not rightly answer it
	// with a task.
	if declaresTasks(t, clientCaps(t, f.Last(mcp.MethodToolsCall).Meta(t))) {
		t.Error("a plain tools/call declared the Tasks extension")
	}

	f.Answer(mcp.MethodTasksGet, `{"resultType":"task","taskId":"t1","status":"working","createdAt":"2026-08-01T10:00:00Z","lastUpdatedAt":"2026-08-01T10:00:00Z","ttlMs":null}`)
	st, err := s.GetTask(ctx, "t1")
	if err != nil || st.TaskID != "t1" || st.Status != mcp.TaskStatusWorking {
		t.Errorf("tasks/get marked task: %+v, %v", st, err)
	}
	// tasks/get answering for another task, or none, is an error.
	f.Answer(mcp.MethodTasksGet, `{"resultType":"complete","taskId":"t2","status":"working","createdAt":"2026-08-01T10:00:00Z","lastUpdatedAt":"2026-08-01T10:00:00Z","ttlMs":null}`)
	if _, err := s.GetTask(ctx, "t1"); err == nil {
		t.Error("tasks/get answered for another task: no error")
	}
	// A discover result that is not complete is no discover result.
	f.Answer(mcp.MethodServerDiscover, `{"resultType":"input_required","requestState":"x"}`)
	if err := s.Ping(ctx); !errors.As(err, new(*client.ResultTypeError)) {
		t.Errorf("server/discover answered input_required: %v", err)
	}
}

// ---- 4. MRTR ----

// mrtrCalls decodes what the retries of a request carried.
type mrtrParams struct {
	Name           string                     `json:"name"`
	URI            string                     `json:"uri"`
	Arguments      map[string]any             `json:"arguments"`
	InputResponses map[string]json.RawMessage `json:"inputResponses"`
	RequestState   *string                    `json:"requestState"`
}

func decodeMRTR(t *testing.T, m seen) mrtrParams {
	t.Helper()
	var p mrtrParams
	if err := json.Unmarshal(m.Params, &p); err != nil {
		t.Fatalf("%s params %s: %v", m.Method, m.Params, err)
	}
	return p
}

// answering returns OnRequest that answers every request with answer, and the requests
// it was given.
func answering(answer func(r *client.Request)) (func(context.Context, *client.Request), func() []*client.Request) {
	var mu sync.Mutex
	var got []*client.Request
	return func(_ context.Context, r *client.Request) {
			mu.Lock()
			got = append(got, r)
			mu.Unlock()
			answer(r)
		}, func() []*client.Request {
			mu.Lock()
			defer mu.Unlock()
			return slices.Clone(got)
		}
}

const elicitName = scripted.ElicitName

// TestMRTRElicitation: a tools/call answered input_required with an elicitation puts a
// *Request with its InputKey in the pending queue; once answered, the call is sent again
// with a new id, the answer under its key and the requestState exactly as it came.
func TestMRTRElicitation(t *testing.T) {
	ctx := bounded(t)
	f := newFake(t)
	const state = `opaque "state" é\u2028 + ≠`
	stateJSON, _ := json.Marshal(state)
	f.On(mcp.MethodToolsCall, func(_ context.Context, req *jsonrpc.Request) (any, error) {
		if !strings.Contains(string(req.Params), "inputResponses") {
			return raw(`{"resultType":"input_required","inputRequests":{"user_name":` + elicitName + `},"requestState":` + string(stateJSON) + `}`), nil
		}
		return raw(`{"resultType":"complete","content":[{"type":"text","text":"Hello, Luca!"}]}`), nil
	})
	var pendingWhileAsked atomic.Int32
	onRequest, asked := answering(func(r *client.Request) {
		_ = r.Accept(map[string]any{"name": "Luca"})
	})
	var s *client.Session
	s = f.MustConnect(ctx, &client.Options{OnRequest: func(ctx context.Context, r *client.Request) {
		pendingWhileAsked.Store(int32(len(s.PendingRequests())))
		onRequest(ctx, r)
	}})
	sub := s.Subscribe()
	defer sub.Close()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: json.RawMessage(`{"x":1}`)}, nil)
	if err != nil || len(res.Content) != 1 || res.Content[0].Text != "Hello, Luca!" {
		t.Fatalf("CallTool: %+v, %v", res, err)
	}
	rs := asked()
	if len(rs) != 1 {
		t.Fatalf("%d requests queued, want 1", len(rs))
	}
	r := rs[0]
	if r.InputKey != "user_name" || r.Method != mcp.MethodElicitationCreate || r.Elicitation == nil ||
		r.Elicitation.Message != "Your name?" || r.ID.IsValid() || r.RelatedTask != "" {
		t.Errorf("the queued request: %+v", r)
	}
	if pendingWhileAsked.Load() != 1 {
		t.Errorf("%d requests pending while the user was asked, want 1", pendingWhileAsked.Load())
	}
	if n := len(s.PendingRequests()); n != 0 {
		t.Errorf("%d requests still pending", n)
	}
	calls := f.Requests(mcp.MethodToolsCall)
	if len(calls) != 2 {
		t.Fatalf("%d tools/call, want 2", len(calls))
	}
	if calls[0].ID == calls[1].ID {
		t.Errorf("the retry reused id %v", calls[0].ID)
	}
	first, retry := decodeMRTR(t, calls[0]), decodeMRTR(t, calls[1])
	if first.InputResponses != nil || first.RequestState != nil {
		t.Errorf("the first call carries input: %s", calls[0].Params)
	}
	if retry.Name != "greet" || retry.Arguments["x"] != 1.0 {
		t.Errorf("the retry lost the call's params: %s", calls[1].Params)
	}
	checkModernMeta(t, calls[1])
	if retry.RequestState == nil || *retry.RequestState != state {
		t.Errorf("requestState = %v, want %q verbatim", retry.RequestState, state)
	}
	var answer mcp.ElicitResult
	if err := json.Unmarshal(retry.InputResponses["user_name"], &answer); err != nil || answer.Action != "accept" || answer.Content["name"] != "Luca" || len(retry.InputResponses) != 1 {
		t.Errorf("inputResponses = %s (%v)", calls[1].Params, err)
	}
	if strings.Contains(string(retry.InputResponses["user_name"]), "resultType") || strings.Contains(string(retry.InputResponses["user_name"]), "jsonrpc") {
		t.Errorf("an input response is not the bare result: %s", retry.InputResponses["user_name"])
	}
	// The front ends saw the request come and go.
	var queued, settled bool
	for {
		e, ok := sub.Next(ctxShort(t))
		if !ok {
			break
		}
		if re, isReq := e.(*client.RequestEvent); isReq && re.Request == r {
			queued = queued || !re.Settled
			settled = settled || re.Settled
		}
		if queued && settled {
			break
		}
	}
	if !queued || !settled {
		t.Errorf("request events: queued %v, settled %v", queued, settled)
	}
}

// ctxShort bounds a wait for something that has already happened.
func ctxShort(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestMRTRNoRequestState: a retry carries no requestState when the result had none, and
// a result with only requestState is retried at once with it and no inputResponses.
func TestMRTRNoRequestState(t *testing.T) {
	ctx := bounded(t)
	f := newFake(t)
	var n atomic.Int32
	f.On(mcp.MethodToolsCall, func(context.Context, *jsonrpc.Request) (any, error) {
		switch n.Add(1) {
		case 1:
			return raw(`{"resultType":"input_required","inputRequests":{"user_name":` + elicitName + `}}`), nil
		case 2:
			return raw(`{"resultType":"input_required","requestState":"shed-1"}`), nil
		}
		return raw(`{"resultType":"complete","content":[]}`), nil
	})
	onRequest, asked := answering(func(r *client.Request) { _ = r.Decline() })
	s := f.MustConnect(ctx, &client.Options{OnRequest: onRequest})
	if _, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "greet"}, nil); err != nil {
		t.Fatal(err)
	}
	calls := f.Requests(mcp.MethodToolsCall)
	if len(calls) != 3 || len(asked()) != 1 {
		t.Fatalf("%d tools/call and %d requests asked, want 3 and 1", len(calls), len(asked()))
	}
	if calls[1].Param(t, "requestState", nil) {
		t.Errorf("the retry carries a requestState the server did not send: %s", calls[1].Params)
	}
	var declined mcp.ElicitResult
	if p := decodeMRTR(t, calls[1]); json.Unmarshal(p.InputResponses["user_name"], &declined) != nil || declined.Action != "decline" {
		t.Errorf("the retry: %s", calls[1].Params)
	}
	if p := decodeMRTR(t, calls[2]); p.InputResponses != nil || p.RequestState == nil || *p.RequestState != "shed-1" {
		t.Errorf("the state-only retry: %s; want requestState alone", calls[2].Params)
	}
}

// TestMRTRRootsAndRounds: roots/list is answered at once with Options.Roots (and the
// roots SetRoots gives later), without the user; rounds follow one another, each retry
// carrying the answers and the state of the round before it only.
func TestMRTRRootsAndRounds(t *testing.T) {
	ctx := bounded(t)
	f := newFake(t)
	var n atomic.Int32
	f.On(mcp.MethodToolsCall, func(context.Context, *jsonrpc.Request) (any, error) {
		switch n.Add(1) {
		case 1:
			return raw(`{"resultType":"input_required","inputRequests":{"client_roots":{"method":"roots/list"},"step1":` + elicitName + `},"requestState":"s1"}`), nil
		case 2:
			return raw(`{"resultType":"input_required","inputRequests":{"step2":{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"Capital of France?"}}],"maxTokens":10}}},"requestState":"s2"}`), nil
		}
		return raw(`{"resultType":"complete","content":[{"type":"text","text":"done"}]}`), nil
	})
	onRequest, asked := answering(func(r *client.Request) {
		switch {
		case r.Sampling != nil:
			_ = r.Respond(&mcp.CreateMessageResult{Role: "assistant", Content: []mcp.Content{mcp.TextContent("Paris")}, Model: "m"})
		default:
			_ = r.Accept(map[string]any{"name": "Ada"})
		}
	})
	s := f.MustConnect(ctx, &client.Options{OnRequest: onRequest, Roots: []mcp.Root{{URI: "file:///work", Name: "work"}}})
	if _, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "multi"}, nil); err != nil {
		t.Fatal(err)
	}
	calls := f.Requests(mcp.MethodToolsCall)
	if len(calls) != 3 {
		t.Fatalf("%d tools/call, want 3", len(calls))
	}
	if rs := asked(); len(rs) != 2 || rs[0].InputKey != "step1" || rs[1].InputKey != "step2" || rs[1].Sampling == nil {
		t.Errorf("the user was asked %d times: %+v", len(rs), rs)
	}
	r2, r3 := decodeMRTR(t, calls[1]), decodeMRTR(t, calls[2])
	var roots mcp.ListRootsResult
	if err := json.Unmarshal(r2.InputResponses["client_roots"], &roots); err != nil || len(roots.Roots) != 1 || roots.Roots[0].URI != "file:///work" {
		t.Errorf("roots answer: %s (%v)", r2.InputResponses["client_roots"], err)
	}
	if len(r2.InputResponses) != 2 || r2.RequestState == nil || *r2.RequestState != "s1" {
		t.Errorf("round 2: %s", calls[1].Params)
	}
	var sampled mcp.CreateMessageResult
	if len(r3.InputResponses) != 1 || r3.RequestState == nil || *r3.RequestState != "s2" ||
		json.Unmarshal(r3.InputResponses["step2"], &sampled) != nil || sampled.Model != "m" {
		t.Errorf("round 3 (want step2 and s2 alone): %s", calls[2].Params)
	}
	for i := range calls {
		for j := range i {
			if calls[i].ID == calls[j].ID {
				t.Errorf("calls %d and %d share id %v", j, i, calls[i].ID)
			}
		}
	}

	// Roots set later are the ones given, and an empty set is [] rather than null.
	if err := s.SetRoots(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(f.Methods(), mcp.NotificationRootsListChanged) {
		t.Error("notifications/roots/list_changed sent in 2026-07-28")
	}
	n.Store(10)
	f.On(mcp.MethodPromptsGet, func(_ context.Context, req *jsonrpc.Request) (any, error) {
		if !strings.Contains(string(req.Params), "inputResponses") {
			return raw(`{"resultType":"input_required","inputRequests":{"r":{"method":"roots/list"}}}`), nil
		}
		return raw(`{"resultType":"complete","messages":[]}`), nil
	})
	if _, err := s.GetPrompt(ctx, &mcp.GetPromptParams{Name: "p"}); err != nil {
		t.Fatal(err)
	}
	if p := decodeMRTR(t, f.Last(mcp.MethodPromptsGet)); string(p.InputResponses["r"]) != `{"roots":[]}` {
		t.Errorf("roots answer after SetRoots(nil): %s", p.InputResponses["r"])
	}
}

// TestMRTRResourcesRead: resources/read may ask for input too.
func TestMRTRResourcesRead(t *testing.T) {
	ctx := bounded(t)
	f := newFake(t)
	f.On(mcp.MethodResourcesRead, func(_ context.Context, req *jsonrpc.Request) (any, error) {
		if !strings.Contains(string(req.Params), "inputResponses") {
			return raw(`{"resultType":"input_required","inputRequests":{"k":` + elicitName + `},"requestState":"r"}`), nil
		}
		return raw(`{"resultType":"complete","contents":[{"uri":"file:///a","text":"A"}]}`), nil
	})
	onRequest, _ := answering(func(r *client.Request) { _ = r.Accept(map[string]any{"name": "x"}) })
	s := f.MustConnect(ctx, &client.Options{OnRequest: onRequest})
	res, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///a"})
	if err != nil || len(res.Contents) != 1 {
		t.Fatalf("ReadResource: %+v, %v", res, err)
	}
	if p := decodeMRTR(t, f.Last(mcp.MethodResourcesRead)); p.URI != "file:///a" || p.RequestState == nil || *p.RequestState != "r" {
		t.Errorf("the retry: %s", f.Last(mcp.MethodResourcesRead).Params)
	}
}

// TestMRTRRoundsBounded: a server that asks for input for ever ends the request with an
// *InputRoundsError once MaxInputRounds rounds of input were answered (one was none:
// --max-input-rounds 1 refused the one question of a tool).
func TestMRTRRoundsBounded(t *testing.T) {
	ctx := bounded(t)
	f := newFake(t)
	f.Answer(mcp.MethodToolsCall, `{"resultType":"input_required","inputRequests":{"r":{"method":"roots/list"}},"requestState":"again"}`)
	s := f.MustConnect(ctx, &client.Options{MaxInputRounds: 3})
	_, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "loop"}, nil)
	var rounds *client.InputRoundsError
	if !errors.As(err, &rounds) || rounds.Method != mcp.MethodToolsCall || rounds.Rounds != 3 {
		t.Fatalf("CallTool: %v, want an *InputRoundsError after 3 rounds", err)
	}
	if n := len(f.Requests(mcp.MethodToolsCall)); n != 4 {
		t.Errorf("%d tools/call sent, want 4: the first, and one for each answered round", n)
	}

	// The default bound holds too.
	f = newFake(t)
	f.Answer(mcp.MethodToolsCall, `{"resultType":"input_required","requestState":"again"}`)
	s = f.MustConnect(ctx, nil)
	if _, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "loop"}, nil); !errors.As(err, &rounds) || rounds.Rounds != client.DefaultMaxInputRounds {
		t.Fatalf("CallTool: %v, want the default bound", err)
	}
}

// TestMRTRRefused: a request the user refuses ends the call with an *InputError (the
// 2026-07-28 wire has no way to send a refusal back), and the call is not sent again;
// the other requests of the round are withdrawn.
func TestMRTRRefused(t *testing.T) {
	ctx := bounded(t)
	f := newFake(t)
	f.Answer(mcp.MethodToolsCall, `{"resultType":"input_required","inputRequests":{"a_name":`+elicitName+`,"b_name":`+elicitName+`}}`)
	// OnRequest runs on its own goroutine, maybe after the call has ended: what it saw
	// comes back on a channel.
	withdrawn := make(chan bool, 1)
	s := f.MustConnect(ctx, &client.Options{OnRequest: func(ctx context.Context, r *client.Request) {
		if r.InputKey == "a_name" {
			_ = r.Refuse("not today")
			return
		}
		select { // b_name is left to the user, who never answers
		case <-r.Done():
			withdrawn <- r.Withdrawn()
		case <-ctx.Done():
			withdrawn <- true
		}
	}})
	_, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "greet"}, nil)
	var inErr *client.InputError
	if !errors.As(err, &inErr) || inErr.Key != "a_name" || inErr.Method != mcp.MethodElicitationCreate {
		t.Fatalf("CallTool: %v, want an *InputError for a_name", err)
	}
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) || rpc.Code != client.CodeUserRejected {
		t.Errorf("the refusal is not in the error: %v", err)
	}
	if strings.Count(err.Error(), mcp.MethodToolsCall) != 1 {
		t.Errorf("the error names the method other than once: %v", err)
	}
	if n := len(f.Requests(mcp.MethodToolsCall)); n != 1 {
		t.Errorf("%d tools/call sent, want 1", n)
	}
	select {
	case w := <-withdrawn:
		if !w {
			t.Error("the other request of the round was not withdrawn")
		}
	case <-ctx.Done():
		t.Fatal("the other request of the round was never settled")
	}
	if n := len(s.PendingRequests()); n != 0 {
		t.Errorf("%d requests left pending", n)
	}
}

// TestMRTRRound: each request of an input_required round knows the others (a front end
// that cannot answer one names every answer missing at once), in key order; roots/list,
// answered by the client itself, is none of them.
func TestMRTRRound(t *testing.T) {
	ctx := bounded(t)
	f := newFake(t)
	f.Answer(mcp.MethodToolsCall, `{"resultType":"input_required","inputRequests":{"b_name":`+elicitName+`,"a_name":`+elicitName+`,"roots":{"method":"roots/list"}}}`)
	rounds := make(chan []string, 2)
	s := f.MustConnect(ctx, &client.Options{Roots: []mcp.Root{}, OnRequest: func(ctx context.Context, r *client.Request) {
		var keys []string
		for _, q := range r.Round() {
			keys = append(keys, q.InputKey)
		}
		rounds <- keys
		_ = r.Refuse("no")
	}})
	if _, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "greet"}, nil); err == nil {
		t.Fatal("the call succeeded")
	}
	for range 2 {
		if got := <-rounds; strings.Join(got, ",") != "a_name,b_name" {
			t.Errorf("Round() = %q, want a_name, b_name", got)
		}
	}
}

// TestMRTRUndeclared: a server that asks for input through a capability the client did
// not declare, or through a method no input request may use, ends the call with an
// *InputError and asks nobody.
func TestMRTRUndeclared(t *testing.T) {
	ctx := bounded(t)
	for _, c := range []struct{ name, request string }{
		{"elicitation", elicitName},
		{"roots", `{"method":"roots/list"}`},
		{"ping", `{"method":"ping"}`},
		{"tools/call", `{"method":"tools/call","params":{"name":"x"}}`},
	} {
		f := newFake(t)
		f.Answer(mcp.MethodToolsCall, `{"resultType":"input_required","inputRequests":{"k":`+c.request+`}}`)
		onRequest, asked := answering(func(r *client.Request) { _ = r.Decline() })
		s := f.MustConnect(ctx, &client.Options{OnRequest: onRequest, Capabilities: &mcp.ClientCapabilities{Sampling: &mcp.SamplingCapability{}}})
		_, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "greet"}, nil)
		var inErr *client.InputError
		if !errors.As(err, &inErr) || inErr.Key != "k" {
			t.Errorf("%s: %v, want an *InputError", c.name, err)
		}
		if len(asked()) != 0 || len(f.Requests(mcp.MethodToolsCall)) != 1 {
			t.Errorf("%s: asked %d, sent %d tools/call", c.name, len(asked()), len(f.Requests(mcp.MethodToolsCall)))
		}
		caps := clientCaps(t, f.Last(mcp.MethodToolsCall).Meta(t))
		if _, ok := caps["elicitation"]; ok {
			t.Errorf("%s: elicitation declared: %v", c.name, caps)
		}
	}
}

// ---- 6. Bad input ----

// TestModernServerRequest: a server of 2026-07-28 sends no requests; one that does gets
// -32601, and the session goes on.
func TestModernServerRequest(t *testing.T) {
	ctx := bounded(t)
	f := newFake(t)
	f.Answer(mcp.MethodToolsList, `{"resultType":"complete","tools":[]}`)
	onRequest, asked := answering(func(r *client.Request) { _ = r.Decline() })
	s := f.MustConnect(ctx, &client.Options{OnRequest: onRequest})
	for _, method := range []string{mcp.MethodElicitationCreate, mcp.MethodSamplingCreateMessage, mcp.MethodRootsList, mcp.MethodPing, mcp.MethodTasksList} {
		params := json.RawMessage(`{"message":"hi","requestedSchema":{"type":"object"},"messages":[],"maxTokens":1}`)
		err := f.Conn().Call(ctx, method, params, nil)
		var rpc *jsonrpc.Error
		if !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeMethodNotFound {
			t.Errorf("%s from the server: %v, want -32601", method, err)
		}
	}
	if len(asked()) != 0 || len(s.PendingRequests()) != 0 {
		t.Error("a server request of the 2026-07-28 era reached the user")
	}
	// Notifications of the other era are harmless.
	_ = f.Conn().Notify(ctx, mcp.NotificationTasksStatus, json.RawMessage(`{"taskId":"nope","status":"working","createdAt":"x","lastUpdatedAt":"x","ttl":null}`))
	_ = f.Conn().Notify(ctx, mcp.NotificationTasks, json.RawMessage(`{"taskId":"nope","status":"completed"}`))
	if _, err := s.ListTools(ctx, nil); err != nil || s.Err() != nil {
		t.Fatalf("the session after a server request: %v, %v", err, s.Err())
	}
}

// TestModernGarbledResults: results that cannot be read fail the request, not the
// session.
func TestModernGarbledResults(t *testing.T) {
	ctx := bounded(t)
	f := newFake(t)
	s := f.MustConnect(ctx, nil)
	for _, result := range []string{
		`{"resultType":"input_required","inputRequests":"nope"}`,
		`{"resultType":"input_required","inputRequests":{"k":{"method":"elicitation/create","params":{"message":7}}}}`,
		`{"resultType":17}`,
		`[]`,
	} {
		f.Answer(mcp.MethodToolsCall, result)
		if _, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "x"}, nil); err == nil {
			t.Errorf("%s: no error", result)
		}
	}
	f.Answer(mcp.MethodToolsList, `{"resultType":"complete","tools":[]}`)
	if _, err := s.ListTools(ctx, nil); err != nil {
		t.Fatalf("the session after garbled results: %v", err)
	}
}

// TestMRTRUserTime: the time the user takes to answer is not the server's: a
// RequestTimeout bounds each round's request, not the user; a caller's context that ends
// while the user thinks ends the call with the context's error and withdraws the request.
func TestMRTRUserTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := bounded(t)
		f := newFake(t)
		f.On(mcp.MethodToolsCall, func(_ context.Context, req *jsonrpc.Request) (any, error) {
			if !strings.Contains(string(req.Params), "inputResponses") {
				return raw(`{"resultType":"input_required","inputRequests":{"k":` + elicitName + `}}`), nil
			}
			return raw(`{"resultType":"complete","content":[]}`), nil
		})
		slow := true
		var mu sync.Mutex
		s := f.MustConnect(ctx, &client.Options{RequestTimeout: time.Second, OnRequest: func(_ context.Context, r *client.Request) {
			mu.Lock()
			wait := slow
			mu.Unlock()
			if wait {
				time.Sleep(10 * time.Second)
				_ = r.Accept(map[string]any{"name": "late"})
			}
		}})
		if _, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "greet"}, nil); err != nil {
			t.Fatalf("an answer that took the user 10s, with a RequestTimeout of 1s: %v", err)
		}

		mu.Lock()
		slow = false // nobody answers now
		mu.Unlock()
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		_, err := s.CallTool(cctx, &mcp.CallToolParams{Name: "greet"}, nil)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("the caller's context ended while the user thought: %v; want context.DeadlineExceeded", err)
		}
		synctest.Wait()
		if n := len(s.PendingRequests()); n != 0 {
			t.Errorf("%d requests still pending after the call ended", n)
		}

		// Cancelled by the user, the call's error is context.Canceled, as in 2025-11-25,
		// where the call itself is withdrawn; the cause stays what the call says.
		uctx, stop := context.WithCancelCause(ctx)
		time.AfterFunc(5*time.Second, func() { stop(client.ErrCancelledByUser) })
		_, err = s.CallTool(uctx, &mcp.CallToolParams{Name: "greet"}, nil)
		if !errors.Is(err, context.Canceled) || !errors.Is(err, client.ErrCancelledByUser) || !strings.HasSuffix(err.Error(), ": cancelled by the user") {
			t.Errorf("the user cancelled the call while thinking: %v; want context.Canceled, cancelled by the user", err)
		}
		synctest.Wait()
		if n := len(s.PendingRequests()); n != 0 {
			t.Errorf("%d requests still pending after the call was cancelled", n)
		}
	})
}

// TestModernRetryUnsupportedVersion: a request refused with -32022 that names the
// session's version is asked again once, with a new id.
func TestModernRetryUnsupportedVersion(t *testing.T) {
	ctx := bounded(t)
	f := newFake(t)
	var n atomic.Int32
	f.On(mcp.MethodToolsList, func(context.Context, *jsonrpc.Request) (any, error) {
		if n.Add(1) == 1 {
			return nil, jsonrpc.NewError(mcp.CodeUnsupportedProtocolVersion, "Unsupported protocol version").
				WithData(mcp.UnsupportedProtocolVersionData{Supported: []string{v2026}, Requested: v2026})
		}
		return raw(`{"resultType":"complete","tools":[]}`), nil
	})
	s := f.MustConnect(ctx, nil)
	if _, err := s.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if rs := f.Requests(mcp.MethodToolsList); len(rs) != 2 || rs[0].ID == rs[1].ID {
		t.Errorf("tools/list sent %d times (ids %v)", len(rs), rs)
	}
}

// TestEraAutoHTTPStatus: over HTTP a bare 400 (no modern error in the body) to the probe
// is a server of 2025-11-25, which is initialized; a 401 is no answer about the era:
// Connect fails with it and sends no initialize.
func TestEraAutoHTTPStatus(t *testing.T) {
	ctx := bounded(t)
	bare := func(status int) func(w http.ResponseWriter, req *jsonrpc.Request) bool {
		return func(w http.ResponseWriter, req *jsonrpc.Request) bool {
			if req.Method != mcp.MethodServerDiscover {
				return false
			}
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(status)
			_, _ = w.Write([]byte("Bad Request: No valid session ID provided"))
			return true
		}
	}
	f := newLegacy(t, nil)
	f.SetHTTPHook(bare(http.StatusBadRequest))
	s := f.ConnectHTTP(ctx, nil)
	if s.Modern() || s.ProtocolVersion() != mcp.LatestProtocolVersion {
		t.Errorf("after a bare 400: Modern() = %v, version %q", s.Modern(), s.ProtocolVersion())
	}

	f = newLegacy(t, nil)
	f.SetHTTPHook(bare(http.StatusUnauthorized))
	_, err := f.DialHTTP(ctx, nil)
	var herr *transport.HTTPError
	if !errors.As(err, &herr) || herr.StatusCode != http.StatusUnauthorized {
		t.Errorf("Connect after a 401: %v, want the *transport.HTTPError", err)
	}
	if slices.Contains(f.Methods(), mcp.MethodInitialize) {
		t.Errorf("initialize sent after a 401: %v", f.Methods())
	}
}

// TestEraAutoMissingCapability: -32021 to the probe is a server of 2026-07-28 that wants
// more than the client declared: Connect fails with it rather than initializing.
func TestEraAutoMissingCapability(t *testing.T) {
	ctx := bounded(t)
	f := newFake(t)
	f.On(mcp.MethodServerDiscover, func(context.Context, *jsonrpc.Request) (any, error) {
		return nil, jsonrpc.NewError(mcp.CodeMissingRequiredClientCapability, "Server requires the elicitation capability").
			WithData(map[string]any{"requiredCapabilities": map[string]any{"elicitation": map[string]any{}}})
	})
	_, err := f.Connect(ctx, nil)
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) || rpc.Code != mcp.CodeMissingRequiredClientCapability {
		t.Fatalf("Connect: %v, want the -32021", err)
	}
	if slices.Contains(f.Methods(), mcp.MethodInitialize) {
		t.Errorf("initialize sent to a server of 2026-07-28: %v", f.Methods())
	}
}

// TestModernServerDecidesTasks: in 2026-07-28 the server decides what runs as a task:
// a tool whose (2025-11-25) taskSupport is required is called plainly all the same, and
// a server that needs the extension says so with -32021, which the call returns.
func TestModernServerDecidesTasks(t *testing.T) {
	ctx := bounded(t)
	f := newFake(t)
	f.Answer(mcp.MethodToolsList, `{"resultType":"complete","tools":[{"name":"req","inputSchema":{"type":"object"},"execution":{"taskSupport":"required"}}]}`)
	f.Answer(mcp.MethodToolsCall, `{"resultType":"complete","content":[{"type":"text","text":"plain"}]}`)
	s := f.MustConnect(ctx, nil)
	if _, err := s.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "req"}, nil); err != nil || res.Content[0].Text != "plain" {
		t.Fatalf("CallTool of a tool with taskSupport required: %+v, %v", res, err)
	}
	f.On(mcp.MethodToolsCall, func(context.Context, *jsonrpc.Request) (any, error) {
		return nil, jsonrpc.NewError(mcp.CodeMissingRequiredClientCapability, "this tool runs as a task").
			WithData(map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{mcp.ExtensionTasks: map[string]any{}}}})
	})
	_, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "req"}, nil)
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) || rpc.Code != mcp.CodeMissingRequiredClientCapability {
		t.Errorf("CallTool: %v, want the -32021", err)
	}
	if n := len(f.Requests(mcp.MethodToolsCall)); n != 2 {
		t.Errorf("%d tools/call; a -32021 is not asked again", n)
	}
}

// TestEraAutoHangUp: a server that hangs up on server/discover (as some of 2025-11-25 do
// on a method they do not know) is initialized on a new connection.
func TestEraAutoHangUp(t *testing.T) {
	ctx := bounded(t)
	f := newLegacy(t, nil)
	f.On(mcp.MethodServerDiscover, func(ctx context.Context, _ *jsonrpc.Request) (any, error) {
		go f.Conn().Close()
		<-ctx.Done()
		return nil, ctx.Err()
	})
	s := f.MustConnect(ctx, nil)
	if s.Modern() || s.ProtocolVersion() != mcp.LatestProtocolVersion || s.Err() != nil {
		t.Fatalf("Modern() = %v, version %q, Err() = %v", s.Modern(), s.ProtocolVersion(), s.Err())
	}
	conns := f.Conns()
	if conns != 2 {
		t.Errorf("%d connections, want the probe's and a new one", conns)
	}
}

// TestMRTRHTTPHeaders: over HTTP the retry of an input_required tools/call carries the
// same Mcp-Name and Mcp-Param-* headers as the first request.
func TestMRTRHTTPHeaders(t *testing.T) {
	ctx := bounded(t)
	f := newFake(t)
	serveCatalog(f, catalogTools)
	f.On(mcp.MethodToolsCall, func(_ context.Context, req *jsonrpc.Request) (any, error) {
		if !strings.Contains(string(req.Params), "inputResponses") {
			return raw(`{"resultType":"input_required","inputRequests":{"k":` + elicitName + `},"requestState":"h"}`), nil
		}
		return raw(`{"resultType":"complete","content":[]}`), nil
	})
	onRequest, _ := answering(func(r *client.Request) { _ = r.Accept(map[string]any{"name": "x"}) })
	s := f.ConnectHTTP(ctx, &client.Options{OnRequest: onRequest})
	if _, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "héllo", Arguments: json.RawMessage(`{"region":"eu-1"}`)}, nil); err != nil {
		t.Fatal(err)
	}
	calls := f.Requests(mcp.MethodToolsCall)
	if len(calls) != 2 {
		t.Fatalf("%d tools/call", len(calls))
	}
	for i, c := range calls {
		if c.Header.Get("Mcp-Param-Region") != "eu-1" || c.Header.Get("Mcp-Name") != "=?base64?aMOpbGxv?=" || c.Header.Get("Mcp-Method") != mcp.MethodToolsCall {
			t.Errorf("call %d headers: %v", i+1, c.Header)
		}
	}
	// An argument of the wrong type for its header is refused before it is sent.
	if _, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "héllo", Arguments: json.RawMessage(`{"count":"many"}`)}, nil); err == nil {
		t.Error("an argument that cannot travel in its header: no error")
	}
	if n := len(f.Requests(mcp.MethodToolsCall)); n != 2 {
		t.Errorf("%d tools/call after a refused one, want 2", n)
	}
}

// TestEraTryFirstLegacyModernOnly: TryFirst naming 2025-11-25 (the era the server spoke
// last time) against a server now of 2026-07-28 alone, which has no initialize and says
// so with -32601 rather than -32022, or hangs up: server/discover finds it all the same.
// A server of 2025-11-25 that refuses initialize keeps its error.
func TestEraTryFirstLegacyModernOnly(t *testing.T) {
	ctx := bounded(t)
	opts := &client.Options{TryFirst: mcp.LatestProtocolVersion}

	f := newFake(t)
	f.On(mcp.MethodInitialize, func(context.Context, *jsonrpc.Request) (any, error) {
		return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "method not found: initialize")
	})
	s, err := f.Connect(ctx, opts)
	if err != nil {
		t.Fatalf("Connect: %v (the server received %v)", err, f.Methods())
	}
	if !s.Modern() {
		t.Error("not in the 2026-07-28 era")
	}

	f = newFake(t)
	f.On(mcp.MethodInitialize, func(ctx context.Context, _ *jsonrpc.Request) (any, error) {
		go f.Conn().Close()
		<-ctx.Done()
		return nil, ctx.Err()
	})
	if s, err = f.Connect(ctx, opts); err != nil || !s.Modern() {
		t.Fatalf("Connect to a server that hangs up on initialize: %v", err)
	}

	legacy := newLegacy(t, nil)
	legacy.On(mcp.MethodInitialize, func(context.Context, *jsonrpc.Request) (any, error) {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Unsupported protocol version").
			WithData(map[string]any{"supported": []string{"2024-11-05"}})
	})
	_, err = legacy.Connect(ctx, opts)
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeInvalidParams || !strings.Contains(err.Error(), "initialize") {
		t.Errorf("Connect: %v, want initialize's -32602", err)
	}
}

// TestMRTRParallel: calls in flight together each get their own input requests, under
// the same key, and each retry carries its own answer and state only.
func TestMRTRParallel(t *testing.T) {
	ctx := bounded(t)
	f := newFake(t)
	f.On(mcp.MethodToolsCall, func(_ context.Context, req *jsonrpc.Request) (any, error) {
		p := struct {
			Arguments struct {
				N int `json:"n"`
			} `json:"arguments"`
			InputResponses map[string]mcp.ElicitResult `json:"inputResponses"`
			RequestState   *string                     `json:"requestState"`
		}{}
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, err.Error())
		}
		n := p.Arguments.N
		if p.InputResponses == nil {
			return raw(fmt.Sprintf(`{"resultType":"input_required","inputRequests":{"k":{"method":"elicitation/create","params":{"message":"%d","requestedSchema":{"type":"object"}}}},"requestState":"state-%d"}`, n, n)), nil
		}
		want := fmt.Sprint(n)
		if p.RequestState == nil || *p.RequestState != "state-"+want || p.InputResponses["k"].Content["n"] != want {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "call %d got state %v and answer %v", n, p.RequestState, p.InputResponses["k"])
		}
		return raw(`{"resultType":"complete","content":[{"type":"text","text":"` + want + `"}]}`), nil
	})
	onRequest, asked := answering(func(r *client.Request) { _ = r.Accept(map[string]any{"n": r.Elicitation.Message}) })
	s := f.MustConnect(ctx, &client.Options{OnRequest: onRequest})
	const calls = 20
	var wg sync.WaitGroup
	for i := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(fmt.Sprintf(`{"n":%d}`, i))}, nil)
			if err != nil || res.Content[0].Text != fmt.Sprint(i) {
				t.Errorf("call %d: %+v, %v", i, res, err)
			}
		}()
	}
	wg.Wait()
	if n := len(asked()); n != calls {
		t.Errorf("asked %d times, want %d", n, calls)
	}
}

// TestModernHeaderMismatchRelists: a -32020 to a tool call over HTTP may come from a tool
// whose x-mcp-header declarations changed since it was listed: the client lists the tools
// again and asks once more with the headers they give now; a second -32020 is the answer.
func TestModernHeaderMismatchRelists(t *testing.T) {
	ctx := bounded(t)
	f := newFake(t)
	var lists atomic.Int32
	f.On(mcp.MethodToolsList, func(context.Context, *jsonrpc.Request) (any, error) {
		header := "Old"
		if lists.Add(1) > 1 {
			header = "New"
		}
		return raw(`{"tools":[{"name":"t","inputSchema":{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"` + header + `"}}}}]}`), nil
	})
	var calls atomic.Int32
	f.On(mcp.MethodToolsCall, func(context.Context, *jsonrpc.Request) (any, error) {
		if calls.Add(1) == 1 {
			return nil, jsonrpc.NewError(mcp.CodeHeaderMismatch, "Mcp-Param-New is missing")
		}
		return raw(`{"content":[{"type":"text","text":"ok"}]}`), nil
	})
	s := f.ConnectHTTP(ctx, nil)
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "t", Arguments: raw(`{"r":"eu"}`)}, nil)
	if err != nil || len(res.Content) != 1 || res.Content[0].Text != "ok" {
		t.Fatalf("call: %+v, %v", res, err)
	}
	tc := f.Requests(mcp.MethodToolsCall)
	if len(tc) != 2 || tc[0].Header.Get("Mcp-Param-Old") != "eu" || tc[1].Header.Get("Mcp-Param-New") != "eu" || tc[1].Header.Get("Mcp-Param-Old") != "" {
		t.Fatalf("tools/call headers %v", tc)
	}
	if tc[0].ID == tc[1].ID {
		t.Errorf("the second call reused id %v", tc[0].ID)
	}
	if n := lists.Load(); n != 2 {
		t.Errorf("tools/list sent %d times, want 2 (once more after -32020)", n)
	}

	// Mismatched again: the server's -32020 is the outcome, and no third call goes.
	calls.Store(-10)
	f.On(mcp.MethodToolsCall, func(context.Context, *jsonrpc.Request) (any, error) {
		return nil, jsonrpc.NewError(mcp.CodeHeaderMismatch, "still wrong")
	})
	before := len(f.Requests(mcp.MethodToolsCall))
	_, err = s.CallTool(ctx, &mcp.CallToolParams{Name: "t", Arguments: raw(`{"r":"eu"}`)}, nil)
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) || rpc.Code != mcp.CodeHeaderMismatch {
		t.Fatalf("error %v, want -32020", err)
	}
	if n := len(f.Requests(mcp.MethodToolsCall)) - before; n != 2 {
		t.Errorf("%d tool calls sent, want 2", n)
	}
}

// TestMRTRTooManyInputs: an input_required result asking for more than MaxInputRequests
// inputs at once is refused without asking the user anything.
func TestMRTRTooManyInputs(t *testing.T) {
	ctx := bounded(t)
	f := newFake(t)
	var b strings.Builder
	for i := range client.MaxInputRequests + 1 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"k%d":%s`, i, elicitName)
	}
	f.Answer(mcp.MethodToolsCall, `{"resultType":"input_required","inputRequests":{`+b.String()+`}}`)
	var asked atomic.Int32
	s := f.MustConnect(ctx, &client.Options{OnRequest: func(context.Context, *client.Request) { asked.Add(1) }})
	_, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "greedy"}, nil)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("asked for %d inputs at once", client.MaxInputRequests+1)) {
		t.Fatalf("CallTool: %v, want the bound's error", err)
	}
	if n := asked.Load(); n != 0 || len(s.PendingRequests()) != 0 {
		t.Errorf("the user was asked %d times, %d pending", n, len(s.PendingRequests()))
	}
	if n := len(f.Requests(mcp.MethodToolsCall)); n != 1 {
		t.Errorf("%d tools/call sent, want 1", n)
	}
}

// TestEraAutoSlowModernServer: a server of 2026-07-28 that answers the probe only after
// ProbeTimeout (one npx is still installing) is initialized, refuses with -32022, and is
// then asked server/discover again: the session is of 2026-07-28.
func TestEraAutoSlowModernServer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := bounded(t)
		f := newFake(t)
		discover := f.Handler(mcp.MethodServerDiscover)
		var probes atomic.Int32
		f.On(mcp.MethodServerDiscover, func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			if probes.Add(1) == 1 {
				select { // slow to start: the first answer comes too late
				case <-time.After(10 * time.Second):
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			return discover(ctx, req)
		})
		f.On(mcp.MethodInitialize, func(context.Context, *jsonrpc.Request) (any, error) {
			return nil, jsonrpc.NewError(mcp.CodeUnsupportedProtocolVersion, "Unsupported protocol version: 2025-11-25").
				WithData(mcp.UnsupportedProtocolVersionData{Supported: []string{v2026}, Requested: mcp.LatestProtocolVersion})
		})
		s, err := f.Connect(ctx, &client.Options{ProbeTimeout: 2 * time.Second})
		if err != nil {
			t.Fatalf("Connect: %v (the server received %v)", err, f.Methods())
		}
		if !s.Modern() {
			t.Fatal("not in the 2026-07-28 era")
		}
		if m := f.RequestMethods(); !slices.Equal(m, []string{mcp.MethodServerDiscover, mcp.MethodInitialize, mcp.MethodServerDiscover}) {
			t.Errorf("the server received %v", m)
		}
	})
}

// TestModernCallWithoutToolList: over HTTP a call looks up the tool's x-mcp-header
// declarations; a server that refuses tools/list gets the call without the headers, and
// has the last word.
func TestModernCallWithoutToolList(t *testing.T) {
	ctx := bounded(t)
	f := newFake(t)
	f.On(mcp.MethodToolsList, func(context.Context, *jsonrpc.Request) (any, error) {
		return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "no listing here")
	})
	f.Answer(mcp.MethodToolsCall, `{"resultType":"complete","content":[{"type":"text","text":"ok"}]}`)
	s := f.ConnectHTTP(ctx, nil)
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "hidden", Arguments: raw(`{"a":1}`)}, nil)
	if err != nil || res.Content[0].Text != "ok" {
		t.Fatalf("call: %+v, %v", res, err)
	}
	if got := f.RequestMethods(); !slices.Equal(got, []string{mcp.MethodServerDiscover, mcp.MethodToolsList, mcp.MethodToolsCall}) {
		t.Errorf("the server received %v", got)
	}
}

// TestMRTRBadInputAsksNothing: a round with one input the client cannot answer (a
// method no server may ask with) ends before the user is asked the others.
func TestMRTRBadInputAsksNothing(t *testing.T) {
	ctx := bounded(t)
	f := newFake(t)
	f.Answer(mcp.MethodToolsCall, `{"resultType":"input_required","inputRequests":{"a":`+elicitName+`,"z":{"method":"tools/call","params":{}}}}`)
	s := f.MustConnect(ctx, nil)
	sub := s.Subscribe() // a request is published as it is queued, on the queuing goroutine
	defer sub.Close()
	_, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "t"}, nil)
	var in *client.InputError
	if !errors.As(err, &in) || in.Key != "z" {
		t.Fatalf("CallTool: %v, want an *InputError for z", err)
	}
	s.Close() // ends the subscription after what was published
	for e := range sub.All(ctx) {
		if r, ok := e.(*client.RequestEvent); ok {
			t.Errorf("the user was asked %q", r.Request.InputKey)
		}
	}
}
