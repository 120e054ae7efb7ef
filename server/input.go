package server

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// Input from the client, one handler API in both eras (MRTR).
//
// A tool, prompt or resource handler asks the client for input with [Session.Inputs] (a
// batch of named requests), or with [Session.Elicit], [Session.CreateMessage] and
// [Session.ListRoots] (one request each, named by kind and rank: "elicitation-1",
// "sampling-1", "roots-1", "elicitation-2", ...).
//
//   - In 2025-11-25 each request goes to the client as a server request and the call
//     waits for the answer, as it always has (inside a task, through the task's side
//     channel).
//   - In 2026-07-28 the server sends no requests. The first time a handler asks for an
//     input that the request does not answer, the call returns [ErrInputRequired] and
//     the server answers the request with resultType "input_required": the
//     inputRequests asked for, and a requestState. When the client sends the request
//     again with inputResponses and that requestState, the handler runs again from the
//     start, and this time the same questions find their answers.
//
// So a handler must ask the same questions in the same order when it runs again with the
// same arguments and the same answers, and should do nothing it cannot repeat before its
// last question. A handler that gets [ErrInputRequired] should return at once; whatever
// it returns then (an error, a tool error result) is dropped.
//
// requestState is the answers the client gave in earlier rounds, bound to the request's
// method, target (tool or prompt name, resource URI) and arguments, with an expiry, and
// signed with HMAC-SHA256 under a key of the server's ([Options.StateKey], random per
// server by default). A state that fails its check, belongs to another request or has
// expired is refused with -32602. Within its lifetime a state may be sent again on the
// same request: the handler then runs again with those answers, which tells the client
// nothing new.
//
// A request that needs a capability its client did not declare in this request's _meta
// fails with -32021 (MissingRequiredClientCapability), whatever the handler makes of
// the error; an answer of the wrong shape fails with -32602.

// ErrInputRequired is what [Session.Inputs] (and Elicit, CreateMessage, ListRoots)
// return in 2026-07-28 when the client has not answered yet: the handler should return,
// and the server answers input_required.
var ErrInputRequired = errors.New("server: input required from the client; the request will be retried with the answers")

// DefaultRequestStateTTL is how long a requestState stays valid unless
// [Options.RequestStateTTL] says otherwise.
const DefaultRequestStateTTL = time.Hour

// inputRound is one run of a handler in the 2026-07-28 era.
type inputRound struct {
	answers map[string]json.RawMessage // from requestState and inputResponses
	params  json.RawMessage            // the request's, for the state's binding

	mu    sync.Mutex
	seq   map[string]int // per method, for the keys of Elicit and friends
	used  map[string]json.RawMessage
	asked map[string]mcp.InputRequest
	err   *jsonrpc.Error
	// task is set once the call runs as a task of the Tasks extension: input is then
	// asked through the task.
	task *extTask
}

// unlessPromoted runs send unless the call of ctx runs as a task of the Tasks
// extension, holding the round meanwhile, so that the call cannot become a task while
// send writes: what it writes goes out before the CreateTaskResult, never after.
func unlessPromoted(ctx context.Context, send func() error) error {
	info := modernInfo(ctx)
	if info == nil || info.round == nil {
		return send()
	}
	info.round.mu.Lock()
	defer info.round.mu.Unlock()
	if info.round.task != nil {
		return nil
	}
	return send()
}

func (r *inputRound) nextKey(method string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seq == nil {
		r.seq = map[string]int{}
	}
	r.seq[method]++
	prefix := map[string]string{mcp.MethodElicitationCreate: "elicitation", mcp.MethodSamplingCreateMessage: "sampling", mcp.MethodRootsList: "roots"}[method]
	return prefix + "-" + strconv.Itoa(r.seq[method])
}

func (r *inputRound) fail(err *jsonrpc.Error) *jsonrpc.Error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err == nil {
		r.err = err
	}
	return r.err
}

// Inputs asks the client for the inputs in reqs (elicitation/create,
// sampling/createMessage or roots/list, each with its params) and returns its answers,
// the bare result objects, under the same keys. In 2025-11-25 it sends the requests and
// waits for their answers; in 2026-07-28 it returns [ErrInputRequired] until the client's
// retry of the call brings them all (see the package doc, "Asking the client").
func (s *Session) Inputs(ctx context.Context, reqs map[string]mcp.InputRequest) (map[string]json.RawMessage, error) {
	info := modernInfo(ctx)
	if info == nil {
		return s.legacyInputs(ctx, reqs)
	}
	r := info.round
	if r == nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "input can be asked for only while answering tools/call, prompts/get or resources/read")
	}
	keys := slices.Sorted(maps.Keys(reqs))
	for _, k := range keys {
		if err := checkInputCapability(info.capabilities(), reqs[k]); err != nil {
			return nil, r.fail(err)
		}
	}
	r.mu.Lock()
	if task := r.task; task != nil {
		// The call runs as a task now: what the MRTR rounds answered stands, the rest is
		// asked through the task's inputRequests, waiting for tasks/update.
		out := make(map[string]json.RawMessage, len(reqs))
		missing := map[string]mcp.InputRequest{}
		for _, k := range keys {
			if a, ok := r.answers[k]; ok && checkInputResponse(k, reqs[k].Method, a) == nil {
				out[k] = a
			} else {
				missing[k] = reqs[k]
			}
		}
		r.mu.Unlock()
		if len(missing) > 0 {
			got, err := task.ask(ctx, missing)
			if err != nil {
				return nil, err
			}
			maps.Copy(out, got)
		}
		return out, nil
	}
	defer r.mu.Unlock()
	if r.asked != nil {
		return nil, ErrInputRequired
	}
	out := make(map[string]json.RawMessage, len(reqs))
	var missing map[string]mcp.InputRequest
	for _, k := range keys {
		a, ok := r.answers[k]
		if !ok {
			if missing == nil {
				missing = map[string]mcp.InputRequest{}
			}
			missing[k] = reqs[k]
			continue
		}
		if err := checkInputResponse(k, reqs[k].Method, a); err != nil {
			if r.err == nil {
				r.err = err
			}
			return nil, r.err
		}
		if r.used == nil {
			r.used = map[string]json.RawMessage{}
		}
		r.used[k] = a
		out[k] = a
	}
	if missing != nil {
		r.asked = missing
		return nil, ErrInputRequired
	}
	return out, nil
}

// input asks one question under a key made from its method and its rank.
func (s *Session) input(ctx context.Context, method string, params, result any) (handled bool, err error) {
	info := modernInfo(ctx)
	if info == nil {
		return false, nil
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return true, err
	}
	key := method
	if info.round != nil {
		key = info.round.nextKey(method)
	}
	out, err := s.Inputs(ctx, map[string]mcp.InputRequest{key: {Method: method, Params: raw}})
	if err != nil {
		return true, err
	}
	return true, json.Unmarshal(out[key], result)
}

func checkInputCapability(caps *mcp.ClientCapabilities, q mcp.InputRequest) *jsonrpc.Error {
	switch q.Method {
	case mcp.MethodElicitationCreate:
		if caps.Elicitation == nil {
			return missingCapability("elicitation", map[string]any{"elicitation": map[string]any{}})
		}
		var p struct {
			Mode string `json:"mode"`
		}
		_ = json.Unmarshal(q.Params, &p)
		if p.Mode == mcp.ElicitModeURL && !caps.Elicitation.SupportsURL() {
			return missingCapability("elicitation.url", map[string]any{"elicitation": map[string]any{"url": map[string]any{}}})
		}
	case mcp.MethodSamplingCreateMessage:
		if caps.Sampling == nil {
			return missingCapability("sampling", map[string]any{"sampling": map[string]any{}})
		}
	case mcp.MethodRootsList:
		if caps.Roots == nil {
			return missingCapability("roots", map[string]any{"roots": map[string]any{}})
		}
	default:
		return jsonrpc.Errorf(jsonrpc.CodeInternalError, "the server asked for input with %q, which is not an input request", q.Method)
	}
	return nil
}

// checkInputResponse refuses an answer that is not the result the request calls for.
func checkInputResponse(key, method string, a json.RawMessage) *jsonrpc.Error {
	bad := func(why string) *jsonrpc.Error {
		return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "inputResponses[%q] is not a %s result: %s", key, method, why)
	}
	t := bytes.TrimSpace(a)
	if len(t) == 0 || t[0] != '{' {
		return bad("not an object")
	}
	switch method {
	case mcp.MethodElicitationCreate:
		var r mcp.ElicitResult
		if err := json.Unmarshal(a, &r); err != nil {
			return bad(err.Error())
		}
		switch r.Action {
		case mcp.ElicitActionAccept, mcp.ElicitActionDecline, mcp.ElicitActionCancel:
		default:
			return bad("action must be accept, decline or cancel")
		}
	case mcp.MethodSamplingCreateMessage:
		var r mcp.CreateMessageResult
		if err := json.Unmarshal(a, &r); err != nil {
			return bad(err.Error())
		}
		if r.Role == "" || len(r.Content) == 0 {
			return bad("role and content are required")
		}
	case mcp.MethodRootsList:
		var r struct {
			Roots *[]mcp.Root `json:"roots"`
		}
		if err := json.Unmarshal(a, &r); err != nil {
			return bad(err.Error())
		}
		if r.Roots == nil {
			return bad("roots is required")
		}
	}
	return nil
}

// legacyInputs sends each request to the client, in key order, as 2025-11-25 does.
func (s *Session) legacyInputs(ctx context.Context, reqs map[string]mcp.InputRequest) (map[string]json.RawMessage, error) {
	out := make(map[string]json.RawMessage, len(reqs))
	for _, k := range slices.Sorted(maps.Keys(reqs)) {
		q := reqs[k]
		var res any
		var err error
		switch q.Method {
		case mcp.MethodElicitationCreate:
			var p mcp.ElicitParams
			if err = json.Unmarshal(q.Params, &p); err == nil {
				res, err = s.Elicit(ctx, &p)
			}
		case mcp.MethodSamplingCreateMessage:
			var p mcp.CreateMessageParams
			if err = json.Unmarshal(q.Params, &p); err == nil {
				res, err = s.CreateMessage(ctx, &p)
			}
		case mcp.MethodRootsList:
			res, err = s.ListRoots(ctx)
		default:
			err = jsonrpc.Errorf(jsonrpc.CodeInternalError, "%q is not an input request", q.Method)
		}
		if err != nil {
			return nil, err
		}
		raw, err := json.Marshal(res)
		if err != nil {
			return nil, err
		}
		out[k] = raw
	}
	return out, nil
}

// inputParams are the members of a request's params that MRTR reads.
type inputParams struct {
	Name           string          `json:"name"`
	URI            string          `json:"uri"`
	Arguments      json.RawMessage `json:"arguments"`
	InputResponses json.RawMessage `json:"inputResponses"`
	RequestState   json.RawMessage `json:"requestState"`
}

// requestStatePayload is what a requestState holds, before it is sealed.
type requestStatePayload struct {
	Method string `json:"m"`
	Target string `json:"t"`
	Args   string `json:"a"`
	// Caller is the identity of the caller the state was given to ([Session.stateCaller]),
	// so that a state seen by someone else (in a log, a proxy) does not answer for them.
	Caller  string                     `json:"c,omitempty"`
	Answers map[string]json.RawMessage `json:"r,omitempty"`
	Expires int64                      `json:"e"`
}

// withInput runs a handler of tools/call, prompts/get or resources/read in the
// 2026-07-28 era: it reads inputResponses and requestState, runs the handler with the
// answers they hold, and answers input_required when the handler asks for more.
func (s *Session) withInput(ctx context.Context, req *jsonrpc.Request, run func(context.Context) (any, error)) (any, error) {
	round, binding, err := s.prepareRound(ctx, req)
	if err != nil {
		return nil, err
	}
	res, err := run(ctx)
	return s.finishRound(round, binding, res, err)
}

// prepareRound reads inputResponses and requestState and sets up the round in ctx's
// request info. A request with neither (the first round, and every request that asks
// for nothing) is not decoded again.
func (s *Session) prepareRound(ctx context.Context, req *jsonrpc.Request) (*inputRound, *requestStatePayload, error) {
	info := modernInfo(ctx)
	var round *inputRound
	var binding *requestStatePayload
	if info.round == nil { // the usual: one round per request, kept in its info
		info.round1 = inputRound{params: req.Params}
		info.binding = requestStatePayload{Method: req.Method}
		round, binding = &info.round1, &info.binding
	} else {
		round, binding = &inputRound{params: req.Params}, &requestStatePayload{Method: req.Method}
	}
	info.round = round
	if !bytes.Contains(req.Params, []byte(`"inputResponses"`)) && !bytes.Contains(req.Params, []byte(`"requestState"`)) {
		return round, binding, nil
	}
	var p inputParams
	if err := json.Unmarshal(req.Params, &p); err != nil {
		return nil, nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params for %s: %v", req.Method, err)
	}
	round.answers = map[string]json.RawMessage{}
	if p.RequestState != nil {
		var state string
		if err := json.Unmarshal(p.RequestState, &state); err != nil {
			return nil, nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "requestState must be a string")
		}
		st, err := s.server.openState(state)
		if err != nil {
			return nil, nil, err
		}
		if st.Caller != s.stateCaller() {
			return nil, nil, errBadState
		}
		bind(binding, &p)
		if st.Method != binding.Method || st.Target != binding.Target || st.Args != binding.Args {
			return nil, nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "requestState belongs to another request")
		}
		maps.Copy(round.answers, st.Answers)
	}
	if p.InputResponses != nil {
		var responses map[string]json.RawMessage
		t := bytes.TrimSpace(p.InputResponses)
		if len(t) == 0 || t[0] != '{' || json.Unmarshal(t, &responses) != nil {
			return nil, nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "inputResponses must be an object mapping each input request's key to its result")
		}
		maps.Copy(round.answers, responses)
	}
	return round, binding, nil
}

// bind fills in what a requestState is bound to: the target and the arguments' digest.
func bind(b *requestStatePayload, p *inputParams) {
	b.Target = p.Name
	if b.Method == mcp.MethodResourcesRead {
		b.Target = p.URI
	}
	b.Args = argsDigest(p.Arguments)
}

// finishRound turns a handler's outcome into the answer: its error or result, or
// input_required when it asked for input it has not got.
func (s *Session) finishRound(round *inputRound, binding *requestStatePayload, res any, err error) (any, error) {
	round.mu.Lock()
	defer round.mu.Unlock()
	if round.err != nil {
		return nil, round.err
	}
	if round.asked == nil {
		if errors.Is(err, ErrInputRequired) {
			return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "the handler returned ErrInputRequired without asking for input")
		}
		return res, err
	}
	b := *binding
	if b.Args == "" {
		var p inputParams
		if err := json.Unmarshal(round.params, &p); err != nil {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: %v", err)
		}
		bind(&b, &p)
	}
	b.Answers = round.used
	b.Caller = s.stateCaller()
	state, serr := s.server.sealState(b)
	if serr != nil {
		return nil, serr
	}
	raw, merr := json.Marshal(&mcp.InputRequiredResult{
		ResultType:    mcp.ResultTypeInputRequired,
		InputRequests: round.asked,
		RequestState:  &state,
	})
	if merr != nil {
		return nil, merr
	}
	return json.RawMessage(raw), nil
}

// argsDigest names a request's arguments independently of how they were spelled: the
// SHA-256 of their canonical JSON (members sorted, no spaces).
func argsDigest(args json.RawMessage) string {
	t := bytes.TrimSpace(args)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		t = []byte("{}")
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(t))
	dec.UseNumber()
	canon := t
	if dec.Decode(&v) == nil {
		if b, err := json.Marshal(v); err == nil {
			canon = b
		}
	}
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:16])
}

func newStateKey() []byte {
	k := make([]byte, 32)
	_, _ = rand.Read(k)
	return k
}

// stateCaller is who a requestState is given to: the owner a 2026-07-28 task of the
// caller would be bound to ([Options.TaskOwner], else the Authorization header, both
// hashed), or "" for a caller without credentials, whom nothing tells apart.
func (s *Session) stateCaller() string {
	if owner, bound := s.modernOwner(); bound {
		return owner
	}
	return ""
}

// newStateAEAD makes the cipher that seals requestStates, under a key derived from the
// server's state key, so that the key itself is used for nothing else.
func newStateAEAD(key []byte) cipher.AEAD {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("mcpi requestState v2 AES-256-GCM key"))
	block, err := aes.NewCipher(m.Sum(nil))
	if err != nil {
		panic(err) // a 32-byte key is always right
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		panic(err)
	}
	return aead
}

// stateVersion starts each requestState; the states of before (a signed payload
// anyone could read) lack it and are refused.
const stateVersion = "v2."

var stateAD = []byte("mcpi requestState v2")

// sealState encodes and encrypts a requestState (AES-256-GCM): the answers it holds
// are the caller's, and neither readable nor changeable by whoever sees it.
func (s *Server) sealState(p requestStatePayload) (string, error) {
	ttl := s.opts.RequestStateTTL
	if ttl <= 0 {
		ttl = DefaultRequestStateTTL
	}
	p.Expires = s.now().Add(ttl).Unix()
	payload, err := json.Marshal(&p)
	if err != nil {
		return "", err
	}
	nonce := make([]byte, s.stateAEAD.NonceSize(), s.stateAEAD.NonceSize()+len(payload)+s.stateAEAD.Overhead())
	_, _ = rand.Read(nonce)
	return stateVersion + base64.RawURLEncoding.EncodeToString(s.stateAEAD.Seal(nonce, nonce, payload, stateAD)), nil
}

var errBadState = jsonrpc.NewError(jsonrpc.CodeInvalidParams, "requestState is invalid: this server did not issue it to this caller, or it was changed; send the request again without it")

// openState checks a requestState and decodes it.
func (s *Server) openState(state string) (*requestStatePayload, error) {
	body, ok := strings.CutPrefix(state, stateVersion)
	if !ok {
		return nil, errBadState
	}
	sealed, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil || len(sealed) < s.stateAEAD.NonceSize() {
		return nil, errBadState
	}
	nonce, sealed := sealed[:s.stateAEAD.NonceSize()], sealed[s.stateAEAD.NonceSize():]
	payload, err := s.stateAEAD.Open(sealed[:0], nonce, sealed, stateAD)
	if err != nil {
		return nil, errBadState
	}
	var p requestStatePayload
	if err := json.Unmarshal(payload, &p); err != nil {
		return nil, errBadState
	}
	if s.now().Unix() > p.Expires {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "requestState has expired: send the request again without it")
	}
	return &p, nil
}

func (s *Server) now() time.Time {
	if s.opts.Now != nil {
		return s.opts.Now()
	}
	return time.Now()
}
