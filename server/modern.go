package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpi-dev/mcpi/internal/jsonwire"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/transport"
)

// Revision 2026-07-28 (the modern era) on the server side.
//
// A [Session] settles its era on its first request: initialize makes it a 2025-11-25
// session, as before; server/discover, or any request whose params carry
// _meta["io.modelcontextprotocol/protocolVersion"], makes it a 2026-07-28 connection.
// A stateless Streamable HTTP request (see [transport.HTTPHandler]) is a connection of
// its own, modern from the start. Once settled, the era does not change.
//
// In the modern era every request carries its own _meta: the protocol version, the
// client's capabilities and, optionally, clientInfo and a log level. Nothing is
// remembered from one request to the next: [ToolRequest.ClientCapabilities] and
// [Session.ClientCapabilitiesFor] read the capabilities of the request at hand, and
// [Session.Log] sends only at or above the level that request asked for, and nothing
// when it asked for none. Every result carries resultType; the cacheable ones (the four
// lists, resources/read and server/discover) carry ttlMs and cacheScope.
//
// Input from the client (elicitation, sampling, roots) goes through one API in both
// eras; see [Session.Inputs]. subscriptions/listen replaces the GET stream and
// resources/subscribe; see [Server.NotifyResourceUpdated].

// SupportedVersions are the revisions a dual-era server answers, newest first, as
// server/discover and an UnsupportedProtocolVersion error list them.
var SupportedVersions = []string{mcp.ProtocolVersion20260728, mcp.LatestProtocolVersion}

type era int32

const (
	eraUnset era = iota
	eraLegacy
	eraModern
)

// modernVersionKey marks the params of a 2026-07-28 request.
var modernVersionKey = []byte(`"` + mcp.MetaProtocolVersion + `"`)

// eraFor returns the era req is handled in, settling the session's era on its first
// request.
func (s *Session) eraFor(req *jsonrpc.Request) era {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, settles := s.eraOfLocked(req)
	if settles {
		s.era = e
		s.settled.Store(true)
	}
	return e
}

// eraConn settles its session's era as each request is read, in the order they
// arrive: their handlers run concurrently, and the first to run need not be the first
// sent (a server/discover and an initialize read together, as from a client whose probe
// timed out while the server started, made the connection of either era at random).
type eraConn struct {
	jsonrpc.Connection
	s *Session
}

// WriteNow passes [jsonrpc.NowWriter] through, so that the era's answers on the reading
// goroutine (see [Session.handleQuick]) are written there.
func (c eraConn) WriteNow(m jsonrpc.Message) (bool, error) {
	if w, ok := c.Connection.(jsonrpc.NowWriter); ok {
		return w.WriteNow(m)
	}
	return false, nil
}

func (c eraConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := c.Connection.Read(ctx)
	if req, ok := m.(*jsonrpc.Request); ok && err == nil && !c.s.settled.Load() {
		c.s.eraFor(req)
	}
	return m, err
}

// peekEra is eraFor for a look at req before it is handled: it settles nothing.
func (s *Session) peekEra(req *jsonrpc.Request) era {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, _ := s.eraOfLocked(req)
	return e
}

// eraOfLocked returns the era req is handled in, and whether req settles the session's
// era; s.mu is held.
func (s *Session) eraOfLocked(req *jsonrpc.Request) (e era, settles bool) {
	if s.era != eraUnset {
		return s.era, false
	}
	if !s.server.opts.Modern {
		return eraLegacy, false
	}
	switch {
	case req.Method == mcp.MethodServerDiscover || bytes.Contains(req.Params, modernVersionKey):
		return eraModern, true
	case req.Method == mcp.MethodInitialize:
		return eraLegacy, true
	}
	// Before either, a request is handled as 2025 handles it (not initialized yet) and
	// settles nothing.
	return eraLegacy, false
}

// Modern reports whether the session speaks revision 2026-07-28.
func (s *Session) Modern() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.era == eraModern
}

// requestInfo is what a 2026-07-28 request says about its client in _meta. It is the
// context of the request's handler too: the request's context with the info as a value
// ([modernInfo] finds it), in the allocation of the info.
type requestInfo struct {
	context.Context

	version    string
	rawCaps    []byte // as sent, decoded at the first use
	server     *Server
	capsOnce   sync.Once
	caps       *mcp.ClientCapabilities
	clientInfo json.RawMessage // as sent; decoded only by who needs it
	logLevel   mcp.LoggingLevel
	round      *inputRound // set for the methods that may answer input_required
	quick      bool        // answered on the reading goroutine: nothing may wait
	// What the request's handling needs once, in the allocation of the info: the
	// request as the handlers see it, its params without the members read here (when
	// they fit), its input round and the round's binding.
	req     jsonrpc.Request
	params  [96]byte
	round1  inputRound
	binding requestStatePayload
	result  encoded
}

type requestInfoKey struct{}

// Value returns the info for requestInfoKey, and what the request's context holds for
// any other key.
func (i *requestInfo) Value(key any) any {
	if key == (requestInfoKey{}) {
		return i
	}
	return i.Context.Value(key)
}

func modernInfo(ctx context.Context) *requestInfo {
	info, _ := ctx.Value(requestInfoKey{}).(*requestInfo)
	return info
}

// capabilities decodes the request's client capabilities, once, when first needed. A
// member of the wrong type counts as not declared.
func (i *requestInfo) capabilities() *mcp.ClientCapabilities {
	i.capsOnce.Do(func() { i.caps = i.server.clientCapabilities(i.rawCaps) })
	return i.caps
}

// Bounds on the client capabilities a server keeps decoded, by their JSON: a client
// sends the same ones with every request of 2026-07-28.
const (
	maxCachedCaps     = 64
	maxCachedCapsSize = 4 << 10
)

// clientCapabilities returns the capabilities raw, a JSON object, declares, decoded once
// for all the requests that send the same bytes (up to maxCachedCaps of them).
func (s *Server) clientCapabilities(raw []byte) *mcp.ClientCapabilities {
	s.capsMu.RLock()
	caps := s.caps[string(raw)]
	s.capsMu.RUnlock()
	if caps != nil {
		return caps
	}
	caps = &mcp.ClientCapabilities{}
	if len(bytes.TrimSpace(raw[1:])) > 1 { // "{}" declares nothing
		_ = json.Unmarshal(raw, caps)
	}
	if len(raw) <= maxCachedCapsSize {
		s.capsMu.Lock()
		if len(s.caps) >= maxCachedCaps { // many clients: start again
			clear(s.caps)
		}
		if s.caps == nil {
			s.caps = map[string]*mcp.ClientCapabilities{}
		}
		s.caps[string(raw)] = caps
		s.capsMu.Unlock()
	}
	return caps
}

// ClientCapabilitiesFor returns the capabilities the client declared for the request
// ctx belongs to: in the 2026-07-28 era those of that request's _meta, in 2025-11-25
// those of initialize. They are shared (with the session's other requests, or the
// requests that declared the same): read them, do not modify them.
func (s *Session) ClientCapabilitiesFor(ctx context.Context) *mcp.ClientCapabilities {
	if info := modernInfo(ctx); info != nil {
		return info.capabilities()
	}
	return s.ClientCapabilities()
}

// ClientCapabilities returns the capabilities the client declared for this call, shared
// as [Session.ClientCapabilitiesFor] says.
func (r *ToolRequest) ClientCapabilities() *mcp.ClientCapabilities {
	if r.ctx != nil {
		return r.Session.ClientCapabilitiesFor(r.ctx)
	}
	return r.Session.ClientCapabilities()
}

// missingCapability is the -32021 error of a request that needs a capability its client
// did not declare; required is the ClientCapabilities object naming it.
func missingCapability(name string, required any) *jsonrpc.Error {
	return jsonrpc.Errorf(mcp.CodeMissingRequiredClientCapability,
		"the request needs the client capability %q, which it did not declare", name).
		WithData(map[string]any{"requiredCapabilities": required})
}

// parseRequestMeta reads and checks the _meta of a 2026-07-28 request, and returns the
// params without the members it read (so that handlers do not decode the client's
// capabilities into a generic map on every request).
func parseRequestMeta(params json.RawMessage) (*requestInfo, json.RawMessage, error) {
	// The members of _meta, read while params are checked, kept for the last _meta (as
	// encoding/json would decode a repeated member): the protocol's and the others
	// (progressToken, trace context, the application's own), which the params keep.
	type metaMembers struct {
		version, caps, clientInfo, logLevel []byte
		rest                                [4][2][]byte // the first others, name and value
		nrest                               int
		more                                [][2][]byte // the others after them
	}
	var (
		got, reading metaMembers
		meta         []byte
		metaAt       = -1 // where the last _meta's value starts
		nameAt       int  // and its name
	)
	if len(bytes.TrimSpace(params)) > 0 {
		err := jsonwire.MembersWithin(params, `"_meta"`, func(name, value []byte) {
			if string(name) == `"_meta"` {
				meta, metaAt, nameAt = value, cap(params)-cap(value), cap(params)-cap(name)
				got, reading = reading, metaMembers{}
			}
		}, func(name, value []byte) {
			switch string(name) {
			case `"` + mcp.MetaProtocolVersion + `"`:
				reading.version = value
			case `"` + mcp.MetaClientCapabilities + `"`:
				reading.caps = value
			case `"` + mcp.MetaClientInfo + `"`:
				reading.clientInfo = value
			case `"` + mcp.MetaLogLevel + `"`:
				reading.logLevel = value
			default:
				if reading.nrest < len(reading.rest) {
					reading.rest[reading.nrest] = [2][]byte{name, value}
					reading.nrest++
				} else {
					reading.more = append(reading.more, [2][]byte{name, value})
				}
			}
		})
		if err != nil {
			return nil, nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: %v", err)
		}
	}
	if metaAt < 0 || len(meta) == 0 || meta[0] != '{' {
		return nil, nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "params._meta is required: a 2026-07-28 request carries its protocol version and client capabilities in it")
	}
	version, caps, clientInfo, logLevel := got.version, got.caps, got.clientInfo, got.logLevel
	// The params again, _meta keeping only the other members, or gone when there are
	// none (as in a request of 2025-11-25 that sends no _meta).
	info := &requestInfo{}
	out := info.params[:0]
	if n := len(params) - len(meta) + 16; n > len(info.params) {
		out = make([]byte, 0, n)
	}
	before, after := params[:nameAt], params[metaAt+len(meta):]
	if got.nrest == 0 {
		// Without the member and one comma next to it: the one before, or else the one
		// after.
		if b := bytes.TrimRight(before, " \t\r\n"); b[len(b)-1] == ',' {
			before = b[:len(b)-1]
		} else if a := bytes.TrimLeft(after, " \t\r\n"); a[0] == ',' {
			after = a[1:]
		}
		out = append(append(out, before...), after...)
	} else {
		out = append(append(out, params[:metaAt]...), '{')
		for i, m := range append(got.rest[:got.nrest:got.nrest], got.more...) {
			if i > 0 {
				out = append(out, ',')
			}
			out = append(append(append(out, m[0]...), ':'), m[1]...)
		}
		out = append(append(out, '}'), after...)
	}
	info.version = knownVersion(version)
	// Anything but a string literal is no version: null decodes as "", and
	// encoding/json refuses the rest.
	if info.version == "" {
		info.version, _ = jsonwire.String(version)
	}
	if info.version == "" {
		return nil, nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "_meta[%q] is required", mcp.MetaProtocolVersion)
	}
	if len(caps) == 0 || caps[0] != '{' {
		return nil, nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "_meta[%q] is required (an object; {} declares nothing optional)", mcp.MetaClientCapabilities)
	}
	info.rawCaps = caps
	if !mcp.IsModernProtocolVersion(info.version) {
		return nil, nil, unsupportedVersion(info.version)
	}
	info.clientInfo = clientInfo
	if logLevel != nil {
		var lvl mcp.LoggingLevel
		if json.Unmarshal(logLevel, &lvl) != nil || lvl.Severity() < 0 {
			return nil, nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "unknown logging level in _meta[%q]", mcp.MetaLogLevel)
		}
		info.logLevel = lvl
	}
	return info, out, nil
}

// knownVersion returns the revision of 2026-07-28 or later that the string literal raw
// names as it is, or "": the usual version costs no copy.
func knownVersion(raw []byte) string {
	if len(raw) < 2 {
		return ""
	}
	for _, v := range mcp.ModernProtocolVersions {
		if string(raw[1:len(raw)-1]) == v && raw[0] == '"' && raw[len(raw)-1] == '"' {
			return v
		}
	}
	return ""
}

// unsupportedVersion is the -32022 error for a revision the server does not speak.
func unsupportedVersion(requested string) *jsonrpc.Error {
	return jsonrpc.Errorf(mcp.CodeUnsupportedProtocolVersion, "unsupported protocol version %s (supported: %s)",
		strconv.Quote(requested), strings.Join(SupportedVersions, ", ")).
		WithData(map[string]any{"supported": SupportedVersions, "requested": requested})
}

// handleModern answers one request of a 2026-07-28 connection.
func (s *Session) handleModern(ctx context.Context, req *jsonrpc.Request) (any, error) {
	return s.answerModern(ctx, req, false)
}

// handleQuick answers on the connection's reading goroutine what can be answered there
// without waiting (see [jsonrpc.Options.Quick]): a task's two exchanges, which then cost
// no more than a plain call each. A tools/call that makes a task (2026-07-28: of a tool
// that is a task at once, answered once its work has ended or the window passed;
// 2025-11-25: with params.task, answered at once, its work run after on a worker); a
// 2026-07-28 tasks/get of a task of the extension, and a 2025-11-25 tasks/result of the
// session's own task (answered at once if its end was announced, else by the goroutine
// that ends it). Everything else goes to handle.
func (s *Session) handleQuick(ctx context.Context, req *jsonrpc.Request) (any, error) {
	if s.server.tasks == nil {
		return nil, jsonrpc.ErrNotQuick
	}
	if _, custom := s.server.opts.Handlers[req.Method]; custom {
		return nil, jsonrpc.ErrNotQuick // the application's handler may wait
	}
	if p := req.Params; len(p) > 0 && p[0] == '[' {
		return nil, jsonrpc.ErrNotQuick
	}
	// The era is settled once, before settled is set, and never changes after.
	settled := s.settled.Load()
	switch {
	case req.Method == mcp.MethodTasksGet && settled && s.era == eraModern:
		return s.answerModern(ctx, req, true)
	case req.Method == mcp.MethodToolsCall && settled && s.era == eraModern && s.server.atOnceCall(req.Params):
		return s.answerModern(ctx, req, true)
	case req.Method == mcp.MethodTasksResult && (settled && s.era == eraLegacy || !s.server.opts.Modern):
		return s.quickResult(ctx, req)
	case req.Method == mcp.MethodToolsCall && (settled && s.era == eraLegacy || !s.server.opts.Modern) && asksForTask(req.Params):
		return s.quickCallTool(ctx, req)
	}
	return nil, jsonrpc.ErrNotQuick
}

// atOnceCall reports whether a 2026-07-28 tools/call with params may be answered on the
// reading goroutine: it names a tool whose calls are tasks at once and is no retry of
// an input round (whose requestState is opened and checked, and whose answers the
// handler may read as it runs). A guess from the raw params that costs a plain call
// little (the params skimmed for their name, not decoded): the call's handling decodes
// them and declines what is not one.
func (s *Server) atOnceCall(params []byte) bool {
	if s.atOnce.Load() == 0 || len(params) > maxQuickCallParams {
		return false
	}
	name, ok := jsonwire.SkimString(params, `"name"`)
	if !ok || !s.mu.TryRLock() {
		return false
	}
	t := s.tools[string(name)]
	s.mu.RUnlock()
	// An input round's members are searched for without their opening quote: a search
	// that starts with a quote stops at every member and string.
	return t != nil && t.atOnce() && !bytes.Contains(params, []byte(`inputResponses"`)) && !bytes.Contains(params, []byte(`requestState"`))
}

// asksForTask reports whether a 2025-11-25 tools/call's params have a task member at
// their top level, skimmed, not decoded: a guess that costs a plain call little.
func asksForTask(params []byte) bool {
	if len(params) > maxQuickCallParams {
		return false
	}
	found := false
	jsonwire.EachMember(params, func(name, _ []byte) { found = found || string(name) == `"task"` })
	return found
}

// maxQuickCallParams bounds the params of a call answered on the reading goroutine: it
// decodes them there, and a call's arguments may be megabytes, whose decoding would
// hold up the reading of everything after them; a worker takes such a call.
const maxQuickCallParams = 16 << 10

// quick reports whether ctx is that of a request answered on the reading goroutine
// ([Session.handleQuick]), where nothing may wait.
func quick(ctx context.Context) bool {
	info := modernInfo(ctx)
	return info != nil && info.quick
}

// answerModern answers a request of a 2026-07-28 connection; quick, on the reading
// goroutine, where it declines with [jsonrpc.ErrNotQuick] what would wait.
func (s *Session) answerModern(ctx context.Context, req *jsonrpc.Request, quick bool) (any, error) {
	if req.IsNotification() {
		return nil, nil // notifications/cancelled is handled by the connection
	}
	h, custom := s.server.opts.Handlers[req.Method]
	if !modernMethods[req.Method] && !custom {
		// Before _meta is judged: initialize, ping and the other methods this revision
		// removed are unknown here, whatever their params.
		return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "method not found: %s", req.Method)
	}
	info, params, err := parseRequestMeta(req.Params)
	if err != nil {
		return nil, err
	}
	info.server = s.server
	info.Context = ctx
	info.quick = quick
	ctx = info
	info.req = jsonrpc.Request{ID: req.ID, Method: req.Method, Params: params}
	req = &info.req
	if custom {
		res, err := h(ctx, s, req)
		if !errors.Is(err, ErrNotHandled) {
			if err != nil {
				return nil, err
			}
			return s.handlerResult(res)
		}
		if !modernMethods[req.Method] {
			return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "method not found: %s", req.Method)
		}
	}
	res, err := s.dispatchModern(ctx, req)
	if err != nil {
		return nil, err
	}
	if raw, ok := res.(json.RawMessage); ok {
		info.result = encoded(raw) // final already: input_required, discover, listen
	} else if info.result, err = s.completeResult(res, slices.Contains(cacheableMethods, req.Method)); err != nil {
		return nil, err
	}
	return &info.result, nil // a pointer into the info: no allocation for the interface
}

func (s *Session) dispatchModern(ctx context.Context, req *jsonrpc.Request) (any, error) {
	srv := s.server
	switch req.Method {
	case mcp.MethodServerDiscover:
		return s.discover()
	case mcp.MethodToolsList:
		if srv.hasTools() {
			return s.listTools(req)
		}
	case mcp.MethodToolsCall:
		if quick(ctx) || srv.hasTools() { // a quick call names a tool that is there
			return s.callToolModern(ctx, req)
		}
	case mcp.MethodTasksGet, mcp.MethodTasksUpdate, mcp.MethodTasksCancel:
		if srv.tasks != nil {
			return s.handleExtTasks(ctx, req)
		}
	case mcp.MethodPromptsList:
		if srv.hasPrompts() {
			return s.listPrompts(req)
		}
	case mcp.MethodPromptsGet:
		if srv.hasPrompts() {
			return s.withInput(ctx, req, func(ctx context.Context) (any, error) { return s.getPrompt(ctx, req) })
		}
	case mcp.MethodResourcesList:
		if srv.hasResources() {
			return s.listResources(req)
		}
	case mcp.MethodResourcesTemplatesList:
		if srv.hasResources() {
			return s.listTemplates(req)
		}
	case mcp.MethodResourcesRead:
		if srv.hasResources() {
			return s.withInput(ctx, req, func(ctx context.Context) (any, error) { return s.readResource(ctx, req) })
		}
	case mcp.MethodCompletionComplete:
		if srv.opts.Complete != nil {
			var p mcp.CompleteParams
			if err := decodeParams(req, &p); err != nil {
				return nil, err
			}
			return srv.opts.Complete(ctx, s, &p)
		}
	case mcp.MethodSubscriptionsListen:
		return s.listen(ctx, req)
	}
	return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "method not found: %s", req.Method)
}

func (s *Server) hasTools() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.tools) > 0 || (s.opts.Capabilities != nil && s.opts.Capabilities.Tools != nil)
}

func (s *Server) hasPrompts() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.prompts) > 0 || (s.opts.Capabilities != nil && s.opts.Capabilities.Prompts != nil)
}

func (s *Server) hasResources() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.resources) > 0 || len(s.templates) > 0 || (s.opts.Capabilities != nil && s.opts.Capabilities.Resources != nil)
}

// modernCapabilities are the capabilities a 2026-07-28 client is told of: those of 2025
// without the core tasks of 2025-11-25, which this revision does not have, and with the
// Tasks extension when the server runs tasks.
func (s *Server) modernCapabilities() *mcp.ServerCapabilities {
	caps := s.capabilities()
	caps.Tasks = nil
	if s.tasks != nil {
		ext := maps.Clone(caps.Extensions)
		if ext == nil {
			ext = map[string]json.RawMessage{}
		}
		ext[mcp.ExtensionTasks] = json.RawMessage(`{}`)
		caps.Extensions = ext
	}
	return caps
}

func (s *Session) discover() (any, error) {
	srv := s.server
	ttl := srv.opts.CacheTTL.Milliseconds()
	raw, err := jsonwire.Marshal(&mcp.DiscoverResult{
		ResultType:        mcp.ResultTypeComplete,
		SupportedVersions: SupportedVersions,
		Capabilities:      *srv.modernCapabilities(),
		Instructions:      srv.opts.Instructions,
		TTLMs:             &ttl,
		CacheScope:        "public",
		Meta:              mcp.Meta{mcp.MetaServerInfo: srv.impl},
	})
	return json.RawMessage(raw), err
}

// completeResult encodes a result of the 2026-07-28 era: v's members after resultType
// "complete" and, for the cacheable methods, ttlMs and cacheScope. v must not have
// those members itself.
func (s *Session) completeResult(v any, cacheable bool) (encoded, error) {
	const head = `{"resultType":"complete"`
	if r, ok := v.(*mcp.CallToolResult); ok && r != nil && !cacheable {
		// The result of nearly every tools/call: its encoder writes a fresh buffer with
		// room to spare, and resultType goes in front in place. (The JSON-RPC layer
		// checks the whole.)
		if raw, err := r.MarshalJSON(); err == nil && len(raw) > 2 && raw[0] == '{' && raw[1] != '}' && cap(raw)-len(raw) >= len(head) {
			n := len(raw)
			raw = raw[:n+len(head)]
			copy(raw[len(head)+1:], raw[1:n])
			copy(raw, head)
			raw[len(head)] = ','
			return raw, nil
		}
	}
	obj, err := jsonwire.Marshal(v) // compact; for a type with MarshalJSON, its own bytes
	if err != nil {
		return nil, err
	}
	if len(obj) < 2 || obj[0] != '{' {
		return nil, fmt.Errorf("server: a result must be a JSON object, not %.20s", obj)
	}
	b := make([]byte, 0, len(obj)+64)
	b = append(b, head...)
	if cacheable {
		b = append(b, `,"ttlMs":`...)
		b = strconv.AppendInt(b, s.server.opts.CacheTTL.Milliseconds(), 10)
		b = append(b, `,"cacheScope":"public"`...)
	}
	if len(obj) == 2 { // {}
		return append(b, '}'), nil
	}
	return append(append(b, ','), obj[1:]...), nil
}

// encoded is a result encoded already, compact. The JSON-RPC layer sends it as it is,
// without the copy it makes of a json.RawMessage (whose bytes are its holder's).
type encoded []byte

// MarshalJSON returns e; nil is null, as for a json.RawMessage.
func (e *encoded) MarshalJSON() ([]byte, error) {
	if *e == nil {
		return []byte("null"), nil
	}
	return *e, nil
}

// handlerResult is the result of an [Options.Handlers] handler in 2026-07-28: it gets
// resultType "complete" unless it names its own (a handler may answer input_required, or
// make a task).
func (s *Session) handlerResult(res any) (json.RawMessage, error) {
	raw, ok := res.(json.RawMessage)
	if !ok {
		var err error
		if raw, err = jsonwire.Marshal(res); err != nil {
			return nil, err
		}
	}
	if rt, _ := jsonwire.Member(raw, `"resultType"`); rt != nil {
		return raw, nil
	}
	out, err := s.completeResult(raw, false)
	return json.RawMessage(out), err
}

// modernMethods are the requests of 2026-07-28 this server may answer (the Tasks
// extension's among them).
var modernMethods = map[string]bool{
	mcp.MethodServerDiscover: true, mcp.MethodToolsList: true, mcp.MethodToolsCall: true,
	mcp.MethodPromptsList: true, mcp.MethodPromptsGet: true, mcp.MethodResourcesList: true,
	mcp.MethodResourcesTemplatesList: true, mcp.MethodResourcesRead: true,
	mcp.MethodCompletionComplete: true, mcp.MethodSubscriptionsListen: true,
	mcp.MethodTasksGet: true, mcp.MethodTasksUpdate: true, mcp.MethodTasksCancel: true,
}

// cacheableMethods carry ttlMs and cacheScope in 2026-07-28.
var cacheableMethods = []string{mcp.MethodToolsList, mcp.MethodPromptsList, mcp.MethodResourcesList,
	mcp.MethodResourcesTemplatesList, mcp.MethodResourcesRead}

// checkParamHeaders compares, on a stateless HTTP request, the Mcp-Param-* headers with
// the arguments the tool marks x-mcp-header: each argument present in the body must come
// with its header, decoded equal; a header without its argument, or with invalid base64,
// is a mismatch too (-32020). It reads the params itself, for a call whose params did not
// decode as CallToolParams: the header check comes first all the same.
func (s *Session) checkParamHeaders(req *jsonrpc.Request) error {
	if _, ok := s.transport.(interface{ Header() http.Header }); !ok {
		return nil
	}
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if json.Unmarshal(req.Params, &p) != nil {
		return nil // decoding the call reports it
	}
	def, ok := s.server.Tool(p.Name)
	if !ok {
		return nil
	}
	return s.checkToolHeaders(def, p.Arguments)
}

// checkToolHeaders is checkParamHeaders for the tool def called with args.
func (s *Session) checkToolHeaders(def *mcp.Tool, args json.RawMessage) error {
	hc, ok := s.transport.(interface{ Header() http.Header })
	if !ok {
		return nil
	}
	params, err := def.HeaderParams()
	if err != nil || len(params) == 0 {
		return nil
	}
	hdr := hc.Header()
	values, err := mcp.HeaderParamValues(params, args)
	if err != nil {
		return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "%v", err)
	}
	for _, hp := range params {
		name := transport.HeaderParamPrefix + hp.Name
		raw, sent := hdr[http.CanonicalHeaderKey(name)]
		want, inBody := values[hp.Name]
		switch {
		case !sent && inBody:
			return jsonrpc.Errorf(mcp.CodeHeaderMismatch, "Header mismatch: the %s header is missing", name)
		case sent && !inBody:
			return jsonrpc.Errorf(mcp.CodeHeaderMismatch, "Header mismatch: %s is sent but its argument is absent", name)
		case !sent:
			continue
		}
		got, ok := transport.DecodeHeaderValue(raw[0])
		if !ok {
			return jsonrpc.Errorf(mcp.CodeHeaderMismatch, "Header mismatch: %s is not valid base64", name)
		}
		if got != want {
			return jsonrpc.Errorf(mcp.CodeHeaderMismatch, "Header mismatch: %s header value does not match the argument", name)
		}
	}
	return nil
}
