package auth_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"

	"github.com/mcpi-dev/mcpi/auth"
	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/oauthtest"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/transport"
)

// The examples run against an MCP server and an authorization server of their own on
// loopback ports (protectedServer). A real program knows only its MCP server's URL:
// the flow finds the authorization server, and registers the client with it, from there.

// protectedServer serves an MCP server with one tool, "greet", at http://127.0.0.1:PORT/mcp,
// where every request needs a bearer token that the server's authorization server issued
// for that URL with scope mcp:read. It returns the URL, and stop, which stops both.
func protectedServer(clients map[string]string) (url string, stop func()) {
	srv := server.New(mcp.Implementation{Name: "hello", Version: "1.0"}, &server.Options{Modern: true})
	srv.AddTool(&mcp.Tool{Name: "greet", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *server.ToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("Hello!")}}, nil
		})
	var done cleanups
	p := oauthtest.Protect(&done, srv.HTTPHandler(nil), func(p *oauthtest.Protected) {
		p.AS.ScopesSupported = []string{"mcp:read"}
		p.AS.Clients = clients
		p.Guard.ScopesSupported = []string{"mcp:read"}
		p.Guard.Required = func(string) []string { return []string{"mcp:read"} }
	})
	return p.URL, func() {
		srv.Close()
		for i := len(done) - 1; i >= 0; i-- {
			done[i]()
		}
	}
}

// cleanups stands in for the *testing.T that oauthtest's servers stop with.
type cleanups []func()

func (c *cleanups) Cleanup(f func()) { *c = append(*c, f) }

// openInBrowser stands for the system's browser, which a real program opens authURL in
// (xdg-open, open, rundll32) for the user to log in. Here nobody logs in: the
// authorization server grants at once, and following its redirect reaches the flow's
// loopback listener as the user's browser would.
func openInBrowser(ctx context.Context, authURL string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// Connect to an MCP server behind OAuth over Streamable HTTP. The flow, given as the
// transport's Auth, answers the server's first 401: it discovers the authorization
// server, registers the client with it (Dynamic Client Registration), sends the user
// to the authorization page through the Browser, and sends the request again with the
// token, which it then refreshes as it expires. Config.Store keeps the tokens between
// runs (mcpi keeps them in files of its state directory), so that the user logs in once.
func Example() {
	url, stop := protectedServer(nil)
	defer stop()
	ctx := context.Background()

	browser := &auth.Loopback{Open: openInBrowser} // the redirect comes back to 127.0.0.1:<port>
	defer browser.Close()
	flow, err := auth.New(url, &auth.Config{Browser: browser, ClientName: "my-host"})
	if err != nil {
		log.Fatal(err)
	}
	c := client.New(mcp.Implementation{Name: "my-host", Version: "1.0"}, nil)
	s, err := c.Connect(ctx, &transport.HTTPClient{URL: url, Auth: flow})
	if err != nil {
		log.Fatal(err) // an *auth.OAuthError, *auth.TimeoutError, ... when the login failed
	}
	defer s.Close()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "greet"}, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].Text)

	// Record tells what the flow holds, for a status display. The token is a secret:
	// show its expiry, never the token.
	rec, err := flow.Record(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("a %s client, scope %q, refreshable %v\n", rec.Client.Kind, rec.Scope, rec.Token.RefreshToken != "")
	// Output:
	// Hello!
	// a dynamic client, scope "mcp:read", refreshable true
}

// Get a token up front, before the first request, with the client credentials grant:
// a service acting on its own behalf, with credentials registered beforehand, needs no
// user and no browser. Login runs the flow now; the transport then sends the token it
// got, and an HTTP client of the program's own sends it too with Flow.Wrap.
func ExampleFlow_Login() {
	url, stop := protectedServer(map[string]string{"reports-service": "its-secret"})
	defer stop()
	ctx := context.Background()

	flow, err := auth.New(url, &auth.Config{
		Grant:        auth.ClientCredentials,
		ClientID:     "reports-service",
		ClientSecret: "its-secret",
	})
	if err != nil {
		log.Fatal(err)
	}
	if err := flow.Login(ctx); err != nil {
		log.Fatal(err)
	}
	rec, err := flow.Record(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(rec.Token.Type(), "token, scope", rec.Scope)

	c := client.New(mcp.Implementation{Name: "reports", Version: "1.0"}, nil)
	s, err := c.Connect(ctx, &transport.HTTPClient{URL: url, Auth: flow})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "greet"}, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].Text)
	// Output:
	// Bearer token, scope mcp:read
	// Hello!
}
