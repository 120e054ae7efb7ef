package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpi-dev/mcpi/internal/jsonwire"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/transport"
)

// The 2026-07-28 era, client side: no initialize and no session; every request carries
// the protocol version, the client's capabilities and its name in _meta; every result
// says what it is (resultType); a server asks for input by answering input_required
// (MRTR), and the request is sent again with the answers. This file holds that wire; the
// session's API above it is the same in both eras.

// DefaultMaxInputRounds bounds the input_required rounds of one request when [Options]
// sets none.
const DefaultMaxInputRounds = 16

// Bounds on what a server can make the user answer, whatever [Options] say: the input
// requests of one input_required result, and the inputs one task of the Tasks extension
// asks for over its life (each key once, unless the server refuses an answer).
const (
	MaxInputRequests = 64
	MaxTaskInputs    = 256
)

// modernWire is what a session of the 2026-07-28 era adds to every request.
type modernWire struct {
	version string
	// plain and tasks are the members of every request's _meta, without and with the
	// Tasks extension declared.
	plain, tasks []byte
	logLevel     atomic.Pointer[mcp.LoggingLevel]
	// headers: the transport mirrors tool arguments marked x-mcp-header into headers
	// (Streamable HTTP).
	headers  bool
	discover *mcp.DiscoverResult
	// noTaskListen: the server refused a subscriptions/listen for tasks.
	noTaskListen atomic.Bool
	// streamsStay: the server kept a stream of tasks open after they had all ended, so
	// the next ones are withdrawn at once (see listenGroup.withdraw).
	streamsStay atomic.Bool
	// listenMu guards listenPending, the tasks waiting for the next subscriptions/listen,
	// and listenTimer, which opens it at the latest listenBatchWait after the first.
	listenMu      sync.Mutex
	listenPending []*Task
	listenTimer   *time.Timer
	// unacked are the streams of tasks not acknowledged yet, by their request's id (the
	// subscription's id the acknowledgement names); guarded by listenMu.
	unacked map[jsonrpc.ID]*listenGroup
	// resourceAcks are the resource subscriptions (SubscribeResource) waiting for their
	// acknowledgement, by their request's id; told the resources it accepted. Guarded by
	// listenMu.
	resourceAcks map[jsonrpc.ID]chan<- []string
}

// paramHeaders is the transport end that carries x-mcp-header arguments as headers.
type paramHeaders interface{ ParamHeaders() bool }

func newModernWire(version string, caps *mcp.ClientCapabilities, impl mcp.Implementation, conn any) (*modernWire, error) {
	w := &modernWire{version: version}
	if ph, ok := conn.(paramHeaders); ok {
		w.headers = ph.ParamHeaders()
	}
	plain := *caps
	plain.Tasks = nil // a capability of the 2025-11-25 era only
	plain.Extensions = withKey(plain.Extensions, mcp.ExtensionTasks, nil)
	withTasks := plain
	withTasks.Extensions = withKey(plain.Extensions, mcp.ExtensionTasks, json.RawMessage(`{}`))
	var err error
	if w.plain, err = metaMembers(version, &plain, impl); err != nil {
		return nil, err
	}
	if w.tasks, err = metaMembers(version, &withTasks, impl); err != nil {
		return nil, err
	}
	return w, nil
}

// withKey returns a copy of m with key set to v (removed when v is nil), or nil when empty.
func withKey(m map[string]json.RawMessage, key string, v json.RawMessage) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	for k, x := range m {
		out[k] = x
	}
	if v == nil {
		delete(out, key)
	} else {
		out[key] = v
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// metaMembers writes the members of the per-request _meta, without the braces.
func metaMembers(version string, caps *mcp.ClientCapabilities, impl mcp.Implementation) ([]byte, error) {
	b, err := jsonwire.Marshal(map[string]any{
		mcp.MetaProtocolVersion:    version,
		mcp.MetaClientCapabilities: caps,
		mcp.MetaClientInfo:         impl,
	})
	if err != nil {
		return nil, err
	}
	return b[1 : len(b)-1], nil
}

// params returns the request's params with the per-request _meta: members the caller
// put in params._meta stay as they are.
func (w *modernWire) params(params any, tasks bool) (json.RawMessage, error) {
	members := w.plain
	if tasks {
		members = w.tasks
	}
	if lvl := w.logLevel.Load(); lvl != nil {
		m := make([]byte, 0, len(members)+64)
		m = append(m, members...)
		m = append(m, `,"`+mcp.MetaLogLevel+`":`...)
		m, _ = jsonwire.AppendMarshal(m, *lvl)
		members = m
	}
	var raw []byte
	switch p := params.(type) {
	case nil:
	case json.RawMessage:
		raw = p
	default:
		b, err := jsonwire.Marshal(params)
		if err != nil {
			return nil, err
		}
		raw = b
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		raw = []byte("{}")
	}
	if raw[0] != '{' {
		return nil, fmt.Errorf("params must be a JSON object, not %.20s", raw)
	}
	if !bytes.Contains(raw, []byte(`"_meta"`)) {
		// The common case: put _meta first, with no decoding.
		out := make([]byte, 0, len(raw)+len(members)+12)
		out = append(out, `{"_meta":{`...)
		out = append(out, members...)
		out = append(out, '}')
		if rest := bytes.TrimSpace(raw[1:]); len(rest) > 0 && rest[0] != '}' {
			out = append(out, ',')
		}
		return append(out, raw[1:]...), nil
	}
	if out, ok := insertMeta(raw, members); ok {
		return out, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, err
	}
	var meta map[string]json.RawMessage
	if m, ok := obj["_meta"]; ok && string(m) != "null" {
		if err := json.Unmarshal(m, &meta); err != nil {
			return nil, fmt.Errorf("params._meta: %w", err)
		}
	}
	var ours map[string]json.RawMessage
	if err := json.Unmarshal(append(append([]byte("{"), members...), '}'), &ours); err != nil {
		return nil, err
	}
	if meta == nil {
		meta = map[string]json.RawMessage{}
	}
	for k, v := range ours {
		if _, ok := meta[k]; !ok {
			meta[k] = v
		}
	}
	mb, err := jsonwire.Marshal(meta)
	if err != nil {
		return nil, err
	}
	obj["_meta"] = mb
	return jsonwire.Marshal(obj)
}

// insertMeta puts members at the start of raw's top-level _meta object, without decoding
// anything: the usual case of a _meta with a progress token. It declines (ok false) when
// raw has no such object, or when its _meta already names a key of the protocol's, which
// the caller's value must then win over.
func insertMeta(raw, members []byte) (out []byte, ok bool) {
	meta, err := jsonwire.Member(raw, `"_meta"`)
	if err != nil || len(meta) == 0 || meta[0] != '{' || bytes.Contains(meta, []byte(`"io.modelcontextprotocol/`)) {
		return nil, false
	}
	at := cap(raw) - cap(meta) + 1 // just past the _meta object's brace
	out = make([]byte, 0, len(raw)+len(members)+1)
	out = append(out, raw[:at]...)
	out = append(out, members...)
	if rest := bytes.TrimSpace(raw[at:]); rest[0] != '}' {
		out = append(out, ',')
	}
	return append(out, raw[at:]...), true
}

// withInput returns params with the answers of an input_required round and its state
// (none when the server sent none), replacing those of an earlier round.
func withInput(params json.RawMessage, answers map[string]json.RawMessage, state *string) (json.RawMessage, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(params, &obj); err != nil {
		return nil, err
	}
	delete(obj, "inputResponses")
	delete(obj, "requestState")
	if len(answers) > 0 {
		b, err := jsonwire.Marshal(answers)
		if err != nil {
			return nil, err
		}
		obj["inputResponses"] = b
	}
	if state != nil {
		b, err := jsonwire.Marshal(*state)
		if err != nil {
			return nil, err
		}
		obj["requestState"] = b
	}
	return jsonwire.Marshal(obj)
}

// ResultTypeError is a result whose resultType the request cannot have: one this client
// does not know, input_required on a method that cannot ask for input, or a task given to
// a request that did not declare the Tasks extension (or is not a tools/call).
type ResultTypeError struct {
	Method     string
	ResultType mcp.ResultType
}

func (e *ResultTypeError) Error() string {
	switch e.ResultType {
	case mcp.ResultTypeTask:
		return fmt.Sprintf("the server answered %s with a task, which this request did not allow (a server bug)", e.Method)
	case mcp.ResultTypeInputRequired:
		return fmt.Sprintf("the server asked for input in answer to %s, which cannot ask for any (a server bug)", e.Method)
	}
	return fmt.Sprintf("the server answered %s with resultType %q, which this client does not know", e.Method, e.ResultType)
}

// InputRoundsError is a request the server kept answering with input_required past
// [Options.MaxInputRounds].
type InputRoundsError struct {
	Method string
	// Rounds is how many rounds of input were answered: the bound.
	Rounds int
}

func (e *InputRoundsError) Error() string {
	rounds := "rounds"
	if e.Rounds == 1 {
		rounds = "round"
	}
	return fmt.Sprintf("the server asked for input again after %d %s of it in answer to one %s; mcpi stopped there (--max-input-rounds raises the bound)", e.Rounds, rounds, e.Method)
}

// InputError is an input request of the server's that this client could not answer: a
// method it does not serve or did not declare, params it cannot read, or a request the
// user refused (which 2026-07-28 has no way to send back).
type InputError struct {
	Key    string
	Method string
	Err    error
}

func (e *InputError) Error() string {
	return fmt.Sprintf("the server's input request %q (%s): %v", e.Key, e.Method, e.Err)
}

func (e *InputError) Unwrap() error { return e.Err }

// exchangeModern sends one request of the 2026-07-28 era and decodes its complete result
// into result: it adds the per-request _meta (with the Tasks extension declared when
// tasks is set), answers input_required rounds, and checks resultType. A task
// (resultType "task") is given to result as it came, for tools/call with tasks set.
func (s *Session) exchangeModern(ctx context.Context, method string, params, result any, tasks bool) error {
	raw, err := s.modern.params(params, tasks)
	if err != nil {
		return &jsonrpc.CallError{Method: method, Op: jsonrpc.OpEncode, Err: err}
	}
	return s.modernRounds(ctx, method, raw, result, tasks, nil)
}

// modernAnswer is the answer to a request of the 2026-07-28 era, as it came.
type modernAnswer struct {
	res json.RawMessage
	err error
}

// modernRounds is exchangeModern once the params are encoded (raw). first, when not nil,
// is the answer to raw sent already (by RunToolTask), taken as the first round's.
func (s *Session) modernRounds(ctx context.Context, method string, raw json.RawMessage, result any, tasks bool, first *modernAnswer) error {
	w := s.modern
	var err error
	base, withHeaders := ctx, method == mcp.MethodToolsCall && w.headers
	if withHeaders {
		if ctx, err = s.toolHeaders(base, raw); err != nil {
			return err
		}
	}
	maxRounds := s.client.opts.MaxInputRounds
	for round := 1; ; round++ {
		var res json.RawMessage
		var err error
		if round == 1 && first != nil {
			res, err = first.res, first.err
		} else {
			err = s.bounded(ctx, method, raw, &res)
		}
		if round == 1 && refusedOwnVersion(err, w.version) {
			// A -32022 that names this session's version: asked again, once, with a new id.
			err = s.bounded(ctx, method, raw, &res)
		}
		if rpc, ok := modernError(err); ok && round == 1 && withHeaders && rpc.Code == mcp.CodeHeaderMismatch {
			// The tool's x-mcp-header declarations may have changed since it was listed:
			// list again, and ask again once with the headers they give now.
			s.mu.Lock()
			clear(s.tools)
			s.mu.Unlock()
			if hctx, herr := s.toolHeaders(base, raw); herr == nil {
				ctx = hctx
				err = s.bounded(ctx, method, raw, &res)
			}
		}
		if err != nil {
			return err
		}
		rt := mcp.ResultTypeOf(res)
		switch {
		case rt == mcp.ResultTypeComplete,
			rt == mcp.ResultTypeTask && tasks && method == mcp.MethodToolsCall,
			// Examples of the extension mark tasks/get "task"; its text says "complete".
			rt == mcp.ResultTypeTask && method == mcp.MethodTasksGet:
			switch r := result.(type) {
			case nil:
				return nil
			case *json.RawMessage:
				*r = res
				return nil
			}
			if err := jsonwire.Unmarshal(res, result); err != nil {
				return &jsonrpc.CallError{Method: method, Op: jsonrpc.OpDecode, Err: err}
			}
			return nil
		case rt != mcp.ResultTypeInputRequired || !mcp.CanRequireInput(method):
			return &ResultTypeError{Method: method, ResultType: rt}
		}
		var ir mcp.InputRequiredResult
		if err := json.Unmarshal(res, &ir); err != nil {
			return &jsonrpc.CallError{Method: method, Op: jsonrpc.OpDecode, Err: err}
		}
		// round-1 rounds of input were answered; maxRounds of them may be.
		if maxRounds > 0 && round > maxRounds {
			return &InputRoundsError{Method: method, Rounds: maxRounds}
		}
		answers, err := s.answerInputs(ctx, ir.InputRequests, "")
		if err != nil {
			return err // the callers name the method
		}
		if raw, err = withInput(raw, answers, ir.RequestState); err != nil {
			return &jsonrpc.CallError{Method: method, Op: jsonrpc.OpEncode, Err: err}
		}
	}
}

// toolHeaders returns ctx carrying the Mcp-Param-* headers of the tool call whose
// params (with _meta) are raw.
func (s *Session) toolHeaders(ctx context.Context, raw json.RawMessage) (context.Context, error) {
	// The scanner picks the two members out; the arguments are decoded only for a tool
	// that has header parameters.
	var nameRaw, args json.RawMessage
	if jsonwire.Members(raw, func(name, value []byte) {
		switch string(name) {
		case `"name"`:
			nameRaw = value
		case `"arguments"`:
			args = value
		}
	}) != nil {
		return ctx, nil
	}
	name, ok := jsonwire.String(nameRaw)
	if !ok {
		return ctx, nil // the server has the last word
	}
	t, err := s.Tool(ctx, name)
	var unknown *UnknownToolError
	var refused *jsonrpc.Error
	switch {
	case errors.As(err, &unknown):
		return ctx, nil // the server has the last word
	case errors.As(err, &refused):
		// The server would not list its tools: the call goes without the headers, and the
		// server says if it wanted them.
		s.log.Debug("tools/list refused; calling without Mcp-Param headers", "tool", name, "error", err)
		return ctx, nil
	case err != nil:
		return ctx, err
	}
	params, err := t.HeaderParams()
	if err != nil {
		return ctx, err
	}
	values, err := mcp.HeaderParamValues(params, args)
	if err != nil || len(values) == 0 {
		return ctx, err
	}
	h := http.Header{}
	for name, v := range values {
		h[transport.HeaderParamPrefix+name] = []string{transport.EncodeHeaderValue(v)}
	}
	return transport.WithHeader(ctx, h), nil
}

// answerInputs answers the input requests of an input_required result (or of a task
// waiting for input, related names it): roots at once, sampling and elicitation through
// the pending queue like the server requests of 2025-11-25. The first that cannot be
// answered withdraws the others.
func (s *Session) answerInputs(ctx context.Context, reqs map[string]mcp.InputRequest, related string) (map[string]json.RawMessage, error) {
	if len(reqs) > MaxInputRequests {
		return nil, fmt.Errorf("the server asked for %d inputs at once; mcpi answers at most %d", len(reqs), MaxInputRequests)
	}
	keys := make([]string, 0, len(reqs))
	for k := range reqs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type answer struct {
		key string
		raw json.RawMessage
		err error
	}
	answers := make(chan answer, len(keys))
	// All are read before any is asked, so that one the client cannot answer ends the
	// round before the user sees the others.
	requests := make([]*Request, len(keys))
	for i, key := range keys {
		in := reqs[key]
		r, err := s.inputRequest(ctx, key, in, related)
		if err != nil {
			return nil, &InputError{Key: key, Method: in.Method, Err: err}
		}
		requests[i] = r
	}
	var round []*Request
	for _, r := range requests {
		if r != nil {
			round = append(round, r)
		}
	}
	for _, r := range round {
		r.round = round
	}
	for i, key := range keys {
		r := requests[i]
		if r == nil { // roots
			s.mu.Lock()
			roots := s.roots
			s.mu.Unlock()
			if roots == nil {
				roots = []mcp.Root{}
			}
			b, err := jsonwire.Marshal(&mcp.ListRootsResult{Roots: roots})
			answers <- answer{key, b, err}
			continue
		}
		go func() {
			res, err := s.await(r)
			if err != nil {
				answers <- answer{key: key, err: err}
				return
			}
			b, err := jsonwire.Marshal(res)
			answers <- answer{key, b, err}
		}()
	}
	out := make(map[string]json.RawMessage, len(keys))
	var first error
	for range keys {
		a := <-answers
		if a.err != nil && first == nil {
			if errors.Is(a.err, errNoAnswer) && parent.Err() != nil {
				a.err = context.Cause(parent) // withdrawn because the caller gave up
			}
			first = &InputError{Key: a.key, Method: reqs[a.key].Method, Err: a.err}
			cancel() // withdraw the others
		}
		out[a.key] = a.raw
	}
	if first != nil {
		return nil, first
	}
	return out, nil
}

// inputRequest reads one input request: nil for roots/list, which needs no user.
func (s *Session) inputRequest(ctx context.Context, key string, in mcp.InputRequest, related string) (*Request, error) {
	caps := s.client.capabilities()
	switch in.Method {
	case mcp.MethodRootsList:
		if caps.Roots == nil {
			return nil, errors.New("this client did not declare roots")
		}
		return nil, nil
	case mcp.MethodSamplingCreateMessage, mcp.MethodElicitationCreate:
		r, _, err := s.parseRequest(ctx, &jsonrpc.Request{Method: in.Method, Params: in.Params})
		if err != nil {
			return nil, err
		}
		r.InputKey = key
		r.RelatedTask = related
		if err := s.unanswerable(r); err != nil {
			return nil, err
		}
		return r, nil
	}
	return nil, fmt.Errorf("%q is not a method a server may ask for input with", in.Method)
}

// discover sends server/discover with version in _meta, as the first request of a
// session of the 2026-07-28 era or as the probe that tells the eras apart.
func (s *Session) discover(ctx context.Context, version string) (*mcp.DiscoverResult, error) {
	w, err := newModernWire(version, s.client.capabilities(), s.client.impl, s.raw)
	if err != nil {
		return nil, err
	}
	raw, err := w.params(nil, false)
	if err != nil {
		return nil, err
	}
	var res json.RawMessage
	if err := s.bounded(ctx, mcp.MethodServerDiscover, raw, &res); err != nil {
		return nil, err
	}
	if rt := mcp.ResultTypeOf(res); rt != mcp.ResultTypeComplete {
		return nil, &ResultTypeError{Method: mcp.MethodServerDiscover, ResultType: rt}
	}
	var d mcp.DiscoverResult
	if err := json.Unmarshal(res, &d); err != nil {
		return nil, &jsonrpc.CallError{Method: mcp.MethodServerDiscover, Op: jsonrpc.OpDecode, Err: err}
	}
	if !slices.Contains(d.SupportedVersions, version) {
		return &d, &UnsupportedVersionError{Requested: version, Supported: d.SupportedVersions}
	}
	w.discover = &d
	s.modern = w
	info, _ := d.ServerInfo()
	s.initResult = &mcp.InitializeResult{
		ProtocolVersion: version,
		Capabilities:    d.Capabilities,
		ServerInfo:      info,
		Instructions:    d.Instructions,
		Meta:            d.Meta,
	}
	return &d, nil
}

// UnsupportedVersionError is a server that speaks none of the protocol versions this
// client does (or that the client was told to use): Supported is what it named.
type UnsupportedVersionError struct {
	Requested string
	Supported []string
}

func (e *UnsupportedVersionError) Error() string {
	if len(e.Supported) == 0 {
		return fmt.Sprintf("the server does not speak protocol version %s", e.Requested)
	}
	return fmt.Sprintf("the server does not speak protocol version %s; it speaks %v", e.Requested, e.Supported)
}

// modernError returns the JSON-RPC error in err if it is one only a server of the
// 2026-07-28 era gives: -32020, -32021 or -32022.
func modernError(err error) (*jsonrpc.Error, bool) {
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) {
		return nil, false
	}
	switch rpc.Code {
	case mcp.CodeHeaderMismatch, mcp.CodeMissingRequiredClientCapability, mcp.CodeUnsupportedProtocolVersion:
		return rpc, true
	}
	return nil, false
}

// refusedOwnVersion reports whether err is a -32022 that lists version, the session's
// own, among those supported: a request refused so (a server that lost track, say) is
// asked again, once.
func refusedOwnVersion(err error, version string) bool {
	rpc, ok := modernError(err)
	return ok && slices.Contains(supportedVersions(rpc), version)
}

// supportedVersions reads data.supported of a -32022 error.
func supportedVersions(rpc *jsonrpc.Error) []string {
	var d mcp.UnsupportedProtocolVersionData
	if rpc.Code != mcp.CodeUnsupportedProtocolVersion || json.Unmarshal(rpc.Data, &d) != nil {
		return nil
	}
	return d.Supported
}

// Listen opens a subscriptions/listen stream of the 2026-07-28 era for the notifications
// filter names, and holds it until ctx ends or the server ends the stream: the
// notifications arrive as the session's events ([ListChangedEvent],
// [ResourceUpdatedEvent]) and feed the tasks they name. It returns nil when ctx ends or
// the server ends the stream with its final result (mcpi's ends a stream of tasks alone
// once they have all ended), and the server's error (or the end of the connection)
// otherwise. In the 2025-11-25 era there is nothing to open (servers send notifications
// unasked): it returns nil at once.
func (s *Session) Listen(ctx context.Context, filter mcp.ListenFilter) error {
	w := s.modern
	if w == nil {
		return nil
	}
	raw, err := w.params(&mcp.ListenParams{Notifications: filter}, len(filter.TaskIDs) > 0)
	if err != nil {
		return &jsonrpc.CallError{Method: mcp.MethodSubscriptionsListen, Op: jsonrpc.OpEncode, Err: err}
	}
	err = s.conn.Call(ctx, mcp.MethodSubscriptionsListen, raw, nil)
	if ctx.Err() != nil {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: %w", mcp.MethodSubscriptionsListen, err)
	}
	return nil
}

// Bounds on how the tasks of a burst share subscriptions/listen streams (see listenTask).
const (
	// listenBatchWait is the longest a task waits for others to share its stream.
	listenBatchWait = 20 * time.Millisecond
	// maxListenTasks is the most tasks one stream names.
	maxListenTasks = 256
	// streamEndWait is how long a stream whose tasks have all ended is left to the
	// server to end, before it is withdrawn.
	streamEndWait = 500 * time.Millisecond
)

// listenTask has an extension task listened to (notifications/tasks) while it is
// followed, so that its changes arrive between polls. A server that refuses the stream is
// not asked again in the session: polling is enough.
//
// Tasks share streams. A task started while no other task call of the session is in
// flight is listened to at once, with any still waiting; one started amid a burst of
// them waits, at most listenBatchWait, for the others, and the stream names them all
// (up to maxListenTasks). A stream a task, over Streamable HTTP, was a request held open
// for the task's life and then withdrawn: a connection and its goroutines and buffers
// on both ends, and another connection dialled for the next request, since a withdrawn
// response closes its connection. The server sends every task's state right after it
// acknowledges the stream, so a task that waited misses nothing; it learns of a change
// at most that much later, and one that ended meanwhile needs no stream.
func (s *Session) listenTask(t *Task) {
	w := s.modern
	if w == nil {
		return
	}
	if w.noTaskListen.Load() {
		t.streamLost()
		return
	}
	w.listenMu.Lock()
	w.listenPending = append(w.listenPending, t)
	if s.tasks.inFlight() <= 1 || len(w.listenPending) >= maxListenTasks {
		batch := s.takeListenLocked()
		w.listenMu.Unlock()
		s.openListen(batch)
		return
	}
	if w.listenTimer == nil {
		w.listenTimer = time.AfterFunc(listenBatchWait, func() {
			w.listenMu.Lock()
			batch := s.takeListenLocked()
			w.listenMu.Unlock()
			s.openListen(batch)
		})
	}
	w.listenMu.Unlock()
}

// takeListenLocked takes the tasks waiting for a stream; w.listenMu is held.
func (s *Session) takeListenLocked() []*Task {
	w := s.modern
	if w.listenTimer != nil {
		w.listenTimer.Stop()
		w.listenTimer = nil
	}
	batch := w.listenPending
	w.listenPending = nil
	return batch
}

// listenGroup is a subscriptions/listen stream of the tasks that it names: it ends when
// the last of them has ended.
type listenGroup struct {
	w      *modernWire
	id     jsonrpc.ID   // the subscriptions/listen request's, once sent (guarded by w.listenMu)
	named  []*Task      // the tasks the stream asked for
	left   atomic.Int32 // tasks that have not ended, plus one while the stream opens
	cancel context.CancelFunc
	mu     sync.Mutex
	over   bool        // the stream has ended (its answer came, or it failed)
	wait   *time.Timer // the withdrawal, once its tasks have ended, if the server has not ended it by then
}

// release is a task of the group ending (g may be nil: a task with no stream).
func (g *listenGroup) release() {
	if g != nil && g.left.Add(-1) == 0 {
		g.withdraw()
	}
}

// withdraw ends the stream whose tasks have all ended. A server may end such a stream
// itself, with its final result right after the last task's end (mcpi's does): the
// client then sends nothing, and over Streamable HTTP the stream's connection stays open
// for the next request instead of being closed to withdraw it (HTTP/1.1 has no other
// way). So the stream is left to the server for streamEndWait, unless the session has
// seen a server keep one open, when it is withdrawn at once. The news of a task's end
// reaches the client before the stream's end, in the stream's order, so withdrawing at
// once would always come first.
func (g *listenGroup) withdraw() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.over || g.w.streamsStay.Load() {
		g.cancel()
		return
	}
	g.wait = time.AfterFunc(streamEndWait, func() {
		g.mu.Lock()
		if !g.over {
			g.w.streamsStay.Store(true)
		}
		g.mu.Unlock()
		g.cancel()
	})
}

// ended is the stream's end, as its answer or its failure: a withdrawal still to come
// is dropped.
func (g *listenGroup) ended() {
	g.mu.Lock()
	g.over = true
	if g.wait != nil {
		g.wait.Stop()
	}
	g.mu.Unlock()
	g.cancel() // the context's resources; the stream is over
}

// openListen opens one stream for the tasks of batch that have not ended, and holds it
// until all of them have ended or the session does. No goroutine waits on it: its
// notifications are taken where they are read, and the last task to end withdraws it.
// Over a transport whose writes are round trips (Streamable HTTP, where the request
// returns once the stream has begun) the request is sent from a worker, as the caller
// may be amid a burst of calls.
func (s *Session) openListen(batch []*Task) {
	select {
	case <-s.conn.Done():
		return // the session is over: nothing more to hear
	default:
	}
	if len(batch) == 0 {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	g := &listenGroup{w: s.modern, cancel: cancel}
	g.left.Store(1)
	ids := make([]string, 0, len(batch))
	named := make([]*Task, 0, len(batch))
	for _, t := range batch {
		t.mu.Lock()
		if !t.ended { // one that ended while it waited has nothing to hear of
			t.listen = g
			g.left.Add(1)
			ids = append(ids, t.state.TaskID)
			named = append(named, t)
		}
		t.mu.Unlock()
	}
	if len(ids) == 0 {
		cancel()
		return
	}
	// The stream's end, however it comes: a task it named that has not ended hears of
	// itself by its polls alone from then on.
	g.named = named
	ended := func() {
		g.w.forgetAck(g)
		g.ended()
		for _, t := range named {
			t.streamLost()
		}
	}
	ctx = jsonrpc.WithRequestID(ctx, func(id jsonrpc.ID) {
		g.w.listenMu.Lock()
		defer g.w.listenMu.Unlock()
		g.id = id
		if g.w.unacked == nil {
			g.w.unacked = make(map[jsonrpc.ID]*listenGroup)
		}
		g.w.unacked[id] = g
	})
	open := func() {
		defer g.release() // the opener's hold: the stream is withdrawn once its tasks have ended
		if err := s.listenAsync(ctx, mcp.ListenFilter{TaskIDs: ids}, ended); err != nil {
			ended()
			s.listenFailed(len(ids), err)
		}
	}
	if s.localWrites {
		open()
	} else {
		s.tasks.followers.Go(open)
	}
}

// acknowledged takes the stream of request id off those waiting for their
// acknowledgement, and returns it (nil if it is not one, or was acknowledged).
func (w *modernWire) acknowledged(id jsonrpc.ID) *listenGroup {
	w.listenMu.Lock()
	defer w.listenMu.Unlock()
	g := w.unacked[id]
	delete(w.unacked, id)
	return g
}

// resourceAcked takes the resource subscription of request id off those waiting for
// their acknowledgement, and returns where to tell it (nil if it is not one, or was told).
func (w *modernWire) resourceAcked(id jsonrpc.ID) chan<- []string {
	w.listenMu.Lock()
	defer w.listenMu.Unlock()
	ch := w.resourceAcks[id]
	delete(w.resourceAcks, id)
	return ch
}

// forgetAck takes the stream g off those waiting for their acknowledgement: it ended.
func (w *modernWire) forgetAck(g *listenGroup) {
	w.listenMu.Lock()
	defer w.listenMu.Unlock()
	if w.unacked[g.id] == g {
		delete(w.unacked, g.id)
	}
}

// listenAcknowledged takes a stream's notifications/subscriptions/acknowledged: a task
// the stream asked for and the server left out will hear nothing of itself on it, and
// is polled at its own interval, not at the one kept for tasks that hear of themselves.
func (s *Session) listenAcknowledged(params json.RawMessage) {
	if s.modern == nil {
		return
	}
	var p struct {
		Notifications mcp.ListenFilter `json:"notifications"`
		Meta          struct {
			ID jsonrpc.ID `json:"io.modelcontextprotocol/subscriptionId"`
		} `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil || !p.Meta.ID.IsValid() {
		return
	}
	if ch := s.modern.resourceAcked(p.Meta.ID); ch != nil {
		ch <- p.Notifications.ResourceSubscriptions // buffered, and told once
		return
	}
	g := s.modern.acknowledged(p.Meta.ID)
	if g == nil {
		return
	}
	left := make(map[string]*Task, len(g.named))
	for _, t := range g.named {
		left[t.ID()] = t
	}
	for _, id := range p.Notifications.TaskIDs {
		delete(left, id)
	}
	for _, t := range left {
		t.streamLost()
	}
}

// listenAsync opens a subscriptions/listen stream as [Session.Listen] does, without a
// goroutine held for it: ctx withdraws it, ended is told when it ends (its answer, or
// its failure), and how it failed is told to listenFailed.
func (s *Session) listenAsync(ctx context.Context, filter mcp.ListenFilter, ended func()) error {
	raw, err := s.modern.params(&mcp.ListenParams{Notifications: filter}, len(filter.TaskIDs) > 0)
	if err != nil {
		return &jsonrpc.CallError{Method: mcp.MethodSubscriptionsListen, Op: jsonrpc.OpEncode, Err: err}
	}
	return s.conn.Go(ctx, mcp.MethodSubscriptionsListen, raw, func(_ json.RawMessage, err error) {
		failed := err != nil && ctx.Err() == nil
		ended()
		if failed {
			s.listenFailed(len(filter.TaskIDs), err)
		}
	})
}

// listenFailed takes the end of a task stream other than its withdrawal: a server that
// refuses it is not asked again in the session, and its tasks are polled.
func (s *Session) listenFailed(tasks int, err error) {
	var rpc *jsonrpc.Error
	if errors.As(err, &rpc) {
		s.modern.noTaskListen.Store(true)
	}
	s.log.Debug("no task notifications; polling alone", "tasks", tasks, "error", fmt.Errorf("%s: %w", mcp.MethodSubscriptionsListen, err))
}
