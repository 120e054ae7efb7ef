// Command mcpi-conformance-client is the client under test of the official MCP conformance
// suite's client mode:
//
//	conformance client --command /abs/path/mcpi-conformance-client --scenario initialize
//
// The suite appends the mock server's URL as the last argument and names the scenario in
// MCP_CONFORMANCE_SCENARIO. The client speaks Streamable HTTP through mcpi's own client and
// transport, exits 0 when the scenario's steps succeeded and 1 otherwise, always within
// 30 seconds. What each scenario expects: docs/conformance-notes.md, part 2.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/transport"
)

// deadline stays under the suite's 30 s limit, leaving time to close the session.
const deadline = 25 * time.Second

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: mcpi-conformance-client [ARGS...] SERVER-URL (scenario in $MCP_CONFORMANCE_SCENARIO)")
		os.Exit(2)
	}
	url := os.Args[len(os.Args)-1]
	scenario := os.Getenv("MCP_CONFORMANCE_SCENARIO")
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	err := run(ctx, scenario, url)
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "mcpi-conformance-client: scenario %q: %v\n", scenario, err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "mcpi-conformance-client: scenario %q: ok\n", scenario)
}

// logf writes a progress line to stderr, which the suite keeps with the results.
func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05.000")}, args...)...)
}

func run(ctx context.Context, scenario, url string) error {
	level := slog.LevelInfo
	if os.Getenv("MCPI_DEBUG") != "" {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	c := client.New(mcp.Implementation{Name: "mcpi-conformance-client", Version: "0.1.0"}, &client.Options{
		Logger:          logger,
		ProtocolVersion: mcp.LatestProtocolVersion,
		OnRequest:       answer,
	})
	logf("connecting to %s", url)
	s, err := c.Connect(ctx, &transport.HTTPClient{URL: url, Logger: logger})
	if err != nil {
		return err
	}
	defer s.Close()
	init := s.InitializeResult()
	logf("initialized: server %s %s, protocol %s", init.ServerInfo.Name, init.ServerInfo.Version, init.ProtocolVersion)

	switch scenario {
	case "initialize":
		return nil
	case "tools_call":
		if err := requireTool(ctx, s, "add_numbers"); err != nil {
			return err
		}
		res, err := call(ctx, s, "add_numbers", map[string]any{"a": 5, "b": 3})
		if err != nil {
			return err
		}
		if t := firstText(res); !strings.Contains(t, "8") {
			return fmt.Errorf("add_numbers(5, 3) answered %q, which lacks the sum 8", t)
		}
		return nil
	case "elicitation-sep1034-client-defaults":
		// The mock sends elicitation/create on the standalone GET stream, which the
		// transport opened (and waited for) after notifications/initialized; answer
		// accepts it with the schema's defaults.
		_, err := call(ctx, s, "test_client_elicitation_defaults", map[string]any{})
		return err
	case "sse-retry":
		// The mock ends the call's SSE stream after a priming event carrying retry: 500;
		// the transport resumes it with GET and Last-Event-ID after that delay.
		if err := requireTool(ctx, s, "test_reconnection"); err != nil {
			return err
		}
		_, err := call(ctx, s, "test_reconnection", map[string]any{})
		return err
	default:
		logf("unknown scenario %q: listing tools only", scenario)
		n := 0
		for _, err := range s.Tools(ctx, nil) {
			if err != nil {
				return err
			}
			n++
		}
		logf("%d tools", n)
		return nil
	}
}

// answer handles the server's requests: an elicitation is accepted with the defaults of
// its schema filled in (SEP-1034; Accept applies them); sampling is refused, as this
// client has no model.
func answer(ctx context.Context, r *client.Request) {
	switch {
	case r.Elicitation != nil:
		err := r.Accept(map[string]any{})
		logf("accepted elicitation %q with its defaults (%v)", r.Elicitation.Message, err)
	case r.Sampling != nil:
		err := r.Refuse("this conformance client has no model to sample")
		logf("refused sampling (%v)", err)
	}
}

// requireTool lists every tool and checks that name is among them.
func requireTool(ctx context.Context, s *client.Session, name string) error {
	var names []string
	for t, err := range s.Tools(ctx, nil) {
		if err != nil {
			return err
		}
		names = append(names, t.Name)
	}
	logf("tools: %s", strings.Join(names, ", "))
	for _, n := range names {
		if n == name {
			return nil
		}
	}
	return fmt.Errorf("the server lists no tool %q (it has: %s)", name, strings.Join(names, ", "))
}

// call calls a tool and fails on a JSON-RPC error or a result with isError.
func call(ctx context.Context, s *client.Session, name string, args map[string]any) (*mcp.CallToolResult, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	logf("calling %s %s", name, raw)
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: raw}, nil)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("calling %s: no result within %s", name, deadline)
		}
		return nil, err
	}
	logf("%s answered: %s", name, firstText(res))
	if res.IsError {
		return nil, fmt.Errorf("%s failed: %s", name, firstText(res))
	}
	return res, nil
}

func firstText(r *mcp.CallToolResult) string {
	for _, c := range r.Content {
		if c.Type == mcp.ContentTypeText {
			return c.Text
		}
	}
	return ""
}
