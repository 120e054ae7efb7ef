// Package bounce serves an HTTP handler on 127.0.0.1 for tests of a server that goes
// away and comes back: Stop leaves nothing listening at its address (a request then
// fails to connect, as with a server that died), and Start serves again at the same
// address.
package bounce

import (
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

// Server is a handler served at a fixed address, stopped and started at will.
type Server struct {
	// URL is the server's base URL, the same for its whole life.
	URL string

	t    testing.TB
	h    http.Handler
	addr string
	ts   *httptest.Server
	back *http.Server
}

// New serves h; it is stopped at the end of the test.
func New(t testing.TB, h http.Handler) *Server {
	ts := httptest.NewServer(h)
	s := &Server{URL: ts.URL, t: t, h: h, addr: ts.Listener.Addr().String(), ts: ts}
	t.Cleanup(s.Stop)
	return s
}

// Stop closes the listener and every connection: nothing listens at the address.
func (s *Server) Stop() {
	if s.ts != nil {
		s.ts.Listener.Close()
		s.ts.CloseClientConnections()
		s.ts.Close()
		s.ts = nil
	}
	if s.back != nil {
		s.back.Close()
		s.back = nil
	}
}

// Start serves the handler again at the same address. It skips the test when another
// program took the address meanwhile.
func (s *Server) Start() {
	s.t.Helper()
	l, err := net.Listen("tcp", s.addr)
	if err != nil {
		s.t.Skipf("the server's address was taken meanwhile: %v", err)
	}
	s.back = &http.Server{Handler: s.h}
	go s.back.Serve(l)
}
