package state

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/zalando/go-keyring"

	"github.com/mcpi-dev/mcpi/auth"
	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
)

// TokensDirName is the directory, in the state directory, of the token files.
const TokensDirName = "tokens"

// Token stores, as --token-store names them.
const (
	TokenStoreFile    = "file"
	TokenStoreKeyring = "keyring"
)

// maxTokenFile bounds a token file: a record is a few KiB.
const maxTokenFile = 1 << 20

// TokenFiles is an [auth.Store] of one file per MCP server in Dir, readable by its owner
// only (mode 0600, in a directory of mode 0700), each replaced atomically (a temporary
// file renamed over it), so that a reader never sees half a record and a crash leaves
// the old one. A file is named by a hash of the server's URL, which it also holds.
//
// A file that does not parse is an error that names it and the command that removes it,
// not an empty store: treating it as empty would start a login that overwrites what may
// be a registration the user wants to keep, and hide that the file was damaged.
type TokenFiles struct {
	Dir string
}

// DefaultTokenFiles returns the token files of the state directory.
func DefaultTokenFiles() (*TokenFiles, error) {
	d, err := Dir()
	if err != nil {
		return nil, err
	}
	return &TokenFiles{Dir: filepath.Join(d, TokensDirName)}, nil
}

// tokenFile is a token file's content.
type tokenFile struct {
	Server string       `json:"server"`
	Record *auth.Record `json:"record"`
}

// Path returns the file of server.
func (s *TokenFiles) Path(server string) string {
	sum := sha256.Sum256([]byte(server))
	return filepath.Join(s.Dir, hex.EncodeToString(sum[:16])+".json")
}

// Load implements [auth.Store].
func (s *TokenFiles) Load(_ context.Context, server string) (*auth.Record, error) {
	f, err := s.read(s.Path(server))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if f.Server != server {
		// Another server's file under this name: a hash collision, or a file copied
		// by hand. Its tokens must not go to this server.
		return nil, cmdutil.UsageErrorf("the token file %s holds the tokens of %s, not of %s; %s removes it", s.Path(server), f.Server, server, logoutCommand(server))
	}
	return f.Record, nil
}

// read reads one token file.
func (s *TokenFiles) read(path string) (*tokenFile, error) {
	data, err := cmdutil.ReadFile(path, maxTokenFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if err != nil {
		err = withoutPath(err)
		return nil, cmdutil.UsageErrorf("cannot read the token file %s: %v", path, err)
	}
	var f tokenFile
	if err := json.Unmarshal(data, &f); err != nil || f.Server == "" {
		why := "it names no server"
		if err != nil {
			why = cmdutil.JSONSyntaxError(data, err).Error()
		}
		server := f.Server
		if server == "" {
			server = "URL"
		}
		return nil, cmdutil.UsageErrorf("the token file %s is damaged (%s); %s removes it, and the next command logs in again", path, why, logoutCommand(server))
	}
	return &f, nil
}

// logoutCommand is the command that forgets server's tokens.
func logoutCommand(server string) string {
	return "mcpi auth logout --url " + cmdutil.ShellQuote(server)
}

// Save implements [auth.Store].
func (s *TokenFiles) Save(_ context.Context, server string, r *auth.Record) error {
	data, err := json.MarshalIndent(tokenFile{Server: server, Record: r}, "", "  ")
	if err != nil {
		return err
	}
	if len(data)+1 > maxTokenFile {
		// Written, it could not be read back: every later command would fail on it.
		return cmdutil.UsageErrorf("the tokens of %s are too large for a token file (%s, over %s); the file keeps what it had", server, cmdutil.Size(int64(len(data)+1)), cmdutil.Size(maxTokenFile))
	}
	if err := writeAtomic(s.Path(server), ".token-*.json", append(data, '\n')); err != nil {
		return cmdutil.UsageErrorf("cannot write the token file %s: %v", s.Path(server), withoutPath(err))
	}
	return nil
}

// Delete implements [auth.Store].
func (s *TokenFiles) Delete(_ context.Context, server string) error {
	err := os.Remove(s.Path(server))
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return cmdutil.UsageErrorf("cannot remove the token file %s: %v", s.Path(server), err)
}

// StoredRecord is one server's record, as [TokenFiles.List] finds it.
type StoredRecord struct {
	Server string
	Record *auth.Record
	// Err says why the file could not be read; then Server is its path.
	Err error
}

// List returns every server's record, sorted by server.
func (s *TokenFiles) List(context.Context) ([]StoredRecord, error) {
	entries, err := os.ReadDir(s.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, cmdutil.UsageErrorf("cannot read the token directory %s: %v", s.Dir, err)
	}
	var out []StoredRecord
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		path := filepath.Join(s.Dir, e.Name())
		f, err := s.read(path)
		if err != nil {
			out = append(out, StoredRecord{Server: path, Err: err})
			continue
		}
		out = append(out, StoredRecord{Server: f.Server, Record: f.Record})
	}
	slices.SortFunc(out, func(a, b StoredRecord) int { return strings.Compare(a.Server, b.Server) })
	return out, nil
}

// String describes the store for messages.
func (s *TokenFiles) String() string { return "the token files in " + s.Dir }

// keyringService is the service name of mcpi's entries in the OS keyring.
const keyringService = "mcpi"

// Keyring is an [auth.Store] in the operating system's keyring (the macOS Keychain, the
// Windows Credential Manager, the Secret Service of D-Bus elsewhere), one entry per MCP
// server, of service "mcpi" and the server's URL as user name. Where no keyring can be
// reached, every operation fails with one sentence that names the way out.
type Keyring struct{}

// keyringError words the error of a keyring that cannot be used in one sentence, as
// a usage error: the way out is another --token-store.
func keyringError(err error) error {
	if errors.Is(err, keyring.ErrSetDataTooBig) {
		return cmdutil.UsageErrorf("the tokens are too large for the OS keyring; use --token-store file")
	}
	return &cmdutil.StoreUnreachableError{Msg: fmt.Sprintf("the OS keyring cannot be used (%v); use --token-store file, the default", err)}
}

// keyringCall runs f, which may wait on the keyring (a D-Bus call, a prompt to unlock
// it), until ctx ends.
func keyringCall(ctx context.Context, f func() error) error {
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		if err != nil {
			return keyringError(err)
		}
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// Load implements [auth.Store].
func (Keyring) Load(ctx context.Context, server string) (*auth.Record, error) {
	var secret string
	err := keyringCall(ctx, func() error {
		var err error
		secret, err = keyring.Get(keyringService, server)
		if errors.Is(err, keyring.ErrNotFound) {
			secret, err = "", nil
		}
		return err
	})
	if err != nil || secret == "" {
		return nil, err
	}
	var r auth.Record
	if err := json.Unmarshal([]byte(secret), &r); err != nil {
		return nil, cmdutil.UsageErrorf("the keyring entry of %s is damaged (%v); %s --token-store keyring removes it", server, err, logoutCommand(server))
	}
	return &r, nil
}

// Save implements [auth.Store].
func (Keyring) Save(ctx context.Context, server string, r *auth.Record) error {
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return keyringCall(ctx, func() error { return keyring.Set(keyringService, server, string(data)) })
}

// Delete implements [auth.Store].
func (Keyring) Delete(ctx context.Context, server string) error {
	return keyringCall(ctx, func() error {
		if err := keyring.Delete(keyringService, server); err != nil && !errors.Is(err, keyring.ErrNotFound) {
			return err
		}
		return nil
	})
}

// OpenTokenStore returns the token store --token-store names: "file" (or "") the token
// files of the state directory, "keyring" the OS keyring.
func OpenTokenStore(kind string) (auth.Store, error) {
	switch kind {
	case "", TokenStoreFile:
		files, err := DefaultTokenFiles()
		if errors.Is(err, ErrNoDir) {
			// Unreachable, not an error yet: a server that needs no login is used all the
			// same, and the login that would need the store says why it cannot keep it.
			return nil, &cmdutil.StoreUnreachableError{Msg: err.Error()}
		}
		return files, err
	case TokenStoreKeyring:
		return Keyring{}, nil
	}
	return nil, cmdutil.UsageErrorf("--token-store %q: give %s or %s", kind, TokenStoreFile, TokenStoreKeyring)
}
