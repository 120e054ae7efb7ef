package server

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/mcpi-dev/mcpi/internal/jsonwire"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// subscriptions/listen (2026-07-28): the request stays open; its first message is
// notifications/subscriptions/acknowledged with the part of the filter the server
// honours, then come the notifications the filter asked for (notifications/tasks too, for
// the taskIds of the Tasks extension), each tagged with the
// listen request's id in _meta["io.modelcontextprotocol/subscriptionId"]. Over
// Streamable HTTP that is a long-lived SSE response; on stdio the notifications are
// interleaved with everything else. The stream ends when the client cancels it (closes
// the HTTP response, or sends notifications/cancelled on stdio), the connection ends, or
// the server ends it: then with its final result, {"resultType": "complete"} with the
// subscription's id in _meta. The server ends a stream when it closes, and a stream of
// tasks alone once all of them have ended (terminal states never change, so nothing more
// could come on it): the client has nothing to withdraw, and over Streamable HTTP its
// connection stays open for the next request.

// listener is one open subscriptions/listen. Its messages are written by the listen's
// own handler, and by no one else: the senders (the task engine, announcing a change
// under its lock; AddTool and the like) only queue them. So a client that stops reading
// its stream holds up its own stream alone, never the engine and through it every other
// client's tasks, and the stream's order (the acknowledgement first, nothing after the
// final result) is the order of one goroutine's writes.
type listener struct {
	s      *Session
	id     jsonrpc.ID
	filter mcp.ListenFilter

	mu sync.Mutex // guards what follows; never held while writing
	// queue is what is to be written, oldest first. A client that reads keeps it
	// short, and gets every message. Past listenCoalesce messages (a client that reads
	// slower than the server tells, or not at all) a newer message replaces the queued
	// one of its key, the older left as a hole, so that the queue holds at most one per
	// key (a task, a list, a resource) beyond them: the newest state of each. queued
	// finds an entry by its key, while the queue is that long.
	queue  []*outgoing
	queued map[string]*outgoing
	holes  int
	wake   chan struct{} // something was queued, or the stream ended
	// For a stream of tasks alone: the tasks whose end has not been written yet, and
	// whether there are none left (the stream then ends once its queue is written).
	open  map[string]struct{}
	ended bool
	// done is set when the handler stops writing: nothing more is queued.
	done bool
}

// outgoing is a notification queued for a listen stream.
type outgoing struct {
	key    string
	method string
	params map[string]any    // a list changed, a resource updated
	task   *mcp.DetailedTask // notifications/tasks
}

// tasksOnly reports whether f asks for nothing but the notifications of tasks. A
// stream asked for tasks whose acknowledged filter is so ends once they have ended; one
// that asked for no task at all stays open, however little the server honours of it.
func tasksOnly(f mcp.ListenFilter) bool {
	return !f.ToolsListChanged && !f.PromptsListChanged && !f.ResourcesListChanged && len(f.ResourceSubscriptions) == 0
}

// listenCoalesce is how many messages a listen stream queues before a newer one
// replaces the queued one of its key.
const listenCoalesce = 64

// enqueue queues m and wakes the handler.
func (l *listener) enqueue(m *outgoing) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done {
		return
	}
	if l.queued == nil && len(l.queue)-l.holes >= listenCoalesce {
		l.queued = make(map[string]*outgoing, len(l.queue))
		for _, o := range l.queue {
			if o.key != "" {
				l.replaceLocked(o)
			}
		}
	}
	if l.queued != nil {
		l.replaceLocked(m)
	}
	l.queue = append(l.queue, m)
	if l.holes > len(l.queue)/2 {
		l.queue = slices.DeleteFunc(l.queue, func(o *outgoing) bool { return o.key == "" })
		l.holes = 0
	}
	l.wakeLocked()
}

// replaceLocked makes m the queued message of its key, the one it replaces a hole (the
// newer goes last, where it happened); l.mu is held.
func (l *listener) replaceLocked(m *outgoing) {
	if old := l.queued[m.key]; old != nil {
		old.key = ""
		l.holes++
	}
	l.queued[m.key] = m
}

func (l *listener) wakeLocked() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// next takes the oldest queued message, nil if there is none.
func (l *listener) next() *outgoing {
	l.mu.Lock()
	defer l.mu.Unlock()
	for len(l.queue) > 0 {
		m := l.queue[0]
		l.queue[0] = nil
		l.queue = l.queue[1:]
		if m.key == "" {
			l.holes--
			continue
		}
		if l.queued != nil {
			delete(l.queued, m.key)
		}
		return m
	}
	// Caught up: every message again, and none of a backlog's memory kept.
	l.queue, l.queued, l.holes = nil, nil, 0
	return nil
}

// forget notes that the stream will tell nothing more of task id: it was deleted.
func (l *listener) forget(id string) {
	l.mu.Lock()
	l.doneLocked(id)
	l.mu.Unlock()
}

// doneLocked takes task id off the tasks the stream waits on, ending the stream after
// the last; l.mu is held.
func (l *listener) doneLocked(id string) {
	if l.open == nil {
		return
	}
	delete(l.open, id)
	if len(l.open) == 0 {
		l.endLocked()
	}
}

// endLocked has the stream end, with its final result, once its queue is written; l.mu
// is held.
func (l *listener) endLocked() {
	if l.open != nil {
		l.open = nil
		l.ended = true
		l.wakeLocked()
	}
}

// wants reports whether the stream asked for a list's changes (method); resource updates
// are found by their URI (Server.resourceListens).
func (l *listener) wants(method string) bool {
	switch method {
	case mcp.NotificationToolsListChanged:
		return l.filter.ToolsListChanged
	case mcp.NotificationPromptsListChanged:
		return l.filter.PromptsListChanged
	case mcp.NotificationResourcesListChanged:
		return l.filter.ResourcesListChanged
	}
	return false
}

// write sends m on the stream; only the listen's handler calls it.
func (l *listener) write(m *outgoing) error {
	ctx, cancel := listenSendContext(l.id)
	defer cancel()
	meta := mcp.Meta{mcp.MetaSubscriptionID: l.id.Raw()}
	if m.task != nil {
		err := l.s.conn.Notify(ctx, mcp.NotificationTasks, &mcp.TasksNotificationParams{DetailedTask: *m.task, Meta: meta})
		if m.task.Status.IsTerminal() {
			l.forget(m.task.TaskID)
		}
		return err
	}
	params := m.params
	if params == nil {
		params = map[string]any{}
	}
	params["_meta"] = meta
	return l.s.conn.Notify(ctx, m.method, params)
}

// drain writes what is queued, in order. It reports whether the stream is to end now:
// it has told the end of all its tasks, or a write failed (err).
func (l *listener) drain() (end bool, err error) {
	for {
		m := l.next()
		if m == nil {
			break
		}
		if err := l.write(m); err != nil {
			return true, err
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ended && len(l.queue) == 0, nil
}

func (s *Session) listen(ctx context.Context, req *jsonrpc.Request) (any, error) {
	if filter, err := jsonwire.Member(req.Params, `"notifications"`); err != nil || len(filter) == 0 || filter[0] != '{' {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "subscriptions/listen needs params.notifications, an object saying what to send")
	}
	var p mcp.ListenParams
	if err := decodeParams(req, &p); err != nil {
		return nil, err
	}
	caps := s.server.modernCapabilities()
	var ack mcp.ListenFilter
	if caps.Tools != nil && caps.Tools.ListChanged {
		ack.ToolsListChanged = p.Notifications.ToolsListChanged
	}
	if caps.Prompts != nil && caps.Prompts.ListChanged {
		ack.PromptsListChanged = p.Notifications.PromptsListChanged
	}
	if caps.Resources != nil && caps.Resources.ListChanged {
		ack.ResourcesListChanged = p.Notifications.ResourcesListChanged
	}
	if caps.Resources != nil && caps.Resources.Subscribe {
		ack.ResourceSubscriptions = distinct(p.Notifications.ResourceSubscriptions)
	}
	if len(p.Notifications.TaskIDs) > 0 {
		// notifications/tasks belong to the Tasks extension.
		if s.server.tasks == nil || !extensionDeclared(ctx) {
			return nil, errExtensionRequired
		}
		owner, _ := s.modernOwner()
		for _, id := range distinct(p.Notifications.TaskIDs) {
			if s.server.tasks.ExtensionFor(owner, id) {
				ack.TaskIDs = append(ack.TaskIDs, id)
			}
		}
	}
	l := &listener{s: s, id: req.ID, filter: ack, wake: make(chan struct{}, 1)}
	if len(p.Notifications.TaskIDs) > 0 && tasksOnly(ack) {
		l.open = make(map[string]struct{}, len(ack.TaskIDs))
		for _, id := range ack.TaskIDs {
			l.open[id] = struct{}{}
		}
	}
	// Registered before the acknowledgement, so that nothing is missed between the two;
	// what comes meanwhile waits in the queue, which is written after it.
	s.server.mu.Lock()
	s.server.listeners[l] = struct{}{}
	index(s.server.taskListens, ack.TaskIDs, l)
	index(s.server.resourceListens, ack.ResourceSubscriptions, l)
	s.server.mu.Unlock()
	defer func() {
		s.server.mu.Lock()
		delete(s.server.listeners, l)
		unindex(s.server.taskListens, ack.TaskIDs, l)
		unindex(s.server.resourceListens, ack.ResourceSubscriptions, l)
		s.server.mu.Unlock()
		l.mu.Lock()
		l.done = true
		l.queue, l.queued = nil, nil
		l.mu.Unlock()
	}()
	ackParams := &mcp.ListenAcknowledgedParams{Notifications: ack, Meta: mcp.Meta{mcp.MetaSubscriptionID: req.ID.Raw()}}
	if err := s.conn.Notify(jsonrpc.WithRelatedRequest(ctx, req.ID), mcp.NotificationSubscriptionsAcknowledged, ackParams); err != nil {
		return nil, err
	}
	// Then each task as it is now: a change made between its creation and this listen
	// would otherwise go unseen until the client polls. Queued in the engine's order of
	// announcements: a change announced meanwhile is queued before or after this, never
	// overtaken by an older state.
	for _, id := range ack.TaskIDs {
		if !s.server.tasks.WithDetail(id, func(d mcp.DetailedTask) {
			l.enqueue(&outgoing{key: "task " + id, task: &d})
		}) {
			l.forget(id) // deleted since the acknowledgement: nothing will come of it
		}
	}
	l.mu.Lock()
	if len(l.open) == 0 {
		l.endLocked() // a stream of tasks that have all ended, or of none the server knows
	}
	l.mu.Unlock()
	// The final result, if the server ends the stream (complete, as handleModern would
	// make it): like every message of the stream it names the subscription.
	id, _ := req.ID.MarshalJSON()
	final := json.RawMessage(`{"resultType":"complete","_meta":{"` + mcp.MetaSubscriptionID + `":` + string(id) + `}}`)
	for {
		switch end, err := l.drain(); {
		case err != nil:
			// A client that does not read its stream (or has gone) loses it.
			return nil, fmt.Errorf("%s: writing the stream: %w", mcp.MethodSubscriptionsListen, err)
		case end:
			return final, nil
		}
		select {
		case <-l.wake:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-s.conn.Done():
			return nil, jsonrpc.NewError(jsonrpc.CodeConnectionClosed, "connection closed")
		case <-s.server.closing:
			return final, nil
		}
	}
}

// notifyListeners sends method to every open listen whose filter asks for it.
func (s *Server) notifyListeners(method, uri string) {
	s.mu.RLock()
	var targets []*listener
	if method == mcp.NotificationResourcesUpdated {
		targets = slices.Clone(s.resourceListens[uri])
	} else {
		for l := range s.listeners {
			if l.wants(method) {
				targets = append(targets, l)
			}
		}
	}
	s.mu.RUnlock()
	for _, l := range targets {
		m := &outgoing{key: method, method: method}
		if uri != "" {
			m.key += " " + uri
			m.params = map[string]any{"uri": uri}
		}
		l.enqueue(m)
	}
}

// Listeners counts the subscriptions/listen streams open now.
func (s *Server) Listeners() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.listeners)
}

// notifyExtTask sends notifications/tasks, the task as tasks/get would give it now, to
// every listen that asked for the task. The engine calls it (OnDetail) at every change,
// in order, with the state it took under its own lock: it only queues.
func (s *Server) notifyExtTask(d mcp.DetailedTask) {
	for _, l := range s.taskListeners(d.TaskID) {
		l.enqueue(&outgoing{key: "task " + d.TaskID, task: &d})
	}
}

// extTaskDeleted ends the part of each listen that a task deleted before it ended
// (expired) had in it: no notification of it will come, so a stream of tasks alone
// whose others have ended ends now too, instead of staying open until the client
// withdraws it. The engine calls it (OnDeleted) in order with its announcements.
func (s *Server) extTaskDeleted(id string) {
	for _, l := range s.taskListeners(id) {
		l.forget(id)
	}
}

// index adds l to the listens of each key (a task id, a resource URI) in m; the server's
// mu is held. keys are distinct.
func index(m map[string][]*listener, keys []string, l *listener) {
	for _, k := range keys {
		m[k] = append(m[k], l)
	}
}

// unindex takes l off the listens of each key in m; the server's mu is held.
func unindex(m map[string][]*listener, keys []string, l *listener) {
	for _, k := range keys {
		if left := slices.DeleteFunc(m[k], func(o *listener) bool { return o == l }); len(left) > 0 {
			m[k] = left
		} else {
			delete(m, k)
		}
	}
}

// distinct returns keys without repeats, in their order.
func distinct(keys []string) []string {
	seen := make(map[string]struct{}, len(keys))
	return slices.DeleteFunc(slices.Clone(keys), func(k string) bool {
		_, dup := seen[k]
		seen[k] = struct{}{}
		return dup
	})
}

// taskListeners returns the open listens that asked for task id.
func (s *Server) taskListeners(id string) []*listener {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return slices.Clone(s.taskListens[id])
}

// listenDrainTimeout bounds how long [Server.Close] waits for the final results of the
// open listens to be written.
const listenDrainTimeout = time.Second

// listenSendTimeout bounds one notification to a listen stream: the senders (AddTool, the
// task engine's change hook) must not wait long on a client that stopped reading.
const listenSendTimeout = 5 * time.Second

func listenSendContext(id jsonrpc.ID) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(context.Background(), listenSendTimeout)
	return jsonrpc.WithRelatedRequest(ctx, id), cancel
}
