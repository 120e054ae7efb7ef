package interop

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpi-dev/mcpi/demo"
)

// gosdkClientPath is a go-sdk v1.8.0 client (gosdk/client/main.go), built by
// scripts/interop-tools.sh.
var gosdkClientPath = mustAbs(filepath.Join("..", "..", ".tools", "bin", "gosdk-client"))

// The go-sdk client lists and calls the demo server's tools, ask_user (an elicitation)
// included: in 2026-07-28 over Streamable HTTP and stdio (ask_user through MRTR), and in
// 2025-11-25 against a server that does not speak 2026-07-28.
func TestGoSDKClientOnDemoServer(t *testing.T) {
	if _, err := os.Stat(gosdkClientPath); err != nil {
		if os.Getenv(envInterop) == "1" {
			t.Fatalf(".tools/bin/gosdk-client is missing (run `bash scripts/interop-tools.sh`): %v", err)
		}
		t.Skipf("no .tools/bin/gosdk-client (run `bash scripts/interop-tools.sh`)")
	}
	clientPeerOnDemo(t, []string{gosdkClientPath}, nil)
}

// The TypeScript SDK v2 client (@modelcontextprotocol/client 2.4.0, ts2/client.mjs, with
// versionNegotiation "auto") does the same.
func TestTS2ClientOnDemoServer(t *testing.T) {
	node := needTS2(t)
	clientPeerOnDemo(t, []string{node, filepath.Join(ts2Dir, "client.mjs")}, nil)
}

// clientPeerOnDemo runs a client peer command (then its URL or --stdio CMD...) against
// the demo server in each era and checks what it prints.
func clientPeerOnDemo(t *testing.T, peer []string, env []string) {
	mcpi := mcpiBinary(t)
	srv := demo.New(nil)
	defer srv.Close()
	h := srv.HTTPHandler(nil)
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer h.Close()
	for _, c := range []struct {
		name    string
		args    []string
		version string
	}{
		{"HTTP, 2026-07-28", []string{ts.URL + "/mcp"}, "2026-07-28"},
		{"stdio, 2026-07-28", []string{"--stdio", mcpi, "serve", "demo"}, "2026-07-28"},
		{"stdio, 2025-11-25", []string{"--stdio", mcpi, "serve", "demo", "--legacy"}, "2025-11-25"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.CommandContext(t.Context(), peer[0], append(peer[1:], c.args...)...)
			cmd.Env = append(os.Environ(), env...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%s: %v\n%s", filepath.Base(peer[len(peer)-1]), err, stderr.String())
			}
			var got struct {
				ProtocolVersion string   `json:"protocolVersion"`
				Tools           []string `json:"tools"`
				Echo            struct {
					Text string `json:"text"`
				} `json:"echo"`
				AskUser struct {
					Text    string `json:"text"`
					IsError bool   `json:"isError"`
				} `json:"ask_user"`
			}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if got.ProtocolVersion != c.version || len(got.Tools) < 10 || got.Echo.Text != "hi" ||
				got.AskUser.IsError || !strings.Contains(got.AskUser.Text, "Ada") {
				t.Errorf("got %s", out)
			}
		})
	}
}
