// Package shared serves an MCP server for the "mcpi serve" commands: over stdio, or over
// Streamable HTTP at /mcp.
package shared

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/iostreams"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/transport"
)

// Path is where the Streamable HTTP endpoint is served.
const Path = "/mcp"

// Serve runs srv over stdio when addr is empty, else over HTTP at addr, until ctx ends
// (or, over stdio, until stdin closes). what names the server in messages.
func Serve(ctx context.Context, ios *iostreams.IOStreams, srv *server.Server, addr, what string) error {
	if addr == "" {
		return srv.Run(ctx, transport.StdioTransport{})
	}
	addr, opts, warning, err := ListenAddr(addr)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return cmdutil.UsageErrorf("cannot listen on %s: %s", addr, listenProblem(err))
	}
	mux := http.NewServeMux()
	mux.Handle(Path, srv.HTTPHandler(opts))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	if warning != "" {
		fmt.Fprintf(ios.ErrOut, "mcpi: warning: %s\n", warning)
	}
	fmt.Fprintf(ios.ErrOut, "mcpi: serving the %s server at http://%s%s\n", what, ln.Addr(), Path)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		_ = hs.Close()
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// ListenAddr completes an --http value ("8080", ":8080" or "host:8080"; an address
// without a host is loopback only) and chooses the Host header check: loopback
// addresses keep the default (localhost names only), a named host is added to those, and
// an unspecified address (0.0.0.0, [::]) accepts any host, with a warning.
func ListenAddr(addr string) (string, *transport.HTTPOptions, string, error) {
	if _, err := strconv.Atoi(addr); err == nil {
		addr = ":" + addr
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", nil, "", cmdutil.UsageErrorf("--http wants HOST:PORT or PORT, not %q", addr)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	opts := &transport.HTTPOptions{}
	warning := ""
	ip := net.ParseIP(host)
	switch {
	case host == "localhost" || (ip != nil && ip.IsLoopback()):
	case ip != nil && ip.IsUnspecified():
		opts.AllowedHosts = []string{"*"}
		warning = fmt.Sprintf("listening on every interface (%s) and accepting any Host header; anyone who can reach this machine can use the server", host)
	default:
		opts.AllowedHosts = []string{"localhost", "127.0.0.1", "::1", strings.Trim(host, "[]")}
	}
	return net.JoinHostPort(host, port), opts, warning, nil
}

func listenProblem(err error) string {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		msg := op.Err.Error()
		if i := strings.LastIndex(msg, ": "); i >= 0 {
			msg = msg[i+2:]
		}
		return msg
	}
	return err.Error()
}
