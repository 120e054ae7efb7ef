// Package web is mcpi's browser front end ("mcpi web"). It serves one page and streams to
// it, as server-sent events, what happens on the client sessions it holds; the page sends
// its commands back as JSON requests (call, answer, cancel). The browser never speaks MCP:
// like the terminal UI, this package renders client events and holds no protocol logic.
//
// The page can start processes and reach URLs through the sessions it opens, so every
// request must carry the token the URL was printed with (a cookie after the first load),
// its Host must name this machine and its Origin this page (DNS rebinding), and the page
// runs under a strict Content-Security-Policy.
package web

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"errors"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/look"
	"github.com/mcpi-dev/mcpi/transport"
)

//go:embed static
var static embed.FS

// Target is a server the page asks to connect to. The zero Target is the embedded demo
// server.
type Target struct {
	// Stdio is a command line, split like a shell would.
	Stdio string `json:"stdio,omitempty"`
	// URL is a Streamable HTTP endpoint, and Headers K=V pairs sent with each request.
	URL     string   `json:"url,omitempty"`
	Headers []string `json:"headers,omitempty"`
	// Config is a file in the mcpServers format, and Server one of its entries.
	Config string `json:"config,omitempty"`
	Server string `json:"server,omitempty"`
	// Protocol is "auto" (or empty), or the protocol version to speak.
	Protocol string `json:"protocol,omitempty"`
	// Kind is what the page's form asked for: "stdio", "url", "config" or "demo" (the
	// embedded demo server, which a Target naming nothing also means). With a kind, the
	// field it needs must be given: an empty command is not the demo server.
	Kind string `json:"kind,omitempty"`
}

// check refuses a Target whose Kind lacks the field it needs, in one sentence.
func (t Target) check() error {
	missing := ""
	switch t.Kind {
	case "", "demo":
	case "stdio":
		if strings.TrimSpace(t.Stdio) == "" {
			missing = "a command to run the server"
		}
	case "url":
		if strings.TrimSpace(t.URL) == "" {
			missing = "the server's URL"
		}
	case "config":
		if strings.TrimSpace(t.Config) == "" {
			missing = "the config file"
		}
	default:
		return bad("no kind of server %q (stdio, url, config or demo)", t.Kind)
	}
	if missing != "" {
		return bad("give %s", missing)
	}
	return nil
}

// Dialed is what a Dialer says of the connection it opened.
type Dialed struct {
	// Name names the server for the user (a command, a URL, a config entry).
	Name string
	// Transport is "stdio", "Streamable HTTP" or "in-memory pipe".
	Transport string
}

// A Dialer opens a session with t, with the client options it is given (the web front
// end's: every capability, receiver tasks on, no OnRequest). When the server wants the
// user to log in (OAuth), the session calls login with the authorization URL, which the
// tab shows as a link, and a context that ends with the login; the session waits for
// it. That may happen while dialing, or later (a token to renew, more scope to ask for).
type Dialer func(ctx context.Context, t Target, opts *client.Options, login LoginFunc) (*client.Session, Dialed, error)

// LoginFunc shows the user the authorization URL of a login, until ctx ends.
type LoginFunc func(ctx context.Context, authURL string)

// Options configure a [Server].
type Options struct {
	// Dial opens sessions; required.
	Dial Dialer
	// Token is the secret every request must carry; New makes one when empty.
	Token string
	// Hosts are Host header values accepted besides loopback names (an address the
	// server was told to listen on, for instance).
	Hosts []string
	// TaskTTL is the ttl the page offers for task calls.
	TaskTTL time.Duration
	Logger  *slog.Logger
	// Now is the clock (time.Now).
	Now func() time.Time
}

// Server is the web front end: an http.Handler.
type Server struct {
	opts   Options
	hosts  []string // the Host names accepted: loopback's, and Options.Hosts
	log    *slog.Logger
	assets http.Handler
	hub    *hub

	mu    sync.Mutex
	conns map[string]*conn
	order []string // connection ids, oldest first
	next  int
	done  bool
}

// NewToken returns a fresh random token.
func NewToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// New returns a Server with no connections.
func New(opts Options) *Server {
	if opts.Token == "" {
		opts.Token = NewToken()
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.TaskTTL <= 0 {
		opts.TaskTTL = look.DefaultTaskTTL
	}
	sub, _ := fs.Sub(static, "static")
	var hosts []string
	if len(opts.Hosts) > 0 {
		hosts = append(transport.LoopbackHosts(), opts.Hosts...)
	}
	return &Server{
		opts:   opts,
		hosts:  hosts,
		log:    opts.Logger,
		assets: http.FileServerFS(sub),
		hub:    newHub(),
		conns:  map[string]*conn{},
	}
}

// Token is the token requests must carry.
func (s *Server) Token() string { return s.opts.Token }

// Close ends every session and the page's event streams.
func (s *Server) Close() {
	s.mu.Lock()
	s.done = true
	cs := make([]*conn, 0, len(s.conns))
	for _, c := range s.conns {
		cs = append(cs, c)
	}
	s.mu.Unlock()
	for _, c := range cs {
		c.close()
	}
	s.hub.close()
}

// cookieName is the cookie that carries the token after the first load.
const cookieName = "mcpi_token"

// csp allows the page's own scripts, styles, images and media, and data: URLs for the
// images and audio a server returns; nothing inline, nothing from elsewhere.
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"media-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", csp)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cache-Control", "no-store")
	if why := transport.CheckHostOrigin(r, s.hosts, nil); why != "" {
		http.Error(w, why, http.StatusForbidden)
		return
	}
	// A browser says where a request comes from even without Origin (a GET): only the
	// page itself, or the address bar, may fetch.
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
		http.Error(w, "forbidden: the request comes from another site", http.StatusForbidden)
		return
	}
	if t := r.URL.Query().Get("token"); t != "" && r.Method == http.MethodGet && r.URL.Path == "/" {
		if !s.tokenOK(t) {
			http.Error(w, "unauthorized: the token does not match; use the URL mcpi web printed", http.StatusUnauthorized)
			return
		}
		// The token moves to a cookie, and out of the address bar and history.
		http.SetCookie(w, &http.Cookie{Name: cookieName, Value: t, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	if !s.authorized(r) {
		http.Error(w, "unauthorized: open the URL mcpi web printed (it carries the token)", http.StatusUnauthorized)
		return
	}
	if strings.HasPrefix(r.URL.Path, "/api/") {
		s.api(w, r)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	s.assets.ServeHTTP(w, r)
}

func (s *Server) tokenOK(t string) bool {
	return subtle.ConstantTimeCompare([]byte(t), []byte(s.opts.Token)) == 1
}

// authorized: the cookie, or "Authorization: Bearer TOKEN" for scripts.
func (s *Server) authorized(r *http.Request) bool {
	if c, err := r.Cookie(cookieName); err == nil && s.tokenOK(c.Value) {
		return true
	}
	if t, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && s.tokenOK(t) {
		return true
	}
	return false
}

// errClosed is the error of a command after Close.
var errClosed = errors.New("the web front end is closing")
