package interop

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/transport"
)

// mcpi's client against the go-sdk v1.8.0 server gosdk/main.go (.tools/bin/gosdk-server,
// stateless Streamable HTTP), helpers in peers2026_test.go. TestGoSDK runs four servers:
// the default (every protocol version go-sdk speaks, SSE responses), -strict (2026-07-28
// only), -json (application/json responses) and -strict -json. Against each:
//
//   - auto: auto mode picks 2026-07-28 with server/discover alone; the tools, MRTR answered
//     every way, an unknown tool (which go-sdk answers with HTTP 400 and a JSON-RPC error
//     body), the HTTP headers and the response framing;
//   - forced_2026: 2026-07-28 forced;
//   - forced_2025: 2025-11-25 forced. The default server initializes, lists and calls, but
//     cannot run ask_name (stateless go-sdk keeps no client capabilities); -strict refuses
//     the first request that carries MCP-Protocol-Version: 2025-11-25 with a text/plain 400.

// gosdkUnknownTool is the message of go-sdk's error for tools/call of an unknown tool.
const gosdkUnknownTool = `unknown tool "nope"`

// gosdkAllVersions is what server/discover of go-sdk names without -strict.
var gosdkAllVersions = []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// gosdkStrictRefusal is the text/plain body of go-sdk -strict's 400 for a 2025-11-25 request.
const gosdkStrictRefusal = "Bad Request: Unsupported protocol version (supported versions: 2026-07-28)"

// gosdkNoElicitation is go-sdk's error, in the 2025-11-25 era on a stateless server, for a
// tool that asks for input: it has no client capabilities to send elicitation/create with
// (nor a stream to send it on). The code is 0.
const gosdkNoElicitation = `multi-round-trip: fulfilling input request "name": client does not support elicitation`

func TestGoSDK(t *testing.T) {
	needGoSDK(t)
	servers := []struct {
		name      string
		flags     []string
		supported []string
	}{
		{"default", nil, gosdkAllVersions},
		{"strict", []string{"-strict"}, []string{mcp.ProtocolVersion20260728}},
		{"json", []string{"-json"}, gosdkAllVersions},
		{"strict_json", []string{"-strict", "-json"}, []string{mcp.ProtocolVersion20260728}},
	}
	for _, srv := range servers {
		t.Run(srv.name, func(t *testing.T) {
			ctx := testContext(t)
			url := startGoSDK(t, ctx, srv.flags...)
			strict := slices.Contains(srv.flags, "-strict")
			jsonResponses := slices.Contains(srv.flags, "-json")

			t.Run("auto", func(t *testing.T) {
				tr, tap := tapHTTP(t, url)
				s, u, err := connectPeer(t, ctx, tr, client.ProtocolAuto)
				if err != nil {
					t.Fatalf("connecting in auto mode: %v", err)
				}
				checkModernSession(t, s, gosdkServerName, srv.supported)
				exerciseModern(t, ctx, s, u, tap, gosdkUnknownTool)
				t.Run("framing", func(t *testing.T) { checkGoSDKFraming(t, tap, jsonResponses) })
			})

			t.Run("forced_2026", func(t *testing.T) {
				tr, tap := tapHTTP(t, url)
				s, _, err := connectPeer(t, ctx, tr, mcp.ProtocolVersion20260728)
				if err != nil {
					t.Fatalf("connecting with 2026-07-28 forced: %v", err)
				}
				checkModernSession(t, s, gosdkServerName, srv.supported)
				exerciseTools(t, ctx, s)
				checkModernHTTP(t, tap)
			})

			t.Run("forced_2025", func(t *testing.T) {
				tr, tap := tapHTTP(t, url)
				s, u, err := connectPeer(t, ctx, tr, mcp.LatestProtocolVersion)
				if strict {
					// initialize itself is served (go-sdk always serves it, answering
					// 2025-11-25); notifications/initialized, the first request carrying
					// MCP-Protocol-Version: 2025-11-25, is refused.
					if err == nil {
						t.Fatalf("connecting with 2025-11-25 forced to go-sdk -strict succeeded (modern %v, version %q)", s.Modern(), s.ProtocolVersion())
					}
					var herr *transport.HTTPError
					if !errors.As(err, &herr) || herr.StatusCode != http.StatusBadRequest || herr.Message != gosdkStrictRefusal || herr.RPC != nil {
						t.Errorf("error %v: want a *transport.HTTPError 400 %q with no JSON-RPC error", err, gosdkStrictRefusal)
					}
					var rpc *jsonrpc.Error
					if errors.As(err, &rpc) {
						t.Errorf("error %v holds a *jsonrpc.Error %+v; the body was text/plain", err, rpc)
					}
					ex := tap.all()
					if len(ex) != 2 || ex[0].RPCMethod != mcp.MethodInitialize || ex[0].Status != http.StatusOK ||
						ex[1].RPCMethod != mcp.NotificationInitialized || ex[1].Status != http.StatusBadRequest ||
						ex[1].Header.Get("MCP-Protocol-Version") != mcp.LatestProtocolVersion || !strings.HasPrefix(ex[1].Type, "text/plain") {
						t.Errorf("HTTP exchanges %+v: want initialize (200), then notifications/initialized with MCP-Protocol-Version 2025-11-25 (400 text/plain)", ex)
					}
					return
				}
				if err != nil {
					t.Fatalf("connecting with 2025-11-25 forced: %v", err)
				}
				checkLegacySession(t, s, gosdkServerName)
				exerciseTools(t, ctx, s)

				res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "ask_name"}, nil)
				if err == nil {
					t.Fatalf("ask_name in the 2025-11-25 era on stateless go-sdk: want an error, got %+v", res)
				}
				rpc := rpcError(t, err)
				if rpc.Code != 0 || rpc.Message != gosdkNoElicitation {
					t.Errorf("ask_name: error %d %q, want 0 %q", rpc.Code, rpc.Message, gosdkNoElicitation)
				}
				if n := u.count(); n != 0 {
					t.Errorf("ask_name: the user saw %d requests, want none", n)
				}
				for _, e := range tap.all() {
					if e.Header.Get("Mcp-Method") != "" || e.Header.Get("Mcp-Name") != "" {
						t.Errorf("%s %s: 2026-07-28 headers in the 2025-11-25 era: %v", e.Method, e.RPCMethod, e.Header)
					}
					if _, ok := e.Params["_meta"]; ok && e.RPCMethod != "" {
						t.Errorf("%s: a _meta in the 2025-11-25 era: %v", e.RPCMethod, e.Params)
					}
				}
			})

			// TryFirst 2025-11-25 (a remembered answer): go-sdk serves initialize, so the
			// session is of that era; with -strict the initialized notification is refused
			// (a text/plain 400), and mcpi goes on with server/discover: a remembered era
			// may be stale.
			t.Run("try_first_2025", func(t *testing.T) {
				tr, tap := tapHTTP(t, url)
				s, _, err := connectWith(t, ctx, tr, client.Options{TryFirst: mcp.LatestProtocolVersion})
				want := []string{"initialize", "notifications/initialized"}
				if strict {
					want = append(want, "server/discover")
				}
				if got := tap.rpcMethods(); !slices.Equal(got, want) {
					t.Errorf("POSTed %q, want %q", got, want)
				}
				if err != nil {
					t.Fatalf("connecting in auto mode with TryFirst 2025-11-25: %v", err)
				}
				if strict {
					checkModernSession(t, s, gosdkServerName, []string{mcp.ProtocolVersion20260728})
					exerciseTools(t, ctx, s)
					return
				}
				checkLegacySession(t, s, gosdkServerName)
			})

			// A client that did not declare elicitation: go-sdk asks for it anyway, and
			// mcpi refuses the input request itself (-32601) without a second round.
			t.Run("no_elicitation", func(t *testing.T) {
				tr, tap := tapHTTP(t, url)
				s, u, err := connectWith(t, ctx, tr, noElicitation)
				if err != nil {
					t.Fatalf("connecting: %v", err)
				}
				res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "ask_name"}, nil)
				if err == nil {
					t.Fatalf("ask_name without elicitation declared: want an error, got %+v", res)
				}
				var ie *client.InputError
				if !errors.As(err, &ie) || ie.Key != "name" || ie.Method != mcp.MethodElicitationCreate {
					t.Errorf("error %v (%T): want a *client.InputError for key \"name\", elicitation/create", err, err)
				}
				rpc := rpcError(t, err)
				if rpc.Code != jsonrpc.CodeMethodNotFound || rpc.Message != "this client does not support elicitation" {
					t.Errorf("error %d %q inside, want -32601 \"this client does not support elicitation\"", rpc.Code, rpc.Message)
				}
				if n := u.count(); n != 0 {
					t.Errorf("the user saw %d requests, want none", n)
				}
				calls := 0
				for _, m := range tap.rpcMethods() {
					if m == mcp.MethodToolsCall {
						calls++
					}
				}
				if calls != 1 {
					t.Errorf("%d tools/call POSTed, want 1 (no second round)", calls)
				}
			})
		})
	}
}

// checkGoSDKFraming checks how go-sdk framed its answers: results as SSE by default and
// as application/json with -json; errors (the unknown tool's 400) as application/json.
func checkGoSDKFraming(t *testing.T, tap *httpTap, jsonResponses bool) {
	t.Helper()
	var results, errs int
	for _, e := range tap.all() {
		switch {
		case e.Status == http.StatusOK:
			results++
			want := "text/event-stream"
			if jsonResponses {
				want = "application/json"
			}
			if !strings.HasPrefix(e.Type, want) {
				t.Errorf("%s: 200 with Content-Type %q, want %s", e.RPCMethod, e.Type, want)
			}
		case e.Status == http.StatusBadRequest && e.RPCMethod == mcp.MethodToolsCall && e.Params["name"] == "nope":
			errs++
			if !strings.HasPrefix(e.Type, "application/json") {
				t.Errorf("the unknown tool's 400: Content-Type %q, want application/json", e.Type)
			}
		default:
			t.Errorf("%s %s: unexpected status %d", e.Method, e.RPCMethod, e.Status)
		}
	}
	if results == 0 || errs != 1 {
		t.Errorf("%d results and %d unknown-tool errors, want some results and one error", results, errs)
	}
}
