package interop

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"testing"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/transport"
)

// mcpi's client against the TypeScript SDK v2 server ts2/server.mjs (protocol revision
// 2026-07-28), helpers in peers2026_test.go:
//
//   - TestTS2HTTP: strict Streamable HTTP (legacy 'reject'). Auto mode picks 2026-07-28
//     with server/discover alone; the tools, MRTR answered every way, an unknown tool, the
//     HTTP headers; 2026-07-28 forced works too; 2025-11-25 forced is refused with -32022.
//   - TestTS2Stdio: the same over stdio, strict.
//   - TestTS2Legacy: --legacy over HTTP and stdio, which also serves the 2025-11-25 era:
//     auto mode still picks 2026-07-28, and 2025-11-25 forced initializes.

// ts2UnknownTool is the message of the TS SDK's error for tools/call of an unknown tool.
const ts2UnknownTool = "Tool nope not found"

// ts2Supported is what server/discover of the TS SDK v2 names.
var ts2Supported = []string{mcp.ProtocolVersion20260728}

func TestTS2HTTP(t *testing.T) {
	ctx := testContext(t)
	url := startTS2HTTP(t, ctx)

	t.Run("auto", func(t *testing.T) {
		tr, tap := tapHTTP(t, url)
		s, u, err := connectPeer(t, ctx, tr, client.ProtocolAuto)
		if err != nil {
			t.Fatalf("connecting in auto mode: %v", err)
		}
		checkModernSession(t, s, ts2ServerName, ts2Supported)
		exerciseModern(t, ctx, s, u, tap, ts2UnknownTool)
	})

	t.Run("forced_2026", func(t *testing.T) {
		tr, tap := tapHTTP(t, url)
		s, _, err := connectPeer(t, ctx, tr, mcp.ProtocolVersion20260728)
		if err != nil {
			t.Fatalf("connecting with 2026-07-28 forced: %v", err)
		}
		checkModernSession(t, s, ts2ServerName, ts2Supported)
		exerciseTools(t, ctx, s)
		checkModernHTTP(t, tap)
	})

	// The strict server refuses initialize: HTTP 400 with the JSON-RPC error
	// {"code":-32022,"message":"Unsupported protocol version: 2025-11-25",
	//  "data":{"supported":["2026-07-28"],"requested":"2025-11-25"}}.
	t.Run("forced_2025_refused", func(t *testing.T) {
		tr, tap := tapHTTP(t, url)
		s, _, err := connectPeer(t, ctx, tr, mcp.LatestProtocolVersion)
		if err == nil {
			t.Fatalf("connecting with 2025-11-25 forced to a strict 2026-07-28 server succeeded (modern %v, version %q)", s.Modern(), s.ProtocolVersion())
		}
		checkUnsupported2025(t, err, "Unsupported protocol version: 2025-11-25")
		// The JSON-RPC error of the 400's body is the request's answer, not an HTTP error.
		var herr *transport.HTTPError
		if errors.As(err, &herr) {
			t.Errorf("error %v: the JSON-RPC error came wrapped in an HTTP error (%d)", err, herr.StatusCode)
		}
		ex := tap.all()
		if len(ex) != 1 || ex[0].Method != http.MethodPost || ex[0].RPCMethod != mcp.MethodInitialize || ex[0].Status != http.StatusBadRequest {
			t.Fatalf("HTTP requests %+v, want one POST of initialize answered 400", ex)
		}
		if v := ex[0].Header.Get("MCP-Protocol-Version"); v != "" {
			t.Errorf("initialize carried MCP-Protocol-Version %q", v)
		}
		if v := ex[0].Params["protocolVersion"]; v != mcp.LatestProtocolVersion {
			t.Errorf("initialize asked for protocolVersion %v, want %q", v, mcp.LatestProtocolVersion)
		}
	})

	t.Run("try_first_2025", func(t *testing.T) {
		tr, tap := tapHTTP(t, url)
		s, _, err := connectWith(t, ctx, tr, client.Options{TryFirst: mcp.LatestProtocolVersion})
		checkTS2TryFirst(t, s, err)
		exerciseTools(t, ctx, s)
		methods := tap.rpcMethods()
		if len(methods) < 2 || methods[0] != mcp.MethodInitialize || methods[1] != mcp.MethodServerDiscover || slices.Contains(methods[2:], mcp.MethodInitialize) {
			t.Errorf("POSTed %q, want initialize (refused), then server/discover and the 2026-07-28 session", methods)
		}
		if ex := tap.all(); len(ex) > 0 && ex[0].Status != http.StatusBadRequest {
			t.Errorf("initialize answered %d, want 400", ex[0].Status)
		}
	})

	// The error of a refused input request names tools/call once, as every other error
	// of a tools/call does ("tools/call: <why>"; a refused sampling or elicitation
	// request of the 2025-11-25 era reads "tools/call: <message> (-1)").
	t.Run("refusal_error_text", func(t *testing.T) {
		s, u, err := connectPeer(t, ctx, &transport.HTTPClient{URL: url}, "")
		if err != nil {
			t.Fatalf("connecting: %v", err)
		}
		u.mode.Store(answerRefuse)
		_, err = s.CallTool(ctx, &mcp.CallToolParams{Name: "ask_name"}, nil)
		if err == nil {
			t.Fatal("ask_name refused: want an error")
		}
		want := `tools/call: the server's input request "name" (elicitation/create): ` + refuseMessage + " (-1)"
		if err.Error() != want {
			t.Errorf("error text %q, want %q", err.Error(), want)
		}
	})

	// A call whose context ends while the user has not answered the server's input
	// request fails with the context's error, as a call of the 2025-11-25 era does
	// (jsonrpc.Conn.Call: "If ctx ends first ... ctx's error is returned").
	t.Run("cancelled_error", func(t *testing.T) {
		s, u, err := connectPeer(t, ctx, &transport.HTTPClient{URL: url}, "")
		if err != nil {
			t.Fatalf("connecting: %v", err)
		}
		u.mode.Store(answerHold)
		rec := record(s)
		callCtx, cancel := context.WithCancel(ctx)
		defer cancel()
		go func() {
			if _, err := rec.waitFor(callCtx, "ask_name's input request", func(e client.Event) bool {
				r, ok := e.(*client.RequestEvent)
				return ok && !r.Settled
			}); err == nil {
				cancel()
			}
		}()
		_, err = s.CallTool(callCtx, &mcp.CallToolParams{Name: "ask_name"}, nil)
		if callCtx.Err() == nil {
			t.Fatalf("ask_name ended before it was cancelled: %v", err)
		}
		if !errors.Is(err, context.Canceled) {
			t.Errorf("error %q does not match context.Canceled", err)
		}
	})

	t.Run("no_elicitation", func(t *testing.T) {
		tr, tap := tapHTTP(t, url)
		s, u, err := connectWith(t, ctx, tr, noElicitation)
		if err != nil {
			t.Fatalf("connecting: %v", err)
		}
		res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "ask_name"}, nil)
		if res != nil {
			t.Errorf("ask_name without elicitation declared: result %+v", res)
		}
		checkMissingCapability(t, err)
		if n := u.count(); n != 0 {
			t.Errorf("the user saw %d requests, want none", n)
		}
		ex := tap.all()
		if last := ex[len(ex)-1]; last.RPCMethod != mcp.MethodToolsCall || last.Status != http.StatusBadRequest {
			t.Errorf("last HTTP exchange %+v, want the tools/call answered 400", last)
		}
	})
}

// checkTS2TryFirst checks auto mode with TryFirst 2025-11-25 against a strict TS server:
// initialize is refused with -32022, and mcpi goes on with server/discover.
func checkTS2TryFirst(t *testing.T, s *client.Session, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("connecting in auto mode with TryFirst 2025-11-25: %v", err)
	}
	checkModernSession(t, s, ts2ServerName, ts2Supported)
}

// checkUnsupported2025 checks the -32022 error of a strict TS server asked for 2025-11-25.
func checkUnsupported2025(t *testing.T, err error, message string) {
	t.Helper()
	rpc := rpcError(t, err)
	if rpc.Code != -32022 || mcp.CodeUnsupportedProtocolVersion != -32022 {
		t.Errorf("error code %d, want -32022 (%v)", rpc.Code, err)
	}
	if rpc.Message != message {
		t.Errorf("error message %q, want %q", rpc.Message, message)
	}
	var data struct {
		Supported []string `json:"supported"`
		Requested string   `json:"requested"`
	}
	if json.Unmarshal(rpc.Data, &data) != nil || !slices.Equal(data.Supported, ts2Supported) || data.Requested != mcp.LatestProtocolVersion {
		t.Errorf("error data %s, want supported [2026-07-28], requested 2025-11-25", rpc.Data)
	}
}

func TestTS2Stdio(t *testing.T) {
	ctx := testContext(t)

	t.Run("auto", func(t *testing.T) {
		s, u, err := connectPeer(t, ctx, ts2Stdio(t), "")
		if err != nil {
			t.Fatalf("connecting in auto mode: %v", err)
		}
		checkModernSession(t, s, ts2ServerName, ts2Supported)
		exerciseModern(t, ctx, s, u, nil, ts2UnknownTool)
	})

	// Over stdio the strict server answers initialize with the same -32022 error.
	t.Run("forced_2025_refused", func(t *testing.T) {
		s, _, err := connectPeer(t, ctx, ts2Stdio(t), mcp.LatestProtocolVersion)
		if err == nil {
			t.Fatalf("connecting with 2025-11-25 forced to a strict 2026-07-28 server succeeded (modern %v, version %q)", s.Modern(), s.ProtocolVersion())
		}
		checkUnsupported2025(t, err, "Unsupported protocol version: 2025-11-25")
	})

	t.Run("try_first_2025", func(t *testing.T) {
		s, _, err := connectWith(t, ctx, ts2Stdio(t), client.Options{TryFirst: mcp.LatestProtocolVersion})
		checkTS2TryFirst(t, s, err)
		exerciseTools(t, ctx, s)
	})

	t.Run("no_elicitation", func(t *testing.T) {
		s, u, err := connectWith(t, ctx, ts2Stdio(t), noElicitation)
		if err != nil {
			t.Fatalf("connecting: %v", err)
		}
		res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "ask_name"}, nil)
		if res != nil {
			t.Errorf("ask_name without elicitation declared: result %+v", res)
		}
		checkMissingCapability(t, err)
		if n := u.count(); n != 0 {
			t.Errorf("the user saw %d requests, want none", n)
		}
	})
}

// ts2LegacyHTTPAskName is what the TS SDK answers, in the 2025-11-25 era over stateless
// HTTP (legacy 'stateless'), to a tool that asks for input: it cannot send the
// elicitation/create request, so the tool call fails as a tool error.
const ts2LegacyHTTPAskName = "Cannot request input 'name' (elicitation/create): the client on this 2025-era connection did not declare the required capability (no client capabilities are available on this connection — per-request legacy serving cannot receive server-to-client requests)"

func TestTS2Legacy(t *testing.T) {
	ctx := testContext(t)
	url := startTS2HTTP(t, ctx, "--legacy")

	transports := []struct {
		name string
		tr   func(t *testing.T) (transport.Transport, *httpTap)
	}{
		{"http", func(t *testing.T) (transport.Transport, *httpTap) { return tapHTTP(t, url) }},
		{"stdio", func(t *testing.T) (transport.Transport, *httpTap) { return ts2Stdio(t, "--legacy"), nil }},
	}
	for _, tc := range transports {
		t.Run(tc.name, func(t *testing.T) {
			// TryFirst 2025-11-25: initialize is served, and the session is of that era.
			t.Run("try_first_2025", func(t *testing.T) {
				tr, tap := tc.tr(t)
				s, _, err := connectWith(t, ctx, tr, client.Options{TryFirst: mcp.LatestProtocolVersion})
				if err != nil {
					t.Fatalf("connecting in auto mode with TryFirst 2025-11-25: %v", err)
				}
				checkLegacySession(t, s, ts2ServerName)
				if tap != nil {
					if got, want := tap.rpcMethods(), []string{"initialize", "notifications/initialized"}; !slices.Equal(got, want) {
						t.Errorf("POSTed %q, want %q", got, want)
					}
				}
			})
			t.Run("auto", func(t *testing.T) {
				tr, tap := tc.tr(t)
				s, u, err := connectPeer(t, ctx, tr, "")
				if err != nil {
					t.Fatalf("connecting in auto mode: %v", err)
				}
				checkModernSession(t, s, ts2ServerName, ts2Supported)
				exerciseModern(t, ctx, s, u, tap, ts2UnknownTool)
			})
			t.Run("forced_2025", func(t *testing.T) {
				tr, tap := tc.tr(t)
				s, u, err := connectPeer(t, ctx, tr, mcp.LatestProtocolVersion)
				if err != nil {
					t.Fatalf("connecting with 2025-11-25 forced: %v", err)
				}
				checkLegacySession(t, s, ts2ServerName)
				exerciseTools(t, ctx, s)

				// ask_name in the 2025-11-25 era: over stdio the SDK turns the tool's
				// input_required into a real elicitation/create request to the client;
				// over stateless HTTP it cannot, and the call is a tool error.
				res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "ask_name"}, nil)
				if err != nil {
					t.Fatalf("ask_name: %v", err)
				}
				reqs := u.since(0)
				if tap != nil {
					checkText(t, res, true, ts2LegacyHTTPAskName)
					if len(reqs) != 0 {
						t.Errorf("ask_name over stateless HTTP: the user saw %d requests, want none", len(reqs))
					}
					if got, want := tap.rpcMethods(), []string{"initialize", "notifications/initialized", "tools/list", "tools/call", "tools/call", "tools/call"}; !slices.Equal(got, want) {
						t.Errorf("POSTed %q, want %q", got, want)
					}
					for _, e := range tap.all() {
						if e.RPCMethod != mcp.MethodInitialize && e.Header.Get("MCP-Protocol-Version") != mcp.LatestProtocolVersion {
							t.Errorf("%s %s: MCP-Protocol-Version %q, want %q", e.Method, e.RPCMethod, e.Header.Get("MCP-Protocol-Version"), mcp.LatestProtocolVersion)
						}
						if e.Header.Get("Mcp-Method") != "" {
							t.Errorf("%s %s: Mcp-Method %q in the 2025-11-25 era", e.Method, e.RPCMethod, e.Header.Get("Mcp-Method"))
						}
					}
					return
				}
				checkText(t, res, false, "Hello, Ada!")
				if len(reqs) != 1 {
					t.Fatalf("ask_name over stdio: the user saw %d requests, want 1", len(reqs))
				}
				r := reqs[0]
				if !r.ID.IsValid() || r.InputKey != "" || r.Method != mcp.MethodElicitationCreate || r.Elicitation == nil || r.Elicitation.Message != askNameMessage {
					t.Errorf("ask_name over stdio: request ID %v, InputKey %q, Method %q, Elicitation %+v; want an elicitation/create server request %q",
						r.ID, r.InputKey, r.Method, r.Elicitation, askNameMessage)
				}
			})
		})
	}
}
