package server

import (
	"context"
	"encoding/json"
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

// listener is one open subscriptions/listen.
type listener struct {
	s      *Session
	id     jsonrpc.ID
	filter mcp.ListenFilter
	sendMu sync.Mutex // orders the messages of this listen: the acknowledgement first
	// For a stream of tasks alone: the tasks it has not told the end of yet, and
	// ended, closed once there are none (guarded by sendMu).
	open  map[string]struct{}
	ended chan struct{}
	// done is set (under sendMu) when listen returns: nothing is sent after the final
	// result.
	done bool
}

// tasksOnly reports whether f asks for nothing but the notifications of tasks. A
// stream asked for tasks whose acknowledged filter is so ends once they have ended; one
// that asked for no task at all stays open, however little the server honours of it.
func tasksOnly(f mcp.ListenFilter) bool {
	return !f.ToolsListChanged && !f.PromptsListChanged && !f.ResourcesListChanged && len(f.ResourceSubscriptions) == 0
}

// sentTaskLocked notes that the stream has told task id's state st; l.sendMu is held.
func (l *listener) sentTaskLocked(id string, st mcp.TaskStatus) {
	if st.IsTerminal() {
		l.doneLocked(id)
	}
}

// forget notes that the stream will tell nothing more of task id: it was deleted.
func (l *listener) forget(id string) {
	l.sendMu.Lock()
	l.doneLocked(id)
	l.sendMu.Unlock()
}

// doneLocked takes task id off the tasks the stream waits on, ending the stream after
// the last; l.sendMu is held.
func (l *listener) doneLocked(id string) {
	if l.open == nil {
		return
	}
	delete(l.open, id)
	if len(l.open) == 0 {
		l.endLocked()
	}
}

// endLocked has the stream end with its final result; l.sendMu is held.
func (l *listener) endLocked() {
	if l.open != nil {
		l.open = nil
		close(l.ended)
	}
}

func (l *listener) wants(method, uri string) bool {
	switch method {
	case mcp.NotificationToolsListChanged:
		return l.filter.ToolsListChanged
	case mcp.NotificationPromptsListChanged:
		return l.filter.PromptsListChanged
	case mcp.NotificationResourcesListChanged:
		return l.filter.ResourcesListChanged
	case mcp.NotificationResourcesUpdated:
		return slices.Contains(l.filter.ResourceSubscriptions, uri)
	}
	return false
}

func (l *listener) notify(method string, params map[string]any) {
	if params == nil {
		params = map[string]any{}
	}
	params["_meta"] = map[string]any{mcp.MetaSubscriptionID: l.id.Raw()}
	ctx, cancel := listenSendContext(l.id)
	defer cancel()
	l.sendMu.Lock()
	defer l.sendMu.Unlock()
	if l.done {
		return
	}
	_ = l.s.conn.Notify(ctx, method, params)
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
		ack.ResourceSubscriptions = p.Notifications.ResourceSubscriptions
	}
	if len(p.Notifications.TaskIDs) > 0 {
		// notifications/tasks belong to the Tasks extension.
		if s.server.tasks == nil || !extensionDeclared(ctx) {
			return nil, errExtensionRequired
		}
		for _, id := range p.Notifications.TaskIDs {
			if s.server.tasks.IsExtension(id) && !slices.Contains(ack.TaskIDs, id) {
				ack.TaskIDs = append(ack.TaskIDs, id)
			}
		}
	}
	l := &listener{s: s, id: req.ID, filter: ack}
	if len(p.Notifications.TaskIDs) > 0 && tasksOnly(ack) {
		l.open, l.ended = make(map[string]struct{}, len(ack.TaskIDs)), make(chan struct{})
		for _, id := range ack.TaskIDs {
			l.open[id] = struct{}{}
		}
	}
	// Registered before the acknowledgement, so that nothing is missed between the two,
	// but told nothing before it: the acknowledgement goes out under sendMu.
	l.sendMu.Lock()
	s.server.mu.Lock()
	s.server.listeners[l] = struct{}{}
	s.server.mu.Unlock()
	defer func() {
		s.server.mu.Lock()
		delete(s.server.listeners, l)
		s.server.mu.Unlock()
		// A sender that took l before it was deleted sends nothing now: what was sent
		// is written, and the final result comes after it.
		l.sendMu.Lock()
		l.done = true
		l.sendMu.Unlock()
	}()
	ackParams := &mcp.ListenAcknowledgedParams{Notifications: ack, Meta: mcp.Meta{mcp.MetaSubscriptionID: req.ID.Raw()}}
	err := s.conn.Notify(jsonrpc.WithRelatedRequest(ctx, req.ID), mcp.NotificationSubscriptionsAcknowledged, ackParams)
	l.sendMu.Unlock()
	if err != nil {
		return nil, err
	}
	// Then each task as it is now: a change made between its creation and this listen
	// would otherwise go unseen until the client polls.
	for _, id := range ack.TaskIDs {
		// In the engine's order of announcements: a change announced meanwhile is sent
		// before or after this, never overtaken by an older state. (Holding l.sendMu
		// while reading the engine could deadlock with a change being announced.)
		if !s.server.tasks.WithDetail(id, func(d mcp.DetailedTask) {
			l.sendMu.Lock()
			s.server.sendExtTask(l, d)
			l.sendMu.Unlock()
		}) {
			l.forget(id) // deleted since the acknowledgement: nothing will come of it
		}
	}
	l.sendMu.Lock()
	if len(l.open) == 0 {
		l.endLocked() // a stream of tasks that have all ended, or of none the server knows
	}
	l.sendMu.Unlock()
	// The final result, if the server ends the stream (complete, as handleModern would
	// make it): like every message of the stream it names the subscription.
	id, _ := req.ID.MarshalJSON()
	final := json.RawMessage(`{"resultType":"complete","_meta":{"` + mcp.MetaSubscriptionID + `":` + string(id) + `}}`)
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-s.conn.Done():
		return nil, jsonrpc.NewError(jsonrpc.CodeConnectionClosed, "connection closed")
	case <-l.ended: // nil unless the stream is of tasks alone
		return final, nil
	case <-s.server.closing:
		return final, nil
	}
}

// notifyListeners sends method to every open listen whose filter asks for it.
func (s *Server) notifyListeners(method, uri string) {
	s.mu.RLock()
	var targets []*listener
	for l := range s.listeners {
		if l.wants(method, uri) {
			targets = append(targets, l)
		}
	}
	s.mu.RUnlock()
	for _, l := range targets {
		var params map[string]any
		if uri != "" {
			params = map[string]any{"uri": uri}
		}
		l.notify(method, params)
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
// in order, with the state it took under its own lock.
func (s *Server) notifyExtTask(d mcp.DetailedTask) {
	for _, l := range s.taskListeners(d.TaskID) {
		l.sendMu.Lock()
		s.sendExtTask(l, d)
		l.sendMu.Unlock()
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

// taskListeners returns the open listens that asked for task id.
func (s *Server) taskListeners(id string) []*listener {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var targets []*listener
	for l := range s.listeners {
		if slices.Contains(l.filter.TaskIDs, id) {
			targets = append(targets, l)
		}
	}
	return targets
}

// sendExtTask sends l the task as tasks/get would give it; l.sendMu is held.
func (s *Server) sendExtTask(l *listener, d mcp.DetailedTask) {
	if l.done {
		return
	}
	params := &mcp.TasksNotificationParams{DetailedTask: d, Meta: mcp.Meta{mcp.MetaSubscriptionID: l.id.Raw()}}
	ctx, cancel := listenSendContext(l.id)
	defer cancel()
	_ = l.s.conn.Notify(ctx, mcp.NotificationTasks, params)
	l.sentTaskLocked(d.TaskID, d.Status)
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
