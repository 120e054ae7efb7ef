// Package client is mcpi's MCP client: it connects to a server over any transport,
// initializes, lists and calls what the server offers, and queues the server's own
// requests (sampling, elicitation) for a front end to answer. Everything that happens is
// published as typed [Event]s.
package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/tasks"
	"github.com/mcpi-dev/mcpi/transport"
)

// Options configures a [Client].
type Options struct {
	Logger *slog.Logger
	// Capabilities replaces the default declaration (roots, sampling, form and URL
	// elicitation).
	Capabilities *mcp.ClientCapabilities
	// Roots are served to the server's roots/list.
	Roots []mcp.Root
	// ProtocolVersion is the version asked for; empty means [mcp.LatestProtocolVersion].
	ProtocolVersion string
	// OnRequest, when set, is called on its own goroutine for every server request queued
	// for the user; it may answer it. Front ends that prefer events can leave it nil.
	OnRequest func(ctx context.Context, r *Request)
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Receiver, when set, lets the server run sampling and elicitation as tasks on this
	// client (receiver tasks), and declares so.
	Receiver *ReceiverOptions

	// PollFloor is the shortest interval between two tasks/get of one task (100ms); it
	// only ever lengthens the server's pollInterval, never shortens it.
	PollFloor time.Duration
	// PollCeiling caps the backoff used when the server suggests no interval (5s).
	PollCeiling time.Duration
	// NotifiedPollInterval is how often a task is still polled once the server has shown
	// it sends status notifications (10s).
	NotifiedPollInterval time.Duration
	// KeptTasks is how many ended tasks [Session.Tasks] keeps (1,000); older ones are
	// forgotten, so that a long session does not grow with every task it ran. A task in
	// progress is always kept.
	KeptTasks int
}

// Client holds configuration shared by the sessions it opens.
type Client struct {
	impl mcp.Implementation
	opts Options
}

// New returns a client that introduces itself as impl.
func New(impl mcp.Implementation, opts *Options) *Client {
	c := &Client{impl: impl}
	if opts != nil {
		c.opts = *opts
	}
	if c.opts.Logger == nil {
		c.opts.Logger = slog.New(slog.DiscardHandler)
	}
	if c.opts.Now == nil {
		c.opts.Now = time.Now
	}
	if c.opts.PollFloor <= 0 {
		c.opts.PollFloor = 100 * time.Millisecond
	}
	if c.opts.PollCeiling <= 0 {
		c.opts.PollCeiling = 5 * time.Second
	}
	if c.opts.NotifiedPollInterval <= 0 {
		c.opts.NotifiedPollInterval = 10 * time.Second
	}
	if c.opts.KeptTasks <= 0 {
		c.opts.KeptTasks = 1000
	}
	return c
}

func (c *Client) capabilities() *mcp.ClientCapabilities {
	if c.opts.Capabilities != nil {
		return c.opts.Capabilities
	}
	caps := &mcp.ClientCapabilities{
		Roots:       &mcp.RootsCapability{ListChanged: true},
		Sampling:    &mcp.SamplingCapability{},
		Elicitation: &mcp.ElicitationCapability{Form: &struct{}{}, URL: &struct{}{}},
		// Declared so that servers which only offer tasks to task-aware clients offer
		// them; what this client hosts as a receiver is added by the receiver options.
		Tasks: &mcp.ClientTasksCapability{},
	}
	if c.opts.Receiver != nil {
		caps.Tasks = c.receiverCapability()
	}
	return caps
}

// Session is one connection to a server.
type Session struct {
	client *Client
	conn   *jsonrpc.Conn
	events hub
	log    *slog.Logger
	now    func() time.Time

	initResult *mcp.InitializeResult
	nextToken  atomic.Int64

	mu      sync.Mutex
	roots   []mcp.Root
	pending pendingQueue
	tools   map[string]*mcp.Tool
	tasks   taskRegistry
	recv    *tasks.Manager // receiver tasks; nil when off
	polled  receiverRequests
	ended   chan struct{} // closed once everything bound to the session is freed
}

// Connect opens a connection with t and performs the initialize handshake.
func (c *Client) Connect(ctx context.Context, t transport.Transport) (*Session, error) {
	conn, err := t.Connect(ctx)
	if err != nil {
		return nil, err
	}
	s := &Session{
		client: c,
		log:    c.opts.Logger,
		now:    c.opts.Now,
		roots:  c.opts.Roots,
		tools:  map[string]*mcp.Tool{},
		ended:  make(chan struct{}),
	}
	s.tasks.init()
	s.recv = s.newReceiver()
	s.conn = jsonrpc.NewConn(conn, jsonrpc.Options{
		Handler: jsonrpc.HandlerFunc(s.handle),
		Logger:  c.opts.Logger,
		Tap: func(dir jsonrpc.Direction, m jsonrpc.Message) {
			if s.events.active() { // the raw traffic view, when someone shows it
				s.events.publish(&MessageEvent{At: At{s.now()}, Dir: dir, Message: m})
			}
		},
	})
	go func() {
		<-s.conn.Done()
		if s.recv != nil {
			s.recv.Close() // receiver tasks are bound to this session
		}
		s.events.close(&ClosedEvent{At: At{s.now()}, Err: s.conn.Err()})
		close(s.ended)
	}()
	version := c.opts.ProtocolVersion
	if version == "" {
		version = mcp.LatestProtocolVersion
	}
	var res mcp.InitializeResult
	err = s.conn.Call(ctx, mcp.MethodInitialize, &mcp.InitializeParams{
		ProtocolVersion: version,
		Capabilities:    *c.capabilities(),
		ClientInfo:      c.impl,
	}, &res)
	if err != nil {
		s.conn.Close()
		return nil, fmt.Errorf("initialize: %w", err)
	}
	if !mcp.IsSupportedProtocolVersion(res.ProtocolVersion) {
		s.conn.Close()
		return nil, fmt.Errorf("initialize: the server chose protocol version %q, which mcpi does not speak", res.ProtocolVersion)
	}
	s.initResult = &res
	if err := s.conn.Notify(ctx, mcp.NotificationInitialized, nil); err != nil {
		s.conn.Close()
		return nil, fmt.Errorf("initialize: %w", err)
	}
	return s, nil
}

// InitializeResult is what the server said about itself.
func (s *Session) InitializeResult() *mcp.InitializeResult { return s.initResult }

// ServerCapabilities is the server's declaration (never nil).
func (s *Session) ServerCapabilities() *mcp.ServerCapabilities { return &s.initResult.Capabilities }

// Subscribe returns a subscription to the session's events from now on.
func (s *Session) Subscribe() *Subscription { return s.events.subscribe() }

// Done is closed when the session has ended and what was bound to it is freed; Err then
// says why.
func (s *Session) Done() <-chan struct{} { return s.ended }

// Err is why the session ended, or nil while it is open.
func (s *Session) Err() error { return s.conn.Err() }

// Close ends the session and waits until what was bound to it is freed.
func (s *Session) Close() error {
	err := s.conn.Close()
	<-s.ended
	return err
}

// Ping checks that the server answers.
func (s *Session) Ping(ctx context.Context) error {
	return s.conn.Call(ctx, mcp.MethodPing, nil, nil)
}

// NewProgressToken returns a token unique within the session, to put in a request's
// _meta so that [ProgressEvent]s can be matched to it.
func (s *Session) NewProgressToken() string {
	return fmt.Sprintf("mcpi-%d", s.nextToken.Add(1))
}

// call is send with the method name in the error.
func (s *Session) call(ctx context.Context, method string, params, result any) error {
	if err := s.send(ctx, method, params, result); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}

// send is conn.Call. Tool calls and task requests are written by their params' own
// MarshalJSON, which the connection calls directly.
func (s *Session) send(ctx context.Context, method string, params, result any) error {
	return s.conn.Call(ctx, method, params, result)
}

// ListTools returns one page of tools.
func (s *Session) ListTools(ctx context.Context, cursor string) (*mcp.ListToolsResult, error) {
	var r mcp.ListToolsResult
	if err := s.call(ctx, mcp.MethodToolsList, &mcp.PaginatedParams{Cursor: cursor}, &r); err != nil {
		return nil, err
	}
	s.mu.Lock()
	for i := range r.Tools {
		s.tools[r.Tools[i].Name] = &r.Tools[i]
	}
	s.mu.Unlock()
	return &r, nil
}

// Tools ranges over every tool, fetching pages as needed.
func (s *Session) Tools(ctx context.Context) iter.Seq2[mcp.Tool, error] {
	return paginate(ctx, func(ctx context.Context, cursor string) ([]mcp.Tool, string, error) {
		r, err := s.ListTools(ctx, cursor)
		if err != nil {
			return nil, "", err
		}
		return r.Tools, r.NextCursor, nil
	})
}

// Tool returns a tool by name from the last listing, listing the tools if it is unknown.
func (s *Session) Tool(ctx context.Context, name string) (*mcp.Tool, error) {
	s.mu.Lock()
	t, ok := s.tools[name]
	s.mu.Unlock()
	if ok {
		return t, nil
	}
	for t, err := range s.Tools(ctx) {
		if err != nil {
			return nil, err
		}
		if t.Name == name {
			return &t, nil
		}
	}
	return nil, &UnknownToolError{Name: name}
}

// UnknownToolError says the server has no tool of that name.
type UnknownToolError struct{ Name string }

func (e *UnknownToolError) Error() string {
	return fmt.Sprintf("the server has no tool named %q", e.Name)
}

// CallTool calls a tool and waits for its result. A tool whose taskSupport is required
// is refused locally; use [Session.CallToolTask], or [Session.CallToolWith] with
// SendAnyway.
func (s *Session) CallTool(ctx context.Context, p *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	return s.CallToolWith(ctx, p, nil)
}

// CallToolWith is [Session.CallTool] with options.
func (s *Session) CallToolWith(ctx context.Context, p *mcp.CallToolParams, opts *CallOptions) (*mcp.CallToolResult, error) {
	if opts == nil {
		opts = &CallOptions{}
	}
	if !opts.SendAnyway {
		if err := s.checkTaskSupport(ctx, p.Name, false); err != nil {
			return nil, err
		}
	}
	if opts.Progress {
		if _, ok := p.Meta.ProgressToken(); !ok {
			cp := *p
			cp.Meta = p.Meta.Clone()
			cp.Meta.SetProgressToken(s.NewProgressToken())
			p = &cp
		}
	}
	var r mcp.CallToolResult
	if err := s.call(ctx, mcp.MethodToolsCall, p, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// ListPrompts returns one page of prompts.
func (s *Session) ListPrompts(ctx context.Context, cursor string) (*mcp.ListPromptsResult, error) {
	var r mcp.ListPromptsResult
	if err := s.call(ctx, mcp.MethodPromptsList, &mcp.PaginatedParams{Cursor: cursor}, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// Prompts ranges over every prompt.
func (s *Session) Prompts(ctx context.Context) iter.Seq2[mcp.Prompt, error] {
	return paginate(ctx, func(ctx context.Context, cursor string) ([]mcp.Prompt, string, error) {
		r, err := s.ListPrompts(ctx, cursor)
		if err != nil {
			return nil, "", err
		}
		return r.Prompts, r.NextCursor, nil
	})
}

// GetPrompt renders a prompt.
func (s *Session) GetPrompt(ctx context.Context, p *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
	var r mcp.GetPromptResult
	if err := s.call(ctx, mcp.MethodPromptsGet, p, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// ListResources returns one page of resources.
func (s *Session) ListResources(ctx context.Context, cursor string) (*mcp.ListResourcesResult, error) {
	var r mcp.ListResourcesResult
	if err := s.call(ctx, mcp.MethodResourcesList, &mcp.PaginatedParams{Cursor: cursor}, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// Resources ranges over every resource.
func (s *Session) Resources(ctx context.Context) iter.Seq2[mcp.Resource, error] {
	return paginate(ctx, func(ctx context.Context, cursor string) ([]mcp.Resource, string, error) {
		r, err := s.ListResources(ctx, cursor)
		if err != nil {
			return nil, "", err
		}
		return r.Resources, r.NextCursor, nil
	})
}

// ListResourceTemplates returns one page of resource templates.
func (s *Session) ListResourceTemplates(ctx context.Context, cursor string) (*mcp.ListResourceTemplatesResult, error) {
	var r mcp.ListResourceTemplatesResult
	if err := s.call(ctx, mcp.MethodResourcesTemplatesList, &mcp.PaginatedParams{Cursor: cursor}, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// ResourceTemplates ranges over every resource template.
func (s *Session) ResourceTemplates(ctx context.Context) iter.Seq2[mcp.ResourceTemplate, error] {
	return paginate(ctx, func(ctx context.Context, cursor string) ([]mcp.ResourceTemplate, string, error) {
		r, err := s.ListResourceTemplates(ctx, cursor)
		if err != nil {
			return nil, "", err
		}
		return r.ResourceTemplates, r.NextCursor, nil
	})
}

// ReadResource reads a resource.
func (s *Session) ReadResource(ctx context.Context, uri string) (*mcp.ReadResourceResult, error) {
	var r mcp.ReadResourceResult
	if err := s.call(ctx, mcp.MethodResourcesRead, &mcp.ReadResourceParams{URI: uri}, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// Subscribe asks for [ResourceUpdatedEvent]s about uri.
func (s *Session) SubscribeResource(ctx context.Context, uri string) error {
	return s.call(ctx, mcp.MethodResourcesSubscribe, &mcp.SubscribeParams{URI: uri}, nil)
}

// UnsubscribeResource undoes [Session.SubscribeResource].
func (s *Session) UnsubscribeResource(ctx context.Context, uri string) error {
	return s.call(ctx, mcp.MethodResourcesUnsubscribe, &mcp.SubscribeParams{URI: uri}, nil)
}

// SetLogLevel chooses which server log messages arrive.
func (s *Session) SetLogLevel(ctx context.Context, level mcp.LoggingLevel) error {
	return s.call(ctx, mcp.MethodLoggingSetLevel, &mcp.SetLevelParams{Level: level}, nil)
}

// Complete asks for argument completions.
func (s *Session) Complete(ctx context.Context, p *mcp.CompleteParams) (*mcp.CompleteResult, error) {
	var r mcp.CompleteResult
	if err := s.call(ctx, mcp.MethodCompletionComplete, p, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// SetRoots replaces the roots and tells the server they changed.
func (s *Session) SetRoots(ctx context.Context, roots []mcp.Root) error {
	s.mu.Lock()
	s.roots = roots
	s.mu.Unlock()
	return s.conn.Notify(ctx, mcp.NotificationRootsListChanged, nil)
}

// paginate turns a page fetcher into an iterator over all items. An error ends it.
func paginate[T any](ctx context.Context, fetch func(context.Context, string) ([]T, string, error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		cursor := ""
		seen := map[string]bool{}
		for {
			items, next, err := fetch(ctx, cursor)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, it := range items {
				if !yield(it, nil) {
					return
				}
			}
			if next == "" {
				return
			}
			if seen[next] {
				var zero T
				yield(zero, fmt.Errorf("the server returned cursor %q twice; stopping to avoid a loop", next))
				return
			}
			seen[next] = true
			cursor = next
		}
	}
}

func (s *Session) handle(ctx context.Context, req *jsonrpc.Request) (any, error) {
	now := s.now()
	switch req.Method {
	case mcp.MethodPing:
		return struct{}{}, nil
	case mcp.MethodRootsList:
		s.mu.Lock()
		roots := s.roots
		s.mu.Unlock()
		if roots == nil {
			roots = []mcp.Root{}
		}
		return &mcp.ListRootsResult{Roots: roots}, nil
	case mcp.MethodSamplingCreateMessage, mcp.MethodElicitationCreate:
		return s.queue(ctx, req)
	case mcp.MethodTasksGet, mcp.MethodTasksResult, mcp.MethodTasksList, mcp.MethodTasksCancel:
		return s.handleReceiverTasks(ctx, req)
	case mcp.NotificationMessage:
		var p mcp.LoggingMessageNotificationParams
		if json.Unmarshal(req.Params, &p) == nil {
			s.events.publish(&LogEvent{At: At{now}, Params: p})
		}
	case mcp.NotificationProgress:
		var p mcp.ProgressNotificationParams
		if json.Unmarshal(req.Params, &p) == nil {
			s.events.publish(&ProgressEvent{At: At{now}, Params: p})
			if t := s.tasks.forToken(p.ProgressToken); t != nil {
				t.emit(TaskEvent{Kind: TaskProgress, Progress: &p})
			}
		}
	case mcp.NotificationTasksStatus:
		var p mcp.TaskStatusNotificationParams
		if p.UnmarshalJSON(req.Params) == nil && p.TaskID != "" {
			s.statusNotification(p.Task)
		}
	case mcp.NotificationToolsListChanged:
		s.mu.Lock()
		clear(s.tools)
		s.mu.Unlock()
		s.events.publish(&ListChangedEvent{At: At{now}, Method: req.Method})
	case mcp.NotificationPromptsListChanged, mcp.NotificationResourcesListChanged:
		s.events.publish(&ListChangedEvent{At: At{now}, Method: req.Method})
	case mcp.NotificationResourcesUpdated:
		var p mcp.ResourceUpdatedNotificationParams
		if json.Unmarshal(req.Params, &p) == nil {
			s.events.publish(&ResourceUpdatedEvent{At: At{now}, URI: p.URI})
		}
	default:
		if req.IsNotification() {
			return nil, nil
		}
		return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "method not found: %s", req.Method)
	}
	return nil, nil
}

// errNoAnswer is the cause of a request withdrawn because the session ended.
var errNoAnswer = errors.New("the request was withdrawn before it was answered")
