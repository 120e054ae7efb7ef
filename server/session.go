package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// UnreadableAnswerError is a client's answer to the server's request (elicitation,
// sampling, roots) that could not be decoded but named the request: [Session.Elicit] and
// the others fail with it at once. Err is the connection's [*jsonrpc.CallError], which
// holds the [*jsonrpc.MalformedResponseError] that says why.
type UnreadableAnswerError struct {
	Method string
	Err    error
}

func (e *UnreadableAnswerError) Error() string {
	why := "it is not valid JSON"
	var bad *jsonrpc.MalformedResponseError
	if errors.As(e.Err, &bad) {
		if bad.Detail != "" {
			why += " (" + bad.Detail + ")"
		} else {
			why = strings.TrimPrefix(bad.Reason, "invalid response: ")
		}
	}
	return "the client's answer to " + e.Method + " could not be read: " + why
}

func (e *UnreadableAnswerError) Unwrap() error { return e.Err }

// unreadableAnswer returns err, the error of the server's request method, as an
// [*UnreadableAnswerError] when the client's answer could not be read: the connection's
// wording speaks of a "malformed response" without saying whose.
func unreadableAnswer(method string, err error) error {
	if errors.As(err, new(*jsonrpc.MalformedResponseError)) {
		return &UnreadableAnswerError{Method: method, Err: err}
	}
	return err
}

// ErrNotHandled, returned by a [MethodHandler] in [Options.Handlers], lets the built-in
// handler of the method run instead.
var ErrNotHandled = errors.New("server: not handled")

// Session is one client connected to a [Server].
type Session struct {
	server    *Server
	conn      *jsonrpc.Conn
	transport jsonrpc.Connection

	mu            sync.Mutex
	init          *mcp.InitializeParams
	ready         bool // notifications/initialized received
	logLevel      mcp.LoggingLevel
	subscriptions map[string]bool // made at the first subscription
	owner         string          // the key its tasks are bound to; "" for a stateless request
	era           era
	// settled is set once era is: the reading goroutine then reads it without s.mu,
	// which a handler may hold while it waits.
	settled atomic.Bool
}

// Done is closed when the session has ended.
func (s *Session) Done() <-chan struct{} { return s.conn.Done() }

// Close ends the session.
func (s *Session) Close() error { return s.conn.Close() }

// Call sends the client a request the session has no method of its own for (an
// extension's, or a malformed one to test a client) and decodes the result into result;
// the client's error is returned as a [*jsonrpc.Error].
func (s *Session) Call(ctx context.Context, method string, params, result any) error {
	return s.conn.Call(ctx, method, params, result)
}

// Connection returns the transport connection the session runs on, for what only the
// transport can do: over Streamable HTTP, a tool that runs long may end its call's SSE
// stream so that the client resumes it later (SEP-1699).
func (s *Session) Connection() jsonrpc.Connection { return s.transport }

// Server returns the server the session belongs to.
func (s *Session) Server() *Server { return s.server }

// InitializeParams returns what the session keeps of the client's initialize, or nil
// before it: the protocol version, the capabilities (experimental and extension entries
// up to [MaxInitCapabilityBytes] in all) and clientInfo without its icons, each string
// cut to [MaxClientInfoString] bytes; _meta is not kept.
func (s *Session) InitializeParams() *mcp.InitializeParams {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.init
}

// ClientCapabilities returns the capabilities the client declared in initialize: empty
// before it, and always in 2026-07-28, where each request declares its own (read them
// with [Session.ClientCapabilitiesFor] or [ToolRequest.ClientCapabilities]).
func (s *Session) ClientCapabilities() *mcp.ClientCapabilities {
	if p := s.InitializeParams(); p != nil {
		return &p.Capabilities
	}
	return &mcp.ClientCapabilities{}
}

// coreTasks reports whether the session runs tool tasks: the server has them on, and
// the revision negotiated in initialize has Tasks (2025-11-25; the earlier ones have
// none).
func (s *Session) coreTasks() bool {
	p := s.InitializeParams()
	return s.server.tasks != nil && p != nil && mcp.HasCoreTasks(negotiated(p.ProtocolVersion))
}

// negotiated is the version initialize answers a client that asked for version.
func negotiated(version string) string {
	if !mcp.IsSupportedProtocolVersion(version) {
		return mcp.LatestProtocolVersion
	}
	return version
}

func (s *Session) initialized() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.init != nil
}

func (s *Session) subscribed(uri string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.subscriptions[uri]
}

// CreateMessage asks the client to sample from its model. In 2025-11-25 it sends
// sampling/createMessage and waits for the answer; a client that declared no sampling is
// sent nothing, and the error is -32600. In 2026-07-28 it returns [ErrInputRequired]
// until the client's retry of the call brings the answer (see [Session.Inputs]).
func (s *Session) CreateMessage(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	var mr mcp.CreateMessageResult
	if handled, err := s.input(ctx, mcp.MethodSamplingCreateMessage, p, &mr); handled {
		if err != nil {
			return nil, err
		}
		return &mr, nil
	}
	if s.ClientCapabilities().Sampling == nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "the client does not support sampling")
	}
	ctx, target, done := s.sideChannel(ctx, &p.Meta)
	defer done()
	var r mcp.CreateMessageResult
	if err := callInTask(ctx, target, mcp.MethodSamplingCreateMessage, p, &r); err != nil {
		return nil, unreadableAnswer(mcp.MethodSamplingCreateMessage, err)
	}
	return &r, nil
}

// Elicit asks the client's user for input. In 2025-11-25 it sends elicitation/create
// and waits for the answer; a client that declared no elicitation is sent nothing, and
// the error is -32600. In 2026-07-28 it returns [ErrInputRequired] until the client's
// retry of the call brings the answer (see [Session.Inputs]). A 2025-11-25 answer that
// cannot be read fails it at once with an [*UnreadableAnswerError], as it does
// CreateMessage and ListRoots.
func (s *Session) Elicit(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	var er mcp.ElicitResult
	if handled, err := s.input(ctx, mcp.MethodElicitationCreate, p, &er); handled {
		if err != nil {
			return nil, err
		}
		return &er, nil
	}
	if s.ClientCapabilities().Elicitation == nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "the client does not support elicitation")
	}
	ctx, target, done := s.sideChannel(ctx, &p.Meta)
	defer done()
	var r mcp.ElicitResult
	if err := callInTask(ctx, target, mcp.MethodElicitationCreate, p, &r); err != nil {
		return nil, unreadableAnswer(mcp.MethodElicitationCreate, err)
	}
	return &r, nil
}

// ListRoots asks the client for its roots: with roots/list in 2025-11-25, through
// [ErrInputRequired] and the client's retry in 2026-07-28 (see [Session.Inputs]).
func (s *Session) ListRoots(ctx context.Context) (*mcp.ListRootsResult, error) {
	var r mcp.ListRootsResult
	if handled, err := s.input(ctx, mcp.MethodRootsList, struct{}{}, &r); handled {
		if err != nil {
			return nil, err
		}
		return &r, nil
	}
	if err := s.conn.Call(ctx, mcp.MethodRootsList, nil, &r); err != nil {
		return nil, unreadableAnswer(mcp.MethodRootsList, err)
	}
	return &r, nil
}

// Ping checks that the client answers.
func (s *Session) Ping(ctx context.Context) error {
	return s.conn.Call(ctx, mcp.MethodPing, nil, nil)
}

// NotifyProgress sends a progress notification.
func (s *Session) NotifyProgress(ctx context.Context, p *mcp.ProgressNotificationParams) error {
	return s.conn.Notify(ctx, mcp.NotificationProgress, p)
}

// Log sends a log message if the client's chosen level lets it through.
//
// In 2026-07-28 the level is the one the request of ctx gave in its _meta; a request that
// gave none gets no log messages.
func (s *Session) Log(ctx context.Context, level mcp.LoggingLevel, logger string, data any) error {
	s.mu.Lock()
	min := s.logLevel
	modern := s.era == eraModern
	s.mu.Unlock()
	if modern {
		info := modernInfo(ctx)
		if info == nil || info.logLevel == "" {
			return nil
		}
		min = info.logLevel
	}
	if min != "" && level.Severity() < min.Severity() {
		return nil
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return err
	}
	return unlessPromoted(ctx, func() error {
		return s.conn.Notify(ctx, mcp.NotificationMessage, &mcp.LoggingMessageNotificationParams{Level: level, Logger: logger, Data: raw})
	})
}

func (s *Session) handle(ctx context.Context, req *jsonrpc.Request) (any, error) {
	if p := req.Params; len(p) > 0 && p[0] == '[' {
		// JSON-RPC allows positional params; MCP names every one.
		if req.IsNotification() {
			return nil, nil
		}
		return nil, mcp.ErrParamsArray
	}
	if s.eraFor(req) == eraModern {
		return s.handleModern(ctx, req)
	}
	if h, ok := s.server.opts.Handlers[req.Method]; ok {
		res, err := h(ctx, s, req)
		if !errors.Is(err, ErrNotHandled) {
			return res, err
		}
	}
	switch req.Method {
	case mcp.MethodInitialize:
		return s.initialize(req)
	case mcp.MethodPing:
		return struct{}{}, nil
	case mcp.NotificationInitialized:
		s.mu.Lock()
		s.ready = true
		s.mu.Unlock()
		return nil, nil
	}
	if req.IsNotification() {
		return nil, nil // unknown notifications are ignored, as JSON-RPC asks
	}
	if !s.initialized() {
		return nil, errNotInitialized
	}
	switch req.Method {
	case mcp.MethodToolsList:
		return s.listTools(req)
	case mcp.MethodToolsCall:
		return s.callTool(ctx, req)
	case mcp.MethodPromptsList:
		return s.listPrompts(req)
	case mcp.MethodPromptsGet:
		return s.getPrompt(ctx, req)
	case mcp.MethodResourcesList:
		return s.listResources(req)
	case mcp.MethodResourcesTemplatesList:
		return s.listTemplates(req)
	case mcp.MethodResourcesRead:
		return s.readResource(ctx, req)
	case mcp.MethodResourcesSubscribe, mcp.MethodResourcesUnsubscribe:
		return s.subscribe(req)
	case mcp.MethodLoggingSetLevel:
		var p mcp.SetLevelParams
		if err := decodeParams(req, &p); err != nil {
			return nil, err
		}
		if p.Level.Severity() < 0 {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "unknown logging level %q", p.Level)
		}
		s.mu.Lock()
		s.logLevel = p.Level
		s.mu.Unlock()
		return struct{}{}, nil
	case mcp.MethodTasksGet, mcp.MethodTasksResult, mcp.MethodTasksList, mcp.MethodTasksCancel:
		if s.coreTasks() {
			return s.handleTasks(ctx, req)
		}
	case mcp.MethodCompletionComplete:
		if s.server.opts.Complete == nil {
			break
		}
		var p mcp.CompleteParams
		if err := decodeParams(req, &p); err != nil {
			return nil, err
		}
		return s.server.opts.Complete(ctx, s, &p)
	}
	return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "method not found: %s", req.Method)
}

func (s *Session) initialize(req *jsonrpc.Request) (any, error) {
	var p mcp.InitializeParams
	if err := decodeParams(req, &p); err != nil {
		return nil, err
	}
	version := negotiated(p.ProtocolVersion)
	kept := keepInit(&p)
	caps := s.server.capabilities()
	if !mcp.HasCoreTasks(version) {
		// The revision has no Tasks: neither side's tasks capability means anything in
		// it, so that the server neither offers tool tasks nor asks the client for any.
		caps.Tasks = nil
		kept.p.Capabilities.Tasks = nil
	}
	if kept.cut {
		s.server.log.Warn("initialize: the client sent more than the session keeps; cut it",
			"client", kept.p.ClientInfo.Name)
	}
	s.mu.Lock()
	s.init = kept.p
	s.mu.Unlock()
	return &mcp.InitializeResult{
		ProtocolVersion: version,
		Capabilities:    *caps,
		ServerInfo:      s.server.impl,
		Instructions:    s.server.opts.Instructions,
	}, nil
}

// Bounds on what a session keeps of initialize for its whole life, whatever the client
// sent (a message may be megabytes).
const (
	// MaxClientInfoString bounds each string of clientInfo kept, in bytes.
	MaxClientInfoString = 1 << 10
	// MaxInitCapabilityBytes bounds the experimental and extension capability entries
	// kept, key and JSON value, in bytes; entries beyond it are dropped.
	MaxInitCapabilityBytes = 64 << 10
)

// keptInit is what [keepInit] keeps, and whether it had to leave something out.
type keptInit struct {
	p   *mcp.InitializeParams
	cut bool
}

// keepInit copies what the server needs of p into memory of its own, so that nothing
// keeps the decoded message alive.
func keepInit(p *mcp.InitializeParams) keptInit {
	k := keptInit{p: &mcp.InitializeParams{Capabilities: p.Capabilities}}
	str := func(v string) string {
		if len(v) <= MaxClientInfoString {
			return strings.Clone(v)
		}
		k.cut = true
		n := MaxClientInfoString
		for n > 0 && !utf8.RuneStart(v[n]) {
			n--
		}
		return strings.Clone(v[:n]) + "…"
	}
	k.p.ProtocolVersion = str(p.ProtocolVersion)
	ci := p.ClientInfo
	k.p.ClientInfo = mcp.Implementation{Name: str(ci.Name), Title: str(ci.Title), Version: str(ci.Version),
		Description: str(ci.Description), WebsiteURL: str(ci.WebsiteURL)}
	k.cut = k.cut || len(ci.Icons) > 0 || len(p.Meta) > 0
	budget := MaxInitCapabilityBytes
	entries := func(m map[string]json.RawMessage) map[string]json.RawMessage {
		if m == nil {
			return nil
		}
		out := make(map[string]json.RawMessage, len(m))
		for _, key := range slices.Sorted(maps.Keys(m)) { // the same entries whatever the map order
			if n := len(key) + len(m[key]); n <= budget {
				out[strings.Clone(key)] = bytes.Clone(m[key])
				budget -= n
			} else {
				k.cut = true
			}
		}
		return out
	}
	k.p.Capabilities.Experimental = entries(p.Capabilities.Experimental)
	k.p.Capabilities.Extensions = entries(p.Capabilities.Extensions)
	return k
}

func (s *Session) listTools(req *jsonrpc.Request) (any, error) {
	var p mcp.PaginatedParams
	if err := decodeParams(req, &p); err != nil {
		return nil, err
	}
	s.server.mu.RLock()
	defs := make([]mcp.Tool, 0, len(s.server.tools))
	for _, t := range s.server.tools {
		defs = append(defs, *t.def)
	}
	s.server.mu.RUnlock()
	if p := s.InitializeParams(); p != nil && !mcp.HasCoreTasks(negotiated(p.ProtocolVersion)) {
		for i := range defs {
			defs[i].Execution = nil // taskSupport is all it holds, and the revision has no Tasks
		}
	}
	items, next, err := page(defs, func(t mcp.Tool) string { return t.Name }, p.Cursor, s.server.opts.PageSize)
	if err != nil {
		return nil, err
	}
	return &mcp.ListToolsResult{Tools: items, NextCursor: next}, nil
}

// toolCall reads a tools/call request, in either era: its params and the tool they name.
// toolCall decodes a tools/call and finds its tool. onReader, on the connection's
// reading goroutine, it declines ([jsonrpc.ErrNotQuick]) when the tools are being
// changed rather than wait.
func (s *Session) toolCall(req *jsonrpc.Request, onReader bool) (mcp.CallToolParams, *tool, error) {
	var p mcp.CallToolParams
	if err := decodeParams(req, &p); err != nil {
		return p, nil, err
	}
	if onReader {
		if !s.server.mu.TryRLock() {
			return p, nil, jsonrpc.ErrNotQuick
		}
	} else {
		s.server.mu.RLock()
	}
	t, ok := s.server.tools[p.Name]
	s.server.mu.RUnlock()
	if !ok {
		return p, nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "unknown tool %q", p.Name)
	}
	return p, t, nil
}

func (s *Session) callTool(ctx context.Context, req *jsonrpc.Request) (any, error) {
	p, t, err := s.toolCall(req, false)
	if err != nil {
		return nil, err
	}
	if s.coreTasks() {
		if err := checkTaskSupport(t.def, &p); err != nil {
			return nil, err
		}
		if p.Task != nil {
			return s.startToolTask(ctx, t, &p, false)
		}
	}
	// Without a declared tasks capability, params.task is ignored and the call runs
	// normally, as the spec requires; in a revision before 2025-11-25 it is a field the
	// revision does not know, and a tool that needs a task is a tool like any other.
	return s.runTool(ctx, t, &p)
}

func (s *Session) listPrompts(req *jsonrpc.Request) (any, error) {
	var p mcp.PaginatedParams
	if err := decodeParams(req, &p); err != nil {
		return nil, err
	}
	s.server.mu.RLock()
	defs := make([]mcp.Prompt, 0, len(s.server.prompts))
	for _, x := range s.server.prompts {
		defs = append(defs, *x.def)
	}
	s.server.mu.RUnlock()
	items, next, err := page(defs, func(x mcp.Prompt) string { return x.Name }, p.Cursor, s.server.opts.PageSize)
	if err != nil {
		return nil, err
	}
	return &mcp.ListPromptsResult{Prompts: items, NextCursor: next}, nil
}

func (s *Session) getPrompt(ctx context.Context, req *jsonrpc.Request) (any, error) {
	var p mcp.GetPromptParams
	if err := decodeParams(req, &p); err != nil {
		return nil, err
	}
	s.server.mu.RLock()
	x, ok := s.server.prompts[p.Name]
	s.server.mu.RUnlock()
	if !ok {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "unknown prompt %q", p.Name)
	}
	for _, a := range x.def.Arguments {
		if _, given := p.Arguments[a.Name]; a.Required && !given {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "prompt %s needs argument %q", p.Name, a.Name)
		}
	}
	return x.handler(ctx, s, &p)
}

func (s *Session) listResources(req *jsonrpc.Request) (any, error) {
	var p mcp.PaginatedParams
	if err := decodeParams(req, &p); err != nil {
		return nil, err
	}
	s.server.mu.RLock()
	defs := make([]mcp.Resource, 0, len(s.server.resources))
	for _, x := range s.server.resources {
		defs = append(defs, *x.def)
	}
	s.server.mu.RUnlock()
	items, next, err := page(defs, func(x mcp.Resource) string { return x.URI }, p.Cursor, s.server.opts.PageSize)
	if err != nil {
		return nil, err
	}
	return &mcp.ListResourcesResult{Resources: items, NextCursor: next}, nil
}

func (s *Session) listTemplates(req *jsonrpc.Request) (any, error) {
	var p mcp.PaginatedParams
	if err := decodeParams(req, &p); err != nil {
		return nil, err
	}
	s.server.mu.RLock()
	defs := make([]mcp.ResourceTemplate, 0, len(s.server.templates))
	for _, x := range s.server.templates {
		defs = append(defs, *x.def)
	}
	s.server.mu.RUnlock()
	items, next, err := page(defs, func(x mcp.ResourceTemplate) string { return x.URITemplate }, p.Cursor, s.server.opts.PageSize)
	if err != nil {
		return nil, err
	}
	return &mcp.ListResourceTemplatesResult{ResourceTemplates: items, NextCursor: next}, nil
}

func (s *Session) readResource(ctx context.Context, req *jsonrpc.Request) (any, error) {
	var p mcp.ReadResourceParams
	if err := decodeParams(req, &p); err != nil {
		return nil, err
	}
	s.server.mu.RLock()
	var h ResourceHandler
	if r, ok := s.server.resources[p.URI]; ok {
		h = r.handler
	} else {
		for _, t := range s.server.templates {
			if t.match(p.URI) {
				h = t.handler
				break
			}
		}
	}
	s.server.mu.RUnlock()
	if h == nil {
		// -32002 is the code the 2025-11-25 resources specification gives for an unknown
		// resource; 2026-07-28 (SEP-2164) gives -32602.
		code := int64(-32002)
		if s.Modern() {
			code = jsonrpc.CodeInvalidParams
		}
		return nil, jsonrpc.Errorf(code, "resource not found: %s", p.URI).WithData(map[string]string{"uri": p.URI})
	}
	return h(ctx, s, &p)
}

func (s *Session) subscribe(req *jsonrpc.Request) (any, error) {
	var p mcp.SubscribeParams
	if err := decodeParams(req, &p); err != nil {
		return nil, err
	}
	if p.URI == "" {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "uri is required")
	}
	s.mu.Lock()
	if req.Method == mcp.MethodResourcesSubscribe {
		if s.subscriptions == nil {
			s.subscriptions = map[string]bool{}
		}
		s.subscriptions[p.URI] = true
	} else {
		delete(s.subscriptions, p.URI)
	}
	s.mu.Unlock()
	return struct{}{}, nil
}
