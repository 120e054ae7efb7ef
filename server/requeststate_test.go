package server_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
)

// badState is the answer to a requestState this server did not give this caller.
const badState = "requestState is invalid: this server did not issue it to this caller, or it was changed; send the request again without it"

// TestRequestStateBoundToCaller: a requestState is the caller's: one obtained with
// Alice's credentials is refused from Mallory's (and from a caller without any, and
// the other way round), as a bad state is, and what it holds (the answers given so
// far) cannot be read from it. It was accepted from anyone, its answers in clear
// base64.
func TestRequestStateBoundToCaller(t *testing.T) {
	srv := modernServer(nil)
	defer srv.Close()
	ts := serveHTTP(t, srv)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	caps := `{"elicitation":{},"sampling":{}}`
	call := func(auth string, extra map[string]any) (map[string]json.RawMessage, *jsonrpc.Error) {
		t.Helper()
		params := map[string]any{"name": "ask", "arguments": map[string]any{"x": 1}, "_meta": meta(caps)}
		for k, v := range extra {
			params[k] = v
		}
		hdr := map[string]string{}
		if auth != "" {
			hdr["Authorization"] = auth
		}
		return decodeHTTP(t, postModern(t, ctx, ts.URL+"/mcp", mcp.MethodToolsCall, params, hdr))
	}
	answer := map[string]any{"inputResponses": map[string]any{"elicitation-1": json.RawMessage(`{"action":"accept","content":{"name":"Zanzibar-Secret"}}`)}}
	stateOf := func(auth string) string {
		t.Helper()
		r1, rerr := call(auth, nil)
		if rerr != nil {
			t.Fatal(rerr)
		}
		r2, rerr := call(auth, map[string]any{"requestState": str(r1["requestState"]), "inputResponses": answer["inputResponses"]})
		if rerr != nil || str(r2["resultType"]) != "input_required" {
			t.Fatalf("round 2 for %q: %v, %v", auth, r2, rerr)
		}
		return str(r2["requestState"])
	}
	sampled := map[string]any{"sampling-1": json.RawMessage(`{"role":"assistant","content":{"type":"text","text":"yo"},"model":"m1"}`)}
	for _, c := range []struct{ owner, caller string }{
		{"Bearer ALICE", "Bearer MALLORY"},
		{"Bearer ALICE", ""},
		{"", "Bearer MALLORY"},
	} {
		state := stateOf(c.owner)
		for _, part := range strings.Split(state, ".") {
			if b, err := base64.RawURLEncoding.DecodeString(part); err == nil && strings.Contains(string(b), "Zanzibar") {
				t.Errorf("the state shows the answers given: %s", b)
			}
		}
		if _, rerr := call(c.caller, map[string]any{"requestState": state, "inputResponses": sampled}); rerr == nil || rerr.Code != jsonrpc.CodeInvalidParams || rerr.Message != badState {
			t.Errorf("%q's state sent by %q: %v, want -32602 %q", c.owner, c.caller, rerr, badState)
		}
		if r, rerr := call(c.owner, map[string]any{"requestState": state, "inputResponses": sampled}); rerr != nil || !strings.Contains(string(r["content"]), "accept:m1") {
			t.Errorf("%q's state sent by its owner: %s, %v", c.owner, r, rerr)
		}
	}
}

// TestRequestStateOfOldFormat: a state in the signed form of before (payload and
// HMAC, readable) is refused as invalid, even with a good signature.
func TestRequestStateOfOldFormat(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	srv := modernServer(&server.Options{StateKey: key})
	defer srv.Close()
	p := newModernPeer(t, srv)
	payload := []byte(`{"m":"tools/call","t":"ask","a":"44136fa355b3678a1146ad16f7e8649e","r":{"elicitation-1":{"action":"accept"}},"e":` +
		`9999999999}`)
	m := hmac.New(sha256.New, key)
	m.Write([]byte("mcpi requestState v1\x00"))
	m.Write(payload)
	enc := base64.RawURLEncoding
	old := enc.EncodeToString(payload) + "." + enc.EncodeToString(m.Sum(nil))
	_, rerr := p.call(mcp.MethodToolsCall, map[string]any{"name": "ask", "arguments": map[string]any{"x": 1},
		"_meta": meta(`{"elicitation":{},"sampling":{}}`), "requestState": old})
	if rerr == nil || rerr.Code != jsonrpc.CodeInvalidParams || rerr.Message != badState {
		t.Errorf("a state of the old form: %v, want -32602 %q", rerr, badState)
	}
}
