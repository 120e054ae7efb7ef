package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/cut"
	"github.com/mcpi-dev/mcpi/internal/look"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// Limits on what one connection keeps for the page.
const (
	// logKept is how many JSON-RPC messages a snapshot carries per connection; the page
	// keeps what it saw live besides.
	logKept = 2000
	// tasksKept bounds the task rows of one connection: the oldest ended ones go first.
	tasksKept = 20000
	// maxLogMessage bounds a message the Log keeps and streams whole: a server may send
	// messages of megabytes, and the Log keeps thousands.
	maxLogMessage = 16 << 10
)

// maxRowResult bounds the result a task row keeps: a connection keeps thousands of rows.
const maxRowResult = 64 << 10

// maxRowText bounds each text from the server that a row keeps or an event carries (a
// status message, a progress message, an error's message and data), for the same reason.
const maxRowText = 4 << 10

// boundResult is a task's result as its row keeps it: whole, or, when too large, a note
// of its size.
func boundResult(b []byte, err error) json.RawMessage {
	if err != nil {
		return nil
	}
	if len(b) > maxRowResult {
		note, _ := json.Marshal(map[string]string{"mcpi/truncated": fmt.Sprintf("%d bytes: too large for the Tasks view, which keeps results of up to %d", len(b), maxRowResult)})
		return note
	}
	return b
}

// truncatedMessage stands for a message too large for the Log: its method and id, and
// its size.
func truncatedMessage(m jsonrpc.Message, size int) json.RawMessage {
	short := map[string]any{"jsonrpc": "2.0", "mcpi/truncated": fmt.Sprintf("%d bytes: too large for the Log, which keeps messages of up to %d", size, maxLogMessage)}
	switch m := m.(type) {
	case *jsonrpc.Request:
		short["method"] = m.Method
		if !m.IsNotification() {
			short["id"] = m.ID
		}
	case *jsonrpc.Response:
		short["id"] = m.ID
	}
	b, _ := json.Marshal(short)
	return b
}

// conn is one server the page is connected to (one tab).
type conn struct {
	s      *Server
	id     string
	target Target

	mu      sync.Mutex
	sess    *client.Session
	info    connInfo
	gen     int // bumped at each (re)connection; rows of older ones stay, marked
	tasks   map[string]*taskRow
	order   []string // task keys, oldest first
	evictAt int      // the rows past which the next eviction runs (evict)
	reqs    map[string]*pendingRequest
	calls   map[string]*plainCall // by callKey
	log     []logRow              // a ring of the last logKept messages
	logNext int
	// tools is the server's tools, listed at each connection so that the page paints
	// them without a round trip; nil until listed.
	tools []mcp.Tool
	stop  context.CancelFunc
	// logLevel is the server log level the page chose ("" until it chose:
	// defaultLogLevel), asked of the server at each connection.
	logLevel mcp.LoggingLevel
	// dialCancel ends the context of the latest dial: the dial, if it is still in
	// progress, and what the session tied to it (a transport's process or stream). gone
	// is set once the page removed the connection: a dial that ends after it opens
	// nothing and tells no page.
	dialCancel context.CancelFunc
	gone       bool
}

// defaultLogLevel is the server log level a connection asks for until the page picks
// another: in 2026-07-28 a request that names none gets no log at all.
const defaultLogLevel = mcp.LoggingLevelInfo

// connInfo is what the page shows of a connection in its header and Connect view. It
// holds no Target: the page has no use for the URL or the headers given, whose values
// may be credentials ("Authorization=Bearer ...").
type connInfo struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Transport string `json:"transport"`
	// State is "connecting", "authorizing" (waiting for the user to log in),
	// "connected", "closed" or "failed"; Error says why, for the last two.
	State string `json:"state"`
	Error string `json:"error,omitempty"`
	// AuthURL is the authorization URL of the login the connection waits for: while
	// authorizing, or while connected (a token to renew, more scope to ask for).
	AuthURL string `json:"authURL,omitempty"`
	// What the server said of itself.
	Protocol     string                  `json:"protocol,omitempty"`
	Era          string                  `json:"era,omitempty"`
	Dialect      string                  `json:"dialect,omitempty"`
	Server       *mcp.Implementation     `json:"server,omitempty"`
	Capabilities *mcp.ServerCapabilities `json:"capabilities,omitempty"`
	Instructions string                  `json:"instructions,omitempty"`
	// LogLevel is the server log level asked for, when the server has a log.
	LogLevel mcp.LoggingLevel `json:"logLevel,omitempty"`
	// NoCancel says why the server's tasks are not offered a cancel (a server of
	// 2025-11-25 that declares no tasks.cancel is sent no tasks/cancel); empty when they
	// are.
	NoCancel string `json:"noCancel,omitempty"`
	// Unreachable says why a connected HTTP server does not answer (the latest request
	// found nothing listening); empty while it answers. The session goes on if the same
	// server process answers again (a server that restarted knows it no more: the page
	// offers to reconnect).
	Unreachable string `json:"unreachable,omitempty"`
}

// taskRow is one task as the Tasks view shows it, sent whole at every change.
type taskRow struct {
	Key string `json:"key"`
	ID  string `json:"id"`
	// Role is "requestor" (→, asked of the server) or "receiver" (←, asked by it).
	Role string `json:"role"`
	// Dialect is the protocol version whose tasks it follows.
	Dialect       string                          `json:"dialect"`
	Name          string                          `json:"name"`
	Status        mcp.TaskStatus                  `json:"status,omitempty"`
	StatusMessage string                          `json:"statusMessage,omitempty"`
	Progress      *mcp.ProgressNotificationParams `json:"progress,omitempty"`
	Polls         int                             `json:"polls"`
	CreatedAt     string                          `json:"createdAt,omitempty"`
	TTL           *int64                          `json:"ttl,omitempty"`
	PollInterval  *int64                          `json:"pollInterval,omitempty"`
	Started       time.Time                       `json:"started"`
	Ended         *time.Time                      `json:"ended,omitempty"`
	Result        json.RawMessage                 `json:"result,omitempty"`
	Error         *errorInfo                      `json:"error,omitempty"`
	Gone          bool                            `json:"gone,omitempty"`
	// Request is the id of the server request the task waits on, while one is pending.
	Request string `json:"request,omitempty"`
	// Stale is set for the rows of a connection that has since been replaced.
	Stale bool `json:"stale,omitempty"`
	// At is when mcpi saw the change (Unix ms), so the page can tell how long it took
	// to draw it.
	At int64 `json:"at"`

	task *client.Task
}

// errorInfo is an error as the page shows it: a sentence, and the JSON-RPC error when
// there is one.
type errorInfo struct {
	Message string          `json:"message"`
	Code    int64           `json:"code,omitempty"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func errorOf(err error) *errorInfo {
	if err == nil {
		return nil
	}
	e := &errorInfo{Message: cut.Bytes(look.Sentence(err), maxRowText)}
	var rpc *jsonrpc.Error
	if errors.As(err, &rpc) {
		e.Code = rpc.Code
		if len(rpc.Data) <= maxRowText {
			e.Data = rpc.Data
		}
	}
	return e
}

// pendingRequest is a server request the page may answer.
type pendingRequest struct {
	req *client.Request
	row requestRow
}

// requestRow is a server request as the Requests view shows it.
type requestRow struct {
	ID     string          `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	// Channel says how it came: "request", "task" (a receiver task), "side channel"
	// (input of a task of ours, 2025-11-25), "input" (input_required, 2026-07-28).
	Channel     string    `json:"channel"`
	Task        string    `json:"task,omitempty"`
	RelatedTask string    `json:"relatedTask,omitempty"`
	InputKey    string    `json:"inputKey,omitempty"`
	Received    time.Time `json:"received"`
	// Settled is set once it is answered or withdrawn, with how.
	Settled bool   `json:"settled,omitempty"`
	Outcome string `json:"outcome,omitempty"`
}

// logRow is one JSON-RPC message.
type logRow struct {
	Seq     int             `json:"seq"`
	Time    time.Time       `json:"time"`
	Dir     string          `json:"dir"` // "in" (from the server), "out", or "gap" (events left out: {"dropped": n})
	Message json.RawMessage `json:"message"`
}

// connSnapshot is a connection in the snapshot.
type connSnapshot struct {
	Info     connInfo     `json:"info"`
	Tools    []mcp.Tool   `json:"tools,omitempty"`
	Tasks    []*taskRow   `json:"tasks"`
	Requests []requestRow `json:"requests"`
	Log      []logRow     `json:"log"`
}

type snapshot struct {
	Conns   []connSnapshot `json:"conns"`
	TaskTTL int64          `json:"taskTTL"`
}

func (s *Server) snapshot() snapshot {
	s.mu.Lock()
	cs := make([]*conn, 0, len(s.order))
	for _, id := range s.order {
		cs = append(cs, s.conns[id])
	}
	s.mu.Unlock()
	out := snapshot{Conns: make([]connSnapshot, 0, len(cs)), TaskTTL: s.opts.TaskTTL.Milliseconds()}
	for _, c := range cs {
		out.Conns = append(out.Conns, c.snapshot())
	}
	return out
}

func (c *conn) snapshot() connSnapshot {
	c.mu.Lock()
	defer c.mu.Unlock()
	snap := connSnapshot{Info: c.info, Tools: c.tools, Tasks: make([]*taskRow, 0, len(c.order)), Requests: []requestRow{}}
	for _, k := range c.order {
		r := *c.tasks[k]
		snap.Tasks = append(snap.Tasks, &r)
	}
	for _, p := range c.reqs {
		snap.Requests = append(snap.Requests, p.row)
	}
	if len(c.log) < logKept {
		snap.Log = append([]logRow(nil), c.log...)
	} else {
		snap.Log = append(append([]logRow(nil), c.log[c.logNext:]...), c.log[:c.logNext]...)
	}
	return snap
}

// Open connects to t in a new tab and returns its id; the connection's state (and why
// it failed) reaches the page as events.
func (s *Server) Open(ctx context.Context, t Target) (string, error) {
	s.mu.Lock()
	if s.done {
		s.mu.Unlock()
		return "", errClosed
	}
	s.next++
	c := &conn{s: s, id: "c" + strconv.Itoa(s.next), target: t, tasks: map[string]*taskRow{}, reqs: map[string]*pendingRequest{}, calls: map[string]*plainCall{}}
	c.info = connInfo{ID: c.id, State: "connecting", Name: describeTarget(t)}
	s.conns[c.id] = c
	s.order = append(s.order, c.id)
	s.mu.Unlock()
	c.publishInfo()
	return c.id, c.dial(ctx)
}

// describeTarget names t until its dialer names it: a URL with its password and the
// values of its query as xxxxx, as the CLI names it, since a server's key is often passed
// there and the name is shown in the tab, its tooltip and the header.
func describeTarget(t Target) string {
	switch {
	case t.Stdio != "":
		return t.Stdio
	case t.URL != "":
		return look.RedactURL(t.URL)
	case t.Config != "":
		return t.Server + " (" + t.Config + ")"
	}
	return "the embedded demo server"
}

// clientOptions are those of a web session: every capability, receiver tasks on, no
// OnRequest (the page answers server requests), every message reported for the Log, and
// the server's log asked for at level (the one the page shows) from the start.
func clientOptions(level mcp.LoggingLevel) *client.Options {
	return &client.Options{
		Capabilities: client.AllCapabilities(),
		Receiver:     &client.ReceiverOptions{},
		LogLevel:     level,
	}
}

// dial opens (or reopens) the connection's session and starts following its events.
func (c *conn) dial(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	c.mu.Lock()
	prev := c.dialCancel
	c.dialCancel = cancel
	if c.logLevel == "" {
		c.logLevel = defaultLogLevel
	}
	level := c.logLevel
	c.mu.Unlock()
	sess, d, err := c.s.opts.Dial(ctx, c.target, clientOptions(level), c.login)
	c.mu.Lock()
	if c.gone {
		c.mu.Unlock()
		cancel()
		if sess != nil {
			sess.Close()
		}
		return errGone
	}
	if prev != nil {
		defer prev() // the session before, which this dial replaces or which had failed
	}
	if err != nil {
		c.info.State, c.info.Error, c.info.AuthURL = "failed", look.Sentence(err), ""
		c.mu.Unlock()
		c.publishInfo()
		return err
	}
	if c.stop != nil {
		c.stop()
	}
	old := c.sess
	c.sess = sess
	c.gen++
	for _, r := range c.tasks {
		if !r.Stale {
			r.Stale = true
			c.publishTask(r) // the pages mark it too, not only those that open later
		}
	}
	init := sess.InitializeResult()
	c.info = connInfo{
		ID: c.id, Name: d.Name, Transport: d.Transport, State: "connected",
		Protocol: sess.ProtocolVersion(), Era: look.Era(sess.Modern()), Dialect: dialect(sess),
		Server: &init.ServerInfo, Capabilities: &init.Capabilities, Instructions: init.Instructions,
	}
	if init.Capabilities.Logging != nil {
		c.info.LogLevel = level
	}
	if !sess.CancelsTasks() {
		c.info.NoCancel = look.Sentence(client.ErrNoTaskCancel)
	}
	sub := sess.Subscribe()
	fctx, stop := context.WithCancel(context.Background())
	c.stop = stop
	gen := c.gen
	c.mu.Unlock()
	if old != nil {
		go old.Close()
	}
	// The start of the session came before its events were subscribed to: in the Log
	// before Open returns, and before what the follower brings.
	for _, e := range sess.Handshake() {
		c.message(e)
	}
	go c.listTools(fctx, sess, gen)
	c.publishInfo()
	go c.follow(fctx, sess, sub, gen)
	if sess.Modern() {
		// Over 2026-07-28 list changes come only through a listen.
		go func() {
			_ = sess.Listen(fctx, mcp.ListenFilter{ToolsListChanged: true, PromptsListChanged: true, ResourcesListChanged: true})
		}()
	}
	return nil
}

// dialect names the tasks a session follows.
func dialect(sess *client.Session) string {
	if sess.Modern() {
		return mcp.ProtocolVersion20260728
	}
	return mcp.LatestProtocolVersion
}

// login shows the authorization URL of a login on the tab until ctx ends (the login
// succeeded, failed or timed out); a tab still dialing is "authorizing" meanwhile.
func (c *conn) login(ctx context.Context, authURL string) {
	c.mu.Lock()
	c.info.AuthURL = authURL
	if c.info.State != "connected" {
		c.info.State, c.info.Error = "authorizing", ""
	}
	c.mu.Unlock()
	c.publishInfo()
	context.AfterFunc(ctx, func() {
		c.mu.Lock()
		changed := c.info.AuthURL == authURL
		if changed {
			c.info.AuthURL = ""
			if c.info.State == "authorizing" {
				c.info.State = "connecting"
			}
		}
		c.mu.Unlock()
		if changed {
			c.publishInfo()
		}
	})
}

func (c *conn) close() {
	c.mu.Lock()
	sess, stop := c.sess, c.stop
	c.sess, c.stop = nil, nil
	if c.dialCancel != nil {
		c.dialCancel() // a connection closed while it connects connects no more
		c.dialCancel = nil
	}
	if c.info.State != "failed" {
		c.info.State = "closed"
	}
	c.mu.Unlock()
	if stop != nil {
		stop()
	}
	if sess != nil {
		sess.Close()
	}
	c.publishInfo()
}

// listTools lists the server's tools for the page, at each connection and after the
// server says they changed.
func (c *conn) listTools(ctx context.Context, sess *client.Session, gen int) {
	tools := []mcp.Tool{}
	for t, err := range sess.Tools(ctx, nil) {
		if err != nil {
			return // the page lists them itself, and shows why it cannot
		}
		tools = append(tools, t)
	}
	c.mu.Lock()
	if c.gen != gen {
		c.mu.Unlock()
		return
	}
	c.tools = tools
	c.mu.Unlock()
	c.s.hub.publish(event{Type: evTools, Conn: c.id, Data: tools})
}

func (c *conn) publishInfo() {
	c.mu.Lock()
	info, gone := c.info, c.gone
	c.mu.Unlock()
	if !gone {
		c.s.hub.publish(event{Type: evConn, Conn: c.id, Data: info})
	}
}

// errGone is the error of a dial whose connection the page removed meanwhile.
var errGone = errors.New("the connection was removed while it connected")

// session returns the open session, or an error that says there is none.
func (c *conn) session() (*client.Session, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sess == nil {
		return nil, fmt.Errorf("%s is not connected: reconnect first", c.info.Name)
	}
	return c.sess, nil
}

// follow turns the session's events into the page's, until the session ends.
func (c *conn) follow(ctx context.Context, sess *client.Session, sub *client.Subscription, gen int) {
	defer sub.Close()
	// The tools are listed again after a change, one listing at a time: changes told
	// while one runs make one more, not one each (a server may tell thousands at once).
	relist := make(chan struct{}, 1)
	lctx, endLists := context.WithCancel(ctx)
	defer endLists()
	go func() {
		for {
			select {
			case <-lctx.Done():
				return
			case <-relist:
				c.listTools(lctx, sess, gen)
			}
		}
	}()
	for e := range sub.All(ctx) {
		switch e := e.(type) {
		case *client.MessageEvent:
			c.message(e)
		case *client.TaskEvent:
			if e.Task != nil {
				c.taskEvent(e, gen)
			}
		case *client.RequestEvent:
			c.requestEvent(e, gen)
		case *client.ReachabilityEvent:
			c.reachability(e, gen)
		case *client.ReceiverPollEvent:
			c.receiverPoll(e, gen)
		case *client.ReceiverCancelEvent:
			c.receiverCancel(e, gen)
		case *client.ReceiverResultEvent:
			c.receiverResult(e, gen)
		case *client.ListChangedEvent:
			if e.Method == mcp.NotificationToolsListChanged {
				c.mu.Lock()
				c.tools = nil
				c.mu.Unlock()
				select {
				case relist <- struct{}{}:
				default:
				}
			}
			c.s.hub.publish(event{Type: evList, Conn: c.id, Data: map[string]string{"method": e.Method}})
		case *client.ProgressEvent:
			c.progress(sess, &e.Params)
		case *client.ResourceUpdatedEvent:
			c.s.hub.publish(event{Type: evResource, Conn: c.id, Data: map[string]string{"uri": e.URI}})
		case *client.DroppedEvent:
			c.resync(sess, e, gen)
		case *client.ClosedEvent:
			c.mu.Lock()
			if c.gen == gen && c.sess == sess {
				c.info.State = "closed"
				if e.Err != nil {
					c.info.State, c.info.Error = "failed", look.Sentence(e.Err)
				}
				c.sess = nil
			}
			c.mu.Unlock()
			c.publishInfo()
			return
		}
	}
}

func (c *conn) message(e *client.MessageEvent) {
	b, err := jsonrpc.EncodeMessage(e.Message)
	if err != nil {
		return
	}
	if len(b) > maxLogMessage {
		b = truncatedMessage(e.Message, len(b))
	}
	dir := "out"
	if e.Dir == jsonrpc.Inbound {
		dir = "in"
	}
	c.logRow(logRow{Time: e.Time, Dir: dir, Message: b})
}

// resync follows a gap in the session's events (the follower fell behind a server
// sending faster than it could take): the log shows where and how many, and the tasks
// and requests are read again from the session.
func (c *conn) resync(sess *client.Session, e *client.DroppedEvent, gen int) {
	b, _ := json.Marshal(map[string]int{"dropped": e.Count})
	c.logRow(logRow{Time: e.Time, Dir: "gap", Message: b})
	now := c.s.opts.Now()
	for _, t := range sess.Tasks() {
		select {
		case <-t.Done():
			continue // its outcome is never left out
		default:
		}
		c.taskEvent(&client.TaskEvent{At: client.At{Time: now}, Kind: client.TaskStatus, Task: t, State: t.State()}, gen)
	}
	for _, st := range sess.ReceiverTasks() {
		c.mu.Lock()
		if r := c.tasks[receiverKey(gen, st.TaskID)]; r != nil {
			r.setState(st)
			r.Polls = sess.ReceiverPolls(st.TaskID)
			if st.Status.IsTerminal() && r.Ended == nil {
				r.end(now)
			}
			c.publishTask(r)
		}
		c.mu.Unlock()
	}
	pending := sess.PendingRequests()
	ids := make(map[string]bool, len(pending))
	for _, r := range pending {
		ids[requestID(r)] = true
	}
	c.mu.Lock()
	var settled, unseen []*client.Request
	for id, p := range c.reqs {
		if !ids[id] {
			settled = append(settled, p.req)
		}
	}
	for _, r := range pending {
		if c.reqs[requestID(r)] == nil {
			unseen = append(unseen, r)
		}
	}
	c.mu.Unlock()
	for _, r := range settled {
		c.requestEvent(&client.RequestEvent{At: client.At{Time: now}, Request: r, Settled: true}, gen)
	}
	for _, r := range unseen {
		c.requestEvent(&client.RequestEvent{At: client.At{Time: now}, Request: r}, gen)
	}
}

// reachability shows on the page whether the server of connection generation gen
// answers.
func (c *conn) reachability(e *client.ReachabilityEvent, gen int) {
	c.mu.Lock()
	if gen != c.gen {
		c.mu.Unlock()
		return
	}
	c.info.Unreachable = look.Why(e.Err)
	c.mu.Unlock()
	c.publishInfo()
}

// logRow adds row to the connection's log and sends it to the pages.
func (c *conn) logRow(row logRow) {
	c.mu.Lock()
	if len(c.log) < logKept {
		row.Seq = len(c.log)
		c.log = append(c.log, row)
	} else {
		row.Seq = c.log[(c.logNext+logKept-1)%logKept].Seq + 1
		c.log[c.logNext] = row
		c.logNext = (c.logNext + 1) % logKept
	}
	c.mu.Unlock()
	c.s.hub.publish(event{Type: evMessage, Conn: c.id, Data: row})
}

// publishTask sends a copy of the row; c.mu is held.
func (c *conn) publishTask(r *taskRow) {
	r.At = c.s.opts.Now().UnixMilli()
	cp := *r
	c.s.hub.publish(event{Type: evTask, Conn: c.id, Data: &cp})
}

func (c *conn) addRow(r *taskRow) {
	c.tasks[r.Key] = r
	c.order = append(c.order, r.Key)
	if len(c.order) > max(tasksKept, c.evictAt) {
		c.evict()
	}
}

// evict drops the oldest ended rows until the rows fit in 7/8 of tasksKept. A pass
// goes through every row: it makes room for an eighth more, not for one (a server's
// burst of tasks past the bound made each new row pay for all of them), and rows of
// tasks still running, which are never dropped, make the next pass wait as long.
func (c *conn) evict() {
	defer func() { c.evictAt = len(c.order) + tasksKept/8 }()
	keep := c.order[:0]
	drop := len(c.order) - tasksKept*7/8
	for _, k := range c.order {
		if drop > 0 && c.tasks[k].Ended != nil {
			delete(c.tasks, k)
			drop--
			continue
		}
		keep = append(keep, k)
	}
	c.order = keep
}

func (c *conn) requestorRow(t *client.Task, gen int) *taskRow {
	k := fmt.Sprintf("req:%p", t)
	if r := c.tasks[k]; r != nil {
		return r
	}
	d := mcp.LatestProtocolVersion
	if t.Dialect() == client.DialectExtension {
		d = mcp.ProtocolVersion20260728
	}
	r := &taskRow{Key: k, Role: "requestor", Dialect: d, Name: t.Tool, Started: t.Started, task: t}
	c.addRow(r)
	return r
}

func (r *taskRow) setState(st mcp.Task) {
	r.ID, r.Status, r.StatusMessage = st.TaskID, st.Status, cut.Bytes(st.StatusMessage, maxRowText)
	r.CreatedAt, r.TTL, r.PollInterval = st.CreatedAt, st.TTL, st.PollInterval
}

func (c *conn) taskEvent(e *client.TaskEvent, gen int) {
	if e.State.TaskID == "" && e.Task.ID() == "" {
		// A call with no task yet (progress that overtook its CreateTaskResult) or none
		// at all (answered at once, refused, withdrawn) has no row: the call shows it.
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.requestorRow(e.Task, gen)
	r.setState(e.State)
	r.Polls = e.Task.Polls()
	switch e.Kind {
	case client.TaskProgress:
		if p := e.Progress; p != nil {
			q := *p
			q.Message = cut.Bytes(q.Message, maxRowText)
			r.Progress = &q
		}
	case client.TaskResult:
		r.Result = boundResult(json.Marshal(e.Result))
		r.end(e.Time)
	case client.TaskError:
		r.Error = errorOf(e.Err)
		r.end(e.Time)
	case client.TaskGone:
		r.Gone, r.Error = true, errorOf(e.Err)
		r.end(e.Time)
	}
	c.publishTask(r)
}

func (r *taskRow) end(at time.Time) {
	if r.Ended == nil {
		r.Ended = &at
	}
	r.Request = ""
}

// receiverKey is the row key of receiver task id of connection generation gen.
func receiverKey(gen int, id string) string { return fmt.Sprintf("recv:%d:%s", gen, id) }

func (c *conn) receiverRow(id string, gen int) *taskRow {
	k := receiverKey(gen, id)
	if r := c.tasks[k]; r != nil {
		return r
	}
	r := &taskRow{Key: k, ID: id, Role: "receiver", Dialect: mcp.LatestProtocolVersion, Name: "(server task)", Started: c.s.opts.Now()}
	c.addRow(r)
	return r
}

// receiverCancel shows a receiver task the server cancelled as it now is.
func (c *conn) receiverCancel(e *client.ReceiverCancelEvent, gen int) {
	c.receiverState(e.Task, e.Time, gen, func(*taskRow) {})
}

func (c *conn) receiverPoll(e *client.ReceiverPollEvent, gen int) {
	c.receiverState(e.Task, e.Time, gen, func(r *taskRow) {
		r.Polls = e.Polls
		if e.Request != nil {
			r.Name = e.Request.Method
		}
	})
}

// receiverState shows receiver task st, of connection generation gen, as the client
// reported it at at; more changes the row further.
func (c *conn) receiverState(st mcp.Task, at time.Time, gen int, more func(*taskRow)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.receiverRow(st.TaskID, gen)
	r.setState(st)
	more(r)
	if st.Status.IsTerminal() && r.Ended == nil {
		r.end(at)
	}
	c.publishTask(r)
}

func (c *conn) receiverResult(e *client.ReceiverResultEvent, gen int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.receiverRow(e.Task, gen)
	if e.Err != nil {
		r.Error = errorOf(e.Err)
	} else {
		r.Result = boundResult(e.Result, nil)
	}
	r.end(e.Time)
	c.publishTask(r)
}

// requestID names a server request for the page; the session's own id is not unique
// (2026-07-28 input has none).
func requestID(r *client.Request) string { return fmt.Sprintf("r%p", r) }

func (c *conn) requestEvent(e *client.RequestEvent, gen int) {
	req := e.Request
	id := requestID(req)
	c.mu.Lock()
	p := c.reqs[id]
	if p == nil && !e.Settled {
		params := any(req.Elicitation)
		if req.Sampling != nil {
			params = req.Sampling
		}
		raw, _ := json.Marshal(params)
		row := requestRow{ID: id, Method: req.Method, Params: raw, Channel: "request", Task: req.Task,
			RelatedTask: req.RelatedTask, InputKey: req.InputKey, Received: req.Received}
		switch {
		case req.Task != "":
			row.Channel = "task"
		case req.InputKey != "":
			row.Channel = "input"
		case req.RelatedTask != "":
			row.Channel = "side channel"
		}
		p = &pendingRequest{req: req, row: row}
		c.reqs[id] = p
	}
	if p == nil {
		c.mu.Unlock()
		return
	}
	if e.Settled {
		delete(c.reqs, id)
		p.row.Settled, p.row.Outcome = true, outcomeOf(req)
	}
	row := p.row
	// The task the request belongs to shows that it waits on it (a request of no task,
	// most of them, walks no rows).
	var rows map[string]*taskRow
	if req.Task != "" || req.RelatedTask != "" {
		rows = c.tasks
	}
	for _, r := range rows {
		if r.Stale {
			continue
		}
		waits := (req.Task != "" && r.Role == "receiver" && r.ID == req.Task) ||
			(req.RelatedTask != "" && r.Role == "requestor" && r.ID == req.RelatedTask)
		if !waits {
			continue
		}
		if req.Task != "" && r.Role == "receiver" {
			r.Name = req.Method // the task the request made, not the tool task it belongs to
		}
		if e.Settled {
			if r.Request == id {
				r.Request = ""
			}
		} else {
			r.Request = id
		}
		c.publishTask(r)
	}
	if req.Task != "" && !e.Settled && c.tasks[receiverKey(gen, req.Task)] == nil {
		r := c.receiverRow(req.Task, gen)
		r.Name, r.Request, r.Status = req.Method, id, mcp.TaskStatusWorking
		c.publishTask(r)
	}
	c.mu.Unlock()
	c.s.hub.publish(event{Type: evRequest, Conn: c.id, Data: row})
}

// outcomeOf says how a settled request ended, for the page.
func outcomeOf(r *client.Request) string {
	res, err := r.Answer()
	switch {
	case r.Withdrawn():
		return "withdrawn"
	case err != nil:
		return "refused"
	}
	if er, ok := res.(*mcp.ElicitResult); ok {
		return er.Action
	}
	return "answered"
}
