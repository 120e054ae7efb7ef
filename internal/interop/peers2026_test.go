package interop

import (
	"bytes"
	"context"
	"debug/buildinfo"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/transport"
)

// Shared by ts2_test.go and gosdk_test.go: mcpi's client against peer servers of protocol
// revision 2026-07-28 that no one here wrote, the TypeScript SDK v2 (ts2/server.mjs) and
// go-sdk v1.8.0 (gosdk/main.go, built into .tools/bin/gosdk-server). Both serve the same
// three tools: echo {text}, add {a, b} and ask_name {}, which asks for the user's name with
// a multi-round-trip (MRTR) elicitation. scripts/interop-tools.sh installs both; without
// MCPI_INTEROP=1 a missing peer skips the tests, with it the tests fail.

// The names the peers give themselves in server/discover.
const (
	ts2ServerName   = "ts2-interop-server"
	gosdkServerName = "gosdk-interop-server"
	peerVersion     = "1.0.0"
)

// askNameMessage is the message of ask_name's elicitation, on both peers.
const askNameMessage = "What is your name?"

// The folders of the 2026-07-28 peers.
var (
	ts2Dir    = mustAbs("ts2")
	gosdkDir  = mustAbs("gosdk")
	gosdkPath = mustAbs(filepath.Join("..", "..", ".tools", "bin", "gosdk-server"))
)

func mustAbs(p string) string {
	d, err := filepath.Abs(p)
	if err != nil {
		panic(err)
	}
	return d
}

// needPeer ends the test when a peer cannot run: a skip normally, a failure with
// MCPI_INTEROP=1.
func needPeer(t *testing.T, peer, why string) {
	t.Helper()
	if os.Getenv(envInterop) == "1" {
		t.Fatalf("the %s interop test cannot run: %s; %s=1 makes that a failure", peer, why, envInterop)
	}
	t.Skipf("skipping the %s interop test: %s; set %s=1 to make this a failure", peer, why, envInterop)
}

var (
	ts2Once sync.Once
	ts2Node string
	ts2Err  string
)

// checkTS2 finds node (20 or newer) and the TypeScript SDK v2 that ts2/package.json pins.
func checkTS2() {
	node, problem := findNode()
	if problem != "" {
		ts2Err = problem
		return
	}
	var pkg struct {
		Version      string            `json:"version"`
		Dependencies map[string]string `json:"dependencies"`
	}
	b, err := os.ReadFile(filepath.Join(ts2Dir, "package.json"))
	if err == nil {
		err = json.Unmarshal(b, &pkg)
	}
	if err != nil {
		ts2Err = fmt.Sprintf("internal/interop/ts2/package.json: %v", err)
		return
	}
	for _, dep := range []string{"@modelcontextprotocol/server", "@modelcontextprotocol/node", "@modelcontextprotocol/client"} {
		want := pkg.Dependencies[dep]
		if !regexp.MustCompile(`^2\.\d+\.\d+$`).MatchString(want) {
			ts2Err = fmt.Sprintf("internal/interop/ts2/package.json must pin %s to an exact 2.x version, found %q", dep, want)
			return
		}
		pkg.Version = ""
		b, err := os.ReadFile(filepath.Join(ts2Dir, "node_modules", dep, "package.json"))
		if err != nil {
			ts2Err = fmt.Sprintf("%s is not installed in internal/interop/ts2/node_modules (run `bash scripts/interop-tools.sh`)", dep)
			return
		}
		if json.Unmarshal(b, &pkg) != nil || pkg.Version != want {
			ts2Err = fmt.Sprintf("internal/interop/ts2/node_modules holds %s %q, package.json pins %q (run `bash scripts/interop-tools.sh`)", dep, pkg.Version, want)
			return
		}
	}
	ts2Node = node
}

// needTS2 returns the path of node for ts2/server.mjs, or ends the test.
func needTS2(t *testing.T) string {
	t.Helper()
	ts2Once.Do(checkTS2)
	if ts2Err != "" {
		needPeer(t, "TypeScript SDK v2", ts2Err)
	}
	return ts2Node
}

var (
	gosdkOnce sync.Once
	gosdkErr  string
)

// checkGoSDK checks that .tools/bin/gosdk-server is there and was built with the go-sdk
// version gosdk/go.mod asks for.
func checkGoSDK() {
	mod, err := os.ReadFile(filepath.Join(gosdkDir, "go.mod"))
	if err != nil {
		gosdkErr = err.Error()
		return
	}
	m := regexp.MustCompile(`(?m)^\s*(?:require\s+)?github\.com/modelcontextprotocol/go-sdk\s+(v\S+)`).FindSubmatch(mod)
	if m == nil {
		gosdkErr = "internal/interop/gosdk/go.mod requires no github.com/modelcontextprotocol/go-sdk"
		return
	}
	want := string(m[1])
	info, err := buildinfo.ReadFile(gosdkPath)
	if err != nil {
		gosdkErr = fmt.Sprintf(".tools/bin/gosdk-server is missing or unreadable (run `bash scripts/interop-tools.sh`): %v", err)
		return
	}
	for _, dep := range info.Deps {
		if dep.Path == "github.com/modelcontextprotocol/go-sdk" {
			if dep.Version != want {
				gosdkErr = fmt.Sprintf(".tools/bin/gosdk-server was built with go-sdk %s, gosdk/go.mod asks for %s (run `bash scripts/interop-tools.sh`)", dep.Version, want)
			}
			return
		}
	}
	gosdkErr = ".tools/bin/gosdk-server was not built with go-sdk (run `bash scripts/interop-tools.sh`)"
}

// needGoSDK returns the path of the go-sdk server, or ends the test.
func needGoSDK(t *testing.T) string {
	t.Helper()
	gosdkOnce.Do(checkGoSDK)
	if gosdkErr != "" {
		needPeer(t, "go-sdk", gosdkErr)
	}
	return gosdkPath
}

// firstLine is a stdout that hands its first line over once, and keeps the rest.
type firstLine struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	sent bool
	line chan string
}

func (w *firstLine) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if !w.sent {
		if i := bytes.IndexByte(w.buf.Bytes(), '\n'); i >= 0 {
			w.sent = true
			w.line <- strings.TrimSpace(string(w.buf.Bytes()[:i]))
		}
	}
	return len(p), nil
}

// startHTTPPeer runs a peer server that prints its URL as its first line on stdout, and
// returns that URL. The server is stopped with SIGTERM when the test ends, and must exit
// cleanly then; its stderr goes to the test's output.
func startHTTPPeer(t *testing.T, ctx context.Context, dir, path string, args ...string) string {
	t.Helper()
	cmd := exec.Command(path, args...)
	cmd.Dir = dir
	out := &firstLine{line: make(chan string, 1)}
	cmd.Stdout = out
	cmd.Stderr = t.Output()
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", path, err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(exited)
	}()
	var killed atomic.Bool
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			killed.Store(true)
			_ = cmd.Process.Kill()
			<-exited
		}
		if killed.Load() {
			t.Errorf("%s %v did not exit within 5s of SIGTERM; killed", filepath.Base(path), args)
		} else if waitErr != nil {
			t.Errorf("%s %v did not exit cleanly on SIGTERM: %v", filepath.Base(path), args, waitErr)
		}
	})
	select {
	case u := <-out.line:
		if !regexp.MustCompile(`^http://127\.0\.0\.1:\d+/mcp$`).MatchString(u) {
			t.Fatalf("%s printed %q, want its URL http://127.0.0.1:PORT/mcp", path, u)
		}
		return u
	case <-exited:
		t.Fatalf("%s %v exited before printing its URL: %v", path, args, waitErr)
	case <-ctx.Done():
		t.Fatalf("%s %v printed no URL: %v", path, args, ctx.Err())
	}
	return ""
}

// startTS2HTTP runs `node ts2/server.mjs http [extra...]` and returns its URL.
func startTS2HTTP(t *testing.T, ctx context.Context, extra ...string) string {
	node := needTS2(t)
	return startHTTPPeer(t, ctx, ts2Dir, node, append([]string{filepath.Join(ts2Dir, "server.mjs"), "http"}, extra...)...)
}

// ts2Stdio is the transport that runs `node ts2/server.mjs stdio [extra...]`.
func ts2Stdio(t *testing.T, extra ...string) *transport.Command {
	node := needTS2(t)
	return &transport.Command{
		Path:   node,
		Args:   append([]string{filepath.Join(ts2Dir, "server.mjs"), "stdio"}, extra...),
		Dir:    ts2Dir,
		Logger: testLogger(t),
	}
}

// startGoSDK runs `.tools/bin/gosdk-server [flags...]` and returns its URL.
func startGoSDK(t *testing.T, ctx context.Context, flags ...string) string {
	bin := needGoSDK(t)
	return startHTTPPeer(t, ctx, gosdkDir, bin, flags...)
}

// How the test user answers ask_name's elicitation.
const (
	answerAccept  = "accept"  // Accept {"name": "Ada"}
	answerDecline = "decline" // Decline
	answerDismiss = "dismiss" // Dismiss (action "cancel")
	answerRefuse  = "refuse"  // Refuse, which 2026-07-28 cannot send back
	answerHold    = "hold"    // no answer
)

// refuseMessage is what the user says when refusing.
const refuseMessage = "the user would rather not say"

// mrtrUser answers the server's input requests as the test tells it to, and keeps each
// request it saw.
type mrtrUser struct {
	t    *testing.T
	mode atomic.Value // one of the answer* constants

	mu   sync.Mutex
	seen []*client.Request
}

func newUser(t *testing.T) *mrtrUser {
	u := &mrtrUser{t: t}
	u.mode.Store(answerAccept)
	return u
}

func (u *mrtrUser) answer(_ context.Context, r *client.Request) {
	u.mu.Lock()
	u.seen = append(u.seen, r)
	u.mu.Unlock()
	var err error
	switch mode := u.mode.Load().(string); mode {
	case answerAccept:
		err = r.Accept(map[string]any{"name": "Ada"})
	case answerDecline:
		err = r.Decline()
	case answerDismiss:
		err = r.Dismiss()
	case answerRefuse:
		err = r.Refuse(refuseMessage)
	case answerHold:
		return // left open: the test withdraws it
	default:
		u.t.Errorf("unknown answer mode %q", mode)
	}
	// A request withdrawn before this handler ran (OnRequest runs on a goroutine of its
	// own) is answered already.
	if err != nil && !(errors.Is(err, client.ErrAnswered) && r.Withdrawn()) {
		u.t.Errorf("answering %s: %v", r.Method, err)
	}
}

// requests returns the requests seen since the first n.
func (u *mrtrUser) since(n int) []*client.Request {
	u.mu.Lock()
	defer u.mu.Unlock()
	return slices.Clone(u.seen[n:])
}

func (u *mrtrUser) count() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.seen)
}

// connectPeer connects mcpi's client to a peer with protocol version mode ("" is auto).
func connectPeer(t *testing.T, ctx context.Context, tr transport.Transport, mode string) (*client.Session, *mrtrUser, error) {
	t.Helper()
	u := newUser(t)
	c := client.New(mcp.Implementation{Name: "mcpi-interop", Version: "0.0.1"}, &client.Options{
		Logger:          testLogger(t),
		ProtocolVersion: mode,
		OnRequest:       u.answer,
	})
	s, err := c.Connect(ctx, tr)
	if err == nil {
		t.Cleanup(func() { s.Close() })
	}
	return s, u, err
}

// checkModernSession checks that s speaks 2026-07-28 with the named server.
func checkModernSession(t *testing.T, s *client.Session, server string, supported []string) {
	t.Helper()
	if !s.Modern() {
		t.Fatalf("Session.Modern() = false, want a session of the 2026-07-28 era")
	}
	if v := s.ProtocolVersion(); v != mcp.ProtocolVersion20260728 {
		t.Errorf("ProtocolVersion() = %q, want %q", v, mcp.ProtocolVersion20260728)
	}
	ir := s.InitializeResult()
	if ir.ServerInfo.Name != server || ir.ServerInfo.Version != peerVersion {
		t.Errorf("ServerInfo = %+v, want {Name: %q, Version: %q}", ir.ServerInfo, server, peerVersion)
	}
	d := s.Discover()
	if d == nil {
		t.Fatal("Discover() = nil in a session of the 2026-07-28 era")
	}
	if !slices.Equal(d.SupportedVersions, supported) {
		t.Errorf("server/discover supportedVersions = %q, want %q", d.SupportedVersions, supported)
	}
	if s.ServerCapabilities().Tools == nil {
		t.Errorf("the server's capabilities declare no tools: %+v", s.ServerCapabilities())
	}
}

// exerciseTools lists the three tools and calls echo and add; shared by both eras.
func exerciseTools(t *testing.T, ctx context.Context, s *client.Session) {
	t.Helper()
	res, err := s.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if want := []string{"add", "ask_name", "echo"}; !slices.Equal(names, want) {
		t.Fatalf("tools/list: names %q, want %q", names, want)
	}
	if res.NextCursor != "" {
		t.Errorf("tools/list: nextCursor %q, want none", res.NextCursor)
	}
	for _, tool := range res.Tools {
		if tool.Name == "add" && len(tool.OutputSchema) == 0 {
			t.Errorf("tools/list: add has no outputSchema")
		}
	}

	if got := callText(t, ctx, s, "echo", map[string]any{"text": "hi there"}); got != "hi there" {
		t.Errorf("echo: %q, want %q", got, "hi there")
	}

	add, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: json.RawMessage(`{"a":2,"b":40}`)}, nil)
	if err != nil {
		t.Fatalf("add: %v", err)
	}
	if add.IsError || len(add.Content) != 1 || add.Content[0].Type != mcp.ContentTypeText || add.Content[0].Text != "42" {
		t.Errorf("add: want one text item 42, got %+v", add)
	}
	if got := canon(t, add.StructuredContent); got != `{"sum":42}` {
		t.Errorf("add: structuredContent %s, want {\"sum\":42}", got)
	}
}

// exerciseModern runs everything a 2026-07-28 peer is asked, as subtests sharing s: the
// tools, every way of answering ask_name's elicitation, an unknown tool (the peer's
// error, unknownTool, as a *jsonrpc.Error -32602), and what travelled on the wire; over
// Streamable HTTP (tap not nil) the HTTP requests too.
func exerciseModern(t *testing.T, ctx context.Context, s *client.Session, u *mrtrUser, tap *httpTap, unknownTool string) {
	rec := record(s)
	t.Cleanup(func() { rec.logWire(t) })

	t.Run("tools", func(t *testing.T) { exerciseTools(t, ctx, s) })

	// callAskName calls ask_name with the user answering as mode, checks the one input
	// request the user saw and the two tools/call on the wire (the second carrying the
	// answer under "name" and the first round's requestState), and returns the result.
	callAskName := func(t *testing.T, callCtx context.Context, mode string, wantAnswer string) (*mcp.CallToolResult, *client.Request, error) {
		t.Helper()
		u.mode.Store(mode)
		seen := len(queuedRequests(rec))
		sent := len(askNameCalls(rec))
		res, err := s.CallTool(callCtx, &mcp.CallToolParams{Name: "ask_name"}, nil)

		// The request as queued (OnRequest runs on a goroutine of its own, and may not
		// have run yet for a request withdrawn at once).
		reqs := queuedRequests(rec)[seen:]
		if len(reqs) != 1 {
			t.Fatalf("ask_name: %d requests queued for the user, want 1", len(reqs))
		}
		r := reqs[0]
		if r.InputKey != "name" || r.Method != mcp.MethodElicitationCreate || r.Elicitation == nil || r.Sampling != nil {
			t.Errorf("ask_name: request InputKey %q, Method %q, Elicitation %v, Sampling %v; want InputKey \"name\", an elicitation/create",
				r.InputKey, r.Method, r.Elicitation != nil, r.Sampling != nil)
		}
		if r.ID.IsValid() {
			t.Errorf("ask_name: an input request of 2026-07-28 has ID %v, want none", r.ID)
		}
		if r.Elicitation != nil {
			if r.Elicitation.Message != askNameMessage {
				t.Errorf("ask_name: elicitation message %q, want %q", r.Elicitation.Message, askNameMessage)
			}
			var schema struct {
				Type       string                     `json:"type"`
				Properties map[string]json.RawMessage `json:"properties"`
				Required   []string                   `json:"required"`
			}
			raw, _ := json.Marshal(r.Elicitation.RequestedSchema)
			if err := json.Unmarshal(raw, &schema); err != nil || schema.Type != "object" || schema.Properties["name"] == nil || !slices.Equal(schema.Required, []string{"name"}) {
				t.Errorf("ask_name: requestedSchema %s, want an object requiring a name", raw)
			}
		}
		select {
		case <-r.Done():
		default:
			t.Errorf("ask_name: the request is not settled after the call returned")
		}

		calls := askNameCalls(rec)[sent:]
		wantCalls := 2
		if wantAnswer == "" {
			wantCalls = 1 // refused or withdrawn: nothing to send back
		}
		if len(calls) != wantCalls {
			t.Fatalf("ask_name: %d tools/call on the wire, want %d", len(calls), wantCalls)
		}
		first := paramsOf(t, calls[0])
		if _, ok := first["inputResponses"]; ok {
			t.Errorf("ask_name: the first round carries inputResponses: %v", first)
		}
		if _, ok := first["requestState"]; ok {
			t.Errorf("ask_name: the first round carries a requestState: %v", first)
		}
		checkEnvelope(t, first)
		resp := rec.responseTo(jsonrpc.Inbound, calls[0].ID)
		if resp == nil || resp.Error != nil {
			t.Fatalf("ask_name: round 1 response %+v, want an input_required result", resp)
		}
		var round1 struct {
			ResultType    string                     `json:"resultType"`
			InputRequests map[string]json.RawMessage `json:"inputRequests"`
			RequestState  string                     `json:"requestState"`
		}
		if err := json.Unmarshal(resp.Result, &round1); err != nil || round1.ResultType != "input_required" || len(round1.InputRequests) != 1 || round1.InputRequests["name"] == nil || round1.RequestState == "" {
			t.Fatalf("ask_name: round 1 result %s, want input_required with inputRequests {name} and a requestState", resp.Result)
		}
		if wantCalls == 2 {
			second := paramsOf(t, calls[1])
			checkEnvelope(t, second)
			if calls[1].ID == calls[0].ID {
				t.Errorf("ask_name: both rounds have id %v", calls[0].ID)
			}
			if second["name"] != "ask_name" {
				t.Errorf("ask_name: round 2 names tool %v", second["name"])
			}
			if got := canon(t, second["inputResponses"]); got != wantAnswer {
				t.Errorf("ask_name: round 2 inputResponses %s, want %s", got, wantAnswer)
			}
			if second["requestState"] != round1.RequestState {
				t.Errorf("ask_name: round 2 requestState %v, want round 1's %q", second["requestState"], round1.RequestState)
			}
		}
		return res, r, err
	}

	t.Run("ask_name/accept", func(t *testing.T) {
		res, _, err := callAskName(t, ctx, answerAccept, `{"name":{"action":"accept","content":{"name":"Ada"}}}`)
		if err != nil {
			t.Fatalf("ask_name: %v", err)
		}
		checkText(t, res, false, "Hello, Ada!")
	})
	t.Run("ask_name/decline", func(t *testing.T) {
		res, _, err := callAskName(t, ctx, answerDecline, `{"name":{"action":"decline"}}`)
		if err != nil {
			t.Fatalf("ask_name: %v", err)
		}
		checkText(t, res, true, "No name given (decline).")
	})
	t.Run("ask_name/dismiss", func(t *testing.T) {
		res, _, err := callAskName(t, ctx, answerDismiss, `{"name":{"action":"cancel"}}`)
		if err != nil {
			t.Fatalf("ask_name: %v", err)
		}
		checkText(t, res, true, "No name given (cancel).")
	})
	t.Run("ask_name/refuse", func(t *testing.T) {
		res, _, err := callAskName(t, ctx, answerRefuse, "")
		if err == nil {
			t.Fatalf("ask_name refused: want an error, got %+v", res)
		}
		var ie *client.InputError
		if !errors.As(err, &ie) || ie.Key != "name" || ie.Method != mcp.MethodElicitationCreate {
			t.Errorf("ask_name refused: error %v (%T), want a *client.InputError for key \"name\", elicitation/create", err, err)
		}
		var rpc *jsonrpc.Error
		if !errors.As(err, &rpc) || rpc.Code != client.CodeUserRejected || rpc.Message != refuseMessage {
			t.Errorf("ask_name refused: error %v, want the user's refusal (code %d, %q) inside", err, client.CodeUserRejected, refuseMessage)
		}
		// The session goes on.
		if got := callText(t, ctx, s, "echo", map[string]any{"text": "still here"}); got != "still here" {
			t.Errorf("echo after the refusal: %q", got)
		}
	})
	// The user leaves the request open and the caller gives up: the request is withdrawn,
	// the call fails, and no second round is sent.
	t.Run("ask_name/withdrawn", func(t *testing.T) {
		callCtx, cancel := context.WithCancel(ctx)
		defer cancel()
		earlier := map[*client.Request]bool{}
		for _, r := range queuedRequests(rec) {
			earlier[r] = true
		}
		go func() {
			_, err := rec.waitFor(callCtx, "ask_name's input request", func(e client.Event) bool {
				r, ok := e.(*client.RequestEvent)
				return ok && !r.Settled && r.Request.InputKey == "name" && !earlier[r.Request]
			})
			if err == nil {
				cancel()
			}
		}()
		res, r, err := callAskName(t, callCtx, answerHold, "")
		if err == nil {
			t.Fatalf("ask_name withdrawn: want an error, got %+v", res)
		}
		if callCtx.Err() == nil {
			t.Fatalf("ask_name ended before it was withdrawn: %v", err)
		}
		var ie *client.InputError
		if !errors.As(err, &ie) || ie.Key != "name" {
			t.Errorf("ask_name withdrawn: error %v (%T), want a *client.InputError for key \"name\"", err, err)
		}
		if !r.Withdrawn() {
			t.Errorf("ask_name withdrawn: the request does not say it was withdrawn")
		}
		if got := callText(t, ctx, s, "echo", map[string]any{"text": "after withdrawal"}); got != "after withdrawal" {
			t.Errorf("echo after the withdrawal: %q", got)
		}
	})
	// Several calls asking at once, each answered.
	t.Run("ask_name/concurrent", func(t *testing.T) {
		u.mode.Store(answerAccept)
		seen := u.count()
		const n = 8
		errs := make(chan error, n)
		for range n {
			go func() {
				res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "ask_name"}, nil)
				if err == nil && (res.IsError || len(res.Content) != 1 || res.Content[0].Text != "Hello, Ada!") {
					err = fmt.Errorf("result %+v", res)
				}
				errs <- err
			}()
		}
		for range n {
			if err := <-errs; err != nil {
				t.Errorf("concurrent ask_name: %v", err)
			}
		}
		if got := u.count() - seen; got != n {
			t.Errorf("the user saw %d requests, want %d", got, n)
		}
	})
	t.Run("ping", func(t *testing.T) {
		// 2026-07-28 has no ping; Session.Ping sends server/discover.
		if err := s.Ping(ctx); err != nil {
			t.Errorf("Ping: %v", err)
		}
	})
	t.Run("unknown_tool", func(t *testing.T) {
		res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "nope", Arguments: json.RawMessage(`{}`)}, nil)
		var rpc *jsonrpc.Error
		if !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeInvalidParams || rpc.Message != unknownTool {
			t.Errorf("calling an unknown tool: result %+v, error %v; want a *jsonrpc.Error %d %q", res, err, jsonrpc.CodeInvalidParams, unknownTool)
		}
		// The session goes on.
		if got := callText(t, ctx, s, "echo", map[string]any{"text": "after nope"}); got != "after nope" {
			t.Errorf("echo after the unknown tool: %q", got)
		}
	})
	t.Run("no_pending", func(t *testing.T) {
		if p := s.PendingRequests(); len(p) != 0 {
			t.Errorf("%d requests still pending after every call returned", len(p))
		}
	})
	if tap != nil {
		t.Run("http", func(t *testing.T) { checkModernHTTP(t, tap) })
	}
}

// httpExchange is one HTTP request of mcpi's client and the status it got.
type httpExchange struct {
	Method    string // the HTTP method
	Header    http.Header
	RPCMethod string // the JSON-RPC method of a POST's body
	Params    map[string]any
	Status    int
	Type      string // the response's Content-Type
}

// httpTap records the HTTP requests of mcpi's client (an http.RoundTripper).
type httpTap struct {
	mu sync.Mutex
	ex []httpExchange
}

// tapHTTP returns the transport to url and the tap that sees its requests.
func tapHTTP(t *testing.T, url string) (*transport.HTTPClient, *httpTap) {
	tap := &httpTap{}
	return &transport.HTTPClient{URL: url, Client: &http.Client{Transport: tap}, Logger: testLogger(t)}, tap
}

func (h *httpTap) RoundTrip(req *http.Request) (*http.Response, error) {
	e := httpExchange{Method: req.Method, Header: req.Header.Clone()}
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(b))
		var msg struct {
			Method string         `json:"method"`
			Params map[string]any `json:"params"`
		}
		if json.Unmarshal(b, &msg) == nil {
			e.RPCMethod, e.Params = msg.Method, msg.Params
		}
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if resp != nil {
		e.Status, e.Type = resp.StatusCode, resp.Header.Get("Content-Type")
	}
	h.mu.Lock()
	h.ex = append(h.ex, e)
	h.mu.Unlock()
	return resp, err
}

// all returns the exchanges so far.
func (h *httpTap) all() []httpExchange {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.ex)
}

// rpcMethods returns the JSON-RPC methods POSTed so far, in order.
func (h *httpTap) rpcMethods() []string {
	var out []string
	for _, e := range h.all() {
		if e.Method == http.MethodPost {
			out = append(out, e.RPCMethod)
		}
	}
	return out
}

// checkModernHTTP checks every HTTP request of a session of the 2026-07-28 era: POSTs
// only (no GET stream, no session to DELETE), the first one server/discover, no
// initialize, and the headers that mirror the body (MCP-Protocol-Version, Mcp-Method,
// Mcp-Name on tools/call), no Mcp-Session-Id.
func checkModernHTTP(t *testing.T, tap *httpTap) {
	t.Helper()
	ex := tap.all()
	if len(ex) == 0 {
		t.Fatal("no HTTP request seen")
	}
	if ex[0].RPCMethod != mcp.MethodServerDiscover {
		t.Errorf("first HTTP request: %s %s, want a POST of server/discover", ex[0].Method, ex[0].RPCMethod)
	}
	for i, e := range ex {
		if e.Method != http.MethodPost {
			t.Errorf("request %d: HTTP %s, want only POSTs in the 2026-07-28 era", i, e.Method)
			continue
		}
		if e.RPCMethod == mcp.MethodInitialize {
			t.Errorf("request %d: initialize sent to a server that answered server/discover", i)
		}
		if v := e.Header.Get("Mcp-Session-Id"); v != "" {
			t.Errorf("request %d (%s): Mcp-Session-Id %q in the 2026-07-28 era", i, e.RPCMethod, v)
		}
		if v := e.Header.Get("MCP-Protocol-Version"); v != mcp.ProtocolVersion20260728 {
			t.Errorf("request %d (%s): MCP-Protocol-Version %q, want %q", i, e.RPCMethod, v, mcp.ProtocolVersion20260728)
		}
		if v := e.Header.Get("Mcp-Method"); v != e.RPCMethod {
			t.Errorf("request %d: Mcp-Method %q, body method %q", i, v, e.RPCMethod)
		}
		if e.RPCMethod == mcp.MethodToolsCall {
			if v := e.Header.Get("Mcp-Name"); v != e.Params["name"] {
				t.Errorf("request %d: tools/call of %v with Mcp-Name %q", i, e.Params["name"], v)
			}
		} else if v := e.Header.Get("Mcp-Name"); v != "" {
			t.Errorf("request %d: %s with Mcp-Name %q", i, e.RPCMethod, v)
		}
		if accept := e.Header.Get("Accept"); !strings.Contains(accept, "application/json") || !strings.Contains(accept, "text/event-stream") {
			t.Errorf("request %d: Accept %q, want application/json and text/event-stream", i, accept)
		}
		if ct := e.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("request %d: Content-Type %q", i, ct)
		}
	}
}

// queuedRequests returns the requests queued for the user so far, in order. Their
// RequestEvents are published as they are queued, before the call that asked returns.
func queuedRequests(rec *recorder) []*client.Request {
	var out []*client.Request
	for _, e := range rec.snapshot() {
		if r, ok := e.(*client.RequestEvent); ok && !r.Settled {
			out = append(out, r.Request)
		}
	}
	return out
}

// askNameCalls returns the outbound tools/call requests of ask_name so far.
func askNameCalls(rec *recorder) []*jsonrpc.Request {
	var out []*jsonrpc.Request
	for _, req := range rec.requests(jsonrpc.Outbound, mcp.MethodToolsCall) {
		var p struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(req.Params, &p) == nil && p.Name == "ask_name" {
			out = append(out, req)
		}
	}
	return out
}

// connectWith connects mcpi's client, with opts (its OnRequest replaced by a test
// user's), to a peer.
func connectWith(t *testing.T, ctx context.Context, tr transport.Transport, opts client.Options) (*client.Session, *mrtrUser, error) {
	t.Helper()
	u := newUser(t)
	opts.Logger = testLogger(t)
	opts.OnRequest = u.answer
	s, err := client.New(mcp.Implementation{Name: "mcpi-interop", Version: "0.0.1"}, &opts).Connect(ctx, tr)
	if err == nil {
		t.Cleanup(func() { s.Close() })
	}
	return s, u, err
}

// noElicitation is a client that declares no elicitation (roots only).
var noElicitation = client.Options{Capabilities: &mcp.ClientCapabilities{Roots: &mcp.RootsCapability{}}}

// ts2MissingCapability is the TS SDK's -32021 error message for ask_name from a client
// that did not declare elicitation.
const ts2MissingCapability = "Cannot request input 'name' (elicitation/create): the request's client capabilities do not declare the required capability"

// checkMissingCapability checks the TS SDK's refusal of ask_name from a client that did
// not declare elicitation: -32021 with data.requiredCapabilities naming elicitation.
func checkMissingCapability(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		t.Fatal("ask_name without elicitation declared: want an error")
	}
	rpc := rpcError(t, err)
	if rpc.Code != -32021 || mcp.CodeMissingRequiredClientCapability != -32021 || rpc.Message != ts2MissingCapability {
		t.Errorf("error %d %q, want -32021 %q", rpc.Code, rpc.Message, ts2MissingCapability)
	}
	var data struct {
		RequiredCapabilities map[string]json.RawMessage `json:"requiredCapabilities"`
	}
	if json.Unmarshal(rpc.Data, &data) != nil || data.RequiredCapabilities["elicitation"] == nil {
		t.Errorf("error data %s, want requiredCapabilities naming elicitation", rpc.Data)
	}
}

// checkEnvelope checks the per-request _meta of a 2026-07-28 request.
func checkEnvelope(t *testing.T, params map[string]any) {
	t.Helper()
	meta, _ := params["_meta"].(map[string]any)
	if meta[mcp.MetaProtocolVersion] != mcp.ProtocolVersion20260728 {
		t.Errorf("_meta %v: want %s = %q", meta, mcp.MetaProtocolVersion, mcp.ProtocolVersion20260728)
	}
	caps, ok := meta[mcp.MetaClientCapabilities].(map[string]any)
	if !ok || caps["elicitation"] == nil {
		t.Errorf("_meta %v: want %s declaring elicitation", meta, mcp.MetaClientCapabilities)
	}
	if _, ok := caps["tasks"]; ok {
		t.Errorf("_meta %v: the 2025-11-25 tasks capability in a 2026-07-28 request", meta)
	}
}

// checkText checks a tool result of one text item.
func checkText(t *testing.T, res *mcp.CallToolResult, isError bool, text string) {
	t.Helper()
	if res == nil || res.IsError != isError || len(res.Content) != 1 || res.Content[0].Type != mcp.ContentTypeText || res.Content[0].Text != text {
		t.Errorf("result %+v, want one text item %q with isError %v", res, text, isError)
	}
}

// checkLegacySession checks that s speaks 2025-11-25 with the named server, after
// initialize.
func checkLegacySession(t *testing.T, s *client.Session, server string) {
	t.Helper()
	if s.Modern() {
		t.Fatalf("Session.Modern() = true, want a session of the 2025-11-25 era")
	}
	if v := s.ProtocolVersion(); v != mcp.LatestProtocolVersion {
		t.Errorf("ProtocolVersion() = %q, want %q", v, mcp.LatestProtocolVersion)
	}
	if s.Discover() != nil {
		t.Errorf("Discover() = %+v in a session of the 2025-11-25 era", s.Discover())
	}
	if ir := s.InitializeResult(); ir.ServerInfo.Name != server || ir.ServerInfo.Version != peerVersion {
		t.Errorf("ServerInfo = %+v, want {Name: %q, Version: %q}", ir.ServerInfo, server, peerVersion)
	}
}

// rpcError returns the *jsonrpc.Error in err, failing the test if there is none.
func rpcError(t *testing.T, err error) *jsonrpc.Error {
	t.Helper()
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) {
		t.Fatalf("error %v (%T): want a *jsonrpc.Error inside", err, err)
	}
	return rpc
}
