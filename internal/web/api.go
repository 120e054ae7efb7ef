package web

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/look"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// maxCommand bounds the body of one command from the page.
const maxCommand = 4 << 20

// commandTimeout bounds one command; a call that runs longer belongs in a task.
const commandTimeout = 10 * time.Minute

// api serves /api/: the event stream, and the page's commands. Every command is a POST
// with a JSON body (GET for the event stream and the lists), and answers JSON: the result,
// or {"error": {...}} with a 4xx or 5xx status.
func (s *Server) api(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimPrefix(r.URL.Path, "/api/")
	if path == "events" && r.Method == http.MethodGet {
		s.serveEvents(w, r)
		return
	}
	if r.Method != http.MethodPost {
		writeError(w, http.StatusMethodNotAllowed, errors.New("commands are POSTs"))
		return
	}
	// A form post from another site cannot carry JSON: the content type is checked.
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		writeError(w, http.StatusUnsupportedMediaType, errors.New("commands are JSON (Content-Type: application/json)"))
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxCommand+1))
	if err != nil {
		writeError(w, http.StatusBadRequest, err)
		return
	}
	if len(body) > maxCommand {
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Errorf("a command is at most %d bytes", maxCommand))
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), commandTimeout)
	defer cancel()
	res, status, err := s.command(ctx, path, body)
	if err != nil {
		writeError(w, cmp.Or(status, http.StatusBadGateway), err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, err error) {
	writeJSON(w, status, map[string]any{"error": errorOf(err)})
}

// badRequest marks an error of the page's command itself (status 400).
type badRequest struct{ error }

func bad(format string, args ...any) error { return badRequest{fmt.Errorf(format, args...)} }

// command runs one command. path is "connect", or "CONN/VERB".
func (s *Server) command(ctx context.Context, path string, body []byte) (any, int, error) {
	decode := func(v any) error {
		if err := json.Unmarshal(body, v); err != nil {
			return bad("the command's body is not valid: %v", err)
		}
		return nil
	}
	if path == "connect" {
		var t Target
		if err := decode(&t); err != nil {
			return nil, http.StatusBadRequest, err
		}
		if err := t.check(); err != nil {
			return nil, http.StatusBadRequest, err
		}
		id, err := s.Open(ctx, t)
		if err != nil {
			return nil, http.StatusBadGateway, err
		}
		return map[string]string{"conn": id}, 0, nil
	}
	cid, verb, ok := strings.Cut(path, "/")
	s.mu.Lock()
	c := s.conns[cid]
	s.mu.Unlock()
	if !ok || c == nil {
		return nil, http.StatusNotFound, bad("no connection %q", look.Safe(cid))
	}
	res, err := c.command(ctx, verb, decode)
	var br badRequest
	switch {
	case errors.As(err, &br):
		return nil, http.StatusBadRequest, err
	case err != nil:
		return nil, http.StatusBadGateway, err
	}
	return res, 0, nil
}

// command runs one command on the connection.
func (c *conn) command(ctx context.Context, verb string, decode func(any) error) (any, error) {
	switch verb {
	case "close":
		c.close()
		return struct{}{}, nil
	case "reconnect":
		return struct{}{}, c.dial(ctx)
	case "forget":
		c.mu.Lock()
		c.gone = true
		c.mu.Unlock()
		c.close()
		c.s.forget(c.id)
		return struct{}{}, nil
	case "answer":
		return c.answer(decode)
	}
	sess, err := c.session()
	if err != nil {
		return nil, err
	}
	switch verb {
	case "tools":
		return collect(sess.Tools(ctx, nil))
	case "call":
		return c.call(ctx, sess, decode)
	case "stop":
		var p struct{ Call string }
		if err := decode(&p); err != nil {
			return nil, err
		}
		return struct{}{}, c.stopCall(p.Call)
	case "cancel":
		var p struct{ Key string }
		if err := decode(&p); err != nil {
			return nil, err
		}
		return c.cancel(ctx, p.Key)
	case "resources":
		return collect(sess.Resources(ctx, nil))
	case "templates":
		return collect(sess.ResourceTemplates(ctx, nil))
	case "read":
		var p mcp.ReadResourceParams
		if err := decode(&p); err != nil {
			return nil, err
		}
		return sess.ReadResource(ctx, &p)
	case "subscribe", "unsubscribe":
		var p struct{ URI string }
		if err := decode(&p); err != nil {
			return nil, err
		}
		if verb == "subscribe" {
			return struct{}{}, sess.SubscribeResource(ctx, p.URI)
		}
		return struct{}{}, sess.UnsubscribeResource(ctx, p.URI)
	case "prompts":
		return collect(sess.Prompts(ctx, nil))
	case "prompt":
		var p mcp.GetPromptParams
		if err := decode(&p); err != nil {
			return nil, err
		}
		return sess.GetPrompt(ctx, &p)
	case "complete":
		var p mcp.CompleteParams
		if err := decode(&p); err != nil {
			return nil, err
		}
		return sess.Complete(ctx, &p)
	case "loglevel":
		var p struct{ Level mcp.LoggingLevel }
		if err := decode(&p); err != nil {
			return nil, err
		}
		if p.Level.Severity() < 0 {
			return nil, bad("no log level %q", look.Safe(string(p.Level)))
		}
		if err := sess.SetLogLevel(ctx, p.Level); err != nil {
			return nil, err
		}
		c.mu.Lock()
		c.logLevel = p.Level
		if c.info.LogLevel != "" {
			c.info.LogLevel = p.Level
		}
		c.mu.Unlock()
		c.publishInfo()
		return struct{}{}, nil
	case "servertasks":
		return c.serverTasks(ctx, sess)
	}
	return nil, bad("no command %q", look.Safe(verb))
}

func collect[T any](seq func(func(T, error) bool)) (any, error) {
	items := []T{}
	for it, err := range seq {
		if err != nil {
			return nil, err
		}
		items = append(items, it)
	}
	return map[string]any{"items": items}, nil
}

func (s *Server) forget(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.conns, id)
	for i, x := range s.order {
		if x == id {
			s.order = append(s.order[:i], s.order[i+1:]...)
			break
		}
	}
	s.hub.publish(event{Type: evConn, Conn: id, Data: connInfo{ID: id, State: "forgotten"}})
}

// callParams is the page's call command.
type callParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Task asks for a task (2025-11-25) with TTL ms; in 2026-07-28 every call lets the
	// server decide.
	Task bool  `json:"task,omitempty"`
	TTL  int64 `json:"ttl,omitempty"`
	// Call names the call for its progress events and a stop command, while it runs
	// plainly; optional.
	Call string `json:"call,omitempty"`
}

// callResult is the answer to a call: the result, or the task the call became (its
// row follows through the event stream).
type callResult struct {
	Result *mcp.CallToolResult `json:"result,omitempty"`
	Task   string              `json:"task,omitempty"`
}

func (c *conn) call(ctx context.Context, sess *client.Session, decode func(any) error) (any, error) {
	var p callParams
	if err := decode(&p); err != nil {
		return nil, err
	}
	if p.Name == "" {
		return nil, bad("call needs the tool's name")
	}
	if p.TTL < 0 {
		return nil, bad("the task's ttl must be positive, not %d ms (leave it out to let the server choose)", p.TTL)
	}
	// The one check of arguments the CLI and the terminal UI make too, so that a call
	// the server would refuse (from the raw-JSON mode, say) is not sent.
	if tool, err := sess.Tool(ctx, p.Name); err == nil {
		if err := client.ValidateArguments(tool, p.Arguments); err != nil {
			return nil, badRequest{err}
		}
	}
	params := &mcp.CallToolParams{Name: p.Name, Arguments: p.Arguments}
	token := sess.NewProgressToken()
	params.Meta.SetProgressToken(token)
	ctx, end, err := c.startCall(ctx, sess, p.Call, token)
	if err != nil {
		return nil, err
	}
	if !p.Task && !sess.Modern() {
		res, err := sess.CallTool(ctx, params, nil)
		if err = end(err); err != nil {
			return nil, err
		}
		return callResult{Result: res}, nil
	}
	opts := &client.CallOptions{Progress: true}
	if p.TTL > 0 {
		opts.TTL = time.Duration(p.TTL) * time.Millisecond
	}
	// Until the server has answered or made a task: from then on the task has its row,
	// its progress and its own cancel.
	t, err := sess.StartToolTask(ctx, params, opts)
	if err = end(err); err != nil {
		return nil, err
	}
	if t.ID() == "" {
		// The server answered at once, without a task.
		res, err := t.Outcome()
		if err != nil {
			return nil, err
		}
		return callResult{Result: res}, nil
	}
	// The row is made here, not left to the follower's goroutine: the key returned names
	// it, and a cancel sent at once must find it.
	c.mu.Lock()
	r := c.requestorRow(t, c.gen)
	r.setState(t.State())
	c.publishTask(r)
	c.mu.Unlock()
	return callResult{Task: r.Key}, nil
}

func (c *conn) cancel(ctx context.Context, key string) (any, error) {
	c.mu.Lock()
	r := c.tasks[key]
	var t *client.Task
	if r != nil {
		t = r.task
	}
	c.mu.Unlock()
	if r == nil {
		return nil, bad("no task %q", look.Safe(key))
	}
	if t == nil {
		return nil, bad("the task %s is the server's request of mcpi: answer or decline its request instead", look.Safe(r.ID))
	}
	st, err := t.Cancel(ctx)
	if errors.Is(err, client.ErrNoTaskCancel) {
		return nil, badRequest{err} // nothing went to the server
	}
	if err != nil {
		return nil, err
	}
	return st, nil
}

// answerParams is the page's answer to a server request. Action is "accept" (Content),
// "decline", "cancel", "respond" (Result, a sampling reply) or "reject" (Message).
type answerParams struct {
	ID      string          `json:"id"`
	Action  string          `json:"action"`
	Content map[string]any  `json:"content,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Message string          `json:"message,omitempty"`
}

func (c *conn) answer(decode func(any) error) (any, error) {
	var p answerParams
	if err := decode(&p); err != nil {
		return nil, err
	}
	c.mu.Lock()
	pr := c.reqs[p.ID]
	c.mu.Unlock()
	if pr == nil {
		return nil, bad("the request %s was answered or withdrawn already", look.Safe(p.ID))
	}
	req := pr.req
	var err error
	switch p.Action {
	case "accept":
		if req.Elicitation == nil {
			return nil, bad("only an elicitation is accepted; a sampling request is answered with respond")
		}
		err = req.Accept(p.Content)
	case "decline":
		if req.Elicitation == nil {
			err = req.Refuse("the user declined the sampling request")
		} else {
			err = req.Decline()
		}
	case "cancel":
		if req.Elicitation == nil {
			err = req.Refuse("the user dismissed the sampling request")
		} else {
			err = req.Dismiss()
		}
	case "respond":
		if req.Sampling == nil {
			return nil, bad("respond answers a sampling request")
		}
		var res mcp.CreateMessageResult
		if e := json.Unmarshal(p.Result, &res); e != nil {
			return nil, bad("the sampling reply is not a CreateMessageResult: %v", e)
		}
		err = req.Respond(&res)
	case "reject":
		err = req.Reject(jsonrpc.NewError(client.CodeUserRejected, cmp.Or(p.Message, "rejected by the user")))
	default:
		return nil, bad("unknown action %q: accept, decline, cancel, respond or reject", look.Safe(p.Action))
	}
	if errors.Is(err, client.ErrInvalidAnswer) {
		return nil, badRequest{err} // the page's answer, not the server's doing
	}
	if err != nil {
		return nil, err
	}
	return struct{}{}, nil
}

// serverTasks lists the server's tasks (2025-11-25 tasks/list) and follows the ones not
// yet shown.
func (c *conn) serverTasks(ctx context.Context, sess *client.Session) (any, error) {
	if sess.Modern() {
		return nil, bad("protocol %s has no tasks/list: a task is reached by its id", look.Safe(sess.ProtocolVersion()))
	}
	n := 0
	for t, err := range sess.ServerTasks(ctx, nil) {
		if err != nil {
			return nil, err
		}
		if _, err := sess.FollowTask(ctx, t.TaskID); err == nil {
			n++
		}
	}
	return map[string]int{"followed": n}, nil
}
