package state

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/mcp"
)

func ptr[T any](v T) *T { return &v }

func TestDir(t *testing.T) {
	t.Setenv("MCPI_STATE_DIR", "/a/b")
	t.Setenv("XDG_STATE_HOME", "/x")
	if d, _ := Dir(); d != "/a/b" {
		t.Errorf("with MCPI_STATE_DIR: %s", d)
	}
	t.Setenv("MCPI_STATE_DIR", "")
	if d, _ := Dir(); d != "/x/mcpi" {
		t.Errorf("with XDG_STATE_HOME: %s", d)
	}
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("HOME", "/home/u")
	if d, _ := Dir(); d != "/home/u/.local/state/mcpi" {
		t.Errorf("with HOME: %s", d)
	}
}

func TestAddFind(t *testing.T) {
	now := time.Date(2026, 8, 1, 10, 0, 0, 0, time.UTC)
	dir := filepath.Join(t.TempDir(), "new", "dir")
	s := &Store{Path: filepath.Join(dir, FileName), Now: func() time.Time { return now }}
	if entries, err := s.Load(); err != nil || len(entries) != 0 {
		t.Fatalf("missing file: %v, %v", entries, err)
	}
	e := Entry{TaskID: "t1", Tool: "slow_task", Server: Server{URL: "http://h/mcp", Headers: []string{"Authorization=Bearer x"}}, Created: now, TTL: ptr[int64](60_000)}
	if err := s.Add(e); err != nil {
		t.Fatal(err)
	}
	got, ok, err := s.Find("t1")
	if err != nil || !ok || !reflect.DeepEqual(got.Server, e.Server) || got.Tool != "slow_task" || *got.TTL != 60_000 || !got.Created.Equal(now) {
		t.Fatalf("Find = %+v, %v, %v", got, ok, err)
	}
	if _, ok, _ := s.Find("nope"); ok {
		t.Error("found an unknown id")
	}
	// Private, and no temporary files left behind.
	fi, err := os.Stat(s.Path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v, %v", fi.Mode(), err)
	}
	if di, _ := os.Stat(dir); di.Mode().Perm() != 0o700 {
		t.Errorf("dir mode %v", di.Mode())
	}
	files, _ := os.ReadDir(dir)
	if len(files) != 1 {
		t.Errorf("files in the state dir: %v", files)
	}
	// Adding the same id replaces it.
	e.Tool = "other"
	if err := s.Add(e); err != nil {
		t.Fatal(err)
	}
	if entries, _ := s.Load(); len(entries) != 1 || entries[0].Tool != "other" {
		t.Errorf("after replacing: %+v", entries)
	}
	// Past its TTL an entry is dropped.
	now = now.Add(time.Minute)
	if entries, _ := s.Load(); len(entries) != 0 {
		t.Errorf("expired entry kept: %+v", entries)
	}
}

// TestHugeTTL: a ttl too long for a time.Duration (over 1e13 ms once wrapped negative, so
// that the entry was dropped as expired at once) keeps the entry.
func TestHugeTTL(t *testing.T) {
	now := time.Date(2026, 8, 1, 10, 0, 0, 0, time.UTC)
	s := &Store{Path: filepath.Join(t.TempDir(), FileName), Now: func() time.Time { return now }}
	for _, ttl := range []int64{1e13, 9e15, math.MaxInt64} {
		id := fmt.Sprint("t", ttl)
		if err := s.Add(Entry{TaskID: id, Created: now, TTL: ptr(ttl)}); err != nil {
			t.Fatal(err)
		}
		if _, ok, err := s.Find(id); !ok || err != nil {
			t.Errorf("the entry with ttl %d ms was dropped (%v)", ttl, err)
		}
	}
}

func TestBounded(t *testing.T) {
	now := time.Date(2026, 8, 1, 10, 0, 0, 0, time.UTC)
	s := &Store{Path: filepath.Join(t.TempDir(), FileName), Now: func() time.Time { return now }}
	// Write many entries at once, then add one more: the oldest go.
	var many []Entry
	for i := range MaxEntries + 20 {
		many = append(many, Entry{TaskID: fmt.Sprint("t", i), Created: now.Add(time.Duration(i) * time.Second)})
	}
	if err := s.write(many); err != nil {
		t.Fatal(err)
	}
	if err := s.Add(Entry{TaskID: "last", Created: now.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	entries, err := s.Load()
	if err != nil || len(entries) != MaxEntries {
		t.Fatalf("%d entries, %v", len(entries), err)
	}
	if entries[0].TaskID != "t21" || entries[len(entries)-1].TaskID != "last" {
		t.Errorf("kept %s .. %s", entries[0].TaskID, entries[len(entries)-1].TaskID)
	}
}

func TestCorrupt(t *testing.T) {
	s := &Store{Path: filepath.Join(t.TempDir(), FileName)}
	os.WriteFile(s.Path, []byte("{nope"), 0o600)
	_, err := s.Load()
	msg, code := cmdutil.Describe(err)
	if code != 2 || !strings.HasPrefix(msg, "the state file "+s.Path+" is not valid") || !strings.Contains(msg, "remove it") {
		t.Errorf("%q (exit %d)", msg, code)
	}
	if err := s.Add(Entry{TaskID: "x"}); err == nil {
		t.Error("Add over a corrupt file succeeded")
	}
}

func TestSelection(t *testing.T) {
	wd, _ := os.Getwd()
	sel := &connect.Selection{Config: "mcp.json", Server: "s", Cwd: "/abs", Env: []string{"A=1"}}
	srv := FromSelection(sel)
	if srv.Config != filepath.Join(wd, "mcp.json") || srv.Cwd != "/abs" || srv.Server != "s" {
		t.Errorf("FromSelection = %+v", srv)
	}
	var back connect.Selection
	srv.Apply(&back)
	if back.Config != srv.Config || back.Server != "s" || !reflect.DeepEqual(back.Env, []string{"A=1"}) || !back.IsSet() {
		t.Errorf("Apply = %+v", back)
	}
	if got := (Server{Stdio: "mcpi serve demo", Env: []string{"K=a b"}}).Flags(); got != `--stdio 'mcpi serve demo' --env 'K=a b'` {
		t.Errorf("Flags = %s", got)
	}
	if got := (Server{URL: "http://h:1/mcp"}).String(); got != "http://h:1/mcp" {
		t.Errorf("String = %s", got)
	}
	if cmdutil.ShellQuote("it's") != `'it'\''s'` || cmdutil.ShellQuote("abc-1") != "abc-1" {
		t.Error("ShellQuote")
	}
}

func TestRemember(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	s := &Store{Path: filepath.Join(t.TempDir(), FileName), Now: func() time.Time { return now }}
	// The server's clock runs months behind: the entry is dated, and expires, by this
	// machine's clock.
	ttl := int64(60_000)
	task := mcp.Task{TaskID: "abc", Status: mcp.TaskStatusWorking, CreatedAt: "2026-08-01T10:00:00Z", TTL: &ttl}
	fetch, err := Remember(s, &connect.Selection{URL: "http://h/mcp"}, "slow_task", "", task, nil)
	if err != nil || fetch != "mcpi tasks result abc" {
		t.Fatalf("Remember = %q, %v", fetch, err)
	}
	e, ok, _ := s.Find("abc")
	if !ok || e.TTL == nil || *e.TTL != ttl || e.Server.URL != "http://h/mcp" || !e.Created.Equal(now) {
		t.Errorf("entry %+v (found %v)", e, ok)
	}
	if at, ok := e.Expires(); !ok || !at.Equal(now.Add(time.Minute)) {
		t.Errorf("Expires = %v, %v", at, ok)
	}
	// An unusable state file: the command names the server itself.
	bad := &Store{Path: filepath.Join(s.Path, "under-a-file", FileName)}
	fetch, err = Remember(bad, &connect.Selection{URL: "http://h/mcp"}, "slow_task", "", task, nil)
	if err == nil || fetch != "mcpi --url http://h/mcp tasks result abc" {
		t.Errorf("Remember on a bad path = %q, %v", fetch, err)
	}
}

// A task's record keeps the protocol version it was created in, which the command that
// fetches it uses; a record of an older mcpi, without one, is read as unknown.
func TestRememberProtocol(t *testing.T) {
	s := &Store{Path: filepath.Join(t.TempDir(), FileName)}
	task := mcp.Task{TaskID: "old-era", Status: mcp.TaskStatusWorking}
	if _, err := Remember(s, &connect.Selection{URL: "http://h/mcp"}, "slow_task", mcp.LatestProtocolVersion, task, nil); err != nil {
		t.Fatal(err)
	}
	e, ok, _ := s.Find("old-era")
	if !ok || e.Protocol != mcp.LatestProtocolVersion {
		t.Fatalf("entry %+v (found %v); want protocol %s", e, ok, mcp.LatestProtocolVersion)
	}
	if e.Reachable(mcp.ProtocolVersion20260728) || !e.Reachable(mcp.LatestProtocolVersion) {
		t.Errorf("a task of %s is reachable in 2026-07-28, or not in its own", e.Protocol)
	}
	sel := &connect.Selection{Protocol: "auto"}
	e.ApplyProtocol(sel)
	if sel.Protocol != mcp.LatestProtocolVersion {
		t.Errorf("--protocol auto became %q, want %s", sel.Protocol, mcp.LatestProtocolVersion)
	}
	sel = &connect.Selection{Protocol: mcp.ProtocolVersion20260728}
	if e.ApplyProtocol(sel); sel.Protocol != mcp.ProtocolVersion20260728 {
		t.Errorf("the --protocol the user gave became %q", sel.Protocol)
	}
	// Without a state file, the command names the protocol with the server.
	bad := &Store{Path: filepath.Join(s.Path, "under-a-file", FileName)}
	if fetch, _ := Remember(bad, &connect.Selection{URL: "http://h/mcp"}, "slow_task", mcp.LatestProtocolVersion, task, nil); fetch != "mcpi --url http://h/mcp --protocol 2025-11-25 tasks result old-era" {
		t.Errorf("Remember on a bad path = %q", fetch)
	}

	// A file written before the field existed.
	old := &Store{Path: filepath.Join(t.TempDir(), FileName)}
	os.WriteFile(old.Path, []byte(`{"tasks": [{"taskId": "t1", "tool": "x", "server": {"url": "http://h/mcp"}, "created": "2099-01-01T00:00:00Z", "ttl": null}]}`), 0o600)
	e, ok, err := old.Find("t1")
	if err != nil || !ok || e.Protocol != "" || !e.Reachable(mcp.ProtocolVersion20260728) || !e.Reachable(mcp.LatestProtocolVersion) {
		t.Errorf("old record: %+v, %v, %v", e, ok, err)
	}
	sel = &connect.Selection{Protocol: "auto"}
	if e.ApplyProtocol(sel); sel.Protocol != "auto" {
		t.Errorf("an old record changed --protocol auto to %q", sel.Protocol)
	}
}

// A task's session is recorded without the server's instructions, and not at all when
// it is too large; state files of older mcpi versions, without sessions, still load.
func TestRememberSession(t *testing.T) {
	s := &Store{Path: filepath.Join(t.TempDir(), FileName)}
	task := mcp.Task{TaskID: "t1", TTL: ptr[int64](60_000)}
	init := &mcp.InitializeResult{ProtocolVersion: mcp.LatestProtocolVersion, Instructions: "long text",
		ServerInfo: mcp.Implementation{Name: "srv", Version: "1"}}
	if _, err := Remember(s, &connect.Selection{URL: "http://h/mcp"}, "slow_task", mcp.LatestProtocolVersion, task, &client.Resumption{SessionID: "sid", Initialize: init}); err != nil {
		t.Fatal(err)
	}
	e, ok, err := s.Find("t1")
	if err != nil || !ok || e.Session == nil || e.Session.SessionID != "sid" || e.Session.Initialize.ServerInfo.Name != "srv" ||
		e.Session.Initialize.ProtocolVersion != mcp.LatestProtocolVersion || e.Session.Initialize.Instructions != "" {
		t.Fatalf("recorded %+v, %v, %v", e.Session, ok, err)
	}
	if err := s.SetSession("t1", nil); err != nil {
		t.Fatal(err)
	}
	if e, _, _ := s.Find("t1"); e.Session != nil {
		t.Errorf("SetSession nil kept %+v", e.Session)
	}

	huge := *init
	huge.Capabilities.Experimental = map[string]json.RawMessage{"x": json.RawMessage(`"` + strings.Repeat("a", MaxSessionSize) + `"`)}
	if _, err := Remember(s, &connect.Selection{URL: "http://h/mcp"}, "slow_task", mcp.LatestProtocolVersion, mcp.Task{TaskID: "t2"}, &client.Resumption{SessionID: "sid", Initialize: &huge}); err != nil {
		t.Fatal(err)
	}
	if e, ok, _ := s.Find("t2"); !ok || e.Session != nil {
		t.Errorf("an oversized session was recorded: %v", ok)
	}

	old := `{"tasks": [{"taskId": "t3", "tool": "slow_task", "server": {"url": "http://h/mcp"}, "created": "` + time.Now().Format(time.RFC3339) + `", "ttl": null}]}`
	if err := os.WriteFile(s.Path, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	if e, ok, err := s.Find("t3"); err != nil || !ok || e.Session != nil || e.Server.URL != "http://h/mcp" {
		t.Errorf("an older state file: %+v, %v, %v", e, ok, err)
	}
}

// The command that fetches a task the state file records for the same server is the
// task's id alone: no --header value (a token) goes on the screen. One it does not
// record names the server's flags.
func TestFetchCommandOfRecordedTask(t *testing.T) {
	t.Setenv("MCPI_STATE_DIR", t.TempDir())
	sel := &connect.Selection{URL: "http://h/mcp", Headers: []string{"Authorization=Bearer SECRET"}}
	s, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Remember(s, sel, "slow_task", "", mcp.Task{TaskID: "kept", Status: mcp.TaskStatusWorking}, nil); err != nil {
		t.Fatal(err)
	}
	if got := FetchCommand(sel, "", "kept"); got != "mcpi tasks result kept" {
		t.Errorf("FetchCommand of a recorded task = %q", got)
	}
	if got := FetchCommand(sel, "", "other"); !strings.Contains(got, "--url http://h/mcp") || !strings.HasSuffix(got, "tasks result other") {
		t.Errorf("FetchCommand of a task not recorded = %q", got)
	}
	if got := FetchCommand(&connect.Selection{URL: "http://elsewhere/mcp"}, "", "kept"); !strings.Contains(got, "--url http://elsewhere/mcp") {
		t.Errorf("FetchCommand for another server = %q", got)
	}
}
