package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// envInterop set to "1" (as scripts/test.sh does in CI) turns a missing node or SDK into
// a test failure instead of a skip.
const envInterop = "MCPI_INTEROP"

// testTimeout bounds one test, so that a hung peer fails it instead of hanging the run.
const testTimeout = 20 * time.Second

// tsDir is the folder of the TypeScript peers and their node_modules.
var tsDir = func() string {
	d, err := filepath.Abs("ts")
	if err != nil {
		panic(err)
	}
	return d
}()

// buildDir holds binaries built for the tests; TestMain removes it.
var buildDir string

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

var (
	envOnce sync.Once
	envNode string // path of node, when usable
	envErr  string // why the TS peers cannot run
)

// checkEnv finds node and the installed, pinned SDK.
func checkEnv() {
	node, problem := findNode()
	if problem != "" {
		envErr = problem
		return
	}
	want, err := pinnedSDK()
	if err != nil {
		envErr = err.Error()
		return
	}
	var pkg struct{ Version string }
	b, err := os.ReadFile(filepath.Join(tsDir, "node_modules", "@modelcontextprotocol", "sdk", "package.json"))
	if err != nil {
		envErr = "the TypeScript SDK is not installed in internal/interop/ts/node_modules (run `bash scripts/interop-tools.sh`)"
		return
	}
	if json.Unmarshal(b, &pkg) != nil || pkg.Version != want {
		envErr = fmt.Sprintf("internal/interop/ts/node_modules holds @modelcontextprotocol/sdk %q, package.json pins %q (run `bash scripts/interop-tools.sh`)", pkg.Version, want)
		return
	}
	envNode = node
}

// findNode returns node from PATH, or why there is none that will do (20 or newer).
func findNode() (node, problem string) {
	node, err := exec.LookPath("node")
	if err != nil {
		return "", "node is not on PATH (install Node.js 20 or newer)"
	}
	out, err := exec.Command(node, "--version").Output()
	if err != nil {
		return "", fmt.Sprintf("%s --version failed: %v", node, err)
	}
	version := strings.TrimSpace(string(out))
	major, _ := strconv.Atoi(strings.SplitN(strings.TrimPrefix(version, "v"), ".", 2)[0])
	if major < 20 {
		return "", fmt.Sprintf("node %s at %s is too old (20 or newer needed)", version, node)
	}
	return node, ""
}

// pinnedSDK is the exact SDK version ts/package.json asks for.
func pinnedSDK() (string, error) {
	b, err := os.ReadFile(filepath.Join(tsDir, "package.json"))
	if err != nil {
		return "", err
	}
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		return "", fmt.Errorf("internal/interop/ts/package.json: %v", err)
	}
	v := pkg.Dependencies["@modelcontextprotocol/sdk"]
	if !regexp.MustCompile(`^1\.32\.\d+$`).MatchString(v) {
		return "", fmt.Errorf("internal/interop/ts/package.json must pin @modelcontextprotocol/sdk to an exact 1.32.x, found %q", v)
	}
	return v, nil
}

// needNode returns the path of node, or ends the test: a skip normally, a failure with
// MCPI_INTEROP=1.
func needNode(t *testing.T) string {
	t.Helper()
	envOnce.Do(checkEnv)
	if envErr == "" {
		return envNode
	}
	if os.Getenv(envInterop) == "1" {
		t.Fatalf("the TypeScript SDK interop test cannot run: %s; %s=1 makes that a failure", envErr, envInterop)
	}
	t.Skipf("skipping the TypeScript SDK interop test: %s; set %s=1 to make this a failure", envErr, envInterop)
	return ""
}

var (
	buildOnce sync.Once
	mcpiBin   string
	buildErr  error
)

// mcpiBinary builds cmd/mcpi once per test run.
func mcpiBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "mcpi-interop-")
		if buildErr != nil {
			return
		}
		mcpiBin = filepath.Join(buildDir, "mcpi")
		cmd := exec.Command("go", "build", "-o", mcpiBin, "github.com/mcpi-dev/mcpi/cmd/mcpi")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			buildErr = fmt.Errorf("go build ./cmd/mcpi: %v\n%s", err, out.String())
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return mcpiBin
}

// testContext bounds a test.
func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

// testLogger writes to the test's output (shown with -v or on failure); the TS peers'
// stderr arrives here too.
func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelInfo}))
}

// recorder keeps every event of a session, for tests to wait on (with the test's
// deadline, never a fixed sleep) and to look at the raw traffic afterwards.
//
// It holds two subscriptions. One is pumped by a goroutine and feeds waitFor, which any
// goroutine may call. The other is drained on demand by snapshot: the session queues
// events synchronously (the raw-traffic tap runs as each message is read and before each
// is written), so a snapshot holds everything that happened before the call that
// preceded it returned.
type recorder struct {
	mu      sync.Mutex
	live    []client.Event
	changed chan struct{} // closed and replaced whenever live grows or the session ends
	ended   bool

	logMu  sync.Mutex
	logSub *client.Subscription
	log    []client.Event
}

func record(s *client.Session) *recorder {
	r := &recorder{changed: make(chan struct{}), logSub: s.Subscribe()}
	sub := s.Subscribe()
	go func() {
		for e := range sub.All(context.Background()) {
			r.mu.Lock()
			r.live = append(r.live, e)
			close(r.changed)
			r.changed = make(chan struct{})
			r.mu.Unlock()
		}
		r.mu.Lock()
		r.ended = true
		close(r.changed)
		r.changed = make(chan struct{})
		r.mu.Unlock()
	}()
	return r
}

// drained is a context that is already done: Next with it returns queued events only.
var drained = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()

// snapshot returns every event so far, in order.
func (r *recorder) snapshot() []client.Event {
	r.logMu.Lock()
	defer r.logMu.Unlock()
	for {
		e, ok := r.logSub.Next(drained)
		if !ok {
			return slices.Clone(r.log)
		}
		r.log = append(r.log, e)
	}
}

// waitFor returns the first event that matches, waiting for it until ctx ends.
func (r *recorder) waitFor(ctx context.Context, what string, match func(client.Event) bool) (client.Event, error) {
	seen := 0
	for {
		r.mu.Lock()
		for ; seen < len(r.live); seen++ {
			if match(r.live[seen]) {
				e := r.live[seen]
				r.mu.Unlock()
				return e, nil
			}
		}
		ended, changed := r.ended, r.changed
		r.mu.Unlock()
		if ended {
			return nil, fmt.Errorf("the session ended before %s", what)
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for %s: %w", what, ctx.Err())
		}
	}
}

// waitPolled waits until the client has answered a tasks/get for taskID, so that the
// peer has seen the task in a non-terminal state at least once.
func (r *recorder) waitPolled(ctx context.Context, taskID string) error {
	gets := map[jsonrpc.ID]bool{}
	_, err := r.waitFor(ctx, "a tasks/get of task "+taskID, func(e client.Event) bool {
		m, ok := e.(*client.MessageEvent)
		if !ok {
			return false
		}
		switch msg := m.Message.(type) {
		case *jsonrpc.Request:
			if m.Dir == jsonrpc.Inbound && msg.Method == mcp.MethodTasksGet {
				var p struct {
					TaskID string `json:"taskId"`
				}
				if json.Unmarshal(msg.Params, &p) == nil && p.TaskID == taskID {
					gets[msg.ID] = true
				}
			}
		case *jsonrpc.Response:
			return m.Dir == jsonrpc.Outbound && gets[msg.ID]
		}
		return false
	})
	return err
}

// requests returns the raw JSON-RPC requests and notifications of one method seen in one
// direction, in order.
func (r *recorder) requests(dir jsonrpc.Direction, method string) []*jsonrpc.Request {
	var out []*jsonrpc.Request
	for _, e := range r.snapshot() {
		if m, ok := e.(*client.MessageEvent); ok && m.Dir == dir {
			if req, ok := m.Message.(*jsonrpc.Request); ok && req.Method == method {
				out = append(out, req)
			}
		}
	}
	return out
}

// responseTo returns the raw response sent in direction dir to the request with id.
func (r *recorder) responseTo(dir jsonrpc.Direction, id jsonrpc.ID) *jsonrpc.Response {
	for _, e := range r.snapshot() {
		if m, ok := e.(*client.MessageEvent); ok && m.Dir == dir {
			if resp, ok := m.Message.(*jsonrpc.Response); ok && resp.ID == id {
				return resp
			}
		}
	}
	return nil
}

// paramsOf decodes a request's params into a generic map.
func paramsOf(t *testing.T, req *jsonrpc.Request) map[string]any {
	t.Helper()
	var m map[string]any
	if len(req.Params) > 0 {
		if err := json.Unmarshal(req.Params, &m); err != nil {
			t.Fatalf("params of %s: %v", req.Method, err)
		}
	}
	return m
}

// callText calls a tool and returns the text of its single text item.
func callText(t *testing.T, ctx context.Context, s *client.Session, name string, args any) string {
	t.Helper()
	p := &mcp.CallToolParams{Name: name}
	if args != nil {
		raw, err := json.Marshal(args)
		if err != nil {
			t.Fatal(err)
		}
		p.Arguments = raw
	}
	res, err := s.CallTool(ctx, p, nil)
	if err != nil {
		t.Fatalf("calling %s: %v", name, err)
	}
	if res.IsError || len(res.Content) != 1 || res.Content[0].Type != mcp.ContentTypeText {
		t.Fatalf("calling %s: want one text item, got %+v", name, res)
	}
	return res.Content[0].Text
}

// canon re-encodes JSON with sorted keys, for exact comparisons that ignore key order.
func canon(t *testing.T, v any) string {
	t.Helper()
	var raw []byte
	switch x := v.(type) {
	case json.RawMessage:
		raw = x
	case []byte:
		raw = x
	default:
		var err error
		if raw, err = json.Marshal(v); err != nil {
			t.Fatal(err)
		}
	}
	var g any
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatalf("not JSON: %s", raw)
	}
	out, err := json.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// envWire set to "1" logs every message of a session at the end of its test, for
// checking docs/ts-sdk-interop.md against what the SDK really sends (run with -v).
const envWire = "MCPI_INTEROP_WIRE"

func (r *recorder) logWire(t *testing.T) {
	t.Helper()
	if os.Getenv(envWire) != "1" {
		return
	}
	for _, e := range r.snapshot() {
		if m, ok := e.(*client.MessageEvent); ok {
			b, _ := jsonrpc.EncodeMessage(m.Message)
			arrow := "->"
			if m.Dir == jsonrpc.Inbound {
				arrow = "<-"
			}
			t.Logf("%s %s", arrow, b)
		}
	}
}
