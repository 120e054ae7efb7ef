package state

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zalando/go-keyring"
	"golang.org/x/oauth2"

	"github.com/mcpi-dev/mcpi/auth"
	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
)

const tokenServer = "https://mcp.example.com/mcp"

func record(access string) *auth.Record {
	return &auth.Record{
		Resource: tokenServer, Issuer: "https://as.example.com", Scope: "mcp:read",
		Client: &auth.ClientInfo{ID: "client-1", Kind: auth.ClientDynamic, Issuer: "https://as.example.com"},
		Token:  &oauth2.Token{AccessToken: access, RefreshToken: "rt-" + access, Expiry: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)},
	}
}

// A record goes to a file of mode 0600 in a directory of mode 0700, and comes back whole.
func TestTokenFilesMode(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "state", TokensDirName)
	s := &TokenFiles{Dir: dir}
	if r, err := s.Load(ctx, tokenServer); r != nil || err != nil {
		t.Fatalf("empty store: %v, %v", r, err)
	}
	if err := s.Save(ctx, tokenServer, record("at-1")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(s.Path(tokenServer))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("file mode %v, %v", fi, err)
	}
	if di, _ := os.Stat(dir); di.Mode().Perm() != 0o700 {
		t.Errorf("dir mode %v", di.Mode())
	}
	r, err := s.Load(ctx, tokenServer)
	if err != nil || r.Token.AccessToken != "at-1" || r.Token.RefreshToken != "rt-at-1" || r.Client.ID != "client-1" || !r.Token.Expiry.Equal(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("Load = %+v, %v", r, err)
	}
	if r, _ := s.Load(ctx, "https://other.example.com/mcp"); r != nil {
		t.Error("another server got this one's record")
	}
	list, err := s.List(ctx)
	if err != nil || len(list) != 1 || list[0].Server != tokenServer || list[0].Record.Issuer != "https://as.example.com" {
		t.Errorf("List = %+v, %v", list, err)
	}
}

// Saving replaces the file by a rename: a reader that opened the old file reads the old
// record whole, the new one is there whole, and no temporary file is left.
func TestTokenFilesAtomic(t *testing.T) {
	ctx := context.Background()
	s := &TokenFiles{Dir: t.TempDir()}
	if err := s.Save(ctx, tokenServer, record("at-old")); err != nil {
		t.Fatal(err)
	}
	old, err := os.Open(s.Path(tokenServer))
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	before, _ := old.Stat()
	if err := s.Save(ctx, tokenServer, record("at-new")); err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(s.Path(tokenServer))
	if err != nil {
		t.Fatal(err)
	}
	if os.SameFile(before, after) {
		t.Error("the file was written in place, not replaced")
	}
	if st, ok := after.Sys().(*syscall.Stat_t); ok && st.Nlink != 1 {
		t.Errorf("the new file has %d links", st.Nlink)
	}
	data := make([]byte, 4096)
	n, _ := old.Read(data)
	if !strings.Contains(string(data[:n]), "at-old") {
		t.Errorf("the old file changed under its reader: %s", data[:n])
	}
	if r, _ := s.Load(ctx, tokenServer); r == nil || r.Token.AccessToken != "at-new" {
		t.Errorf("after replacing: %+v", r)
	}
	files, _ := os.ReadDir(s.Dir)
	if len(files) != 1 {
		t.Errorf("files left: %v", files)
	}
}

// A damaged file is an error that names the file and the command that removes it (not
// an empty store, which would start a login over it); logout removes it all the same.
func TestTokenFilesDamaged(t *testing.T) {
	ctx := context.Background()
	s := &TokenFiles{Dir: t.TempDir()}
	for _, content := range []string{`{"server": "` + tokenServer + `", "record": {`, `not json`, `{}`} {
		if err := os.WriteFile(s.Path(tokenServer), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := s.Load(ctx, tokenServer)
		msg, code := cmdutil.Describe(err)
		if !strings.HasPrefix(msg, "the token file "+s.Path(tokenServer)+" is damaged (") || !strings.Contains(msg, "mcpi auth logout --url") || code != cmdutil.ExitUsage {
			t.Errorf("%q: %q (exit %d)", content, msg, code)
		}
		if list, err := s.List(ctx); err != nil || len(list) != 1 || list[0].Err == nil {
			t.Errorf("%q: List = %+v, %v", content, list, err)
		}
	}
	// Another server's file under this one's name is not used.
	if err := os.WriteFile(s.Path(tokenServer), []byte(`{"server":"https://evil.example.com/mcp","record":{}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if r, err := s.Load(ctx, tokenServer); r != nil || err == nil || !strings.Contains(err.Error(), "holds the tokens of https://evil.example.com/mcp") {
		t.Errorf("a file of another server: %v, %v", r, err)
	}
	if err := s.Delete(ctx, tokenServer); err != nil {
		t.Fatal(err)
	}
	if r, err := s.Load(ctx, tokenServer); r != nil || err != nil {
		t.Errorf("after Delete: %v, %v", r, err)
	}
}

// A record the token file could not be read back with (an authorization server's
// token of 200,000 '<', 1.2 MB once escaped in JSON, past the 1 MiB a token file is
// read to) is refused when saved, and the file keeps the record it had: written, it
// made every later command fail on "cannot read the token file" until a logout.
func TestTokenFilesTooLarge(t *testing.T) {
	ctx := context.Background()
	s := &TokenFiles{Dir: t.TempDir()}
	if err := s.Save(ctx, tokenServer, record("at-1")); err != nil {
		t.Fatal(err)
	}
	err := s.Save(ctx, tokenServer, record(strings.Repeat("<", 200_000)))
	r, lerr := s.Load(ctx, tokenServer)
	if lerr != nil {
		t.Fatalf("after saving a large record (%v), Load: %v", err, lerr)
	}
	if err == nil {
		t.Fatal("a record larger than a token file is read to was saved")
	}
	if r == nil || r.Token.AccessToken != "at-1" {
		t.Errorf("the file lost its record: %+v", r)
	}
	if msg, _ := cmdutil.Describe(err); !strings.Contains(msg, "too large") {
		t.Errorf("Save: %q", msg)
	}
}

// Logout (the flow's) deletes the file; deleting what is not there is no error.
func TestTokenFilesLogout(t *testing.T) {
	ctx := context.Background()
	s := &TokenFiles{Dir: t.TempDir()}
	if err := s.Save(ctx, tokenServer, record("at-1")); err != nil {
		t.Fatal(err)
	}
	flow, err := auth.New(tokenServer, &auth.Config{Store: s})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := flow.Record(ctx); err != nil || r == nil {
		t.Fatalf("the flow does not see the stored record: %v, %v", r, err)
	}
	if err := flow.Logout(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.Path(tokenServer)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the file is still there after logout: %v", err)
	}
	if err := s.Delete(ctx, tokenServer); err != nil {
		t.Errorf("deleting nothing: %v", err)
	}
}

// The keyring store keeps a record per server; where the keyring cannot be reached, it
// fails with one sentence that names the way out.
func TestKeyring(t *testing.T) {
	ctx := context.Background()
	keyring.MockInit()
	var s Keyring
	if r, err := s.Load(ctx, tokenServer); r != nil || err != nil {
		t.Fatalf("empty keyring: %v, %v", r, err)
	}
	if err := s.Save(ctx, tokenServer, record("at-1")); err != nil {
		t.Fatal(err)
	}
	if r, err := s.Load(ctx, tokenServer); err != nil || r.Token.AccessToken != "at-1" {
		t.Fatalf("Load = %+v, %v", r, err)
	}
	if err := s.Delete(ctx, tokenServer); err != nil {
		t.Fatal(err)
	}
	if r, err := s.Load(ctx, tokenServer); r != nil || err != nil {
		t.Errorf("after Delete: %v, %v", r, err)
	}

	keyring.MockInitWithError(errors.New("the name org.freedesktop.secrets was not provided by any .service files"))
	_, err := s.Load(ctx, tokenServer)
	msg, _ := cmdutil.Describe(err)
	if msg != "the OS keyring cannot be used (the name org.freedesktop.secrets was not provided by any .service files); use --token-store file, the default" {
		t.Errorf("no keyring: %q", msg)
	}
	keyring.MockInitWithError(keyring.ErrSetDataTooBig)
	msg, _ = cmdutil.Describe(s.Save(ctx, tokenServer, record("at-1")))
	if msg != "the tokens are too large for the OS keyring; use --token-store file" {
		t.Errorf("too large: %q", msg)
	}
}
