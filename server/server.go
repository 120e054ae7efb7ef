// Package server is a small MCP server runtime: tools, prompts, resources, completion,
// logging and progress, and requests from the server to the client (sampling, elicitation,
// roots). It runs on any [jsonrpc.Connection], so one server serves stdio, Streamable HTTP
// and in-memory pipes alike.
//
// # Two eras on one endpoint
//
// A server speaks revision 2025-11-25 and, with [Options.Modern], revision 2026-07-28 as
// well. Each connection settles its era on its first request and keeps it: initialize
// makes a 2025-11-25 session; server/discover, or any request whose params carry
// _meta["io.modelcontextprotocol/protocolVersion"], makes a 2026-07-28 connection. Over
// Streamable HTTP a POST without Mcp-Session-Id that carries the 2026-07-28 headers is
// served statelessly, as a connection of its own ([transport.StatelessConn]); every
// other POST is handled as before, sessions and all.
//
// In 2026-07-28 the server reads each request's _meta (protocol version, client
// capabilities, log level) and remembers nothing between requests, answers
// server/discover, puts resultType (and ttlMs and cacheScope where the spec wants them)
// on every result, refuses initialize, ping, logging/setLevel, resources/subscribe and
// the core tasks of 2025 with -32601, and serves subscriptions/listen.
//
// # Asking the client, in either era
//
// Handlers ask for input with [Session.Inputs], [Session.Elicit],
// [Session.CreateMessage] and [Session.ListRoots]. In 2025-11-25 these send the request
// to the client and wait. In 2026-07-28 the server sends no requests: the first
// unanswered question makes the call return [ErrInputRequired], the server answers
// input_required with the questions and a signed requestState, and the client's retry
// runs the handler again with the answers (multi round-trip requests, MRTR). A handler
// therefore asks the same questions in the same order for the same arguments and
// answers, and returns as soon as it gets [ErrInputRequired]; written that way, one
// handler serves both eras. Read the capabilities of the request at hand with
// [ToolRequest.ClientCapabilities] or [Session.ClientCapabilitiesFor]: in 2026-07-28
// they are those of that request, not of the connection.
//
// In 2026-07-28, Elicit, CreateMessage and ListRoots name their question by kind and
// rank ("elicitation-1", "sampling-1", "roots-1", "elicitation-2", ...); Inputs takes
// names of the handler's own. Since the handler runs again from the start with each
// answer, it does nothing it cannot repeat before its last question; whatever it returns
// after ErrInputRequired is dropped. The requestState holds the answers given so far, bound to
// the request's method, target and arguments and to the caller (the identity its
// 2026-07-28 tasks are bound to: [Options.TaskOwner], else its Authorization header;
// none for a caller without credentials), with an expiry ([Options.RequestStateTTL]),
// and encrypted with AES-256-GCM under a key derived from [Options.StateKey], so that
// whoever sees a state can neither read its answers nor replay them as another caller:
// a state that fails its check, belongs to another request or caller or has expired is
// refused with -32602. A question that
// needs a capability the request's client did not declare fails the call with -32021,
// and an answer of the wrong shape with -32602.
package server

import (
	"cmp"
	"context"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpi-dev/mcpi/internal/jsonwire"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/tasks"
	"github.com/mcpi-dev/mcpi/transport"
)

// ToolHandler runs one tool call. A returned error becomes a JSON-RPC error reply; a tool
// that failed in a way the model should see returns a result with IsError set instead.
//
// A handler that panics, or returns neither a result nor an error, is a bug: the call
// (or its task) gets the internal error -32603 naming the tool and nothing more, and
// the server logs it at Error, with the stack of a panic, on [Options.Logger] (on
// slog.Default() when that is nil, so that no panic goes untold).
type ToolHandler func(ctx context.Context, req *ToolRequest) (*mcp.CallToolResult, error)

// ToolRequest is one call of a tool.
type ToolRequest struct {
	Session *Session
	Params  *mcp.CallToolParams
	ctx     context.Context // the request's, for what its _meta says in 2026-07-28
}

// Arguments decodes the call's arguments into v.
func (r *ToolRequest) Arguments(v any) error {
	if len(r.Params.Arguments) == 0 {
		return nil
	}
	if err := json.Unmarshal(r.Params.Arguments, v); err != nil {
		return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid arguments for tool %s: %v", r.Params.Name, err)
	}
	return nil
}

// Progress reports progress against the call's progress token; without a token it does
// nothing, as the client asked for none.
//
// In a task the token stays valid for the task's whole life; the notification carries the
// task's id, and nothing is sent once the task has ended.
func (r *ToolRequest) Progress(ctx context.Context, progress float64, total *float64, message string) error {
	token, ok := r.Params.Meta.ProgressToken()
	if !ok {
		return nil
	}
	p := &mcp.ProgressNotificationParams{ProgressToken: token, Progress: progress, Total: total, Message: message}
	if w, ok := ctx.Value(taskWorkKey{}).(*taskWork); ok { // a task of 2025-11-25
		p.Meta.SetRelatedTask(w.h.ID())
		var err error
		w.h.WhileRunning(func() { err = r.Session.NotifyProgress(ctx, p) })
		return err
	}
	return unlessPromoted(ctx, func() error { return r.Session.NotifyProgress(ctx, p) })
}

// PromptHandler renders a prompt.
type PromptHandler func(ctx context.Context, s *Session, p *mcp.GetPromptParams) (*mcp.GetPromptResult, error)

// ResourceHandler reads a resource (or a URI matching a template).
type ResourceHandler func(ctx context.Context, s *Session, p *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error)

// CompletionHandler answers completion/complete.
type CompletionHandler func(ctx context.Context, s *Session, p *mcp.CompleteParams) (*mcp.CompleteResult, error)

// Options configures a [Server].
type Options struct {
	Instructions string
	Logger       *slog.Logger
	// PageSize bounds list results; 0 means 100.
	PageSize int
	// Complete, when set, makes the server declare and answer completions.
	Complete CompletionHandler
	// Tap sees every message of every session.
	Tap func(s *Session, dir jsonrpc.Direction, m jsonrpc.Message)
	// Handlers adds or overrides methods (the task engine plugs in here). A handler
	// returning [ErrNotHandled] falls through to the built-in one. In 2026-07-28 a
	// handler sees the request without its per-request _meta (which the server has read
	// and checked), and its result gets resultType "complete" unless it names one.
	Handlers map[string]MethodHandler
	// Capabilities is merged into the capabilities the server derives from what is
	// registered.
	Capabilities *mcp.ServerCapabilities
	// Tasks, when set, turns on tool tasks with these engine options. Their per-owner
	// caps (MaxActive, MaxKept, RatePerSecond) count per caller as [Options.TaskOwner]
	// names it: read its note on sharing them before exposing a server.
	Tasks *tasks.Options
	// AdoptOrphanTasks lets a session reach, by id, a task of 2025-11-25 whose session
	// has ended; the task then belongs to it. Task ids carry 128 random bits, so only a
	// client that was told an id can name it. Over Streamable HTTP the task is bound as
	// well to the credentials its session was opened with (those of the initialize
	// POST: [Options.TaskOwner] when set, else the Authorization header, hashed): only a
	// session opened with the same may adopt it, and a session without credentials
	// adopts only tasks made without them. To any other session the task is what an
	// unknown id is (-32602). A client that refreshes an OAuth access token between
	// the two sessions needs TaskOwner to name the identity the token stands for, as
	// for the tasks of 2026-07-28. On stdio and other transports a session has no
	// credentials, and the id alone reaches the task.
	//
	// Off (the default), a task of 2025-11-25 is reached only from the session that
	// made it, so when that session ends (its connection closes, or an HTTP client
	// DELETEs it) its tasks are cancelled (their work's context ends) and deleted at
	// once. On, they run on and wait, until their TTL, for a session to adopt them.
	// Tasks of the 2026-07-28 extension have no session and are not affected.
	//
	// Off, over Streamable HTTP a session is kept while a task of its runs (at most the
	// task's TTL): it does not expire after [transport.HTTPOptions.SessionTimeout], and
	// is evicted for a new session beyond [transport.HTTPOptions.MaxSessions] only when
	// every session without a request in progress has tasks running. It expires
	// SessionTimeout after its last task ended, so a client that comes back for an
	// ended task's result has that long.
	AdoptOrphanTasks bool
	// TaskOwner, when set, names the caller of a 2026-07-28 request over HTTP, in place
	// of its Authorization header: a task of the Tasks extension made by a request it
	// names is reached (tasks/get, tasks/update, tasks/cancel, subscriptions/listen for
	// it) only by requests it names the same; to any other request the task is what an
	// unknown id is (-32602), so that its existence is not revealed. "" names nobody.
	// Without TaskOwner, a request is named by its Authorization header (its hash), if
	// it has one: right for a key that does not change, but a client that refreshes
	// an OAuth access token while its task runs cannot reach the task with the new
	// token. Where tokens are refreshed, TaskOwner names the identity the token
	// stands for (its subject, from the server's own validation of it).
	//
	// A task made by a request that names nobody (no credentials; stdio) is reached by
	// whoever names its id: 128 random bits that only its maker was told, and no
	// tasks/list. It is not bound to the address it came from, which a client fetching
	// its outcome later may no longer have.
	//
	// The engine's per-owner caps ([tasks.Options] MaxActive, MaxKept, RatePerSecond)
	// count per owner so named, and the callers without credentials share one owner
	// per address: one of them can use up the task capacity of all the others from
	// that address (behind a reverse proxy, of every such caller). Without TaskOwner,
	// each Authorization header, checked or not, is an owner of its own, so forged
	// headers only meet the caps of all owners together (MaxActiveTotal,
	// MaxKeptTotal), which they can fill for everyone. A server open to callers it does
	// not trust sets TaskOwner from credentials it has validated, so that each caller
	// gets its own share and no more, and refuses requests without them.
	//
	// In 2025-11-25 a task is bound to the session that made it (the session id is the
	// client's secret); TaskOwner names, at initialize, who may adopt it once that
	// session has ended: see AdoptOrphanTasks.
	//
	// [Server.HTTPHandler] also names callers by it for
	// [transport.HTTPOptions.MaxStatelessPerCaller] (unless the options name them
	// otherwise): each caller it names has its own share of the requests in flight,
	// and a caller it does not name goes by its address.
	TaskOwner func(r *http.Request) string
	// Modern makes the server speak revision 2026-07-28 as well as 2025-11-25: a stdio
	// connection that opens with server/discover (or a request whose _meta names a
	// protocol version), and a Streamable HTTP request without a session that carries
	// the 2026-07-28 headers, are served statelessly (see the package doc). Off, the
	// server speaks 2025-11-25 alone.
	Modern bool
	// CacheTTL is the ttlMs that 2026-07-28 results of server/discover, the lists and
	// resources/read carry (cacheScope "public"). Zero tells clients not to cache.
	CacheTTL time.Duration
	// StateKey is the secret the requestState of input_required results is encrypted
	// and authenticated under (AES-256-GCM, with a key derived from it). Servers that
	// share one client's retries (replicas behind a load balancer) must share it; nil
	// means a random key of the server's own.
	StateKey []byte
	// RequestStateTTL bounds how long a requestState is accepted; zero means
	// [DefaultRequestStateTTL].
	RequestStateTTL time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// MaxClientRequests bounds the requests of a session's client handled at once
	// ([DefaultMaxClientRequests]), and MaxClientRequestBytes the size of their params
	// ([DefaultMaxClientRequestBytes]), on a connection other than Streamable HTTP's
	// (stdio, a pipe), whose transport bounds each session itself
	// ([transport.HTTPOptions.MaxInFlight]). Each holds a goroutine and its params until
	// answered, and so does an answer the client has not read (see
	// [jsonrpc.Options.MaxInFlight]): a client that sends requests faster than they are
	// answered, or never reads the answers, would otherwise take memory without limit. A
	// request past either gets an error at once (-32600, "too many requests"). A
	// negative value removes the bound.
	MaxClientRequests     int
	MaxClientRequestBytes int
}

// The bounds of a client's requests when [Options] sets none: as many as
// [transport.DefaultMaxInFlight] over Streamable HTTP, and the params of as many
// requests of 64 KiB.
const (
	DefaultMaxClientRequests     = 1024
	DefaultMaxClientRequestBytes = 64 << 20
)

// MethodHandler handles one method for a session.
type MethodHandler func(ctx context.Context, s *Session, req *jsonrpc.Request) (any, error)

type tool struct {
	def     *mcp.Tool
	handler ToolHandler
	opts    ToolOptions
}

// ToolOptions tunes how a tool runs.
type ToolOptions struct {
	// MaxTaskTTL caps the lifetime of this tool's tasks below the server's cap.
	MaxTaskTTL time.Duration
	// TaskPolicy says when a 2026-07-28 call becomes a task of the Tasks extension;
	// [TaskPolicyAuto] derives it from the tool's execution.taskSupport.
	TaskPolicy TaskPolicy
	// TaskAfter is how long a [TaskWhenSlow] call may run inline before it becomes a
	// task; zero means [DefaultTaskAfter].
	TaskAfter time.Duration
}

type prompt struct {
	def     *mcp.Prompt
	handler PromptHandler
}

type resource struct {
	def     *mcp.Resource
	handler ResourceHandler
}

type template struct {
	def     *mcp.ResourceTemplate
	match   func(uri string) bool
	handler ResourceHandler
}

// Server holds what a server offers; each connection gets a [Session].
type Server struct {
	impl mcp.Implementation
	opts Options
	log  *slog.Logger

	mu    sync.RWMutex
	tools map[string]*tool
	// atOnce counts the tools whose 2026-07-28 calls are tasks at once (TaskAlways,
	// TaskRequired), which may be answered where they are read ([Server.atOnceCall]);
	// written under mu.
	atOnce    atomic.Int32
	prompts   map[string]*prompt
	resources map[string]*resource
	templates []*template
	sessions  map[*Session]struct{}
	owners    map[string]*Session // by task owner key
	tasks     *tasks.Manager      // nil when tool tasks are off
	stateAEAD cipher.AEAD
	listeners map[*listener]struct{}
	// taskListens are the open listens by the task ids they asked for, so that a
	// task's change finds its listens without going through all of them (a listen may
	// name a hundred thousand tasks, and there may be many listens).
	taskListens map[string][]*listener
	// resourceListens are the open listens by the resource URIs they subscribed to.
	resourceListens map[string][]*listener
	// closing ends the open subscriptions/listen requests with their final result.
	closing   chan struct{}
	closeOnce sync.Once

	capsMu sync.RWMutex
	caps   map[string]*mcp.ClientCapabilities // by their JSON; see clientCapabilities
}

// New returns a server that introduces itself as impl.
func New(impl mcp.Implementation, opts *Options) *Server {
	s := &Server{
		impl:      impl,
		tools:     map[string]*tool{},
		prompts:   map[string]*prompt{},
		resources: map[string]*resource{},
		sessions:  map[*Session]struct{}{},
		owners:    map[string]*Session{},
		closing:   make(chan struct{}),
	}
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.MaxClientRequests == 0 {
		s.opts.MaxClientRequests = DefaultMaxClientRequests
	}
	if s.opts.MaxClientRequestBytes == 0 {
		s.opts.MaxClientRequestBytes = DefaultMaxClientRequestBytes
	}
	if s.opts.Tasks != nil {
		to := *s.opts.Tasks
		onChange := to.OnChange
		to.OnChange = func(owner string, t mcp.Task) {
			s.notifyTask(owner, t)
			if onChange != nil {
				onChange(owner, t)
			}
		}
		if to.Logger == nil {
			to.Logger = s.opts.Logger
		}
		onDetail := to.OnDetail
		to.OnDetail = func(d mcp.DetailedTask) {
			s.notifyExtTask(d) // listen.go
			if onDetail != nil {
				onDetail(d)
			}
		}
		onDeleted := to.OnDeleted
		to.OnDeleted = func(owner, id string) {
			s.extTaskDeleted(id) // listen.go
			if onDeleted != nil {
				onDeleted(owner, id)
			}
		}
		s.tasks = tasks.New(to)
	}
	s.log = s.opts.Logger
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.opts.PageSize <= 0 {
		s.opts.PageSize = 100
	}
	key := s.opts.StateKey
	if len(key) == 0 {
		key = newStateKey()
	}
	s.stateAEAD = newStateAEAD(key)
	s.listeners = map[*listener]struct{}{}
	s.taskListens = map[string][]*listener{}
	s.resourceListens = map[string][]*listener{}
	return s
}

// AddTool registers a tool, replacing one of the same name, and tells connected clients.
func (s *Server) AddTool(t *mcp.Tool, h ToolHandler) {
	s.AddToolWith(t, h, nil)
}

// AddToolWith registers a tool with options.
//
// A tool whose execution.taskSupport is required can be called only as a task. On a
// server that runs no tool tasks (no [Options.Tasks], nor tasks.requests.tools.call in
// [Options.Capabilities] for task handlers of one's own) no client could call it, and
// the server would list it while declaring no tasks: that is a mistake in the program,
// which AddToolWith reports by panicking, as net/http's Handle does a bad pattern.
func (s *Server) AddToolWith(t *mcp.Tool, h ToolHandler, opts *ToolOptions) {
	if t.TaskSupport() == mcp.TaskSupportRequired && !s.runsToolTasks() {
		panic(fmt.Sprintf("server: tool %q has taskSupport required, but the server runs no tool tasks (set Options.Tasks)", t.Name))
	}
	if len(t.InputSchema) == 0 {
		t.InputSchema = json.RawMessage(`{"type":"object"}`)
	}
	tl := &tool{def: t, handler: h}
	if opts != nil {
		tl.opts = *opts
	}
	s.mu.Lock()
	s.countAtOnce(s.tools[t.Name], -1)
	s.tools[t.Name] = tl
	s.countAtOnce(tl, 1)
	s.mu.Unlock()
	s.broadcast(mcp.NotificationToolsListChanged)
}

// countAtOnce adds n to the count of tools that are tasks at once when t is one; s.mu
// is held.
func (s *Server) countAtOnce(t *tool, n int32) {
	if t != nil && t.atOnce() {
		s.atOnce.Add(n)
	}
}

// runsToolTasks reports whether the server declares tool tasks.
func (s *Server) runsToolTasks() bool {
	if s.tasks != nil {
		return true
	}
	c := s.opts.Capabilities
	return c != nil && c.Tasks != nil && c.Tasks.Requests != nil && c.Tasks.Requests.Tools != nil && c.Tasks.Requests.Tools.Call != nil
}

// RemoveTool unregisters a tool.
func (s *Server) RemoveTool(name string) {
	s.mu.Lock()
	s.countAtOnce(s.tools[name], -1)
	delete(s.tools, name)
	s.mu.Unlock()
	s.broadcast(mcp.NotificationToolsListChanged)
}

// Tool returns a registered tool's definition.
func (s *Server) Tool(name string) (*mcp.Tool, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	t, ok := s.tools[name]
	if !ok {
		return nil, false
	}
	return t.def, true
}

// AddPrompt registers a prompt.
func (s *Server) AddPrompt(p *mcp.Prompt, h PromptHandler) {
	s.mu.Lock()
	s.prompts[p.Name] = &prompt{def: p, handler: h}
	s.mu.Unlock()
	s.broadcast(mcp.NotificationPromptsListChanged)
}

// AddResource registers a resource with a fixed URI.
func (s *Server) AddResource(r *mcp.Resource, h ResourceHandler) {
	s.mu.Lock()
	s.resources[r.URI] = &resource{def: r, handler: h}
	s.mu.Unlock()
	s.broadcast(mcp.NotificationResourcesListChanged)
}

// AddResourceTemplate registers a URI template (RFC 6570 level 1: {name} segments).
func (s *Server) AddResourceTemplate(t *mcp.ResourceTemplate, h ResourceHandler) {
	s.mu.Lock()
	s.templates = append(s.templates, &template{def: t, match: templateMatcher(t.URITemplate), handler: h})
	s.mu.Unlock()
	s.broadcast(mcp.NotificationResourcesListChanged)
}

// NotifyResourceUpdated tells every session subscribed to uri that it changed, and
// every subscriptions/listen whose resourceSubscriptions name it.
func (s *Server) NotifyResourceUpdated(ctx context.Context, uri string) {
	for _, ss := range s.Sessions() {
		if ss.subscribed(uri) {
			_ = ss.conn.Notify(ctx, mcp.NotificationResourcesUpdated, &mcp.ResourceUpdatedNotificationParams{URI: uri})
		}
	}
	s.notifyListeners(mcp.NotificationResourcesUpdated, uri)
}

// Tasks returns the server's task engine, or nil when tool tasks are off.
func (s *Server) Tasks() *tasks.Manager { return s.tasks }

// Close ends every session and stops all task work: the context of each task's work
// ends, and Close waits for the work to return for at most [tasks.DefaultCloseWait].
// Work still running then (a handler that ignores its context) is logged at Warn and
// left to run; its outcome is dropped. See [Server.Shutdown] to choose the wait.
func (s *Server) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), tasks.DefaultCloseWait)
	defer cancel()
	_ = s.Shutdown(ctx)
}

// Shutdown is [Server.Close] with a wait of one's own: it ends every session, stops all
// task work, and waits for the work to return until ctx ends, as net/http's
// Server.Shutdown waits for its connections. When ctx ends first, the tasks whose work
// is still running are logged at Warn and left to run, and Shutdown returns an error
// that wraps ctx's. Requests that are not tasks end with their sessions and are not
// waited for.
func (s *Server) Shutdown(ctx context.Context) error {
	s.closeOnce.Do(func() { close(s.closing) })
	// An open subscriptions/listen ends with its final result, which tells the client
	// the server ended it, before its connection closes; a client that stopped reading
	// does not hold the close up for long.
	s.mu.RLock()
	var listening []*Session
	for l := range s.listeners {
		listening = append(listening, l.s)
	}
	s.mu.RUnlock()
	if len(listening) > 0 {
		drain, cancel := context.WithTimeout(ctx, listenDrainTimeout)
		for _, ss := range listening {
			_ = ss.conn.Drain(drain)
		}
		cancel()
	}
	for _, ss := range s.Sessions() {
		ss.Close()
	}
	if s.tasks != nil {
		return s.tasks.Shutdown(ctx)
	}
	return nil
}

// Sessions returns the sessions connected now.
func (s *Server) Sessions() []*Session {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]*Session, 0, len(s.sessions))
	for ss := range s.sessions {
		out = append(out, ss)
	}
	return out
}

func (s *Server) broadcast(method string) {
	for _, ss := range s.Sessions() {
		if ss.initialized() {
			_ = ss.conn.Notify(context.Background(), method, nil)
		}
	}
	s.notifyListeners(method, "")
}

// bodyAnswerer is a connection that can answer some requests in one piece rather than as
// a stream ([transport.HTTPServerConn]).
type bodyAnswerer interface {
	AnswerInBody(func(*jsonrpc.Request) bool)
}

// Connect serves one connection and returns its session at once; the session ends when
// the connection does.
func (s *Server) Connect(ctx context.Context, conn jsonrpc.Connection) *Session {
	ss := &Session{server: s, transport: conn}
	sc, stateless := conn.(interface{ Stateless() bool })
	stateless = stateless && sc.Stateless()
	if stateless {
		ss.era = eraModern // one request of 2026-07-28 over HTTP
		ss.settled.Store(true)
		ss.owner = newOwnerKey("")
	} else {
		ss.owner = newOwnerKey(sessionIdentity(conn))
	}
	// The connection starts reading at once; handlers wait until ss.conn is set.
	ready := make(chan struct{})
	handler := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		<-ready
		return ss.handle(ctx, req)
	})
	opts := jsonrpc.Options{Handler: handler, Logger: s.opts.Logger,
		// A client may send requests right after initialize and notifications/initialized,
		// before the answer: taken in order, they find the session initialized (handled
		// concurrently, they were refused when they overtook initialize).
		InOrder: func(r *jsonrpc.Request) bool { return r.Method == mcp.MethodInitialize }}
	if _, overHTTP := conn.(*transport.HTTPServerConn); !overHTTP && !stateless {
		// Over Streamable HTTP the transport bounds the session (with 429), and a
		// stateless connection carries one request.
		opts.MaxInFlight = max(s.opts.MaxClientRequests, 0)
		opts.MaxInFlightBytes = max(s.opts.MaxClientRequestBytes, 0)
	}
	// Over a connection that can write at once (a pipe), a task's second exchange is
	// answered where it is read; over Streamable HTTP each request has its handler.
	if _, now := conn.(jsonrpc.NowWriter); now && s.tasks != nil {
		opts.Quick = jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			select {
			case <-ready:
				return ss.handleQuick(ctx, req)
			default:
				return nil, jsonrpc.ErrNotQuick
			}
		})
	}
	if s.opts.Tap != nil {
		opts.Tap = func(dir jsonrpc.Direction, m jsonrpc.Message) { s.opts.Tap(ss, dir, m) }
	}
	s.mu.Lock()
	s.sessions[ss] = struct{}{}
	s.owners[ss.owner] = ss
	s.mu.Unlock()
	if ab, ok := conn.(bodyAnswerer); ok {
		ab.AnswerInBody(ss.answeredAtOnce)
	}
	rconn := conn
	if s.opts.Modern && !ss.settled.Load() {
		rconn = eraConn{conn, ss}
	}
	ss.conn = jsonrpc.NewConn(rconn, opts)
	close(ready)
	go func() {
		<-ss.conn.Done()
		s.mu.Lock()
		delete(s.sessions, ss)
		delete(s.owners, ss.owner)
		s.mu.Unlock()
		if s.tasks != nil && !s.opts.AdoptOrphanTasks {
			// Nobody can reach the session's tasks of 2025-11-25 any more: their work
			// would run on, and their records stay and count against the caps, until
			// their TTL, for no one.
			s.tasks.DropOwner(ss.owner)
		}
	}()
	return ss
}

// Run serves t's connection until it ends or ctx is done.
func (s *Server) Run(ctx context.Context, t transport.Transport) error {
	conn, err := t.Connect(ctx)
	if err != nil {
		return err
	}
	ss := s.Connect(ctx, conn)
	select {
	case <-ss.Done():
	case <-ctx.Done():
		ss.Close()
	}
	return nil
}

// HTTPHandler serves the server over Streamable HTTP, one session per MCP session, and
// (with [Options.Modern]) the stateless requests of 2026-07-28. The transport logs to
// opts.Logger, or to the server's [Options.Logger] when opts names none; nil opts take
// the defaults of [transport.HTTPOptions]. Its Close ends its sessions and answers later
// requests 503.
//
// The handler bounds what it holds per session and per request, but it cannot bound the
// time a client takes to send a request: serve it from an [http.Server] with
// ReadHeaderTimeout and ReadTimeout set (`mcpi serve` sets 10 s and 30 s), else a client
// that sends its headers or body a byte at a time holds a connection and a goroutine for
// ever. Leave WriteTimeout unset: it would end every SSE stream; the handler bounds each
// write itself (30 s).
func (s *Server) HTTPHandler(opts *transport.HTTPOptions) *transport.HTTPHandler {
	o := transport.HTTPOptions{}
	if opts != nil {
		o = *opts
	}
	if o.Logger == nil {
		o.Logger = s.opts.Logger
	}
	// Always the server's own: it is what a session's tasks are bound to (see
	// AdoptOrphanTasks).
	o.SessionCaller = s.identity
	if o.StatelessCaller == nil {
		// The identity that owns a caller's tasks is the one its share of the
		// stateless requests in flight goes by; without it, its address.
		o.StatelessCaller = s.opts.TaskOwner
	}
	if s.opts.Modern {
		if o.ModernProtocolVersions == nil {
			o.ModernProtocolVersions = mcp.ModernProtocolVersions
		}
		if o.SupportedVersions == nil {
			o.SupportedVersions = SupportedVersions
		}
	} else {
		o.ModernProtocolVersions = nil
	}
	opts = &o
	return transport.NewHTTPHandler(func(ctx context.Context, conn jsonrpc.Connection) {
		if sc, ok := conn.(*transport.StatelessConn); ok {
			s.serveStateless(ctx, sc)
			return
		}
		ss := s.Connect(ctx, conn)
		<-ss.Done()
	}, opts)
}

// serveStateless serves a stateless 2026-07-28 HTTP request on the calling goroutine (the
// request's): a session of its own, modern from the start, that owns no tasks of
// 2025-11-25 and ends with its answer. Its handler's context ends with ctx (the client
// left).
func (s *Server) serveStateless(ctx context.Context, conn *transport.StatelessConn) {
	m, err := conn.Read(ctx)
	if err != nil {
		conn.Close()
		return
	}
	ss := &Session{server: s, transport: conn, era: eraModern}
	ss.settled.Store(true)
	opts := jsonrpc.Options{Handler: jsonrpc.HandlerFunc(ss.handle), Logger: s.opts.Logger}
	if s.opts.Tap != nil {
		opts.Tap = func(dir jsonrpc.Direction, m jsonrpc.Message) { s.opts.Tap(ss, dir, m) }
	}
	ss.conn = jsonrpc.NewServingConn(ctx, conn, opts)
	s.mu.Lock()
	s.sessions[ss] = struct{}{}
	s.mu.Unlock()
	ss.conn.Serve(m)
	ss.conn.Close()
	s.mu.Lock()
	delete(s.sessions, ss)
	s.mu.Unlock()
}

func (s *Server) capabilities() *mcp.ServerCapabilities {
	s.mu.RLock()
	defer s.mu.RUnlock()
	caps := &mcp.ServerCapabilities{}
	if s.opts.Capabilities != nil {
		c := *s.opts.Capabilities
		caps = &c
	}
	caps.Logging = cmp.Or(caps.Logging, &struct{}{})
	if len(s.tools) > 0 && caps.Tools == nil {
		caps.Tools = &mcp.ToolsCapability{ListChanged: true}
	}
	if len(s.prompts) > 0 && caps.Prompts == nil {
		caps.Prompts = &mcp.PromptsCapability{ListChanged: true}
	}
	if (len(s.resources) > 0 || len(s.templates) > 0) && caps.Resources == nil {
		caps.Resources = &mcp.ResourcesCapability{Subscribe: true, ListChanged: true}
	}
	if s.tasks != nil && caps.Tasks == nil {
		caps.Tasks = s.taskCapability()
	}
	if s.opts.Complete != nil && caps.Completions == nil {
		caps.Completions = &struct{}{}
	}
	return caps
}

// page returns the items after cursor, at most PageSize of them, and the cursor of the next
// page. Items are ordered by key so that a cursor stays meaningful while the set changes.
func page[T any](items []T, key func(T) string, cursor string, size int) ([]T, string, error) {
	slices.SortFunc(items, func(a, b T) int { return cmp.Compare(key(a), key(b)) })
	start := 0
	if cursor != "" {
		after, err := base64.RawURLEncoding.DecodeString(cursor)
		if err != nil {
			return nil, "", jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid cursor %q", cursor)
		}
		start, _ = slices.BinarySearchFunc(items, string(after), func(t T, k string) int { return cmp.Compare(key(t), k) })
		if start < len(items) && key(items[start]) == string(after) {
			start++
		}
	}
	end := min(start+size, len(items))
	next := ""
	if end < len(items) {
		next = base64.RawURLEncoding.EncodeToString([]byte(key(items[end-1])))
	}
	return items[start:end], next, nil
}

// decodeParams decodes req's params into v, an mcp params type, with v's own decoder
// where it has one.
func decodeParams(req *jsonrpc.Request, v any) error {
	if len(req.Params) == 0 {
		return nil
	}
	if err := jsonwire.Unmarshal(req.Params, v); err != nil {
		return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params for %s: %v", req.Method, err)
	}
	return nil
}

func templateMatcher(tmpl string) func(string) bool {
	// Split the template into literal parts around {vars}; a URI matches when the literals
	// appear in order and each variable matches a non-empty run without '/'.
	var lits []string
	rest := tmpl
	for {
		i := strings.IndexByte(rest, '{')
		if i < 0 {
			lits = append(lits, rest)
			break
		}
		j := strings.IndexByte(rest[i:], '}')
		if j < 0 {
			lits = append(lits, rest)
			break
		}
		lits = append(lits, rest[:i])
		rest = rest[i+j+1:]
	}
	return func(uri string) bool {
		if len(lits) == 1 {
			return uri == lits[0]
		}
		if len(uri) < len(lits[0]) || uri[:len(lits[0])] != lits[0] {
			return false
		}
		uri = uri[len(lits[0]):]
		for k, lit := range lits[1:] {
			last := k == len(lits)-2
			var idx int
			if last {
				if len(uri) < len(lit) || uri[len(uri)-len(lit):] != lit {
					return false
				}
				idx = len(uri) - len(lit)
			} else {
				idx = strings.Index(uri, lit)
				if lit == "" || idx < 0 {
					return false
				}
			}
			v := uri[:idx]
			if v == "" || strings.IndexByte(v, '/') >= 0 {
				return false
			}
			uri = uri[idx+len(lit):]
		}
		return true
	}
}

var errNotInitialized = jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "the session is not initialized: send initialize first")

var ownerSeq atomic.Uint64

// newOwnerKey names a session as the owner of its tasks. The random part keeps keys of
// different server processes apart.
func newOwnerKey(identity string) string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	key := fmt.Sprintf("s%d-%s", ownerSeq.Add(1), hex.EncodeToString(b[:]))
	if identity != "" {
		key += " " + identity
	}
	return key
}

// ownerIdentity is the identity a session's owner key carries (see [newOwnerKey]): the
// one its session was opened with, which outlives the session with its tasks, so that
// only a session opened with the same may adopt them.
func ownerIdentity(owner string) string {
	_, id, _ := strings.Cut(owner, " ")
	return id
}

// sessionIdentity names the caller that opened a 2025-11-25 session over Streamable
// HTTP, as [Server.HTTPHandler] had the transport name it from the POST of its
// initialize ([Server.identity]); "" for one without credentials and on other
// transports (stdio, a pipe), whose peer is whoever holds the connection.
func sessionIdentity(conn jsonrpc.Connection) string {
	if c, ok := conn.(interface{ Caller() string }); ok {
		return c.Caller()
	}
	return ""
}
