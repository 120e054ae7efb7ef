package auth

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"

	"golang.org/x/oauth2"

	"github.com/mcpi-dev/mcpi/internal/redact"
)

// Record is what the flow keeps for one MCP server: the tokens it holds, the resource
// and authorization server they were issued for, and the client registration they were
// issued to. A [Store] keeps it between runs. It holds secrets: its LogValue shows none.
type Record struct {
	// Resource is the resource indicator (RFC 8707) the token was issued for.
	Resource string `json:"resource"`
	// Issuer is the authorization server that issued the token.
	Issuer string        `json:"issuer,omitempty"`
	Client *ClientInfo   `json:"client,omitempty"`
	Token  *oauth2.Token `json:"token,omitempty"`
	// Scope is the scope asked for when the token was issued; GrantedScope the one the
	// token response named ("" when it named none: then it is Scope).
	Scope        string `json:"scope,omitempty"`
	GrantedScope string `json:"granted_scope,omitempty"`
}

// LogValue shows what a record is about, and no token or secret.
func (r *Record) LogValue() slog.Value {
	if r == nil {
		return slog.StringValue("none")
	}
	attrs := []slog.Attr{slog.String("resource", redact.URL(r.Resource)), slog.String("issuer", redact.URL(r.Issuer)), slog.String("scope", r.Scope)}
	if r.Client != nil {
		id := r.Client.ID
		if r.Client.Kind == ClientMetadataDocument {
			id = redact.URL(id) // the document's URL
		}
		attrs = append(attrs, slog.String("client_id", id), slog.String("client", r.Client.Kind))
	}
	if r.Token != nil {
		attrs = append(attrs, slog.Time("expiry", r.Token.Expiry), slog.Bool("refreshable", r.Token.RefreshToken != ""))
	}
	return slog.GroupValue(attrs...)
}

// clone returns a deep copy of r, so that a store keeps nothing the flow changes later.
func (r *Record) clone() *Record {
	if r == nil {
		return nil
	}
	c := *r
	if r.Client != nil {
		cl := *r.Client
		cl.RedirectURIs = append([]string(nil), r.Client.RedirectURIs...)
		c.Client = &cl
	}
	if r.Token != nil {
		t := *r.Token
		c.Token = &t
	}
	return &c
}

// A Store keeps the [Record] of each MCP server between runs, keyed by the server's
// canonical URL. A file of mode 0600 per server, written atomically, is one; the
// operating system's keyring another. Implementations must be safe for concurrent use.
type Store interface {
	// Load returns the record kept for server, or nil and no error when there is none.
	Load(ctx context.Context, server string) (*Record, error)
	// Save keeps r for server, replacing what was kept.
	Save(ctx context.Context, server string, r *Record) error
	// Delete forgets what was kept for server; forgetting nothing is no error.
	Delete(ctx context.Context, server string) error
}

// MemoryStore is a [Store] that keeps records for the life of the process, the default
// of [Config.Store].
type MemoryStore struct {
	mu sync.Mutex
	m  map[string][]byte
}

// Records are kept encoded, as a store on disk would keep them: what comes back is what
// would come back from there (oauth2.Token's extra fields, say, do not survive).

// Load implements [Store].
func (s *MemoryStore) Load(_ context.Context, server string) (*Record, error) {
	s.mu.Lock()
	b, ok := s.m[server]
	s.mu.Unlock()
	if !ok {
		return nil, nil
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// Save implements [Store].
func (s *MemoryStore) Save(_ context.Context, server string, r *Record) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string][]byte{}
	}
	s.m[server] = b
	return nil
}

// Delete implements [Store].
func (s *MemoryStore) Delete(_ context.Context, server string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, server)
	return nil
}
