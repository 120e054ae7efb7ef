// Command gosdk-server is a go-sdk (github.com/modelcontextprotocol/go-sdk v1.8.0) MCP
// server on stateless Streamable HTTP, a peer for mcpi's 2026-07-28 interop tests.
//
// It is its own module (go.mod beside this file) so that mcpi's module does not depend
// on go-sdk; scripts/interop-tools.sh builds it into .tools/bin/gosdk-server.
//
//	gosdk-server [-strict] [-json] [PORT]
//
// It listens on 127.0.0.1:PORT (argument, else $PORT, else 0 = any free port) and, once
// listening, prints one line on stdout, the endpoint URL:
//
//	http://127.0.0.1:PORT/mcp
//
// Every path is served. Diagnostics go to stderr. SIGINT/SIGTERM shut it down.
//
//	-strict   ServerOptions.SupportedProtocolVersions = ["2026-07-28"] (the default is every
//	          version go-sdk supports, 2026-07-28 down to 2024-11-05)
//	-json     StreamableHTTPOptions.JSONResponse: answer POSTs with application/json instead
//	          of the SDK's default text/event-stream
//
// Tools (arguments in braces):
//
//	echo {text}      returns text
//	add {a, b}       returns a+b as text, and {sum} as structuredContent
//	ask_name {}      multi-round-trip (MRTR, SEP-2322): the first call returns
//	                 CallToolResult.InputRequests {name: ElicitParams, schema {name: string}}
//	                 and an HMAC-signed RequestState; the retry carrying
//	                 inputResponses {name: ElicitResult} and that requestState returns
//	                 "Hello, <name>!". A requestState that fails verification is a JSON-RPC
//	                 invalid-params error; a declined or cancelled elicitation an isError result.
//
// go-sdk v1.8.0 has no server-side Tasks extension (io.modelcontextprotocol/tasks), so there
// is no slow_task here.
package main

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoIn struct {
	Text string `json:"text" jsonschema:"the text to return"`
}

type addIn struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

type addOut struct {
	Sum float64 `json:"sum"`
}

// stateKey signs ask_name's requestState. One process serves every round of a flow (the
// server is stateless, but the key is not per request).
var stateKey = func() []byte {
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		panic(err)
	}
	return k
}()

const askNameStep = "ask_name/1"

// mintState returns "<payload>.<mac>", both base64url: payload is the step and an expiry.
func mintState(step string, ttl time.Duration) string {
	payload := fmt.Sprintf("%s|%d", step, time.Now().Add(ttl).Unix())
	return b64(payload) + "." + b64(string(mac(payload)))
}

// verifyState returns the step a state names, or an error when it was not minted here or
// has expired.
func verifyState(state string) (string, error) {
	p, m, ok := strings.Cut(state, ".")
	if !ok {
		return "", errors.New("malformed")
	}
	payload, err1 := base64.RawURLEncoding.DecodeString(p)
	got, err2 := base64.RawURLEncoding.DecodeString(m)
	if err1 != nil || err2 != nil || !hmac.Equal(got, mac(string(payload))) {
		return "", errors.New("bad mac")
	}
	step, exp, _ := strings.Cut(string(payload), "|")
	if n, err := strconv.ParseInt(exp, 10, 64); err != nil || time.Now().Unix() > n {
		return "", errors.New("expired")
	}
	return step, nil
}

func mac(s string) []byte {
	h := hmac.New(sha256.New, stateKey)
	h.Write([]byte(s))
	return h.Sum(nil)
}

func b64(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

func newServer(strict bool, logger *slog.Logger) *mcp.Server {
	opts := &mcp.ServerOptions{Logger: logger}
	if strict {
		opts.SupportedProtocolVersions = []string{"2026-07-28"}
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "gosdk-interop-server", Version: "1.0.0"}, opts)

	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Returns its text argument."},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})

	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "Adds two numbers."},
		func(_ context.Context, _ *mcp.CallToolRequest, in addIn) (*mcp.CallToolResult, addOut, error) {
			sum := in.A + in.B
			return &mcp.CallToolResult{
				Content: []mcp.Content{&mcp.TextContent{Text: strconv.FormatFloat(sum, 'f', -1, 64)}},
			}, addOut{Sum: sum}, nil
		})

	mcp.AddTool(s, &mcp.Tool{
		Name:        "ask_name",
		Description: "Asks the user for their name (multi-round-trip elicitation) and greets them.",
	}, func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		p := req.Params
		if p.RequestState != "" {
			step, err := verifyState(p.RequestState)
			if err != nil || step != askNameStep {
				return nil, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid or expired requestState"}
			}
			if r, ok := p.InputResponses["name"].(*mcp.ElicitResult); ok {
				if r.Action != "accept" {
					return &mcp.CallToolResult{
						Content: []mcp.Content{&mcp.TextContent{Text: "No name given (" + r.Action + ")."}},
						IsError: true,
					}, nil, nil
				}
				if name, ok := r.Content["name"].(string); ok && name != "" {
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Hello, " + name + "!"}}}, nil, nil
				}
			}
		}
		return &mcp.CallToolResult{
			InputRequests: mcp.InputRequestMap{
				"name": &mcp.ElicitParams{
					Message: "What is your name?",
					RequestedSchema: &jsonschema.Schema{
						Type:       "object",
						Properties: map[string]*jsonschema.Schema{"name": {Type: "string", Description: "Your name"}},
						Required:   []string{"name"},
					},
				},
			},
			RequestState: mintState(askNameStep, 10*time.Minute),
		}, nil, nil
	})
	return s
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("gosdk-server: ")
	strict := flag.Bool("strict", false, "serve protocol 2026-07-28 only")
	jsonResp := flag.Bool("json", false, "answer POSTs with application/json instead of text/event-stream")
	flag.Parse()

	port := os.Getenv("PORT")
	if flag.NArg() > 0 {
		port = flag.Arg(0)
	}
	if port == "" {
		port = "0"
	}

	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	server := newServer(*strict, logger)
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{
		Stateless:    true,
		JSONResponse: *jsonResp,
		Logger:       logger,
	})

	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", port))
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		srv.Shutdown(shutdown)
	}()

	fmt.Printf("http://%s/mcp\n", ln.Addr())
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
}
